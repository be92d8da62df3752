//! The int8 dense layers of `nn::int8` on CPUs without AVX512-VNNI (its submodule
//! `int8::avx2`, declared there, so that it shares that module's private formats without
//! a second module naming the first and back): the same packed
//! weights and inputs, the same tiles of eight outputs (at eight points, one 256-bit
//! register), the same integer sums and the same fp32 scaling, on AVX2: the outputs of the
//! AVX-512 kernels, bit for bit. Owns these kernels and nothing else: the formats, the
//! rounding and the choice of kernel are `nn::int8`'s.
//!
//! Two kernels, one macro:
//!
//! - [`vnni`] (AVX-VNNI: Alder Lake and later, Sierra Forest): AVX-VNNI's `vpdpbusd` on
//!   256-bit registers, as the AVX-512 kernels sum: unsigned inputs (stored plus 128) times
//!   signed weights, each sum started from minus 128 times its run's weights.
//! - [`madd`] (AVX2 with FMA, an older EPYC's): `vpmaddubsw` multiplies unsigned bytes by
//!   signed ones and adds pairs into 16-bit integers, `vpmaddwd` by ones adds those pairs
//!   into the 32-bit sums. `vpmaddubsw` saturates: two products of an input stored plus
//!   128 (up to 255) and a weight of 127 (64,770) do not fit in 16 bits. The scheme
//!   chosen keeps both at their 8 bits: each input register is taken back to signed
//!   (minus 128: `vpxor` of the top bit) and split into its magnitude (`vpabsb`, 0 to 127)
//!   and its sign, which `vpsignb` moves onto the weights, so that `vpmaddubsw` multiplies
//!   magnitudes by signed weights: `2 * 127 * 127 = 32,258` fits, and the sums start from
//!   zero. The cost: one `vpsignb` a product beside the two multiplies (and two
//!   instructions a register of inputs, shared by eight outputs).
//!
//!   Why not fewer bits: weights rounded within 64 instead of 127 (`2 * 255 * 64 =
//!   32,640`), or inputs within 64 stored plus 64, need no `vpsignb`, but each moved the
//!   policy of the fixture b7c96h3tfrs by up to 0.104 and 0.097 from fp32 (policy means
//!   2.8e-4 both) where `nn::forward::int8_stays_close_to_fp32` allows 0.08 and
//!   AVX512-VNNI's int8 moves it by 0.046 (mean 1.7e-4): past the bounds int8 was
//!   measured to play within (PERF.md).
//!
//! The inputs are packed by `int8`'s plain packing compiled here for AVX2 ([`pack`]).

#[cfg(target_arch = "x86_64")]
use super::{groups, pack_plain, Group, Inputs, Weights, CHUNK};
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Outputs a tile computes (`nn::int8`'s groups of weights).
#[cfg(target_arch = "x86_64")]
const OUTS: usize = 8;

/// `int8::Inputs::pack` for AVX2 (`x` into `q`, sized by it): the plain packing, the
/// compiler's vectors AVX2's.
///
/// # Safety
/// The CPU has AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn pack(x: &[f32], q: &mut Inputs) {
    pack_plain(x, q.inputs, q.width, &mut q.lanes, &mut q.scale)
}

/// A register of inputs (unsigned, stored plus 128) as [`madd_sum`] takes it: their
/// magnitudes and, for their signs, the signed inputs.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2")]
fn madd_inputs(x: __m256i) -> [__m256i; 2] {
    let signed = _mm256_xor_si256(x, _mm256_set1_epi8(i8::MIN));
    [_mm256_abs_epi8(signed), signed]
}

/// Adds the products of four inputs ([`madd_inputs`]) and four signed weights of each
/// 32-bit lane to `acc`: the magnitudes times the weights with the inputs' signs, by
/// `vpmaddubsw`, then `vpmaddwd` by ones.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2")]
fn madd_sum(acc: __m256i, [size, sign]: [__m256i; 2], w: __m256i) -> __m256i {
    let pairs = _mm256_maddubs_epi16(size, _mm256_sign_epi8(w, sign));
    _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)))
}

/// The inputs as [`vnni_sum`] takes them: as stored.
#[cfg(target_arch = "x86_64")]
#[inline]
fn vnni_inputs(x: __m256i) -> __m256i {
    x
}

/// Adds the products of four unsigned inputs and four signed weights of each 32-bit lane
/// to `acc`, by AVX-VNNI's `vpdpbusd`.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2,avxvnni")]
fn vnni_sum(acc: __m256i, x: __m256i, w: __m256i) -> __m256i {
    _mm256_dpbusd_avx_epi32(acc, x, w)
}

