//! The model reader: KataGo's network files (`.bin.gz`, `.txt.gz`, or either uncompressed)
//! into typed layers, batch norms folded into one scale and bias per channel, weights in
//! the order the forward pass reads them. Knows nothing of boards or of evaluation.
//!
//! The format (KataGo's `cpp/neuralnet/desc.cpp`): whitespace-separated tokens (names,
//! integers, floats); each block of weights is either that many text floats or, in the
//! binary form, `@BIN@` followed by little-endian float32. Model versions 8 to 17 (the V7
//! input features) are read; any other version, any unknown layer kind, size or option, a
//! non-finite weight or a truncated file is an error naming the layer, never a panic.
//!
//! The files: `layers.rs` the typed layers and blocks (and their parameter counts);
//! `read.rs` the tokens, float blocks and single layers of the format; `blocks.rs` the
//! trunk's blocks (residual, global pooling, nested bottleneck, transformer); `network.rs`
//! the header, the trunk and the heads, in file order. This file holds the whole network
//! ([`Model`]), its errors, and the reading of a file (size cap, gzip).

mod blocks;
mod layers;
mod network;
mod read;

pub use layers::{
    Activation, Attention, BatchNorm, Block, Conv, FeedForward, GlobalPoolingBlock, MatBias,
    MatMul, MetadataEncoder, NestedBottleneckBlock, PolicyHead, ResidualBlock, RmsNorm, Rope,
    TransformerNorm, Trunk, TrunkTip, ValueHead,
};

use std::path::Path;

use network::model;
use read::{Fail, Reader};

/// Most bytes a model may decompress to (the largest public KataGo networks are under
/// 1 GB uncompressed): a bound on what a corrupt or hostile file can make us allocate.
const MAX_UNCOMPRESSED: u64 = 1 << 30;

/// Oldest and newest model versions read (those with KataGo's V7 inputs).
pub const OLDEST_VERSION: i32 = 8;
pub const NEWEST_VERSION: i32 = 17;

/// Why a model could not be loaded: the file, the layer and the problem.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("{path}: cannot read the model file: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: {layer}: {problem}")]
    Format {
        path: String,
        layer: String,
        problem: String,
    },
}

/// The multipliers that turn raw outputs into points (defaults before v13).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PostProcess {
    pub td_score_multiplier: f64,
    pub score_mean_multiplier: f64,
    pub score_stdev_multiplier: f64,
    pub lead_multiplier: f64,
    pub variance_time_multiplier: f64,
    pub shortterm_value_error_multiplier: f64,
    pub shortterm_score_error_multiplier: f64,
}

impl Default for PostProcess {
    fn default() -> PostProcess {
        PostProcess {
            td_score_multiplier: 20.0,
            score_mean_multiplier: 20.0,
            score_stdev_multiplier: 20.0,
            lead_multiplier: 20.0,
            variance_time_multiplier: 40.0,
            shortterm_value_error_multiplier: 0.25,
            shortterm_score_error_multiplier: 30.0,
        }
    }
}

/// A whole network.
#[derive(Clone, Debug)]
pub struct Model {
    pub name: String,
    pub version: i32,
    /// Spatial input planes (22 for V7).
    pub input_channels: usize,
    /// Global inputs (19 for V7).
    pub global_channels: usize,
    /// SGF-metadata inputs (0 without an encoder, 192 with version 1).
    pub meta_channels: usize,
    pub meta_encoder_version: i32,
    /// Whether the pass-alive inputs are to be computed as if multi-stone suicide were legal.
    pub prefer_pass_alive_under_suicide: bool,
    pub post_process: PostProcess,
    pub trunk: Trunk,
    pub policy: PolicyHead,
    pub value: ValueHead,
}

impl Model {
    /// Reads a model file: gzip-compressed or not (by its first bytes), binary or text
    /// floats (binary when the weights start with an `@BIN@` block). The file is parsed
    /// as it is read and decompressed, so a hostile one costs no more memory than the
    /// model it turns out to hold.
    pub fn load(path: impl AsRef<Path>) -> Result<Model, ModelError> {
        let path = path.as_ref();
        let shown = path.display().to_string();
        let file = open_capped(path).map_err(|source| ModelError::Io {
            path: shown.clone(),
            source,
        })?;
        Model::from_reader(std::io::BufReader::new(file)).map_err(|e| match e {
            ModelError::Format { layer, problem, .. } => ModelError::Format {
                path: shown,
                layer,
                problem,
            },
            other => other,
        })
    }

