//! Monte-Carlo tree search: UCT with RAVE (AMAF) and priors, on a tree shared by worker
//! threads without a lock, with knowledge playouts at the leaves. One search gives one
//! [`Analysis`] value (candidates with visits, win rates, scores, principal variations),
//! which every front end formats. Knows the game and the board, nothing of GTP or text.
//!
//! - Selection ([`select::urgency`]): Gelly & Silver's minimum-MSE blend of the move's
//!   own win rate and its AMAF win rate, priors added to the move's own statistics as
//!   equivalent experience (see [`prior`]).
//! - Expansion: a leaf gets its children (every legal non-eye point and the pass) once it
//!   has been visited `expand_visits` times, the root at once.
//! - Two passes in a row in the tree end the game there. Under rules that count every
//!   stone alive (Tromp-Taylor) the leaf is counted exactly; under rules that remove dead
//!   stones first (Chinese) it is played out, so that the playout judges (captures) the
//!   dead stones the count would remove.
//! - Superko is checked at the root only (a root child that would repeat a position is
//!   pruned); inside the tree and the playouts the board's simple ko rule applies.
//! - Tree reuse: a search from a position that follows the last one by the moves played
//!   since keeps that subtree.
//! - Ownership: every simulation's final owner of each point is summed in per-worker
//!   arrays, merged when the workers are done ([`Analysis::ownership`]); the engine judges
//!   dead stones from it.

pub mod prior;
pub mod select;
pub mod tree;

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicI64, AtomicU32, AtomicU64, Ordering::*};
use std::time::{Duration, Instant};

use crate::board::{Board, Color, Move, Point, NUM_CELLS};
use crate::game::Game;
use crate::playout::{self, Light, Moggy, MoggyConfig, PlayoutRng};
use prior::PriorConfig;
use tree::{NodeId, Tree, ROOT};

/// Which playout policy the search uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PolicyKind {
    Light,
    #[default]
    Moggy,
}

/// The expansion threshold the hand-written priors were tuned with (the dead-stone
/// search keeps it). With the learned priors the default is 12: expansions cost more
/// (every candidate's features) and the priors are sharper. At equal time 16 was level
/// with 8 on 19x19 and ahead on 9x9 (`STRENGTH.md`), but at fixed playouts it misread
/// the semeai of `tests/search.rs`, which 8 and 12 read.
pub const HAND_PRIOR_EXPAND_VISITS: u32 = 4;

/// The search's constants.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchConfig {
    pub threads: usize,
    /// Bound on the tree's memory, in bytes.
    pub max_memory: usize,
    /// Visits a leaf needs before it is expanded.
    pub expand_visits: u32,
    /// RAVE equivalence: the number of visits at which a move's own statistics and its
    /// AMAF statistics weigh the same (Gelly & Silver's b² is 1 / (4 K)).
    pub rave_equiv: f64,
    /// UCB exploration constant (0: the priors and RAVE explore).
    pub explore: f64,
    pub priors: PriorConfig,
    pub policy: PolicyKind,
    pub moggy: MoggyConfig,
    /// Whether the tree may fill a seki's shared liberty ([`Board::breaks_seki`]). The
    /// dead-stone search forbids it: there a lost side would throw its seki away in the
    /// tree as readily as anything else, and the ownership would show the seki gone.
    pub seki_moves: bool,
    /// Share of a simulation's value that follows its final margin rather than only
    /// who won (0: win or loss alone), see [`score_value`].
    pub score_bonus: f64,
    pub seed: u64,
}

impl Default for SearchConfig {
    fn default() -> SearchConfig {
        SearchConfig {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            max_memory: 512 << 20,
            expand_visits: 12,
            rave_equiv: 3000.0,
            explore: 0.0,
            priors: PriorConfig::default(),
            policy: PolicyKind::Moggy,
            moggy: MoggyConfig::default(),
            seki_moves: true,
            score_bonus: 0.0,
            seed: 0x7465_6e67_656e,
        }
    }
}

