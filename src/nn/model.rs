//! The model reader: KataGo's network files (`.bin.gz`, `.txt.gz`, or either uncompressed)
//! into typed layers, batch norms folded into one scale and bias per channel, weights in
//! the order the forward pass reads them. Knows nothing of boards or of evaluation.
//!
//! The format (KataGo's `cpp/neuralnet/desc.cpp`): whitespace-separated tokens (names,
//! integers, floats); each block of weights is either that many text floats or, in the
//! binary form, `@BIN@` followed by little-endian float32. Model versions 8 to 17 (the V7
//! input features) are read; any other version, any unknown layer kind, size or option, a
//! non-finite weight or a truncated file is an error naming the layer, never a panic.

use std::io::Read;
use std::path::Path;

/// Most bytes a model may decompress to (the largest public KataGo networks are under
/// 1 GB uncompressed): a bound on what a corrupt or hostile file can make us allocate.
const MAX_UNCOMPRESSED: u64 = 1 << 30;
/// Largest channel count, kernel side or block count a layer may declare.
const MAX_DIM: i64 = 1 << 16;

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

/// A format problem before the file name is known.
#[derive(Debug)]
struct Fail {
    layer: String,
    problem: String,
}

type Res<T> = Result<T, Fail>;

fn fail<T>(layer: &str, problem: impl Into<String>) -> Res<T> {
    Err(Fail {
        layer: layer.to_string(),
        problem: problem.into(),
    })
}

/// An activation function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    Identity,
    Relu,
    Mish,
    Silu,
}

/// A convolution: `weights[oc][ic][y][x]`, i.e. a row-major `out x (in * ky * kx)` matrix
/// against im2col columns ordered channel, row, column.
#[derive(Clone, Debug)]
pub struct Conv {
    pub name: String,
    pub kernel_y: usize,
    pub kernel_x: usize,
    pub in_channels: usize,
    pub out_channels: usize,
    pub weights: Vec<f32>,
}

/// A batch norm folded at load: `y = x * scale[c] + bias[c]`, with
/// `scale = gamma / sqrt(var + eps)` and `bias = beta - scale * mean`.
#[derive(Clone, Debug)]
pub struct BatchNorm {
    pub name: String,
    pub channels: usize,
    pub scale: Vec<f32>,
    pub bias: Vec<f32>,
    /// Learned parameters in the file (gamma and beta when present; not mean and
    /// variance), as KataGo counts them.
    learned: usize,
}

/// A dense layer: `weights[ic][oc]` (row-major `in x out`), `y = x W`.
#[derive(Clone, Debug)]
pub struct MatMul {
    pub name: String,
    pub in_channels: usize,
    pub out_channels: usize,
    pub weights: Vec<f32>,
}

/// A per-channel bias added after a [`MatMul`].
#[derive(Clone, Debug)]
pub struct MatBias {
    pub name: String,
    pub weights: Vec<f32>,
}

/// Pre-activation residual block: BN, act, conv, BN, act, conv, plus the input.
#[derive(Clone, Debug)]
pub struct ResidualBlock {
    pub name: String,
    pub pre_bn: BatchNorm,
    pub pre_activation: Activation,
    pub regular_conv: Conv,
    pub mid_bn: BatchNorm,
    pub mid_activation: Activation,
    pub final_conv: Conv,
}

/// Residual block whose middle gets a per-channel bias from global pooling of a second conv.
#[derive(Clone, Debug)]
pub struct GlobalPoolingBlock {
    pub name: String,
    pub pre_bn: BatchNorm,
    pub pre_activation: Activation,
    pub regular_conv: Conv,
    pub gpool_conv: Conv,
    pub gpool_bn: BatchNorm,
    pub gpool_activation: Activation,
    /// `3 * gpool channels -> regular channels`.
    pub gpool_to_bias: MatMul,
    pub mid_bn: BatchNorm,
    pub mid_activation: Activation,
    pub final_conv: Conv,
}

/// Nested bottleneck: BN, act, 1x1 conv down, a stack of blocks, BN, act, 1x1 conv up,
/// plus the input.
#[derive(Clone, Debug)]
pub struct NestedBottleneckBlock {
    pub name: String,
    pub pre_bn: BatchNorm,
    pub pre_activation: Activation,
    pub pre_conv: Conv,
    pub blocks: Vec<Block>,
    pub post_bn: BatchNorm,
    pub post_activation: Activation,
    pub post_conv: Conv,
}

/// RMSNorm inside transformer blocks: per position, across channels, times `weight`.
#[derive(Clone, Debug)]
pub struct TransformerNorm {
    pub name: String,
    pub channels: usize,
    pub epsilon: f32,
    pub weight: Vec<f32>,
}

/// Rotary position embedding of an attention block.
#[derive(Clone, Debug)]
pub enum Rope {
    None,
    /// KataGo's fixed 2-D RoPE from `theta`: the first half of the pairs rotate with the
    /// row, the second half with the column.
    Fixed {
        theta: f32,
    },
    /// Learned frequencies, `freqs[kv_head][pair][0 = x, 1 = y]`.
    Learnable {
        freqs: Vec<f32>,
    },
}

/// Self-attention over the board points, with grouped key-value heads.
#[derive(Clone, Debug)]
pub struct Attention {
    pub name: String,
    pub heads: usize,
    pub kv_heads: usize,
    pub q_head_dim: usize,
    pub v_head_dim: usize,
    pub rope: Rope,
    pub pre_norm: TransformerNorm,
    pub q: MatMul,
    pub k: MatMul,
    pub v: MatMul,
    pub out: MatMul,
}

/// Feed-forward block: plain (`linear2(act(linear1 x))`) or SwiGLU
/// (`linear2(silu(linear1 x) * gate x)`).
#[derive(Clone, Debug)]
pub struct FeedForward {
    pub name: String,
    pub channels: usize,
    pub ffn_channels: usize,
    pub pre_norm: TransformerNorm,
    pub linear1: MatMul,
    pub gate: Option<MatMul>,
    pub linear2: MatMul,
}

/// One block of a trunk or of a nested bottleneck.
#[derive(Clone, Debug)]
pub enum Block {
    Ordinary(ResidualBlock),
    GlobalPooling(GlobalPoolingBlock),
    NestedBottleneck(NestedBottleneckBlock),
    Attention(Attention),
    FeedForward(FeedForward),
}