    /// Reads a model from the bytes of a file (compressed or not); errors name the file
    /// as `<memory>`.
    pub fn from_bytes(bytes: &[u8]) -> Result<Model, ModelError> {
        Model::from_reader(bytes)
    }

    /// Reads a model from a stream of a file's bytes, decompressing it if it starts as
    /// gzip does; errors name the file as `<memory>`.
    fn from_reader<'a>(mut src: impl std::io::BufRead + 'a) -> Result<Model, ModelError> {
        let to_error = |f: Fail| ModelError::Format {
            path: "<memory>".to_string(),
            layer: f.layer,
            problem: f.problem,
        };
        let gzip = src
            .fill_buf()
            .map_err(|e| {
                to_error(Fail {
                    layer: "file".to_string(),
                    problem: format!("cannot read: {e}"),
                })
            })?
            .starts_with(&[0x1f, 0x8b]);
        let mut r = if gzip {
            Reader::new(
                Box::new(flate2::bufread::MultiGzDecoder::new(src)),
                "gzip",
                MAX_UNCOMPRESSED,
            )
        } else {
            Reader::new(Box::new(src), "file", MAX_UNCOMPRESSED)
        };
        model(&mut r).map_err(to_error)
    }

    /// Learned parameters, counted as KataGo's `getNumParameters` counts them.
    pub fn parameters(&self) -> usize {
        let t = &self.trunk;
        let meta = t.metadata_encoder.as_ref().map_or(0, |e| {
            e.mul1.parameters()
                + e.bias1.parameters()
                + e.mul2.parameters()
                + e.bias2.parameters()
                + e.mul3.parameters()
        });
        let tip = match &t.tip {
            TrunkTip::BatchNorm(b) => b.parameters(),
            TrunkTip::RmsNorm(n) => n.gamma.len() + n.beta.len(),
        };
        let trunk = t.initial_conv.parameters()
            + t.initial_matmul.parameters()
            + meta
            + t.blocks.iter().map(Block::parameters).sum::<usize>()
            + tip;
        let p = &self.policy;
        let policy = p.p1_conv.parameters()
            + p.g1_conv.parameters()
            + p.g1_bn.parameters()
            + p.gpool_to_bias.parameters()
            + p.p1_bn.parameters()
            + p.p2_conv.parameters()
            + p.gpool_to_pass.parameters()
            + p.pass_bias.as_ref().map_or(0, MatBias::parameters)
            + p.gpool_to_pass2.as_ref().map_or(0, MatMul::parameters);
        let v = &self.value;
        let value = v.v1_conv.parameters()
            + v.v1_bn.parameters()
            + v.v2_mul.parameters()
            + v.v2_bias.parameters()
            + v.v3_mul.parameters()
            + v.v3_bias.parameters()
            + v.sv3_mul.parameters()
            + v.sv3_bias.parameters()
            + v.ownership_conv.parameters();
        trunk + policy + value
    }

    /// Whether any block (nested ones included) is a transformer block.
    pub fn has_transformer(&self) -> bool {
        fn any(blocks: &[Block]) -> bool {
            blocks.iter().any(|b| match b {
                Block::Attention(_) | Block::FeedForward(_) => true,
                Block::NestedBottleneck(n) => any(&n.blocks),
                _ => false,
            })
        }
        any(&self.trunk.blocks)
    }
}

/// The file at `path`, opened for reading: only a regular file (not a folder, a device
/// such as `/dev/zero` or a pipe, opened without blocking) of at most
/// [`MAX_UNCOMPRESSED`] bytes (the reader caps what it reads at that too, should it
/// grow meanwhile).
fn open_capped(path: &Path) -> std::io::Result<std::fs::File> {
    use std::io::{Error, ErrorKind};
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(Error::new(ErrorKind::InvalidInput, "not a regular file"));
    }
    if meta.len() > MAX_UNCOMPRESSED {
        return Err(Error::new(
            ErrorKind::InvalidData,
            format!("larger than {MAX_UNCOMPRESSED} bytes"),
        ));
    }
    Ok(file)
}
