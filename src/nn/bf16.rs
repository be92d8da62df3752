//! Dense layers in bf16 (issue 45): weights and inputs rounded to bf16 (8 bits of
//! mantissa), products summed in fp32 by AVX512-BF16's `vdpbf16ps`, which does twice the
//! multiply-adds of an fp32 FMA per instruction. Weights are packed once per layer, two
//! input channels to a 32-bit lane, each block of 64 outputs together
//! (`[block][pair][out]`); a layer's inputs are packed per call
//! the same way (`[pair][point]`), 16 points at a time. Only on CPUs with AVX512-BF16, and only for layers
//! whose outputs come in whole blocks of 64 ([`usable`]); the forward pass falls back on
//! fp32 elsewhere. Knows nothing of models, boards or evaluation.

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
    assert!(
        usable(outputs),
        "bf16 dense layer of {outputs} outputs on this CPU"
    );
    let pairs = inputs.div_ceil(2);
    assert!(wp.len() == pairs * outputs && x.len() == inputs * width);
    assert!(out.len() >= outputs * width);
    if packed {
        assert_eq!(xp.len(), width * pairs, "inputs packed for another shape");
    } else {
        pack_inputs(x, inputs, width, xp);
    }
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `usable` checked the CPU's features; the asserts above keep every index the
    // kernel touches inside its slice.
    unsafe {
        kernel::dense(wp, pairs, outputs, xp, width, out)
    }
}

/// `x` (`inputs x width`, channel-major) as bf16 pairs of input channels: element
/// `[j][p]` holds `x[2j][p]` low and `x[2j + 1][p]` (0 past the last input) high, each
/// rounded as [`to_bf16`] rounds.
pub(super) fn pack_inputs(x: &[f32], inputs: usize, width: usize, xp: &mut Vec<u32>) {
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
mod kernel {
    use super::{BLOCK, POINTS};
    use std::arch::x86_64::*;

    /// [`super::pack_inputs`] 16 points at a time: the rounding of [`super::to_bf16`] on
    /// the integer bits (ties to even; a NaN stays a NaN).
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn pack_inputs(x: &[f32], inputs: usize, width: usize, xp: &mut [u32]) {
        let pairs = inputs.div_ceil(2);
        assert!(x.len() >= inputs * width && xp.len() >= pairs * width);
        let round = |v: __m512| -> __m512i {
            let u = _mm512_castps_si512(v);
            let odd = _mm512_and_si512(_mm512_srli_epi32::<16>(u), _mm512_set1_epi32(1));
            let up = _mm512_add_epi32(u, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7fff)));
            let rounded = _mm512_srli_epi32::<16>(up);
            let nan = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(v, v);
            let quiet = _mm512_or_si512(_mm512_srli_epi32::<16>(u), _mm512_set1_epi32(0x40));
            _mm512_mask_mov_epi32(rounded, nan, quiet)
        };
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

    /// Every block of 64 outputs, every tile of points.
    #[target_feature(enable = "avx512f,avx512bf16")]
    pub(super) unsafe fn dense(
        wp: &[u32],
        pairs: usize,
        outputs: usize,
        xp: &[u32],
        width: usize,
        out: &mut [f32],
    ) {
        for ob in (0..outputs).step_by(BLOCK) {
            let mut p = 0;
            while p + POINTS <= width {
                tile::<POINTS>(wp, pairs, ob, xp, p, width, out);
                p += POINTS;
            }
            match width - p {
                0 => {}
                1 => tile::<1>(wp, pairs, ob, xp, p, width, out),
                2 => tile::<2>(wp, pairs, ob, xp, p, width, out),
                3 => tile::<3>(wp, pairs, ob, xp, p, width, out),
                4 => tile::<4>(wp, pairs, ob, xp, p, width, out),
                _ => tile::<5>(wp, pairs, ob, xp, p, width, out),
            }
        }
    }

    /// Outputs `ob..ob + 64` at points `p0..p0 + M`: 4M accumulators of 16 outputs, each
    /// pair of inputs one `vdpbf16ps` per accumulator.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    #[target_feature(enable = "avx512f,avx512bf16")]
    unsafe fn tile<const M: usize>(
        wp: &[u32],
        pairs: usize,
        ob: usize,
        xp: &[u32],
        p0: usize,
        width: usize,
        out: &mut [f32],
    ) {
        let mut acc = [[_mm512_setzero_ps(); 4]; M];
        let w = wp.as_ptr().add(ob * pairs);
        let x = xp.as_ptr().add(p0);
        for j in 0..pairs {
            let row = w.add(j * BLOCK);
            let points = x.add(j * width);
            let wv: [__m512bh; 4] = [
                std::mem::transmute::<__m512i, __m512bh>(_mm512_loadu_si512(row as *const _)),
                std::mem::transmute::<__m512i, __m512bh>(_mm512_loadu_si512(
                    row.add(16) as *const _
                )),
                std::mem::transmute::<__m512i, __m512bh>(_mm512_loadu_si512(
                    row.add(32) as *const _
                )),
                std::mem::transmute::<__m512i, __m512bh>(_mm512_loadu_si512(
                    row.add(48) as *const _
                )),
            ];
            for (m, a) in acc.iter_mut().enumerate() {
                let xb = std::mem::transmute::<__m512i, __m512bh>(_mm512_set1_epi32(
                    *points.add(m) as i32,
                ));
                for v in 0..4 {
                    a[v] = _mm512_dpbf16_ps(a[v], wv[v], xb);
                }
            }
        }
        let mut lanes = [0.0f32; 16];
        for (m, a) in acc.iter().enumerate() {
            for (v, &vec) in a.iter().enumerate() {
                _mm512_storeu_ps(lanes.as_mut_ptr(), vec);
                for (l, &value) in lanes.iter().enumerate() {
                    *out.get_unchecked_mut((ob + 16 * v + l) * width + p0 + m) = value;
                }
            }
        }
    }
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
}
