//! The features of a candidate move that the learned model weighs (Coulom 2007): tactical
//! ones read from the chains around the move, distances to the last two moves, the line,
//! and the spatial pattern. Each feature group gives a move at most one value.

use smallvec::SmallVec;

use crate::board::{Board, Cell, Color, Move, Point};

use super::spatial::{self, KeyMap, NUM_SIZES};

/// The feature groups, in the order of [`Features::values`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// A pass: 0 ordinary, 1 after the opponent passed.
    Pass,
    /// A capture: `4 * size band + 2 * saves + takes last`, size bands 1, 2, 3-5, 6+
    /// stones; `saves` when a captured chain touches an own chain in atari; `takes last`
    /// when it holds the opponent's last move.
    Capture,
    /// Extending an own chain out of atari: 0 to 3+ liberties (one stone), 1 the same
    /// (more stones), 2 to two liberties caught in a ladder, 3 to two not caught, 4 still
    /// in atari.
    Escape,
    /// Putting an opponent chain in atari: 0 it is caught in a ladder, 1 other, 2 other
    /// while a ko is on the board.
    Atari,
    /// A self-atari of 1, 2-3, 4+ stones.
    SelfAtari,
    /// Distance `d = dx + dy + max(dx, dy)` to the opponent's last move: `d - 2` for
    /// 2..=16, 15 for more.
    LastMove,
    /// The same distance to the mover's own previous move.
    MoveBefore,
    /// The line (1st to 4th, and 5th or higher): 0..=4.
    Line,
    /// The same distance as [`Group::LastMove`] to the opponent's move before its last.
    ThirdMove,
    /// The liberties of the chain the move makes: 1, 2, 3, 4, 5+ (`0..=4`).
    Liberties,
}

/// How many values each group has.
pub const GROUP_SIZES: [usize; NUM_GROUPS] = [2, 16, 5, 3, 3, 16, 16, 5, 16, 5];
/// How many groups there are (the spatial pattern comes on top).
pub const NUM_GROUPS: usize = 10;
/// Bumped whenever a definition above changes: a weights file of another version is
/// refused.
pub const VERSION: u32 = 3;

/// No value in a group.
pub const NONE: u8 = u8::MAX;

/// The features of one candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    /// One value per group ([`NONE`] for none).
    pub values: [u8; NUM_GROUPS],
    /// The spatial keys, smallest pattern first (all 0 for a pass).
    pub spatial: [u64; NUM_SIZES],
    /// The 3x3 shape with the liberties (1, 2, 3+) of the four stones beside the move,
    /// canonical under the symmetries and seen from the mover (0 for a pass).
    pub shape: u64,
}

/// The context of a position: who moves, and the last two moves.
#[derive(Clone, Copy, Debug)]
pub struct Context {
    pub color: Color,
    /// The opponent's last move (`None` at the start).
    pub last: Option<Move>,
    /// The mover's move before that.
    pub before: Option<Move>,
    /// The opponent's move before `before`.
    pub third: Option<Move>,
}

fn distance_value(p: Point, q: Option<Move>) -> u8 {
    match q {
        Some(Move::Place(q)) => {
            let (x, y) = p.coord();
            let (qx, qy) = q.coord();
            let (dx, dy) = (x.abs_diff(qx), y.abs_diff(qy));
            let d = dx + dy + dx.max(dy);
            (d.clamp(2, 17) - 2) as u8
        }
        _ => NONE,
    }
}

/// The features of a pass.
pub fn pass_features(ctx: &Context) -> Features {
    let mut values = [NONE; NUM_GROUPS];
    values[Group::Pass as usize] = u8::from(ctx.last == Some(Move::Pass));
    Features {
        values,
        spatial: [0; NUM_SIZES],
        shape: 0,
    }
}

/// The features of `ctx.color` playing on the empty point `p` (legal). `scratch` must be
/// a copy of `board`; ladder reads play on it and leave it as it was.
pub fn point_features(board: &Board, scratch: &mut Board, ctx: &Context, p: Point) -> Features {
    let grid = spatial::Grid::new(board, ctx.color);
    point_features_in(board, scratch, &grid, ctx, p, None)
}

