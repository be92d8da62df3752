//! Running a search: the tree kept between moves (and reused when the game goes on from
//! it), the worker threads, the limits and the stop signal, live reports, and the sums
//! (scores, ownership) the workers hand back.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::*};
use std::time::{Duration, Instant};

use std::sync::Arc;

use crate::board::{Color, Move, NUM_CELLS};
use crate::game::Game;
use crate::nn::features::InputRules;
use crate::nn::Service;

use super::analysis::{analyse, Analysis};
use super::leaf::EvaluatorSource;
use super::puct::{self, NetWorker};
use super::shared::{Live, MovesOwnership, NetRoot, ScoreSums, Shared};
use super::simulator::{Owner, Simulator};
use super::tree::{NodeId, Tree, ROOT};
use super::walk::{add_ownership, allowed, Worker};
use super::{prior, Limits, SearchConfig};

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

/// The share of the memory bound that holds a network's evaluations, one in this many.
const NET_CACHE_SHARE: usize = 8;

/// The bytes of a network service's cache under the memory bound `max_memory_mib` (the
/// search's tree takes the rest): the programs size their service's cache with it.
pub fn cache_bytes(max_memory_mib: usize) -> usize {
    super::tree_bytes(max_memory_mib) / NET_CACHE_SHARE
}

/// The search: keeps its tree between moves.
pub struct Search {
    pub config: SearchConfig,
    tree: Option<(Tree, RootKey)>,
    /// What evaluates leaves (PUCT): a network, or another [`EvaluatorSource`]; none:
    /// playouts (UCT with RAVE).
    net: Option<Arc<dyn EvaluatorSource>>,
}

impl std::fmt::Debug for Search {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Search")
            .field("config", &self.config)
            .field("tree", &self.tree)
            .field("net", &self.net.as_ref().map(|n| n.name()))
            .finish()
    }
}

impl Search {
    pub fn new(config: SearchConfig) -> Search {
        Search {
            config,
            tree: None,
            net: None,
        }
    }

    /// Searches with `net` from now on (PUCT), or with playouts (`None`). The kept tree
    /// goes: its statistics are of the other kind.
    pub fn set_net(&mut self, net: Option<Arc<Service>>) {
        self.set_evaluator(net.map(|s| s as Arc<dyn EvaluatorSource>));
    }

    /// Searches with the leaf evaluator `source` from now on (PUCT, as with a network:
    /// [`Search::set_net`] gives the network's), or with playouts (`None`). The kept
    /// tree goes.
    pub fn set_evaluator(&mut self, source: Option<Arc<dyn EvaluatorSource>>) {
        self.tree = None;
        self.net = source;
    }

    /// Forgets the tree (the network's evaluations stay cached): the next search starts
    /// from nothing, whatever position came before.
    pub fn clear_tree(&mut self) {
        self.tree = None;
    }

    /// Searches on `threads` threads from the next search on (at least one).
    pub fn set_threads(&mut self, threads: usize) {
        self.config.threads = threads.max(1);
    }

    /// What evaluates the leaves, if anything does (else playouts).
    pub fn evaluator(&self) -> Option<&Arc<dyn EvaluatorSource>> {
        self.net.as_ref()
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
        // With a network, a share of the memory bound holds its service's evaluations.
        let mut tree_bytes = super::tree_bytes(self.config.max_memory_mib);
        if self.net.is_some() {
            tree_bytes -= cache_bytes(self.config.max_memory_mib);
        }
        let capacity = Tree::capacity_for_bytes(tree_bytes);
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
        // With a network, the game the network sees, with `color` to move.
        let net_game = self.net.as_ref().map(|_| {
            let mut g = game.clone();
            if g.to_move() != color {
                g.setup_here(&[], &[], Some(color));
            }
            g
        });
        let mut net = match (&self.net, &net_game) {
            (Some(source), Some(g)) => Some(NetRoot {
                source: source.as_ref(),
                game: g,
                rules: InputRules::from_rules(game.rules()),
                centre: tree.node(ROOT).stats().lead(),
            }),
            _ => None,
        };
        if !tree.node(ROOT).is_expanded() && tree.try_claim(ROOT) {
            let kids = match &mut net {
                Some(net) => {
                    let (lead, kids) = puct::evaluate_root(net, &config.puct, &legal);
                    net.centre = lead;
                    kids
                }
                None => prior::children(&root_board, color, &history, &self.config.priors, &legal),
            };
            tree.expand(ROOT, &kids);
        } else if let Some(net) = &net {
            puct::reprior_root(&tree, net, &config.puct);
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
            live: report
                .as_ref()
                .map(|_| Live::new(puct::ownership_unit(net.is_some()))),
            moves_own: report
                .as_ref()
                .filter(|r| r.moves_ownership)
                .map(|_| MovesOwnership::new(&tree, puct::ownership_unit(net.is_some()))),
            net,
        };
        let unit = puct::ownership_unit(shared.net.is_some());
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
        let mut analysis = read_analysis(&shared, color, start);
        let scale = 1.0 / (sims.max(1) as f32 * unit as f32);
        analysis.ownership = own.into_iter().map(|v| v as f32 * scale).collect();
        self.tree = Some((tree, key));
        analysis
    }
}