/// The trunk tip's RMSNorm with gamma and beta: over channels per position, or over
/// channels and positions together (`spatial`).
#[derive(Clone, Debug)]
pub struct RmsNorm {
    pub name: String,
    pub channels: usize,
    pub epsilon: f32,
    pub spatial: bool,
    pub gamma: Vec<f32>,
    pub beta: Vec<f32>,
}

/// The normalisation at the end of the trunk.
#[derive(Clone, Debug)]
pub enum TrunkTip {
    BatchNorm(BatchNorm),
    RmsNorm(RmsNorm),
}

/// The SGF-metadata encoder of human-imitation networks (three dense layers).
#[derive(Clone, Debug)]
pub struct MetadataEncoder {
    pub name: String,
    pub version: i32,
    pub input_channels: usize,
    pub mul1: MatMul,
    pub bias1: MatBias,
    pub act1: Activation,
    pub mul2: MatMul,
    pub bias2: MatBias,
    pub act2: Activation,
    pub mul3: MatMul,
}

#[derive(Clone, Debug)]
pub struct Trunk {
    pub name: String,
    pub channels: usize,
    pub mid_channels: usize,
    pub regular_channels: usize,
    pub gpool_channels: usize,
    pub initial_conv: Conv,
    /// Global inputs to a per-channel bias of the initial conv's output.
    pub initial_matmul: MatMul,
    pub metadata_encoder: Option<MetadataEncoder>,
    pub blocks: Vec<Block>,
    pub tip: TrunkTip,
    pub tip_activation: Activation,
}

#[derive(Clone, Debug)]
pub struct PolicyHead {
    pub name: String,
    /// Policy outputs: 1 (v8-11), 2 (with the optimistic policy), or 4 (v16+ Q values).
    pub out_channels: usize,
    pub p1_conv: Conv,
    pub g1_conv: Conv,
    pub g1_bn: BatchNorm,
    pub g1_activation: Activation,
    pub gpool_to_bias: MatMul,
    pub p1_bn: BatchNorm,
    pub p1_activation: Activation,
    pub p2_conv: Conv,
    pub gpool_to_pass: MatMul,
    /// v15+: the pass output goes through a bias, an activation and a second matmul.
    pub pass_bias: Option<MatBias>,
    pub pass_activation: Option<Activation>,
    pub gpool_to_pass2: Option<MatMul>,
}

#[derive(Clone, Debug)]
pub struct ValueHead {
    pub name: String,
    pub v1_conv: Conv,
    pub v1_bn: BatchNorm,
    pub v1_activation: Activation,
    pub v2_mul: MatMul,
    pub v2_bias: MatBias,
    pub v2_activation: Activation,
    /// Win, loss, no result.
    pub v3_mul: MatMul,
    pub v3_bias: MatBias,
    /// Score mean, stdev, lead, variance time (and from v9 two short-term errors).
    pub sv3_mul: MatMul,
    pub sv3_bias: MatBias,
    pub ownership_conv: Conv,
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

// ---------------------------------------------------------------------------------------
// Reading tokens and float blocks.

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    binary: bool,
}

impl<'a> Reader<'a> {
    fn skip_space(&mut self) {
        while self.pos < self.data.len() && self.data[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn token(&mut self, layer: &str, what: &str) -> Res<&'a str> {
        self.skip_space();
        let start = self.pos;
        while self.pos < self.data.len() && !self.data[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
        if start == self.pos {
            return fail(layer, format!("file ends where {what} was expected"));
        }
        match std::str::from_utf8(&self.data[start..self.pos]) {
            Ok(s) => Ok(s),
            Err(_) => fail(layer, format!("{what} is not text")),
        }
    }

    /// A layer's name (the layer it names is the one errors then mention).
    fn name(&mut self, parent: &str, what: &str) -> Res<String> {
        let t = self.token(parent, what)?;
        if t.len() > 200 {
            return fail(parent, format!("{what} is {} characters long", t.len()));
        }
        Ok(t.to_string())
    }

    fn int(&mut self, layer: &str, what: &str) -> Res<i64> {
        let t = self.token(layer, what)?;
        match t.parse::<i64>() {
            Ok(v) => Ok(v),
            Err(_) => fail(layer, format!("{what}: expected an integer, found {t:?}")),
        }
    }

    /// A size: an integer in 1..=MAX_DIM.
    fn dim(&mut self, layer: &str, what: &str) -> Res<usize> {
        let v = self.int(layer, what)?;
        if !(1..=MAX_DIM).contains(&v) {
            return fail(layer, format!("{what} is {v}, not in 1..={MAX_DIM}"));
        }
        Ok(v as usize)
    }

    /// An integer that must be 0 or 1.
    fn flag(&mut self, layer: &str, what: &str) -> Res<bool> {
        match self.int(layer, what)? {
            0 => Ok(false),
            1 => Ok(true),
            v => fail(layer, format!("{what} is {v}, expected 0 or 1")),
        }
    }

    /// An option KataGo reserves for later use: must be 0.
    fn unused(&mut self, layer: &str, what: &str) -> Res<()> {
        match self.int(layer, what)? {
            0 => Ok(()),
            v => fail(layer, format!("unknown or unsupported {what}: {v}")),
        }
    }

    /// A number read as f32 directly (as KataGo's `in >> float` does).
    fn float32(&mut self, layer: &str, what: &str) -> Res<f32> {
        let t = self.token(layer, what)?;
        match t.parse::<f32>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => fail(
                layer,
                format!("{what}: expected a finite number, found {t:?}"),
            ),
        }
    }

    fn float(&mut self, layer: &str, what: &str) -> Res<f64> {
        let t = self.token(layer, what)?;
        match t.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => fail(
                layer,
                format!("{what}: expected a finite number, found {t:?}"),
            ),
        }
    }