/// How long one search may run. It stops at the first limit reached, or when `stop`
/// answers true (checked every few playouts).
pub struct Limits<'a> {
    pub playouts: Option<u64>,
    /// The time the search means to take.
    pub time: Option<Duration>,
    /// The time it may take when the choice is still open at `time`: the best two moves
    /// close in visits, or the best move changed late. At most this long in any case
    /// (`None`: `time` is a hard limit).
    pub max_time: Option<Duration>,
    /// Stop early when the most visited move can no longer be overtaken in the time left.
    pub early_stop: bool,
    pub stop: &'a (dyn Fn() -> bool + Sync),
    /// Root moves the search may consider (analysis `avoid` / `allow`); `None`: all.
    pub root_filter: Option<&'a (dyn Fn(Move) -> bool + Sync)>,
}

impl Limits<'_> {
    pub fn playouts(n: u64) -> Limits<'static> {
        Limits {
            playouts: Some(n),
            time: None,
            max_time: None,
            early_stop: false,
            stop: &|| false,
            root_filter: None,
        }
    }
}

/// One candidate move of the root.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub mv: Move,
    pub visits: u32,
    /// Win rate for the player to move at the root, in [0, 1].
    pub winrate: f64,
    /// The prior's win rate, and its weight (equivalent visits) and virtual wins (half
    /// points).
    pub prior: f64,
    pub prior_visits: u32,
    pub prior_wins: u32,
    pub amaf_visits: u32,
    pub amaf_winrate: f64,
    /// Mean final score, Black minus White with komi, from the playouts through it.
    pub score_black: f64,
    /// Principal variation, this move first, and the visits of each of its nodes.
    pub pv: Vec<Move>,
    pub pv_visits: Vec<u32>,
}

/// What a search found.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    pub color: Color,
    /// Root children, most visited first.
    pub candidates: Vec<Candidate>,
    /// Visits of the root (all playouts in the tree, reused ones included).
    pub root_visits: u32,
    /// Win rate of the player to move at the root.
    pub winrate: f64,
    /// Mean final score, Black minus White with komi, and its standard deviation over
    /// this search's own simulations (0 without any).
    pub score_black: f64,
    pub score_stdev: f64,
    /// Playouts run by this search, and the time taken.
    pub playouts: u64,
    pub seconds: f64,
    pub tree_nodes: usize,
    /// Final ownership of every point over this search's own simulations, indexed by
    /// point index: +1 always Black's area, -1 always White's, 0 neither or evenly split.
    /// A simulation that ends by two passes in the tree counts the board as it stands
    /// (area, every stone alive). All zeros when the search ran no simulation.
    pub ownership: Vec<f32>,
    /// How often each point ended up anybody's area (the mean of the ownership's
    /// square), for its standard deviation; filled by live analysis only (else empty).
    pub owned: Vec<f32>,
}

impl Analysis {
    /// The move to play: the most visited candidate (pass if there is none).
    pub fn best(&self) -> Move {
        self.candidates.first().map_or(Move::Pass, |c| c.mv)
    }
}

/// The position the tree's root stands for: the game's start, the moves since, the side
/// to move.
#[derive(Clone, Debug, PartialEq)]
struct RootKey {
    start: u64,
    size: usize,
    komi_bits: u64,
    moves: Vec<(Color, Move)>,
    color: Color,
}

fn root_key(game: &Game, color: Color) -> RootKey {
    RootKey {
        start: game.position_hashes().next().unwrap_or(0),
        size: game.size(),
        komi_bits: game.komi().to_bits(),
        moves: game.moves().to_vec(),
        color,
    }
}

/// The search: keeps its tree between moves.
#[derive(Debug)]
pub struct Search {
    pub config: SearchConfig,
    tree: Option<(Tree, RootKey)>,
}

impl Search {
    pub fn new(config: SearchConfig) -> Search {
        Search { config, tree: None }
    }

    /// Visits kept for the root of a search of `game` with `color` to move (0 if the
    /// tree cannot be reused there).
    pub fn reusable_visits(&mut self, game: &Game, color: Color) -> u32 {
        self.take_tree(game, color);
        self.tree
            .as_ref()
            .map_or(0, |(t, _)| t.node(ROOT).stats().visits)
    }

