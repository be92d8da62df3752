//! The layers of the forward pass, on channel-major activations (`channels x area`, each
//! plane row-major): convolutions, dense layers, norms, activations, pooling, and the one
//! matrix multiply everything goes through. Each function reads and writes caller-owned
//! buffers, so the [`Forward`](super::forward::Forward) reuses them from one position to
//! the next.

use super::model::{Activation, BatchNorm, Conv, MatBias, MatMul, RmsNorm, TransformerNorm};

/// A "same" convolution of `input` (`in x batch x size x size`: each channel's planes of
/// the batch's positions side by side) into `out` (`out x batch x size x size`):
/// `out[o][p] = sum over i, dy, dx of w[o][i][dy][dx] * in[i][p + (dy - ry, dx - rx)]`,
/// zero outside the board. 1x1 kernels multiply the input directly; others through
/// im2col columns in `cols`. One product for the whole batch: the weights are read once.
pub(super) fn conv(
    c: &Conv,
    size: usize,
    batch: usize,
    input: &[f32],
    out: &mut Vec<f32>,
    cols: &mut Vec<f32>,
    kind: Kind,
) {
    let n = batch * size * size;
    debug_assert_eq!(input.len(), c.in_channels * n);
    if let Some(wq) = (kind == Kind::Int8).then(|| conv_int8_weights(c)).flatten() {
        out.resize(c.out_channels * n, 0.0);
        thread_local! {
            static PACKED: std::cell::RefCell<super::int8::Inputs> = std::cell::RefCell::new(super::int8::Inputs::default());
        }
        PACKED.with(|xq| {
            let xq = &mut xq.borrow_mut();
            xq.pack(input, c.in_channels, n);
            super::int8::dense(wq, xq, out, Write::Store)
        });
        return;
    }
    if let Some(wp) = (kind == Kind::Bf16).then(|| conv_bf16_weights(c)).flatten() {
        out.resize(c.out_channels * n, 0.0);
        thread_local! {
            static PACKED: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        PACKED.with(|xp| {
            let xp = &mut xp.borrow_mut();
            super::bf16::dense(wp, c.in_channels, c.out_channels, input, n, out, xp, false)
        });
        return;
    }
    if let Some(wp) = conv_fp32_weights(c, n) {
        out.resize(c.out_channels * n, 0.0);
        let (i, o) = (c.in_channels, c.out_channels);
        super::bf16::dense_fp32(wp, i, o, input, n, out, Write::Store);
        return;
    }
    let k = c.in_channels * c.kernel_y * c.kernel_x;
    let source: &[f32] = if c.kernel_y == 1 && c.kernel_x == 1 {
        input
    } else {
        im2col(c, size, batch, input, cols);
        cols
    };
    // Every element is written by the product: no need to clear what is there.
    out.resize(c.out_channels * n, 0.0);
    gemm_rows(&c.weights, c.out_channels, k, source, n, out);
}

/// A 1x1 convolution's weights for the bf16 kernel (a dense layer whose weights are
/// `out x in`), packed on first use; `None` for other kernels, or where the layer cannot
/// run in bf16 on this CPU.
pub(super) fn conv_bf16_weights(c: &Conv) -> Option<&[u32]> {
    if c.kernel_y != 1 || c.kernel_x != 1 || !super::bf16::usable(c.out_channels) {
        return None;
    }
    let (i, o) = (c.in_channels, c.out_channels);
    let wp = c
        .bf16
        .get_or_init(|| super::bf16::pack_weights(&conv_as_dense(c), i, o));
    Some(wp)
}

/// A 1x1 convolution's weights in int8, packed on first use; `None` for other kernels or
/// where the layer cannot run in int8 on this CPU.
pub(super) fn conv_int8_weights(c: &Conv) -> Option<&super::int8::Weights> {
    if c.kernel_y != 1 || c.kernel_x != 1 || !super::int8::usable(c.in_channels, c.out_channels) {
        return None;
    }
    let (i, o) = (c.in_channels, c.out_channels);
    Some(
        c.int8
            .get_or_init(|| super::int8::pack_weights(&conv_as_dense(c), i, o)),
    )
}

/// A dense layer's weights in int8, packed on first use; `None` where the layer cannot
/// run in int8 on this CPU.
pub(super) fn int8_weights(mm: &MatMul) -> Option<&super::int8::Weights> {
    if !super::int8::usable(mm.in_channels, mm.out_channels) {
        return None;
    }
    Some(
        mm.int8.get_or_init(|| {
            super::int8::pack_weights(&mm.weights, mm.in_channels, mm.out_channels)
        }),
    )
}

/// A 1x1 convolution's weights for the kernel's fp32 tiles, packed on first use; `None`
/// for other kernels, where the CPU has no AVX-512, or past the tiles' width.
fn conv_fp32_weights(c: &Conv, width: usize) -> Option<&[u32]> {
    let fits = super::bf16::usable_fp32(c.out_channels, width);
    if c.kernel_y != 1 || c.kernel_x != 1 || !fits {
        return None;
    }
    let (i, o) = (c.in_channels, c.out_channels);
    let wp = c
        .fp32
        .get_or_init(|| super::bf16::pack_weights_fp32(&conv_as_dense(c), i, o));
    Some(wp)
}

/// A 1x1 convolution's weights (`out x in`) as a dense layer's (`in x out`).
fn conv_as_dense(c: &Conv) -> Vec<f32> {
    let (i, o) = (c.in_channels, c.out_channels);
    let mut t = vec![0.0; i * o];
    for oc in 0..o {
        for ic in 0..i {
            t[ic * o + oc] = c.weights[oc * i + ic];
        }
    }
    t
}

/// A dense layer's weights for the kernel's fp32 tiles, packed on first use; `None` where
/// the CPU has no AVX-512, the layer's outputs are not whole blocks or `width` is past the
/// tiles'.
pub(super) fn fp32_weights(mm: &MatMul, width: usize) -> Option<&[u32]> {
    if !super::bf16::usable_fp32(mm.out_channels, width) {
        return None;
    }
    let wp = mm.fp32.get_or_init(|| {
        super::bf16::pack_weights_fp32(&mm.weights, mm.in_channels, mm.out_channels)
    });
    Some(wp)
}

/// A dense layer's weights for the bf16 kernel, packed on first use; `None` where the
/// layer cannot run in bf16 on this CPU.
pub(super) fn bf16_weights(mm: &MatMul) -> Option<&[u32]> {
    if !super::bf16::usable(mm.out_channels) {
        return None;
    }
    let wp = mm
        .bf16
        .get_or_init(|| super::bf16::pack_weights(&mm.weights, mm.in_channels, mm.out_channels));
    Some(wp)
}

/// The im2col columns of `input` (`in x batch x size x size`) for `c`'s kernel: row
/// `(i, dy, dx)` holds, at point `(y, x)` of each position, the input of channel `i` at
/// `(y + dy - ry, x + dx - rx)` (0 off the board).
pub(super) fn im2col(c: &Conv, size: usize, batch: usize, input: &[f32], cols: &mut Vec<f32>) {
    let n = size as isize;
    let area = size * size;
    let width = batch * area;
    let (ky, kx) = (c.kernel_y, c.kernel_x);
    let (ry, rx) = ((ky / 2) as isize, (kx / 2) as isize);
    cols.clear();
    cols.resize(c.in_channels * ky * kx * width, 0.0);
    let mut row = 0;
    for i in 0..c.in_channels {
        for dy in 0..ky as isize {
            for dx in 0..kx as isize {
                let oy = dy - ry;
                let ox = dx - rx;
                // Output columns x whose source column x + ox is on the board.
                let x0 = (-ox).max(0) as usize;
                let x1 = (n - ox).min(n).max(0) as usize;
                for b in 0..batch {
                    let plane = &input[i * width + b * area..i * width + (b + 1) * area];
                    let at = row * width + b * area;
                    let dst = &mut cols[at..at + area];
                    for y in 0..n {
                        let sy = y + oy;
                        if sy < 0 || sy >= n || x0 >= x1 {
                            continue;
                        }
                        let d = (y * n) as usize;
                        let s = (sy * n + ox) as usize;
                        dst[d + x0..d + x1].copy_from_slice(&plane[s + x0..s + x1]);
                    }
                }
                row += 1;
            }
        }
    }
}

/// `out (m x n) = w (m x k) * b (k x n)`, all row-major.
fn gemm_rows(w: &[f32], m: usize, k: usize, b: &[f32], n: usize, out: &mut [f32]) {
    gemm(
        out,
        Layout::row_major(m, n),
        false,
        w,
        Layout::row_major(m, k),
        b,
        Layout::row_major(k, n),
    );
}

/// Where element `(i, j)` of a matrix lies in its slice: at `i * rs + j * cs`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Layout {
    pub rows: usize,
    pub cols: usize,
    pub rs: usize,
    pub cs: usize,
}