    /// A block of `n` weights, text or binary; every one finite.
    fn floats(&mut self, layer: &str, n: usize) -> Res<Vec<f32>> {
        let mut out = Vec::new();
        if self.binary {
            // Up to 100 whitespace characters, then "@BIN@".
            let mut skipped = 0;
            loop {
                match self.data.get(self.pos) {
                    Some(b'@') => break,
                    Some(c) if c.is_ascii_whitespace() && skipped < 100 => {
                        self.pos += 1;
                        skipped += 1;
                    }
                    Some(_) => return fail(layer, "no @BIN@ block where the weights should start"),
                    None => return fail(layer, "file ends where the weights should start"),
                }
            }
            if !self.data[self.pos..].starts_with(b"@BIN@") {
                return fail(layer, "no @BIN@ block where the weights should start");
            }
            self.pos += 5;
            let bytes = n * 4;
            if self.data.len() - self.pos < bytes {
                return fail(
                    layer,
                    format!(
                        "file ends inside its weights ({} of {n} floats present)",
                        (self.data.len() - self.pos) / 4
                    ),
                );
            }
            out.reserve_exact(n);
            for chunk in self.data[self.pos..self.pos + bytes].chunks_exact(4) {
                out.push(f32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]));
            }
            self.pos += bytes;
        } else {
            // Each text float takes at least two bytes: a bound before allocating.
            if n > (self.data.len() - self.pos) / 2 + 1 {
                return fail(layer, format!("file too short for {n} weights"));
            }
            out.reserve_exact(n);
            for i in 0..n {
                let t = self.token(layer, "a weight")?;
                match t.parse::<f32>() {
                    Ok(v) => out.push(v),
                    Err(_) => {
                        return fail(layer, format!("weight {i}: expected a number, found {t:?}"))
                    }
                }
            }
        }
        if let Some(i) = out.iter().position(|v| !v.is_finite()) {
            return fail(layer, format!("weight {i} is not finite ({})", out[i]));
        }
        // Subnormal weights (b10c384's feed-forward layers hold thousands, below 1e-38:
        // pruned channels) count for nothing, but every multiply-add that yields a subnormal
        // takes a microcode assist of about a hundred cycles: zero them.
        for v in &mut out {
            if v.is_subnormal() {
                *v = 0.0;
            }
        }
        Ok(out)
    }

    fn at_end(&mut self) -> bool {
        self.skip_space();
        self.pos == self.data.len()
    }
}

// ---------------------------------------------------------------------------------------
// Layers.

fn conv(r: &mut Reader, parent: &str) -> Res<Conv> {
    let name = r.name(parent, "a convolution's name")?;
    let l = name.as_str();
    let ky = r.dim(l, "kernel height")?;
    let kx = r.dim(l, "kernel width")?;
    let ic = r.dim(l, "input channels")?;
    let oc = r.dim(l, "output channels")?;
    let dy = r.int(l, "vertical dilation")?;
    let dx = r.int(l, "horizontal dilation")?;
    if ky % 2 != 1 || kx % 2 != 1 {
        return fail(l, format!("kernel {ky}x{kx}: sizes must be odd"));
    }
    if dy != 1 || dx != 1 {
        return fail(l, format!("dilation {dy}x{dx} is not supported (only 1x1)"));
    }
    let n = ky * kx * ic * oc;
    let file = r.floats(l, n)?;
    // The file's order is y, x, ic, oc; ours is oc, ic, y, x.
    let mut weights = vec![0.0; n];
    let mut idx = 0;
    for y in 0..ky {
        for x in 0..kx {
            for i in 0..ic {
                for o in 0..oc {
                    weights[((o * ic + i) * ky + y) * kx + x] = file[idx];
                    idx += 1;
                }
            }
        }
    }
    Ok(Conv {
        name,
        kernel_y: ky,
        kernel_x: kx,
        in_channels: ic,
        out_channels: oc,
        weights,
    })
}

fn batch_norm(r: &mut Reader, parent: &str) -> Res<BatchNorm> {
    let name = r.name(parent, "a batch norm's name")?;
    let l = name.as_str();
    let c = r.dim(l, "channels")?;
    let eps = r.float32(l, "epsilon")?;
    if !(eps > 0.0 && eps.is_finite()) {
        return fail(l, format!("epsilon {eps} is not positive"));
    }
    let has_scale = r.flag(l, "has-scale flag")?;
    let has_bias = r.flag(l, "has-bias flag")?;
    let mean = r.floats(l, c)?;
    let variance = r.floats(l, c)?;
    let gamma = if has_scale {
        r.floats(l, c)?
    } else {
        vec![1.0; c]
    };
    let beta = if has_bias {
        r.floats(l, c)?
    } else {
        vec![0.0; c]
    };
    let mut scale = Vec::with_capacity(c);
    let mut bias = Vec::with_capacity(c);
    for i in 0..c {
        // In f32 as KataGo computes it.
        let s = gamma[i] / (variance[i] + eps).sqrt();
        scale.push(s);
        bias.push(beta[i] - s * mean[i]);
    }
    if scale.iter().chain(&bias).any(|v| !v.is_finite()) {
        return fail(
            l,
            "folding gives a non-finite scale or bias (negative variance?)",
        );
    }
    Ok(BatchNorm {
        name,
        channels: c,
        scale,
        bias,
        learned: c * (has_scale as usize + has_bias as usize),
    })
}

fn activation(r: &mut Reader, parent: &str, version: i32) -> Res<Activation> {
    let name = r.name(parent, "an activation's name")?;
    if version < 11 {
        return Ok(Activation::Relu);
    }
    let kind = r.token(&name, "the activation kind")?;
    Ok(match kind {
        "ACTIVATION_IDENTITY" => Activation::Identity,
        "ACTIVATION_RELU" => Activation::Relu,
        "ACTIVATION_MISH" => Activation::Mish,
        "ACTIVATION_SILU" => Activation::Silu,
        _ => return fail(&name, format!("unknown activation {kind:?}")),
    })
}

fn matmul(r: &mut Reader, parent: &str) -> Res<MatMul> {
    let name = r.name(parent, "a matmul's name")?;
    let l = name.as_str();
    let ic = r.dim(l, "input channels")?;
    let oc = r.dim(l, "output channels")?;
    let weights = r.floats(l, ic * oc)?;
    Ok(MatMul {
        name,
        in_channels: ic,
        out_channels: oc,
        weights,
    })
}

fn matbias(r: &mut Reader, parent: &str) -> Res<MatBias> {
    let name = r.name(parent, "a bias's name")?;
    let c = r.dim(&name, "channels")?;
    let weights = r.floats(&name, c)?;
    Ok(MatBias { name, weights })
}

