//! The forward pass of a KataGo ResNet (`model::Model` with ordinary and global-pooling
//! residual blocks and a batch-norm trunk tip: model versions 8 to 14's ResNets), on one
//! position at exactly the board size: no padding to 19x19 and no mask, so every
//! activation is `channels x size x size`, channel-major, each plane row-major with row 0
//! at the top (the layout of [`features::Features`](super::features::Features)).
//!
//! The semantics are KataGo's (its `eigenbackend.cpp`): "same" convolutions (a
//! cross-correlation, zero outside the board), batch norms folded into a scale and bias,
//! global pooling of `C` channels into `3C` values (mean, mean x (sqrt(area) - 14) / 10,
//! and the maximum; the value head replaces the maximum by mean x ((sqrt(area) - 14)^2 /
//! 100 - 0.1)). Outputs are raw: logits and pre-activation values from the point of view
//! of the player to move; `eval` turns them into probabilities and White's values.
//!
//! Convolutions go through im2col and a plain matrix multiply whose inner loop runs over
//! the board points (contiguous, so the compiler vectorises it). Every buffer lives in the
//! [`Forward`] and is reused from one position to the next.

use super::model::{
    Activation, BatchNorm, Block, Conv, GlobalPoolingBlock, MatBias, MatMul, Model, ResidualBlock,
    TrunkTip,
};

/// Why a network cannot be run by this forward pass.
#[derive(Debug, thiserror::Error)]
pub enum ForwardError {
    #[error("{model}: {what} is not supported by the forward pass yet")]
    Unsupported { model: String, what: String },
}

/// The raw outputs of one position, for the player to move.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RawOutput {
    pub size: usize,
    /// Policy logits, `policy channels x size x size` (channel 0 the ordinary policy).
    pub policy: Vec<f32>,
    /// The pass logit of each policy channel.
    pub pass: Vec<f32>,
    /// Win, loss and no-result logits.
    pub value: [f32; 3],
    /// Score mean, score stdev before softplus, lead, variance of the time left (and from
    /// version 9 the two short-term errors), before their multipliers.
    pub score: Vec<f32>,
    /// Ownership before tanh, `size x size`.
    pub ownership: Vec<f32>,
}

/// A reusable evaluator of one model: the model and every scratch buffer.
pub struct Forward<'m> {
    model: &'m Model,
    size: usize,
    /// The trunk (residual stream), `channels x area`.
    trunk: Vec<f32>,
    /// Scratch activations.
    a: Vec<f32>,
    b: Vec<f32>,
    c: Vec<f32>,
    /// im2col columns, `in channels x ky x kx` rows of `area`.
    cols: Vec<f32>,
    pooled: Vec<f32>,
    vec1: Vec<f32>,
    vec2: Vec<f32>,
    out: RawOutput,
}

impl<'m> Forward<'m> {
    /// An evaluator for `model`, or why its layers are beyond this forward pass.
    pub fn new(model: &'m Model) -> Result<Forward<'m>, ForwardError> {
        let unsupported = |what: &str| ForwardError::Unsupported {
            model: model.name.clone(),
            what: what.to_string(),
        };
        for block in &model.trunk.blocks {
            match block {
                Block::Ordinary(_) | Block::GlobalPooling(_) => {}
                Block::NestedBottleneck(b) => {
                    return Err(unsupported(&format!("nested-bottleneck block {}", b.name)))
                }
                Block::Attention(b) => {
                    return Err(unsupported(&format!("attention block {}", b.name)))
                }
                Block::FeedForward(b) => {
                    return Err(unsupported(&format!("feed-forward block {}", b.name)))
                }
            }
        }
        if let TrunkTip::RmsNorm(n) = &model.trunk.tip {
            return Err(unsupported(&format!("RMSNorm trunk tip {}", n.name)));
        }
        if model.trunk.metadata_encoder.is_some() {
            return Err(unsupported("the SGF-metadata encoder"));
        }
        Ok(Forward {
            model,
            size: 0,
            trunk: Vec::new(),
            a: Vec::new(),
            b: Vec::new(),
            c: Vec::new(),
            cols: Vec::new(),
            pooled: Vec::new(),
            vec1: Vec::new(),
            vec2: Vec::new(),
            out: RawOutput::default(),
        })
    }

    pub fn model(&self) -> &'m Model {
        self.model
    }