impl Layout {
    pub fn row_major(rows: usize, cols: usize) -> Layout {
        Layout {
            rows,
            cols,
            rs: cols,
            cs: 1,
        }
    }

    /// The same elements read as the transposed matrix.
    pub fn t(self) -> Layout {
        Layout {
            rows: self.cols,
            cols: self.rows,
            rs: self.cs,
            cs: self.rs,
        }
    }

    /// One past the largest index the matrix reads.
    fn span(self) -> usize {
        if self.rows == 0 || self.cols == 0 {
            0
        } else {
            (self.rows - 1) * self.rs + (self.cols - 1) * self.cs + 1
        }
    }
}

/// `dst = a b` (or `dst += a b` when `accumulate`), each matrix a strided view of its slice.
/// Panics unless the shapes agree and every view lies inside its slice.
pub(super) fn gemm(
    dst: &mut [f32],
    d: Layout,
    accumulate: bool,
    a: &[f32],
    la: Layout,
    b: &[f32],
    lb: Layout,
) {
    assert!(
        la.rows == d.rows && lb.cols == d.cols && la.cols == lb.rows,
        "gemm shapes"
    );
    assert!(
        d.span() <= dst.len() && la.span() <= a.len() && lb.span() <= b.len(),
        "gemm views"
    );
    if d.rows == 0 || d.cols == 0 {
        return;
    }
    if la.cols == 0 {
        if !accumulate {
            for i in 0..d.rows {
                for j in 0..d.cols {
                    dst[i * d.rs + j * d.cs] = 0.0;
                }
            }
        }
        return;
    }
    if super::cpu::own_products() {
        simd!(kernels::matmul(dst, d, accumulate, a, la, b, lb));
        return;
    }
    // SAFETY: the asserts above keep every index the multiply touches inside its slice, and
    // `dst` is borrowed mutably, so it overlaps neither `a` nor `b`.
    unsafe {
        gemm::gemm(
            d.rows,
            d.cols,
            la.cols,
            dst.as_mut_ptr(),
            d.cs as isize,
            d.rs as isize,
            accumulate,
            a.as_ptr(),
            la.cs as isize,
            la.rs as isize,
            b.as_ptr(),
            lb.cs as isize,
            lb.rs as isize,
            1.0,
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

/// A dense layer's input packed for the bf16 kernel, kept for the next layer that reads
/// the same input (a transformer's q, k and v; a feed-forward's linear1 and gate).
#[derive(Default)]
pub(super) struct Packed {
    xp: Vec<u32>,
    /// The same input in int8, when the last dense layer ran in int8.
    q: super::int8::Inputs,
    /// Whether `xp` (bf16) or `q` (int8) holds the last dense layer's input, packed for the
    /// evaluator's arithmetic.
    valid: bool,
}

impl Packed {
    /// The transformer RMSNorm of `x` (`channels x area`; `inv` its scratch), packed for
    /// the bf16 kernel: the bits [`transformer_norm`] then packing would give, without
    /// the normalised copy.
    pub(super) fn norm(&mut self, x: &[f32], n: &TransformerNorm, area: usize, inv: &mut Vec<f32>) {
        debug_assert_eq!(x.len(), n.channels * area);
        inverse_rms(x, area, n.epsilon, inv);
        super::bf16::pack_normed(x, &n.weight, inv, &mut self.xp);
        self.valid = true;
    }

    /// A folded batch norm and an activation of `x` (`channels x area`), packed for the
    /// bf16 kernel: the bits of [`bn_act`] then packing, `x` unchanged.
    pub(super) fn bn_act(&mut self, x: &[f32], bn: &BatchNorm, act: Activation, area: usize) {
        debug_assert_eq!(x.len(), bn.channels * area);
        super::bf16::pack_rows(bn.channels, area, &mut self.xp, |c, row| {
            row.copy_from_slice(&x[c * area..(c + 1) * area]);
            scale_bias_act(row, bn.scale[c], bn.bias[c], act);
        });
        self.valid = true;
    }

    /// `x` packed for the bf16 kernel.
    pub(super) fn pack(&mut self, x: &[f32], channels: usize, area: usize) {
        super::bf16::pack_inputs(x, channels, area, &mut self.xp);
        self.valid = true;
    }

    /// SwiGLU of two dense layers (`silu(linear1) * gate`) on these packed inputs, into
    /// `out` packed for the next layer, in bf16: the bits of [`dense`] twice, [`swiglu`]
    /// and packing.
    pub(super) fn swiglu(&self, linear1: &MatMul, gate: &MatMul, area: usize, out: &mut Packed) {
        assert!(self.valid, "no packed inputs");
        let (w1, wg) = (
            bf16_weights(linear1).expect("checked by the caller"),
            bf16_weights(gate).expect("checked by the caller"),
        );
        super::bf16::swiglu(
            w1,
            wg,
            linear1.in_channels,
            linear1.out_channels,
            &self.xp,
            area,
            &mut out.xp,
        );
        out.valid = true;
    }

    /// A dense layer on these packed inputs, in bf16, its outputs written into `out` or
    /// added to it.
    pub(super) fn dense(&self, mm: &MatMul, area: usize, out: &mut [f32], write: Write) {
        assert!(self.valid, "no packed inputs");
        let wp = bf16_weights(mm).expect("checked by the caller");
        let (i, o) = (mm.in_channels, mm.out_channels);
        super::bf16::dense_packed(wp, i, o, &self.xp, area, out, write);
    }

    /// A 1x1 convolution on these packed inputs, in bf16, written into `out` or added.
    pub(super) fn conv(&self, c: &Conv, area: usize, out: &mut [f32], write: Write) {
        assert!(self.valid, "no packed inputs");
        let wp = conv_bf16_weights(c).expect("checked by the caller");
        let (i, o) = (c.in_channels, c.out_channels);
        super::bf16::dense_packed(wp, i, o, &self.xp, area, out, write);
    }
}

pub(super) use super::bf16::Write;

/// The precision of the dense layers and 1x1 convolutions, as the programs' knob names it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Precision {
    /// bf16 where the CPU has AVX512-BF16, else int8 where it has AVX512-VNNI, else fp32
    /// (the programs' default; each chosen where a match at equal time showed it beats fp32
    /// on such a CPU, STRENGTH.md): bf16 without those instructions (emulated) gives the
    /// same outputs as with them, but no faster than fp32's arithmetic.
    #[default]
    Auto,
    /// fp32: KataGo's outputs.
    Fp32,
    /// bf16 (on CPUs with AVX-512: F, VL and BW; AVX512-BF16's instructions where it has
    /// them, else emulated).
    Bf16,
    /// int8 products on AVX512-VNNI, weights and inputs scaled per run of 128 channels
    /// (`nn::int8`); on AVX-VNNI or AVX2 without AVX512-VNNI by `nn::int8`'s AVX2 kernels (on AVX2,
    /// the weights rounded to 64 levels a side).
    Int8,
}

/// The arithmetic an evaluator's dense layers and 1x1 convolutions run in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Kind {
    #[default]
    Fp32,
    Bf16,
    Int8,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Fp32 => "fp32",
            Kind::Bf16 => "bf16",
            Kind::Int8 => "int8",
        }
    }

    /// Whether this CPU has the kernels for it.
    pub fn available(self) -> bool {
        match self {
            Kind::Fp32 => true,
            Kind::Bf16 => super::bf16::available(),
            Kind::Int8 => super::int8::available(),
        }
    }
}