/// Fails unless `a == b`, naming both.
fn same(layer: &str, what_a: &str, a: usize, what_b: &str, b: usize) -> Res<()> {
    if a == b {
        Ok(())
    } else {
        fail(layer, format!("{what_a} ({a}) != {what_b} ({b})"))
    }
}

fn residual_block(r: &mut Reader, parent: &str, version: i32) -> Res<ResidualBlock> {
    let name = r.name(parent, "a block's name")?;
    let l = name.as_str();
    let b = ResidualBlock {
        pre_bn: batch_norm(r, l)?,
        pre_activation: activation(r, l, version)?,
        regular_conv: conv(r, l)?,
        mid_bn: batch_norm(r, l)?,
        mid_activation: activation(r, l, version)?,
        final_conv: conv(r, l)?,
        name: name.clone(),
    };
    same(
        l,
        "preBN channels",
        b.pre_bn.channels,
        "regular conv inputs",
        b.regular_conv.in_channels,
    )?;
    same(
        l,
        "midBN channels",
        b.mid_bn.channels,
        "regular conv outputs",
        b.regular_conv.out_channels,
    )?;
    same(
        l,
        "midBN channels",
        b.mid_bn.channels,
        "final conv inputs",
        b.final_conv.in_channels,
    )?;
    Ok(b)
}

fn gpool_block(r: &mut Reader, parent: &str, version: i32) -> Res<GlobalPoolingBlock> {
    let name = r.name(parent, "a block's name")?;
    let l = name.as_str();
    let b = GlobalPoolingBlock {
        pre_bn: batch_norm(r, l)?,
        pre_activation: activation(r, l, version)?,
        regular_conv: conv(r, l)?,
        gpool_conv: conv(r, l)?,
        gpool_bn: batch_norm(r, l)?,
        gpool_activation: activation(r, l, version)?,
        gpool_to_bias: matmul(r, l)?,
        mid_bn: batch_norm(r, l)?,
        mid_activation: activation(r, l, version)?,
        final_conv: conv(r, l)?,
        name: name.clone(),
    };
    same(
        l,
        "preBN channels",
        b.pre_bn.channels,
        "regular conv inputs",
        b.regular_conv.in_channels,
    )?;
    same(
        l,
        "preBN channels",
        b.pre_bn.channels,
        "gpool conv inputs",
        b.gpool_conv.in_channels,
    )?;
    same(
        l,
        "gpoolBN channels",
        b.gpool_bn.channels,
        "gpool conv outputs",
        b.gpool_conv.out_channels,
    )?;
    same(
        l,
        "3 x gpoolBN channels",
        3 * b.gpool_bn.channels,
        "gpool-to-bias inputs",
        b.gpool_to_bias.in_channels,
    )?;
    same(
        l,
        "midBN channels",
        b.mid_bn.channels,
        "regular conv outputs",
        b.regular_conv.out_channels,
    )?;
    same(
        l,
        "midBN channels",
        b.mid_bn.channels,
        "gpool-to-bias outputs",
        b.gpool_to_bias.out_channels,
    )?;
    same(
        l,
        "midBN channels",
        b.mid_bn.channels,
        "final conv inputs",
        b.final_conv.in_channels,
    )?;
    Ok(b)
}

fn nested_block(
    r: &mut Reader,
    parent: &str,
    version: i32,
    depth: usize,
) -> Res<NestedBottleneckBlock> {
    let name = r.name(parent, "a block's name")?;
    let l = name.as_str();
    let count = r.dim(l, "number of inner blocks")?;
    let pre_bn = batch_norm(r, l)?;
    let pre_activation = activation(r, l, version)?;
    let pre_conv = conv(r, l)?;
    let blocks = block_stack(r, l, version, count, pre_conv.out_channels, depth + 1)?;
    let post_bn = batch_norm(r, l)?;
    let post_activation = activation(r, l, version)?;
    let post_conv = conv(r, l)?;
    same(
        l,
        "preBN channels",
        pre_bn.channels,
        "pre conv inputs",
        pre_conv.in_channels,
    )?;
    same(
        l,
        "postBN channels",
        post_bn.channels,
        "pre conv outputs",
        pre_conv.out_channels,
    )?;
    same(
        l,
        "postBN channels",
        post_bn.channels,
        "post conv inputs",
        post_conv.in_channels,
    )?;
    Ok(NestedBottleneckBlock {
        name,
        pre_bn,
        pre_activation,
        pre_conv,
        blocks,
        post_bn,
        post_activation,
        post_conv,
    })
}

fn transformer_norm(r: &mut Reader, parent: &str) -> Res<TransformerNorm> {
    let name = r.name(parent, "an RMSNorm's name")?;
    let l = name.as_str();
    let channels = r.dim(l, "channels")?;
    let epsilon = r.float32(l, "epsilon")?;
    if !(epsilon > 0.0 && epsilon <= 1.0) {
        return fail(l, format!("epsilon {epsilon} is not in (0, 1]"));
    }
    let weight = r.floats(l, channels)?;
    Ok(TransformerNorm {
        name,
        channels,
        epsilon,
        weight,
    })
}

