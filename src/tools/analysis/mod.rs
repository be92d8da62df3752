//! `tengen analysis`: KataGo's JSON analysis engine protocol (its docs/Analysis_Engine.md)
//! on stdin/stdout, so that review tools that launch `katago analysis -model M -config C`
//! can launch Tengen instead: one JSON query a line in, one JSON response a line out per
//! analysed turn (and partial ones with `reportDuringSearchEvery`), errors and warnings as
//! JSON lines with the query's id. This thread reads the queries and answers the actions;
//! the pool (`pool.rs`) searches the turns in parallel, each answer written as its search
//! ends. Owns the command line, the reading of lines, the actions and the account of what
//! is queued; the fields of a query are `query.rs`'s, the answers' `response.rs`'s.

pub mod pool;
mod query;
mod response;

use std::io::{BufRead, Write};
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed};
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::sync::Arc;

use serde_json::{json, Map, Value};

use crate::nn::Model;
use pool::{Outcome, Pool, PoolSize, Request, Sink, Status, Was};
use response::error;

/// The version `query_version` reports: the KataGo analysis protocol Tengen follows.
pub const PROTOCOL_VERSION: &str = "1.17.2";
/// Longest query line read; a longer one is skipped to its end and answered with an error.
pub const MAX_LINE: usize = 1 << 20;
/// Visits a turn when neither the query nor `-override-config` says.
pub const DEFAULT_VISITS: u64 = 100;
/// Most visits a turn is searched for (a query asking more gets this many).
pub const MAX_VISITS: u64 = 1_000_000;
/// Most bytes of queries waiting or being searched (each counted by its line's length):
/// a query beyond is refused with an error until earlier ones are answered.
pub const MAX_QUEUED_BYTES: usize = 256 << 20;
/// Most turns waiting to be searched.
pub const MAX_QUEUED_TURNS: usize = 100_000;

/// What the command line set.
#[derive(Debug, Default)]
struct Options {
    model: Option<std::path::PathBuf>,
    max_visits: Option<u64>,
    /// Positions searched at once (`numAnalysisThreads`, `-analysis-threads`).
    workers: Option<usize>,
    /// Threads of each search (`numSearchThreadsPerAnalysisThread`, `numSearchThreads`).
    search_threads: Option<usize>,
    /// At the end of input, stop at once instead of answering what is queued.
    quit_without_waiting: bool,
    /// The network's precision (`-override-config tengenPrecision=auto|fp32|bf16|int8`).
    precision: crate::nn::Precision,
}

/// KataGo's command-line shape: `-model M`, `-config C`, `-override-config k=v,...`,
/// `-human-model H`, `-analysis-threads N`, `-quit-without-waiting` (and the same with
/// two dashes). Unknown flags and keys are accepted with a warning on stderr. The config
/// file's thread counts are a GPU's (KaTrain's asks for 12 x 8): Tengen chooses its own
/// from the cores unless `-override-config` or `-analysis-threads` names them.
fn parse_args(args: &[String]) -> anyhow::Result<Options> {
    let mut o = Options::default();
    let mut i = 0;
    let count = |v: &str| v.trim().parse::<usize>().ok().map(|n| n.clamp(1, 256));
    while i < args.len() {
        let flag = args[i].trim_start_matches('-');
        let value = args.get(i + 1).cloned();
        let mut take = || -> anyhow::Result<String> {
            i += 1;
            value
                .clone()
                .ok_or_else(|| anyhow::anyhow!("{} needs a value", args[i - 1]))
        };
        match flag {
            "model" => o.model = Some(take()?.into()),
            "config" => {
                let c = take()?;
                crate::log!(
                    2,
                    "analysis: config {c} read for nothing: Tengen's defaults apply"
                );
            }
            "override-config" => {
                for kv in take()?.split(',') {
                    let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
                    match k.trim() {
                        "maxVisits" => o.max_visits = v.trim().parse().ok(),
                        "numAnalysisThreads" => o.workers = count(v),
                        "numSearchThreads" | "numSearchThreadsPerAnalysisThread" => {
                            o.search_threads = count(v)
                        }
                        "tengenPrecision" => {
                            o.precision = crate::nn::Precision::parse(v.trim())
                                .map_err(|e| anyhow::anyhow!("tengenPrecision={v}: {e}"))?
                        }
                        other => crate::log!(
                            1,
                            "analysis: -override-config {other} is not used by Tengen"
                        ),
                    }
                }
            }
            "analysis-threads" => o.workers = count(&take()?),
            "quit-without-waiting" => o.quit_without_waiting = true,
            "human-model" => {
                let h = take()?;
                crate::log!(
                    1,
                    "analysis: -human-model {h} ignored (Tengen has no human model)"
                );
            }
            "v" | "verbose" => {
                if let Ok(level) = take()?.parse() {
                    crate::log::set_level(level);
                }
            }
            _ => crate::log!(1, "analysis: argument {} ignored", args[i]),
        }
        i += 1;
    }
    Ok(o)
}

