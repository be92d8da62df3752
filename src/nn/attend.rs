//! One position's self-attention in one head, fused on AVX-512: `out[:, i] = sum over j of
//! softmax_j(scale q[:, i] . k[:, j]) v[:, j]`, 16 queries at a time (one register of
//! lanes), their scores kept as a column of 16 a key in a scratch of `area x 16` (in L1)
//! between the two products, instead of the whole `area x area` matrix written and read
//! back by two general products and a softmax pass. The forward pass uses the general
//! products where the CPU has no AVX-512. Knows nothing of models, boards or evaluation.

/// Where one head's rows lie: queries and keys `d` rows, values and the output `dv` rows,
/// each row `area` points, rows `stride` apart.
#[derive(Clone, Copy, Debug)]
pub struct HeadShape {
    pub area: usize,
    pub stride: usize,
    pub d: usize,
    pub dv: usize,
}

impl HeadShape {
    /// Values `n` rows of this shape span, from the first row's start to the last's end.
    fn span(self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (n - 1) * self.stride + self.area
        }
    }
}

/// Queries computed at once.
const QUERIES: usize = 16;

/// Whether [`attend`] runs on this CPU (AVX-512F).
pub fn available() -> bool {
    super::ops::has_avx512()
}

/// The head's output into `out` (its `dv` rows, `stride` apart); `scratch` is resized as
/// needed. The caller checks [`available`].
pub fn attend(
    q: &[f32],
    k: &[f32],
    v: &[f32],
    shape: HeadShape,
    scale: f32,
    out: &mut [f32],
    scratch: &mut Vec<f32>,
) {
    assert!(available(), "fused attention without AVX-512");
    let HeadShape {
        area,
        stride,
        d,
        dv,
    } = shape;
    assert!(area >= 1 && stride >= area);
    let rows = |n: usize| shape.span(n);
    assert!(q.len() >= rows(d) && k.len() >= rows(d) && v.len() >= rows(dv));
    assert!(out.len() >= rows(dv));
    scratch.clear();
    scratch.resize((d + dv + area) * QUERIES * kernel::REGS, 0.0);
    let (qp, s) = scratch.split_at_mut(d * QUERIES * kernel::REGS);
    let (o, s) = s.split_at_mut(dv * QUERIES * kernel::REGS);
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `available` checked AVX-512F; the asserts above keep every row the kernel
    // reads or writes inside its slice, and the scratch holds `d`, `dv` and `area` rows of
    // `REGS` registers.
    unsafe {
        kernel::attend(q, k, v, shape, scale, out, qp, o, s)
    }
}

/// Whether [`attend_bf16`] runs on this CPU.
pub fn bf16_available() -> bool {
    available() && super::bf16::available()
}

