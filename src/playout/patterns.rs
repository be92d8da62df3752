//! MoGo-style 3x3 patterns (Gelly, Wang, Munos, Teytaud 2006, as popularised by michi and
//! Pachi's Moggy): hane, cut, and edge shapes around a candidate move. The shapes are
//! written out below as text, expanded once under the 8 symmetries and the colour swap
//! into a 65,536-bit table indexed by [`Board::pattern3`]. The table does not depend on
//! who is to move: a shape is good for either side.

use std::sync::OnceLock;

use crate::board::{Board, Cell, Point};

/// Rows top to bottom; `X`/`O` stones, `.` empty, ` ` off the board, `x` anything but
/// `X` (`.`, `O` or off board), `o` anything but `O`, `?` anything. The centre is the move.
const SHAPES: [[&str; 3]; 13] = [
    ["XOX", "...", "???"], // hane: enclosing hane
    ["XO.", "...", "?.?"], // hane: non-cutting hane
    ["XO?", "X..", "x.?"], // hane: magari
    [".O.", "X..", "..."], // diagonal attachment
    ["XO?", "O.o", "?o?"], // cut1: unprotected cut
    ["XO?", "O.X", "???"], // cut1: peeped cut
    ["?X?", "O.O", "ooo"], // cut2
    ["OX?", "o.O", "???"], // cut keima
    ["X.?", "O.?", "   "], // edge: chase
    ["OX?", "X.O", "   "], // edge: block side cut
    ["?X?", "x.O", "   "], // edge: block side connection
    ["?XO", "x.x", "   "], // edge: sagari
    ["?OX", "X.O", "   "], // edge: cut
];

/// The pattern table: bit `code` is set when the neighbourhood `code` matches a shape.
#[derive(Debug)]
pub struct Pattern3Table {
    bits: Vec<u64>,
}

impl Pattern3Table {
    /// Whether the 3x3 neighbourhood `code` is one of the shapes.
    #[inline]
    pub fn matches(&self, code: u16) -> bool {
        self.bits[(code >> 6) as usize] >> (code & 63) & 1 != 0
    }

    /// Whether the empty point `p` of `board` has one of the shapes around it.
    #[inline]
    pub fn matches_at(&self, board: &Board, p: Point) -> bool {
        self.matches(board.pattern3(p))
    }

    /// How many neighbourhood codes match (for tests).
    pub fn count(&self) -> usize {
        self.bits.iter().map(|w| w.count_ones() as usize).sum()
    }
}

/// Cell `(r, c)` of a 3x3 grid under symmetry `sym` (0..8: bit 0 mirrors columns, bit 1
/// rows, bit 2 swaps rows and columns).
pub fn symmetric(r: usize, c: usize, sym: u8) -> (usize, usize) {
    let (mut r, mut c) = (r, c);
    if sym & 1 != 0 {
        c = 2 - c;
    }
    if sym & 2 != 0 {
        r = 2 - r;
    }
    if sym & 4 != 0 {
        std::mem::swap(&mut r, &mut c);
    }
    (r, c)
}

/// The table, built on first use (a few milliseconds).
pub fn table() -> &'static Pattern3Table {
    static TABLE: OnceLock<Pattern3Table> = OnceLock::new();
    TABLE.get_or_init(build)
}

/// What a pattern character allows, as cell values.
fn allowed(ch: char) -> &'static [Cell] {
    match ch {
        'X' => &[Cell::Black],
        'O' => &[Cell::White],
        '.' => &[Cell::Empty],
        ' ' => &[Cell::Border],
        'x' => &[Cell::Empty, Cell::White, Cell::Border],
        'o' => &[Cell::Empty, Cell::Black, Cell::Border],
        _ => &[Cell::Empty, Cell::Black, Cell::White, Cell::Border],
    }
}

fn swap_colours(ch: char) -> char {
    match ch {
        'X' => 'O',
        'O' => 'X',
        'x' => 'o',
        'o' => 'x',
        c => c,
    }
}

fn build() -> Pattern3Table {
    let mut bits = vec![0u64; 1024];
    for shape in SHAPES {
        let grid: Vec<Vec<char>> = shape.iter().map(|r| r.chars().collect()).collect();
        for swap in [false, true] {
            for sym in 0..8 {
                // grid[r][c] with r, c in 0..3; apply the symmetry to (r, c).
                let mut g = [[' '; 3]; 3];
                for (r, row) in grid.iter().enumerate() {
                    for (c, &ch) in row.iter().enumerate() {
                        let (rr, cc) = symmetric(r, c, sym);
                        g[rr][cc] = if swap { swap_colours(ch) } else { ch };
                    }
                }
                // Code order: N, S, W, E, NW, NE, SW, SE.
                let cells = [
                    g[0][1], g[2][1], g[1][0], g[1][2], g[0][0], g[0][2], g[2][0], g[2][2],
                ];
                expand(&cells, 0, 0, &mut bits);
            }
        }
    }
    Pattern3Table { bits }
}

fn expand(cells: &[char; 8], i: usize, code: u16, bits: &mut [u64]) {
    if i == 8 {
        if plausible(code) {
            bits[(code >> 6) as usize] |= 1 << (code & 63);
        }
        return;
    }
    for &c in allowed(cells[i]) {
        expand(cells, i + 1, code | (c as u16) << (2 * i), bits);
    }
}

/// Whether a code can occur on a board: off-board cells form whole sides (a diagonal is
/// off board exactly when one of its two orthogonal neighbours is).
fn plausible(code: u16) -> bool {
    let at = |i: usize| (code >> (2 * i)) & 3 == Cell::Border as u16;
    let (n, s, w, e) = (at(0), at(1), at(2), at(3));
    let (nw, ne, sw, se) = (at(4), at(5), at(6), at(7));
    !(n && s || w && e) && nw == (n || w) && ne == (n || e) && sw == (s || w) && se == (s || e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Color;

    #[test]
    fn hane_and_cut_shapes_match_and_empty_board_does_not() {
        let t = table();
        assert!(t.count() > 100);
        let mut b = Board::new(9).unwrap();
        let p = |c, r| Point::from_coord(c, r);
        assert!(!t.matches_at(&b, p(4, 4)));
        // Hane: black E5 (4,4) touching white E6 (4,5)... candidate D6 (3,5)?
        // Shape "XO." / "..." with the centre below O's left: X at D6? Use the cut:
        // X at D5, O at E5 and D4 diagonal... cut1: "XO?" / "O.o": centre E4.
        b.set_stone(Color::Black, p(3, 5)); // X top-left of centre (4,4)
        b.set_stone(Color::White, p(4, 5)); // O top
        b.set_stone(Color::White, p(3, 4)); // O left
        assert!(t.matches_at(&b, p(4, 4)));
        // The same shape mirrored and with colours swapped also matches.
        let mut c = Board::new(9).unwrap();
        c.set_stone(Color::White, p(5, 3));
        c.set_stone(Color::Black, p(4, 3));
        c.set_stone(Color::Black, p(5, 4));
        assert!(t.matches_at(&c, p(4, 4)));
    }
}