    /// Runs the network on `spatial` (`input channels x size x size`) and `global`.
    pub fn run(&mut self, size: usize, spatial: &[f32], global: &[f32]) -> &RawOutput {
        let m = self.model;
        let area = size * size;
        assert_eq!(spatial.len(), m.input_channels * area, "spatial inputs");
        assert_eq!(global.len(), m.global_channels, "global inputs");
        self.size = size;
        let t = &m.trunk;

        // Initial conv, plus a per-channel bias from the globals.
        conv(
            &t.initial_conv,
            size,
            spatial,
            &mut self.trunk,
            &mut self.cols,
        );
        matmul(&t.initial_matmul, global, &mut self.vec1);
        add_channel_bias(&mut self.trunk, &self.vec1, area);

        for block in &t.blocks {
            match block {
                Block::Ordinary(b) => self.residual(b),
                Block::GlobalPooling(b) => self.gpool_block(b),
                _ => unreachable!("checked in Forward::new"),
            }
        }
        let TrunkTip::BatchNorm(tip) = &t.tip else {
            unreachable!("checked in Forward::new")
        };
        bn_act(&mut self.trunk, tip, t.tip_activation, area);

        self.policy_head();
        self.value_head();
        self.out.size = size;
        &self.out
    }

    fn residual(&mut self, b: &ResidualBlock) {
        let n = self.size;
        let area = n * n;
        self.a.clear();
        self.a.extend_from_slice(&self.trunk);
        bn_act(&mut self.a, &b.pre_bn, b.pre_activation, area);
        conv(&b.regular_conv, n, &self.a, &mut self.b, &mut self.cols);
        bn_act(&mut self.b, &b.mid_bn, b.mid_activation, area);
        conv(&b.final_conv, n, &self.b, &mut self.c, &mut self.cols);
        add(&mut self.trunk, &self.c);
    }

    fn gpool_block(&mut self, b: &GlobalPoolingBlock) {
        let n = self.size;
        let area = n * n;
        self.a.clear();
        self.a.extend_from_slice(&self.trunk);
        bn_act(&mut self.a, &b.pre_bn, b.pre_activation, area);
        conv(&b.regular_conv, n, &self.a, &mut self.b, &mut self.cols);
        conv(&b.gpool_conv, n, &self.a, &mut self.c, &mut self.cols);
        bn_act(&mut self.c, &b.gpool_bn, b.gpool_activation, area);
        gpool(&self.c, area, &mut self.pooled);
        matmul(&b.gpool_to_bias, &self.pooled, &mut self.vec1);
        add_channel_bias(&mut self.b, &self.vec1, area);
        bn_act(&mut self.b, &b.mid_bn, b.mid_activation, area);
        conv(&b.final_conv, n, &self.b, &mut self.c, &mut self.cols);
        add(&mut self.trunk, &self.c);
    }

    fn policy_head(&mut self) {
        let m = self.model;
        let h = &m.policy;
        let n = self.size;
        let area = n * n;
        conv(&h.p1_conv, n, &self.trunk, &mut self.a, &mut self.cols);
        conv(&h.g1_conv, n, &self.trunk, &mut self.b, &mut self.cols);
        bn_act(&mut self.b, &h.g1_bn, h.g1_activation, area);
        gpool(&self.b, area, &mut self.pooled);
        matmul(&h.gpool_to_bias, &self.pooled, &mut self.vec1);
        add_channel_bias(&mut self.a, &self.vec1, area);
        bn_act(&mut self.a, &h.p1_bn, h.p1_activation, area);
        conv(&h.p2_conv, n, &self.a, &mut self.out.policy, &mut self.cols);
        match (&h.pass_bias, h.pass_activation, &h.gpool_to_pass2) {
            (Some(bias), Some(act), Some(mul2)) => {
                matmul(&h.gpool_to_pass, &self.pooled, &mut self.vec1);
                add_bias(&mut self.vec1, bias);
                activate(&mut self.vec1, act);
                matmul(mul2, &self.vec1, &mut self.out.pass);
            }
            _ => matmul(&h.gpool_to_pass, &self.pooled, &mut self.out.pass),
        }
    }

