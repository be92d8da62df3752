//! What the worker loop of `run` asks of a search kind: a [`Simulator`] runs a worker's
//! simulations, each handing back an [`Outcome`] (final margin, root child, final owner
//! of every point). The playout search (`walk::Worker`) and the network search
//! (`puct::NetWorker`) implement it; the loop knows neither.
//!
//! Owns the trait and the outcome's types only; knows nothing of playouts or networks.

use crate::board::Board;

use super::shared::Shared;
use super::tree::NodeId;

/// What runs one worker's simulations: the playout search's `walk::Worker`, or the
/// network search's `puct::NetWorker` (each beside its search).
pub(super) trait Simulator {
    /// Simulations between two checks of the limits: playouts are fast, evaluations not.
    fn check_every(&self) -> u32;

    /// The most simulations one call of [`run`](Self::run) makes: a network's batch.
    fn batch(&self) -> usize;

    /// `k` simulations (at most [`batch`](Self::batch)), each one's outcome handed to
    /// `done`; `None` when `stop` cut a network evaluation short (the simulations left no
    /// trace).
    fn run(
        &mut self,
        shared: &Shared,
        k: usize,
        stop: &dyn Fn() -> bool,
        done: &mut dyn FnMut(Outcome<'_>),
    ) -> Option<()>;
}

/// What one simulation hands back: Black's final margin in half points, the root child
/// it went through, and the final owner of every point.
pub(super) struct Outcome<'a> {
    pub(super) margin: i32,
    pub(super) root_child: Option<NodeId>,
    pub(super) owner: Owner<'a>,
}

/// A simulation's final owner of every point, in the search's ownership unit.
pub(super) enum Owner<'a> {
    /// A playout's board (`walk::add_ownership` reads it): `counted` when the game
    /// ended in the tree and was counted as it stands.
    Board { board: &'a Board, counted: bool },
    /// By point index, the network's ownership.
    Points(&'a [(usize, i32)]),
}