/// A kernel: `dense` (`int8::dense`) with the target features `$features`, its registers
/// of inputs taken by `$inputs` and summed by `$sum`; `$signed` when that takes the inputs
/// back to signed (the sums then start from zero, not from the weights' `start`).
macro_rules! kernel {
    ($(#[$attr:meta])* $name:ident, $features:literal, $inputs:ident, $sum:ident, $signed:literal) => {
        $(#[$attr])*
        #[cfg(target_arch = "x86_64")]
        pub(super) mod $name {
            use super::*;

            /// `int8::dense`: per group of eight outputs, per eight points, per run of
            /// inputs; the points past the last eight by a masked tile.
            ///
            /// # Safety
            /// The CPU has the features; `w` and `x` are packed for the same layer and
            /// `out` holds `w.outputs x x.width` values.
            #[target_feature(enable = $features)]
            pub(in crate::nn::int8) unsafe fn dense(w: &Weights, x: &Inputs, out: &mut [f32], add: bool) {
                let width = x.width;
                let whole = width - width % 8;
                for g in groups(w, out, width) {
                    for p in (0..whole).step_by(8) {
                        tile::<false>(g, x, p, 8, add);
                    }
                    if whole < width {
                        tile::<true>(g, x, whole, width - whole, add);
                    }
                }
            }

            /// Eight outputs at the `n` points from `p` (eight unless `MASKED`).
            #[inline]
            #[target_feature(enable = $features)]
            unsafe fn tile<const MASKED: bool>(g: Group, x: &Inputs, p: usize, n: usize, add: bool) {
                let width = x.width;
                let mask = _mm256_cmpgt_epi32(
                    _mm256_set1_epi32(n as i32),
                    _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                );
                let load_i = |at: *const u32| {
                    if MASKED {
                        _mm256_maskload_epi32(at as *const i32, mask)
                    } else {
                        _mm256_loadu_si256(at as *const __m256i)
                    }
                };
                let load_f = |at: *const f32| {
                    if MASKED {
                        _mm256_maskload_ps(at, mask)
                    } else {
                        _mm256_loadu_ps(at)
                    }
                };
                let xl = x.lanes.as_ptr().add(p);
                for r in 0..g.runs {
                    let mut acc: [__m256i; OUTS] = std::array::from_fn(|k| {
                        _mm256_set1_epi32(if $signed { 0 } else { *g.start.add(r * OUTS + k) })
                    });
                    let (j0, j1) = (r * CHUNK / 4, ((r + 1) * CHUNK / 4).min(g.quads));
                    for j in j0..j1 {
                        let xs = $inputs(load_i(xl.add(j * width)));
                        let wj = g.lanes.add(j * OUTS);
                        for (k, a) in acc.iter_mut().enumerate() {
                            *a = $sum(*a, xs, _mm256_set1_epi32(*wj.add(k) as i32));
                        }
                    }
                    let sx = load_f(x.scale.as_ptr().add(r * width + p));
                    for (k, a) in acc.iter().enumerate() {
                        let f = _mm256_cvtepi32_ps(*a);
                        let t = _mm256_mul_ps(sx, _mm256_set1_ps(*g.scale.add(r * OUTS + k)));
                        let at = g.out.add(k * width + p);
                        let sum = if r == 0 && !add {
                            _mm256_mul_ps(f, t)
                        } else {
                            _mm256_fmadd_ps(f, t, load_f(at))
                        };
                        if MASKED {
                            _mm256_maskstore_ps(at, mask, sum);
                        } else {
                            _mm256_storeu_ps(at, sum);
                        }
                    }
                }
            }
        }
    };
}

kernel!(
    /// AVX2's `vpsignb`, `vpmaddubsw` and `vpmaddwd`.
    madd,
    "avx2,fma",
    madd_inputs,
    madd_sum,
    true
);
kernel!(
    /// AVX-VNNI's `vpdpbusd`.
    vnni,
    "avx2,fma,avxvnni",
    vnni_inputs,
    vnni_sum,
    false
);

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::nn::cpu::Features;
    use crate::nn::int8::{check_avx512, check_kernel};

    /// `dense` against the sums done by hand, its inputs packed by [`pack`] as the plain
    /// packing packs (`int8::check_kernel`); on a CPU with AVX512-VNNI also against the
    /// AVX-512 kernel's outputs, bit for bit.
    fn check(dense: unsafe fn(&Weights, &Inputs, &mut [f32], bool)) {
        // SAFETY: the callers checked the features; the helper passes packed shapes that
        // agree.
        let outs = check_kernel(
            |x, q| unsafe { pack(x, q) },
            |w, x, o, add| unsafe { dense(w, x, o, add) },
        );
        if Features::detected().avx512vnni {
            assert!(outs == check_avx512(), "not the AVX-512 kernel's outputs");
        }
    }

    /// `vpsignb`, `vpmaddubsw` and `vpmaddwd`.
    #[cfg_attr(not(tengen_avx2), ignore = "this CPU has no AVX2")]
    #[test]
    fn the_avx2_kernel_computes_the_quantised_products() {
        assert!(Features::detected().avx2, "this CPU has no AVX2");
        check(madd::dense);
    }

    /// AVX-VNNI's `vpdpbusd`.
    #[cfg_attr(not(tengen_avxvnni), ignore = "this CPU has no AVX-VNNI")]
    #[test]
    fn the_avx_vnni_kernel_computes_the_quantised_products() {
        assert!(Features::detected().avxvnni, "this CPU has no AVX-VNNI");
        check(vnni::dense);
    }
}