/// Where live analysis goes: every `interval`, the analysis so far.
pub struct Reporter<'a> {
    pub interval: Duration,
    pub sink: &'a mut dyn FnMut(&Analysis),
    /// Whether each candidate's own ownership is wanted ([`super::Candidate::ownership`]).
    pub moves_ownership: bool,
}

/// The analysis of a search still running.
fn snapshot(shared: &Shared, color: Color, start: Instant) -> Analysis {
    let mut a = read_analysis(shared, color, start);
    if let Some(live) = &shared.live {
        a.ownership = live.ownership();
    }
    a
}

/// The tree read as an analysis: the move to play first (with a network, by the lower
/// confidence bound), the score's spread, and what live analysis keeps; the ownership is
/// the caller's.
fn read_analysis(shared: &Shared, color: Color, start: Instant) -> Analysis {
    let mut a = analyse(
        shared.tree,
        color,
        shared.playouts.load(Relaxed),
        start.elapsed().as_secs_f64(),
        shared.net.is_some(),
    );
    match &shared.net {
        Some(net) => puct::choose_by_lcb(&mut a, &shared.config.puct, net.centre, net.game.size()),
        None => a.score_stdev = shared.scores.stdev(),
    }
    if let Some(live) = &shared.live {
        a.owned = live.owned();
    }
    moves_ownership(shared, &mut a);
    a
}

/// Each candidate's own ownership, when the search keeps it.
fn moves_ownership(shared: &Shared, a: &mut Analysis) {
    let Some(moves) = &shared.moves_own else {
        return;
    };
    for c in a.candidates.iter_mut() {
        if let Some(id) = shared.tree.child_by_move(ROOT, c.mv) {
            c.ownership = moves.of(id);
        }
    }
}

/// Where a simulation through root child `child` adds its ownership, when the search
/// keeps each root move's own.
fn moves_slot<'s>(
    shared: &'s Shared,
    child: Option<NodeId>,
) -> Option<(&'s MovesOwnership, usize)> {
    let moves = shared.moves_own.as_ref()?;
    Some((moves, moves.slot(child?)?))
}

/// Hands `add` each point's owner in `owner`, by point index.
fn each_owner(owner: &Owner, add: &mut dyn FnMut(usize, i32)) {
    match *owner {
        Owner::Board { board, counted } => add_ownership(board, counted, add),
        Owner::Points(points) => {
            for &(i, v) in points {
                add(i, v);
            }
        }
    }
}

/// The simulator of a search: the network's when it has one, else playouts.
fn simulator<'a>(shared: &Shared<'a>, seed: u64) -> Box<dyn Simulator + 'a> {
    match &shared.net {
        Some(net) => Box::new(NetWorker::new(net, seed, shared.config.puct.batch)),
        None => Box::new(Worker::new(shared, seed)),
    }
}

/// Runs simulations until a limit; adds each one's final ownership to `own` and returns
/// how many it ran.
fn worker(shared: &Shared, limits: &Limits, start: Instant, seed: u64, own: &mut [i32]) -> u64 {
    let mut sim = simulator(shared, seed);
    let check_every = sim.check_every();
    let unit = puct::ownership_unit(shared.net.is_some());
    let mut since_check = 0u32;
    let mut sims = 0u64;
    let live = shared.live.is_some();
    let mut pending = Pending::new(live);
    let mut margins = Vec::with_capacity(sim.batch());
    // An evaluation still running at the time limit is dropped, not waited for: on a
    // big board one takes a good share of a short move's time.
    let hard = limits.time.map(|b| limits.max_time.unwrap_or(b).max(b));
    let stop = || (limits.stop)() || hard.is_some_and(|h| start.elapsed() >= h);
    loop {
        if shared.done.load(Relaxed) {
            pending.flush(shared);
            return sims;
        }
        // Claim up to a batch of simulations: exact counts whatever the number of threads.
        let mut k = 0;
        while k < sim.batch() {
            let claimed = shared.playouts.fetch_add(1, Relaxed);
            if limits.playouts.is_some_and(|n| claimed >= n) {
                shared.playouts.fetch_sub(1, Relaxed);
                break;
            }
            k += 1;
        }
        if k == 0 {
            shared.done.store(true, Relaxed);
            pending.flush(shared);
            return sims;
        }
        margins.clear();
        let ran = sim.run(shared, k, &stop, &mut |o| {
            // Into the root move's own ownership too, when the search keeps it.
            let slot = moves_slot(shared, o.root_child);
            each_owner(&o.owner, &mut |i, v| {
                if let Some((moves, s)) = slot {
                    moves.add_point(s, i, v);
                }
                own[i] += v;
                if live {
                    pending.own[i] += v;
                    pending.owned[i] += (v.unsigned_abs() * v.unsigned_abs()) / unit as u32;
                }
            });
            if let Some((moves, s)) = slot {
                moves.count(s);
            }
            margins.push(o.margin);
        });
        if ran.is_none() {
            // Told to stop in the middle of an evaluation: it is dropped, not waited for.
            shared.playouts.fetch_sub(k as u64, Relaxed);
            shared.done.store(true, Relaxed);
            pending.flush(shared);
            return sims;
        }
        for &margin in &margins {
            pending.add_score(margin);
            pending.sims += live as u64;
            sims += 1;
            since_check += 1;
        }
        if since_check >= check_every {
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