impl Precision {
    /// `auto`, `fp32`, `bf16` or `int8`; bf16 is refused where the CPU lacks AVX-512, int8
    /// where it lacks AVX2.
    pub fn parse(v: &str) -> Result<Precision, String> {
        match v {
            "auto" => Ok(Precision::Auto),
            "fp32" => Ok(Precision::Fp32),
            "bf16" if super::bf16::available() => Ok(Precision::Bf16),
            "bf16" => Err("this CPU has no AVX-512 (F, VL, BW)".to_string()),
            "int8" if super::int8::available() => Ok(Precision::Int8),
            "int8" => Err(
                "this CPU has no AVX2 (with FMA): int8 runs on AVX2, AVX-VNNI or AVX512-VNNI"
                    .to_string(),
            ),
            _ => Err(format!("{v:?} is not auto, fp32, bf16 or int8")),
        }
    }

    /// The knob's word for it.
    pub fn name(self) -> &'static str {
        match self {
            Precision::Auto => "auto",
            Precision::Fp32 => "fp32",
            Precision::Bf16 => "bf16",
            Precision::Int8 => "int8",
        }
    }
}

/// Which kernels the dense layers run on here at `width` points (positions times area), in
/// int8 (`amx-int8` on AMX's tiles, else `avx512vnni-int8`, `avxvnni-int8`, `avx2-int8`:
/// [`super::int8::kernels`]), in bf16 (`bf16`) or fp32, as `tengen bench` names them:
/// `avx512bf16` (AVX512-BF16's instructions), `avx512-emulated` (the same bf16 sums by
/// fp32 multiply-adds),
/// `avx512-tiles` (the same tiles in fp32), `gemm` (the gemm crate's products), and
/// under a `TENGEN_CPU` cap below the CPU's own `avx2-loops` or `scalar-loops` (Tengen's
/// plain products, [`super::cpu::own_products`]).
pub fn kernels(kind: Kind, width: usize) -> &'static str {
    match (kind, super::bf16::native(), super::bf16::available()) {
        (Kind::Int8, _, _) if super::int8::amx::available() => "amx-int8",
        (Kind::Int8, _, _) => super::int8::kernels(),
        (Kind::Bf16, true, _) => "avx512bf16",
        (Kind::Bf16, false, true) => "avx512-emulated",
        (Kind::Fp32, _, _) if super::bf16::usable_fp32(super::bf16::BLOCK, width) => "avx512-tiles",
        _ if super::cpu::own_products() && super::cpu::features().avx2 => "avx2-loops",
        _ if super::cpu::own_products() => "scalar-loops",
        _ => "gemm",
    }
}

