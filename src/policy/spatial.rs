//! Spatial patterns: the stones around a move in diamonds of growing size, hashed so that
//! the 8 symmetries of the board give one key, and seen from the side to move (own stones
//! and the opponent's, so a shape is the same for Black and White). The size measure is
//! CrazyStone's and Pachi's `d = |dx| + |dy| + max(|dx|, |dy|)`: `d <= 3` is the 3x3 square,
//! and each larger `d` adds a ring, up to [`MAX_D`] (120 points).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

use crate::board::{splitmix64, Board, Cell, Color, Point};

/// The smallest pattern size (the 3x3 square).
pub const MIN_D: usize = 3;
/// The largest pattern size.
pub const MAX_D: usize = 13;
/// How many sizes there are.
pub const NUM_SIZES: usize = MAX_D - MIN_D + 1;

/// What a point around the move holds, from the mover's side.
const EMPTY: usize = 0;
const OWN: usize = 1;
const ENEMY: usize = 2;
const OFF: usize = 3;

/// The four sides and four corners of the 3x3 square, in an order the symmetries permute.
const SIDES: [(i32, i32); 4] = [(1, 0), (0, 1), (-1, 0), (0, -1)];
const CORNERS: [(i32, i32); 4] = [(1, 1), (-1, 1), (-1, -1), (1, -1)];

struct Tables {
    /// Offsets sorted by size, then by (dy, dx).
    offsets: Vec<(i32, i32)>,
    /// `ends[k]`: how many offsets have size `<= MIN_D + k`.
    ends: [usize; NUM_SIZES],
    /// `keys[i][state][s]`: the random key of offset `i` holding `state`, seen under
    /// symmetry `s` (the key of the offset `s` maps `i` to). Empty points have key 0, so
    /// the hash walk skips them.
    keys: Vec<[[u64; 8]; 4]>,
    /// Where symmetry `s` takes the four sides and the four corners of the 3x3 square.
    side_perm: [[usize; 4]; 8],
    corner_perm: [[usize; 4]; 8],
    /// One salt per size, so that keys of different sizes differ.
    salt: [u64; NUM_SIZES],
}

fn splitmix(state: &mut u64) -> u64 {
    let (next, out) = splitmix64(*state);
    *state = next;
    out
}

fn size_of(dx: i32, dy: i32) -> usize {
    let (ax, ay) = (dx.unsigned_abs() as usize, dy.unsigned_abs() as usize);
    ax + ay + ax.max(ay)
}

fn symmetry(s: usize, (dx, dy): (i32, i32)) -> (i32, i32) {
    let (x, y) = if s & 4 != 0 { (dy, dx) } else { (dx, dy) };
    let x = if s & 1 != 0 { -x } else { x };
    let y = if s & 2 != 0 { -y } else { y };
    (x, y)
}

fn tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| {
        let r = MAX_D as i32;
        let mut offsets: Vec<(i32, i32)> = Vec::new();
        for dy in -r..=r {
            for dx in -r..=r {
                let d = size_of(dx, dy);
                if (1..=MAX_D).contains(&d) {
                    offsets.push((dx, dy));
                }
            }
        }
        offsets.sort_by_key(|&(dx, dy)| (size_of(dx, dy), dy, dx));
        let mut ends = [0; NUM_SIZES];
        for (k, e) in ends.iter_mut().enumerate() {
            *e = offsets
                .iter()
                .filter(|&&(dx, dy)| size_of(dx, dy) <= MIN_D + k)
                .count();
        }
        let perm: Vec<[usize; 8]> = offsets
            .iter()
            .map(|&o| {
                std::array::from_fn(|s| {
                    let t = symmetry(s, o);
                    offsets.iter().position(|&q| q == t).expect("closed")
                })
            })
            .collect();
        let mut seed = 0x7465_6e67_656e_5041; // "tengenPA"
        let zobrist: Vec<[u64; 4]> = (0..offsets.len())
            .map(|_| std::array::from_fn(|st| if st == EMPTY { 0 } else { splitmix(&mut seed) }))
            .collect();
        let salt = std::array::from_fn(|_| splitmix(&mut seed));
        let keys = (0..offsets.len())
            .map(|i| std::array::from_fn(|st| std::array::from_fn(|s| zobrist[perm[i][s]][st])))
            .collect();
        let perm_of = |set: &[(i32, i32); 4]| -> [[usize; 4]; 8] {
            std::array::from_fn(|s| {
                std::array::from_fn(|i| {
                    let t = symmetry(s, set[i]);
                    set.iter().position(|&o| o == t).expect("closed")
                })
            })
        };
        Tables {
            offsets,
            ends,
            keys,
            side_perm: perm_of(&SIDES),
            corner_perm: perm_of(&CORNERS),
            salt,
        }
    })
}

