//! The fast board used by playouts: padded 1-D array, incremental chains, pseudo-liberties,
//! simple-ko point, Zobrist hash, empty-point list. No turn order, no history, no superko,
//! no I/O.

mod color;
mod point;

pub use color::{Cell, Color};
pub use point::{Move, Point, MAX_SIZE, NUM_CELLS, STRIDE};

/// Placeholder until the board lands.
pub struct Board;