/// Flush-to-zero and denormals-are-zero on the calling thread while it lives, the previous
/// setting back when dropped: a forward pass never meets a subnormal number, which costs
/// x86 cores a hundred cycles or more an operation (KataGo's Eigen build ran 19 times slower
/// here without it). The model's subnormal weights are zeroed when it is read; this covers
/// the activations. Outputs move by no more than the subnormal range.
pub(super) struct FlushDenormals {
    #[cfg(target_arch = "x86_64")]
    saved: u32,
}

impl FlushDenormals {
    /// MXCSR's flush-to-zero (bit 15) and denormals-are-zero (bit 6).
    #[cfg(target_arch = "x86_64")]
    const BITS: u32 = 0x8040;

    pub(super) fn new() -> FlushDenormals {
        #[cfg(target_arch = "x86_64")]
        {
            let saved = mxcsr();
            set_mxcsr(saved | Self::BITS);
            FlushDenormals { saved }
        }
        #[cfg(not(target_arch = "x86_64"))]
        FlushDenormals {}
    }
}

impl Drop for FlushDenormals {
    fn drop(&mut self) {
        #[cfg(target_arch = "x86_64")]
        set_mxcsr(self.saved);
    }
}

#[cfg(target_arch = "x86_64")]
fn mxcsr() -> u32 {
    let mut v: u32 = 0;
    // SAFETY: stores the SSE control register (every x86-64 CPU has it) into `v`.
    unsafe {
        std::arch::asm!("stmxcsr [{}]", in(reg) &mut v as *mut u32, options(nostack, preserves_flags));
    }
    v
}

#[cfg(target_arch = "x86_64")]
fn set_mxcsr(v: u32) {
    // SAFETY: loads the SSE control register from `v`, a value read from it with only the
    // flush bits changed (no exception unmasked).
    unsafe {
        std::arch::asm!("ldmxcsr [{}]", in(reg) &v as *const u32, options(nostack, preserves_flags, readonly));
    }
}

/// A dense layer applied at every point: `out (out x area) = W^T x` for `x` `in x area`.
/// Computed as its transpose `out^T = x^T W`, so that the weights (`in x out`, read from
/// memory at every call) are the right operand in their own row-major order (with weights
/// out of cache, 192 x 512 at 81 points: 94 GFLOP/s against 90 reading them transposed).
/// In bf16 when `bf16` and the layer suits the kernel; `same_input` when the last dense
/// layer through `packed` had this same `x` (its packing is then reused).
pub(super) fn dense(
    mm: &MatMul,
    x: &[f32],
    area: usize,
    out: &mut Vec<f32>,
    packed: &mut Packed,
    same_input: bool,
    kind: Kind,
) {
    debug_assert_eq!(x.len(), mm.in_channels * area);
    out.resize(mm.out_channels * area, 0.0);
    if let Some(wq) = (kind == Kind::Int8).then(|| int8_weights(mm)).flatten() {
        if !(same_input && packed.valid) {
            packed.q.pack(x, mm.in_channels, area);
        }
        super::int8::dense(wq, &packed.q, out, Write::Store);
        packed.valid = true;
        return;
    }
    if let Some(wp) = (kind == Kind::Bf16).then(|| bf16_weights(mm)).flatten() {
        let reuse = same_input && packed.valid;
        super::bf16::dense(
            wp,
            mm.in_channels,
            mm.out_channels,
            x,
            area,
            out,
            &mut packed.xp,
            reuse,
        );
        packed.valid = true;
        return;
    }
    packed.valid = false;
    if let Some(wp) = fp32_weights(mm, area) {
        let (i, o) = (mm.in_channels, mm.out_channels);
        super::bf16::dense_fp32(wp, i, o, x, area, out, Write::Store);
        return;
    }
    gemm(
        out,
        Layout::row_major(mm.out_channels, area).t(),
        false,
        x,
        Layout::row_major(mm.in_channels, area).t(),
        &mm.weights,
        Layout::row_major(mm.in_channels, mm.out_channels),
    );
}