fn attention(r: &mut Reader, parent: &str) -> Res<Attention> {
    let name = r.name(parent, "a block's name")?;
    let l = name.as_str();
    let heads = r.dim(l, "number of heads")?;
    let kv_heads = r.dim(l, "number of key-value heads")?;
    let q_head_dim = r.dim(l, "query head size")?;
    let v_head_dim = r.dim(l, "value head size")?;
    let use_rope = r.flag(l, "RoPE flag")?;
    let learnable = r.flag(l, "learnable-RoPE flag")?;
    if heads % kv_heads != 0 {
        return fail(
            l,
            format!("{heads} heads are not a multiple of {kv_heads} key-value heads"),
        );
    }
    if use_rope && q_head_dim % 2 != 0 {
        return fail(
            l,
            format!("query head size {q_head_dim} must be even with RoPE"),
        );
    }
    let pre_norm = transformer_norm(r, l)?;
    let q = matmul(r, l)?;
    let k = matmul(r, l)?;
    let v = matmul(r, l)?;
    let out = matmul(r, l)?;
    same(
        l,
        "query outputs",
        q.out_channels,
        "heads x query head size",
        heads * q_head_dim,
    )?;
    same(
        l,
        "key outputs",
        k.out_channels,
        "key-value heads x query head size",
        kv_heads * q_head_dim,
    )?;
    same(
        l,
        "value outputs",
        v.out_channels,
        "key-value heads x value head size",
        kv_heads * v_head_dim,
    )?;
    same(
        l,
        "output inputs",
        out.in_channels,
        "heads x value head size",
        heads * v_head_dim,
    )?;
    same(
        l,
        "query inputs",
        q.in_channels,
        "norm channels",
        pre_norm.channels,
    )?;
    same(
        l,
        "key inputs",
        k.in_channels,
        "norm channels",
        pre_norm.channels,
    )?;
    same(
        l,
        "value inputs",
        v.in_channels,
        "norm channels",
        pre_norm.channels,
    )?;
    let rope = if !use_rope {
        Rope::None
    } else if learnable {
        let fname = r.name(l, "the RoPE frequencies' name")?;
        let f = fname.as_str();
        let nkv = r.dim(f, "RoPE key-value heads")?;
        let pairs = r.dim(f, "RoPE pairs")?;
        let two = r.dim(f, "RoPE last dimension")?;
        same(f, "RoPE key-value heads", nkv, "key-value heads", kv_heads)?;
        same(
            f,
            "RoPE pairs",
            pairs,
            "query head size / 2",
            q_head_dim / 2,
        )?;
        same(f, "RoPE last dimension", two, "two", 2)?;
        Rope::Learnable {
            freqs: r.floats(f, nkv * pairs * 2)?,
        }
    } else {
        let tname = r.name(l, "the RoPE theta's name")?;
        let theta = r.float32(&tname, "RoPE theta")?;
        if !(theta > 0.0 && theta.is_finite()) {
            return fail(
                &tname,
                format!("RoPE theta {theta} is not positive and finite"),
            );
        }
        Rope::Fixed { theta }
    };
    Ok(Attention {
        name,
        heads,
        kv_heads,
        q_head_dim,
        v_head_dim,
        rope,
        pre_norm,
        q,
        k,
        v,
        out,
    })
}

fn feed_forward(r: &mut Reader, parent: &str) -> Res<FeedForward> {
    let name = r.name(parent, "a block's name")?;
    let l = name.as_str();
    let channels = r.dim(l, "channels")?;
    let ffn_channels = r.dim(l, "hidden channels")?;
    let swiglu = r.flag(l, "SwiGLU flag")?;
    let pre_norm = transformer_norm(r, l)?;
    let linear1 = matmul(r, l)?;
    let gate = if swiglu { Some(matmul(r, l)?) } else { None };
    let linear2 = matmul(r, l)?;
    same(
        l,
        "linear1 inputs",
        linear1.in_channels,
        "channels",
        channels,
    )?;
    same(
        l,
        "linear1 outputs",
        linear1.out_channels,
        "hidden channels",
        ffn_channels,
    )?;
    if let Some(g) = &gate {
        same(l, "gate inputs", g.in_channels, "channels", channels)?;
        same(
            l,
            "gate outputs",
            g.out_channels,
            "hidden channels",
            ffn_channels,
        )?;
    }
    same(
        l,
        "linear2 inputs",
        linear2.in_channels,
        "hidden channels",
        ffn_channels,
    )?;
    same(
        l,
        "linear2 outputs",
        linear2.out_channels,
        "channels",
        channels,
    )?;
    same(l, "norm channels", pre_norm.channels, "channels", channels)?;
    Ok(FeedForward {
        name,
        channels,
        ffn_channels,
        pre_norm,
        linear1,
        gate,
        linear2,
    })
}

/// `count` blocks, each taking and giving `channels` channels.
fn block_stack(
    r: &mut Reader,
    parent: &str,
    version: i32,
    count: usize,
    channels: usize,
    depth: usize,
) -> Res<Vec<Block>> {
    if depth > 8 {
        return fail(parent, "nested bottleneck blocks nested more than 8 deep");
    }
    let mut blocks = Vec::new();
    for _ in 0..count {
        let kind = r.token(parent, "a block kind")?;
        let block = match kind {
            "ordinary_block" => {
                let b = residual_block(r, parent, version)?;
                same(
                    &b.name,
                    "preBN channels",
                    b.pre_bn.channels,
                    "trunk channels",
                    channels,
                )?;
                same(
                    &b.name,
                    "final conv outputs",
                    b.final_conv.out_channels,
                    "trunk channels",
                    channels,
                )?;
                Block::Ordinary(b)
            }
            "gpool_block" => {
                let b = gpool_block(r, parent, version)?;
                same(
                    &b.name,
                    "preBN channels",
                    b.pre_bn.channels,
                    "trunk channels",
                    channels,
                )?;
                same(
                    &b.name,
                    "final conv outputs",
                    b.final_conv.out_channels,
                    "trunk channels",
                    channels,
                )?;
                Block::GlobalPooling(b)
            }
            "nested_bottleneck_block" => {
                let b = nested_block(r, parent, version, depth)?;
                same(
                    &b.name,
                    "preBN channels",
                    b.pre_bn.channels,
                    "trunk channels",
                    channels,
                )?;
                same(
                    &b.name,
                    "post conv outputs",
                    b.post_conv.out_channels,
                    "trunk channels",
                    channels,
                )?;
                Block::NestedBottleneck(b)
            }
            "transformer_attention_block" => {
                let b = attention(r, parent)?;
                same(
                    &b.name,
                    "query inputs",
                    b.q.in_channels,
                    "trunk channels",
                    channels,
                )?;
                same(
                    &b.name,
                    "output outputs",
                    b.out.out_channels,
                    "trunk channels",
                    channels,
                )?;
                Block::Attention(b)
            }
            "transformer_ffn_block" => {
                let b = feed_forward(r, parent)?;
                same(&b.name, "channels", b.channels, "trunk channels", channels)?;
                Block::FeedForward(b)
            }
            _ => return fail(parent, format!("unknown block kind {kind:?}")),
        };
        blocks.push(block);
    }
    Ok(blocks)
}