    /// Moves the kept tree to the root for (`game`, `color`), or drops it.
    fn take_tree(&mut self, game: &Game, color: Color) {
        let key = root_key(game, color);
        let Some((tree, old)) = self.tree.take() else {
            return;
        };
        if old.start != key.start
            || old.size != key.size
            || old.komi_bits != key.komi_bits
            || key.moves.len() < old.moves.len()
            || key.moves[..old.moves.len()] != old.moves[..]
        {
            return;
        }
        let mut node = ROOT;
        let mut expect = old.color;
        for &(c, mv) in &key.moves[old.moves.len()..] {
            if c != expect {
                return;
            }
            match tree.child_by_move(node, mv) {
                Some(child) => node = child,
                None => return,
            }
            expect = expect.opponent();
        }
        if expect != color {
            return;
        }
        let tree = if node == ROOT {
            tree
        } else {
            // Copy no more than the old tree leaves free: old and new together stay
            // within one arena, so the memory bound holds while both exist.
            let room = tree.capacity().saturating_sub(tree.len());
            tree.extract(node, room)
        };
        self.tree = Some((tree, key));
    }

    /// Searches the position of `game` for `color` within `limits`.
    ///
    /// After two passes (a finished game that play resumes) a pass ends the game
    /// again, as after one: the tree then still has moves to weigh.
    pub fn run(&mut self, game: &Game, color: Color, limits: &Limits) -> Analysis {
        self.run_reporting(game, color, limits, None)
    }

    /// [`Search::run`], handing `report` the analysis so far every `interval` (live
    /// analysis). The reports come on the calling thread while worker threads search
    /// (one at least, whatever the configured count), so `report` may write to a stream
    /// the caller owns. An interval of zero reports nothing.
    pub fn run_reporting(
        &mut self,
        game: &Game,
        color: Color,
        limits: &Limits,
        report: Option<Reporter<'_>>,
    ) -> Analysis {
        let passes = game.consecutive_passes().min(1) as u8;
        self.run_with_passes(
            game,
            color,
            limits,
            passes,
            !game.rules().remove_dead,
            report,
        )
    }

    /// [`Search::run`] as if play resumed: the passes that end the game so far do not
    /// count towards ending it in the tree, so a finished position is played on (dead
    /// stones get captured) instead of counted as it stands; a two-pass end in the tree
    /// is counted exactly whatever the rules (both sides saw nothing left to capture).
    /// For judging dead stones.
    pub fn run_resumed(&mut self, game: &Game, color: Color, limits: &Limits) -> Analysis {
        self.run_with_passes(game, color, limits, 0, true, None)
    }