/// A dense layer: `out = x W` with `W` `in x out`.
pub(super) fn matmul(mm: &MatMul, x: &[f32], out: &mut Vec<f32>) {
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

pub(super) fn add_bias(x: &mut [f32], b: &MatBias) {
    for (v, &bv) in x.iter_mut().zip(&b.weights) {
        *v += bv;
    }
}

/// Adds `bias[c]` to every point of channel `c` of position `b` of `x`
/// (`channels x batch x area`).
pub(super) fn add_channel_bias(x: &mut [f32], bias: &[f32], area: usize, batch: usize, b: usize) {
    for (row, &v) in x.chunks_exact_mut(batch * area).zip(bias) {
        for x in &mut row[b * area..(b + 1) * area] {
            *x += v;
        }
    }
}

pub(super) fn add(x: &mut [f32], y: &[f32]) {
    for (a, &b) in x.iter_mut().zip(y) {
        *a += b;
    }
}

/// A folded batch norm then an activation, in place.
pub(super) fn bn_act(x: &mut [f32], bn: &BatchNorm, act: Activation, area: usize) {
    debug_assert_eq!(x.len(), bn.channels * area);
    for (c, plane) in x.chunks_exact_mut(area).enumerate() {
        scale_bias_act(plane, bn.scale[c], bn.bias[c], act);
    }
}

/// `act(x s + b)` over a slice, in place.
pub(super) fn scale_bias_act(x: &mut [f32], s: f32, b: f32, act: Activation) {
    match act {
        Activation::Identity => simd!(kernels::affine(x, s, b)),
        Activation::Relu => simd!(kernels::affine_relu(x, s, b)),
        Activation::Mish => simd!(kernels::affine_mish(x, s, b)),
        Activation::Silu => simd!(kernels::affine_silu(x, s, b)),
    }
}

pub(super) fn activate(x: &mut [f32], act: Activation) {
    scale_bias_act(x, 1.0, 0.0, act)
}

/// KataGo's global pooling of a trunk-style tensor, position `b` of `x`
/// (`channels x batch x area`): per channel the mean, the mean scaled by
/// `(sqrt(area) - 14) / 10`, and the maximum (`3 x channels` values, in that order).
pub(super) fn gpool(x: &[f32], area: usize, batch: usize, b: usize, out: &mut Vec<f32>) {
    let channels = x.len() / (batch * area);
    out.clear();
    out.resize(3 * channels, 0.0);
    let div = area as f32;
    let scale = (div.sqrt() - 14.0) * 0.1;
    for (c, row) in x.chunks_exact(batch * area).enumerate() {
        let plane = &row[b * area..(b + 1) * area];
        let sum: f32 = plane.iter().sum();
        let max = plane.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let mean = sum / div;
        out[c] = mean;
        out[channels + c] = mean * scale;
        out[2 * channels + c] = max;
    }
}

/// KataGo's value-head pooling of position `b` of `x` (`channels x batch x area`): the
/// mean, the mean scaled by `(sqrt(area) - 14) / 10`, and the mean scaled by
/// `(sqrt(area) - 14)^2 / 100 - 0.1`.
pub(super) fn value_pool(x: &[f32], area: usize, batch: usize, b: usize, out: &mut Vec<f32>) {
    let channels = x.len() / (batch * area);
    out.clear();
    out.resize(3 * channels, 0.0);
    let div = area as f32;
    let d = div.sqrt() - 14.0;
    for (c, row) in x.chunks_exact(batch * area).enumerate() {
        let sum: f32 = row[b * area..(b + 1) * area].iter().sum();
        let mean = sum / div;
        out[c] = mean;
        out[channels + c] = mean * d * 0.1;
        out[2 * channels + c] = mean * (d * d * 0.01 - 0.1);
    }
}

/// The transformer blocks' RMSNorm of `x` into `out`: each point's channels divided by
/// their root mean square (plus epsilon), times the weight.
pub(super) fn transformer_norm(
    x: &[f32],
    out: &mut Vec<f32>,
    n: &TransformerNorm,
    area: usize,
    inv: &mut Vec<f32>,
) {
    debug_assert_eq!(x.len(), n.channels * area);
    inverse_rms(x, area, n.epsilon, inv);
    // Every value is written below; at the same size as last time this costs nothing.
    out.resize(x.len(), 0.0);
    simd!(kernels::scaled_planes(x, &n.weight, inv, out))
}

/// Pairs of rows turned point by point: `(r0, r1)` by the angle whose cosine and sine are
/// `cos` and `sin` (RoPE).
pub(super) fn rotate(r0: &mut [f32], r1: &mut [f32], cos: &[f32], sin: &[f32]) {
    simd!(kernels::rotate(r0, r1, cos, sin))
}

/// The trunk tip's RMSNorm with gamma and beta, per point or over each position's whole
/// board (`spatial`), then the activation, in place on `x` (`channels x batch x area`).
pub(super) fn rms_norm(
    x: &mut [f32],
    n: &RmsNorm,
    act: Activation,
    area: usize,
    batch: usize,
    inv: &mut Vec<f32>,
) {
    let width = batch * area;
    debug_assert_eq!(x.len(), n.channels * width);
    if n.spatial {
        for b in 0..batch {
            let mut sum = 0.0f32;
            for row in x.chunks_exact(width) {
                for v in &row[b * area..(b + 1) * area] {
                    sum += v * v;
                }
            }
            let r = 1.0 / (sum / (n.channels * area) as f32 + n.epsilon).sqrt();
            for (c, row) in x.chunks_exact_mut(width).enumerate() {
                for v in &mut row[b * area..(b + 1) * area] {
                    *v = *v * r * n.gamma[c] + n.beta[c];
                }
            }
        }
    } else {
        inverse_rms(x, width, n.epsilon, inv);
        for (c, plane) in x.chunks_exact_mut(width).enumerate() {
            for (v, &r) in plane.iter_mut().zip(inv.iter()) {
                *v = *v * r * n.gamma[c] + n.beta[c];
            }
        }
    }
    activate(x, act);
}

/// Per point, `1 / sqrt(mean of the squares of its channels + epsilon)`, into `inv`.
fn inverse_rms(x: &[f32], area: usize, epsilon: f32, inv: &mut Vec<f32>) {
    inv.clear();
    inv.resize(area, 0.0);
    simd!(kernels::inverse_rms(x, epsilon, inv))
}

/// Row by row of `rows` (rows of `n`), `exp(scale (x - max x))` in place, and into
/// `inv` the reciprocal of each row's sum: the factor that makes the row a softmax of
/// `scale x`, left to the caller, who may apply it to a smaller product.
pub(super) fn softmax_rows_unnormalised(
    rows: &mut [f32],
    n: usize,
    scale: f32,
    inv: &mut Vec<f32>,
) {
    inv.clear();
    inv.resize(rows.len() / n.max(1), 0.0);
    simd!(kernels::softmax_rows_unnormalised(rows, n, scale, inv))
}

/// `softmax(scale x)` of one row, in place.
#[cfg(test)]
pub(super) fn softmax_scaled(row: &mut [f32], scale: f32) {
    let mut inv = Vec::new();
    softmax_rows_unnormalised(row, row.len(), scale, &mut inv);
    simd!(kernels::affine(row, inv[0], 0.0))
}

/// Multiplies column `j` of the row-major matrix `x` (rows of `scale.len()`) by `scale[j]`.
pub(super) fn scale_columns(x: &mut [f32], scale: &[f32]) {
    for row in x.chunks_exact_mut(scale.len()) {
        for (v, &s) in row.iter_mut().zip(scale) {
            *v *= s;
        }
    }
}

/// One core's multiply-add peak in GFLOP/s (a multiply-add counts two), measured by
/// running `iterations` rounds of 12 independent vector multiply-adds (enough to cover
/// the FMA units' latency) in the widest instruction set the forward pass uses on this
/// CPU (512-bit with AVX-512, 256-bit with AVX2 and FMA, else scalar); 2^22 rounds take
/// about 15 ms at 100 GFLOP/s.
pub fn fma_peak_gflops(iterations: usize) -> f64 {
    let t0 = std::time::Instant::now();
    let (sum, lanes) = fma_rounds(std::hint::black_box(iterations));
    let seconds = t0.elapsed().as_secs_f64();
    std::hint::black_box(sum);
    (iterations * 12 * lanes * 2) as f64 / seconds.max(1e-9) / 1e9
}

/// `n` rounds of [`fma_peak_gflops`]: the accumulators' sum and the lanes a vector.
fn fma_rounds(n: usize) -> (f32, usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        macro_rules! rounds {
            ($n:expr, $v:ty, $set1:ident, $fma:ident, $add:ident, $store:ident, $lanes:expr) => {{
                let (x, y) = ($set1(1.000_000_1), $set1(0.999_999_9));
                let mut a: [$v; 12] = [$set1(0.0); 12];
                for (i, v) in a.iter_mut().enumerate() {
                    *v = $set1(i as f32);
                }
                for _ in 0..$n {
                    for v in a.iter_mut() {
                        *v = $fma(*v, x, y);
                    }
                }
                let mut t = a[0];
                for v in &a[1..] {
                    t = $add(t, *v);
                }
                let mut out = [0.0f32; $lanes];
                $store(out.as_mut_ptr(), t);
                (out.iter().sum(), $lanes)
            }};
        }
        #[target_feature(enable = "avx512f")]
        unsafe fn wide(n: usize) -> (f32, usize) {
            rounds!(
                n,
                __m512,
                _mm512_set1_ps,
                _mm512_fmadd_ps,
                _mm512_add_ps,
                _mm512_storeu_ps,
                16
            )
        }
        #[target_feature(enable = "avx2,fma")]
        unsafe fn narrow(n: usize) -> (f32, usize) {
            rounds!(
                n,
                __m256,
                _mm256_set1_ps,
                _mm256_fmadd_ps,
                _mm256_add_ps,
                _mm256_storeu_ps,
                8
            )
        }
        match cpu_level() {
            // SAFETY: the CPU has the features these functions are compiled for.
            3 => return unsafe { wide(n) },
            2 => return unsafe { narrow(n) },
            _ => {}
        }
    }
    let mut a = [0.0f32; 12];
    for _ in 0..n {
        for v in a.iter_mut() {
            *v = *v * 1.000_000_1 + 0.999_999_9;
        }
    }
    (a.iter().sum(), 1)
}

