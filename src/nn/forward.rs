//! The forward pass of a KataGo network (`model::Model`: ResNets with ordinary and
//! global-pooling blocks, nested bottlenecks, transformers with RoPE, grouped key-value heads
//! and SwiGLU, a batch-norm or RMSNorm trunk tip), on a batch of positions at exactly the
//! board size: no padding to 19x19 and no mask, so every activation is `channels x batch x
//! size x size`, channel-major, each channel's planes of the batch side by side (so that one
//! product with the weights serves the whole batch), each plane row-major with row 0 at the
//! top (the layout of [`features::Features`](super::features::Features)).
//!
//! The semantics are KataGo's (its `eigenbackend.cpp`): "same" convolutions (a
//! cross-correlation, zero outside the board), batch norms folded into a scale and bias,
//! global pooling of `C` channels into `3C` values (mean, mean x (sqrt(area) - 14) / 10,
//! and the maximum; the value head replaces the maximum by mean x ((sqrt(area) - 14)^2 /
//! 100 - 0.1)), attention over the board points only. Outputs are raw: logits and
//! pre-activation values from the point of view of the player to move; `eval` turns them
//! into probabilities and White's values. The layers are in `ops`.

use super::model::{Attention, Block, Model, Rope, TrunkTip};
use super::ops::Kind;
use super::ops::{
    activate, add, add_bias, add_channel_bias, bf16_weights, bn_act, conv, conv_bf16_weights,
    dense, fp32_weights, gemm, gpool, matmul, rms_norm, scale_columns, softmax_rows_unnormalised,
    swiglu, transformer_norm, value_pool, Layout, Write,
};
use super::profile::{Part, Profile};

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
    batch: usize,
    /// The trunk (residual stream), `channels x batch x area`.
    trunk: Vec<f32>,
    s: Scratch,
    /// The outputs of the batch's positions, in order (more when an earlier batch was
    /// larger).
    out: Vec<RawOutput>,
}

/// Buffers reused from one position to the next.
#[derive(Default)]
struct Scratch {
    a: Vec<f32>,
    b: Vec<f32>,
    c: Vec<f32>,
    /// im2col columns, `in channels x ky x kx` rows of `batch x area`.
    cols: Vec<f32>,
    pooled: Vec<f32>,
    vec1: Vec<f32>,
    vec2: Vec<f32>,
    /// Attention: queries, keys, values, one head's scores, the heads' outputs.
    q: Vec<f32>,
    k: Vec<f32>,
    v: Vec<f32>,
    scores: Vec<f32>,
    /// bf16 attention: the queries and keys in channel pairs, one head's values and
    /// weights in point pairs.
    qkp: (Vec<u32>, Vec<u32>),
    attn_packed: Vec<u32>,
    /// Per query point, the reciprocal of its softmax row's sum.
    row_scale: Vec<f32>,
    /// The bf16 kernel's packed inputs, and a second set (a feed-forward's hidden layer).
    xp: super::ops::Packed,
    hp: super::ops::Packed,
    /// The arithmetic of the dense layers and 1x1 convolutions.
    kind: Kind,
    /// Per-point inverse root mean squares of the RMSNorms.
    norm: Vec<f32>,
    /// The residual streams of nested bottlenecks, one a level.
    mids: Vec<Vec<f32>>,
    /// RoPE cosines and sines per attention block and board size.
    rope: Vec<RopeTable>,
    /// Time by kind of layer, when profiling.
    prof: Profile,
}

struct RopeTable {
    block: *const Attention,
    size: usize,
    cos: Vec<f32>,
    sin: Vec<f32>,
}

// SAFETY: `block` is only compared, never dereferenced.
unsafe impl Send for RopeTable {}