fn rms_norm(r: &mut Reader, parent: &str) -> Res<RmsNorm> {
    let name = r.name(parent, "an RMSNorm's name")?;
    let l = name.as_str();
    let channels = r.dim(l, "channels")?;
    let epsilon = r.float32(l, "epsilon")?;
    let spatial = r.int(l, "spatial flag")? != 0;
    let group = r.int(l, "channel group size")?;
    if !(epsilon > 0.0 && epsilon <= 1.0) {
        return fail(l, format!("epsilon {epsilon} is not in (0, 1]"));
    }
    if group != 0 {
        return fail(
            l,
            format!("grouped RMSNorm (group size {group}) is not supported"),
        );
    }
    let gamma = r.floats(l, channels)?;
    let beta = r.floats(l, channels)?;
    Ok(RmsNorm {
        name,
        channels,
        epsilon,
        spatial,
        gamma,
        beta,
    })
}

fn metadata_encoder(
    r: &mut Reader,
    parent: &str,
    version: i32,
    meta_version: i32,
) -> Res<MetadataEncoder> {
    let name = r.name(parent, "the metadata encoder's name")?;
    let l = name.as_str();
    let input_channels = r.dim(l, "input channels")?;
    same(
        l,
        "input channels",
        input_channels,
        "metadata inputs of version 1",
        192,
    )?;
    let e = MetadataEncoder {
        version: meta_version,
        input_channels,
        mul1: matmul(r, l)?,
        bias1: matbias(r, l)?,
        act1: activation(r, l, version)?,
        mul2: matmul(r, l)?,
        bias2: matbias(r, l)?,
        act2: activation(r, l, version)?,
        mul3: matmul(r, l)?,
        name: name.clone(),
    };
    same(
        l,
        "mul1 inputs",
        e.mul1.in_channels,
        "input channels",
        input_channels,
    )?;
    same(
        l,
        "mul1 outputs",
        e.mul1.out_channels,
        "bias1 channels",
        e.bias1.weights.len(),
    )?;
    same(
        l,
        "mul2 inputs",
        e.mul2.in_channels,
        "mul1 outputs",
        e.mul1.out_channels,
    )?;
    same(
        l,
        "mul2 outputs",
        e.mul2.out_channels,
        "bias2 channels",
        e.bias2.weights.len(),
    )?;
    same(
        l,
        "mul3 inputs",
        e.mul3.in_channels,
        "mul2 outputs",
        e.mul2.out_channels,
    )?;
    Ok(e)
}

fn trunk(r: &mut Reader, version: i32, meta_version: i32) -> Res<Trunk> {
    let name = r.name("model", "the trunk's name")?;
    let l = name.as_str();
    let num_blocks = r.dim(l, "number of blocks")?;
    let channels = r.dim(l, "trunk channels")?;
    let mid_channels = r.dim(l, "mid channels")?;
    let regular_channels = r.dim(l, "regular channels")?;
    let _dilated = r.int(l, "dilated channels")?;
    let gpool_channels = r.dim(l, "gpool channels")?;
    let mut rms_tip = false;
    if version >= 15 {
        rms_tip = match r.int(l, "trunk norm kind")? {
            0 => false,
            1 => true,
            k => return fail(l, format!("unknown trunk norm kind {k}")),
        };
        for opt in ["B", "C", "D", "E", "F"] {
            r.unused(l, &format!("trunk option {opt}"))?;
        }
    }
    let initial_conv = conv(r, l)?;
    same(
        l,
        "initial conv outputs",
        initial_conv.out_channels,
        "trunk channels",
        channels,
    )?;
    let initial_matmul = matmul(r, l)?;
    same(
        l,
        "initial matmul outputs",
        initial_matmul.out_channels,
        "trunk channels",
        channels,
    )?;
    let metadata_encoder = if meta_version > 0 {
        let e = metadata_encoder(r, l, version, meta_version)?;
        same(
            l,
            "metadata encoder outputs",
            e.mul3.out_channels,
            "trunk channels",
            channels,
        )?;
        Some(e)
    } else {
        None
    };
    let blocks = block_stack(r, l, version, num_blocks, channels, 0)?;
    let tip = if rms_tip {
        let n = rms_norm(r, l)?;
        same(
            l,
            "tip RMSNorm channels",
            n.channels,
            "trunk channels",
            channels,
        )?;
        TrunkTip::RmsNorm(n)
    } else {
        let n = batch_norm(r, l)?;
        same(l, "tip BN channels", n.channels, "trunk channels", channels)?;
        TrunkTip::BatchNorm(n)
    };
    let tip_activation = activation(r, l, version)?;
    Ok(Trunk {
        name,
        channels,
        mid_channels,
        regular_channels,
        gpool_channels,
        initial_conv,
        initial_matmul,
        metadata_encoder,
        blocks,
        tip,
        tip_activation,
    })
}

