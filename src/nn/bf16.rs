//! Dense layers in bf16 (issue 45): weights and inputs rounded to bf16 (8 bits of
//! mantissa), products summed in fp32 by AVX512-BF16's `vdpbf16ps`, which does twice the
//! multiply-adds of an fp32 FMA per instruction. Weights are packed once per layer, two
//! input channels to a 32-bit lane, each block of 64 outputs together
//! (`[block][pair][out]`); a layer's inputs are packed per call the same way
//! (`[pair][point]`), 16 points at a time, or a channel at a time as a norm computes them
//! ([`pack_rows`]). A layer's sums are written, or added to a residual stream; SwiGLU's two
//! layers run as one ([`swiglu`]) whose output is already packed for the next. Only on CPUs
//! with AVX512-BF16, and only for layers whose outputs come in whole blocks of 64
//! ([`usable`]); the forward pass falls back on fp32 elsewhere. Knows nothing of models,
//! boards or evaluation.

/// Output channels one pass of the kernel computes (4 vectors of 16).
pub const BLOCK: usize = 64;
/// Points one tile of the kernel computes.
const POINTS: usize = 6;

/// `x` rounded to the nearest bf16 (ties to even), as its 16 bits.
pub fn to_bf16(x: f32) -> u16 {
    let u = x.to_bits();
    if x.is_nan() {
        return ((u >> 16) | 0x40) as u16;
    }
    let round = ((u >> 16) & 1) + 0x7fff;
    (u.wrapping_add(round) >> 16) as u16
}

/// The f32 a bf16 stands for.
pub fn from_bf16(b: u16) -> f32 {
    f32::from_bits((b as u32) << 16)
}

fn pair(lo: f32, hi: f32) -> u32 {
    to_bf16(lo) as u32 | (to_bf16(hi) as u32) << 16
}

