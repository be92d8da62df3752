//! The tools: one module per `tengen` subcommand (and the fuzz targets). They use the
//! library; the library never uses them.

pub mod analysis;
pub mod bench;
pub mod fakes;
pub mod fuzz;
pub mod matches;
pub mod plot;
pub mod regress;
pub mod review;
pub mod selfplay;
pub mod train;
