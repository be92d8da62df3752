//! The search tree: nodes in one preallocated arena, children of a node a contiguous run
//! of nodes created once, at expansion. Every statistic is an atomic, so worker threads
//! share the tree without a lock: visits are counted on the way down (which is the
//! virtual loss: a descent in flight counts as a visit without a win), wins on the way
//! back; expansion is claimed by a compare-and-swap on the node's state.
//!
//! Values are in half points: a win adds 2, a draw 1, so that a node's win rate is
//! `wins / (2 * visits)` for the player who made the node's move.

use std::sync::atomic::{AtomicI64, AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering::*};

use crate::board::{Move, Point};

/// A node's index in the arena.
pub type NodeId = u32;

/// The root of every tree.
pub const ROOT: NodeId = 0;

const LEAF: u8 = 0;
const EXPANDING: u8 = 1;
const EXPANDED: u8 = 2;

/// One node: the move that leads to it and the statistics of that move.
#[derive(Debug, Default)]
pub struct Node {
    /// The move's point index, 0 for a pass.
    mv: AtomicU16,
    state: AtomicU8,
    /// Bit 0: pruned (illegal at the root by superko).
    flags: AtomicU8,
    num_children: AtomicU16,
    first_child: AtomicU32,
    pub visits: AtomicU32,
    pub wins: AtomicU32,
    pub amaf_visits: AtomicU32,
    pub amaf_wins: AtomicU32,
    /// Equivalent experience from the priors (visits, and wins in half points).
    pub prior_visits: AtomicU32,
    pub prior_wins: AtomicU32,
    /// Sum over the playouts through this node of the final area difference, Black minus
    /// White, komi included, in half points.
    pub score_sum: AtomicI64,
    /// With a network: the move's policy probability (`f32` bits), the sum of the
    /// network's win probabilities for the player who made the move (in 1/[`VALUE_UNIT`]),
    /// and the sum of its leads for Black (in 1/[`LEAD_UNIT`] points).
    pub policy: AtomicU32,
    pub value_sum: AtomicU64,
    pub lead_sum: AtomicI64,
    /// With a network: the sum of each evaluation's lead squared plus its score variance
    /// (in 1/[`SCORE_SQ_UNIT`] square points), for the score's spread under the move.
    pub score_sq_sum: AtomicU64,
    /// With a network: the sum of its win probabilities squared (in 1/[`VALUE_UNIT`]), for
    /// the value's spread under the move.
    pub value_sq_sum: AtomicU64,
    /// With a network: the evaluations backed up through the node, what the sums above
    /// are divided by for their means.
    pub evals: AtomicU32,
}

/// Fixed-point units of [`Node::value_sum`], [`Node::lead_sum`] and [`Node::score_sq_sum`].
pub const VALUE_UNIT: f64 = (1u64 << 24) as f64;
pub const LEAD_UNIT: f64 = 1024.0;
pub const SCORE_SQ_UNIT: f64 = 16.0;

/// A plain copy of a node's statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stats {
    pub visits: u32,
    pub wins: u32,
    pub amaf_visits: u32,
    pub amaf_wins: u32,
    pub prior_visits: u32,
    pub prior_wins: u32,
    pub score_sum: i64,
    pub policy: f32,
    pub value_sum: u64,
    pub lead_sum: i64,
    pub score_sq_sum: u64,
    pub value_sq_sum: u64,
    pub evals: u32,
}

impl Stats {
    /// The mean of the network's win probabilities for the player who made the move, the
    /// descents still in flight counted as losses (the virtual loss); 0.5 before any
    /// evaluation.
    pub fn value(&self) -> f64 {
        if self.evals == 0 {
            0.5
        } else {
            self.mean_value() * self.in_share()
        }
    }

    /// The share of the visits whose evaluations are backed up: the others are descents
    /// in flight, whose figures count as 0 in the means and the spreads (a virtual loss).
    fn in_share(&self) -> f64 {
        self.evals as f64 / self.visits.max(self.evals).max(1) as f64
    }

    /// The mean of the evaluations backed up, without the virtual loss.
    fn mean_value(&self) -> f64 {
        self.value_sum as f64 / VALUE_UNIT / self.evals as f64
    }

    /// The network's mean lead for Black (0 unvisited), the descents still in flight
    /// counted as leads of 0.
    pub fn lead(&self) -> f64 {
        self.mean_lead() * self.in_share()
    }

    /// The mean lead of the evaluations backed up.
    fn mean_lead(&self) -> f64 {
        if self.evals == 0 {
            0.0
        } else {
            self.lead_sum as f64 / LEAD_UNIT / self.evals as f64
        }
    }