impl<'m> Forward<'m> {
    /// An evaluator for `model` whose dense layers and 1x1 convolutions run in `kind`, or
    /// why its layers are beyond this forward pass (or `kind` beyond this CPU).
    pub fn new(model: &'m Model, kind: Kind) -> Result<Forward<'m>, ForwardError> {
        let unsupported = |what: String| ForwardError::Unsupported {
            model: model.name.clone(),
            what,
        };
        fn check(blocks: &[Block]) -> Result<(), String> {
            for block in blocks {
                match block {
                    Block::NestedBottleneck(b) => check(&b.blocks)?,
                    Block::FeedForward(f) if f.gate.is_none() => {
                        return Err(format!(
                            "feed-forward block {} without a SwiGLU gate",
                            f.name
                        ))
                    }
                    _ => {}
                }
            }
            Ok(())
        }
        check(&model.trunk.blocks).map_err(unsupported)?;
        if model.trunk.metadata_encoder.is_some() {
            return Err(unsupported("the SGF-metadata encoder".to_string()));
        }
        if !kind.available() {
            return Err(unsupported(format!("{} kernels on this CPU", kind.name())));
        }
        Ok(Forward {
            model,
            size: 0,
            batch: 0,
            trunk: Vec::new(),
            s: Scratch {
                kind,
                ..Scratch::default()
            },
            out: Vec::new(),
        })
    }

    pub fn model(&self) -> &'m Model {
        self.model
    }

    /// Adds up the time of each kind of layer from now on (`true`) or stops.
    pub fn set_profiling(&mut self, on: bool) {
        self.s.prof.set_on(on);
    }

    /// The time of each kind of layer so far, over the passes run while profiling.
    pub fn profile(&self) -> &Profile {
        &self.s.prof
    }

    /// Runs the network on `spatial` (`input channels x size x size`) and `global`.
    pub fn run(&mut self, size: usize, spatial: &[f32], global: &[f32]) -> &RawOutput {
        self.run_until(size, spatial, global, &|| false)
            .expect("a run that is never stopped ends")
    }

    /// [`run`](Self::run), abandoned (`None`) when `stop` answers true before a block of
    /// the trunk: a search told to stop does not wait out a whole evaluation.
    pub fn run_until(
        &mut self,
        size: usize,
        spatial: &[f32],
        global: &[f32],
        stop: &dyn Fn() -> bool,
    ) -> Option<&RawOutput> {
        self.run_batch_until(size, 1, spatial, global, stop)
            .map(|out| &out[0])
    }

    /// Runs the network on `batch` positions at once: `spatial` is `input channels x batch
    /// x size x size` (each input plane of every position, side by side), `global` the
    /// positions' global inputs one after the other. The outputs are each position's, in
    /// order, as [`run`](Self::run) would give them up to the rounding of the products'
    /// sums. `None` when `stop` answered true before a block of the trunk.
    pub fn run_batch_until(
        &mut self,
        size: usize,
        batch: usize,
        spatial: &[f32],
        global: &[f32],
        stop: &dyn Fn() -> bool,
    ) -> Option<&[RawOutput]> {
        let m = self.model;
        let area = size * size;
        assert!(batch >= 1, "an empty batch");
        assert_eq!(
            spatial.len(),
            m.input_channels * batch * area,
            "spatial inputs"
        );
        assert_eq!(global.len(), m.global_channels * batch, "global inputs");
        self.size = size;
        self.batch = batch;
        if self.out.len() < batch {
            self.out.resize_with(batch, RawOutput::default);
        }
        let _flush = super::ops::FlushDenormals::new();
        let t = &m.trunk;
        let s = &mut self.s;
        let clock = s.prof.start();

        // Initial conv, plus a per-channel bias from the globals.
        conv(
            &t.initial_conv,
            size,
            batch,
            spatial,
            &mut self.trunk,
            &mut s.cols,
            s.kind,
        );
        for (b, g) in global.chunks_exact(m.global_channels).enumerate() {
            matmul(&t.initial_matmul, g, &mut s.vec1);
            add_channel_bias(&mut self.trunk, &s.vec1, area, batch, b);
        }
        s.prof.add(Part::Input, clock);

        for block in &t.blocks {
            if stop() {
                return None;
            }
            apply_block(block, size, batch, &mut self.trunk, s, 0);
        }
        let clock = s.prof.start();
        let width = batch * area;
        match &t.tip {
            TrunkTip::BatchNorm(tip) => bn_act(&mut self.trunk, tip, t.tip_activation, width),
            TrunkTip::RmsNorm(tip) => rms_norm(
                &mut self.trunk,
                tip,
                t.tip_activation,
                area,
                batch,
                &mut s.norm,
            ),
        }

        self.policy_head();
        self.value_head();
        self.s.prof.add(Part::Outputs, clock);
        if clock.is_some() {
            self.s.prof.passes += 1;
        }
        for out in &mut self.out[..batch] {
            out.size = size;
        }
        Some(&self.out[..batch])
    }