    fn run_with_passes(
        &mut self,
        game: &Game,
        color: Color,
        limits: &Limits,
        root_passes: u8,
        exact_end: bool,
        report: Option<Reporter<'_>>,
    ) -> Analysis {
        let start = Instant::now();
        self.take_tree(game, color);
        let capacity = Tree::capacity_for_bytes(self.config.max_memory);
        let (tree, key) = match self.tree.take() {
            Some(t) if t.0.capacity() == capacity => t,
            _ => (Tree::new(capacity), root_key(game, color)),
        };
        let komi = game.total_komi();
        let root_board = game.board().clone();
        let last = match game.moves().last() {
            Some(&(_, Move::Place(p))) => Some(p),
            _ => None,
        };
        let recent = |k: usize| {
            let m = game.moves();
            m.len().checked_sub(k).map(|i| m[i].1)
        };
        let history = [recent(1), recent(2), recent(3)];
        // Superko at the root: children that would repeat a position are pruned.
        let config = &self.config;
        let legal = |mv: Move| {
            game.check(color, mv).is_ok()
                && allowed(config, &root_board, color, mv)
                && limits.root_filter.is_none_or(|f| f(mv))
        };
        if !tree.node(ROOT).is_expanded() && tree.try_claim(ROOT) {
            let kids = prior::children(&root_board, color, &history, &self.config.priors, &legal);
            tree.expand(ROOT, &kids);
        }
        for c in tree.node(ROOT).children() {
            if legal(tree.node(c).mv()) {
                tree.node(c).unprune();
            } else {
                tree.node(c).prune();
            }
        }
        let choices = tree
            .node(ROOT)
            .children()
            .filter(|&c| !tree.node(c).is_pruned())
            .count();
        let shared = Shared {
            tree: &tree,
            config: &self.config,
            root_board: &root_board,
            root_color: color,
            root_passes,
            root_last: last,
            root_history: history,
            komi,
            exact_end,
            playouts: AtomicU64::new(0),
            done: AtomicBool::new(false),
            best: AtomicU64::new(0),
            best_changed_us: AtomicU64::new(0),
            scores: ScoreSums::default(),
            live: report.as_ref().map(|_| Live::new()),
        };
        let threads = self.config.threads.max(1);
        let seed = self.config.seed ^ root_board.hash().rotate_left(17) ^ game.moves().len() as u64;
        // Ownership sums (+1 Black, -1 White per simulation) and simulations counted.
        let mut own = vec![0i32; NUM_CELLS];
        let mut sims = 0u64;
        if choices <= 1 && report.is_none() {
            // Nothing to choose between (only a pass, say): no need to think.
        } else if threads == 1 && report.is_none() {
            // On the calling thread: the same moves every run for a fixed seed.
            sims = worker(&shared, limits, start, seed, &mut own);
        } else {
            // The reporting loop below naps between reports; a finishing worker wakes it,
            // so a short search does not wait out a nap.
            let caller = std::thread::current();
            let results: Vec<(u64, Vec<i32>)> = std::thread::scope(|s| {
                // A thread the system refuses (a thread limit, no memory for its stack) is
                // not an abort: the search runs on the threads it got, or on this one.
                let mut handles = Vec::with_capacity(threads);
                for t in 0..threads {
                    let shared = &shared;
                    let caller = caller.clone();
                    let seed = seed.wrapping_add((t as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
                    let spawned = std::thread::Builder::new()
                        .name(format!("search-{t}"))
                        .spawn_scoped(s, move || {
                            let mut own = vec![0i32; NUM_CELLS];
                            let n = worker(shared, limits, start, seed, &mut own);
                            caller.unpark();
                            (n, own)
                        });
                    match spawned {
                        Ok(h) => handles.push(h),
                        Err(e) => {
                            crate::log!(
                                1,
                                "search: could start only {t} of {threads} threads ({e}); searching on {}",
                                if t == 0 { "the calling thread".to_string() } else { format!("{t}") }
                            );
                            break;
                        }
                    }
                }
                if handles.is_empty() {
                    let mut own = vec![0i32; NUM_CELLS];
                    let n = worker(&shared, limits, start, seed, &mut own);
                    return vec![(n, own)];
                }
                if let Some(report) = report {
                    // Live analysis: the workers search, this thread reports.
                    let mut next = start + report.interval;
                    while !shared.done.load(Relaxed) && !handles.iter().all(|h| h.is_finished()) {
                        std::thread::park_timeout(Duration::from_millis(2));
                        let now = Instant::now();
                        if !report.interval.is_zero() && now >= next {
                            (report.sink)(&snapshot(&shared, color, start));
                            next = (next + report.interval).max(now);
                        }
                    }
                }
                handles
                    .into_iter()
                    .filter_map(|h| {
                        let r = h.join();
                        if r.is_err() {
                            crate::log!(
                                1,
                                "search: a worker thread panicked; its playouts are lost"
                            );
                        }
                        r.ok()
                    })
                    .collect()
            });
            for (n, o) in results {
                sims += n;
                for (a, b) in own.iter_mut().zip(o) {
                    *a += b;
                }
            }
        }
        let playouts = shared.playouts.load(Relaxed);
        let mut analysis = analyse(&tree, color, playouts, start.elapsed().as_secs_f64());
        let scale = 1.0 / sims.max(1) as f32;
        analysis.ownership = own.into_iter().map(|v| v as f32 * scale).collect();
        analysis.score_stdev = shared.scores.stdev();
        if let Some(live) = &shared.live {
            analysis.owned = live.owned();
        }
        self.tree = Some((tree, key));
        analysis
    }
}

/// Whether the tree may hold `mv` as a child: anything, unless the configuration forbids
/// filling a seki's shared liberty ([`SearchConfig::seki_moves`]).
fn allowed(config: &SearchConfig, board: &Board, color: Color, mv: Move) -> bool {
    config.seki_moves || !matches!(mv, Move::Place(p) if board.breaks_seki(color, p))
}

struct Shared<'a> {
    tree: &'a Tree,
    config: &'a SearchConfig,
    root_board: &'a Board,
    root_color: Color,
    root_passes: u8,
    root_last: Option<Point>,
    /// The last three moves before the root, latest first.
    root_history: [Option<Move>; 3],
    komi: f64,
    /// Whether a two-pass end is counted with every stone alive (else played out).
    exact_end: bool,
    playouts: AtomicU64,
    done: AtomicBool,
    /// The most visited root child (its node id + 1; 0: none yet) as last seen by
    /// [`should_stop`], and when it last changed (microseconds into the search).
    best: AtomicU64,
    best_changed_us: AtomicU64,
    /// Final scores of this search's simulations.
    scores: ScoreSums,
    /// Ownership summed as the search goes, for live reports (only when reporting).
    live: Option<Live>,
}

/// Where live analysis goes: every `interval`, the analysis so far.
pub struct Reporter<'a> {
    pub interval: Duration,
    pub sink: &'a mut dyn FnMut(&Analysis),
}

