//! What the tree knows of Go before it searches a move: priors as equivalent experience
//! (Pachi's and michi's idea). Every candidate starts with `even` visits at a 50% win
//! rate; captures, atari escapes, 3x3 shapes and moves near the last move add virtual
//! wins; self-ataris and lonely first- and second-line moves add virtual losses.

use crate::board::{Board, Cell, Color, Move, Point};
use crate::playout::patterns;

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
        }
    }
}

/// The candidate moves of `color` on `board` with their priors: every legal point that
/// is not its own single-point eye, and the pass. `last` is the opponent's last move.
pub fn children(
    board: &Board,
    color: Color,
    last: Option<Point>,
    cfg: &PriorConfig,
    keep: &dyn Fn(Move) -> bool,
) -> Vec<NewChild> {
    let table = patterns::table();
    let mut out = Vec::with_capacity(board.num_empty() + 1);
    let size = board.size();
    let mut empties: Vec<Point> = board.empty_points().collect();
    // A stable order (the empty list is shuffled by playouts): ties in selection then
    // break the same way whatever the history.
    empties.sort_unstable();
    let stones = board.stone_count(Color::Black) + board.stone_count(Color::White);
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
        });
    }
    if keep(Move::Pass) {
        // Passing is bad while there is room; near the end the terminal count decides.
        let room = board.num_empty() > size * size / 2 || stones < size * size / 2;
        let n = if room { cfg.pass } else { 0 };
        out.push(NewChild {
            mv: Move::Pass,
            prior_visits: cfg.even + n,
            prior_wins: cfg.even,
        });
    }
    out
}

/// Stones `color` would capture by playing on `p`.
fn captured_stones(board: &Board, color: Color, p: Point) -> usize {
    let enemy = Cell::from(color.opponent());
    let mut heads: smallvec::SmallVec<[Point; 4]> = smallvec::SmallVec::new();
    let mut n = 0;
    for q in p.neighbors() {
        if board.cell(q) == enemy && board.atari_liberty(q) == Some(p) {
            let h = board.chain_id(q).expect("a stone");
            if !heads.contains(&h) {
                heads.push(h);
                n += board.chain_len(q);
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
