//! The analysis pool: positions searched in parallel, one search a worker thread, taken
//! from one queue by priority (higher first, then in the order they came). What `tengen
//! analysis` and `tengen review` share. A request can be terminated while it waits (it is
//! then never searched) or while it runs (its search stops and reports what it has).
//! Knows searches and games; nothing of JSON or of who asked.

use std::collections::BinaryHeap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::board::{Color, Move};
use crate::game::Game;
use crate::nn::eval::{CacheKeys, Evaluation, Evaluator, Request as EvalRequest};
use crate::nn::features::InputRules;
use crate::nn::Service;
use crate::search::{Analysis, Limits, Reporter, Search, SearchConfig};

/// A game to analyse at some of its turns: the start position and the moves after it.
pub struct Position {
    pub start: Game,
    pub moves: Vec<(Color, Move)>,
    /// Released when the last request holding the position is done (the caller's
    /// account of the memory queued work takes).
    pub on_drop: Option<Box<dyn FnOnce() + Send + Sync>>,
}

impl Position {
    /// The game after the first `turn` moves (played as a record plays them: ko and
    /// superko not enforced, as KataGo's analysis replays a history).
    pub fn game_at(&self, turn: usize) -> Game {
        let mut g = self.start.clone();
        for &(c, m) in &self.moves[..turn.min(self.moves.len())] {
            // A move that does not replay was refused when the position was built.
            let _ = g.play_record(c, m);
        }
        g
    }
}

impl Drop for Position {
    fn drop(&mut self) {
        if let Some(f) = self.on_drop.take() {
            f();
        }
    }
}

/// Where a request is: waiting, searched, terminated, done.
#[derive(Debug, Default)]
pub struct Status(AtomicU8);

const QUEUED: u8 = 0;
const RUNNING: u8 = 1;
const TERMINATED: u8 = 2;
const DONE: u8 = 3;

/// What a request was when it was terminated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Was {
    /// Waiting: it will never be searched; whoever terminated it answers for it.
    Queued,
    /// Searching: its search stops and reports what it found.
    Running,
    /// Already finished or terminated: nothing happens.
    Over,
}

impl Status {
    pub fn terminate(&self) -> Was {
        let mut cur = self.0.load(Acquire);
        loop {
            if cur == TERMINATED || cur == DONE {
                return Was::Over;
            }
            match self.0.compare_exchange(cur, TERMINATED, AcqRel, Acquire) {
                Ok(QUEUED) => return Was::Queued,
                Ok(_) => return Was::Running,
                Err(now) => cur = now,
            }
        }
    }

    pub fn is_open(&self) -> bool {
        matches!(self.0.load(Acquire), QUEUED | RUNNING)
    }

    fn is_terminated(&self) -> bool {
        self.0.load(Acquire) == TERMINATED
    }

    fn start(&self) -> bool {
        self.0
            .compare_exchange(QUEUED, RUNNING, AcqRel, Acquire)
            .is_ok()
    }

    /// Done unless terminated meanwhile (a terminated request stays terminated).
    fn finish(&self) {
        let _ = self.0.compare_exchange(RUNNING, DONE, AcqRel, Acquire);
    }
}

/// Which root moves a player may consider.
#[derive(Clone, Debug, PartialEq)]
pub enum MoveRule {
    Avoid(Vec<Move>),
    Allow(Vec<Move>),
}

/// The root moves allowed, for each player (index 0 Black, 1 White).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MoveFilter(pub [Option<MoveRule>; 2]);

impl MoveFilter {
    pub fn allows(&self, color: Color, mv: Move) -> bool {
        match &self.0[usize::from(color == Color::White)] {
            None => true,
            Some(MoveRule::Avoid(list)) => !list.contains(&mv),
            Some(MoveRule::Allow(list)) => list.contains(&mv),
        }
    }

    fn restricts(&self, color: Color) -> bool {
        self.0[usize::from(color == Color::White)].is_some()
    }
}

