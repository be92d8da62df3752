//! KataGo-format networks, evaluated by Tengen's own code: the model reader (`model`),
//! the V7 input features (`features`, with KataGo's ladder inputs in `ladder`), the
//! forward pass (`forward`) and its layers (`ops`: convolutions, norms, the matrix
//! products, and which kernels run them), the dense layers' kernels in bf16 (`bf16`) and
//! int8 (`int8`, on AVX2 and AMX's tiles in its submodules) and the fused attention head (`attend`) on AVX-512, the CPU features
//! those kernels may use (`cpu`: probed once, capped by `TENGEN_CPU`), the time by kind of
//! layer (`profile`, for `tengen bench --nn --profile`), KataGo's post-processing
//! (`eval`) and a cache of evaluations (`cache`); here, where the default network is
//! looked for. A layer beside `playout/`: it uses `board`, `rules` and `game`, never the
//! search, the engine or any text protocol, and reads no stdin/stdout.

pub mod attend;
pub mod bf16;
pub mod cache;
pub mod cpu;
pub mod eval;
pub mod features;
pub mod forward;
pub mod int8;
mod ladder;
pub mod model;
mod ops;
pub mod profile;
pub mod service;

pub use eval::{cached_bytes, CacheKeys, EvalCache, Evaluation, Evaluator, Request, Symmetry};
pub use model::{Model, ModelError};
pub use ops::{fma_peak_gflops, kernels, Kind, Precision};
pub use service::{Plan, Service};

use std::path::PathBuf;

/// The file name of the network to play with (KataGo's, shipped in the KaTrain 1.20.0 wheel;
/// `scripts/fetch-model.sh` fetches it).
pub const DEFAULT_MODEL_NAME: &str = "b10c384h6nbttflrs.bin.gz";

/// Where Tengen looks for a network when none is named: `$TENGEN_MODEL_DIR`, else
/// `$XDG_DATA_HOME/tengen`, else `~/.local/share/tengen`, then [`DEFAULT_MODEL_NAME`].
/// `None` when no home folder is known.
pub fn default_model_path() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let dir = var("TENGEN_MODEL_DIR")
        .or_else(|| var("XDG_DATA_HOME").map(|d| d.join("tengen")))
        .or_else(|| var("HOME").map(|h| h.join(".local/share/tengen")))?;
    Some(dir.join(DEFAULT_MODEL_NAME))
}