    fn policy_head(&mut self) {
        let m = self.model;
        let h = &m.policy;
        let (n, batch) = (self.size, self.batch);
        let area = n * n;
        let width = batch * area;
        let s = &mut self.s;
        conv(
            &h.p1_conv,
            n,
            batch,
            &self.trunk,
            &mut s.a,
            &mut s.cols,
            s.kind,
        );
        conv(
            &h.g1_conv,
            n,
            batch,
            &self.trunk,
            &mut s.b,
            &mut s.cols,
            s.kind,
        );
        bn_act(&mut s.b, &h.g1_bn, h.g1_activation, width);
        for (b, out) in self.out[..batch].iter_mut().enumerate() {
            gpool(&s.b, area, batch, b, &mut s.pooled);
            matmul(&h.gpool_to_bias, &s.pooled, &mut s.vec1);
            add_channel_bias(&mut s.a, &s.vec1, area, batch, b);
            match (&h.pass_bias, h.pass_activation, &h.gpool_to_pass2) {
                (Some(bias), Some(act), Some(mul2)) => {
                    matmul(&h.gpool_to_pass, &s.pooled, &mut s.vec1);
                    add_bias(&mut s.vec1, bias);
                    activate(&mut s.vec1, act);
                    matmul(mul2, &s.vec1, &mut out.pass);
                }
                _ => matmul(&h.gpool_to_pass, &s.pooled, &mut out.pass),
            }
        }
        bn_act(&mut s.a, &h.p1_bn, h.p1_activation, width);
        conv(&h.p2_conv, n, batch, &s.a, &mut s.c, &mut s.cols, s.kind);
        unbatch(&s.c, area, batch, &mut self.out, |o| &mut o.policy);
    }

    fn value_head(&mut self) {
        let m = self.model;
        let h = &m.value;
        let (n, batch) = (self.size, self.batch);
        let area = n * n;
        let s = &mut self.s;
        conv(
            &h.v1_conv,
            n,
            batch,
            &self.trunk,
            &mut s.a,
            &mut s.cols,
            s.kind,
        );
        bn_act(&mut s.a, &h.v1_bn, h.v1_activation, batch * area);
        for (b, out) in self.out[..batch].iter_mut().enumerate() {
            value_pool(&s.a, area, batch, b, &mut s.pooled);
            matmul(&h.v2_mul, &s.pooled, &mut s.vec1);
            add_bias(&mut s.vec1, &h.v2_bias);
            activate(&mut s.vec1, h.v2_activation);
            matmul(&h.v3_mul, &s.vec1, &mut s.vec2);
            add_bias(&mut s.vec2, &h.v3_bias);
            out.value = [s.vec2[0], s.vec2[1], s.vec2[2]];
            matmul(&h.sv3_mul, &s.vec1, &mut out.score);
            add_bias(&mut out.score, &h.sv3_bias);
        }
        conv(
            &h.ownership_conv,
            n,
            batch,
            &s.a,
            &mut s.c,
            &mut s.cols,
            s.kind,
        );
        unbatch(&s.c, area, batch, &mut self.out, |o| &mut o.ownership);
    }
}

/// Copies each position's planes of `x` (`channels x batch x area`) into its own output
/// (`channels x area`), the field `field` picks.
fn unbatch(
    x: &[f32],
    area: usize,
    batch: usize,
    outs: &mut [RawOutput],
    field: impl Fn(&mut RawOutput) -> &mut Vec<f32>,
) {
    let channels = x.len() / (batch * area);
    for (b, out) in outs[..batch].iter_mut().enumerate() {
        let v = field(out);
        v.clear();
        for row in x.chunks_exact(batch * area) {
            v.extend_from_slice(&row[b * area..(b + 1) * area]);
        }
        debug_assert_eq!(v.len(), channels * area);
    }
}

// ---------------------------------------------------------------------------------------
// Blocks.