    /// The standard deviation of the final score under the move by the network: its
    /// evaluations' own spread and the spread of their leads (0 unvisited).
    pub fn score_stdev(&self) -> f64 {
        if self.evals == 0 {
            return 0.0;
        }
        let mean_sq =
            self.score_sq_sum as f64 / SCORE_SQ_UNIT / self.evals as f64 * self.in_share();
        (mean_sq - self.lead() * self.lead()).max(0.0).sqrt()
    }

    /// The standard deviation of the network's win probabilities under the move (0
    /// unvisited).
    pub fn value_stdev(&self) -> f64 {
        if self.evals == 0 {
            return 0.0;
        }
        let mean_sq = self.value_sq_sum as f64 / VALUE_UNIT / self.evals as f64 * self.in_share();
        (mean_sq - self.value() * self.value()).max(0.0).sqrt()
    }
}

impl Node {
    pub fn mv(&self) -> Move {
        match self.mv.load(Relaxed) {
            0 => Move::Pass,
            p => Move::Place(Point(p)),
        }
    }

    pub fn is_expanded(&self) -> bool {
        self.state.load(Acquire) == EXPANDED
    }

    /// Whether a thread has claimed the node's expansion and not yet made it (its leaf
    /// is being evaluated).
    pub fn is_expanding(&self) -> bool {
        self.state.load(Relaxed) == EXPANDING
    }

    pub fn is_pruned(&self) -> bool {
        self.flags.load(Relaxed) & 1 != 0
    }

    pub fn prune(&self) {
        self.flags.fetch_or(1, Relaxed);
    }

    /// Takes back [`Node::prune`] (a root move allowed again in a later search).
    pub fn unprune(&self) {
        self.flags.fetch_and(!1, Relaxed);
    }

    /// The children's index range (empty unless expanded).
    pub fn children(&self) -> std::ops::Range<NodeId> {
        if !self.is_expanded() {
            return 0..0;
        }
        let first = self.first_child.load(Relaxed);
        first..first + self.num_children.load(Relaxed) as u32
    }

    pub fn stats(&self) -> Stats {
        Stats {
            visits: self.visits.load(Relaxed),
            wins: self.wins.load(Relaxed),
            amaf_visits: self.amaf_visits.load(Relaxed),
            amaf_wins: self.amaf_wins.load(Relaxed),
            prior_visits: self.prior_visits.load(Relaxed),
            prior_wins: self.prior_wins.load(Relaxed),
            score_sum: self.score_sum.load(Relaxed),
            policy: f32::from_bits(self.policy.load(Relaxed)),
            value_sum: self.value_sum.load(Relaxed),
            lead_sum: self.lead_sum.load(Relaxed),
            score_sq_sum: self.score_sq_sum.load(Relaxed),
            value_sq_sum: self.value_sq_sum.load(Relaxed),
            evals: self.evals.load(Relaxed),
        }
    }

    fn set_stats(&self, s: &Stats) {
        self.visits.store(s.visits, Relaxed);
        self.wins.store(s.wins, Relaxed);
        self.amaf_visits.store(s.amaf_visits, Relaxed);
        self.amaf_wins.store(s.amaf_wins, Relaxed);
        self.prior_visits.store(s.prior_visits, Relaxed);
        self.prior_wins.store(s.prior_wins, Relaxed);
        self.score_sum.store(s.score_sum, Relaxed);
        self.policy.store(s.policy.to_bits(), Relaxed);
        self.value_sum.store(s.value_sum, Relaxed);
        self.lead_sum.store(s.lead_sum, Relaxed);
        self.score_sq_sum.store(s.score_sq_sum, Relaxed);
        self.value_sq_sum.store(s.value_sq_sum, Relaxed);
        self.evals.store(s.evals, Relaxed);
    }

    /// Makes the node expanded with the `n` children from `first`.
    fn set_children(&self, first: NodeId, n: usize) {
        self.first_child.store(first, Relaxed);
        self.num_children.store(n as u16, Relaxed);
        self.state.store(EXPANDED, Release);
    }
}

fn move_code(mv: Move) -> u16 {
    match mv {
        Move::Pass => 0,
        Move::Place(p) => p.0,
    }
}

/// A new child: its move and prior (equivalent visits, wins in half points; or the
/// network's policy).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NewChild {
    pub mv: Move,
    pub prior_visits: u32,
    pub prior_wins: u32,
    pub policy: f32,
}

/// The arena of nodes. Its memory is reserved zeroed up front (the OS maps pages only as
/// they are touched), so a large bound costs nothing until the tree grows into it.
pub struct Tree {
    nodes: Box<[Node]>,
    used: AtomicU32,
}

impl std::fmt::Debug for Tree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tree({} of {} nodes)", self.len(), self.capacity())
    }
}