    fn value_head(&mut self) {
        let m = self.model;
        let h = &m.value;
        let n = self.size;
        let area = n * n;
        conv(&h.v1_conv, n, &self.trunk, &mut self.a, &mut self.cols);
        bn_act(&mut self.a, &h.v1_bn, h.v1_activation, area);
        value_pool(&self.a, area, &mut self.pooled);
        matmul(&h.v2_mul, &self.pooled, &mut self.vec1);
        add_bias(&mut self.vec1, &h.v2_bias);
        activate(&mut self.vec1, h.v2_activation);
        matmul(&h.v3_mul, &self.vec1, &mut self.vec2);
        add_bias(&mut self.vec2, &h.v3_bias);
        self.out.value = [self.vec2[0], self.vec2[1], self.vec2[2]];
        matmul(&h.sv3_mul, &self.vec1, &mut self.out.score);
        add_bias(&mut self.out.score, &h.sv3_bias);
        conv(
            &h.ownership_conv,
            n,
            &self.a,
            &mut self.out.ownership,
            &mut self.cols,
        );
    }
}

// ---------------------------------------------------------------------------------------
// Layers.

/// A "same" convolution of `input` (`in x size x size`) into `out` (`out x size x size`):
/// `out[o][p] = sum over i, dy, dx of w[o][i][dy][dx] * in[i][p + (dy - ry, dx - rx)]`,
/// zero outside the board. 1x1 kernels multiply the input directly; others through
/// im2col columns in `cols`.
fn conv(c: &Conv, size: usize, input: &[f32], out: &mut Vec<f32>, cols: &mut Vec<f32>) {
    let area = size * size;
    debug_assert_eq!(input.len(), c.in_channels * area);
    let k = c.in_channels * c.kernel_y * c.kernel_x;
    let source: &[f32] = if c.kernel_y == 1 && c.kernel_x == 1 {
        input
    } else {
        im2col(c, size, input, cols);
        cols
    };
    out.clear();
    out.resize(c.out_channels * area, 0.0);
    gemm_rows(&c.weights, c.out_channels, k, source, area, out);
}

/// The im2col columns of `input` for `c`'s kernel: row `(i, dy, dx)` holds, at point
/// `(y, x)`, the input of channel `i` at `(y + dy - ry, x + dx - rx)` (0 off the board).
fn im2col(c: &Conv, size: usize, input: &[f32], cols: &mut Vec<f32>) {
    let n = size as isize;
    let area = size * size;
    let (ky, kx) = (c.kernel_y, c.kernel_x);
    let (ry, rx) = ((ky / 2) as isize, (kx / 2) as isize);
    cols.clear();
    cols.resize(c.in_channels * ky * kx * area, 0.0);
    let mut row = 0;
    for i in 0..c.in_channels {
        let plane = &input[i * area..(i + 1) * area];
        for dy in 0..ky as isize {
            for dx in 0..kx as isize {
                let dst = &mut cols[row * area..(row + 1) * area];
                let oy = dy - ry;
                let ox = dx - rx;
                // Output columns x whose source column x + ox is on the board.
                let x0 = (-ox).max(0) as usize;
                let x1 = (n - ox).min(n).max(0) as usize;
                for y in 0..n {
                    let sy = y + oy;
                    if sy < 0 || sy >= n || x0 >= x1 {
                        continue;
                    }
                    let d = (y * n) as usize;
                    let s = (sy * n + ox) as usize;
                    dst[d + x0..d + x1].copy_from_slice(&plane[s + x0..s + x1]);
                }
                row += 1;
            }
        }
    }
}

/// `out (m x n) += w (m x k) * b (k x n)`, all row-major; the inner loop runs along `n`.
fn gemm_rows(w: &[f32], m: usize, k: usize, b: &[f32], n: usize, out: &mut [f32]) {
    debug_assert_eq!(w.len(), m * k);
    debug_assert_eq!(b.len(), k * n);
    for o in 0..m {
        let dst = &mut out[o * n..(o + 1) * n];
        let wrow = &w[o * k..(o + 1) * k];
        for (j, &wv) in wrow.iter().enumerate() {
            if wv == 0.0 {
                continue;
            }
            let src = &b[j * n..(j + 1) * n];
            for (d, &s) in dst.iter_mut().zip(src) {
                *d += wv * s;
            }
        }
    }
}