/// SwiGLU in place: `x = silu(x) * gate`.
pub(super) fn swiglu(x: &mut [f32], gate: &[f32]) {
    simd!(kernels::swiglu(x, gate))
}

/// Whether the CPU runs AVX-512 (F, with FMA).
pub(super) fn has_avx512() -> bool {
    cpu_level() == 3
}

/// 3 where the kernels may use AVX-512, 2 AVX2 with FMA, 1 neither ([`super::cpu`]).
fn cpu_level() -> u8 {
    let f = super::cpu::features();
    if f.avx512 {
        3
    } else if f.avx2 {
        2
    } else {
        1
    }
}

/// Runs `kernels::NAME(args)` compiled for the best instruction set the CPU has (the
/// shipped build targets baseline x86-64): each kernel is written once, inlined into one
/// copy per instruction set, and vectorised there by the compiler.
macro_rules! simd {
    (kernels::$name:ident($($arg:expr),*)) => {{
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
            #[inline]
            fn v4<R>(f: impl FnOnce() -> R) -> R {
                f()
            }
            #[target_feature(enable = "avx2,fma")]
            #[inline]
            fn v3<R>(f: impl FnOnce() -> R) -> R {
                f()
            }
            match cpu_level() {
                // SAFETY: the CPU has the features these copies are compiled for.
                3 => unsafe { v4(|| kernels::$name::<true>($($arg),*)) },
                2 => unsafe { v3(|| kernels::$name::<true>($($arg),*)) },
                _ => kernels::$name::<false>($($arg),*),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            kernels::$name::<false>($($arg),*)
        }
    }};
}
use simd;

/// The element-wise kernels, each generic over whether `mul_add` is a fused instruction
/// (`FMA`); `#[inline(always)]` so that each dispatch copy vectorises them for its own
/// instruction set.
mod kernels {
    use super::Layout;

    /// Lanes of the hand-split reductions (sum, max): as wide as one AVX-512 register.
    const LANES: usize = 16;

    /// `dst = a b` (or `+=`), as [`super::gemm`] asks, by plain loops (a row of `dst` at a
    /// time, each input column's product added across the row): the products under a
    /// `TENGEN_CPU` cap, where the gemm crate's own dispatch would use what the cap took.
    #[inline(always)]
    pub fn matmul<const FMA: bool>(
        dst: &mut [f32],
        d: Layout,
        accumulate: bool,
        a: &[f32],
        la: Layout,
        b: &[f32],
        lb: Layout,
    ) {
        let mut row = vec![0.0f32; d.cols];
        for i in 0..d.rows {
            row.fill(0.0);
            for k in 0..la.cols {
                let x = a[i * la.rs + k * la.cs];
                let start = k * lb.rs;
                if lb.cs == 1 {
                    for (r, &y) in row.iter_mut().zip(&b[start..start + d.cols]) {
                        *r = madd::<FMA>(x, y, *r);
                    }
                } else {
                    for (j, r) in row.iter_mut().enumerate() {
                        *r = madd::<FMA>(x, b[start + j * lb.cs], *r);
                    }
                }
            }
            for (j, &r) in row.iter().enumerate() {
                let o = &mut dst[i * d.rs + j * d.cs];
                *o = if accumulate { *o + r } else { r };
            }
        }
    }

    #[inline(always)]
    fn madd<const FMA: bool>(a: f32, b: f32, c: f32) -> f32 {
        if FMA {
            a.mul_add(b, c)
        } else {
            a * b + c
        }
    }

    /// `e^x` within 2 ulp for `x` in [-87, 88] (Cephes' `expf`: `x = n ln 2 + r`,
    /// `|r| <= ln 2 / 2`, a degree-7 polynomial for `e^r`, `2^n` from the exponent bits);
    /// 0 below -87 (where `e^x` would be subnormal) and `e^88` above 88. Branch-free, so
    /// that loops over it vectorise.
    #[inline(always)]
    pub fn exp<const FMA: bool>(x: f32) -> f32 {
        const LOG2E: f32 = std::f32::consts::LOG2_E;
        // ln 2 split in two so that n ln 2 is exact in the first part.
        const LN2_HI: f32 = 0.693_359_4;
        const LN2_LO: f32 = -2.121_944_4e-4;
        // 1.5 2^23: adding it rounds to an integer, to nearest.
        const ROUND: f32 = 12_582_912.0;
        let xc = x.clamp(-87.0, 88.0);
        let t = madd::<FMA>(xc, LOG2E, ROUND);
        let n = t - ROUND;
        let r = madd::<FMA>(n, -LN2_HI, xc);
        let r = madd::<FMA>(n, -LN2_LO, r);
        let mut p = 1.987_569_1e-4;
        p = madd::<FMA>(p, r, 1.398_2e-3);
        p = madd::<FMA>(p, r, 8.333_452e-3);
        p = madd::<FMA>(p, r, 4.166_579_6e-2);
        p = madd::<FMA>(p, r, 1.666_666_5e-1);
        p = madd::<FMA>(p, r, 0.5);
        let p = madd::<FMA>(p, r * r, r) + 1.0;
        // t's mantissa holds 2^22 + n, so its bits are 0x4B40_0000 + n; no float-to-int
        // conversion (whose saturation would not vectorise).
        let pow2 = f32::from_bits(t.to_bits().wrapping_sub(0x4B40_0000 - 127) << 23);
        if x < -87.0 {
            0.0
        } else {
            p * pow2
        }
    }