/// What a request's search gives its sink.
pub enum Outcome<'a> {
    /// The analysis so far (`report_every`), and the network's evaluation of the
    /// position (for its policy) when asked.
    Partial(&'a Analysis, Option<&'a Evaluation>),
    /// The finished (or terminated) search, and the evaluation as above.
    Final(&'a Analysis, Option<&'a Evaluation>),
    /// Terminated before it found anything (or the search failed).
    Nothing,
}

/// Receives a request's outcomes, on the worker's thread.
pub type Sink = Arc<dyn Fn(Outcome<'_>) + Send + Sync>;

/// One position to search: `position` after `turn` moves.
pub struct Request {
    pub position: Arc<Position>,
    pub turn: usize,
    pub priority: i64,
    pub visits: u64,
    pub time: Option<Duration>,
    /// Partial results this often; `None`: only the final one.
    pub report_every: Option<Duration>,
    /// Each candidate's own ownership ([`crate::search::Candidate::ownership`]).
    pub moves_ownership: bool,
    pub policy: bool,
    pub filter: Arc<MoveFilter>,
    pub status: Arc<Status>,
    pub sink: Sink,
}

struct Entry {
    priority: i64,
    seq: u64,
    request: Request,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        (self.priority, self.seq) == (other.priority, other.seq)
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    /// The greatest is searched first: highest priority, then the earliest.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.priority
            .cmp(&other.priority)
            .then(other.seq.cmp(&self.seq))
    }
}

#[derive(Default)]
struct Queue {
    heap: BinaryHeap<Entry>,
    seq: u64,
    closed: bool,
}

struct Shared {
    queue: Mutex<Queue>,
    ready: Condvar,
    /// Workers searching now.
    busy: AtomicUsize,
    /// Bumped by [`Pool::clear_cache`]: a worker whose search is older starts afresh.
    generation: AtomicU64,
    /// Stop every search now and take nothing more from the queue.
    quit: AtomicBool,
}

/// Workers searching requests from one queue.
pub struct Pool {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    /// The network's evaluation service the workers share, if any.
    service: Option<Arc<Service>>,
}

/// How the pool's threads are shared out.
#[derive(Clone, Copy, Debug)]
pub struct PoolSize {
    /// Positions searched at once.
    pub workers: usize,
    /// Threads each search runs on; `None`: the cores shared among the busy workers
    /// when a search starts (all of them for a lone request).
    pub threads_per_search: Option<usize>,
    /// Cores to share out.
    pub cores: usize,
}

