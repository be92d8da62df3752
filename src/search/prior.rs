//! What the tree knows of Go before it searches a move: priors as equivalent experience
//! (Pachi's and michi's idea). Every candidate starts with `even` visits at a 50% win
//! rate; captures, atari escapes, 3x3 shapes and moves near the last move add virtual
//! wins; self-ataris and lonely first- and second-line moves add virtual losses.
//!
//! With `learned` above 0, the learned move model ([`crate::policy`]) replaces those
//! hand-written rules: a move of probability `p`, the best move's `p_max`, gets
//! `learned` more visits worth `(p / p_max) ^ learned_power` of a win each, so the
//! model's favourites start ahead and its unlikely moves start as losses (a soft
//! progressive widening).

use crate::board::{Board, Cell, Color, Move, Point};
use crate::playout::patterns;
use crate::policy::features::Context;
use crate::policy::model;

use super::tree::NewChild;

/// Weights of the priors, in equivalent visits (all wins or all losses but `even`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PriorConfig {
    pub even: u32,
    pub capture_one: u32,
    pub capture_many: u32,
    pub atari_escape: u32,
    pub pattern: u32,
    /// Wins for moves at Chebyshev distance 1, 2, 3 of the last move.
    pub near_last: [u32; 3],
    /// Losses for a self-atari of one stone, and of more.
    pub self_atari_one: u32,
    pub self_atari_many: u32,
    /// Losses for first- and second-line moves with nothing around, wins on the third.
    pub empty_area: u32,
    /// Losses for a pass while the board still has room.
    pub pass: u32,
    /// Equivalent visits given by the learned model (0: the hand-written rules instead;
    /// they are also the fallback if the built-in weights are missing).
    pub learned: u32,
    /// How sharply the learned prior falls off with the probability ratio.
    pub learned_power: f64,
    /// Wins added on top of the learned prior to a move that captures, or saves from
    /// atari, a chain of 3 stones or more: this many per 3 stones, up to 4 times it.
    /// The records underrate such moves: strong players leave dead chains in atari for
    /// later, so "a capture of 6 stones" there is often a move that gains little. Hence
    /// only urgent captures count: of chains whose owner could otherwise save them
    /// ([`urgent_captured_stones`]).
    pub big_tactics: u32,
}

impl Default for PriorConfig {
    fn default() -> PriorConfig {
        PriorConfig {
            even: 10,
            capture_one: 15,
            capture_many: 30,
            atari_escape: 20,
            pattern: 10,
            near_last: [24, 22, 8],
            self_atari_one: 10,
            self_atari_many: 30,
            empty_area: 10,
            pass: 20,
            learned: 40,
            learned_power: 0.5,
            big_tactics: 20,
        }
    }
}

