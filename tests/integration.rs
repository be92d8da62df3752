//! Every integration test in one crate, so that `cargo test --release` builds and links one
//! test binary instead of one for each file under `tests/` (each a full LTO link under the
//! release profile: most of the build's time when there were twenty). Each file stays where
//! it was and is a module here; `common` holds the helpers they share.
//!
//! One file's tests: `cargo test --release --test integration fuzz_corpus::`.

mod common;

mod analysis;
mod analysis_engine;
mod board_diff;
mod cli_options;
mod counting;
mod fuzz_corpus;
mod game_end;
mod gogui;
mod gtp_fuzz;
mod gtp_regress;
mod gtp_timing;
mod input_limits;
mod layers;
#[path = "match.rs"]
mod match_command;
mod nn;
mod patterns;
mod positions;
mod puct;
mod review;
mod search;
mod seki;
mod start_up;
mod state_safety;
mod status_interrupt;
mod undo_checkpoints;
