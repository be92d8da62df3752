//! Move knowledge learned from game records: features of candidate moves
//! ([`features`], [`spatial`]) and the model that turns their strengths (fitted by
//! `tengen train-patterns` with Coulom's minorization-maximization) into move
//! probabilities for the tree ([`model`]).

pub mod features;
pub mod model;
pub mod spatial;
