//! Move knowledge learned from game records: features of candidate moves
//! ([`features`], [`spatial`]), their strengths fitted with Coulom's minorization-
//! maximization (`tengen train-patterns`, in [`crate::tools::train`]), and the model that turns strengths into move probabilities
//! for the tree ([`model`]).

pub mod features;
pub mod model;
pub mod spatial;
