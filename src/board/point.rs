//! Points of the padded 1-D board, coordinates and moves. Knows nothing of text forms
//! (the GTP vertex `D4` lives in `gtp/`).

/// Largest board side supported (the GTP maximum).
pub const MAX_SIZE: usize = 25;
/// Row stride of the padded board: one shared border column between rows.
pub const STRIDE: usize = MAX_SIZE + 1;
/// Number of cells in the padded array (border row above and below).
pub const NUM_CELLS: usize = STRIDE * (MAX_SIZE + 2) + 1;

/// A cell index of the padded board. The same index means the same (col, row) on every
/// board size, so points can be compared across sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point(pub u16);

impl Point {
    /// The point at 0-based `col` (A = 0, left to right) and `row` (0 = the bottom row,
    /// GTP's `1`). Does not check the board size: see [`crate::Board::point`].
    #[inline]
    pub const fn from_coord(col: usize, row: usize) -> Point {
        Point(((row + 1) * STRIDE + col + 1) as u16)
    }

    /// (col, row), both 0-based, row 0 at the bottom.
    #[inline]
    pub const fn coord(self) -> (usize, usize) {
        let i = self.0 as usize;
        (i % STRIDE - 1, i / STRIDE - 1)
    }

    /// The padded index, for per-point arrays.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The four orthogonal neighbours (some may be border cells).
    #[inline]
    pub const fn neighbors(self) -> [Point; 4] {
        let i = self.0;
        [
            Point(i - STRIDE as u16),
            Point(i - 1),
            Point(i + 1),
            Point(i + STRIDE as u16),
        ]
    }

    /// The four diagonal neighbours (some may be border cells or outside the array's
    /// board part, but always inside the array).
    #[inline]
    pub const fn diagonals(self) -> [Point; 4] {
        let i = self.0;
        [
            Point(i - STRIDE as u16 - 1),
            Point(i - STRIDE as u16 + 1),
            Point(i + STRIDE as u16 - 1),
            Point(i + STRIDE as u16 + 1),
        ]
    }
}

/// A move on the board: a stone on a point, or a pass. Resignation is not a board move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    Place(Point),
    Pass,
}