/// Count, sum and sum of squares of final scores (Black's margin in half points).
#[derive(Default)]
struct ScoreSums {
    n: AtomicU64,
    sum: AtomicI64,
    sum_sq: AtomicU64,
}

impl ScoreSums {
    /// Adds `n` scores with this sum and sum of squares.
    fn add(&self, n: u64, sum: i64, sum_sq: u64) {
        self.n.fetch_add(n, Relaxed);
        self.sum.fetch_add(sum, Relaxed);
        self.sum_sq.fetch_add(sum_sq, Relaxed);
    }

    /// The standard deviation in points.
    fn stdev(&self) -> f64 {
        let n = self.n.load(Relaxed);
        if n < 2 {
            return 0.0;
        }
        let mean = self.sum.load(Relaxed) as f64 / n as f64;
        let var = self.sum_sq.load(Relaxed) as f64 / n as f64 - mean * mean;
        var.max(0.0).sqrt() / 2.0
    }
}

/// Ownership summed across workers while the search runs: per point the sum of owners
/// (+1 Black, -1 White) and how often anybody owned it, over `sims` simulations.
struct Live {
    own: Vec<AtomicI32>,
    owned: Vec<AtomicU32>,
    sims: AtomicU64,
}

impl Live {
    fn new() -> Live {
        Live {
            own: (0..NUM_CELLS).map(|_| AtomicI32::new(0)).collect(),
            owned: (0..NUM_CELLS).map(|_| AtomicU32::new(0)).collect(),
            sims: AtomicU64::new(0),
        }
    }

    /// Adds a worker's pending sums and clears them.
    fn flush(&self, own: &mut [i32], owned: &mut [u32], sims: &mut u64) {
        for (i, v) in own.iter_mut().enumerate() {
            if *v != 0 {
                self.own[i].fetch_add(*v, Relaxed);
                *v = 0;
            }
        }
        for (i, v) in owned.iter_mut().enumerate() {
            if *v != 0 {
                self.owned[i].fetch_add(*v, Relaxed);
                *v = 0;
            }
        }
        self.sims.fetch_add(std::mem::take(sims), Relaxed);
    }

    fn scale(&self) -> f32 {
        1.0 / self.sims.load(Relaxed).max(1) as f32
    }

    fn ownership(&self) -> Vec<f32> {
        let k = self.scale();
        self.own
            .iter()
            .map(|v| v.load(Relaxed) as f32 * k)
            .collect()
    }

    fn owned(&self) -> Vec<f32> {
        let k = self.scale();
        self.owned
            .iter()
            .map(|v| v.load(Relaxed) as f32 * k)
            .collect()
    }
}

/// The analysis of a search still running.
fn snapshot(shared: &Shared, color: Color, start: Instant) -> Analysis {
    let mut a = analyse(
        shared.tree,
        color,
        shared.playouts.load(Relaxed),
        start.elapsed().as_secs_f64(),
    );
    a.score_stdev = shared.scores.stdev();
    if let Some(live) = &shared.live {
        a.ownership = live.ownership();
        a.owned = live.owned();
    }
    a
}

/// One worker's scratch state.
struct Worker {
    board: Board,
    rng: PlayoutRng,
    path: Vec<(NodeId, Color)>,
    amaf: Vec<u8>,
    light: Light,
    moggy: Moggy,
}

