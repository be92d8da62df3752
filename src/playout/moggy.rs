//! A playout policy with Go knowledge, in the spirit of MoGo and Pachi's Moggy: answer the
//! last move locally (capture what it left in atari, save one's own chain it put in atari
//! unless a ladder read says the escape fails, play a 3x3 shape next to it), otherwise a
//! random move that is not a self-atari of several stones and never fills one's own eye.
//! Each heuristic has a rate (the probability it is tried) so its worth can be measured.

use smallvec::SmallVec;

use super::patterns::{self, Pattern3Table};
use super::{PlayoutPolicy, PlayoutRng};
use crate::board::{Board, Cell, Color, Point, PointSampler};

/// The switches and rates of [`Moggy`]; a rate of 0 turns a heuristic off.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoggyConfig {
    /// Capture an enemy chain next to (or being) the last move that is in atari.
    pub capture_rate: f32,
    /// Save an own chain next to the last move that it put in atari.
    pub atari_escape_rate: f32,
    /// Read ladders before escaping (an escape into a ladder is refused).
    pub ladder_check: bool,
    /// Play a 3x3 shape among the last move's eight neighbours.
    pub pattern_rate: f32,
    /// Refuse random moves that put `self_atari_stones` or more own stones in atari.
    pub self_atari_rate: f32,
    pub self_atari_stones: usize,
    /// When only self-ataris are left, never fill a seki's shared liberty (a self-atari
    /// the opponent answers by capturing, see [`Board::breaks_seki`]): pass instead.
    pub seki_check: bool,
}

impl Default for MoggyConfig {
    fn default() -> MoggyConfig {
        MoggyConfig {
            capture_rate: 0.9,
            atari_escape_rate: 0.9,
            ladder_check: true,
            pattern_rate: 0.9,
            self_atari_rate: 0.95,
            self_atari_stones: 2,
            seki_check: true,
        }
    }
}

/// The knowledge playout policy.
#[derive(Clone, Debug)]
pub struct Moggy {
    pub config: MoggyConfig,
    table: &'static Pattern3Table,
}

impl Default for Moggy {
    fn default() -> Moggy {
        Moggy::new(MoggyConfig::default())
    }
}

pub(crate) type Candidates = SmallVec<[Point; 16]>;

impl Moggy {
    pub fn new(config: MoggyConfig) -> Moggy {
        Moggy {
            config,
            table: patterns::table(),
        }
    }

    /// Captures and escapes answering `last` for `color`.
    fn tactical(
        &self,
        board: &mut Board,
        color: Color,
        last: Point,
        rng: &mut PlayoutRng,
    ) -> Candidates {
        let mut out = Candidates::new();
        let enemy = Cell::from(color.opponent());
        let own = Cell::from(color);
        let capture = rng.chance(self.config.capture_rate);
        let escape = rng.chance(self.config.atari_escape_rate);
        // The last move's own chain in atari: capture it.
        if capture && board.cell(last) == enemy {
            if let Some(l) = board.atari_liberty(last) {
                if board.is_legal(color, l) {
                    out.push(l);
                }
            }
        }
        for n in last.neighbors() {
            let c = board.cell(n);
            if capture && c == enemy {
                if let Some(l) = board.atari_liberty(n) {
                    if board.is_legal(color, l) && !out.contains(&l) {
                        out.push(l);
                    }
                }
            } else if escape && c == own {
                if let Some(l) = board.atari_liberty(n) {
                    escapes(board, color, n, l, self.config.ladder_check, &mut out);
                }
            }
        }
        out
    }

    /// Empty neighbours of `last` (orthogonal and diagonal) where a 3x3 shape matches.
    fn pattern_moves(&self, board: &Board, color: Color, last: Point) -> Candidates {
        let mut out = Candidates::new();
        let around = last.neighbors().into_iter().chain(last.diagonals());
        for p in around {
            if board.cell(p) == Cell::Empty
                && self.table.matches_at(board, p)
                && board.is_legal(color, p)
                && !board.is_eye(color, p)
                && board.self_atari(color, p).is_none()
            {
                out.push(p);
            }
        }
        out
    }
}

