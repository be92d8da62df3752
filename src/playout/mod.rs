//! Playouts: a policy picks moves until two passes in a row, then the board is counted.
//! Policies sit behind a small trait: [`Light`] (uniform) and [`Moggy`] (captures, atari
//! escapes with a ladder read, 3x3 patterns around the last move, no big self-ataris).
//! No I/O here.

mod moggy;
pub mod patterns;

pub(crate) use moggy::escapes;
pub use moggy::{Moggy, MoggyConfig};

use rand::{rngs::SmallRng, RngCore, SeedableRng};

use crate::board::{Board, Cell, Color, Point, PointSampler};

/// The random source of playouts: a seeded small RNG with multiply-shift range reduction
/// (uniform to within n/2^32, i.e. better than one part in 6 million on 25x25).
#[derive(Clone, Debug)]
pub struct PlayoutRng(SmallRng);

impl PlayoutRng {
    pub fn seed_from_u64(seed: u64) -> PlayoutRng {
        PlayoutRng(SmallRng::seed_from_u64(seed))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in [0, 1).
    #[inline]
    pub fn unit(&mut self) -> f32 {
        (self.0.next_u32() >> 8) as f32 * (1.0 / 16_777_216.0)
    }

    /// True with probability `rate` (in [0, 1]).
    #[inline]
    pub fn chance(&mut self, rate: f32) -> bool {
        rate >= 1.0 || (self.0.next_u32() >> 8) as f32 * (1.0 / 16_777_216.0) < rate
    }
}

impl PointSampler for PlayoutRng {
    #[inline]
    fn below(&mut self, n: usize) -> usize {
        ((self.0.next_u32() as u64 * n as u64) >> 32) as usize
    }
}

/// Chooses the next playout move for `color`, or `None` to pass. `last` is the
/// opponent's move just played (`None` after a pass or at the start).
pub trait PlayoutPolicy {
    fn choose(
        &mut self,
        board: &mut Board,
        color: Color,
        last: Option<Point>,
        rng: &mut PlayoutRng,
    ) -> Option<Point>;
}

/// Light playouts: every legal move equally likely, except filling one's own single-point
/// eye.
#[derive(Clone, Copy, Debug, Default)]
pub struct Light;

impl PlayoutPolicy for Light {
    #[inline]
    fn choose(
        &mut self,
        board: &mut Board,
        color: Color,
        _last: Option<Point>,
        rng: &mut PlayoutRng,
    ) -> Option<Point> {
        board.random_move(color, rng)
    }
}

/// What a finished playout gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayoutResult {
    /// Moves played, passes included.
    pub moves: usize,
    /// Black area minus White area at the end (no komi).
    pub score: i32,
}

/// Plays from `board` (modified in place) with `to_move` first until two passes in a row
/// or `3 * size * size` moves, then counts.
pub fn playout<P: PlayoutPolicy>(
    board: &mut Board,
    to_move: Color,
    policy: &mut P,
    rng: &mut PlayoutRng,
) -> PlayoutResult {
    playout_from(board, to_move, None, policy, rng, None)
}

/// [`playout`] continuing a game whose last move was `last`; when `amaf` is given, each
/// point's first player in the playout is recorded there (1 Black, 2 White) unless the
/// entry is already set (by the tree part of the simulation).
pub fn playout_from<P: PlayoutPolicy>(
    board: &mut Board,
    mut to_move: Color,
    mut last: Option<Point>,
    policy: &mut P,
    rng: &mut PlayoutRng,
    mut amaf: Option<&mut [u8]>,
) -> PlayoutResult {
    let limit = 3 * board.size() * board.size();
    let mut passes = 0;
    let mut moves = 0;
    while passes < 2 && moves < limit {
        match policy.choose(board, to_move, last, rng) {
            Some(p) => {
                board.place(to_move, p);
                if let Some(a) = amaf.as_deref_mut() {
                    mark_first(a, p, to_move);
                }
                passes = 0;
                last = Some(p);
            }
            None => {
                board.pass();
                passes += 1;
                last = None;
            }
        }
        moves += 1;
        to_move = to_move.opponent();
    }
    PlayoutResult {
        moves,
        score: end_score(board),
    }
}

/// Records in an AMAF map that `color` played on `p`, unless someone played there first
/// (1 Black, 2 White, 0 nobody yet).
#[inline]
pub fn mark_first(amaf: &mut [u8], p: Point, color: Color) {
    let a = &mut amaf[p.index()];
    if *a == 0 {
        *a = 1 + color.index() as u8;
    }
}

/// Area count at the end of a playout, where the empty points are (nearly all) eyes: an
/// empty point counts for a colour when its neighbours hold that colour only. Exact when
/// every empty region touches one colour; cheap (no flood fill).
#[inline]
pub fn end_score(board: &Board) -> i32 {
    let stones = board.stone_count(Color::Black) as i32 - board.stone_count(Color::White) as i32;
    stones
        + board
            .empty_points()
            .map(|p| end_owner(board, p))
            .sum::<i32>()
}

/// Who owns point `p` at the end of a playout, the way [`end_score`] counts it: +1 Black,
/// -1 White, 0 neither (an empty point counts for the colour that alone touches it).
#[inline]
pub fn end_owner(board: &Board, p: Point) -> i32 {
    match board.get(p) {
        Some(Color::Black) => 1,
        Some(Color::White) => -1,
        None => {
            let b = board.neighbor_count(p, Cell::Black);
            let w = board.neighbor_count(p, Cell::White);
            (b > 0 && w == 0) as i32 - (w > 0 && b == 0) as i32
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn playouts_end_and_count_the_whole_board() {
        let mut rng = PlayoutRng::seed_from_u64(3);
        for size in [2, 3, 5, 9, 13, 19] {
            for _ in 0..20 {
                let mut b = Board::new(size).unwrap();
                let r = playout(&mut b, Color::Black, &mut Light, &mut rng);
                assert!(r.moves > 0);
                b.check_consistency().unwrap();
                assert!(r.score.unsigned_abs() as usize <= size * size);
                // At the end no legal non-eye move remains for either side, unless the
                // move limit stopped it.
                if r.moves < 3 * size * size {
                    assert_eq!(r.score, crate::score::area_difference(&b), "{b:?}");
                }
            }
        }
    }

    #[test]
    fn same_seed_same_playout() {
        let run = |seed| {
            let mut rng = PlayoutRng::seed_from_u64(seed);
            let mut b = Board::new(9).unwrap();
            let r = playout(&mut b, Color::Black, &mut Light, &mut rng);
            (r, b.hash())
        };
        assert_eq!(run(11), run(11));
    }
}
