//! Tells the tests what this machine has that some of them need, as cfgs, so that a test
//! without its inputs is marked `#[cfg_attr(not(..), ignore = "needs ..")]` and counted as
//! ignored, with its reason, in cargo's summary, instead of passing without testing:
//!
//! - `tengen_fixtures`: KataGo's fixture networks and outputs (`$TENGEN_NN_DIR`, else
//!   `../shared/nn` beside the crate);
//! - `tengen_corpora`: the game records and rule probes (`../shared/corpora`);
//! - `tengen_network`: the network `scripts/fetch-model.sh` fetches, where Tengen looks
//!   for it (`tengen::nn::default_model_path`);
//! - `tengen_avx2`, `tengen_avx512`, `tengen_avx512bf16`, `tengen_avx512vnni`,
//!   `tengen_avxvnni`, `tengen_amx` (AMX-INT8): this CPU's instructions, for the tests of
//!   the kernels that need them.
//!
//! `TENGEN_TEST_ALL=1` (what `.ci/run` sets) turns the first three on whatever is there:
//! a test whose inputs are missing then fails, so nothing is skipped in silence. A CPU
//! feature cannot be installed, so those follow the CPU. Cargo runs this again when one of
//! these variables changes or a folder found here changes; after fetching the network or
//! adding `../shared`, `touch build.rs` (a missing path cannot be watched without rebuilding
//! every time).

use std::path::{Path, PathBuf};

// The CPU probe the kernels use (std only), so that the tests' CPU cfgs are its answers.
#[allow(dead_code)]
#[path = "src/nn/cpu.rs"]
mod cpu;

fn main() {
    for var in [
        "TENGEN_TEST_ALL",
        "TENGEN_NN_DIR",
        "TENGEN_MODEL_DIR",
        "XDG_DATA_HOME",
        "HOME",
    ] {
        println!("cargo::rerun-if-env-changed={var}");
    }
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/nn/cpu.rs");
    let all = std::env::var("TENGEN_TEST_ALL").is_ok_and(|v| v == "1");
    let crate_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let shared = crate_dir.join("../shared");
    let fixtures = std::env::var_os("TENGEN_NN_DIR")
        .filter(|v| !v.is_empty())
        .map_or_else(|| shared.join("nn"), PathBuf::from);
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let network = var("TENGEN_MODEL_DIR")
        .or_else(|| var("XDG_DATA_HOME").map(|d| d.join("tengen")))
        .or_else(|| var("HOME").map(|h| h.join(".local/share/tengen")))
        .map(|d| d.join("b10c384h6nbttflrs.bin.gz"));

    let cfg = |name: &str, on: bool| {
        println!("cargo::rustc-check-cfg=cfg({name})");
        if on {
            println!("cargo::rustc-cfg={name}");
        }
    };
    let found = |path: &Path| {
        let there = path.exists();
        if there {
            println!("cargo::rerun-if-changed={}", path.display());
        }
        there
    };
    cfg("tengen_fixtures", all || found(&fixtures));
    cfg("tengen_corpora", all || found(&shared.join("corpora")));
    cfg(
        "tengen_network",
        all || network.as_deref().is_some_and(found),
    );

    // The crate's own probe, on the machine that builds (and runs) the tests.
    let cpu = cpu::Features::detected();
    cfg("tengen_avx2", cpu.avx2);
    cfg("tengen_avx512", cpu.avx512);
    cfg("tengen_avx512bf16", cpu.avx512bf16);
    cfg("tengen_avx512vnni", cpu.avx512vnni);
    cfg("tengen_amx", cpu.amxint8);
    cfg("tengen_avxvnni", cpu.avxvnni);
}