/// Ways to save the own chain through `chain` (in atari on `lib`): capture an enemy
/// chain next to it that is in atari, or extend when that gives two liberties (that a
/// ladder does not take, when `ladder_check`), or more. Added to `out` once each.
pub(crate) fn escapes(
    board: &mut Board,
    color: Color,
    chain: Point,
    lib: Point,
    ladder_check: bool,
    out: &mut Candidates,
) {
    let enemy = Cell::from(color.opponent());
    let mut s = chain;
    let mut steps = 0;
    loop {
        for n in s.neighbors() {
            if board.cell(n) == enemy {
                if let Some(l) = board.atari_liberty(n) {
                    if board.is_legal(color, l) && !out.contains(&l) {
                        out.push(l);
                    }
                }
            }
        }
        steps += 1;
        s = board.next_in_chain(s);
        if s == chain || steps > 64 {
            break;
        }
    }
    if !board.is_legal(color, lib) || out.contains(&lib) {
        return;
    }
    let libs = board.liberties_after(color, lib, 3);
    if libs >= 3 || (libs == 2 && (!ladder_check || !board.escape_is_ladder(color, chain, lib))) {
        out.push(lib);
    }
}

impl PlayoutPolicy for Moggy {
    fn choose(
        &mut self,
        board: &mut Board,
        color: Color,
        last: Option<Point>,
        rng: &mut PlayoutRng,
    ) -> Option<Point> {
        if let Some(last) = last {
            let t = self.tactical(board, color, last, rng);
            if !t.is_empty() {
                return Some(t[rng.below(t.len())]);
            }
            if rng.chance(self.config.pattern_rate) {
                let p = self.pattern_moves(board, color, last);
                if !p.is_empty() {
                    return Some(p[rng.below(p.len())]);
                }
            }
        }
        let (rate, stones) = (self.config.self_atari_rate, self.config.self_atari_stones);
        let check = rng.chance(rate);
        let mv = board.random_move_where(color, rng, |b, p| {
            !check || b.self_atari(color, p).is_none_or(|n| n < stones)
        });
        // Only self-ataris are left: rather play one than pass with moves on the board
        // (a throw-in may kill), but not one that fills a seki's shared liberty: that
        // forced move made every seki a race to pass first.
        let seki = self.config.seki_check;
        mv.or_else(|| board.random_move_where(color, rng, |b, p| !seki || !b.breaks_seki(color, p)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::playout::{end_score, playout_from};

    #[test]
    fn captures_the_last_move_in_atari() {
        let mut b = Board::new(9).unwrap();
        let p = |c, r| Point::from_coord(c, r);
        // White E5 surrounded on three sides by black; black to move captures at the
        // fourth, the only atari answer.
        b.set_stone(Color::Black, p(3, 4));
        b.set_stone(Color::Black, p(5, 4));
        b.set_stone(Color::Black, p(4, 3));
        b.set_stone(Color::White, p(4, 4));
        let mut m = Moggy::new(MoggyConfig {
            capture_rate: 1.0,
            ..MoggyConfig::default()
        });
        let mut rng = PlayoutRng::seed_from_u64(1);
        for _ in 0..20 {
            assert_eq!(
                m.choose(&mut b, Color::Black, Some(p(4, 4)), &mut rng),
                Some(p(4, 5))
            );
        }
    }

    #[test]
    fn moggy_playouts_finish_and_stay_consistent() {
        let mut rng = PlayoutRng::seed_from_u64(5);
        let mut m = Moggy::default();
        for size in [5, 9, 13, 19] {
            for _ in 0..10 {
                let mut b = Board::new(size).unwrap();
                let r = playout_from(&mut b, Color::Black, None, &mut m, &mut rng, None);
                b.check_consistency().unwrap();
                assert!(r.moves > 0);
                assert_eq!(r.score, end_score(&b));
            }
        }
    }
}