/// [`attend`] with bf16 products (fp32 sums, softmax in fp32): `qp` and `kp` are the
/// head's queries and keys packed in channel pairs (`[pair][point]`, rows `stride` apart,
/// as `bf16::pack_inputs` packs them); the values are rounded to bf16 here, the softmax's
/// weights before the second product. The caller checks [`bf16_available`].
#[allow(clippy::too_many_arguments)]
pub fn attend_bf16(
    qp: &[u32],
    kp: &[u32],
    v: &[f32],
    shape: HeadShape,
    scale: f32,
    out: &mut [f32],
    scores: &mut Vec<f32>,
    packed: &mut Vec<u32>,
) {
    assert!(bf16_available(), "bf16 attention without AVX-512");
    let HeadShape {
        area,
        stride,
        d,
        dv,
    } = shape;
    assert!(area >= 1 && stride >= area && d.is_multiple_of(2));
    let rows = |n: usize| shape.span(n);
    assert!(qp.len() >= rows(d / 2) && kp.len() >= rows(d / 2) && v.len() >= rows(dv));
    assert!(out.len() >= rows(dv));
    let half = area.div_ceil(2);
    // A value row's pairs, padded to whole vectors of 16.
    let vrow = half.next_multiple_of(QUERIES);
    scores.clear();
    scores.resize(area * QUERIES, 0.0);
    packed.clear();
    packed.resize(dv * vrow + half * QUERIES, 0);
    let (vp, pp) = packed.split_at_mut(dv * vrow);
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `bf16_available` checked AVX-512 (F, VL, BW), `native` AVX512-BF16; the asserts above keep
    // every row the kernel reads or writes inside its slice; the scratch is sized above.
    unsafe {
        if super::bf16::native() {
            native::attend_bf16(qp, kp, v, shape, scale, out, scores, vp, vrow, pp)
        } else {
            emulated::attend_bf16(qp, kp, v, shape, scale, out, scores, vp, vrow, pp)
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod kernel {
    use super::{HeadShape, QUERIES};
    use crate::nn::bf16::kernel::{exp, mask_of};
    use std::arch::x86_64::*;

    /// Keys (for the scores) or value rows (for the output) one register block holds.
    pub(super) const BLOCK: usize = 8;

    /// Registers of [`QUERIES`] queries the fp32 head computes at once: every key and value
    /// broadcast serves this many registers.
    pub(super) const REGS: usize = 3;

    /// Keys whose exponentials the fp32 head weights the values by at a time.
    const KEYS: usize = 128;

    /// Every block of `REGS` registers of queries: their scores against every key, the
    /// softmax down each query's column, the values weighted by it. Each query's sums run
    /// over the channels, then the keys, in order, whatever the block.
    #[allow(clippy::too_many_arguments)]
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn attend(
        q: &[f32],
        k: &[f32],
        v: &[f32],
        shape: HeadShape,
        scale: f32,
        out: &mut [f32],
        qp: &mut [f32],
        o: &mut [f32],
        s: &mut [f32],
    ) {
        let HeadShape {
            area,
            stride,
            d,
            dv,
        } = shape;
        let (q, k, v, out) = (q.as_ptr(), k.as_ptr(), v.as_ptr(), out.as_mut_ptr());
        let (qp, o, s) = (qp.as_mut_ptr(), o.as_mut_ptr(), s.as_mut_ptr());
        let scale = _mm512_set1_ps(scale);
        for q0 in (0..area).step_by(REGS * QUERIES) {
            // Register `i`'s queries start at `at[i]` (kept inside the row when it has none).
            let at: [usize; REGS] = std::array::from_fn(|i| (q0 + QUERIES * i).min(area));
            let masks: [__mmask16; REGS] = std::array::from_fn(|i| mask_of(area - at[i]));
            for c in 0..d {
                for i in 0..REGS {
                    let row = _mm512_maskz_loadu_ps(masks[i], q.add(c * stride + at[i]));
                    _mm512_storeu_ps(qp.add((c * REGS + i) * QUERIES), row);
                }
            }
            let mut max = [_mm512_set1_ps(f32::NEG_INFINITY); REGS];
            let mut j = 0;
            while j + BLOCK <= area {
                scores::<BLOCK>(qp, d, k, stride, j, scale, s, &mut max);
                j += BLOCK;
            }
            while j < area {
                scores::<1>(qp, d, k, stride, j, scale, s, &mut max);
                j += 1;
            }
            // Softmax down each query's column and the values weighted by it, `KEYS` keys
            // at a time (their exponentials stay in L1 for every value row), each sum
            // carried through `o` in the keys' order.
            let mut sum = [_mm512_setzero_ps(); REGS];
            for j0 in (0..area).step_by(KEYS) {
                let j1 = (j0 + KEYS).min(area);
                exponentials(s, j0, j1, max, &mut sum);
                let mut c = 0;
                while c + BLOCK <= dv {
                    values::<BLOCK>(v, stride, c, s, j0, j1, o);
                    c += BLOCK;
                }
                while c < dv {
                    values::<1>(v, stride, c, s, j0, j1, o);
                    c += 1;
                }
            }
            let inv = sum.map(|t| _mm512_div_ps(_mm512_set1_ps(1.0), t));
            for c in 0..dv {
                for i in 0..REGS {
                    let x = _mm512_loadu_ps(o.add((c * REGS + i) * QUERIES));
                    let at = out.add(c * stride + at[i]);
                    _mm512_mask_storeu_ps(at, masks[i], _mm512_mul_ps(x, inv[i]));
                }
            }
        }
    }

    /// Scores of keys `j0..j0 + R` against the packed queries, scaled, into `s`; `max`
    /// takes each query's largest.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn scores<const R: usize>(
        qp: *const f32,
        d: usize,
        k: *const f32,
        stride: usize,
        j0: usize,
        scale: __m512,
        s: *mut f32,
        max: &mut [__m512; REGS],
    ) {
        let mut acc = [[_mm512_setzero_ps(); REGS]; R];
        for c in 0..d {
            let qc: [__m512; REGS] =
                std::array::from_fn(|i| _mm512_loadu_ps(qp.add((c * REGS + i) * QUERIES)));
            let keys = k.add(c * stride + j0);
            for (r, a) in acc.iter_mut().enumerate() {
                let key = _mm512_set1_ps(*keys.add(r));
                for i in 0..REGS {
                    a[i] = _mm512_fmadd_ps(key, qc[i], a[i]);
                }
            }
        }
        for (r, a) in acc.iter().enumerate() {
            for (i, &sum) in a.iter().enumerate() {
                let x = _mm512_mul_ps(sum, scale);
                max[i] = _mm512_max_ps(max[i], x);
                _mm512_storeu_ps(s.add(((j0 + r) * REGS + i) * QUERIES), x);
            }
        }
    }

    /// Value rows `c0..c0 + R` weighted by the exponentials of keys `j0..j1` in `s`, added
    /// to their sums in `o` (started there when `j0` is 0).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn values<const R: usize>(
        v: *const f32,
        stride: usize,
        c0: usize,
        s: *const f32,
        j0: usize,
        j1: usize,
        o: *mut f32,
    ) {
        let at = |r: usize, i: usize| o.add(((c0 + r) * REGS + i) * QUERIES);
        let mut acc: [[__m512; REGS]; R] = if j0 == 0 {
            [[_mm512_setzero_ps(); REGS]; R]
        } else {
            std::array::from_fn(|r| std::array::from_fn(|i| _mm512_loadu_ps(at(r, i))))
        };
        let rows: [*const f32; R] = std::array::from_fn(|r| v.add((c0 + r) * stride));
        for j in j0..j1 {
            let col: [__m512; REGS] =
                std::array::from_fn(|i| _mm512_loadu_ps(s.add((j * REGS + i) * QUERIES)));
            for (r, a) in acc.iter_mut().enumerate() {
                let x = _mm512_set1_ps(*rows[r].add(j));
                for i in 0..REGS {
                    a[i] = _mm512_fmadd_ps(x, col[i], a[i]);
                }
            }
        }
        for (r, a) in acc.iter().enumerate() {
            for (i, &x) in a.iter().enumerate() {
                _mm512_storeu_ps(at(r, i), x);
            }
        }
    }

    /// The scores of keys `j0..j1` (rows of `REGS` registers in `s`) turned into their
    /// exponentials less each column's largest (`max`), in place, added to `sum`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn exponentials(
        s: *mut f32,
        j0: usize,
        j1: usize,
        max: [__m512; REGS],
        sum: &mut [__m512; REGS],
    ) {
        for j in j0..j1 {
            for i in 0..REGS {
                let at = s.add((j * REGS + i) * QUERIES);
                let e = exp(_mm512_sub_ps(_mm512_loadu_ps(at), max[i]));
                _mm512_storeu_ps(at, e);
                sum[i] = _mm512_add_ps(sum[i], e);
            }
        }
    }
}