/// `tengen analysis ARGS`: answers queries from stdin until it closes, then (unless
/// `-quit-without-waiting`) finishes what is queued.
pub fn main(args: &[String]) -> anyhow::Result<()> {
    let options = parse_args(args)?;
    let network = crate::cli::resolve_network(options.model.clone()).map_err(anyhow::Error::msg)?;
    let config = crate::engine::Settings::default().search;
    let cores = config.threads.max(1);
    let service = network
        .as_ref()
        .map(|n| n.service(options.precision, config.max_memory_mib));
    let model = network.map(|n| n.0);
    let size = PoolSize {
        workers: options.workers.unwrap_or(cores),
        threads_per_search: options.search_threads,
        cores,
    };
    let out = Arc::new(Out::default());
    let mut server = Server {
        pool: Pool::new(&config, service, size),
        out: out.clone(),
        open: Vec::new(),
        queued_bytes: Arc::new(AtomicUsize::new(0)),
        default_visits: options.max_visits.unwrap_or(DEFAULT_VISITS),
        model,
    };
    crate::log!(
        1,
        "analysis: ready, {} positions at a time, one JSON query a line",
        size.workers
    );
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    loop {
        if out.closed.load(Acquire) {
            server.pool.abort();
            return Ok(());
        }
        let line = match read_line(&mut input)? {
            Line::End => break,
            Line::TooLong => {
                out.emit(json!({"error": format!("query line longer than {MAX_LINE} bytes")}));
                continue;
            }
            Line::Text(t) => t,
        };
        if !line.trim().is_empty() {
            server.line(&line);
        }
    }
    if options.quit_without_waiting {
        server.pool.abort();
    } else {
        server.pool.finish();
    }
    Ok(())
}

enum Line {
    Text(String),
    TooLong,
    End,
}

/// One line of at most [`MAX_LINE`] bytes; a longer one is read to its end and dropped.
fn read_line(input: &mut impl BufRead) -> std::io::Result<Line> {
    let mut buf = Vec::new();
    let mut too_long = false;
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            if buf.is_empty() && !too_long {
                return Ok(Line::End);
            }
            break;
        }
        let (used, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if !too_long {
            if buf.len() + used > MAX_LINE {
                too_long = true;
                buf = Vec::new();
            } else {
                buf.extend_from_slice(&chunk[..used]);
            }
        }
        input.consume(used);
        if done {
            break;
        }
    }
    if too_long {
        return Ok(Line::TooLong);
    }
    Ok(Line::Text(String::from_utf8_lossy(&buf).into_owned()))
}

/// Standard output shared by the reader and the workers: one whole line at a time.
#[derive(Default)]
struct Out {
    /// Set when a write failed (the client went away).
    closed: AtomicBool,
}

impl Out {
    fn emit(&self, v: Value) {
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        if writeln!(out, "{v}").is_err() || out.flush().is_err() {
            self.closed.store(true, Relaxed);
        }
    }
}

/// A turn submitted and not yet known to be over: what `terminate` looks through.
struct Open {
    id: Value,
    turn: usize,
    status: Arc<Status>,
}

struct Server {
    pool: Pool,
    out: Arc<Out>,
    open: Vec<Open>,
    /// Bytes of the queries whose turns are waiting or searched.
    queued_bytes: Arc<AtomicUsize>,
    default_visits: u64,
    model: Option<Arc<Model>>,
}