/// The candidate moves of `color` on `board` with their priors: every legal point that
/// is not its own single-point eye, and the pass. `history` holds the last three moves,
/// latest first.
pub fn children(
    board: &Board,
    color: Color,
    history: &[Option<Move>; 3],
    cfg: &PriorConfig,
    keep: &dyn Fn(Move) -> bool,
) -> Vec<NewChild> {
    if cfg.learned > 0 {
        if let Some(m) = model::builtin() {
            return learned_children(m, board, color, history, cfg, keep);
        }
    }
    let last = match history[0] {
        Some(Move::Place(p)) => Some(p),
        _ => None,
    };
    let table = patterns::table();
    let mut out = Vec::with_capacity(board.num_empty() + 1);
    let size = board.size();
    let mut empties: Vec<Point> = board.empty_points().collect();
    // A stable order (the empty list is shuffled by playouts): ties in selection then
    // break the same way whatever the history.
    empties.sort_unstable();
    for p in empties {
        if !board.is_legal(color, p) || board.is_eye(color, p) || !keep(Move::Place(p)) {
            continue;
        }
        let (mut visits, mut wins) = (cfg.even, cfg.even); // wins in half points
        let mut add = |n: u32, won: bool| {
            visits += n;
            if won {
                wins += 2 * n;
            }
        };
        // Captures.
        let captured = captured_stones(board, color, p);
        if captured == 1 {
            add(cfg.capture_one, true);
        } else if captured > 1 {
            add(cfg.capture_many, true);
        }
        // Atari escapes: an own chain in atari on p that gets out.
        let own = Cell::from(color);
        let saves = p
            .neighbors()
            .iter()
            .any(|&n| board.cell(n) == own && board.atari_liberty(n) == Some(p));
        if saves && board.liberties_after(color, p, 3) >= 3 {
            add(cfg.atari_escape, true);
        }
        match board.self_atari(color, p) {
            Some(1) => add(cfg.self_atari_one, false),
            Some(_) => add(cfg.self_atari_many, false),
            None => {}
        }
        if table.matches_at(board, p) {
            add(cfg.pattern, true);
        }
        if let Some(l) = last {
            let (x, y) = p.coord();
            let (lx, ly) = l.coord();
            let d = x.abs_diff(lx).max(y.abs_diff(ly));
            if (1..=3).contains(&d) {
                add(cfg.near_last[d - 1], true);
            }
        }
        let (x, y) = p.coord();
        let line = x.min(y).min(size - 1 - x).min(size - 1 - y);
        if line <= 2 && size >= 9 && empty_around(board, p, 3) {
            add(cfg.empty_area, line == 2);
        }
        out.push(NewChild {
            mv: Move::Place(p),
            prior_visits: visits,
            prior_wins: wins,
            policy: 0.0,
        });
    }
    if keep(Move::Pass) {
        out.push(pass_child(board, cfg));
    }
    out
}

/// The pass: bad while there is room; near the end the terminal count decides.
fn pass_child(board: &Board, cfg: &PriorConfig) -> NewChild {
    let size = board.size();
    let stones = board.stone_count(Color::Black) + board.stone_count(Color::White);
    let room = board.num_empty() > size * size / 2 || stones < size * size / 2;
    let n = if room { cfg.pass } else { 0 };
    NewChild {
        mv: Move::Pass,
        prior_visits: cfg.even + n,
        prior_wins: cfg.even,
        policy: 0.0,
    }
}

/// [`children`] with the learned model's priors.
fn learned_children(
    m: &model::Model,
    board: &Board,
    color: Color,
    history: &[Option<Move>; 3],
    cfg: &PriorConfig,
    keep: &dyn Fn(Move) -> bool,
) -> Vec<NewChild> {
    let ctx = Context {
        color,
        last: history[0],
        before: history[1],
        third: history[2],
    };
    let filter = |mv: Move| match mv {
        Move::Place(p) => !board.is_eye(color, p) && keep(mv),
        Move::Pass => keep(mv),
    };
    let probs = m.probabilities(board, &ctx, &filter);
    let best = probs
        .iter()
        .filter(|(mv, _)| *mv != Move::Pass)
        .map(|&(_, p)| p)
        .fold(0.0f64, f64::max);
    probs
        .into_iter()
        .map(|(mv, p)| {
            if mv == Move::Pass {
                return pass_child(board, cfg);
            }
            let r = if best > 0.0 { p / best } else { 1.0 };
            let value = r.powf(cfg.learned_power);
            let big = match mv {
                Move::Place(p) if cfg.big_tactics > 0 => {
                    let stones =
                        urgent_captured_stones(board, color, p).max(saved_stones(board, color, p));
                    cfg.big_tactics * (stones as u32 / 3).min(4)
                }
                _ => 0,
            };
            NewChild {
                mv,
                prior_visits: cfg.even + cfg.learned + big,
                prior_wins: cfg.even + 2 * big + (2.0 * cfg.learned as f64 * value).round() as u32,
                policy: 0.0,
            }
        })
        .collect()
}