/// [`point_features`] with the position's pattern grid built already.
fn point_features_in(
    board: &Board,
    scratch: &mut Board,
    grid: &spatial::Grid,
    ctx: &Context,
    p: Point,
    known: Option<&KeyMap>,
) -> Features {
    let color = ctx.color;
    let own = Cell::from(color);
    let enemy = Cell::from(color.opponent());
    let mut values = [NONE; NUM_GROUPS];

    // Neighbouring chains: enemy in atari (captured), enemy with two liberties, own in atari.
    let mut captured: SmallVec<[Point; 4]> = SmallVec::new();
    let mut two_libs: SmallVec<[Point; 4]> = SmallVec::new();
    let mut own_atari: SmallVec<[Point; 4]> = SmallVec::new();
    for q in p.neighbors() {
        let c = board.cell(q);
        if c != own && c != enemy {
            continue;
        }
        let head = board.chain_id(q).expect("a stone");
        if c == enemy {
            if board.atari_liberty(q) == Some(p) {
                if !captured.contains(&head) {
                    captured.push(head);
                }
            } else if board.liberties_upto(q, 3) == 2 && !two_libs.contains(&head) {
                two_libs.push(head);
            }
        } else if board.atari_liberty(q) == Some(p) && !own_atari.contains(&head) {
            own_atari.push(head);
        }
    }

    if !captured.is_empty() {
        let size: usize = captured.iter().map(|&h| board.chain_len(h)).sum();
        let band = match size {
            1 => 0,
            2 => 1,
            3..=5 => 2,
            _ => 3,
        };
        let saves = captured.iter().any(|&h| {
            board.chain(h).into_iter().any(|s| {
                s.neighbors()
                    .iter()
                    .any(|&n| board.cell(n) == own && board.in_atari(n))
            })
        });
        let takes_last = match ctx.last {
            Some(Move::Place(l)) => captured.iter().any(|&h| board.chain_id(l) == Some(h)),
            _ => false,
        };
        values[Group::Capture as usize] = 4 * band + 2 * u8::from(saves) + u8::from(takes_last);
    }

    // The new chain's liberties, up to 5 (the escape needs up to 3).
    let libs = board.liberties_after(color, p, 5);
    if let Some(&chain) = own_atari.first() {
        let stones = board.chain_len(chain);
        values[Group::Escape as usize] = match libs {
            3.. => u8::from(stones > 1),
            2 => {
                if captured.is_empty() && scratch.escape_is_ladder(color, chain, p) {
                    2
                } else {
                    3
                }
            }
            _ => 4,
        };
    }

    if let Some(sa) = board.self_atari(color, p) {
        values[Group::SelfAtari as usize] = match sa {
            1 => 0,
            2..=3 => 1,
            _ => 2,
        };
    } else if !two_libs.is_empty() {
        let u = scratch.place_undoable(color, p);
        let caught = two_libs.iter().any(|&h| match scratch.atari_liberty(h) {
            Some(lib) => scratch.escape_is_ladder(color.opponent(), h, lib),
            None => false,
        });
        scratch.undo(u);
        values[Group::Atari as usize] = if caught {
            0
        } else if board.ko().is_some() {
            2
        } else {
            1
        };
    }

    values[Group::LastMove as usize] = distance_value(p, ctx.last);
    values[Group::MoveBefore as usize] = distance_value(p, ctx.before);
    values[Group::ThirdMove as usize] = distance_value(p, ctx.third);
    values[Group::Liberties as usize] = (libs.max(1) - 1) as u8;
    let (x, y) = p.coord();
    let n = board.size();
    let line = x.min(y).min(n - 1 - x).min(n - 1 - y);
    values[Group::Line as usize] = line.min(4) as u8;

    Features {
        values,
        spatial: match known {
            Some(k) => grid.keys_while(p, |key| k.contains_key(&key)),
            None => grid.keys(p),
        },
        shape: spatial::shape_key(board, color, p),
    }
}

/// The features of every legal move of `ctx.color` (points in the board's order, then
/// the pass), skipping the moves `keep` refuses. With `known` (a model's spatial
/// patterns), the spatial keys stop at the first size it does not know.
pub fn all_features(
    board: &Board,
    ctx: &Context,
    keep: &dyn Fn(Move) -> bool,
    known: Option<&KeyMap>,
) -> Vec<(Move, Features)> {
    let mut scratch = board.clone();
    let grid = spatial::Grid::new(board, ctx.color);
    let mut out = Vec::with_capacity(board.num_empty() + 1);
    let mut empties: Vec<Point> = board.empty_points().collect();
    empties.sort_unstable();
    for p in empties {
        if board.is_legal(ctx.color, p) && keep(Move::Place(p)) {
            let f = point_features_in(board, &mut scratch, &grid, ctx, p, known);
            out.push((Move::Place(p), f));
        }
    }
    if keep(Move::Pass) {
        out.push((Move::Pass, pass_features(ctx)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_escape_and_distance() {
        let mut b = Board::new(9).unwrap();
        let pt = |c, r| Point::from_coord(c, r);
        // A white stone at E5 in atari: black at D5, F5, E6.
        for &(c, r) in &[(3, 4), (5, 4), (4, 5)] {
            assert!(b.set_stone(Color::Black, pt(c, r)));
        }
        assert!(b.set_stone(Color::White, pt(4, 4)));
        let ctx = Context {
            color: Color::Black,
            last: Some(Move::Place(pt(4, 4))),
            before: None,
            third: None,
        };
        let mut s = b.clone();
        let f = point_features(&b, &mut s, &ctx, pt(4, 3));
        // One stone, saving nothing, the opponent's last move.
        assert_eq!(f.values[Group::Capture as usize], 1);
        assert_eq!(f.values[Group::LastMove as usize], 0); // d = 2
        assert_eq!(f.values[Group::MoveBefore as usize], NONE);
        assert_eq!(f.values[Group::Line as usize], 3);
        // For White, E4 is the escape, to three liberties.
        let ctx = Context {
            color: Color::White,
            ..ctx
        };
        let f = point_features(&b, &mut s, &ctx, pt(4, 3));
        assert_eq!(f.values[Group::Escape as usize], 0);
        assert_eq!(f.values[Group::Capture as usize], NONE);
        assert!(s == b);
    }
}
