//! One simulation: descend the tree from the root by the selection formula, expand a
//! leaf that has earned it, evaluate the leaf by a playout (or count a finished game),
//! and back the result up every node of the path with its AMAF statistics. The leaf's
//! evaluation (`run_playout`) is the seam where another evaluator would plug in.

use std::sync::atomic::Ordering::Relaxed;

use crate::board::{Board, Color, Move, Point, NUM_CELLS};
use crate::playout::{self, Light, Moggy, PlayoutRng};

use super::shared::Shared;
use super::tree::{NodeId, ROOT};
use super::{prior, select, PolicyKind, SearchConfig};

/// Whether the tree may hold `mv` as a child: anything, unless the configuration forbids
/// filling a seki's shared liberty ([`SearchConfig::seki_moves`]).
pub(super) fn allowed(config: &SearchConfig, board: &Board, color: Color, mv: Move) -> bool {
    config.seki_moves || !matches!(mv, Move::Place(p) if board.breaks_seki(color, p))
}

/// One worker's scratch state.
pub(super) struct Worker {
    pub(super) board: Board,
    rng: PlayoutRng,
    path: Vec<(NodeId, Color)>,
    amaf: Vec<u8>,
    light: Light,
    moggy: Moggy,
}

impl Worker {
    pub(super) fn new(shared: &Shared, seed: u64) -> Worker {
        Worker {
            board: shared.root_board.clone(),
            rng: PlayoutRng::seed_from_u64(seed),
            path: Vec::with_capacity(64),
            amaf: vec![0; NUM_CELLS],
            light: Light,
            moggy: Moggy::new(shared.config.moggy),
        }
    }

    /// The root child the last simulation went through, if it left the root.
    pub(super) fn root_child(&self) -> Option<NodeId> {
        self.path.get(1).map(|&(id, _)| id)
    }
}

/// Hands `add` the final owner of every point of `board` (+1 Black, -1 White, 0
/// nobody, by point index): after a playout the cheap count of [`playout::end_owner`]
/// (nearly every empty point is an eye then); when the simulation ended in the tree
/// (`counted`), the exact area count with every stone alive.
pub(super) fn add_ownership(board: &Board, counted: bool, mut add: impl FnMut(usize, i32)) {
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
pub(super) fn simulate(shared: &Shared, w: &mut Worker) -> (bool, i32) {
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
    let black_value: u32 = match margin.signum() {
        1 => 2,
        0 => 1,
        _ => 0,
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