/// The enemy chains `color` would capture by playing on `p`, one stone of each.
fn captured_chains(board: &Board, color: Color, p: Point) -> smallvec::SmallVec<[Point; 4]> {
    let enemy = Cell::from(color.opponent());
    let mut heads: smallvec::SmallVec<[Point; 4]> = smallvec::SmallVec::new();
    for q in p.neighbors() {
        if board.cell(q) == enemy && board.atari_liberty(q) == Some(p) {
            let h = board.chain_id(q).expect("a stone");
            if !heads.contains(&h) {
                heads.push(h);
            }
        }
    }
    heads
}

/// Stones `color` would capture by playing on `p`.
fn captured_stones(board: &Board, color: Color, p: Point) -> usize {
    captured_chains(board, color, p)
        .iter()
        .map(|&h| board.chain_len(h))
        .sum()
}

/// Stones `color` would capture by playing on `p` in chains their owner could otherwise
/// save: by extending on `p` to three liberties or more, or by capturing a chain of ours
/// in atari next to them. A chain that cannot get out can be taken later; taking one
/// that could is urgent.
fn urgent_captured_stones(board: &Board, color: Color, p: Point) -> usize {
    let chains = captured_chains(board, color, p);
    if chains.is_empty() {
        return 0;
    }
    let own = Cell::from(color);
    let escapes = board.liberties_after(color.opponent(), p, 3) >= 3;
    let mut n = 0;
    for h in chains {
        let stones = board.chain(h);
        let counter = || {
            stones.iter().any(|s| {
                s.neighbors()
                    .iter()
                    .any(|&r| board.cell(r) == own && board.in_atari(r))
            })
        };
        if escapes || counter() {
            n += stones.len();
        }
    }
    n
}

/// Own stones in atari that `color` saves by playing on `p`: the chains in atari on `p`
/// when the move leaves them three liberties or more, or the chains in atari next to the
/// enemy chains that `p` captures.
fn saved_stones(board: &Board, color: Color, p: Point) -> usize {
    let own = Cell::from(color);
    let enemy = Cell::from(color.opponent());
    let mut heads: smallvec::SmallVec<[Point; 4]> = smallvec::SmallVec::new();
    let mut n = 0;
    let mut count = |board: &Board, q: Point, n: &mut usize| {
        let h = board.chain_id(q).expect("a stone");
        if !heads.contains(&h) {
            heads.push(h);
            *n += board.chain_len(q);
        }
    };
    let extends = p
        .neighbors()
        .iter()
        .any(|&q| board.cell(q) == own && board.atari_liberty(q) == Some(p));
    if extends && board.liberties_after(color, p, 3) >= 3 {
        for q in p.neighbors() {
            if board.cell(q) == own && board.atari_liberty(q) == Some(p) {
                count(board, q, &mut n);
            }
        }
    }
    for q in p.neighbors() {
        if board.cell(q) != enemy || board.atari_liberty(q) != Some(p) {
            continue;
        }
        // The captured chain's own neighbours in atari are saved.
        for s in board.chain(q) {
            for r in s.neighbors() {
                if board.cell(r) == own && board.in_atari(r) {
                    count(board, r, &mut n);
                }
            }
        }
    }
    n
}

