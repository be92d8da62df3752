//! One descent from the root, the same for both searches: each node's visit counted on
//! the way down (the virtual loss another thread's descent sees), the path recorded with
//! who moved into each node, the child chosen by the search's formula and its move played
//! on the search's position, until a game ends in the tree (two passes), a node that is
//! not expanded stops the descent, or no child can be followed.
//!
//! Owns the loop only. Which child to follow, how a move is played and what happens at a
//! node without children belong to each search (`walk` for playouts, `puct` for the
//! network), through [`Descent`]; the evaluation of the leaf and the backup too.

use std::sync::atomic::Ordering::Relaxed;

use crate::board::{Color, Move};

use super::shared::Shared;
use super::tree::{NodeId, ROOT};

/// What a search does at each step of a descent.
pub(super) trait Descent {
    /// The child of `node` to follow, `color` to move there; `None` when there is none.
    fn select(&mut self, shared: &Shared, node: NodeId, color: Color) -> Option<NodeId>;

    /// Plays `mv` for `color` on the descent's position; false when it cannot be played
    /// (the descent stops before it).
    fn play(&mut self, color: Color, mv: Move) -> bool;

    /// At `node`, not expanded, just visited for the `visits`th time with `color` to move:
    /// true when the search expanded it and the descent goes on from it, false when the
    /// descent stops there.
    fn unexpanded(&mut self, shared: &Shared, node: NodeId, visits: u32, color: Color) -> bool;
}

/// Where a descent stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum End {
    /// Two passes in a row: the game ended in the tree.
    TwoPasses,
    /// At a node that is not expanded.
    Leaf,
    /// At a node with no child to follow, or whose chosen move could not be played.
    Stuck,
}

/// One descent from the root into `path` (the nodes from the root, each with the player
/// who moved into it; the root's mover is the opponent of the player to move there):
/// where it stopped, and the player to move at its last node.
pub(super) fn descend(
    shared: &Shared,
    d: &mut impl Descent,
    path: &mut Vec<(NodeId, Color)>,
) -> (End, Color) {
    let tree = shared.tree;
    path.clear();
    let mut node = ROOT;
    let mut color = shared.root_color;
    let mut passes = shared.root_passes;
    let mut mover = color.opponent();
    loop {
        let n = tree.node(node);
        let visits = n.visits.fetch_add(1, Relaxed) + 1;
        path.push((node, mover));
        if passes >= 2 {
            return (End::TwoPasses, color);
        }
        if !n.is_expanded() && !d.unexpanded(shared, node, visits, color) {
            return (End::Leaf, color);
        }
        let Some(child) = d.select(shared, node, color) else {
            return (End::Stuck, color);
        };
        let mv = tree.node(child).mv();
        if !d.play(color, mv) {
            return (End::Stuck, color);
        }
        passes = if mv == Move::Pass { passes + 1 } else { 0 };
        mover = color;
        color = color.opponent();
        node = child;
    }
}