impl Server {
    /// Answers one line: an action at once, a query's errors at once and its turns as
    /// their searches end.
    fn line(&mut self, line: &str) {
        let v: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                return self
                    .out
                    .emit(json!({"error": format!("could not parse JSON: {e}")}))
            }
        };
        let Some(q) = v.as_object() else {
            return self
                .out
                .emit(json!({"error": "a query must be a JSON object"}));
        };
        let id = q.get("id").cloned().unwrap_or(Value::Null);
        if let Some(action) = q.get("action") {
            return self.action(&id, q, action);
        }
        if !(id.is_string() || id.is_number()) {
            return self.out.emit(error(
                &Value::Null,
                Some("id"),
                "a query needs an id".into(),
            ));
        }
        if let Err(e) = self.query(&id, q, line.len()) {
            self.out.emit(e);
        }
    }

    fn action(&mut self, id: &Value, q: &Map<String, Value>, action: &Value) {
        let echo = Value::Object(q.clone());
        let turns = match q.get("turnNumbers") {
            None => None,
            Some(t) => match t
                .as_array()
                .and_then(|a| a.iter().map(Value::as_u64).collect::<Option<Vec<_>>>())
            {
                Some(list) => Some(list),
                None => {
                    return self.out.emit(error(
                        id,
                        Some("turnNumbers"),
                        "turnNumbers must be a list of turn numbers".into(),
                    ))
                }
            },
        };
        match action.as_str() {
            Some("query_version") => self.out.emit(json!({
                "id": id, "action": "query_version",
                "version": PROTOCOL_VERSION,
                "git_hash": format!("tengen-{}", env!("CARGO_PKG_VERSION")),
            })),
            Some("query_models") => {
                let models: Vec<Value> = self
                    .model
                    .iter()
                    .map(|m| {
                        json!({"name": m.name, "internalName": m.name,
                               "usesHumanSLProfile": false, "usingFP16": false})
                    })
                    .collect();
                self.out
                    .emit(json!({"id": id, "action": "query_models", "models": models}));
            }
            Some("clear_cache") => {
                self.pool.clear_cache();
                self.out.emit(echo);
            }
            Some("terminate") => match q.get("terminateId").filter(|t| !t.is_null()) {
                Some(t) => {
                    self.terminate(|o| &o.id == t, turns.as_deref());
                    self.out.emit(echo);
                }
                None => self.out.emit(error(
                    id,
                    Some("terminateId"),
                    "terminate needs a terminateId".into(),
                )),
            },
            Some("terminate_all") => {
                self.terminate(|_| true, turns.as_deref());
                self.out.emit(echo);
            }
            _ => self.out.emit(error(
                id,
                Some("action"),
                "action must be query_version, query_models, clear_cache, terminate or terminate_all"
                    .into(),
            )),
        }
    }

    /// Terminates the open turns `which` picks (of `turns` only, when given): a waiting
    /// one is answered here without results, a running one stops and answers itself.
    fn terminate(&mut self, which: impl Fn(&Open) -> bool, turns: Option<&[u64]>) {
        for o in &self.open {
            if which(o)
                && turns.is_none_or(|t| t.contains(&(o.turn as u64)))
                && o.status.terminate() == Was::Queued
            {
                self.out.emit(response::no_results(&o.id, o.turn));
            }
        }
        self.open.retain(|o| o.status.is_open());
    }

    fn query(&mut self, id: &Value, q: &Map<String, Value>, bytes: usize) -> Result<(), Value> {
        let parsed = query::parse(id, q, self.default_visits)?;
        self.open.retain(|o| o.status.is_open());
        let bytes = bytes + 64 * parsed.turns.len();
        if self.queued_bytes.load(Acquire) + bytes > MAX_QUEUED_BYTES
            || self.open.len() + parsed.turns.len() > MAX_QUEUED_TURNS
        {
            return Err(error(
                id,
                None,
                format!(
                    "too much waiting ({} turns): send it again when earlier queries are answered",
                    self.open.len()
                ),
            ));
        }
        if !self.pool.is_running() {
            return Err(error(id, None, "no thread to search on".into()));
        }
        for w in parsed.warnings {
            self.out.emit(w);
        }
        let mut position = parsed.position;
        let account = self.queued_bytes.clone();
        account.fetch_add(bytes, AcqRel);
        position.on_drop = Some(Box::new(move || {
            account.fetch_sub(bytes, AcqRel);
        }));
        let position = Arc::new(position);
        let (shape, filter) = (Arc::new(parsed.shape), Arc::new(parsed.filter));
        for (turn, priority) in parsed.turns {
            let status = Arc::new(Status::default());
            let (out, id2, shape2) = (self.out.clone(), id.clone(), shape.clone());
            let sink: Sink = Arc::new(move |o: Outcome<'_>| {
                out.emit(match o {
                    Outcome::Partial(a, p) => response::analysis(&id2, turn, a, &shape2, true, p),
                    Outcome::Final(a, p) => response::analysis(&id2, turn, a, &shape2, false, p),
                    Outcome::Nothing => response::no_results(&id2, turn),
                })
            });
            self.open.push(Open {
                id: id.clone(),
                turn,
                status: status.clone(),
            });
            self.pool.submit(Request {
                position: position.clone(),
                turn,
                priority,
                visits: parsed.visits,
                time: parsed.time,
                report_every: parsed.report_every,
                moves_ownership: shape.moves_ownership,
                policy: shape.policy && self.model.is_some(),
                filter: filter.clone(),
                status,
                sink,
            });
        }
        Ok(())
    }
}
