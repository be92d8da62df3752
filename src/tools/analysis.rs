//! `tengen analysis`: KataGo's JSON analysis engine protocol (its docs/Analysis_Engine.md)
//! on stdin/stdout, so that review tools that launch `katago analysis -model M -config C`
//! can launch Tengen instead: one JSON query a line in, one JSON response a line out per
//! analysed turn, errors and warnings as JSON lines with the query's id. Queries are
//! answered one after another, each turn searched on every search thread. Knows the
//! protocol's fields and their text; the search, the network and the rules are the
//! library's.

use std::io::{BufRead, Write};

use serde_json::{json, Map, Value};

use crate::board::{Color, Move, Point};
use crate::game::Game;
use crate::gtp::GtpMove;
use crate::nn::eval::Evaluator;
use crate::nn::features::InputRules;
use crate::nn::Model;
use crate::notation::{color_letter, move_text};
use crate::rules::Rules;
use crate::search::{Analysis, Limits, Search};

/// The version `query_version` reports: the KataGo analysis protocol Tengen follows.
pub const PROTOCOL_VERSION: &str = "1.17.2";
/// Longest query line read; a longer one is skipped to its end and answered with an error.
pub const MAX_LINE: usize = 1 << 20;
/// Visits a turn when neither the query nor `-override-config` says.
pub const DEFAULT_VISITS: u64 = 100;
/// Most visits a query may ask for (more are cut to this, with a warning).
pub const MAX_VISITS: u64 = 1_000_000;

/// What the command line set.
#[derive(Debug, Default)]
struct Options {
    model: Option<std::path::PathBuf>,
    max_visits: Option<u64>,
    threads: Option<usize>,
}

/// KataGo's command-line shape: `-model M`, `-config C`, `-override-config k=v,...`,
/// `-human-model H` (and the same with two dashes). Unknown flags and keys are accepted
/// with a warning on stderr.
fn parse_args(args: &[String]) -> anyhow::Result<Options> {
    let mut o = Options::default();
    let mut i = 0;
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
                        "numSearchThreads" => o.threads = v.trim().parse().ok(),
                        other => crate::log!(
                            1,
                            "analysis: -override-config {other} is not used by Tengen"
                        ),
                    }
                }
            }
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

/// `tengen analysis ARGS`: answers queries from stdin until it closes.
pub fn main(args: &[String]) -> anyhow::Result<()> {
    let options = parse_args(args)?;
    let network = crate::cli::resolve_network(options.model.clone()).map_err(anyhow::Error::msg)?;
    let mut config = crate::engine::Settings::default().search;
    if let Some(t) = options.threads {
        config.threads = t.clamp(1, 64);
    }
    let model = network.map(|n| n.0);
    crate::log!(1, "analysis: ready, one JSON query a line");
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let stdout = std::io::stdout();
    let mut server = Server {
        search: new_search(&config, &model),
        config,
        model,
        default_visits: options.max_visits.unwrap_or(DEFAULT_VISITS),
    };
    loop {
        let line = match read_line(&mut input)? {
            Line::End => return Ok(()),
            Line::TooLong => {
                emit(
                    &stdout,
                    json!({"error": format!("query line longer than {MAX_LINE} bytes")}),
                );
                continue;
            }
            Line::Text(t) => t,
        };
        if line.trim().is_empty() {
            continue;
        }
        for response in server.answer(&line) {
            if !emit(&stdout, response) {
                return Ok(());
            }
        }
    }
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

/// Writes one JSON line; false when stdout is closed.
fn emit(stdout: &std::io::Stdout, v: Value) -> bool {
    let mut out = stdout.lock();
    writeln!(out, "{v}").is_ok() && out.flush().is_ok()
}

/// A search with `model` (the playouts without).
fn new_search(
    config: &crate::search::SearchConfig,
    model: &Option<std::sync::Arc<Model>>,
) -> Search {
    let mut search = Search::new(config.clone());
    search.set_net(model.clone());
    search
}

struct Server {
    search: Search,
    config: crate::search::SearchConfig,
    model: Option<std::sync::Arc<Model>>,
    default_visits: u64,
}

/// Whose point of view win rates, scores and ownership are reported from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Perspective {
    Black,
    White,
    SideToMove,
}

/// A query's error: the text, and the field it is about.
fn error(id: &Value, field: Option<&str>, text: String) -> Value {
    let mut m = Map::new();
    if !id.is_null() {
        m.insert("id".into(), id.clone());
    }
    if let Some(f) = field {
        m.insert("field".into(), json!(f));
    }
    m.insert("error".into(), json!(text));
    Value::Object(m)
}

fn warning(id: &Value, field: &str, text: String) -> Value {
    json!({"id": id, "field": field, "warning": text})
}