/// A dense layer: `out = x W` with `W` `in x out`.
fn matmul(mm: &MatMul, x: &[f32], out: &mut Vec<f32>) {
    debug_assert_eq!(x.len(), mm.in_channels);
    out.clear();
    out.resize(mm.out_channels, 0.0);
    for (i, &xv) in x.iter().enumerate() {
        let row = &mm.weights[i * mm.out_channels..(i + 1) * mm.out_channels];
        for (o, &w) in out.iter_mut().zip(row) {
            *o += xv * w;
        }
    }
}

fn add_bias(x: &mut [f32], b: &MatBias) {
    for (v, &bv) in x.iter_mut().zip(&b.weights) {
        *v += bv;
    }
}

/// Adds `bias[c]` to every point of channel `c`.
fn add_channel_bias(x: &mut [f32], bias: &[f32], area: usize) {
    for (plane, &b) in x.chunks_exact_mut(area).zip(bias) {
        for v in plane {
            *v += b;
        }
    }
}

fn add(x: &mut [f32], y: &[f32]) {
    for (a, &b) in x.iter_mut().zip(y) {
        *a += b;
    }
}

/// A folded batch norm then an activation, in place.
fn bn_act(x: &mut [f32], bn: &BatchNorm, act: Activation, area: usize) {
    debug_assert_eq!(x.len(), bn.channels * area);
    for (c, plane) in x.chunks_exact_mut(area).enumerate() {
        let (s, b) = (bn.scale[c], bn.bias[c]);
        for v in plane.iter_mut() {
            *v = *v * s + b;
        }
        activate(plane, act);
    }
}

fn activate(x: &mut [f32], act: Activation) {
    match act {
        Activation::Identity => {}
        Activation::Relu => {
            for v in x {
                *v = v.max(0.0);
            }
        }
        Activation::Mish => {
            for v in x {
                *v = mish(*v);
            }
        }
        Activation::Silu => {
            for v in x {
                *v = *v / (1.0 + (-*v).exp());
            }
        }
    }
}

/// `x tanh(softplus(x))`, with softplus taken as `x` where `exp` would overflow.
fn mish(x: f32) -> f32 {
    let sp = if x > 20.0 { x } else { x.exp().ln_1p() };
    x * sp.tanh()
}

/// KataGo's global pooling of a trunk-style tensor: per channel the mean, the mean scaled
/// by `(sqrt(area) - 14) / 10`, and the maximum (`3 x channels` values, in that order).
fn gpool(x: &[f32], area: usize, out: &mut Vec<f32>) {
    let channels = x.len() / area;
    out.clear();
    out.resize(3 * channels, 0.0);
    let div = area as f32;
    let scale = (div.sqrt() - 14.0) * 0.1;
    for (c, plane) in x.chunks_exact(area).enumerate() {
        let sum: f32 = plane.iter().sum();
        let max = plane.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let mean = sum / div;
        out[c] = mean;
        out[channels + c] = mean * scale;
        out[2 * channels + c] = max;
    }
}

/// KataGo's value-head pooling: the mean, the mean scaled by `(sqrt(area) - 14) / 10`,
/// and the mean scaled by `(sqrt(area) - 14)^2 / 100 - 0.1`.
fn value_pool(x: &[f32], area: usize, out: &mut Vec<f32>) {
    let channels = x.len() / area;
    out.clear();
    out.resize(3 * channels, 0.0);
    let div = area as f32;
    let d = div.sqrt() - 14.0;
    for (c, plane) in x.chunks_exact(area).enumerate() {
        let sum: f32 = plane.iter().sum();
        let mean = sum / div;
        out[c] = mean;
        out[channels + c] = mean * d * 0.1;
        out[2 * channels + c] = mean * (d * d * 0.01 - 0.1);
    }
}