/// Runs simulations until a limit; adds each one's final ownership to `own` and returns
/// how many it ran.
fn worker(shared: &Shared, limits: &Limits, start: Instant, seed: u64, own: &mut [i32]) -> u64 {
    let mut w = Worker {
        board: shared.root_board.clone(),
        rng: PlayoutRng::seed_from_u64(seed),
        path: Vec::with_capacity(64),
        amaf: vec![0; NUM_CELLS],
        light: Light,
        moggy: Moggy::new(shared.config.moggy),
    };
    let mut since_check = 0u32;
    let mut sims = 0u64;
    let live = shared.live.is_some();
    let mut pending = Pending::new(live);
    loop {
        if shared.done.load(Relaxed) {
            pending.flush(shared);
            return sims;
        }
        if let Some(n) = limits.playouts {
            // Claim a playout: exact counts whatever the number of threads.
            if shared.playouts.fetch_add(1, Relaxed) >= n {
                shared.playouts.fetch_sub(1, Relaxed);
                shared.done.store(true, Relaxed);
                pending.flush(shared);
                return sims;
            }
        } else {
            shared.playouts.fetch_add(1, Relaxed);
        }
        let (counted, margin) = simulate(shared, &mut w);
        pending.add_score(margin);
        add_ownership(&w.board, counted, |i, v| {
            own[i] += v;
            if live {
                pending.own[i] += v;
                pending.owned[i] += v.unsigned_abs();
            }
        });
        pending.sims += live as u64;
        sims += 1;
        since_check += 1;
        if since_check >= 16 {
            since_check = 0;
            pending.flush(shared);
            if should_stop(shared, limits, start) {
                shared.done.store(true, Relaxed);
                return sims;
            }
        }
    }
}

/// A worker's sums not yet added to the shared ones: final scores always, ownership only
/// for live reports. Flushed every 16 simulations and when the worker stops, so the hot
/// loop touches no shared counter for them.
struct Pending {
    score_n: u64,
    score_sum: i64,
    score_sq: u64,
    own: Vec<i32>,
    owned: Vec<u32>,
    sims: u64,
}

impl Pending {
    fn new(live: bool) -> Pending {
        let len = if live { NUM_CELLS } else { 0 };
        Pending {
            score_n: 0,
            score_sum: 0,
            score_sq: 0,
            own: vec![0; len],
            owned: vec![0; len],
            sims: 0,
        }
    }

    fn add_score(&mut self, margin: i32) {
        self.score_n += 1;
        self.score_sum += margin as i64;
        self.score_sq += (margin as i64 * margin as i64) as u64;
    }

    fn flush(&mut self, shared: &Shared) {
        shared.scores.add(
            std::mem::take(&mut self.score_n),
            std::mem::take(&mut self.score_sum),
            std::mem::take(&mut self.score_sq),
        );
        if let Some(live) = &shared.live {
            live.flush(&mut self.own, &mut self.owned, &mut self.sims);
        }
    }
}

fn should_stop(shared: &Shared, limits: &Limits, start: Instant) -> bool {
    if (limits.stop)() {
        return true;
    }
    let Some(budget) = limits.time else {
        return false;
    };
    let elapsed = start.elapsed();
    let hard = limits.max_time.unwrap_or(budget).max(budget);
    if elapsed >= hard {
        return true;
    }
    let tree = shared.tree;
    let (mut best, mut second, mut best_id) = (0u32, 0u32, 0u64);
    for c in tree.node(ROOT).children() {
        let v = tree.node(c).visits.load(Relaxed);
        if v > best {
            second = best;
            best = v;
            best_id = c as u64 + 1;
        } else if v > second {
            second = v;
        }
    }
    if shared.best.swap(best_id, Relaxed) != best_id {
        shared
            .best_changed_us
            .store(elapsed.as_micros() as u64, Relaxed);
    }
    if elapsed >= budget {
        // Think on while the choice is open: the runner-up close behind, or the best
        // move new in the last quarter of the planned time.
        let close = second as f64 >= 0.8 * best as f64;
        let changed_late =
            shared.best_changed_us.load(Relaxed) as f64 >= 0.75 * budget.as_micros() as f64;
        return !(close || changed_late);
    }
    if limits.early_stop && elapsed > budget / 4 {
        // The most visited move cannot be overtaken at the current rate.
        let done = shared.playouts.load(Relaxed) as f64;
        let rate = done / elapsed.as_secs_f64().max(1e-3);
        let left = rate * (budget - elapsed).as_secs_f64();
        if (best - second) as f64 > left * 1.2 && done > 200.0 {
            return true;
        }
    }
    false
}