impl Pool {
    /// `config` is each search's (its memory bound is shared among the workers); the
    /// workers evaluate through one `service` (one cache for the pool).
    pub fn new(config: &SearchConfig, service: Option<Arc<Service>>, size: PoolSize) -> Pool {
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue::default()),
            ready: Condvar::new(),
            busy: AtomicUsize::new(0),
            generation: AtomicU64::new(0),
            quit: AtomicBool::new(false),
        });
        let workers = size.workers.max(1);
        let mut config = config.clone();
        config.max_memory_mib = (config.max_memory_mib / workers).max(1);
        let mut handles = Vec::with_capacity(workers);
        for w in 0..workers {
            let (shared, service, mut config) = (shared.clone(), service.clone(), config.clone());
            config.seed = config.seed.wrapping_add(w as u64);
            let spawned = std::thread::Builder::new()
                .name(format!("analysis-{w}"))
                .spawn(move || work(&shared, &config, service, size));
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    crate::log!(
                        1,
                        "analysis: could start only {w} of {workers} workers ({e})"
                    );
                    break;
                }
            }
        }
        if handles.is_empty() {
            // Not even one thread: the requests would wait forever.
            crate::log!(1, "analysis: no worker thread could start");
        }
        Pool {
            shared,
            workers: handles,
            service,
        }
    }

    /// Whether the pool has a worker (else nothing submitted is ever answered).
    pub fn is_running(&self) -> bool {
        !self.workers.is_empty()
    }

    pub fn submit(&self, request: Request) {
        let mut q = lock(&self.shared.queue);
        q.seq += 1;
        let seq = q.seq;
        q.heap.push(Entry {
            priority: request.priority,
            seq,
            request,
        });
        drop(q);
        self.shared.ready.notify_one();
    }

    /// Requests waiting (terminated ones not yet dropped included).
    pub fn waiting(&self) -> usize {
        lock(&self.shared.queue).heap.len()
    }

    /// Every search from now on starts afresh (no tree or evaluations kept).
    pub fn clear_cache(&self) {
        if let Some(s) = &self.service {
            s.clear_cache();
        }
        self.shared.generation.fetch_add(1, Relaxed);
    }

    /// Searches what is queued, then ends.
    pub fn finish(mut self) {
        self.close(false);
    }

    /// Stops every search and drops what is queued.
    pub fn abort(mut self) {
        self.close(true);
    }

    fn close(&mut self, quit: bool) {
        if quit {
            self.shared.quit.store(true, Release);
        }
        lock(&self.shared.queue).closed = true;
        self.shared.ready.notify_all();
        for h in self.workers.drain(..) {
            let _ = h.join();
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.close(true);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A worker: takes requests until the queue is closed and empty.
fn work(shared: &Shared, config: &SearchConfig, service: Option<Arc<Service>>, size: PoolSize) {
    let fresh = || {
        let mut s = Search::new(config.clone());
        s.set_net(service.clone());
        s
    };
    let mut search = fresh();
    let mut generation = shared.generation.load(Relaxed);
    let mut evaluator = service
        .as_deref()
        .map(|s| s.evaluator(CacheKeys::PerSymmetry));
    loop {
        let request = {
            let mut q = lock(&shared.queue);
            loop {
                if shared.quit.load(Acquire) {
                    return;
                }
                if let Some(e) = q.heap.pop() {
                    break e.request;
                }
                if q.closed {
                    return;
                }
                q = shared.ready.wait(q).unwrap_or_else(|e| e.into_inner());
            }
        };
        if !request.status.start() {
            continue;
        }
        let g = shared.generation.load(Relaxed);
        if g != generation {
            generation = g;
            search = fresh();
        }
        let busy = shared.busy.fetch_add(1, AcqRel) + 1;
        let threads = size.threads_per_search.unwrap_or(size.cores / busy).max(1);
        search.set_threads(threads);
        // Each turn from an empty tree, as KataGo's analysis searches: its visits are the
        // ones asked for and its answer does not depend on what was searched before.
        search.clear_tree();
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            run(shared, &mut search, evaluator.as_mut(), &request)
        }));
        shared.busy.fetch_sub(1, AcqRel);
        if outcome.is_err() {
            crate::log!(1, "analysis: a search failed; its request gets no results");
            (request.sink)(Outcome::Nothing);
            search = fresh();
        }
        request.status.finish();
    }
}

fn run(shared: &Shared, search: &mut Search, evaluator: Option<&mut Evaluator>, request: &Request) {
    let game = request.position.game_at(request.turn);
    let color = game.to_move();
    let stop = || request.status.is_terminated() || shared.quit.load(Relaxed);
    let filter = |mv: Move| request.filter.allows(color, mv);
    let limits = Limits {
        root_filter: if request.filter.restricts(color) {
            Some(&filter)
        } else {
            None
        },
        time: request.time,
        stop: &stop,
        ..Limits::playouts(request.visits.max(1))
    };
    let sink = &request.sink;
    let policy = match evaluator {
        Some(e) if request.policy => Some(e.evaluate_one(EvalRequest::new(
            &game,
            InputRules::from_rules(game.rules()),
            0,
        ))),
        _ => None,
    };
    let a = if request.report_every.is_some() || request.moves_ownership {
        let mut partial = |a: &Analysis| {
            if !stop() {
                sink(Outcome::Partial(a, policy.as_ref()));
            }
        };
        let reporter = Reporter {
            interval: request.report_every.unwrap_or(Duration::ZERO),
            sink: &mut partial,
            moves_ownership: request.moves_ownership,
        };
        search.run_reporting(&game, color, &limits, Some(reporter))
    } else {
        search.run(&game, color, &limits)
    };
    if a.root_visits == 0 && request.status.is_terminated() {
        sink(Outcome::Nothing);
        return;
    }
    sink(Outcome::Final(&a, policy.as_ref()));
}
