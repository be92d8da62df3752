//! One simulation of the playout search: descend the tree from the root (`descend`, with
//! this search's selection formula and its expansion of a leaf that has earned it),
//! evaluate the leaf by a playout (or count a finished game), and back the result up
//! every node of the path with its AMAF statistics.

use std::sync::atomic::Ordering::Relaxed;

use crate::board::{Board, Color, Move, Point, NUM_CELLS};
use crate::playout::{self, Light, Moggy, PlayoutRng};

use super::descend::{descend, Descent, End};
use super::shared::Shared;
use super::simulator::{Outcome, Owner, Simulator};
use super::tree::{NodeId, ROOT};
use super::{prior, select, PolicyKind, SearchConfig};

/// Whether the tree may hold `mv` as a child: anything, unless the configuration forbids
/// filling a seki's shared liberty ([`SearchConfig::seki_moves`]).
pub(super) fn allowed(config: &SearchConfig, board: &Board, color: Color, mv: Move) -> bool {
    config.seki_moves || !matches!(mv, Move::Place(p) if board.breaks_seki(color, p))
}

/// One worker's scratch state.
pub(super) struct Worker {
    board: Board,
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
    fn root_child(&self) -> Option<NodeId> {
        self.path.get(1).map(|&(id, _)| id)
    }
}

impl Simulator for Worker {
    fn check_every(&self) -> u32 {
        16
    }

    fn batch(&self) -> usize {
        1
    }

    /// Playouts are not stopped once started: always `Some`.
    fn run(
        &mut self,
        shared: &Shared,
        k: usize,
        _stop: &dyn Fn() -> bool,
        done: &mut dyn FnMut(Outcome<'_>),
    ) -> Option<()> {
        for _ in 0..k {
            let (counted, margin) = simulate(shared, self);
            done(Outcome {
                margin,
                root_child: self.root_child(),
                owner: Owner::Board {
                    board: &self.board,
                    counted,
                },
            });
        }
        Some(())
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

/// A playout search's descent: the worker's board, its AMAF marks, and the last moves
/// (the priors of a node expanded on the way and the playout's first move need them).
struct PlayoutDescent<'w> {
    board: &'w mut Board,
    amaf: &'w mut [u8],
    history: [Option<Move>; 3],
    last: Option<Point>,
}

impl Descent for PlayoutDescent<'_> {
    fn select(&mut self, shared: &Shared, node: NodeId, _color: Color) -> Option<NodeId> {
        select::best_child(shared.tree, node, shared.config)
    }

    fn play(&mut self, color: Color, mv: Move) -> bool {
        match mv {
            Move::Place(p) => {
                self.board.place(color, p);
                playout::mark_first(self.amaf, p, color);
                self.last = Some(p);
            }
            Move::Pass => {
                self.board.pass();
                self.last = None;
            }
        }
        self.history = [Some(mv), self.history[0], self.history[1]];
        true
    }

    /// Expands the node (the root at once, another after `expand_visits` visits) when the
    /// tree has room and no other thread is at it.
    fn unexpanded(&mut self, shared: &Shared, node: NodeId, visits: u32, color: Color) -> bool {
        let tree = shared.tree;
        let cfg = shared.config;
        let want = node == ROOT || visits >= cfg.expand_visits;
        if want && !tree.is_full() && tree.try_claim(node) {
            let board = &*self.board;
            let keep = |mv: Move| allowed(cfg, board, color, mv);
            let kids = prior::children(board, color, &self.history, &cfg.priors, &keep);
            tree.expand(node, &kids);
        }
        tree.node(node).is_expanded()
    }
}

/// One descent, playout and backup. True when the simulation ended in the tree and the
/// board was counted as it stands (two passes), false when it was played out; and the
/// final score, Black's margin with komi in half points.
fn simulate(shared: &Shared, w: &mut Worker) -> (bool, i32) {
    let tree = shared.tree;
    let cfg = shared.config;
    w.board.copy_from(shared.root_board);
    let used = NUM_CELLS.min((shared.root_board.size() + 2) * crate::board::STRIDE);
    w.amaf[..used].fill(0);
    let mut d = PlayoutDescent {
        board: &mut w.board,
        amaf: &mut w.amaf,
        history: shared.root_history,
        last: shared.root_last,
    };
    let (end, color) = descend(shared, &mut d, &mut w.path);
    let last = d.last;
    let mut counted = true;
    let score = match end {
        End::TwoPasses if shared.exact_end => crate::score::area_difference(&w.board) * 2,
        End::TwoPasses => {
            counted = false;
            run_playout(w, cfg.policy, color, None) * 2
        }
        End::Leaf => {
            counted = false;
            run_playout(w, cfg.policy, color, last) * 2
        }
        // Every child pruned (cannot happen below the root): count as it stands.
        End::Stuck => crate::score::area_difference(&w.board) * 2,
    };
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
