//! Tengen: a Go (weiqi, baduk) engine speaking GTP v2 and playing Chinese rules.
//!
//! Layers, dependencies pointing one way:
//! `board` <- `game`/`rules`/`score` <- `playout` <- `engine` <- `gtp` <- `main`.

pub mod board;
pub mod engine;
pub mod game;
pub mod gtp;
pub mod log;
pub mod playout;
pub mod regress;
pub mod rules;
pub mod score;
pub mod sgf;

pub use board::{Board, Cell, Color, IllegalMove, Move, Point, MAX_SIZE};
pub use game::{Game, SetupError};
pub use rules::{KoRule, Rules};
pub use score::Score;
