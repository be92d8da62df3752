//! The tree searches: PUCT on a KataGo network ([`puct`]), and, with no network, UCT with
//! RAVE (AMAF) and priors with knowledge playouts at the leaves (the playout search). Both
//! run on one tree shared by worker threads without a lock, and one search gives one
//! [`Analysis`] value (candidates with visits, win rates, scores, principal variations,
//! ownership), which every front end formats. Knows the game and the board, nothing of
//! GTP or text.
//!
//! - With a network: a leaf is evaluated by the network (through [`leaf`]'s seam), its
//!   children, every legal point and the pass, get the policy as priors, and a descent
//!   follows PUCT (see [`puct`]). A game ended in the tree (two passes) is valued by the
//!   network, shown the passes.
//! - The playout search: selection ([`select::urgency`]) is Gelly & Silver's minimum-MSE
//!   blend of the move's own win rate and its AMAF win rate, priors added to the move's
//!   own statistics as equivalent experience (see [`prior`]). A leaf gets its children
//!   (every legal non-eye point and the pass) once it has been visited `expand_visits`
//!   times, the root at once. Two passes in a row in the tree end the game there: under
//!   rules that count every stone alive (Tromp-Taylor) the leaf is counted exactly; under
//!   rules that remove dead stones first (Chinese) it is played out, so that the playout
//!   judges (captures) the dead stones the count would remove.
//! - Superko: a root child that would repeat a position is pruned. Inside the playout
//!   search's tree and its playouts the board's simple ko rule applies; the network's
//!   legal moves, at every node, leave out what the rules' superko bans (KataGo's
//!   `isLegal`).
//! - Tree reuse: a search from a position that follows the last one by the moves played
//!   since keeps that subtree.
//! - Ownership: each simulation's final owner of each point (a playout's, or the network's
//!   ownership of the leaf) is summed in per-worker arrays, merged when the workers are
//!   done ([`Analysis::ownership`]); the engine's end of game reads it, and without a
//!   network `status` judges dead stones from a short search's.
//!
//! Files: [`run`] owns the threads and the tree between searches; [`limits`] how long
//! one search may run; `descend` the descent from the root both searches make; `walk`
//! one simulation of the playout search (descend, evaluate the leaf by a playout, back
//! up); `simulator` what the worker loop asks of either search; `shared` what the
//! workers of one search share (tree, root, counters, sums); [`analysis`] the
//! one value a search gives; [`select`] the playout search's selection formula; [`tree`]
//! the arena; [`prior`] what a new node's children start with in the playout search;
//! [`puct`] the search with a network, which gets its leaves' evaluations through
//! [`leaf`]'s seam (a network's, or the tests' [`fake`] one).

pub mod analysis;
mod descend;
pub mod fake;
pub mod leaf;
pub mod limits;
pub mod prior;
pub mod puct;
pub mod run;
pub mod select;
mod shared;
mod simulator;
pub mod tree;
mod walk;

use crate::playout::MoggyConfig;
use prior::PriorConfig;

pub use analysis::{Analysis, Candidate};
pub use limits::Limits;
pub use run::{cache_bytes, Reporter, Search};

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

/// The default bound on the process's memory, in MiB.
pub const DEFAULT_MAX_MEMORY_MIB: usize = 512;

/// Memory kept out of `--max-memory` for everything but the search tree (the program,
/// boards, per-thread state, the dead-stone search's own small tree, I/O buffers).
const RESERVE_MIB: usize = 32;

/// The search tree's share of a memory bound of `mib` MiB: all but [`RESERVE_MIB`], or
/// half of a bound too small for that. The whole process stays within the bound.
pub fn tree_bytes(mib: usize) -> usize {
    let mib = mib.max(1);
    if mib >= 2 * RESERVE_MIB {
        (mib - RESERVE_MIB) << 20
    } else {
        (mib << 20) / 2
    }
}

/// The search's constants: threads, memory and seed, and the research knobs (`--set`).
#[derive(Clone, Debug, PartialEq)]
pub struct SearchConfig {
    pub threads: usize,
    /// Bound on the whole process's memory, in MiB (`--max-memory`): the tree gets
    /// [`tree_bytes`] of it.
    pub max_memory_mib: usize,
    /// Visits a leaf needs before it is expanded.
    pub expand_visits: u32,
    /// RAVE equivalence: the number of visits at which a move's own statistics and its
    /// AMAF statistics weigh the same (Gelly & Silver's b² is 1 / (4 K)).
    pub rave_equiv: f64,
    pub priors: PriorConfig,
    pub policy: PolicyKind,
    pub moggy: MoggyConfig,
    /// Whether the tree may fill a seki's shared liberty
    /// ([`crate::board::Board::breaks_seki`]). The dead-stone search forbids it: there a
    /// lost side would throw its seki away in the tree as readily as anything else, and
    /// the ownership would show the seki gone.
    pub seki_moves: bool,
    /// The search with a network.
    pub puct: puct::PuctConfig,
    pub seed: u64,
}

impl Default for SearchConfig {
    fn default() -> SearchConfig {
        SearchConfig {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            max_memory_mib: DEFAULT_MAX_MEMORY_MIB,
            expand_visits: 12,
            rave_equiv: 3000.0,
            priors: PriorConfig::default(),
            policy: PolicyKind::Moggy,
            moggy: MoggyConfig::default(),
            seki_moves: true,
            puct: puct::PuctConfig::default(),
            seed: 0x7465_6e67_656e,
        }
    }
}
