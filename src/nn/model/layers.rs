//! The typed layers of a KataGo network, as the model reader builds them and the forward
//! pass reads them: convolutions, folded batch norms, dense layers, the residual, global
//! pooling, nested bottleneck and transformer blocks, the trunk and the two heads; and
//! their parameter counts as KataGo counts them. Plain data: knows nothing of the file
//! format, of boards or of evaluation.

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
    /// A 1x1 kernel's weights packed for the bf16 kernel, on first use.
    pub bf16: std::sync::OnceLock<Vec<u32>>,
    /// A 1x1 kernel's weights packed for the kernel's fp32 tiles, on first use.
    pub fp32: std::sync::OnceLock<Vec<u32>>,
    /// A 1x1 kernel's weights in int8 (`nn::int8::pack_weights`), on first use.
    pub int8: std::sync::OnceLock<crate::nn::int8::Weights>,
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
    pub(super) learned: usize,
}

/// A dense layer: `weights[ic][oc]` (row-major `in x out`), `y = x W`.
#[derive(Clone, Debug)]
pub struct MatMul {
    pub name: String,
    pub in_channels: usize,
    pub out_channels: usize,
    pub weights: Vec<f32>,
    /// The weights packed for the bf16 kernel (`nn::bf16::pack_weights`), on first use.
    pub bf16: std::sync::OnceLock<Vec<u32>>,
    /// The weights packed for the kernel's fp32 tiles (`nn::bf16::pack_weights_fp32`), on
    /// first use.
    pub fp32: std::sync::OnceLock<Vec<u32>>,
    /// The weights in int8 (`nn::int8::pack_weights`), on first use.
    pub int8: std::sync::OnceLock<crate::nn::int8::Weights>,
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