/// Whether this CPU runs the kernel (AVX-512F and AVX512-BF16), detected once.
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *HAS.get_or_init(|| {
            is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bf16")
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Whether a dense layer of `outputs` channels can run in bf16 here.
pub fn usable(outputs: usize) -> bool {
    outputs.is_multiple_of(BLOCK) && available()
}

/// The weights `w` (`inputs x outputs`, row-major; `outputs` a multiple of [`BLOCK`]) as
/// bf16 pairs of input channels, one block of [`BLOCK`] outputs after another, so that the
/// kernel reads each block's weights in one run: element `[b][j][o]` holds
/// `w[2j][b BLOCK + o]` in its low half and `w[2j + 1][b BLOCK + o]` (0 past the last
/// input) in its high half.
pub fn pack_weights(w: &[f32], inputs: usize, outputs: usize) -> Vec<u32> {
    assert!(
        outputs.is_multiple_of(BLOCK),
        "{outputs} outputs are not whole blocks"
    );
    let pairs = inputs.div_ceil(2);
    let mut out = vec![0u32; pairs * outputs];
    for j in 0..pairs {
        for o in 0..outputs {
            let lo = w[2 * j * outputs + o];
            let hi = if 2 * j + 1 < inputs {
                w[(2 * j + 1) * outputs + o]
            } else {
                0.0
            };
            out[((o / BLOCK) * pairs + j) * BLOCK + o % BLOCK] = pair(lo, hi);
        }
    }
    out
}

/// What a dense layer does with its sums: writes them, or adds them to what is there (a
/// residual stream).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Write {
    Store,
    Add,
}

/// `out (outputs x width) = W^T x` for `x` (`inputs x width`, channel-major) and packed
/// weights `wp` ([`pack_weights`]); `xp` holds `x` packed, by this call unless `packed`
/// says an earlier call on the same `x` left it there. The caller checks [`usable`].
#[allow(clippy::too_many_arguments)]
pub fn dense(
    wp: &[u32],
    inputs: usize,
    outputs: usize,
    x: &[f32],
    width: usize,
    out: &mut [f32],
    xp: &mut Vec<u32>,
    packed: bool,
) {
    assert_eq!(x.len(), inputs * width, "inputs of another shape");
    if !packed {
        pack_inputs(x, inputs, width, xp);
    }
    dense_packed(wp, inputs, outputs, xp, width, out, Write::Store);
}

/// [`dense`] from inputs already packed in `xp` ([`pack_inputs`], [`pack_rows`],
/// [`swiglu`]), its sums written or added into `out`.
pub fn dense_packed(
    wp: &[u32],
    inputs: usize,
    outputs: usize,
    xp: &[u32],
    width: usize,
    out: &mut [f32],
    write: Write,
) {
    assert!(
        usable(outputs),
        "bf16 dense layer of {outputs} outputs on this CPU"
    );
    let pairs = inputs.div_ceil(2);
    assert_eq!(wp.len(), pairs * outputs, "weights of another shape");
    assert_eq!(xp.len(), pairs * width, "inputs packed for another shape");
    assert!(out.len() >= outputs * width);
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `usable` checked the CPU's features; the asserts above keep every index the
    // kernel touches inside its slice.
    unsafe {
        kernel::dense(wp, pairs, outputs, xp, width, out, write == Write::Add)
    }
}

/// `silu(W1^T x) * (Wg^T x)` (SwiGLU: the sums of two layers on the same packed inputs
/// `xp`, combined as `ops::swiglu` combines them), rounded and packed for the next layer
/// into `hp` (`outputs` channels at `width` points), without the two layers' outputs ever
/// written out. The caller checks [`usable`].
pub fn swiglu(
    w1: &[u32],
    wg: &[u32],
    inputs: usize,
    outputs: usize,
    xp: &[u32],
    width: usize,
    hp: &mut Vec<u32>,
) {
    assert!(
        usable(outputs),
        "bf16 dense layer of {outputs} outputs on this CPU"
    );
    let pairs = inputs.div_ceil(2);
    assert!(w1.len() == pairs * outputs && wg.len() == pairs * outputs);
    assert_eq!(xp.len(), pairs * width, "inputs packed for another shape");
    hp.clear();
    hp.resize(outputs / 2 * width, 0);
    #[cfg(target_arch = "x86_64")]
    // SAFETY: as in `dense_packed`; `hp` holds `outputs / 2` pairs at `width` points.
    unsafe {
        kernel::swiglu(w1, wg, pairs, outputs, xp, width, hp)
    }
}

/// Inputs computed a channel at a time (`row(c, values)` writes channel `c`'s `width`
/// values) and packed as [`pack_inputs`] packs them: a norm or an activation goes
/// straight into the packing without a whole copy of its output.
pub fn pack_rows(
    inputs: usize,
    width: usize,
    xp: &mut Vec<u32>,
    mut row: impl FnMut(usize, &mut [f32]),
) {
    let pairs = inputs.div_ceil(2);
    xp.clear();
    xp.resize(pairs * width, 0);
    let mut rows = vec![0.0f32; 2 * width];
    for j in 0..pairs {
        let n = if 2 * j + 1 < inputs { 2 } else { 1 };
        for k in 0..n {
            row(2 * j + k, &mut rows[k * width..(k + 1) * width]);
        }
        pack_pair(
            &rows[..n * width],
            n,
            width,
            &mut xp[j * width..(j + 1) * width],
        );
    }
}

/// One pair of channels (`n` of 1 or 2 rows of `width` in `x`) packed into `out`.
fn pack_pair(x: &[f32], n: usize, width: usize, out: &mut [u32]) {
    #[cfg(target_arch = "x86_64")]
    if available() {
        // SAFETY: `available` checked AVX-512F; the kernel asserts the slices' lengths.
        unsafe { kernel::pack_inputs(x, n, width, out) };
        return;
    }
    pack_inputs_scalar(x, n, width, out);
}

/// `x` (`inputs x width`, channel-major) as bf16 pairs of input channels: element
/// `[j][p]` holds `x[2j][p]` low and `x[2j + 1][p]` (0 past the last input) high, each
/// rounded as [`to_bf16`] rounds.
pub fn pack_inputs(x: &[f32], inputs: usize, width: usize, xp: &mut Vec<u32>) {
    let pairs = inputs.div_ceil(2);
    xp.clear();
    xp.resize(width * pairs, 0);
    #[cfg(target_arch = "x86_64")]
    if available() {
        // SAFETY: `available` checked AVX-512F; the kernel stays inside the slices,
        // whose lengths it asserts.
        unsafe { kernel::pack_inputs(x, inputs, width, xp) };
        return;
    }
    pack_inputs_scalar(x, inputs, width, xp);
}

/// [`pack_inputs`] one value at a time (without AVX-512, and the vector code's reference).
fn pack_inputs_scalar(x: &[f32], inputs: usize, width: usize, xp: &mut [u32]) {
    let pairs = inputs.div_ceil(2);
    for j in 0..pairs {
        let lo = &x[2 * j * width..(2 * j + 1) * width];
        let row = &mut xp[j * width..(j + 1) * width];
        if 2 * j + 1 < inputs {
            let hi = &x[(2 * j + 1) * width..(2 * j + 2) * width];
            for p in 0..width {
                row[p] = pair(lo[p], hi[p]);
            }
        } else {
            for p in 0..width {
                row[p] = pair(lo[p], 0.0);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
pub(super) mod kernel {
    use super::{BLOCK, POINTS};
    use std::arch::x86_64::*;

    /// Calls `$f::<M>` for a tile of `$m` points (1 to [`POINTS`]).
    macro_rules! by_points {
        ($m:expr, $f:ident($($a:expr),*)) => {
            match $m {
                1 => $f::<1>($($a),*),
                2 => $f::<2>($($a),*),
                3 => $f::<3>($($a),*),
                4 => $f::<4>($($a),*),
                5 => $f::<5>($($a),*),
                _ => $f::<POINTS>($($a),*),
            }
        };
    }

    /// The bits of [`super::to_bf16`] of each lane, in the low half of its 32 (ties to
    /// even on the integer bits; a NaN stays a NaN).
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn round(v: __m512) -> __m512i {
        let u = _mm512_castps_si512(v);
        let odd = _mm512_and_si512(_mm512_srli_epi32::<16>(u), _mm512_set1_epi32(1));
        let up = _mm512_add_epi32(u, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7fff)));
        let rounded = _mm512_srli_epi32::<16>(up);
        let nan = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(v, v);
        let quiet = _mm512_or_si512(_mm512_srli_epi32::<16>(u), _mm512_set1_epi32(0x40));
        _mm512_mask_mov_epi32(rounded, nan, quiet)
    }

    /// [`super::pack_inputs`] 16 points at a time.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn pack_inputs(x: &[f32], inputs: usize, width: usize, xp: &mut [u32]) {
        let pairs = inputs.div_ceil(2);
        assert!(x.len() >= inputs * width && xp.len() >= pairs * width);
        for j in 0..pairs {
            let lo = x.as_ptr().add(2 * j * width);
            let hi = (2 * j + 1 < inputs).then(|| x.as_ptr().add((2 * j + 1) * width));
            let row = xp.as_mut_ptr().add(j * width);
            let mut p = 0;
            while p < width {
                let mask: __mmask16 = if width - p >= 16 {
                    0xffff
                } else {
                    (1u16 << (width - p)) - 1
                };
                let l = round(_mm512_maskz_loadu_ps(mask, lo.add(p)));
                let both = match hi {
                    Some(hi) => {
                        let h = round(_mm512_maskz_loadu_ps(mask, hi.add(p)));
                        _mm512_or_si512(l, _mm512_slli_epi32::<16>(h))
                    }
                    None => l,
                };
                _mm512_mask_storeu_epi32(row.add(p) as *mut _, mask, both);
                p += 16;
            }
        }
    }

    /// Every block of 64 outputs (the block's weights one run, read again by each
    /// tile), every tile of points.
    #[target_feature(enable = "avx512f,avx512bf16")]
    pub(super) unsafe fn dense(
        wp: &[u32],
        pairs: usize,
        outputs: usize,
        xp: &[u32],
        width: usize,
        out: &mut [f32],
        add: bool,
    ) {
        let (wp, xp, out) = (wp.as_ptr(), xp.as_ptr(), out.as_mut_ptr());
        for ob in (0..outputs).step_by(BLOCK) {
            let w = wp.add(ob * pairs);
            for p0 in (0..width).step_by(POINTS) {
                by_points!(
                    width - p0,
                    tile(w, pairs, xp.add(p0), width, ob, p0, width, out, add)
                );
            }
        }
    }

    /// Outputs `ob..ob + 64` at points `p0..p0 + M`, written or added into `out`.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    #[target_feature(enable = "avx512f,avx512bf16")]
    unsafe fn tile<const M: usize>(
        w: *const u32,
        pairs: usize,
        x: *const u32,
        stride: usize,
        ob: usize,
        p0: usize,
        width: usize,
        out: *mut f32,
        add: bool,
    ) {
        let acc = sums::<M>(w, pairs, x, stride);
        let mut lanes = [0.0f32; 16];
        for (m, a) in acc.iter().enumerate() {
            for (v, &vec) in a.iter().enumerate() {
                _mm512_storeu_ps(lanes.as_mut_ptr(), vec);
                for (l, &value) in lanes.iter().enumerate() {
                    let o = out.add((ob + 16 * v + l) * width + p0 + m);
                    if add {
                        *o += value;
                    } else {
                        *o = value;
                    }
                }
            }
        }
    }

    /// The sums of a block's 64 outputs (weights from `w`, `[pair][out]`) at `M` points
    /// (pair `j` of point `i` at `x[j stride + i]`): 4M accumulators of 16 outputs, each
    /// pair of inputs one `vdpbf16ps` per accumulator.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bf16")]
    unsafe fn sums<const M: usize>(
        w: *const u32,
        pairs: usize,
        x: *const u32,
        stride: usize,
    ) -> [[__m512; 4]; M] {
        let mut acc = [[_mm512_setzero_ps(); 4]; M];
        for j in 0..pairs {
            let row = w.add(j * BLOCK);
            let points = x.add(j * stride);
            let wv: [__m512bh; 4] = [
                bh(_mm512_loadu_si512(row as *const _)),
                bh(_mm512_loadu_si512(row.add(16) as *const _)),
                bh(_mm512_loadu_si512(row.add(32) as *const _)),
                bh(_mm512_loadu_si512(row.add(48) as *const _)),
            ];
            for (m, a) in acc.iter_mut().enumerate() {
                let xb = bh(_mm512_set1_epi32(*points.add(m) as i32));
                for v in 0..4 {
                    a[v] = _mm512_dpbf16_ps(a[v], wv[v], xb);
                }
            }
        }
        acc
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bf16")]
    unsafe fn bh(x: __m512i) -> __m512bh {
        std::mem::transmute::<__m512i, __m512bh>(x)
    }

    /// [`super::swiglu`]: per block and tile, both layers' sums, combined and packed.
    #[allow(clippy::too_many_arguments)]
    #[target_feature(enable = "avx512f,avx512bf16")]
    pub(super) unsafe fn swiglu(
        w1: &[u32],
        wg: &[u32],
        pairs: usize,
        outputs: usize,
        xp: &[u32],
        width: usize,
        hp: &mut [u32],
    ) {
        let (w1, wg, xp, hp) = (w1.as_ptr(), wg.as_ptr(), xp.as_ptr(), hp.as_mut_ptr());
        for ob in (0..outputs).step_by(BLOCK) {
            let (w1, wg) = (w1.add(ob * pairs), wg.add(ob * pairs));
            for p0 in (0..width).step_by(POINTS) {
                by_points!(
                    width - p0,
                    swiglu_tile(w1, wg, pairs, xp.add(p0), width, ob, p0, hp)
                );
            }
        }
    }

    /// One block and tile of [`swiglu`]: `silu(a) g` of each output, rounded to bf16,
    /// outputs `2i` and `2i + 1` paired into pair `i` of the packed outputs.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    #[target_feature(enable = "avx512f,avx512bf16")]
    unsafe fn swiglu_tile<const M: usize>(
        w1: *const u32,
        wg: *const u32,
        pairs: usize,
        x: *const u32,
        width: usize,
        ob: usize,
        p0: usize,
        hp: *mut u32,
    ) {
        // The first layer's sums go to memory before the second's are taken: held in
        // registers through the second loop they would be spilled inside it.
        let mut first = [_mm512_setzero_ps(); 4 * POINTS];
        for (m, a) in sums::<M>(w1, pairs, x, width).iter().enumerate() {
            for (v, &vec) in a.iter().enumerate() {
                _mm512_storeu_ps(first.as_mut_ptr().add(4 * m + v) as *mut f32, vec);
            }
        }
        let first = std::hint::black_box(first.as_ptr());
        let g = sums::<M>(wg, pairs, x, width);
        let mut lanes = [0u32; 8];
        for (m, gm) in g.iter().enumerate() {
            for (v, &gv) in gm.iter().enumerate() {
                let a = _mm512_loadu_ps(first.add(4 * m + v) as *const f32);
                let h = _mm512_mul_ps(silu(a), gv);
                // Lanes 2i and 2i + 1 as one 64-bit lane: bits 0-15 and 32-47 hold the
                // two bf16s, brought together in the low 32 and narrowed.
                let r = round(h);
                let lo = _mm512_and_si512(r, _mm512_set1_epi64(0xffff));
                let hi =
                    _mm512_and_si512(_mm512_srli_epi64::<16>(r), _mm512_set1_epi64(0xffff_0000));
                let paired = _mm512_cvtepi64_epi32(_mm512_or_si512(lo, hi));
                _mm256_storeu_si256(lanes.as_mut_ptr() as *mut _, paired);
                for (i, &value) in lanes.iter().enumerate() {
                    let j = (ob + 16 * v) / 2 + i;
                    *hp.add(j * width + p0 + m) = value;
                }
            }
        }
    }

    /// `x / (1 + e^-x)` lane by lane, the same operations as `ops`' element-wise `silu`
    /// with fused multiply-adds, so the same bits.
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn silu(x: __m512) -> __m512 {
        let neg = _mm512_castsi512_ps(_mm512_xor_si512(
            _mm512_castps_si512(x),
            _mm512_set1_epi32(i32::MIN),
        ));
        _mm512_div_ps(x, _mm512_add_ps(_mm512_set1_ps(1.0), exp(neg)))
    }

    /// `e^x` as `ops`' element-wise `exp` computes it (Cephes' `expf`: within 2 ulp, 0
    /// below -87), 16 lanes; also the softmax's of `attend`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(in crate::nn) unsafe fn exp(x: __m512) -> __m512 {
        let xc = _mm512_min_ps(
            _mm512_max_ps(x, _mm512_set1_ps(-87.0)),
            _mm512_set1_ps(88.0),
        );
        let round = _mm512_set1_ps(12_582_912.0);
        let t = _mm512_fmadd_ps(xc, _mm512_set1_ps(std::f32::consts::LOG2_E), round);
        let n = _mm512_sub_ps(t, round);
        let r = _mm512_fmadd_ps(n, _mm512_set1_ps(-0.693_359_4), xc);
        let r = _mm512_fmadd_ps(n, _mm512_set1_ps(2.121_944_4e-4), r);
        let mut p = _mm512_set1_ps(1.987_569_1e-4);
        for c in [
            1.398_2e-3,
            8.333_452e-3,
            4.166_579_6e-2,
            1.666_666_5e-1,
            0.5,
        ] {
            p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(c));
        }
        let p = _mm512_add_ps(
            _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), r),
            _mm512_set1_ps(1.0),
        );
        let pow2 = _mm512_slli_epi32::<23>(_mm512_sub_epi32(
            _mm512_castps_si512(t),
            _mm512_set1_epi32(0x4B40_0000 - 127),
        ));
        let e = _mm512_mul_ps(p, _mm512_castsi512_ps(pow2));
        let tiny = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(x, _mm512_set1_ps(-87.0));
        _mm512_mask_mov_ps(e, tiny, _mm512_setzero_ps())
    }
}

