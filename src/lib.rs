//! Tengen: a Go (weiqi, baduk) engine speaking GTP v2 and playing Chinese rules.
//!
//! Layers, dependencies pointing one way:
//! `board` <- `game`/`rules`/`score` <- `playout` <- `engine` <- `gtp` <- `main`.

pub mod board;
pub mod gtp;
pub mod regress;
pub mod sgf;

pub use board::{Board, Cell, Color, Move, Point, MAX_SIZE};
