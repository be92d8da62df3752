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

/// The fixture folder: `$TENGEN_NN_DIR`, else `../shared/nn` beside the crate. Its tests
/// are marked ignored where build.rs did not find it (`tengen_fixtures`); run anyway
/// (`TENGEN_TEST_ALL=1`), they fail here.
pub fn fixture_dir() -> PathBuf {
    let dir = match std::env::var_os("TENGEN_NN_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/nn"),
    };
    assert!(
        dir.is_dir(),
        "no network fixtures at {} (set TENGEN_NN_DIR, or put them in ../shared/nn)",
        dir.display()
    );
    dir
}

/// The fixture file `name` (see [`fixture_dir`]).
pub fn fixture(name: &str) -> PathBuf {
    let path = fixture_dir().join(name);
    assert!(path.is_file(), "{} is absent", path.display());
    path
}

/// The fixture file `name` for a test that runs on a tiny network everywhere and on the
/// fixture too where build.rs found the fixtures (else `None`, said on stderr).
pub fn optional_fixture(name: &str) -> Option<PathBuf> {
    if cfg!(tengen_fixtures) {
        Some(fixture(name))
    } else {
        eprintln!("on the tiny network only: no fixture network {name}");
        None
    }
}

pub const G170: &str = "g170-b6c96-s175395328-d26788732.bin.gz";
pub const TF_ROPE: &str = "b7c96h3tfrs-test5-cnorm.bin.gz";
pub const TF_KV: &str = "b7c96h6kv3qk32v16tflrs-fson-bnh.bin.gz";