/// How far the largest pattern reaches from its centre along a line.
const REACH: usize = MAX_D / 2;

/// A board as the patterns see it: each point empty, own, opponent's or off the board
/// (a margin of [`REACH`] points of "off" all round), for one side to move. Built once
/// per position so that the keys of each candidate are a walk without bounds checks.
pub struct Grid {
    width: usize,
    cells: Vec<u8>,
    /// The index of each pattern offset in the window of a centre's patterns: the
    /// square of `2 REACH + 1` grid rows and columns around it.
    window_steps: Vec<u32>,
}

impl Grid {
    /// The grid of `board` for `color` to move.
    pub fn new(board: &Board, color: Color) -> Grid {
        let n = board.size();
        let width = n + 2 * REACH;
        let mut cells = vec![OFF as u8; width * width];
        let own = Cell::from(color);
        for row in 0..n {
            for col in 0..n {
                let state = match board.cell(Point::from_coord(col, row)) {
                    Cell::Empty => EMPTY,
                    c if c == own => OWN,
                    Cell::Border => OFF,
                    _ => ENEMY,
                };
                cells[(row + REACH) * width + col + REACH] = state as u8;
            }
        }
        let window_steps = tables()
            .offsets
            .iter()
            .map(|&(dx, dy)| {
                ((dy + REACH as i32) as usize * width + (dx + REACH as i32) as usize) as u32
            })
            .collect();
        Grid {
            width,
            cells,
            window_steps,
        }
    }

    /// The pattern keys of a move on `p`, one per size from [`MIN_D`] to [`MAX_D`].
    pub fn keys(&self, p: Point) -> [u64; NUM_SIZES] {
        self.keys_while(p, |_| true)
    }

    /// [`Grid::keys`], stopping after the first key `known` refuses (the rest 0). A
    /// pattern is seen at least as often as any larger one around it, so once a size is
    /// unknown to a model harvested by counts no larger size is known either.
    pub fn keys_while(&self, p: Point, known: impl Fn(u64) -> bool) -> [u64; NUM_SIZES] {
        let t = tables();
        let (x, y) = p.coord();
        let centre = (y + REACH) * self.width + x + REACH;
        let mut out = [0u64; NUM_SIZES];
        // The largest diamond reaches REACH rows and columns from the centre, so this
        // window holds every point of every pattern.
        let lo = centre - REACH * self.width - REACH;
        let window = &self.cells[lo..=centre + REACH * self.width + REACH];
        let mut h = [0u64; 8];
        let mut start = 0;
        for (k, (&end, &salt)) in t.ends.iter().zip(&t.salt).enumerate() {
            for (&at, keys) in self.window_steps[start..end]
                .iter()
                .zip(&t.keys[start..end])
            {
                let state = window[at as usize] as usize;
                if state != EMPTY {
                    for (hs, z) in h.iter_mut().zip(&keys[state]) {
                        *hs ^= z;
                    }
                }
            }
            start = end;
            out[k] = h.iter().min().copied().unwrap_or(0) ^ salt;
            if !known(out[k]) {
                break;
            }
        }
        out
    }
}