impl Server {
    /// The responses to one line.
    fn answer(&mut self, line: &str) -> Vec<Value> {
        let v: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => return vec![json!({"error": format!("could not parse JSON: {e}")})],
        };
        let Some(q) = v.as_object() else {
            return vec![json!({"error": "a query must be a JSON object"})];
        };
        let id = q.get("id").cloned().unwrap_or(Value::Null);
        if let Some(action) = q.get("action") {
            return vec![self.action(&id, q, action)];
        }
        if !(id.is_string() || id.is_number()) {
            return vec![error(
                &Value::Null,
                Some("id"),
                "a query needs an id".into(),
            )];
        }
        match self.query(&id, q) {
            Ok(r) => r,
            Err(e) => vec![e],
        }
    }

    fn action(&mut self, id: &Value, q: &Map<String, Value>, action: &Value) -> Value {
        match action.as_str() {
            Some("query_version") => json!({
                "id": id, "action": "query_version",
                "version": PROTOCOL_VERSION,
                "git_hash": format!("tengen-{}", env!("CARGO_PKG_VERSION")),
            }),
            Some("clear_cache") => {
                self.search = new_search(&self.config, &self.model);
                json!({"id": id, "action": "clear_cache"})
            }
            // Queries are answered as they come, each before the next line is read:
            // nothing is left to stop by the time a terminate is read.
            Some("terminate") => match q.get("terminateId") {
                Some(t) => json!({"id": id, "action": "terminate", "terminateId": t}),
                None => error(
                    id,
                    Some("terminateId"),
                    "terminate needs a terminateId".into(),
                ),
            },
            Some("terminate_all") => json!({"id": id, "action": "terminate_all"}),
            Some(other) => error(id, Some("action"), format!("unknown action {other}")),
            None => error(id, Some("action"), "action must be a string".into()),
        }
    }

    fn query(&mut self, id: &Value, q: &Map<String, Value>) -> Result<Vec<Value>, Value> {
        let mut out = Vec::new();
        let size_of = |key: &str| -> Result<usize, Value> {
            let n = match q.get(key) {
                None => 19,
                Some(v) => v
                    .as_u64()
                    .ok_or_else(|| error(id, Some(key), format!("{key} must be an integer")))?
                    as usize,
            };
            if !(2..=crate::board::MAX_SIZE).contains(&n) {
                return Err(error(
                    id,
                    Some(key),
                    format!("{key} {n} out of range 2-{}", crate::board::MAX_SIZE),
                ));
            }
            Ok(n)
        };
        let (x, y) = (size_of("boardXSize")?, size_of("boardYSize")?);
        if x != y {
            return Err(error(
                id,
                Some("boardYSize"),
                "only square boards are supported".into(),
            ));
        }
        let size = x;
        if let Some(r) = q.get("rules") {
            let known = r.as_str().is_some_and(|s| {
                matches!(
                    s.to_ascii_lowercase().as_str(),
                    "chinese"
                        | "tromp-taylor"
                        | "aga"
                        | "new-zealand"
                        | "japanese"
                        | "korean"
                        | "stone-scoring"
                        | "chinese-ogs"
                        | "chinese-kgs"
                )
            });
            if !known && !r.is_object() {
                return Err(error(id, Some("rules"), format!("unknown rules {r}")));
            }
            if r.as_str()
                .is_none_or(|s| !s.eq_ignore_ascii_case("chinese"))
            {
                out.push(warning(id, "rules", "Tengen plays Chinese rules (area counting, positional superko): those are used".into()));
            }
        }
        let mut game = Game::new(size, Rules::chinese())
            .ok_or_else(|| error(id, Some("boardXSize"), "board size not supported".into()))?;
        if let Some(k) = q.get("komi") {
            let k = k
                .as_f64()
                .filter(|k| k.is_finite() && k.abs() <= 150.0)
                .ok_or_else(|| {
                    error(id, Some("komi"), "komi must be a number within 150".into())
                })?;
            game.set_komi(k);
        }
        let color_of = |v: &Value, field: &str| -> Result<Color, Value> {
            match v.as_str().map(|s| s.to_ascii_uppercase()) {
                Some(s) if s == "B" || s == "BLACK" => Ok(Color::Black),
                Some(s) if s == "W" || s == "WHITE" => Ok(Color::White),
                _ => Err(error(
                    id,
                    Some(field),
                    format!("{v} is not a player (B or W)"),
                )),
            }
        };
        let empty = game.board().clone();
        let move_of = |v: &Value, field: &str| -> Result<Move, Value> {
            let s = v
                .as_str()
                .ok_or_else(|| error(id, Some(field), format!("{v} is not a move")))?;
            let m: GtpMove = s
                .to_ascii_lowercase()
                .parse()
                .map_err(|_| error(id, Some(field), format!("{s} is not a move")))?;
            match m {
                GtpMove::Pass => Ok(Move::Pass),
                GtpMove::Vertex(vx) => empty
                    .point(vx.col as usize, vx.row as usize)
                    .map(Move::Place)
                    .ok_or_else(|| {
                        error(
                            id,
                            Some(field),
                            format!("{s} is off the {size}x{size} board"),
                        )
                    }),
            }
        };
        let pairs = |key: &str| -> Result<Vec<(Color, Move)>, Value> {
            let Some(list) = q.get(key) else {
                return Ok(Vec::new());
            };
            let list = list.as_array().ok_or_else(|| {
                error(
                    id,
                    Some(key),
                    format!("{key} must be a list of [player, move]"),
                )
            })?;
            list.iter()
                .map(|p| match p.as_array().map(|a| a.as_slice()) {
                    Some([c, m]) => Ok((color_of(c, key)?, move_of(m, key)?)),
                    _ => Err(error(
                        id,
                        Some(key),
                        format!("{p} is not a [player, move] pair"),
                    )),
                })
                .collect()
        };
        let stones = pairs("initialStones")?;
        let moves = pairs("moves")?;
        let first = match q.get("initialPlayer") {
            Some(v) => color_of(v, "initialPlayer")?,
            None => moves.first().map_or(Color::Black, |m| m.0),
        };
        let placed: Vec<(Color, Point)> = stones
            .iter()
            .filter_map(|&(c, m)| match m {
                Move::Place(p) => Some((c, p)),
                Move::Pass => None,
            })
            .collect();
        if !placed.is_empty() || first != Color::Black {
            game.set_position(&placed, first);
        }
        let turns: Vec<usize> = match q.get("analyzeTurns") {
            None => vec![moves.len()],
            Some(v) => {
                let list = v.as_array().ok_or_else(|| {
                    error(
                        id,
                        Some("analyzeTurns"),
                        "analyzeTurns must be a list of turn numbers".into(),
                    )
                })?;
                let mut t = Vec::new();
                for n in list {
                    match n.as_u64() {
                        Some(n) if n as usize <= moves.len() => t.push(n as usize),
                        _ => {
                            return Err(error(
                                id,
                                Some("analyzeTurns"),
                                format!("turn {n} is not between 0 and {}", moves.len()),
                            ))
                        }
                    }
                }
                t
            }
        };
        let settings = q.get("overrideSettings").and_then(Value::as_object);
        let setting = |k: &str| q.get(k).or_else(|| settings.and_then(|s| s.get(k)));
        let mut visits = self.default_visits;
        if let Some(v) = setting("maxVisits") {
            visits = v.as_u64().filter(|&v| v >= 1).ok_or_else(|| {
                error(
                    id,
                    Some("maxVisits"),
                    "maxVisits must be a positive integer".into(),
                )
            })?;
            if visits > MAX_VISITS {
                out.push(warning(id, "maxVisits", format!("cut to {MAX_VISITS}")));
                visits = MAX_VISITS;
            }
        }
        let max_time = setting("maxTime")
            .and_then(Value::as_f64)
            .filter(|t| *t > 0.0);
        let perspective = match setting("reportAnalysisWinratesAs").and_then(Value::as_str) {
            Some(s) if s.eq_ignore_ascii_case("WHITE") => Perspective::White,
            Some(s) if s.eq_ignore_ascii_case("SIDETOMOVE") => Perspective::SideToMove,
            _ => Perspective::Black,
        };
        let flag = |k: &str| q.get(k).and_then(Value::as_bool).unwrap_or(false);
        let (own, policy, pv_visits) = (
            flag("includeOwnership"),
            flag("includePolicy"),
            flag("includePVVisits"),
        );
        let mut avoid: Vec<(Color, Point, usize)> = Vec::new();
        for (key, allow) in [("avoidMoves", false), ("allowMoves", true)] {
            let Some(list) = q.get(key).and_then(Value::as_array) else {
                continue;
            };
            if allow {
                out.push(warning(
                    id,
                    key,
                    "allowMoves is not supported: ignored".into(),
                ));
                continue;
            }
            for entry in list {
                let player = entry
                    .get("player")
                    .map(|c| color_of(c, key))
                    .transpose()?
                    .unwrap_or(Color::Black);
                let depth = entry.get("untilDepth").and_then(Value::as_u64).unwrap_or(1) as usize;
                for m in entry
                    .get("moves")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if let Move::Place(p) = move_of(m, key)? {
                        avoid.push((player, p, depth));
                    }
                }
            }
        }
        // Play the moves, answering each asked turn as the game reaches it.
        let mut game_at = game.clone();
        for turn in 0..=moves.len() {
            if turns.contains(&turn) {
                let color = game_at.to_move();
                let avoided: Vec<Point> = avoid
                    .iter()
                    .filter(|a| a.0 == color && a.2 >= 1)
                    .map(|a| a.1)
                    .collect();
                let filter = |m: Move| !matches!(m, Move::Place(p) if avoided.contains(&p));
                let limits = Limits {
                    root_filter: if avoided.is_empty() {
                        None
                    } else {
                        Some(&filter)
                    },
                    time: max_time.map(std::time::Duration::from_secs_f64),
                    ..Limits::playouts(visits)
                };
                let a = self.search.run(&game_at, color, &limits);
                out.push(self.response(
                    id,
                    turn,
                    &game_at,
                    &a,
                    perspective,
                    own,
                    policy,
                    pv_visits,
                ));
            }
            if let Some(&(c, m)) = moves.get(turn) {
                if let Err(e) = game_at.play(c, m) {
                    out.push(error(
                        id,
                        Some("moves"),
                        format!("illegal move {} at turn {turn}: {e}", move_text(m)),
                    ));
                    break;
                }
            }
        }
        Ok(out)
    }

    #[allow(clippy::too_many_arguments)]
    fn response(
        &self,
        id: &Value,
        turn: usize,
        game: &Game,
        a: &Analysis,
        perspective: Perspective,
        own: bool,
        policy: bool,
        pv_visits: bool,
    ) -> Value {
        let mover = a.color;
        // Win rate and score for the reported side, from the mover's win rate and Black's score.
        let flip = match perspective {
            Perspective::Black => mover == Color::White,
            Perspective::White => mover == Color::Black,
            Perspective::SideToMove => false,
        };
        let side_is_black = match perspective {
            Perspective::Black => true,
            Perspective::White => false,
            Perspective::SideToMove => mover == Color::Black,
        };
        let wr = |w: f64| if flip { 1.0 - w } else { w };
        let sc = |black: f64| if side_is_black { black } else { -black };
        let infos: Vec<Value> = a
            .candidates
            .iter()
            .filter(|c| c.visits > 0)
            .enumerate()
            .map(|(order, c)| {
                let mut m = json!({
                    "move": move_text(c.mv),
                    "visits": c.visits,
                    "edgeVisits": c.visits,
                    "winrate": wr(c.winrate),
                    "scoreLead": sc(c.score_black),
                    "scoreMean": sc(c.score_black),
                    "scoreSelfplay": sc(c.score_black),
                    "scoreStdev": c.score_stdev,
                    "prior": c.prior,
                    "lcb": wr(c.lcb),
                    "utility": 2.0 * wr(c.winrate) - 1.0,
                    "utilityLcb": 2.0 * wr(c.lcb) - 1.0,
                    "order": order,
                    "pv": c.pv.iter().map(|&m| move_text(m)).collect::<Vec<_>>(),
                });
                if pv_visits {
                    m["pvVisits"] = json!(c.pv_visits);
                }
                m
            })
            .collect();
        let mut r = json!({
            "id": id,
            "isDuringSearch": false,
            "turnNumber": turn,
            "moveInfos": infos,
            "rootInfo": {
                "winrate": wr(a.winrate),
                "scoreLead": sc(a.score_black),
                "scoreSelfplay": sc(a.score_black),
                "scoreStdev": a.score_stdev,
                "utility": 2.0 * wr(a.winrate) - 1.0,
                "visits": a.root_visits,
                "currentPlayer": color_letter(mover).to_string(),
            },
        });
        let size = game.size();
        let rows_from_top = || {
            (0..size)
                .rev()
                .flat_map(move |row| (0..size).map(move |col| Point::from_coord(col, row)))
        };
        if own {
            let o: Vec<f64> = rows_from_top()
                .map(|p| f64::from(a.ownership.get(p.index()).copied().unwrap_or(0.0)))
                .map(|b| if side_is_black { b } else { -b })
                .collect();
            r["ownership"] = json!(o);
        }
        if policy {
            if let Some(model) = &self.model {
                if let Ok(mut eval) = Evaluator::new(model) {
                    if let Some(e) =
                        eval.evaluate_until(game, InputRules::from_rules(game.rules()), 0, &|| {
                            false
                        })
                    {
                        let mut p: Vec<f64> = rows_from_top()
                            .map(|pt| e.policy_at(pt).map_or(-1.0, f64::from))
                            .collect();
                        p.push(f64::from(e.pass));
                        r["policy"] = json!(p);
                    }
                }
            }
        }
        r
    }
}