/// Applies one residual block to the stream `x` (`channels x batch x area`); `depth` is
/// how many nested bottlenecks enclose it.
fn apply_block(
    block: &Block,
    size: usize,
    batch: usize,
    x: &mut [f32],
    s: &mut Scratch,
    depth: usize,
) {
    let area = size * size;
    let width = batch * area;
    match block {
        Block::Ordinary(b) => {
            let t = s.prof.start();
            s.a.clear();
            s.a.extend_from_slice(x);
            bn_act(&mut s.a, &b.pre_bn, b.pre_activation, width);
            let t = s.prof.add(Part::ElementWise, t);
            conv(
                &b.regular_conv,
                size,
                batch,
                &s.a,
                &mut s.b,
                &mut s.cols,
                s.kind,
            );
            let t = s.prof.add(Part::Convolutions, t);
            bn_act(&mut s.b, &b.mid_bn, b.mid_activation, width);
            let t = s.prof.add(Part::ElementWise, t);
            conv(
                &b.final_conv,
                size,
                batch,
                &s.b,
                &mut s.c,
                &mut s.cols,
                s.kind,
            );
            let t = s.prof.add(Part::Convolutions, t);
            add(x, &s.c);
            s.prof.add(Part::ElementWise, t);
        }
        Block::GlobalPooling(b) => {
            let t = s.prof.start();
            s.a.clear();
            s.a.extend_from_slice(x);
            bn_act(&mut s.a, &b.pre_bn, b.pre_activation, width);
            let t = s.prof.add(Part::ElementWise, t);
            conv(
                &b.regular_conv,
                size,
                batch,
                &s.a,
                &mut s.b,
                &mut s.cols,
                s.kind,
            );
            conv(
                &b.gpool_conv,
                size,
                batch,
                &s.a,
                &mut s.c,
                &mut s.cols,
                s.kind,
            );
            let t = s.prof.add(Part::Convolutions, t);
            bn_act(&mut s.c, &b.gpool_bn, b.gpool_activation, width);
            for p in 0..batch {
                gpool(&s.c, area, batch, p, &mut s.pooled);
                matmul(&b.gpool_to_bias, &s.pooled, &mut s.vec1);
                add_channel_bias(&mut s.b, &s.vec1, area, batch, p);
            }
            bn_act(&mut s.b, &b.mid_bn, b.mid_activation, width);
            let t = s.prof.add(Part::ElementWise, t);
            conv(
                &b.final_conv,
                size,
                batch,
                &s.b,
                &mut s.c,
                &mut s.cols,
                s.kind,
            );
            let t = s.prof.add(Part::Convolutions, t);
            add(x, &s.c);
            s.prof.add(Part::ElementWise, t);
        }
        Block::NestedBottleneck(b)
            if s.kind == Kind::Bf16
                && conv_bf16_weights(&b.pre_conv).is_some()
                && conv_bf16_weights(&b.post_conv).is_some() =>
        {
            // In bf16: each 1x1 convolution's input normalised straight into its packing,
            // the second one's sums added to the stream.
            if s.mids.len() <= depth {
                s.mids.resize_with(depth + 1, Vec::new);
            }
            let mut mid = std::mem::take(&mut s.mids[depth]);
            let t = s.prof.start();
            s.xp.bn_act(x, &b.pre_bn, b.pre_activation, width);
            let t = s.prof.add(Part::ElementWise, t);
            mid.resize(b.pre_conv.out_channels * width, 0.0);
            s.xp.conv(&b.pre_conv, width, &mut mid, Write::Store);
            s.prof.add(Part::Convolutions, t);
            for inner in &b.blocks {
                apply_block(inner, size, batch, &mut mid, s, depth + 1);
            }
            let t = s.prof.start();
            s.xp.bn_act(&mid, &b.post_bn, b.post_activation, width);
            let t = s.prof.add(Part::ElementWise, t);
            s.xp.conv(&b.post_conv, width, x, Write::Add);
            s.prof.add(Part::Convolutions, t);
            s.mids[depth] = mid;
        }
        Block::NestedBottleneck(b) => {
            if s.mids.len() <= depth {
                s.mids.resize_with(depth + 1, Vec::new);
            }
            let mut mid = std::mem::take(&mut s.mids[depth]);
            let t = s.prof.start();
            s.a.clear();
            s.a.extend_from_slice(x);
            bn_act(&mut s.a, &b.pre_bn, b.pre_activation, width);
            let t = s.prof.add(Part::ElementWise, t);
            conv(
                &b.pre_conv,
                size,
                batch,
                &s.a,
                &mut mid,
                &mut s.cols,
                s.kind,
            );
            s.prof.add(Part::Convolutions, t);
            for inner in &b.blocks {
                apply_block(inner, size, batch, &mut mid, s, depth + 1);
            }
            let t = s.prof.start();
            bn_act(&mut mid, &b.post_bn, b.post_activation, width);
            let t = s.prof.add(Part::ElementWise, t);
            conv(
                &b.post_conv,
                size,
                batch,
                &mid,
                &mut s.c,
                &mut s.cols,
                s.kind,
            );
            let t = s.prof.add(Part::Convolutions, t);
            add(x, &s.c);
            s.prof.add(Part::ElementWise, t);
            s.mids[depth] = mid;
        }
        Block::Attention(b) => attention(b, size, batch, x, s),
        Block::FeedForward(b)
            if s.kind == Kind::Bf16
                && bf16_weights(&b.linear1).is_some()
                && b.gate.as_ref().and_then(bf16_weights).is_some()
                && bf16_weights(&b.linear2).is_some() =>
        {
            // In bf16: the norm straight into the packing, SwiGLU in the products'
            // epilogue, the output layer's sums added to the stream.
            let gate = b.gate.as_ref().expect("checked in Forward::new");
            let t = s.prof.start();
            s.xp.norm(x, &b.pre_norm, width, &mut s.norm);
            let t = s.prof.add(Part::ElementWise, t);
            s.xp.swiglu(&b.linear1, gate, width, &mut s.hp);
            s.hp.dense(&b.linear2, width, x, Write::Add);
            s.prof.add(Part::FeedForward, t);
        }
        Block::FeedForward(b)
            if s.kind == Kind::Fp32
                && fp32_weights(&b.linear1, width).is_some()
                && b.gate
                    .as_ref()
                    .and_then(|g| fp32_weights(g, width))
                    .is_some()
                && fp32_weights(&b.linear2, width).is_some() =>
        {
            // In fp32 on the tiles: SwiGLU in the products' epilogue, the output layer's
            // sums added to the stream (the bits of the products, ops::swiglu and add).
            let gate = b.gate.as_ref().expect("checked in Forward::new");
            let weights = |mm| fp32_weights(mm, width).expect("checked above");
            let t = s.prof.start();
            transformer_norm(x, &mut s.a, &b.pre_norm, width, &mut s.norm);
            let t = s.prof.add(Part::ElementWise, t);
            let (i, o) = (b.linear1.in_channels, b.linear1.out_channels);
            let (w1, wg) = (weights(&b.linear1), weights(gate));
            super::bf16::swiglu_fp32(w1, wg, i, o, &s.a, width, &mut s.b);
            let (i2, o2) = (b.linear2.in_channels, b.linear2.out_channels);
            let w2 = weights(&b.linear2);
            super::bf16::dense_fp32(w2, i2, o2, &s.b, width, x, Write::Add);
            s.prof.add(Part::FeedForward, t);
        }
        Block::FeedForward(b) => {
            let t = s.prof.start();
            transformer_norm(x, &mut s.a, &b.pre_norm, width, &mut s.norm);
            let t = s.prof.add(Part::ElementWise, t);
            dense(&b.linear1, &s.a, width, &mut s.b, &mut s.xp, false, s.kind);
            let gate = b.gate.as_ref().expect("checked in Forward::new");
            dense(gate, &s.a, width, &mut s.c, &mut s.xp, true, s.kind);
            let t = s.prof.add(Part::FeedForward, t);
            swiglu(&mut s.b, &s.c);
            let t = s.prof.add(Part::ElementWise, t);
            dense(&b.linear2, &s.b, width, &mut s.c, &mut s.xp, false, s.kind);
            let t = s.prof.add(Part::FeedForward, t);
            add(x, &s.c);
            s.prof.add(Part::ElementWise, t);
        }
    }
}