    /// `x / (1 + e^-x)`.
    #[inline(always)]
    fn silu<const FMA: bool>(x: f32) -> f32 {
        x / (1.0 + exp::<FMA>(-x))
    }

    /// `x tanh(softplus(x))` as `x n / (n + 2)` with `n = e^x (e^x + 2)`
    /// (`tanh(ln(1 + e^x)) = ((1 + e^x)^2 - 1) / ((1 + e^x)^2 + 1)`); `x` above 20.
    #[inline(always)]
    fn mish<const FMA: bool>(x: f32) -> f32 {
        let e = exp::<FMA>(x.min(20.0));
        let n = e * (e + 2.0);
        let m = x * n / (n + 2.0);
        if x > 20.0 {
            x
        } else {
            m
        }
    }

    /// Each point's `1 / sqrt(mean of squares + epsilon)` over `x`'s planes (`inv.len()`
    /// points each), summed plane by plane (no fused multiply-add: the same bits on every
    /// CPU).
    #[inline(always)]
    pub fn inverse_rms<const FMA: bool>(x: &[f32], epsilon: f32, inv: &mut [f32]) {
        let area = inv.len();
        let channels = x.len() / area;
        for plane in x.chunks_exact(area) {
            for (a, &v) in inv.iter_mut().zip(plane) {
                *a += v * v;
            }
        }
        for a in inv.iter_mut() {
            *a = 1.0 / (*a / channels as f32 + epsilon).sqrt();
        }
    }

    #[inline(always)]
    pub fn rotate<const FMA: bool>(r0: &mut [f32], r1: &mut [f32], cos: &[f32], sin: &[f32]) {
        for (((a, b), &c), &s) in r0.iter_mut().zip(r1.iter_mut()).zip(cos).zip(sin) {
            let (x0, x1) = (*a, *b);
            *a = x0 * c - x1 * s;
            *b = x0 * s + x1 * c;
        }
    }

    /// Plane `c` of `x` times `weight[c]` and the points' `inv`, into `out`.
    #[inline(always)]
    pub fn scaled_planes<const FMA: bool>(x: &[f32], weight: &[f32], inv: &[f32], out: &mut [f32]) {
        let area = inv.len();
        for ((plane, row), &w) in x
            .chunks_exact(area)
            .zip(out.chunks_exact_mut(area))
            .zip(weight)
        {
            for ((o, &v), &r) in row.iter_mut().zip(plane).zip(inv) {
                *o = v * (r * w);
            }
        }
    }

    #[inline(always)]
    pub fn affine<const FMA: bool>(x: &mut [f32], s: f32, b: f32) {
        for v in x {
            *v = madd::<FMA>(*v, s, b);
        }
    }

    #[inline(always)]
    pub fn affine_relu<const FMA: bool>(x: &mut [f32], s: f32, b: f32) {
        for v in x {
            *v = madd::<FMA>(*v, s, b).max(0.0);
        }
    }

    #[inline(always)]
    pub fn affine_silu<const FMA: bool>(x: &mut [f32], s: f32, b: f32) {
        for v in x {
            *v = silu::<FMA>(madd::<FMA>(*v, s, b));
        }
    }

    #[inline(always)]
    pub fn affine_mish<const FMA: bool>(x: &mut [f32], s: f32, b: f32) {
        for v in x {
            *v = mish::<FMA>(madd::<FMA>(*v, s, b));
        }
    }

    #[inline(always)]
    pub fn swiglu<const FMA: bool>(x: &mut [f32], gate: &[f32]) {
        for (v, &g) in x.iter_mut().zip(gate) {
            *v = silu::<FMA>(*v) * g;
        }
    }

    #[inline(always)]
    pub fn softmax_rows_unnormalised<const FMA: bool>(
        rows: &mut [f32],
        n: usize,
        scale: f32,
        inv: &mut [f32],
    ) {
        for (row, inv) in rows.chunks_exact_mut(n).zip(inv) {
            *inv = softmax_unnormalised::<FMA>(row, scale);
        }
    }

