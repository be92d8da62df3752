//! The layers of the forward pass, on channel-major activations (`channels x area`, each
//! plane row-major): convolutions, dense layers, norms, activations, pooling, and the one
//! matrix multiply everything goes through. Each function reads and writes caller-owned
//! buffers, so the [`Forward`](super::forward::Forward) reuses them from one position to
//! the next.

use super::model::{Activation, BatchNorm, Conv, MatBias, MatMul, RmsNorm, TransformerNorm};

/// A "same" convolution of `input` (`in x size x size`) into `out` (`out x size x size`):
/// `out[o][p] = sum over i, dy, dx of w[o][i][dy][dx] * in[i][p + (dy - ry, dx - rx)]`,
/// zero outside the board. 1x1 kernels multiply the input directly; others through
/// im2col columns in `cols`.
pub(super) fn conv(c: &Conv, size: usize, input: &[f32], out: &mut Vec<f32>, cols: &mut Vec<f32>) {
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
pub(super) fn im2col(c: &Conv, size: usize, input: &[f32], cols: &mut Vec<f32>) {
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

/// A dense layer applied at every point: `out (out x area) = W^T x` for `x` `in x area`.
pub(super) fn dense(mm: &MatMul, x: &[f32], area: usize, out: &mut Vec<f32>) {
    debug_assert_eq!(x.len(), mm.in_channels * area);
    out.clear();
    out.resize(mm.out_channels * area, 0.0);
    gemm(
        out,
        Layout::row_major(mm.out_channels, area),
        false,
        &mm.weights,
        Layout::row_major(mm.in_channels, mm.out_channels).t(),
        x,
        Layout::row_major(mm.in_channels, area),
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

/// Adds `bias[c]` to every point of channel `c`.
pub(super) fn add_channel_bias(x: &mut [f32], bias: &[f32], area: usize) {
    for (plane, &b) in x.chunks_exact_mut(area).zip(bias) {
        for v in plane {
            *v += b;
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
        let (s, b) = (bn.scale[c], bn.bias[c]);
        for v in plane.iter_mut() {
            *v = *v * s + b;
        }
        activate(plane, act);
    }
}

pub(super) fn activate(x: &mut [f32], act: Activation) {
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
pub(super) fn mish(x: f32) -> f32 {
    let sp = if x > 20.0 { x } else { x.exp().ln_1p() };
    x * sp.tanh()
}

/// KataGo's global pooling of a trunk-style tensor: per channel the mean, the mean scaled
/// by `(sqrt(area) - 14) / 10`, and the maximum (`3 x channels` values, in that order).
pub(super) fn gpool(x: &[f32], area: usize, out: &mut Vec<f32>) {
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
pub(super) fn value_pool(x: &[f32], area: usize, out: &mut Vec<f32>) {
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

/// The transformer blocks' RMSNorm, in place: each point's channels divided by their root
/// mean square (plus epsilon), times the weight.
pub(super) fn transformer_norm(
    x: &mut [f32],
    n: &TransformerNorm,
    area: usize,
    inv: &mut Vec<f32>,
) {
    debug_assert_eq!(x.len(), n.channels * area);
    inverse_rms(x, area, n.epsilon, inv);
    for (plane, &w) in x.chunks_exact_mut(area).zip(&n.weight) {
        for (v, &r) in plane.iter_mut().zip(inv.iter()) {
            *v *= r * w;
        }
    }
}

/// The trunk tip's RMSNorm with gamma and beta, per point or over the whole board
/// (`spatial`), then the activation, in place.
pub(super) fn rms_norm(
    x: &mut [f32],
    n: &RmsNorm,
    act: Activation,
    area: usize,
    inv: &mut Vec<f32>,
) {
    debug_assert_eq!(x.len(), n.channels * area);
    if n.spatial {
        let sum: f32 = x.iter().map(|v| v * v).sum();
        let r = 1.0 / (sum / x.len() as f32 + n.epsilon).sqrt();
        for (c, plane) in x.chunks_exact_mut(area).enumerate() {
            for v in plane.iter_mut() {
                *v = *v * r * n.gamma[c] + n.beta[c];
            }
        }
    } else {
        inverse_rms(x, area, n.epsilon, inv);
        for (c, plane) in x.chunks_exact_mut(area).enumerate() {
            for (v, &r) in plane.iter_mut().zip(inv.iter()) {
                *v = *v * r * n.gamma[c] + n.beta[c];
            }
        }
    }
    activate(x, act);
}

/// Per point, `1 / sqrt(mean of the squares of its channels + epsilon)`, into `inv`.
fn inverse_rms(x: &[f32], area: usize, epsilon: f32, inv: &mut Vec<f32>) {
    let channels = x.len() / area;
    inv.clear();
    inv.resize(area, 0.0);
    for plane in x.chunks_exact(area) {
        for (a, &v) in inv.iter_mut().zip(plane) {
            *a += v * v;
        }
    }
    for a in inv.iter_mut() {
        *a = 1.0 / (*a / channels as f32 + epsilon).sqrt();
    }
}

/// `softmax(scale x)` of one row, in place.
pub(super) fn softmax_scaled(row: &mut [f32], scale: f32) {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max) * scale;
    let mut sum = 0.0;
    for v in row.iter_mut() {
        *v = (*v * scale - max).exp();
        sum += *v;
    }
    let inv = 1.0 / sum;
    for v in row.iter_mut() {
        *v *= inv;
    }
}

/// SwiGLU in place: `x = silu(x) * gate`.
pub(super) fn swiglu(x: &mut [f32], gate: &[f32]) {
    for (v, &g) in x.iter_mut().zip(gate) {
        *v = *v / (1.0 + (-*v).exp()) * g;
    }
}