/// The bf16 head, once with AVX512-BF16's instructions and once with them emulated on
/// AVX-512F (the same bits: `bf16::kernel::dot_emulated`).
macro_rules! bf16_kernels {
    ($name:ident, $features:literal, $dot:path, $cvt2:path) => {
        mod $name {
            use super::kernel::BLOCK;
            use super::{HeadShape, QUERIES};
            use crate::nn::bf16::kernel::mask_of;
            use std::arch::x86_64::*;

            /// [`super::attend_bf16`]: `vp` takes the values as point pairs (`dv` rows of `vrow`),
            /// `pp` the softmax's weights as point pairs (16 queries a pair).
            #[allow(clippy::too_many_arguments)]
            #[target_feature(enable = $features)]
            pub(super) unsafe fn attend_bf16(
                qp: &[u32],
                kp: &[u32],
                v: &[f32],
                shape: HeadShape,
                scale: f32,
                out: &mut [f32],
                s: &mut [f32],
                vp: &mut [u32],
                vrow: usize,
                pp: &mut [u32],
            ) {
                let HeadShape {
                    area,
                    stride,
                    d,
                    dv,
                } = shape;
                let pairs = d / 2;
                let half = area.div_ceil(2);
                let (qp, kp, v, out) = (qp.as_ptr(), kp.as_ptr(), v.as_ptr(), out.as_mut_ptr());
                let (s, vp, pp) = (s.as_mut_ptr(), vp.as_mut_ptr(), pp.as_mut_ptr());
                // Values in point pairs: a row in order, in bf16, is its pairs.
                for c in 0..dv {
                    let row = v.add(c * stride);
                    for p0 in (0..area).step_by(2 * QUERIES) {
                        let lo = _mm512_maskz_loadu_ps(mask_of(area - p0), row.add(p0));
                        let rest = area.saturating_sub(p0 + QUERIES);
                        let hi =
                            _mm512_maskz_loadu_ps(mask_of(rest), row.add((p0 + QUERIES).min(area)));
                        let both = $cvt2(hi, lo);
                        _mm512_storeu_si512(vp.add(c * vrow + p0 / 2) as *mut _, both);
                    }
                }
                // Scores in base 2: exp(x) = 2^(x log2 e).
                let scale = _mm512_set1_ps(scale * std::f32::consts::LOG2_E);
                for q0 in (0..area).step_by(QUERIES) {
                    let mask = mask_of(area - q0);
                    let mut max = _mm512_set1_ps(f32::NEG_INFINITY);
                    let mut j = 0;
                    while j + BLOCK <= area {
                        max =
                            scores_bf16::<BLOCK>(qp, pairs, kp, stride, q0, mask, j, scale, s, max);
                        j += BLOCK;
                    }
                    while j < area {
                        max = scores_bf16::<1>(qp, pairs, kp, stride, q0, mask, j, scale, s, max);
                        j += 1;
                    }
                    let inv = softmax_pairs(s, area, max, pp);
                    let mut c = 0;
                    while c + BLOCK <= dv {
                        values_bf16::<BLOCK>(vp, vrow, c, pp, half, inv, out, stride, q0, mask);
                        c += BLOCK;
                    }
                    while c < dv {
                        values_bf16::<1>(vp, vrow, c, pp, half, inv, out, stride, q0, mask);
                        c += 1;
                    }
                }
            }

            /// Scores of keys `j0..j0 + R` against queries `q0..` (under `mask`), in bf16 pairs of
            /// channels, scaled, into `s`; `max` raised to the largest of each query's.
            #[allow(clippy::too_many_arguments)]
            #[inline]
            #[target_feature(enable = $features)]
            unsafe fn scores_bf16<const R: usize>(
                qp: *const u32,
                pairs: usize,
                kp: *const u32,
                stride: usize,
                q0: usize,
                mask: __mmask16,
                j0: usize,
                scale: __m512,
                s: *mut f32,
                mut max: __m512,
            ) -> __m512 {
                let mut acc = [_mm512_setzero_ps(); R];
                for t in 0..pairs {
                    let qt = (_mm512_maskz_loadu_epi32(mask, qp.add(t * stride + q0) as *const _));
                    let keys = kp.add(t * stride + j0);
                    for (r, a) in acc.iter_mut().enumerate() {
                        *a = $dot(*a, qt, (_mm512_set1_epi32(*keys.add(r) as i32)));
                    }
                }
                for (r, a) in acc.iter().enumerate() {
                    let x = _mm512_mul_ps(*a, scale);
                    _mm512_storeu_ps(s.add((j0 + r) * QUERIES), x);
                    max = _mm512_max_ps(max, x);
                }
                max
            }

            /// The softmax's weights from the base-2 scores `s` (`area` rows of 16 queries) less
            /// each query's `max`: `2^(s - max)` rounded to bf16, keys `2u` and `2u + 1` paired in
            /// each query's lane at `pp`'s row `u`; the reciprocal of each query's sum.
            #[inline]
            #[target_feature(enable = $features)]
            unsafe fn softmax_pairs(
                s: *const f32,
                area: usize,
                max: __m512,
                pp: *mut u32,
            ) -> __m512 {
                // Word 2i of the result is word i of the low half (key 2u's), 2i + 1 word i of the
                // high half (key 2u + 1's).
                let interleave = _mm512_set_epi16(
                    31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8, 23, 7, 22, 6, 21,
                    5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0,
                );
                let weight =
                    |j: usize| exp2(_mm512_sub_ps(_mm512_loadu_ps(s.add(j * QUERIES)), max));
                let (mut sum0, mut sum1) = (_mm512_setzero_ps(), _mm512_setzero_ps());
                let put = |u: usize, lo: __m512, hi: __m512| {
                    let both = $cvt2(hi, lo);
                    let both = _mm512_permutexvar_epi16(interleave, both);
                    _mm512_storeu_si512(pp.add(u * QUERIES) as *mut _, both);
                };
                for u in 0..area / 2 {
                    let (lo, hi) = (weight(2 * u), weight(2 * u + 1));
                    sum0 = _mm512_add_ps(sum0, lo);
                    sum1 = _mm512_add_ps(sum1, hi);
                    put(u, lo, hi);
                }
                if area % 2 == 1 {
                    let lo = weight(area - 1);
                    sum0 = _mm512_add_ps(sum0, lo);
                    put(area / 2, lo, _mm512_setzero_ps());
                }
                _mm512_div_ps(_mm512_set1_ps(1.0), _mm512_add_ps(sum0, sum1))
            }

            /// `2^x` for `x <= 0` to a relative 7e-6 (far below bf16's rounding, the weights' next
            /// step): `2^n p(f)` with `n` the nearest integer, `f = x - n` in [-1/2, 1/2] and `p`
            /// a degree-4 fit of `2^f`; under `2^-126` it is 0 or subnormal.
            #[inline]
            #[target_feature(enable = "avx512f")]
            unsafe fn exp2(x: __m512) -> __m512 {
                let x = _mm512_max_ps(x, _mm512_set1_ps(-127.0));
                let n =
                    _mm512_roundscale_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(x);
                let f = _mm512_sub_ps(x, n);
                let mut p = _mm512_set1_ps(9.308_636e-3);
                for c in [5.587_478e-2, 2.403_037e-1, 6.931_282e-1, 9.999_979e-1] {
                    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(c));
                }
                _mm512_scalef_ps(p, n)
            }

            /// Value rows `c0..c0 + R` (point pairs) weighted by the paired weights `pp`, times
            /// `inv`, into the output's queries `q0..` under `mask`.
            #[allow(clippy::too_many_arguments)]
            #[inline]
            #[target_feature(enable = $features)]
            unsafe fn values_bf16<const R: usize>(
                vp: *const u32,
                vrow: usize,
                c0: usize,
                pp: *const u32,
                half: usize,
                inv: __m512,
                out: *mut f32,
                stride: usize,
                q0: usize,
                mask: __mmask16,
            ) {
                let mut acc = [_mm512_setzero_ps(); R];
                for u in 0..half {
                    let w = (_mm512_loadu_si512(pp.add(u * QUERIES) as *const _));
                    for (r, a) in acc.iter_mut().enumerate() {
                        let x = *vp.add((c0 + r) * vrow + u);
                        *a = $dot(*a, w, (_mm512_set1_epi32(x as i32)));
                    }
                }
                for (r, a) in acc.iter().enumerate() {
                    let o = out.add((c0 + r) * stride + q0);
                    _mm512_mask_storeu_ps(o, mask, _mm512_mul_ps(*a, inv));
                }
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
bf16_kernels!(
    native,
    "avx512f,avx512vl,avx512bw,avx512bf16",
    crate::nn::bf16::kernel::dot_native,
    crate::nn::bf16::kernel::cvt2_native
);
#[cfg(target_arch = "x86_64")]
bf16_kernels!(
    emulated,
    "avx512f,avx512vl,avx512bw",
    crate::nn::bf16::kernel::dot_emulated,
    crate::nn::bf16::kernel::cvt2_emulated
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::bf16::{from_bf16, pack_inputs, to_bf16};

    /// Shapes with every tail (areas not a multiple of 16 or 8, value rows not a multiple
    /// of 8, odd and even heads) and rows `stride` apart.
    const SHAPES: [(usize, usize, usize, usize); 4] = [
        (81, 81, 32, 32),
        (1, 3, 4, 3),
        (25, 50, 6, 9),
        (361, 722, 32, 16),
    ];

    /// Rows of random values in [-2, 2), `stride` apart, for `n` rows.
    fn random_rows(n: usize, stride: usize, seed: &mut u64) -> Vec<f32> {
        (0..n * stride)
            .map(|_| {
                *seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((*seed >> 33) as f32 / (1u64 << 31) as f32) * 4.0 - 2.0
            })
            .collect()
    }

    /// Checks `out` against the definition in f64, the queries and keys read through
    /// `round`, within `tolerance` (relative to 1 + the value); and that nothing was
    /// written between the rows.
    #[allow(clippy::too_many_arguments)]
    fn check(
        q: &[f32],
        k: &[f32],
        v: &[f32],
        shape: HeadShape,
        scale: f32,
        out: &[f32],
        round: fn(f32) -> f64,
        tolerance: f64,
    ) {
        let HeadShape {
            area,
            stride,
            d,
            dv,
        } = shape;
        for i in 0..area {
            let logits: Vec<f64> = (0..area)
                .map(|j| {
                    (0..d)
                        .map(|c| round(q[c * stride + i]) * round(k[c * stride + j]))
                        .sum::<f64>()
                        * scale as f64
                })
                .collect();
            let max = logits.iter().cloned().fold(f64::MIN, f64::max);
            let e: Vec<f64> = logits.iter().map(|l| (l - max).exp()).collect();
            let total: f64 = e.iter().sum();
            for c in 0..dv {
                let want = (0..area)
                    .map(|j| e[j] * v[c * stride + j] as f64)
                    .sum::<f64>()
                    / total;
                let got = out[c * stride + i] as f64;
                assert!(
                    (got - want).abs() <= tolerance * (1.0 + want.abs()),
                    "{area} points, d {d}, dv {dv}: out[{c}][{i}] {got} against {want}"
                );
            }
        }
        for c in 0..dv.saturating_sub(1) {
            assert!(out[c * stride + area..(c + 1) * stride]
                .iter()
                .all(|x| x.is_nan()));
        }
    }

    #[cfg_attr(not(tengen_avx512), ignore = "this CPU has no AVX-512 (F, VL, BW)")]
    #[test]
    fn attention_matches_the_definition() {
        assert!(available(), "this CPU has no AVX-512");
        for (area, stride, d, dv) in SHAPES {
            let mut seed = 7u64;
            let q = random_rows(d, stride, &mut seed);
            let k = random_rows(d, stride, &mut seed);
            let v = random_rows(dv, stride, &mut seed);
            let mut out = vec![f32::NAN; dv * stride];
            let scale = 1.0 / (d as f32).sqrt();
            let shape = HeadShape {
                area,
                stride,
                d,
                dv,
            };
            attend(&q, &k, &v, shape, scale, &mut out, &mut Vec::new());
            check(&q, &k, &v, shape, scale, &out, |x| x as f64, 1e-5);
        }
    }

    /// The bf16 products against the definition on the rounded queries and keys, within
    /// bf16's rounding of the values and the weights.
    #[test]
    #[cfg_attr(not(tengen_avx512), ignore = "this CPU has no AVX-512 (F, VL, BW)")]
    fn bf16_attention_stays_near_the_definition() {
        assert!(
            crate::nn::bf16::available(),
            "this CPU has no AVX-512 (F, VL, BW)"
        );
        for (area, stride, d, dv) in SHAPES {
            let mut seed = 11u64;
            let q = random_rows(d, stride, &mut seed);
            let k = random_rows(d, stride, &mut seed);
            let v = random_rows(dv, stride, &mut seed);
            let (mut qp, mut kp) = (Vec::new(), Vec::new());
            pack_inputs(&q, d, stride, &mut qp);
            pack_inputs(&k, d, stride, &mut kp);
            let mut out = vec![f32::NAN; dv * stride];
            let scale = 1.0 / (d as f32).sqrt();
            let shape = HeadShape {
                area,
                stride,
                d,
                dv,
            };
            let (mut s, mut p) = (Vec::new(), Vec::new());
            attend_bf16(&qp, &kp, &v, shape, scale, &mut out, &mut s, &mut p);
            check(
                &q,
                &k,
                &v,
                shape,
                scale,
                &out,
                |x| from_bf16(to_bf16(x)) as f64,
                2e-2,
            );
        }
    }
}