/// The pattern keys of `color` playing on `p`, one per size from [`MIN_D`] to [`MAX_D`]
/// (see [`Grid`] for many moves of one position).
pub fn keys(board: &Board, color: Color, p: Point) -> [u64; NUM_SIZES] {
    Grid::new(board, color).keys(p)
}

/// The 3x3 neighbourhood of `color` playing on `p` with the liberties of the stones
/// beside it: each side point empty, off the board, or an own or opponent stone whose
/// chain has 1, 2 or 3+ liberties; each corner point empty, own, opponent or off. The
/// smallest code over the 8 symmetries, plus one so that no shape is 0.
pub fn shape_key(board: &Board, color: Color, p: Point) -> u64 {
    let size = board.size() as i32;
    let (x, y) = p.coord();
    let (x, y) = (x as i32, y as i32);
    let own = Cell::from(color);
    let state = |dx: i32, dy: i32, side: bool| -> u64 {
        let (cx, cy) = (x + dx, y + dy);
        if cx < 0 || cy < 0 || cx >= size || cy >= size {
            return 7;
        }
        let q = Point::from_coord(cx as usize, cy as usize);
        let c = board.cell(q);
        if c == Cell::Empty {
            return 0;
        }
        let base = if c == own { 1 } else { 4 };
        if !side {
            return base;
        }
        base + (board.liberties_upto(q, 3) as u64).clamp(1, 3) - 1
    };
    let t = tables();
    let sides: [u64; 4] = std::array::from_fn(|i| state(SIDES[i].0, SIDES[i].1, true));
    let corners: [u64; 4] = std::array::from_fn(|i| state(CORNERS[i].0, CORNERS[i].1, false));
    let mut best = u64::MAX;
    for s in 0..8 {
        let mut code = 0u64;
        for i in 0..4 {
            code |= sides[i] << (3 * t.side_perm[s][i]);
            code |= corners[i] << (12 + 3 * t.corner_perm[s][i]);
        }
        best = best.min(code);
    }
    best + 1
}

/// How many points a pattern of each size covers (for the docs and tests).
pub fn points_per_size() -> [usize; NUM_SIZES] {
    tables().ends
}

/// A hasher for keys that are already hashes (spatial keys) or small codes (shapes):
/// one multiply, no SipHash (lookups are most of the model's cost in the tree).
#[derive(Default, Clone, Copy)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn write_u64(&mut self, k: u64) {
        self.0 = (k ^ (k >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    }
}

/// Key -> strength.
pub type KeyMap = HashMap<u64, f32, BuildHasherDefault<KeyHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    fn board_from(rows: &[&str]) -> Board {
        Board::from_rows(rows).expect("a square diagram")
    }

    #[test]
    fn sizes_grow_by_rings() {
        assert_eq!(
            points_per_size(),
            [8, 12, 20, 28, 36, 48, 60, 72, 88, 104, 120]
        );
    }

    #[test]
    fn symmetric_and_colour_relative() {
        // The same shape turned a quarter and mirrored, and with colours swapped.
        let a = board_from(&[
            ".......", "..X....", "..X....", "...O...", ".......", ".......", ".......",
        ]);
        let b = board_from(&[
            ".......", "....X..", "....X..", "...O...", ".......", ".......", ".......",
        ]);
        let c = board_from(&[
            ".......", "..O....", "..O....", "...X...", ".......", ".......", ".......",
        ]);
        let p = a.point(3, 4).unwrap(); // above the centre stone
        let q = a.point(2, 3).unwrap(); // left of it
        assert_eq!(keys(&a, Color::Black, p), keys(&b, Color::Black, p));
        assert_eq!(keys(&a, Color::Black, p), keys(&c, Color::White, p));
        assert_ne!(keys(&a, Color::Black, p), keys(&a, Color::White, p));
        // Moves at different places see different shapes (at least at some size).
        assert_ne!(keys(&a, Color::Black, p), keys(&a, Color::Black, q));
    }
}