fn policy_head(r: &mut Reader, version: i32) -> Res<PolicyHead> {
    let name = r.name("model", "the policy head's name")?;
    let l = name.as_str();
    let out_channels = if version >= 17 {
        let c = r.dim(l, "policy outputs")?;
        if c != 2 && c != 4 {
            return fail(l, format!("{c} policy outputs (expected 2 or 4)"));
        }
        c
    } else if version == 16 {
        4
    } else if version >= 12 {
        2
    } else {
        1
    };
    if version >= 17 {
        for opt in ["A", "B", "C"] {
            r.unused(l, &format!("policy option {opt}"))?;
        }
    }
    let p1_conv = conv(r, l)?;
    let g1_conv = conv(r, l)?;
    let g1_bn = batch_norm(r, l)?;
    let g1_activation = activation(r, l, version)?;
    let gpool_to_bias = matmul(r, l)?;
    let p1_bn = batch_norm(r, l)?;
    let p1_activation = activation(r, l, version)?;
    let p2_conv = conv(r, l)?;
    let gpool_to_pass = matmul(r, l)?;
    let (pass_bias, pass_activation, gpool_to_pass2) = if version >= 15 {
        (
            Some(matbias(r, l)?),
            Some(activation(r, l, version)?),
            Some(matmul(r, l)?),
        )
    } else {
        (None, None, None)
    };
    same(
        l,
        "p1 conv outputs",
        p1_conv.out_channels,
        "p1 BN channels",
        p1_bn.channels,
    )?;
    same(
        l,
        "g1 conv outputs",
        g1_conv.out_channels,
        "g1 BN channels",
        g1_bn.channels,
    )?;
    same(
        l,
        "gpool-to-bias inputs",
        gpool_to_bias.in_channels,
        "3 x g1 BN channels",
        3 * g1_bn.channels,
    )?;
    same(
        l,
        "gpool-to-bias outputs",
        gpool_to_bias.out_channels,
        "p1 BN channels",
        p1_bn.channels,
    )?;
    same(
        l,
        "p2 conv inputs",
        p2_conv.in_channels,
        "p1 BN channels",
        p1_bn.channels,
    )?;
    same(
        l,
        "p2 conv outputs",
        p2_conv.out_channels,
        "policy outputs",
        out_channels,
    )?;
    same(
        l,
        "gpool-to-pass inputs",
        gpool_to_pass.in_channels,
        "3 x g1 BN channels",
        3 * g1_bn.channels,
    )?;
    match (&pass_bias, &gpool_to_pass2) {
        (Some(b), Some(m2)) => {
            same(
                l,
                "gpool-to-pass outputs",
                gpool_to_pass.out_channels,
                "pass bias channels",
                b.weights.len(),
            )?;
            same(
                l,
                "gpool-to-pass outputs",
                gpool_to_pass.out_channels,
                "second pass matmul inputs",
                m2.in_channels,
            )?;
            same(
                l,
                "second pass matmul outputs",
                m2.out_channels,
                "policy outputs",
                out_channels,
            )?;
        }
        _ => same(
            l,
            "gpool-to-pass outputs",
            gpool_to_pass.out_channels,
            "policy outputs",
            out_channels,
        )?,
    }
    Ok(PolicyHead {
        name,
        out_channels,
        p1_conv,
        g1_conv,
        g1_bn,
        g1_activation,
        gpool_to_bias,
        p1_bn,
        p1_activation,
        p2_conv,
        gpool_to_pass,
        pass_bias,
        pass_activation,
        gpool_to_pass2,
    })
}

fn value_head(r: &mut Reader, version: i32) -> Res<ValueHead> {
    let name = r.name("model", "the value head's name")?;
    let l = name.as_str();
    if version >= 17 {
        for opt in ["A", "B", "C"] {
            r.unused(l, &format!("value option {opt}"))?;
        }
    }
    let h = ValueHead {
        v1_conv: conv(r, l)?,
        v1_bn: batch_norm(r, l)?,
        v1_activation: activation(r, l, version)?,
        v2_mul: matmul(r, l)?,
        v2_bias: matbias(r, l)?,
        v2_activation: activation(r, l, version)?,
        v3_mul: matmul(r, l)?,
        v3_bias: matbias(r, l)?,
        sv3_mul: matmul(r, l)?,
        sv3_bias: matbias(r, l)?,
        ownership_conv: conv(r, l)?,
        name: name.clone(),
    };
    same(
        l,
        "v1 conv outputs",
        h.v1_conv.out_channels,
        "v1 BN channels",
        h.v1_bn.channels,
    )?;
    same(
        l,
        "v2 inputs",
        h.v2_mul.in_channels,
        "3 x v1 BN channels",
        3 * h.v1_bn.channels,
    )?;
    same(
        l,
        "v2 outputs",
        h.v2_mul.out_channels,
        "v2 bias channels",
        h.v2_bias.weights.len(),
    )?;
    same(
        l,
        "v3 inputs",
        h.v3_mul.in_channels,
        "v2 outputs",
        h.v2_mul.out_channels,
    )?;
    same(l, "v3 outputs", h.v3_mul.out_channels, "three", 3)?;
    same(l, "v3 bias channels", h.v3_bias.weights.len(), "three", 3)?;
    same(
        l,
        "sv3 inputs",
        h.sv3_mul.in_channels,
        "v2 outputs",
        h.v2_mul.out_channels,
    )?;
    let score_outputs = if version >= 9 { 6 } else { 4 };
    same(
        l,
        "sv3 outputs",
        h.sv3_mul.out_channels,
        "score outputs of this version",
        score_outputs,
    )?;
    same(
        l,
        "sv3 bias channels",
        h.sv3_bias.weights.len(),
        "score outputs of this version",
        score_outputs,
    )?;
    same(
        l,
        "ownership conv inputs",
        h.ownership_conv.in_channels,
        "v1 conv outputs",
        h.v1_conv.out_channels,
    )?;
    same(
        l,
        "ownership conv outputs",
        h.ownership_conv.out_channels,
        "one",
        1,
    )?;
    Ok(h)
}

