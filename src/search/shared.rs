//! What the worker threads of one search share: the tree, the root position, the
//! counters and stop flag, and the sums (final scores, ownership for live reports) they
//! add to as they go. Used by the run (which builds it) and the walk (which reads it).

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicI64, AtomicU32, AtomicU64, Ordering::*};

use crate::board::{Board, Color, Move, Point, NUM_CELLS};
use crate::game::Game;
use crate::nn::features::InputRules;

use super::leaf::EvaluatorSource;
use super::tree::{NodeId, Tree, ROOT};
use super::SearchConfig;

pub(super) struct Shared<'a> {
    pub(super) tree: &'a Tree,
    pub(super) config: &'a SearchConfig,
    pub(super) root_board: &'a Board,
    pub(super) root_color: Color,
    pub(super) root_passes: u8,
    pub(super) root_last: Option<Point>,
    /// The last three moves before the root, latest first.
    pub(super) root_history: [Option<Move>; 3],
    pub(super) komi: f64,
    /// Whether a two-pass end is counted with every stone alive (else played out).
    pub(super) exact_end: bool,
    pub(super) playouts: AtomicU64,
    pub(super) done: AtomicBool,
    /// The most visited root child (its node id + 1; 0: none yet) as last seen by
    /// [`should_stop`], and when it last changed (microseconds into the search).
    pub(super) best: AtomicU64,
    pub(super) best_changed_us: AtomicU64,
    /// Final scores of this search's simulations.
    pub(super) scores: ScoreSums,
    /// Ownership summed as the search goes, for live reports (only when reporting).
    pub(super) live: Option<Live>,
    /// The leaf evaluator and the root game, when the search evaluates leaves with a
    /// network (or another [`EvaluatorSource`]).
    pub(super) net: Option<NetRoot<'a>>,
    /// Each root child's ownership, when live analysis asks for it (`movesOwnership`).
    pub(super) moves_own: Option<MovesOwnership>,
}

/// Each root child's final ownership summed over this search's simulations through it.
pub(super) struct MovesOwnership {
    first: NodeId,
    n: usize,
    own: Vec<AtomicI32>,
    sims: Vec<AtomicU32>,
    /// What one simulation's full ownership of a point adds (1 for playouts).
    unit: i32,
}

impl MovesOwnership {
    /// Sums for the children of `tree`'s root (expanded by then).
    pub(super) fn new(tree: &Tree, unit: i32) -> MovesOwnership {
        let kids = tree.node(ROOT).children();
        let n = kids.len();
        MovesOwnership {
            first: kids.start,
            n,
            own: (0..n * NUM_CELLS).map(|_| AtomicI32::new(0)).collect(),
            sims: (0..n).map(|_| AtomicU32::new(0)).collect(),
            unit,
        }
    }

    /// The sums' slot of root child `id`, if it is one.
    pub(super) fn slot(&self, id: NodeId) -> Option<usize> {
        let i = id.checked_sub(self.first)? as usize;
        (i < self.n).then_some(i)
    }

    /// Adds one simulation's final owner `v` of point `i` to `slot`'s sums.
    pub(super) fn add_point(&self, slot: usize, i: usize, v: i32) {
        if v != 0 && i < NUM_CELLS {
            self.own[slot * NUM_CELLS + i].fetch_add(v, Relaxed);
        }
    }

    /// Counts one simulation through `slot` (its points added with [`Self::add_point`]).
    pub(super) fn count(&self, slot: usize) {
        self.sims[slot].fetch_add(1, Relaxed);
    }

    /// Black's mean ownership of every point (by point index) under root child `id`;
    /// empty when no simulation of this search went through it.
    pub(super) fn of(&self, id: NodeId) -> Vec<f32> {
        let Some(s) = self.slot(id) else {
            return Vec::new();
        };
        let n = self.sims[s].load(Relaxed);
        if n == 0 {
            return Vec::new();
        }
        let k = 1.0 / (n as f32 * self.unit as f32);
        self.own[s * NUM_CELLS..(s + 1) * NUM_CELLS]
            .iter()
            .map(|v| v.load(Relaxed) as f32 * k)
            .collect()
    }
}

/// Count, sum and sum of squares of final scores (Black's margin in half points).
#[derive(Default)]
pub(super) struct ScoreSums {
    n: AtomicU64,
    sum: AtomicI64,
    sum_sq: AtomicU64,
}

impl ScoreSums {
    /// Adds `n` scores with this sum and sum of squares.
    pub(super) fn add(&self, n: u64, sum: i64, sum_sq: u64) {
        self.n.fetch_add(n, Relaxed);
        self.sum.fetch_add(sum, Relaxed);
        self.sum_sq.fetch_add(sum_sq, Relaxed);
    }

    /// The standard deviation in points.
    pub(super) fn stdev(&self) -> f64 {
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
pub(super) struct Live {
    own: Vec<AtomicI32>,
    owned: Vec<AtomicU32>,
    sims: AtomicU64,
    /// What one simulation's full ownership of a point adds (1 for playouts).
    unit: i32,
}

impl Live {
    pub(super) fn new(unit: i32) -> Live {
        Live {
            own: (0..NUM_CELLS).map(|_| AtomicI32::new(0)).collect(),
            owned: (0..NUM_CELLS).map(|_| AtomicU32::new(0)).collect(),
            sims: AtomicU64::new(0),
            unit,
        }
    }

    /// Adds a worker's pending sums and clears them.
    pub(super) fn flush(&self, own: &mut [i32], owned: &mut [u32], sims: &mut u64) {
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

    pub(super) fn scale(&self) -> f32 {
        1.0 / (self.sims.load(Relaxed).max(1) as f32 * self.unit as f32)
    }

    pub(super) fn ownership(&self) -> Vec<f32> {
        let k = self.scale();
        self.own
            .iter()
            .map(|v| v.load(Relaxed) as f32 * k)
            .collect()
    }

    pub(super) fn owned(&self) -> Vec<f32> {
        let k = self.scale();
        self.owned
            .iter()
            .map(|v| v.load(Relaxed) as f32 * k)
            .collect()
    }
}

/// What the workers of a network search share beyond the rest of [`Shared`].
pub(super) struct NetRoot<'a> {
    /// What evaluates the leaves: a network, or a fake one.
    pub(super) source: &'a dyn EvaluatorSource,
    pub(super) game: &'a Game,
    pub(super) rules: InputRules,
    /// The network's lead for Black at the root: the score utility's centre.
    pub(super) centre: f64,
}