/// Self-attention over the board points (KataGo's `TransformerAttentionBlock`): RMSNorm,
/// projections (for the whole batch at once), RoPE on queries and keys, per position and
/// head `softmax(q^T k / sqrt(d))` weighting the values of the head's key-value group, the
/// output projection, the residual.
fn attention(b: &Attention, size: usize, batch: usize, x: &mut [f32], s: &mut Scratch) {
    let area = size * size;
    let width = batch * area;
    let d = b.q_head_dim;
    let dv = b.v_head_dim;
    let group = b.heads / b.kv_heads;
    let fused = s.kind == Kind::Bf16
        && [&b.q, &b.k, &b.v, &b.out]
            .iter()
            .all(|mm| bf16_weights(mm).is_some());
    let t = s.prof.start();
    let t = if fused {
        // In bf16: the norm straight into the packing the three projections share.
        s.xp.norm(x, &b.pre_norm, width, &mut s.norm);
        let t = s.prof.add(Part::ElementWise, t);
        for (mm, out) in [(&b.q, &mut s.q), (&b.k, &mut s.k), (&b.v, &mut s.v)] {
            out.resize(mm.out_channels * width, 0.0);
            s.xp.dense(mm, width, out, Write::Store);
        }
        t
    } else {
        transformer_norm(x, &mut s.a, &b.pre_norm, width, &mut s.norm);
        let t = s.prof.add(Part::ElementWise, t);
        dense(&b.q, &s.a, width, &mut s.q, &mut s.xp, false, s.kind);
        dense(&b.k, &s.a, width, &mut s.k, &mut s.xp, true, s.kind);
        dense(&b.v, &s.a, width, &mut s.v, &mut s.xp, true, s.kind);
        t
    };
    let t = s.prof.add(Part::Projections, t);
    // In bf16 the queries and keys are turned as they are packed, below.
    let in_bf16 = s.kind == Kind::Bf16 && super::attend::bf16_available() && d.is_multiple_of(2);
    let pairs = d / 2;
    let rope_at = (!matches!(b.rope, Rope::None)).then(|| rope_table(b, size, &mut s.rope));
    let per_head = matches!(b.rope, Rope::Learnable { .. });
    if let Some(table) = rope_at.filter(|_| !in_bf16) {
        let (cos, sin) = (&s.rope[table].cos, &s.rope[table].sin);
        for p in 0..batch {
            let at = Planes { area, batch, p };
            rope(&mut s.q, b.heads, group, d, at, cos, sin, per_head);
            rope(&mut s.k, b.kv_heads, 1, d, at, cos, sin, per_head);
        }
    }
    let scale = 1.0 / (d as f32).sqrt();
    // Written whole below.
    s.b.resize(b.heads * dv * width, 0.0);
    if !super::attend::available() {
        heads_by_products(b, size, batch, s, scale);
    } else {
        let shape = super::attend::HeadShape {
            area,
            stride: width,
            d,
            dv,
        };
        if in_bf16 {
            if let Some(table) = rope_at {
                // Pair `j` of the queries is pair `j % pairs` of head `j / pairs`; the
                // table has a row per pair, per key-value head with learned frequencies.
                let (cos, sin) = (&s.rope[table].cos, &s.rope[table].sin);
                let row = |head: usize, pair: usize| {
                    (if per_head { head * pairs + pair } else { pair }) * area
                };
                let (q, k) = (&mut s.qkp.0, &mut s.qkp.1);
                let q_at = |j: usize| row(j / pairs / group, j % pairs);
                let k_at = |j: usize| row(j / pairs, j % pairs);
                let qn = b.heads * pairs;
                super::bf16::pack_rotated(&s.q, qn, width, area, cos, sin, q_at, q);
                let kn = b.kv_heads * pairs;
                super::bf16::pack_rotated(&s.k, kn, width, area, cos, sin, k_at, k);
            } else {
                super::bf16::pack_inputs(&s.q, b.heads * d, width, &mut s.qkp.0);
                super::bf16::pack_inputs(&s.k, b.kv_heads * d, width, &mut s.qkp.1);
            }
        }
        for p in 0..batch {
            for h in 0..b.heads {
                let kvh = h / group;
                let v = &s.v[kvh * dv * width + p * area..];
                let out = &mut s.b[h * dv * width + p * area..];
                if in_bf16 {
                    super::attend::attend_bf16(
                        &s.qkp.0[h * d / 2 * width + p * area..],
                        &s.qkp.1[kvh * d / 2 * width + p * area..],
                        v,
                        shape,
                        scale,
                        out,
                        &mut s.scores,
                        &mut s.attn_packed,
                    );
                } else {
                    super::attend::attend(
                        &s.q[h * d * width + p * area..],
                        &s.k[kvh * d * width + p * area..],
                        v,
                        shape,
                        scale,
                        out,
                        &mut s.scores,
                    );
                }
            }
        }
    }
    let t = s.prof.add(Part::Heads, t);
    if fused {
        // The output projection's sums added to the stream.
        s.xp.pack(&s.b, b.heads * dv, width);
        s.xp.dense(&b.out, width, x, Write::Add);
        s.prof.add(Part::Projections, t);
        return;
    }
    dense(&b.out, &s.b, width, &mut s.c, &mut s.xp, false, s.kind);
    let t = s.prof.add(Part::Projections, t);
    add(x, &s.c);
    s.prof.add(Part::ElementWise, t);
}