/// Hands `add` the final owner of every point of `board` (+1 Black, -1 White, 0
/// nobody, by point index): after a playout the cheap count of [`playout::end_owner`]
/// (nearly every empty point is an eye then); when the simulation ended in the tree
/// (`counted`), the exact area count with every stone alive.
fn add_ownership(board: &Board, counted: bool, mut add: impl FnMut(usize, i32)) {
    if counted {
        let (reach, size) = crate::score::regions(board, &[]);
        for p in board.points() {
            let i = p.index();
            add(
                i,
                if size[i] == 0 {
                    match board.get(p) {
                        Some(Color::Black) => 1,
                        Some(Color::White) => -1,
                        None => 0,
                    }
                } else {
                    match reach[i] {
                        1 => 1,
                        2 => -1,
                        _ => 0,
                    }
                },
            );
        }
    } else {
        for p in board.points() {
            add(p.index(), playout::end_owner(board, p));
        }
    }
}

/// One descent, playout and backup. True when the simulation ended in the tree and the
/// board was counted as it stands (two passes), false when it was played out; and the
/// final score, Black's margin with komi in half points.
fn simulate(shared: &Shared, w: &mut Worker) -> (bool, i32) {
    let tree = shared.tree;
    let cfg = shared.config;
    w.board.copy_from(shared.root_board);
    w.path.clear();
    let used = NUM_CELLS.min((shared.root_board.size() + 2) * crate::board::STRIDE);
    w.amaf[..used].fill(0);
    let mut node = ROOT;
    let mut color = shared.root_color;
    let mut passes = shared.root_passes;
    let mut last = shared.root_last;
    let mut history = shared.root_history;
    // The root's "move" was made by the opponent of the player to move there.
    let mut mover = color.opponent();
    let score: i32;
    let mut counted = true;
    loop {
        let n = tree.node(node);
        let visits = n.visits.fetch_add(1, Relaxed) + 1;
        w.path.push((node, mover));
        if passes >= 2 {
            score = if shared.exact_end {
                crate::score::area_difference(&w.board) * 2
            } else {
                counted = false;
                run_playout(w, cfg.policy, color, None) * 2
            };
            break;
        }
        if !n.is_expanded() {
            let want = node == ROOT || visits >= cfg.expand_visits;
            if want && !tree.is_full() && tree.try_claim(node) {
                let board = &w.board;
                let keep = |mv: Move| allowed(cfg, board, color, mv);
                let kids = prior::children(board, color, &history, &cfg.priors, &keep);
                tree.expand(node, &kids);
            }
            if !n.is_expanded() {
                score = run_playout(w, cfg.policy, color, last) * 2;
                counted = false;
                break;
            }
        }
        let Some(child) = select::best_child(tree, node, cfg) else {
            // Every child pruned (cannot happen below the root): count as it stands.
            score = crate::score::area_difference(&w.board) * 2;
            break;
        };
        let mv = tree.node(child).mv();
        match mv {
            Move::Place(p) => {
                w.board.place(color, p);
                playout::mark_first(&mut w.amaf, p, color);
                passes = 0;
                last = Some(p);
            }
            Move::Pass => {
                w.board.pass();
                passes += 1;
                last = None;
            }
        }
        history = [Some(mv), history[0], history[1]];
        mover = color;
        color = color.opponent();
        node = child;
    }
    // Result: Black's margin in half points, komi included.
    let margin = score - (shared.komi * 2.0).round() as i32;
    let black_value: u32 = if cfg.score_bonus > 0.0 && margin != 0 {
        score_value(
            margin,
            cfg.score_bonus,
            shared.root_board.size(),
            &mut w.rng,
        )
    } else {
        match margin.signum() {
            1 => 2,
            0 => 1,
            _ => 0,
        }
    };
    for &(id, mover) in &w.path {
        let n = tree.node(id);
        let value = if mover == Color::Black {
            black_value
        } else {
            2 - black_value
        };
        n.wins.fetch_add(value, Relaxed);
        n.score_sum.fetch_add(margin as i64, Relaxed);
        // AMAF: children of this node whose move the player to move here played first
        // later in the simulation.
        let to_move = mover.opponent();
        let tag = 1 + to_move.index() as u8;
        let child_value = if to_move == Color::Black {
            black_value
        } else {
            2 - black_value
        };
        for c in n.children() {
            let cn = tree.node(c);
            if let Move::Place(p) = cn.mv() {
                if w.amaf[p.index()] == tag {
                    cn.amaf_visits.fetch_add(1, Relaxed);
                    cn.amaf_wins.fetch_add(child_value, Relaxed);
                }
            }
        }
    }
    (counted, margin)
}