/// Whether every point within Manhattan distance `d` of `p` is empty or off the board.
fn empty_around(board: &Board, p: Point, d: i32) -> bool {
    let (x, y) = p.coord();
    let s = board.size() as i32;
    for dy in -d..=d {
        for dx in -(d - dy.abs())..=(d - dy.abs()) {
            let (cx, cy) = (x as i32 + dx, y as i32 + dy);
            if (0..s).contains(&cx) && (0..s).contains(&cy) {
                let q = Point::from_coord(cx as usize, cy as usize);
                if board.get(q).is_some() {
                    return false;
                }
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prior_of(children: &[NewChild], mv: Move) -> (u32, u32) {
        let c = children.iter().find(|c| c.mv == mv).expect("a candidate");
        (c.prior_visits, c.prior_wins)
    }

    #[test]
    fn urgent_big_captures_get_extra_wins() {
        // White's six stones B3-G3 are in atari on H3, where White could extend to three
        // liberties: Black H3 is an urgent capture of six. White's A9-B9 is in atari on
        // C9: Black C9 captures only two, too few for the bonus.
        let b = Board::from_rows(&[
            "OO.......",
            "XX.......",
            ".........",
            ".........",
            ".........",
            ".XXXXXX..",
            "XOOOOOO..",
            ".XXXXXX..",
            ".........",
        ])
        .unwrap();
        let p = |c, r| Point::from_coord(c, r);
        assert_eq!(b.atari_liberty(p(1, 2)), Some(p(7, 2)));
        let history = [None, None, None];
        let keep = |_: Move| true;
        let on = PriorConfig::default();
        assert!(on.big_tactics > 0, "on by default");
        let off = PriorConfig {
            big_tactics: 0,
            ..on
        };
        let with = children(&b, Color::Black, &history, &on, &keep);
        let without = children(&b, Color::Black, &history, &off, &keep);
        let (v1, w1) = prior_of(&with, Move::Place(p(7, 2)));
        let (v0, w0) = prior_of(&without, Move::Place(p(7, 2)));
        assert_eq!((v1 - v0, w1 - w0), (2 * on.big_tactics, 4 * on.big_tactics));
        // Two stones are too few; any other move is unchanged.
        assert_eq!(b.atari_liberty(p(0, 8)), Some(p(2, 8)));
        assert_eq!(
            prior_of(&with, Move::Place(p(2, 8))),
            prior_of(&without, Move::Place(p(2, 8)))
        );
        assert_eq!(
            prior_of(&with, Move::Place(p(4, 0))),
            prior_of(&without, Move::Place(p(4, 0)))
        );
    }

    #[test]
    fn chains_that_cannot_escape_are_no_urgent_capture() {
        // White's six stones C3-H3 are in atari on J3, but White J3 would have only two
        // liberties (J2, J4) and no black chain next to them is in atari: they are dead
        // where they stand, and taking them now earns no bonus; nor does White's J3,
        // which does not save them.
        let rows = |b3: &str, b4: &str| {
            Board::from_rows(&[
                ".........",
                ".........",
                ".........",
                ".........",
                ".........",
                b4,
                b3,
                "..XXXXXX.",
                ".........",
            ])
            .unwrap()
        };
        let p = |c, r| Point::from_coord(c, r);
        let j3 = Move::Place(p(8, 2));
        let history = [None, None, None];
        let keep = |_: Move| true;
        let on = PriorConfig::default();
        let off = PriorConfig {
            big_tactics: 0,
            ..on
        };
        let bonus = |b: &Board, color| {
            let (v1, w1) = prior_of(&children(b, color, &history, &on, &keep), j3);
            let (v0, w0) = prior_of(&children(b, color, &history, &off, &keep), j3);
            (v1 - v0, w1 - w0)
        };
        let dead = rows(".XOOOOOO.", "..XXXXXX.");
        assert_eq!(dead.atari_liberty(p(2, 2)), Some(p(8, 2)));
        assert_eq!(bonus(&dead, Color::Black), (0, 0));
        assert_eq!(bonus(&dead, Color::White), (0, 0));
        // With Black's B3 in atari (White A3, B4), White could capture it and get out:
        // now taking the six is urgent.
        let alive = rows("OXOOOOOO.", ".OXXXXXX.");
        assert_eq!(alive.atari_liberty(p(2, 2)), Some(p(8, 2)));
        assert_eq!(alive.atari_liberty(p(1, 2)), Some(p(1, 1)));
        assert_eq!(
            bonus(&alive, Color::Black),
            (2 * on.big_tactics, 4 * on.big_tactics)
        );
    }
}