/// The heads of [`attention`] where the CPU has no AVX-512: per position and head, the
/// scores as one product, their softmax, the values as another product.
fn heads_by_products(b: &Attention, size: usize, batch: usize, s: &mut Scratch, scale: f32) {
    let area = size * size;
    let width = batch * area;
    let d = b.q_head_dim;
    let dv = b.v_head_dim;
    let group = b.heads / b.kv_heads;
    // Written whole by the products below.
    s.scores.resize(area * area, 0.0);
    // Rows `rows` of one position's planes: `rows x area`, `width` apart.
    let planes = |rows: usize| Layout {
        rows,
        cols: area,
        rs: width,
        cs: 1,
    };
    for p in 0..batch {
        for h in 0..b.heads {
            let kvh = h / group;
            // scores[qi][ki] = q_h[:, qi] . k_kvh[:, ki]
            gemm(
                &mut s.scores,
                Layout::row_major(area, area),
                false,
                &s.q[h * d * width + p * area..],
                planes(d).t(),
                &s.k[kvh * d * width + p * area..],
                planes(d),
            );
            softmax_rows_unnormalised(&mut s.scores, area, scale, &mut s.row_scale);
            // out_h[:, qi] = sum over ki of scores[qi][ki] v_kvh[:, ki], then divided by the
            // sum of row qi's exponentials (on dv values a point rather than on area).
            let out = &mut s.b[h * dv * width + p * area..];
            gemm(
                out,
                planes(dv),
                false,
                &s.v[kvh * dv * width + p * area..],
                planes(dv),
                &s.scores,
                Layout::row_major(area, area).t(),
            );
            for r in 0..dv {
                scale_columns(&mut out[r * width..r * width + area], &s.row_scale);
            }
        }
    }
}

