//! The network evaluator (`src/nn/`, issue 27): the model reader on KataGo's fixture
//! networks and on damaged copies of them, and the V7 input features on positions built
//! by moves. The fixtures are in `$TENGEN_NN_DIR`, by default `../shared/nn` beside the
//! crate; a test that needs them and finds them absent says so and passes. The search
//! with a network is `tests/puct.rs`'s (on the fake network, and on these when present);
//! through GTP, `gtp.rs`'s, on a tiny network written for the test (`common::tiny_net`)
//! and on the fixture one when present.
//!
//! `cargo test --release --test integration nn::`

use std::path::PathBuf;

use tengen::gtp::Vertex;
use tengen::Point;

mod cache;
mod features;
mod forward;
mod gtp;
mod model;

/// The point of a GTP vertex (`D4`) on a `size` board, through the GTP parser.
pub fn point(size: usize, v: &str) -> Point {
    let vertex: Vertex = v.parse().unwrap_or_else(|_| panic!("{v} is no vertex"));
    let (col, row) = (vertex.col as usize, vertex.row as usize);
    assert!(col < size && row < size, "{v} on {size}x{size}");
    Point::from_coord(col, row)
}

/// The fixture folder, if present.
pub fn fixture_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("TENGEN_NN_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/nn"),
    };
    dir.is_dir().then_some(dir)
}

/// The fixture file `name`, or `None` after printing why the test skips.
pub fn fixture(name: &str) -> Option<PathBuf> {
    let Some(dir) = fixture_dir() else {
        eprintln!("skipped: no network fixtures (set TENGEN_NN_DIR, or put them in ../shared/nn)");
        return None;
    };
    let path = dir.join(name);
    if path.is_file() {
        Some(path)
    } else {
        eprintln!("skipped: {} is absent", path.display());
        None
    }
}

pub const G170: &str = "g170-b6c96-s175395328-d26788732.bin.gz";
pub const TF_ROPE: &str = "b7c96h3tfrs-test5-cnorm.bin.gz";
pub const TF_KV: &str = "b7c96h6kv3qk32v16tflrs-fson-bnh.bin.gz";