/// Black's value of a simulation with a score bonus: a win is worth `1 - bonus` plus
/// `bonus` times the margin's place on a linear scale from losing by the whole board
/// (0) to winning by it (1), a loss that share alone; so every win is worth more than
/// every loss, and among wins (and losses) a bigger margin is worth more. The value is
/// rounded at random to the tree's half points (0, 1 or 2), unbiased.
fn score_value(margin: i32, bonus: f64, size: usize, rng: &mut PlayoutRng) -> u32 {
    let area = (size * size) as f64;
    let scaled = (0.5 + margin as f64 / 2.0 / (2.0 * area)).clamp(0.0, 1.0);
    let win = if margin > 0 { 1.0 - bonus } else { 0.0 };
    let half_points = 2.0 * (win + bonus * scaled);
    let floor = half_points.floor();
    let up = (rng.unit() as f64) < half_points - floor;
    (floor as u32 + up as u32).min(2)
}

/// Plays the simulation out from the worker's board with the chosen policy; Black's area
/// margin (no komi).
fn run_playout(w: &mut Worker, kind: PolicyKind, color: Color, last: Option<Point>) -> i32 {
    let amaf = Some(&mut w.amaf[..]);
    match kind {
        PolicyKind::Light => {
            playout::playout_from(&mut w.board, color, last, &mut w.light, &mut w.rng, amaf)
        }
        PolicyKind::Moggy => {
            playout::playout_from(&mut w.board, color, last, &mut w.moggy, &mut w.rng, amaf)
        }
    }
    .score
}

fn analyse(tree: &Tree, color: Color, playouts: u64, seconds: f64) -> Analysis {
    let root = tree.node(ROOT).stats();
    let mut candidates: Vec<Candidate> = tree
        .node(ROOT)
        .children()
        .filter(|&c| !tree.node(c).is_pruned())
        .map(|c| {
            let n = tree.node(c);
            let s = n.stats();
            let mut pv = vec![n.mv()];
            let mut pv_visits = vec![s.visits];
            let mut at = c;
            while let Some(next) = most_visited(tree, at) {
                pv.push(tree.node(next).mv());
                pv_visits.push(tree.node(next).visits.load(Relaxed));
                at = next;
                if pv.len() >= 40 {
                    break;
                }
            }
            Candidate {
                mv: n.mv(),
                visits: s.visits,
                winrate: ratio(s.wins, s.visits),
                prior: ratio(s.prior_wins, s.prior_visits),
                prior_visits: s.prior_visits,
                prior_wins: s.prior_wins,
                amaf_visits: s.amaf_visits,
                amaf_winrate: ratio(s.amaf_wins, s.amaf_visits),
                score_black: s.score_sum as f64 / 2.0 / s.visits.max(1) as f64,
                pv,
                pv_visits,
            }
        })
        .collect();
    candidates.sort_by(|a, b| {
        b.visits.cmp(&a.visits).then(
            b.winrate
                .partial_cmp(&a.winrate)
                .unwrap_or(std::cmp::Ordering::Equal),
        )
    });
    let winrate = match candidates.first() {
        Some(c) if c.visits > 0 => c.winrate,
        _ => 1.0 - ratio(root.wins, root.visits),
    };
    Analysis {
        color,
        candidates,
        root_visits: root.visits,
        winrate,
        score_black: root.score_sum as f64 / 2.0 / root.visits.max(1) as f64,
        playouts,
        seconds,
        tree_nodes: tree.len(),
        ownership: Vec::new(),
        owned: Vec::new(),
        score_stdev: 0.0,
    }
}

fn most_visited(tree: &Tree, id: NodeId) -> Option<NodeId> {
    tree.node(id)
        .children()
        .filter(|&c| tree.node(c).visits.load(Relaxed) > 0)
        .max_by_key(|&c| tree.node(c).visits.load(Relaxed))
}

/// Half-point wins over visits, 0.5 for no visits.
fn ratio(wins: u32, visits: u32) -> f64 {
    if visits == 0 {
        0.5
    } else {
        wins as f64 / (2.0 * visits as f64)
    }
}
