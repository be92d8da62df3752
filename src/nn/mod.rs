//! KataGo-format networks: the model reader (`model`), and the V7 input features
//! (`features`). A layer beside `playout/`: it uses `board` and `game`, never the search,
//! the engine or any text protocol, and reads no stdin/stdout.

pub mod eval;
pub mod features;
pub mod forward;
pub mod model;

pub use model::{Model, ModelError};