impl Tree {
    /// A tree of at most `capacity` nodes (at least 1) holding only the root.
    pub fn new(capacity: usize) -> Tree {
        let mut capacity = capacity.clamp(1, u32::MAX as usize / 2);
        // Memory the system will not give (a bound beyond the machine) halves the arena
        // until it fits rather than aborting the process.
        let nodes = loop {
            match zeroed_nodes(capacity) {
                Some(nodes) => break nodes,
                None if capacity > 1024 => {
                    capacity /= 2;
                    crate::log!(1, "search: tree memory refused; trying {capacity} nodes");
                }
                None => std::alloc::handle_alloc_error(
                    std::alloc::Layout::array::<Node>(capacity).expect("small layout"),
                ),
            }
        };
        Tree {
            nodes,
            used: AtomicU32::new(1),
        }
    }

    /// The number of nodes a bound of `bytes` allows.
    pub fn capacity_for_bytes(bytes: usize) -> usize {
        (bytes / std::mem::size_of::<Node>()).max(1024)
    }

    pub fn capacity(&self) -> usize {
        self.nodes.len()
    }

    /// Nodes in use.
    pub fn len(&self) -> usize {
        (self.used.load(Relaxed) as usize).min(self.nodes.len())
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    /// Whether no more children can be created.
    pub fn is_full(&self) -> bool {
        self.used.load(Relaxed) as usize >= self.nodes.len()
    }

    #[inline]
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    /// Claims the expansion of `id`: true for exactly one caller, who must then call
    /// [`Tree::expand`] (or [`Tree::abandon`]).
    pub fn try_claim(&self, id: NodeId) -> bool {
        self.node(id)
            .state
            .compare_exchange(LEAF, EXPANDING, Acquire, Relaxed)
            .is_ok()
    }

    /// Gives up a claimed expansion (the node stays a leaf).
    pub fn abandon(&self, id: NodeId) {
        self.node(id).state.store(LEAF, Release);
    }

    /// Creates the children of the claimed node `id`. False (and the node stays a leaf
    /// for good: it is marked expanded with no children only if `children` is empty)
    /// when the arena is full.
    pub fn expand(&self, id: NodeId, children: &[NewChild]) -> bool {
        let n = children.len().min(u16::MAX as usize);
        let first = self.used.fetch_add(n as u32, Relaxed);
        if first as usize + n > self.nodes.len() {
            // Full: leave the counter past the end, so that is_full holds from now on.
            self.abandon(id);
            return false;
        }
        for (i, c) in children[..n].iter().enumerate() {
            let node = self.node(first + i as u32);
            node.mv.store(move_code(c.mv), Relaxed);
            node.prior_visits.store(c.prior_visits, Relaxed);
            node.prior_wins.store(c.prior_wins, Relaxed);
            node.policy.store(c.policy.to_bits(), Relaxed);
        }
        self.node(id).set_children(first, n);
        true
    }

    /// The child of `id` reached by `mv`, if `id` is expanded and has it.
    pub fn child_by_move(&self, id: NodeId, mv: Move) -> Option<NodeId> {
        let code = move_code(mv);
        self.node(id)
            .children()
            .find(|&c| self.node(c).mv.load(Relaxed) == code)
    }

    /// A new tree whose root is a copy of the subtree at `id` (statistics and all), in an
    /// arena of the same capacity. Pruned marks are dropped (they belong to the old root).
    ///
    /// At most `limit` nodes are copied, breadth first: the nodes nearest the new root
    /// are kept, and a node whose children no longer fit stays a leaf (its statistics
    /// kept) to be expanded again. With `limit` the old tree's free room, the two trees
    /// together never use more memory than one full arena.
    pub fn extract(&self, id: NodeId, limit: usize) -> Tree {
        let out = Tree::new(self.capacity());
        let limit = limit.clamp(1, out.nodes.len());
        out.node(ROOT).set_stats(&self.node(id).stats());
        out.node(ROOT)
            .mv
            .store(self.node(id).mv.load(Relaxed), Relaxed);
        let mut queue = std::collections::VecDeque::from([(id, ROOT)]);
        while let Some((old, new)) = queue.pop_front() {
            let kids = self.node(old).children();
            if kids.is_empty() {
                continue;
            }
            let n = kids.len();
            let first = out.used.load(Relaxed);
            if first as usize + n > limit {
                continue;
            }
            out.used.store(first + n as u32, Relaxed);
            for (i, c) in kids.enumerate() {
                let src = self.node(c);
                let dst = out.node(first + i as u32);
                dst.mv.store(src.mv.load(Relaxed), Relaxed);
                dst.set_stats(&src.stats());
                queue.push_back((c, first + i as u32));
            }
            out.node(new).set_children(first, n);
        }
        out
    }
}

/// `n` default nodes in zeroed memory, without touching the pages.
/// A zeroed arena of `n` nodes, or None if the allocator refuses it.
fn zeroed_nodes(n: usize) -> Option<Box<[Node]>> {
    let layout = std::alloc::Layout::array::<Node>(n).ok()?;
    // SAFETY: every field of `Node` is an atomic integer, for which all-zero bytes are a
    // valid value (the same as `Node::default()`); the layout is that of `[Node; n]` and
    // was allocated by the global allocator, so the box owns and frees it correctly.
    unsafe {
        let ptr = std::alloc::alloc_zeroed(layout) as *mut Node;
        if ptr.is_null() {
            return None;
        }
        Some(Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, n)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn means_and_descents_in_flight_count_as_losses() {
        // Four evaluations: 0.9 three times and 0.1; leads 4 three times and -4.
        let s = Stats {
            visits: 4,
            evals: 4,
            value_sum: ((0.9 * 3.0 + 0.1) * VALUE_UNIT) as u64,
            value_sq_sum: ((0.81 * 3.0 + 0.01) * VALUE_UNIT) as u64,
            lead_sum: ((4.0 * 3.0 - 4.0) * LEAD_UNIT) as i64,
            score_sq_sum: ((16.0 * 3.0 + 16.0) * SCORE_SQ_UNIT) as u64,
            ..Stats::default()
        };
        assert!((s.value() - 0.7).abs() < 1e-6, "{}", s.value());
        assert!((s.lead() - 2.0).abs() < 1e-6, "{}", s.lead());
        // sqrt(E[v^2] - E[v]^2) = sqrt(0.61 - 0.49); sqrt(16 - 4) for the score.
        assert!((s.value_stdev() - 0.12f64.sqrt()).abs() < 1e-6);
        assert!((s.score_stdev() - 12f64.sqrt()).abs() < 1e-6);
        // A fifth descent on its way down: its visit counts, its value is not in yet.
        let s = Stats { visits: 5, ..s };
        assert!((s.value() - 0.7 * 4.0 / 5.0).abs() < 1e-6);
        assert!((s.lead() - 2.0 * 4.0 / 5.0).abs() < 1e-6);
        // Nothing evaluated yet.
        let s = Stats {
            visits: 1,
            ..Stats::default()
        };
        assert_eq!((s.value(), s.lead(), s.value_stdev()), (0.5, 0.0, 0.0));
    }

    #[test]
    fn expand_once_and_extract_keeps_statistics() {
        let t = Tree::new(100);
        assert!(t.try_claim(ROOT));
        assert!(!t.try_claim(ROOT));
        let kids: Vec<NewChild> = (0..3)
            .map(|i| NewChild {
                mv: if i == 0 {
                    Move::Pass
                } else {
                    Move::Place(Point(30 + i))
                },
                prior_visits: 10,
                prior_wins: 10,
                policy: 0.25,
            })
            .collect();
        assert!(t.expand(ROOT, &kids));
        assert_eq!(t.node(ROOT).children(), 1..4);
        let c = t.child_by_move(ROOT, Move::Place(Point(31))).unwrap();
        t.node(c).visits.store(7, Relaxed);
        assert!(t.try_claim(c));
        assert!(t.expand(c, &kids[..2]));
        let g = t.child_by_move(c, Move::Pass).unwrap();
        t.node(g).wins.store(5, Relaxed);
        t.node(g).value_sum.store(3 << 20, Relaxed);
        t.node(g).lead_sum.store(-2048, Relaxed);
        let u = t.extract(c, usize::MAX);
        assert_eq!(u.node(ROOT).stats().visits, 7);
        let g2 = u.child_by_move(ROOT, Move::Pass).unwrap();
        let s = u.node(g2).stats();
        assert_eq!(
            (s.wins, s.value_sum, s.lead_sum, s.policy),
            (5, 3 << 20, -2048, 0.25)
        );
        assert_eq!(u.len(), 3);
        // Limited: the root's three children fit in four nodes, the grandchildren don't,
        // and the child holding them stays a leaf that keeps its statistics.
        let w = t.extract(ROOT, 4);
        assert_eq!(w.len(), 4);
        let c2 = w.child_by_move(ROOT, Move::Place(Point(31))).unwrap();
        assert!(!w.node(c2).is_expanded());
        assert_eq!(w.node(c2).stats().visits, 7);
    }

    #[test]
    fn full_arena_refuses_expansion() {
        let t = Tree::new(2);
        assert!(t.try_claim(ROOT));
        let kids = [NewChild {
            mv: Move::Pass,
            prior_visits: 0,
            prior_wins: 0,
            policy: 0.0,
        }; 2];
        assert!(!t.expand(ROOT, &kids));
        assert!(!t.node(ROOT).is_expanded());
        assert!(t.is_full());
    }
}