/// Where one position's planes lie in a batch's activations: `batch` planes of `area`
/// side by side per channel, the position's the `p`th.
#[derive(Clone, Copy)]
struct Planes {
    area: usize,
    batch: usize,
    p: usize,
}

impl Planes {
    /// The start of the position's plane of channel `c`.
    fn at(self, c: usize) -> usize {
        (c * self.batch + self.p) * self.area
    }
}

/// The index in `tables` of `b`'s RoPE cosines and sines at this board size, computed on
/// first use: `[(head or key-value head) x pairs + pair][point]`, the angle `x fx + y fy`
/// for learned frequencies; for a fixed theta the first half of the pairs turn with the
/// row, the second half with the column, pair `p` of a half at `theta^(-2p / (d / 2))`.
fn rope_table(b: &Attention, size: usize, tables: &mut Vec<RopeTable>) -> usize {
    let key = b as *const Attention;
    if let Some(i) = tables.iter().position(|t| t.block == key && t.size == size) {
        return i;
    }
    let area = size * size;
    let pairs = b.q_head_dim / 2;
    let angles: Vec<f32> = match &b.rope {
        Rope::None => Vec::new(),
        Rope::Learnable { freqs } => {
            let mut v = Vec::with_capacity(b.kv_heads * pairs * area);
            for hp in 0..b.kv_heads * pairs {
                let (fx, fy) = (freqs[2 * hp], freqs[2 * hp + 1]);
                for y in 0..size {
                    for x in 0..size {
                        v.push(x as f32 * fx + y as f32 * fy);
                    }
                }
            }
            v
        }
        Rope::Fixed { theta } => {
            let half_pairs = pairs / 2;
            let dim_half = (b.q_head_dim / 2) as f32;
            let mut v = Vec::with_capacity(pairs * area);
            for p in 0..pairs {
                let (along_rows, q) = if p < half_pairs {
                    (true, p)
                } else {
                    (false, p - half_pairs)
                };
                let freq = 1.0 / theta.powf((2 * q) as f32 / dim_half);
                for y in 0..size {
                    for x in 0..size {
                        v.push(if along_rows { y as f32 } else { x as f32 } * freq);
                    }
                }
            }
            v
        }
    };
    tables.push(RopeTable {
        block: key,
        size,
        cos: angles.iter().map(|a| a.cos()).collect(),
        sin: angles.iter().map(|a| a.sin()).collect(),
    });
    tables.len() - 1
}