    /// One row of [`softmax_rows_unnormalised`]. The tail past the last whole vector goes
    /// through a vector padded with minus infinity (whose `exp` is 0), so that every
    /// element takes the vector path.
    #[inline(always)]
    fn softmax_unnormalised<const FMA: bool>(row: &mut [f32], scale: f32) -> f32 {
        let whole = row.len() / LANES * LANES;
        let (body, tail) = row.split_at_mut(whole);
        let mut padded = [f32::NEG_INFINITY; LANES];
        padded[..tail.len()].copy_from_slice(tail);
        let mut lanes = padded;
        for c in body.chunks_exact(LANES) {
            for (m, &v) in lanes.iter_mut().zip(c) {
                *m = if v > *m { v } else { *m };
            }
        }
        let max = lanes.iter().fold(f32::NEG_INFINITY, |m, &v| m.max(v));
        let shift = -max * scale;
        let mut sums = [0.0f32; LANES];
        let mut step = |c: &mut [f32]| {
            for (s, v) in sums.iter_mut().zip(c) {
                *v = exp::<FMA>(madd::<FMA>(*v, scale, shift));
                *s += *v;
            }
        };
        for c in body.chunks_exact_mut(LANES) {
            step(c);
        }
        step(&mut padded);
        tail.copy_from_slice(&padded[..tail.len()]);
        1.0 / sums.iter().sum::<f32>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distance in units in the last place.
    fn ulps(a: f32, b: f32) -> u32 {
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32
    }

    #[test]
    fn exp_is_within_two_ulps_over_its_range() {
        let mut worst = 0;
        let mut x = -87.0f32;
        while x <= 88.0 {
            for fma in [false, true] {
                let e = if fma {
                    kernels::exp::<true>(x)
                } else {
                    kernels::exp::<false>(x)
                };
                let want = (x as f64).exp() as f32;
                worst = worst.max(ulps(e, want));
            }
            x += 0.000_37;
        }
        assert!(worst <= 2, "{worst} ulps");
        assert_eq!(kernels::exp::<true>(-87.5), 0.0);
        assert_eq!(kernels::exp::<true>(-1e30), 0.0);
        assert!(kernels::exp::<true>(1e30).is_finite());
        assert_eq!(kernels::exp::<true>(0.0), 1.0);
    }

    #[test]
    fn activations_match_their_definitions() {
        let xs: Vec<f32> = (-4000..4000).map(|i| i as f32 * 0.01).collect();
        for act in [Activation::Silu, Activation::Mish, Activation::Relu] {
            let mut ys = xs.clone();
            activate(&mut ys, act);
            for (&x, &y) in xs.iter().zip(&ys) {
                let x64 = x as f64;
                let want = match act {
                    Activation::Silu => x64 / (1.0 + (-x64).exp()),
                    Activation::Mish => x64 * x64.exp().ln_1p().tanh(),
                    _ => x64.max(0.0),
                };
                let err = (y as f64 - want).abs() / want.abs().max(1e-30);
                assert!(
                    err < 1e-6 || (y as f64 - want).abs() < 1e-30,
                    "{act:?}({x}) = {y}, want {want}"
                );
            }
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn subnormals_flush_while_the_guard_lives() {
        let tiny = std::hint::black_box(1e-30f32);
        let scale = std::hint::black_box(1e-10f32);
        assert!((tiny * scale).is_subnormal());
        {
            let _flush = FlushDenormals::new();
            assert_eq!(tiny * scale, 0.0);
            // Subnormal inputs count as zero too.
            let sub = std::hint::black_box(f32::from_bits(1));
            assert_eq!(sub * std::hint::black_box(2.0f32), 0.0);
        }
        assert!((tiny * scale).is_subnormal(), "the setting is restored");
    }

    #[test]
    fn softmax_sums_to_one_and_matches_the_definition() {
        for n in [1usize, 5, 16, 81, 361] {
            let row: Vec<f32> = (0..n)
                .map(|i| ((i * 37 % 23) as f32 - 11.0) * 1.7)
                .collect();
            let mut ours = row.clone();
            softmax_scaled(&mut ours, 0.3);
            let max = row
                .iter()
                .fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64 * 0.3));
            let sum: f64 = row.iter().map(|&v| (v as f64 * 0.3 - max).exp()).sum();
            for (&v, &o) in row.iter().zip(&ours) {
                let want = (v as f64 * 0.3 - max).exp() / sum;
                assert!((o as f64 - want).abs() < 1e-6 * want, "{o} vs {want}");
            }
        }
    }

    /// The fused SwiGLU gives the bits of the two layers, `ops::swiglu` and packing.
    #[cfg_attr(not(tengen_avx512), ignore = "this CPU has no AVX-512 (F, VL, BW)")]
    #[test]
    fn swiglu_packs_what_the_layers_and_ops_swiglu_give() {
        use crate::nn::bf16;
        let random = bf16::test_values;
        assert!(bf16::available(), "this CPU has no AVX-512 (F, VL, BW)");
        for (inputs, outputs, width) in [(192, 512, 81), (7, 64, 13), (33, 128, 6), (4, 64, 1)] {
            let mut seed = 7u64;
            let w1 = random(inputs * outputs, &mut seed);
            let wg = random(inputs * outputs, &mut seed);
            let x = random(inputs * width, &mut seed);
            let (p1, pg) = (
                bf16::pack_weights(&w1, inputs, outputs),
                bf16::pack_weights(&wg, inputs, outputs),
            );
            let mut xp = Vec::new();
            let mut a = vec![0.0; outputs * width];
            let mut g = vec![0.0; outputs * width];
            bf16::dense(&p1, inputs, outputs, &x, width, &mut a, &mut xp, false);
            bf16::dense(&pg, inputs, outputs, &x, width, &mut g, &mut xp, true);
            swiglu(&mut a, &g);
            let mut want = Vec::new();
            bf16::pack_inputs(&a, outputs, width, &mut want);
            let mut got = Vec::new();
            bf16::swiglu(&p1, &pg, inputs, outputs, &xp, width, &mut got);
            assert_eq!(got, want, "{inputs}x{outputs} at {width} points");
        }
    }

    /// The fp32 tiles' SwiGLU gives the bits of the two layers and `ops::swiglu`.
    #[cfg_attr(not(tengen_avx512), ignore = "this CPU has no AVX-512 (F, VL, BW)")]
    #[test]
    fn fp32_swiglu_is_the_layers_and_ops_swiglu() {
        use crate::nn::bf16;
        let random = bf16::test_values;
        assert!(bf16::available(), "this CPU has no AVX-512 (F, VL, BW)");
        for (inputs, outputs, width) in [(192, 512, 81), (7, 64, 13), (33, 128, 6), (4, 64, 19)] {
            let mut seed = 9u64;
            let w1 = random(inputs * outputs, &mut seed);
            let wg = random(inputs * outputs, &mut seed);
            let x = random(inputs * width, &mut seed);
            let (p1, pg) = (
                bf16::pack_weights_fp32(&w1, inputs, outputs),
                bf16::pack_weights_fp32(&wg, inputs, outputs),
            );
            let mut a = vec![0.0; outputs * width];
            let mut g = vec![0.0; outputs * width];
            bf16::dense_fp32(&p1, inputs, outputs, &x, width, &mut a, Write::Store);
            bf16::dense_fp32(&pg, inputs, outputs, &x, width, &mut g, Write::Store);
            swiglu(&mut a, &g);
            let mut got = Vec::new();
            bf16::swiglu_fp32(&p1, &pg, inputs, outputs, &x, width, &mut got);
            let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got), bits(&a), "{inputs}x{outputs} at {width} points");
        }
    }
}