fn model(r: &mut Reader) -> Res<Model> {
    let name = r.name("model", "the model's name")?;
    let l = name.as_str();
    if name.len() > 96
        || !name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
    {
        return fail(
            "model",
            format!("{name:?} is not a model name (this is not a KataGo model file?)"),
        );
    }
    let version = match r.int(l, "the model version") {
        Ok(v) => v,
        Err(_) => {
            return fail(
                l,
                "no model version after the name (this is not a KataGo model file?)",
            )
        }
    };
    if !(OLDEST_VERSION as i64..=NEWEST_VERSION as i64).contains(&version) {
        return fail(
            l,
            format!(
                "model version {version} is not supported (only {OLDEST_VERSION} to {NEWEST_VERSION})"
            ),
        );
    }
    let version = version as i32;
    let input_channels = r.dim(l, "input channels")?;
    let global_channels = r.dim(l, "global input channels")?;
    same(l, "input channels", input_channels, "V7 input planes", 22)?;
    same(
        l,
        "global input channels",
        global_channels,
        "V7 global inputs",
        19,
    )?;
    let mut post_process = PostProcess::default();
    if version >= 13 {
        let p = &mut post_process;
        for (field, what) in [
            (&mut p.td_score_multiplier, "tdScoreMultiplier"),
            (&mut p.score_mean_multiplier, "scoreMeanMultiplier"),
            (&mut p.score_stdev_multiplier, "scoreStdevMultiplier"),
            (&mut p.lead_multiplier, "leadMultiplier"),
            (&mut p.variance_time_multiplier, "varianceTimeMultiplier"),
            (
                &mut p.shortterm_value_error_multiplier,
                "shorttermValueErrorMultiplier",
            ),
            (
                &mut p.shortterm_score_error_multiplier,
                "shorttermScoreErrorMultiplier",
            ),
        ] {
            *field = r.float(l, what)?;
            if *field <= 0.0 {
                return fail(l, format!("{what} {} is not positive", *field));
            }
        }
    }
    let mut meta_encoder_version = 0;
    let mut prefer_pass_alive_under_suicide = false;
    if version >= 15 {
        meta_encoder_version = match r.int(l, "metadata encoder version")? {
            v @ (0 | 1) => v as i32,
            v => {
                return fail(
                    l,
                    format!("metadata encoder version {v} is not supported (0 or 1)"),
                )
            }
        };
        prefer_pass_alive_under_suicide = r.flag(l, "pass-alive-under-suicide flag")?;
        for opt in ["C", "D", "E", "F", "G", "H"] {
            r.unused(l, &format!("model option {opt}"))?;
        }
    }
    let meta_channels = if meta_encoder_version == 1 { 192 } else { 0 };
    let trunk = trunk(r, version, meta_encoder_version)?;
    let policy = policy_head(r, version)?;
    let value = value_head(r, version)?;
    same(
        l,
        "input channels",
        input_channels,
        "initial conv inputs",
        trunk.initial_conv.in_channels,
    )?;
    same(
        l,
        "global input channels",
        global_channels,
        "initial matmul inputs",
        trunk.initial_matmul.in_channels,
    )?;
    same(
        l,
        "trunk channels",
        trunk.channels,
        "policy p1 conv inputs",
        policy.p1_conv.in_channels,
    )?;
    same(
        l,
        "trunk channels",
        trunk.channels,
        "policy g1 conv inputs",
        policy.g1_conv.in_channels,
    )?;
    same(
        l,
        "trunk channels",
        trunk.channels,
        "value v1 conv inputs",
        value.v1_conv.in_channels,
    )?;
    if !r.at_end() {
        return fail(
            l,
            "text or data after the value head (a damaged or different file?)",
        );
    }
    Ok(Model {
        name,
        version,
        input_channels,
        global_channels,
        meta_channels,
        meta_encoder_version,
        prefer_pass_alive_under_suicide,
        post_process,
        trunk,
        policy,
        value,
    })
}

// ---------------------------------------------------------------------------------------
// Parameter counts (as KataGo counts them: weights, biases, and batch norms' gamma and
// beta when present; not their running mean and variance).

impl Conv {
    pub fn parameters(&self) -> usize {
        self.weights.len()
    }
}
impl BatchNorm {
    pub fn parameters(&self) -> usize {
        self.learned
    }
}
impl MatMul {
    pub fn parameters(&self) -> usize {
        self.weights.len()
    }
}
impl MatBias {
    pub fn parameters(&self) -> usize {
        self.weights.len()
    }
}

impl Block {
    pub fn parameters(&self) -> usize {
        match self {
            Block::Ordinary(b) => {
                b.pre_bn.parameters()
                    + b.regular_conv.parameters()
                    + b.mid_bn.parameters()
                    + b.final_conv.parameters()
            }
            Block::GlobalPooling(b) => {
                b.pre_bn.parameters()
                    + b.regular_conv.parameters()
                    + b.gpool_conv.parameters()
                    + b.gpool_bn.parameters()
                    + b.gpool_to_bias.parameters()
                    + b.mid_bn.parameters()
                    + b.final_conv.parameters()
            }
            Block::NestedBottleneck(b) => {
                b.pre_bn.parameters()
                    + b.pre_conv.parameters()
                    + b.blocks.iter().map(Block::parameters).sum::<usize>()
                    + b.post_bn.parameters()
                    + b.post_conv.parameters()
            }
            Block::Attention(a) => {
                a.pre_norm.weight.len()
                    + a.q.parameters()
                    + a.k.parameters()
                    + a.v.parameters()
                    + a.out.parameters()
                    + match &a.rope {
                        Rope::Learnable { freqs } => freqs.len(),
                        _ => 0,
                    }
            }
            Block::FeedForward(f) => {
                f.pre_norm.weight.len()
                    + f.linear1.parameters()
                    + f.gate.as_ref().map_or(0, MatMul::parameters)
                    + f.linear2.parameters()
            }
        }
    }
}

impl Model {
    /// Reads a model file: gzip-compressed or not (by its first bytes), binary or text
    /// floats (binary when it holds an `@BIN@` block).
    pub fn load(path: impl AsRef<Path>) -> Result<Model, ModelError> {
        let path = path.as_ref();
        let shown = path.display().to_string();
        let bytes = read_capped(path).map_err(|source| ModelError::Io {
            path: shown.clone(),
            source,
        })?;
        Model::from_bytes(&bytes).map_err(|e| match e {
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
        let to_error = |f: Fail| ModelError::Format {
            path: "<memory>".to_string(),
            layer: f.layer,
            problem: f.problem,
        };
        let inflated;
        let data = if bytes.starts_with(&[0x1f, 0x8b]) {
            inflated = gunzip(bytes).map_err(to_error)?;
            &inflated[..]
        } else {
            bytes
        };
        let binary = data.windows(5).any(|w| w == b"@BIN@");
        let mut r = Reader {
            data,
            pos: 0,
            binary,
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

/// The bytes of the file at `path`: only a regular file (not a folder, a device such as
/// `/dev/zero` or a pipe, opened without blocking) of at most [`MAX_UNCOMPRESSED`] bytes,
/// read with that cap even if it grows meanwhile.
fn read_capped(path: &Path) -> std::io::Result<Vec<u8>> {
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
    let too_big = || {
        Error::new(
            ErrorKind::InvalidData,
            format!("larger than {MAX_UNCOMPRESSED} bytes"),
        )
    };
    if meta.len() > MAX_UNCOMPRESSED {
        return Err(too_big());
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_UNCOMPRESSED + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_UNCOMPRESSED {
        return Err(too_big());
    }
    Ok(bytes)
}

fn gunzip(bytes: &[u8]) -> Res<Vec<u8>> {
    let mut out = Vec::new();
    let decoder = flate2::read::MultiGzDecoder::new(bytes);
    match decoder.take(MAX_UNCOMPRESSED + 1).read_to_end(&mut out) {
        Ok(_) if out.len() as u64 > MAX_UNCOMPRESSED => fail(
            "gzip",
            format!("decompresses to more than {MAX_UNCOMPRESSED} bytes"),
        ),
        Ok(_) => Ok(out),
        Err(e) => fail("gzip", format!("cannot decompress: {e}")),
    }
}