/// Values in [-2, 2) from a seeded generator, for the tests of the kernels.
#[cfg(test)]
pub(super) fn test_values(n: usize, seed: &mut u64) -> Vec<f32> {
    (0..n)
        .map(|_| {
            *seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((*seed >> 33) as f32 / (1u64 << 31) as f32) * 4.0 - 2.0
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_is_to_the_nearest_bf16() {
        assert_eq!(from_bf16(to_bf16(1.0)), 1.0);
        assert_eq!(from_bf16(to_bf16(-2.5)), -2.5);
        // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties go to the even one, 1.
        assert_eq!(from_bf16(to_bf16(1.0 + 1.0 / 256.0)), 1.0);
        assert_eq!(from_bf16(to_bf16(1.0 + 3.0 / 512.0)), 1.0 + 1.0 / 128.0);
        for x in [0.1f32, 3.7, -1234.5, 1e-20, 6e30] {
            let y = from_bf16(to_bf16(x));
            assert!(((y - x) / x).abs() <= 1.0 / 256.0, "{x} -> {y}");
        }
        assert!(from_bf16(to_bf16(f32::NAN)).is_nan());
    }

    /// The vector packing rounds exactly as the scalar one, ties, NaN, infinities,
    /// subnormals and tails of every length included.
    #[test]
    fn inputs_pack_as_the_scalar_rounding_does() {
        if !available() {
            eprintln!("skipped: this CPU has no AVX512-BF16");
            return;
        }
        let specials = [
            0.0f32,
            -0.0,
            1.0 + 1.0 / 256.0,
            1.0 + 3.0 / 256.0,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MAX,
            1e-40,
            -3e-39,
            f32::from_bits(0x7f7f_ffff),
            f32::from_bits(0x3f80_8000),
        ];
        for (inputs, width) in [(1, 1), (3, 17), (8, 81), (7, 33), (2, 16), (5, 361)] {
            let mut seed = 99u64;
            let x: Vec<f32> = (0..inputs * width)
                .map(|i| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    if i % 5 == 0 {
                        specials[(seed >> 40) as usize % specials.len()]
                    } else {
                        f32::from_bits((seed >> 32) as u32)
                    }
                })
                .collect();
            let mut fast = Vec::new();
            pack_inputs(&x, inputs, width, &mut fast);
            let mut slow = vec![0u32; fast.len()];
            pack_inputs_scalar(&x, inputs, width, &mut slow);
            assert_eq!(fast, slow, "{inputs} inputs at {width} points");
        }
    }

    /// The kernel against the same sums in f64 of the bf16-rounded operands, on shapes
    /// with every tail (points not a multiple of 6, an odd number of inputs).
    #[test]
    fn the_kernel_sums_the_rounded_products() {
        if !available() {
            eprintln!("skipped: this CPU has no AVX512-BF16");
            return;
        }
        for (inputs, outputs, width) in [(7, 64, 1), (192, 128, 81), (33, 64, 17), (2, 192, 6)] {
            let mut seed = 12345u64;
            let mut rand = || {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((seed >> 33) as f32 / (1u64 << 31) as f32) * 2.0 - 1.0
            };
            let w: Vec<f32> = (0..inputs * outputs).map(|_| rand()).collect();
            let x: Vec<f32> = (0..inputs * width).map(|_| rand()).collect();
            let wp = pack_weights(&w, inputs, outputs);
            let mut out = vec![f32::NAN; outputs * width];
            let mut xp = Vec::new();
            dense(&wp, inputs, outputs, &x, width, &mut out, &mut xp, false);
            let r = |v: f32| from_bf16(to_bf16(v)) as f64;
            for o in 0..outputs {
                for p in 0..width {
                    let want: f64 = (0..inputs)
                        .map(|i| r(w[i * outputs + o]) * r(x[i * width + p]))
                        .sum();
                    let got = out[o * width + p] as f64;
                    assert!(
                        (got - want).abs() <= 1e-4 * (1.0 + want.abs()),
                        "{inputs}x{outputs} at {width} points: out[{o}][{p}] {got} against {want}"
                    );
                }
            }
        }
    }

    /// Rows computed on the fly pack as the whole input does; sums added are the sums
    /// written plus what was there.
    #[test]
    fn packed_rows_and_added_sums_are_the_plain_ones() {
        if !available() {
            eprintln!("skipped: this CPU has no AVX512-BF16");
            return;
        }
        for (inputs, outputs, width) in [(192, 192, 81), (9, 64, 17), (384, 192, 361)] {
            let mut seed = 11u64;
            let w = test_values(inputs * outputs, &mut seed);
            let x = test_values(inputs * width, &mut seed);
            let base = test_values(outputs * width, &mut seed);
            let wp = pack_weights(&w, inputs, outputs);
            let mut whole = Vec::new();
            pack_inputs(&x, inputs, width, &mut whole);
            let mut rows = Vec::new();
            pack_rows(inputs, width, &mut rows, |c, row| {
                row.copy_from_slice(&x[c * width..(c + 1) * width])
            });
            assert_eq!(rows, whole);
            let mut stored = vec![0.0; outputs * width];
            dense_packed(
                &wp,
                inputs,
                outputs,
                &whole,
                width,
                &mut stored,
                Write::Store,
            );
            let mut added = base.clone();
            dense_packed(&wp, inputs, outputs, &whole, width, &mut added, Write::Add);
            for ((a, s), b) in added.iter().zip(&stored).zip(&base) {
                assert_eq!(a.to_bits(), (b + s).to_bits());
            }
        }
    }
}