/// Rotates the channel pairs `(2p, 2p + 1)` of each of `heads` heads of one position of
/// `x` (`heads x d` channels of a batch, the position's planes `at`) by the table's angle
/// at each point. With learned frequencies the table is per key-value head: head `h`
/// reads that of `h / group`.
#[allow(clippy::too_many_arguments)]
fn rope(
    x: &mut [f32],
    heads: usize,
    group: usize,
    d: usize,
    at: Planes,
    cos: &[f32],
    sin: &[f32],
    per_head: bool,
) {
    let pairs = d / 2;
    let area = at.area;
    let width = at.batch * area;
    for h in 0..heads {
        for p in 0..pairs {
            let t = if per_head { (h / group) * pairs + p } else { p } * area;
            let (c, sn) = (&cos[t..t + area], &sin[t..t + area]);
            let base = at.at(h * d + 2 * p);
            let (r0, r1) = x[base..base + width + area].split_at_mut(width);
            super::ops::rotate(&mut r0[..area], &mut r1[..area], c, sn);
        }
    }
}

/// Floating-point operations of one evaluation at `size` (a multiply-add counts two):
/// the convolutions, dense layers and attention products; the element-wise work (norms,
/// activations, softmax) and the global-pooling matmuls are left out (under 1%).
pub fn flops(model: &Model, size: usize) -> u64 {
    let area = (size * size) as u64;
    let conv = |c: &super::model::Conv| {
        2 * (c.in_channels * c.out_channels * c.kernel_y * c.kernel_x) as u64 * area
    };
    let dense = |m: &super::model::MatMul| 2 * (m.in_channels * m.out_channels) as u64 * area;
    fn blocks(
        bs: &[Block],
        conv: &dyn Fn(&super::model::Conv) -> u64,
        dense: &dyn Fn(&super::model::MatMul) -> u64,
        area: u64,
    ) -> u64 {
        bs.iter()
            .map(|b| match b {
                Block::Ordinary(b) => conv(&b.regular_conv) + conv(&b.final_conv),
                Block::GlobalPooling(b) => {
                    conv(&b.regular_conv) + conv(&b.gpool_conv) + conv(&b.final_conv)
                }
                Block::NestedBottleneck(b) => {
                    conv(&b.pre_conv) + conv(&b.post_conv) + blocks(&b.blocks, conv, dense, area)
                }
                Block::Attention(a) => {
                    dense(&a.q)
                        + dense(&a.k)
                        + dense(&a.v)
                        + dense(&a.out)
                        + 2 * (a.heads * (a.q_head_dim + a.v_head_dim)) as u64 * area * area
                }
                Block::FeedForward(f) => {
                    dense(&f.linear1) + f.gate.as_ref().map_or(0, dense) + dense(&f.linear2)
                }
            })
            .sum()
    }
    let t = &model.trunk;
    let (p, v) = (&model.policy, &model.value);
    conv(&t.initial_conv)
        + blocks(&t.blocks, &conv, &dense, area)
        + conv(&p.p1_conv)
        + conv(&p.g1_conv)
        + conv(&p.p2_conv)
        + conv(&v.v1_conv)
        + conv(&v.ownership_conv)
}
