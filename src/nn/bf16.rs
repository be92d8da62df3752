//! Dense layers in bf16 (issue 45): weights and inputs rounded to bf16 (8 bits of
//! mantissa), products summed in fp32 by AVX512-BF16's `vdpbf16ps`, which does twice the
//! multiply-adds of an fp32 FMA per instruction. Weights are packed once per layer, two
//! input channels to a 32-bit lane, eight outputs together (`[group][pair][out]`); a
//! layer's inputs are packed per call the same way (`[pair][point]`), 16 points at a time,
//! or a channel at a time as a norm computes them ([`pack_rows`]). A tile of the kernel is
//! eight outputs at 48 points: registers of 16 points, each output's weights broadcast, so
//! every output row is written a register at a time; the few points past the last whole
//! register take the roles swapped (eight outputs to a 256-bit register, a register a
//! point), the same sums. A layer's sums are written, or added to a residual stream; SwiGLU's two
//! layers run as one ([`swiglu`]) whose output is already packed for the next. On CPUs
//! with AVX-512 (F, VL, BW): with AVX512-BF16's instructions where the CPU has them, else
//! the same sums by fp32 multiply-adds ([`native`]); only for layers whose outputs come in
//! whole blocks of 64 ([`usable`]); the forward pass falls back on fp32 elsewhere. Knows
//! nothing of models, boards or evaluation.

/// Outputs a layer must come in whole blocks of to run in bf16 (the multiple every layer
/// of the trunk has).
pub const BLOCK: usize = 64;
/// Outputs one tile of the kernel computes, each a broadcast weight pair.
const OUTS: usize = 8;
/// Registers of 16 points one tile of the kernel computes (at most).
const VECS: usize = 3;

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

/// Whether this CPU runs the kernels (AVX-512 F, VL and BW): with AVX512-BF16's own
/// instructions where it has them ([`native`]), else with their products emulated by
/// fp32 multiply-adds, to the bit: the same outputs, at fp32's arithmetic rate but half its
/// bytes of weights and activations. Detected once.
pub fn available() -> bool {
    super::cpu::features().avx512
}

/// Whether the kernels run on AVX512-BF16's own instructions here (which every CPU with
/// them runs twice as fast as fp32): where `precision=auto` chooses bf16.
pub fn native() -> bool {
    super::cpu::features().avx512bf16
}

/// Whether a dense layer of `outputs` channels can run in bf16 here.
pub fn usable(outputs: usize) -> bool {
    outputs.is_multiple_of(BLOCK) && available()
}

/// The weights `w` (`inputs x outputs`, row-major; `outputs` a multiple of [`BLOCK`]) as
/// bf16 pairs of input channels, [`OUTS`] outputs at a time: element `[b][j][o]` holds
/// `w[2j][b OUTS + o]` in its low half and `w[2j + 1][b OUTS + o]` (0 past the last input)
/// in its high half, so that a tile broadcasts one group's weights of a pair from one run.
pub fn pack_weights(w: &[f32], inputs: usize, outputs: usize) -> Vec<u32> {
    let at = |i: usize, o: usize| if i < inputs { w[i * outputs + o] } else { 0.0 };
    pack_groups(inputs.div_ceil(2), outputs, |j, o| {
        pair(at(2 * j, o), at(2 * j + 1, o))
    })
}

/// `lanes` rows of `outputs` lanes (`lane(j, o)` the lane of row `j`, output `o`) laid out
/// as the tiles read them, [`OUTS`] outputs at a time: element `[b][j][o]` is
/// `lane(j, b OUTS + o)`.
fn pack_groups(rows: usize, outputs: usize, lane: impl Fn(usize, usize) -> u32) -> Vec<u32> {
    assert!(
        outputs.is_multiple_of(BLOCK),
        "{outputs} outputs are not whole blocks"
    );
    let mut out = vec![0u32; rows * outputs];
    for j in 0..rows {
        for o in 0..outputs {
            out[((o / OUTS) * rows + j) * OUTS + o % OUTS] = lane(j, o);
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
        let add = write == Write::Add;
        if native() {
            native::dense(wp, pairs, outputs, xp, width, out, add)
        } else {
            emulated::dense(wp, pairs, outputs, xp, width, out, add)
        }
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
        if native() {
            native::swiglu::<false>(w1, wg, pairs, outputs, xp, width, hp)
        } else {
            emulated::swiglu::<false>(w1, wg, pairs, outputs, xp, width, hp)
        }
    }
}

/// The weights `w` (`inputs x outputs`, row-major; `outputs` a multiple of [`BLOCK`]) for
/// [`dense_fp32`]: as [`pack_weights`] lays them out, one fp32 (its bits) an input channel
/// instead of a bf16 pair.
pub fn pack_weights_fp32(w: &[f32], inputs: usize, outputs: usize) -> Vec<u32> {
    pack_groups(inputs, outputs, |i, o| w[i * outputs + o].to_bits())
}

/// Points up to which [`dense_fp32`] beats the gemm crate's products (which pack their
/// inputs into contiguous panels, and win from 13x13 up: PERF.md).
pub const FP32_WIDTH: usize = 128;

/// Whether a dense layer of `outputs` channels at `width` points runs on [`dense_fp32`]
/// here (AVX-512, up to [`FP32_WIDTH`] points).
pub fn usable_fp32(outputs: usize, width: usize) -> bool {
    outputs.is_multiple_of(BLOCK) && width <= FP32_WIDTH && available()
}

/// `out (outputs x width) = W^T x` in fp32 by the bf16 kernel's tiles (eight outputs at 48
/// points, each weight broadcast, every sum one chain of multiply-adds over the inputs in
/// order): `x` (`inputs x width`, channel-major) read as it is, weights `wp` from
/// [`pack_weights_fp32`], sums written or added into `out`. The caller checks
/// [`usable_fp32`] (past [`FP32_WIDTH`] the tiles are slower, not wrong).
pub fn dense_fp32(
    wp: &[u32],
    inputs: usize,
    outputs: usize,
    x: &[f32],
    width: usize,
    out: &mut [f32],
    write: Write,
) {
    assert!(
        outputs.is_multiple_of(BLOCK) && available(),
        "fp32 tiles of {outputs} outputs on this CPU"
    );
    assert_eq!(wp.len(), inputs * outputs, "weights of another shape");
    assert_eq!(x.len(), inputs * width, "inputs of another shape");
    assert!(out.len() >= outputs * width);
    // SAFETY: an f32 and a u32 have the same size and alignment, and every bit pattern is
    // both; the kernel only reads `x`.
    let xp = unsafe { std::slice::from_raw_parts(x.as_ptr() as *const u32, x.len()) };
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the assert above checked the CPU's features; the asserts above keep every index
    // the kernel touches inside its slice.
    unsafe {
        fp32::dense(wp, inputs, outputs, xp, width, out, write == Write::Add)
    }
}

/// `silu(W1^T x) * (Wg^T x)` (SwiGLU) in fp32 by the tiles, written into `h` (`outputs`
/// rows of `width`): the bits of [`dense_fp32`] twice and `ops::swiglu`, without the two
/// layers' outputs written out. Weights from [`pack_weights_fp32`]; the caller checks
/// [`usable_fp32`].
pub fn swiglu_fp32(
    w1: &[u32],
    wg: &[u32],
    inputs: usize,
    outputs: usize,
    x: &[f32],
    width: usize,
    h: &mut Vec<f32>,
) {
    assert!(
        outputs.is_multiple_of(BLOCK) && available(),
        "fp32 tiles of {outputs} outputs on this CPU"
    );
    assert!(w1.len() == inputs * outputs && wg.len() == inputs * outputs);
    assert_eq!(x.len(), inputs * width, "inputs of another shape");
    h.clear();
    h.resize(outputs * width, 0.0);
    // SAFETY: as in `dense_fp32`.
    let xp = unsafe { std::slice::from_raw_parts(x.as_ptr() as *const u32, x.len()) };
    // SAFETY: likewise for the output, which the kernel writes as fp32 rows.
    let hp = unsafe { std::slice::from_raw_parts_mut(h.as_mut_ptr() as *mut u32, h.len()) };
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the assert above checked the CPU's features; the asserts keep every index
    // the kernel touches inside its slice (`h` holds `outputs` rows).
    unsafe {
        fp32::swiglu::<true>(w1, wg, inputs, outputs, xp, width, hp)
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
        pack_into(
            &rows[..n * width],
            n,
            width,
            &mut xp[j * width..(j + 1) * width],
        );
    }
}

/// `x` (`inputs x width`, channel-major) as bf16 pairs of input channels: element
/// `[j][p]` holds `x[2j][p]` low and `x[2j + 1][p]` (0 past the last input) high, each
/// rounded as [`to_bf16`] rounds.
pub fn pack_inputs(x: &[f32], inputs: usize, width: usize, xp: &mut Vec<u32>) {
    xp.clear();
    xp.resize(width * inputs.div_ceil(2), 0);
    pack_into(x, inputs, width, xp);
}

/// [`pack_inputs`] of `x` (`weight.len()` rows of `inv.len()` points) scaled as a
/// transformer's RMSNorm scales it: row `c` at point `p` times `inv[p] weight[c]`, that
/// product first, so the same bits as scaling the rows in fp32 and packing them. The
/// caller checks [`available`].
pub fn pack_normed(x: &[f32], weight: &[f32], inv: &[f32], xp: &mut Vec<u32>) {
    assert!(available(), "bf16 packing without AVX-512");
    let (channels, width) = (weight.len(), inv.len());
    assert_eq!(x.len(), channels * width, "rows of another shape");
    let pairs = channels.div_ceil(2);
    xp.clear();
    xp.resize(pairs * width, 0);
    for j in 0..pairs {
        let lo = &x[2 * j * width..(2 * j + 1) * width];
        let hi = (2 * j + 1 < channels).then(|| &x[(2 * j + 1) * width..(2 * j + 2) * width]);
        let w = (weight[2 * j], weight.get(2 * j + 1).copied().unwrap_or(0.0));
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `available` checked AVX-512F; every row is `width` long.
        unsafe {
            kernel::pack_normed(lo, hi, w, inv, &mut xp[j * width..(j + 1) * width])
        };
    }
}

/// [`pack_inputs`] of rows turned by RoPE first: `x`'s rows `2j` and `2j + 1` (`width`
/// points: positions of `area` points side by side) taken as the pair `(x0, x1)` at each
/// point `i` of a position and turned by the angle whose cosine and sine are
/// `cos[table(j) + i]` and `sin[table(j) + i]`: `(x0 cos - x1 sin, x0 sin + x1 cos)`, each
/// product rounded before the sum as a plain loop rounds it, so the same bits as turning
/// the rows in fp32 and packing them. The caller checks [`available`].
#[allow(clippy::too_many_arguments)]
pub fn pack_rotated(
    x: &[f32],
    pairs: usize,
    width: usize,
    area: usize,
    cos: &[f32],
    sin: &[f32],
    table: impl Fn(usize) -> usize,
    xp: &mut Vec<u32>,
) {
    assert!(available(), "bf16 packing without AVX-512");
    assert!(area >= 1 && width.is_multiple_of(area) && x.len() >= 2 * pairs * width);
    xp.clear();
    xp.resize(width * pairs, 0);
    for j in 0..pairs {
        let t = table(j);
        assert!(cos.len() >= t + area && sin.len() >= t + area);
        let (lo, hi) = x[2 * j * width..(2 * j + 2) * width].split_at(width);
        let row = &mut xp[j * width..(j + 1) * width];
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `available` checked AVX-512F; the rows and the table's `area` values
        // are inside their slices (asserted above).
        unsafe {
            kernel::pack_rotated(lo, hi, &cos[t..t + area], &sin[t..t + area], row)
        };
    }
}

/// [`pack_inputs`] into `out`, which holds the pairs: 16 points at a time on AVX-512.
fn pack_into(x: &[f32], inputs: usize, width: usize, out: &mut [u32]) {
    #[cfg(target_arch = "x86_64")]
    if available() {
        // SAFETY: `available` checked AVX-512F; the kernel stays inside the slices,
        // whose lengths it asserts.
        unsafe { kernel::pack_inputs(x, inputs, width, out) };
        return;
    }
    pack_inputs_scalar(x, inputs, width, out);
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
    use super::VECS;
    use std::arch::x86_64::*;

    /// The lanes of a register of 16 points that `n` points left fill.
    #[inline]
    pub(in crate::nn) fn mask_of(n: usize) -> __mmask16 {
        if n >= 16 {
            0xffff
        } else {
            (1u16 << n) - 1
        }
    }

    /// The masks of a tile's registers, `n` points from its first, and how many registers
    /// hold any.
    #[inline]
    pub(super) fn tile_masks(n: usize) -> ([__mmask16; VECS], usize) {
        (
            std::array::from_fn(|v| mask_of(n.saturating_sub(16 * v))),
            n.div_ceil(16),
        )
    }

    /// The bits of [`super::to_bf16`] of each lane, in the low half of its 32 (ties to
    /// even on the integer bits; a NaN stays a NaN).
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(in crate::nn) unsafe fn round(v: __m512) -> __m512i {
        let u = _mm512_castps_si512(v);
        let odd = _mm512_and_si512(_mm512_srli_epi32::<16>(u), _mm512_set1_epi32(1));
        let up = _mm512_add_epi32(u, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7fff)));
        let rounded = _mm512_srli_epi32::<16>(up);
        let nan = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(v, v);
        let quiet = _mm512_or_si512(_mm512_srli_epi32::<16>(u), _mm512_set1_epi32(0x40));
        _mm512_mask_mov_epi32(rounded, nan, quiet)
    }

    /// `lo` and `hi` rounded to bf16 and paired (`lo` low) into `row`'s lanes under `mask`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn store_pairs(row: *mut u32, mask: __mmask16, lo: __m512, hi: __m512) {
        let both = _mm512_or_si512(round(lo), _mm512_slli_epi32::<16>(round(hi)));
        _mm512_mask_storeu_epi32(row as *mut _, mask, both);
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
            for p in (0..width).step_by(16) {
                let mask = mask_of(width - p);
                let l = _mm512_maskz_loadu_ps(mask, lo.add(p));
                let h = hi.map_or(_mm512_setzero_ps(), |hi| {
                    _mm512_maskz_loadu_ps(mask, hi.add(p))
                });
                store_pairs(row.add(p), mask, l, h);
            }
        }
    }

    /// One pair of rows of [`super::pack_normed`] (`hi` absent past the last channel),
    /// 16 points at a time.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn pack_normed(
        lo: &[f32],
        hi: Option<&[f32]>,
        (wl, wh): (f32, f32),
        inv: &[f32],
        row: &mut [u32],
    ) {
        let width = row.len();
        let (wl, wh) = (_mm512_set1_ps(wl), _mm512_set1_ps(wh));
        for p in (0..width).step_by(16) {
            let mask = mask_of(width - p);
            let r = _mm512_maskz_loadu_ps(mask, inv.as_ptr().add(p));
            let a = _mm512_maskz_loadu_ps(mask, lo.as_ptr().add(p));
            let b = hi.map_or(_mm512_setzero_ps(), |hi| {
                _mm512_maskz_loadu_ps(mask, hi.as_ptr().add(p))
            });
            let (a, b) = (
                _mm512_mul_ps(a, _mm512_mul_ps(r, wl)),
                _mm512_mul_ps(b, _mm512_mul_ps(r, wh)),
            );
            store_pairs(row.as_mut_ptr().add(p), mask, a, b);
        }
    }

    /// One pair of rows of [`super::pack_rotated`], position by position (`cos.len()`
    /// points each), 16 points at a time.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn pack_rotated(
        lo: &[f32],
        hi: &[f32],
        cos: &[f32],
        sin: &[f32],
        row: &mut [u32],
    ) {
        let area = cos.len();
        for p0 in (0..row.len()).step_by(area) {
            for i in (0..area).step_by(16) {
                let mask = mask_of(area - i);
                let x0 = _mm512_maskz_loadu_ps(mask, lo.as_ptr().add(p0 + i));
                let x1 = _mm512_maskz_loadu_ps(mask, hi.as_ptr().add(p0 + i));
                let c = _mm512_maskz_loadu_ps(mask, cos.as_ptr().add(i));
                let sn = _mm512_maskz_loadu_ps(mask, sin.as_ptr().add(i));
                let r0 = _mm512_sub_ps(_mm512_mul_ps(x0, c), _mm512_mul_ps(x1, sn));
                let r1 = _mm512_add_ps(_mm512_mul_ps(x0, sn), _mm512_mul_ps(x1, c));
                store_pairs(row.as_mut_ptr().add(p0 + i), mask, r0, r1);
            }
        }
    }

    /// `x / (1 + e^-x)` lane by lane, the same operations as `ops`' element-wise `silu`
    /// with fused multiply-adds, so the same bits.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn silu(x: __m512) -> __m512 {
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

    /// `acc + a.hi b.hi + a.lo b.lo` lane by lane, each 32-bit lane of `a` and `b` a pair
    /// of bf16: AVX512-BF16's `vdpbf16ps`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bf16")]
    pub(in crate::nn) unsafe fn dot_native(acc: __m512, a: __m512i, b: __m512i) -> __m512 {
        _mm512_dpbf16_ps(
            acc,
            std::mem::transmute::<__m512i, __m512bh>(a),
            std::mem::transmute::<__m512i, __m512bh>(b),
        )
    }

    /// [`dot_native`] on 256 bits.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx512bf16")]
    pub(super) unsafe fn dot256_native(acc: __m256, a: __m256i, b: __m256i) -> __m256 {
        _mm256_dpbf16_ps(
            acc,
            std::mem::transmute::<__m256i, __m256bh>(a),
            std::mem::transmute::<__m256i, __m256bh>(b),
        )
    }

    /// [`dot_native`] without AVX512-BF16, to the bit: a bf16 is the top half of an fp32,
    /// so each pair's halves are widened by a mask and a shift, and their products (exact
    /// in fp32) added by two fused multiply-adds, the high halves' first, as `vdpbf16ps`
    /// adds them (it flushes subnormals; so do these under the forward pass's MXCSR).
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(in crate::nn) unsafe fn dot_emulated(acc: __m512, a: __m512i, b: __m512i) -> __m512 {
        let top = _mm512_set1_epi32(0xffff_0000u32 as i32);
        let (ah, bh) = (_mm512_and_si512(a, top), _mm512_and_si512(b, top));
        let (al, bl) = (_mm512_slli_epi32::<16>(a), _mm512_slli_epi32::<16>(b));
        let acc = _mm512_fmadd_ps(_mm512_castsi512_ps(ah), _mm512_castsi512_ps(bh), acc);
        _mm512_fmadd_ps(_mm512_castsi512_ps(al), _mm512_castsi512_ps(bl), acc)
    }

    /// [`dot_emulated`] on 256 bits.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn dot256_emulated(acc: __m256, a: __m256i, b: __m256i) -> __m256 {
        let top = _mm256_set1_epi32(0xffff_0000u32 as i32);
        let (ah, bh) = (_mm256_and_si256(a, top), _mm256_and_si256(b, top));
        let (al, bl) = (_mm256_slli_epi32::<16>(a), _mm256_slli_epi32::<16>(b));
        let acc = _mm256_fmadd_ps(_mm256_castsi256_ps(ah), _mm256_castsi256_ps(bh), acc);
        _mm256_fmadd_ps(_mm256_castsi256_ps(al), _mm256_castsi256_ps(bl), acc)
    }

    /// `acc + a b` lane by lane, `a` and `b` fp32 (as bits): the fp32 instance's "pair".
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn dot_fp32(acc: __m512, a: __m512i, b: __m512i) -> __m512 {
        _mm512_fmadd_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b), acc)
    }

    /// [`dot_fp32`] on 256 bits.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn dot256_fp32(acc: __m256, a: __m256i, b: __m256i) -> __m256 {
        _mm256_fmadd_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), acc)
    }

    /// `lo` and `hi` rounded to bf16, `lo`'s 16 in the low half of the result and `hi`'s
    /// in the high: AVX512-BF16's `vcvtne2ps2bf16`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bf16")]
    pub(in crate::nn) unsafe fn cvt2_native(hi: __m512, lo: __m512) -> __m512i {
        std::mem::transmute::<__m512bh, __m512i>(_mm512_cvtne2ps_pbh(hi, lo))
    }

    /// [`cvt2_native`] without AVX512-BF16: [`round`] narrowed to 16 bits (the same bits
    /// for every number but subnormals, which the instruction flushes and the forward pass
    /// never makes under its MXCSR).
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(in crate::nn) unsafe fn cvt2_emulated(hi: __m512, lo: __m512) -> __m512i {
        let (l, h) = (
            _mm512_cvtepi32_epi16(round(lo)),
            _mm512_cvtepi32_epi16(round(hi)),
        );
        _mm512_inserti64x4::<1>(_mm512_castsi256_si512(l), h)
    }
}

/// Calls `$f::<V>` for a tile of `$v` registers of points (1 to [`VECS`]).
macro_rules! by_vecs {
    ($v:expr, $f:ident $([$($pre:ident),*])? ($($a:expr),*)) => {
        match $v {
            1 => $f::<$($($pre,)*)? 1>($($a),*),
            2 => $f::<$($($pre,)*)? 2>($($a),*),
            _ => $f::<$($($pre,)*)? VECS>($($a),*),
        }
    };
}

/// Calls `$f::<G, N>` for `$n` points, 0 to 15 (nothing for 0): `G` groups of outputs
/// at once, enough that `G N` sums run side by side (one chain of `vdpbf16ps` waits on
/// the one before).
macro_rules! by_points {
    ($n:expr, $f:ident $([$($pre:ident),*])? ($($a:expr),*)) => {
        match $n {
            0 => {}
            1 => $f::<$($($pre,)*)? 8, 1>($($a),*),
            2 => $f::<$($($pre,)*)? 4, 2>($($a),*),
            3 => $f::<$($($pre,)*)? 4, 3>($($a),*),
            4 => $f::<$($($pre,)*)? 2, 4>($($a),*),
            5 => $f::<$($($pre,)*)? 2, 5>($($a),*),
            6 => $f::<$($($pre,)*)? 2, 6>($($a),*),
            7 => $f::<$($($pre,)*)? 2, 7>($($a),*),
            8 => $f::<$($($pre,)*)? 1, 8>($($a),*),
            9 => $f::<$($($pre,)*)? 1, 9>($($a),*),
            10 => $f::<$($($pre,)*)? 1, 10>($($a),*),
            11 => $f::<$($($pre,)*)? 1, 11>($($a),*),
            12 => $f::<$($($pre,)*)? 1, 12>($($a),*),
            13 => $f::<$($($pre,)*)? 1, 13>($($a),*),
            14 => $f::<$($($pre,)*)? 1, 14>($($a),*),
            _ => $f::<$($($pre,)*)? 1, 15>($($a),*),
        }
    };
}

/// The kernels that sum products of bf16 pairs, once with AVX512-BF16's `vdpbf16ps` and
/// once with it emulated on AVX-512F (the same bits).
macro_rules! dot_kernels {
    ($(#[$attr:meta])* $name:ident, $features:literal, $dot:path, $dot256:path, $masked:expr, $chunk:expr) => {
        $(#[$attr])*
        pub(super) mod $name {
            use super::kernel::{round, silu, tile_masks};
            use super::{BLOCK, OUTS, VECS};
            use std::arch::x86_64::*;

            /// Pairs of inputs a written layer's tiles sum at a time (their inputs then stay
            /// in L1 while the tile's groups of outputs read them).
            const CHUNK: usize = $chunk;

            /// Points from which a last part register of the tiles takes the points past
            /// the last whole register, instead of [`tail`] (which takes fewer).
            const MASKED: usize = $masked;

            /// The points the tiles cover (the rest go to [`tail`]) and each tile's first
            /// point and registers: three registers a tile but for the last two or one
            /// (four registers as two and two, not three and one, whose tile would wait on
            /// its loads).
            #[inline]
            fn tiles(width: usize) -> (usize, impl Iterator<Item = (usize, usize)> + Clone) {
                let covered = if width % 16 >= MASKED {
                    width
                } else {
                    width - width % 16
                };
                let regs = covered.div_ceil(16);
                let mut at = 0;
                let tiles = std::iter::from_fn(move || {
                    let left = regs - at;
                    let v = match left {
                        0 => return None,
                        4 => 2,
                        _ => left.min(VECS),
                    };
                    at += v;
                    Some((16 * (at - v), v))
                });
                (covered, tiles)
            }

            /// A block of [`BLOCK`] outputs at a time (its weights, read from memory once,
            /// stay in cache for every tile of points), every tile, every group of
            /// [`OUTS`] outputs in the block, then the points past the last whole register.
            #[target_feature(enable = $features)]
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
                const GROUPS: usize = BLOCK / OUTS;
                let (full, tiles) = tiles(width);
                // Sums over many inputs in chunks whose inputs stay in L1, the sums so far
                // kept in `out` itself, or, for sums added to it, in `partial` (a block's
                // tile: rows of 48 points), added once whole.
                let chunk = CHUNK.min(pairs).max(1);
                // Only the lanes of the tile's masks are written, then read under them.
                let mut partial = std::mem::MaybeUninit::<[f32; BLOCK * 16 * VECS]>::uninit();
                for b0 in (0..outputs / OUTS).step_by(GROUPS) {
                    for (p0, vecs) in tiles.clone() {
                        let (masks, _) = tile_masks(full - p0);
                        let (keep, stride) = if add {
                            (partial.as_mut_ptr() as *mut f32, 16 * VECS)
                        } else {
                            (out.add(b0 * OUTS * width + p0), width)
                        };
                        for j0 in (0..pairs.max(1)).step_by(chunk) {
                            let n = chunk.min(pairs - j0);
                            let x = xp.add(j0 * width + p0);
                            for g in 0..GROUPS {
                                let w = wp.add((b0 + g) * pairs * OUTS + j0 * OUTS);
                                let o = keep.add(g * OUTS * stride);
                                by_vecs!(vecs, tile(w, n, x, width, &masks, o, stride, j0 > 0));
                            }
                        }
                        if add {
                            for r in 0..BLOCK {
                                let dst = out.add((b0 * OUTS + r) * width + p0);
                                for (v, &mask) in masks.iter().enumerate().take(vecs) {
                                    let sum = _mm512_maskz_loadu_ps(mask, keep.add(r * stride + 16 * v));
                                    let d = _mm512_maskz_loadu_ps(mask, dst.add(16 * v));
                                    _mm512_mask_storeu_ps(dst.add(16 * v), mask, _mm512_add_ps(d, sum));
                                }
                            }
                        }
                    }
                    let (w, o) = (wp.add(b0 * pairs * OUTS), out.add(b0 * OUTS * width + full));
                    by_points!(
                        width - full,
                        tail(w, pairs, GROUPS, xp.add(full), width, o, add)
                    );
                }
            }

            /// Every group's [`OUTS`] outputs at the `N` (under 16) points past the last whole
            /// register, written or added: the roles swapped, a 256-bit register of a group's
            /// weights a pair and one accumulator a group and point, `G` groups at a time (the same
            /// products and sums as [`tile`]'s, so the same bits, without a register of 16 lanes for
            /// a few points).
            #[allow(clippy::too_many_arguments)]
            #[inline]
            #[target_feature(enable = $features)]
            unsafe fn tail<const G: usize, const N: usize>(
                w: *const u32,
                pairs: usize,
                groups: usize,
                x: *const u32,
                width: usize,
                out: *mut f32,
                add: bool,
            ) {
                debug_assert!(groups.is_multiple_of(G));
                for b in (0..groups).step_by(G) {
                    let sums = tail_sums::<G, N>(w.add(b * pairs * OUTS), pairs, x, width);
                    for (g, points) in sums.iter().enumerate() {
                        for (p, sum) in points.iter().enumerate() {
                            let mut lanes = [0.0f32; OUTS];
                            _mm256_storeu_ps(lanes.as_mut_ptr(), *sum);
                            for (o, &v) in lanes.iter().enumerate() {
                                let dst = out.add(((b + g) * OUTS + o) * width + p);
                                *dst = if add { *dst + v } else { v };
                            }
                        }
                    }
                }
            }

            /// The sums of [`tail`]: one register of a group's [`OUTS`] outputs a point, for `G`
            /// groups (their weights `pairs OUTS` apart).
            #[inline]
            #[target_feature(enable = $features)]
            unsafe fn tail_sums<const G: usize, const N: usize>(
                w: *const u32,
                pairs: usize,
                x: *const u32,
                width: usize,
            ) -> [[__m256; N]; G] {
                let mut acc = [[_mm256_setzero_ps(); N]; G];
                for j in 0..pairs {
                    let xj = x.add(j * width);
                    let xb: [__m256i; N] =
                        std::array::from_fn(|p| _mm256_set1_epi32(*xj.add(p) as i32));
                    for (g, row) in acc.iter_mut().enumerate() {
                        let wj = _mm256_loadu_si256(w.add((g * pairs + j) * OUTS) as *const _);
                        for (a, &xp) in row.iter_mut().zip(&xb) {
                            *a = $dot256(*a, xp, wj);
                        }
                    }
                }
                acc
            }


            /// One group's [`OUTS`] outputs at a tile's `V` registers of points, summed over
            /// `pairs` pairs from the sums so far in `out` (`more`; rows `stride` apart) or
            /// from 0, and written there: a chunk of the inputs, each sum's chain carried on
            /// through memory (the same bits as one chain).
            #[allow(clippy::too_many_arguments)]
            #[inline]
            #[target_feature(enable = $features)]
            unsafe fn tile<const V: usize>(
                w: *const u32,
                pairs: usize,
                x: *const u32,
                width: usize,
                masks: &[__mmask16; VECS],
                out: *mut f32,
                stride: usize,
                more: bool,
            ) {
                let init = std::array::from_fn(|o| {
                    std::array::from_fn(|v| {
                        let at = out.add(o * stride + 16 * v);
                        if more {
                            _mm512_maskz_loadu_ps(masks[v], at)
                        } else {
                            _mm512_setzero_ps()
                        }
                    })
                });
                let acc = sums::<V, OUTS>(init, w, pairs, x, width, masks);
                for (o, row) in acc.iter().enumerate() {
                    for (v, &sum) in row.iter().enumerate() {
                        _mm512_mask_storeu_ps(out.add(o * stride + 16 * v), masks[v], sum);
                    }
                }
            }

            /// The sums of `N` outputs (weights of pair `j` at `w[j OUTS..]`) at `V` registers of
            /// points (pair `j` of the tile's points at `x[j width..]`): `V N` accumulators, each
            /// pair one `vdpbf16ps` per accumulator, its inputs a register of 16 points and the
            /// output's weights broadcast (the same products and sums as with the roles swapped).
            #[inline]
            #[target_feature(enable = $features)]
            unsafe fn sums<const V: usize, const N: usize>(
                mut acc: [[__m512; V]; N],
                w: *const u32,
                pairs: usize,
                x: *const u32,
                width: usize,
                masks: &[__mmask16; VECS],
            ) -> [[__m512; V]; N] {
                for j in 0..pairs {
                    let xv = pair_row::<V>(x.add(j * width), masks);
                    let wj = w.add(j * OUTS);
                    for (o, a) in acc.iter_mut().enumerate() {
                        let wb = _mm512_set1_epi32(*wj.add(o) as i32);
                        for v in 0..V {
                            a[v] = $dot(a[v], xv[v], wb);
                        }
                    }
                }
                acc
            }

            /// A pair's inputs at a tile's `V` registers of points (`row` its first point).
            #[inline]
            #[target_feature(enable = $features)]
            unsafe fn pair_row<const V: usize>(
                row: *const u32,
                masks: &[__mmask16; VECS],
            ) -> [__m512i; V] {
                let mut xv = [_mm512_setzero_si512(); V];
                for (v, r) in xv.iter_mut().enumerate() {
                    *r = _mm512_maskz_loadu_epi32(masks[v], row.add(16 * v) as *const _);
                }
                xv
            }

            /// [`super::swiglu`]: per tile and group of four outputs, both layers' sums (in one
            /// loop), combined, rounded and paired; with `ROWS`, `silu(a) g` written as it
            /// is, each output's row of `width` fp32 (the fp32 instance's [`super::swiglu_fp32`]).
            #[allow(clippy::too_many_arguments)]
            #[target_feature(enable = $features)]
            pub(super) unsafe fn swiglu<const ROWS: bool>(
                w1: &[u32],
                wg: &[u32],
                pairs: usize,
                outputs: usize,
                xp: &[u32],
                width: usize,
                hp: &mut [u32],
            ) {
                let (w1, wg, xp, hp) = (w1.as_ptr(), wg.as_ptr(), xp.as_ptr(), hp.as_mut_ptr());
                let (full, tiles) = tiles(width);
                for (p0, vecs) in tiles {
                    let (masks, _) = tile_masks(full - p0);
                    for q in 0..outputs / 4 {
                        // Outputs 4q..4q + 4: half of a group of eight in each layer's packing.
                        let at = (q / 2) * pairs * OUTS + (q % 2) * 4;
                        let h = hp.add(if ROWS { 4 } else { 2 } * q * width + p0);
                        by_vecs!(
                            vecs,
                            swiglu_tile[ROWS](w1.add(at), wg.add(at), pairs, xp.add(p0), width, &masks, h)
                        );
                    }
                }
                // The points past the last whole register, at most four at a time (two sums a
                // group and point).
                let groups = outputs / OUTS;
                let mut p0 = full;
                while p0 < width {
                    let n = (width - p0).min(4);
                    by_points!(
                        n,
                        swiglu_tail[ROWS](w1, wg, pairs, groups, xp.add(p0), width, hp.add(p0))
                    );
                    p0 += n;
                }
            }

            /// Every group's [`OUTS`] outputs of [`swiglu`] at `N` points as [`tail`] computes
            /// them, combined, rounded and paired as [`swiglu_tile`] does (a group's outputs `2i`
            /// and `2i + 1` into its packed row `i`).
            #[inline]
            #[target_feature(enable = $features)]
            unsafe fn swiglu_tail<const ROWS: bool, const G: usize, const N: usize>(
                w1: *const u32,
                wg: *const u32,
                pairs: usize,
                groups: usize,
                x: *const u32,
                width: usize,
                hp: *mut u32,
            ) {
                debug_assert!(groups.is_multiple_of(G));
                for b in (0..groups).step_by(G) {
                    let at = b * pairs * OUTS;
                    let a = tail_sums::<G, N>(w1.add(at), pairs, x, width);
                    let g = tail_sums::<G, N>(wg.add(at), pairs, x, width);
                    for k in 0..G {
                        for p in 0..N {
                            let a = _mm512_zextps256_ps512(a[k][p]);
                            let g = _mm512_zextps256_ps512(g[k][p]);
                            let product = _mm512_mul_ps(silu(a), g);
                            if ROWS {
                                let mut lanes = [0f32; 16];
                                _mm512_storeu_ps(lanes.as_mut_ptr(), product);
                                let rows = (hp as *mut f32).add(OUTS * (b + k) * width + p);
                                for (o, &v) in lanes[..OUTS].iter().enumerate() {
                                    *rows.add(o * width) = v;
                                }
                                continue;
                            }
                            let mut lanes = [0u32; 16];
                            _mm512_storeu_si512(lanes.as_mut_ptr() as *mut _, round(product));
                            let rows = hp.add(4 * (b + k) * width + p);
                            for i in 0..OUTS / 2 {
                                *rows.add(i * width) = lanes[2 * i] | lanes[2 * i + 1] << 16;
                            }
                        }
                    }
                }
            }

            /// Four outputs of [`swiglu`] at a tile: `silu(a) g` of each, rounded to bf16, outputs
            /// `2i` and `2i + 1` paired into the packed row `i` (at `hp + i width`).
            #[allow(clippy::too_many_arguments)]
            #[inline]
            #[target_feature(enable = $features)]
            unsafe fn swiglu_tile<const ROWS: bool, const V: usize>(
                w1: *const u32,
                wg: *const u32,
                pairs: usize,
                x: *const u32,
                width: usize,
                masks: &[__mmask16; VECS],
                hp: *mut u32,
            ) {
                let mut a = [[_mm512_setzero_ps(); V]; 4];
                let mut g = [[_mm512_setzero_ps(); V]; 4];
                for j in 0..pairs {
                    let xv = pair_row::<V>(x.add(j * width), masks);
                    let (w1j, wgj) = (w1.add(j * OUTS), wg.add(j * OUTS));
                    for o in 0..4 {
                        let b1 = _mm512_set1_epi32(*w1j.add(o) as i32);
                        let bg = _mm512_set1_epi32(*wgj.add(o) as i32);
                        for v in 0..V {
                            a[o][v] = $dot(a[o][v], xv[v], b1);
                            g[o][v] = $dot(g[o][v], xv[v], bg);
                        }
                    }
                }
                if ROWS {
                    let rows = hp as *mut f32;
                    for o in 0..4 {
                        for v in 0..V {
                            let product = _mm512_mul_ps(silu(a[o][v]), g[o][v]);
                            _mm512_mask_storeu_ps(rows.add(o * width + 16 * v), masks[v], product);
                        }
                    }
                    return;
                }
                for i in 0..2 {
                    for v in 0..V {
                        let lo = round(_mm512_mul_ps(silu(a[2 * i][v]), g[2 * i][v]));
                        let hi = round(_mm512_mul_ps(silu(a[2 * i + 1][v]), g[2 * i + 1][v]));
                        let both = _mm512_or_si512(lo, _mm512_slli_epi32::<16>(hi));
                        _mm512_mask_storeu_epi32(hp.add(i * width + 16 * v) as *mut _, masks[v], both);
                    }
                }
            }

        }
    };
}

#[cfg(target_arch = "x86_64")]
dot_kernels!(
    native,
    "avx512f,avx512vl,avx512bw,avx512bf16",
    super::kernel::dot_native,
    super::kernel::dot256_native,
    16,
    usize::MAX
);
#[cfg(target_arch = "x86_64")]
dot_kernels!(
    /// The same tiles in fp32: a "pair" is one channel's fp32 and its "product" one
    /// multiply-add ([`dense_fp32`]; SwiGLU's packing epilogue is bf16's, unused here).
    #[allow(dead_code)]
    fp32,
    "avx512f,avx512vl,avx512bw",
    super::kernel::dot_fp32,
    super::kernel::dot256_fp32,
    8,
    128
);
#[cfg(target_arch = "x86_64")]
dot_kernels!(
    emulated,
    "avx512f,avx512vl,avx512bw",
    super::kernel::dot_emulated,
    super::kernel::dot256_emulated,
    8,
    128
);

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
    #[cfg_attr(not(tengen_avx512), ignore = "this CPU has no AVX-512 (F, VL, BW)")]
    fn inputs_pack_as_the_scalar_rounding_does() {
        assert!(
            crate::nn::bf16::available(),
            "this CPU has no AVX-512 (F, VL, BW)"
        );
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
    #[cfg_attr(not(tengen_avx512), ignore = "this CPU has no AVX-512 (F, VL, BW)")]
    fn the_kernel_sums_the_rounded_products() {
        assert!(
            crate::nn::bf16::available(),
            "this CPU has no AVX-512 (F, VL, BW)"
        );
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
    /// RoPE in the packing: the same bits as the rows turned in fp32 and packed, for two
    /// positions side by side and a table of its own per pair.
    #[test]
    #[cfg_attr(not(tengen_avx512), ignore = "this CPU has no AVX-512 (F, VL, BW)")]
    fn rotated_rows_pack_as_turned_then_packed() {
        assert!(
            crate::nn::bf16::available(),
            "this CPU has no AVX-512 (F, VL, BW)"
        );
        let (pairs, area, batch) = (5, 81, 2);
        let width = area * batch;
        let mut seed = 7u64;
        let x = test_values(2 * pairs * width, &mut seed);
        let angles = test_values(pairs * area, &mut seed);
        let cos: Vec<f32> = angles.iter().map(|a| (3.0 * a).cos()).collect();
        let sin: Vec<f32> = angles.iter().map(|a| (3.0 * a).sin()).collect();
        let table = |j: usize| ((j * 3) % pairs) * area;
        let mut turned = x.clone();
        for j in 0..pairs {
            let t = table(j);
            for p in 0..width {
                let (x0, x1) = (x[2 * j * width + p], x[(2 * j + 1) * width + p]);
                let (c, sn) = (cos[t + p % area], sin[t + p % area]);
                turned[2 * j * width + p] = x0 * c - x1 * sn;
                turned[(2 * j + 1) * width + p] = x0 * sn + x1 * c;
            }
        }
        let mut want = vec![0; pairs * width];
        pack_inputs_scalar(&turned, 2 * pairs, width, &mut want);
        let mut got = Vec::new();
        pack_rotated(&x, pairs, width, area, &cos, &sin, table, &mut got);
        assert_eq!(got, want);
    }

    /// The emulated products are AVX512-BF16's to the bit (on a CPU that has both; this
    /// session's figure, the same `kata-raw-nn` hash on an Ice Lake emulating as on a Zen 4
    /// running the instructions, is in PERF.md).
    #[cfg_attr(not(tengen_avx512bf16), ignore = "this CPU has no AVX512-BF16")]
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn emulated_sums_are_the_instructions_own() {
        assert!(native(), "this CPU has no AVX512-BF16");
        for (inputs, outputs, width) in [(192, 128, 81), (33, 64, 17), (384, 64, 361)] {
            let mut seed = 17u64;
            let w = test_values(inputs * outputs, &mut seed);
            let x = test_values(inputs * width, &mut seed);
            let wp = pack_weights(&w, inputs, outputs);
            let mut xp = Vec::new();
            pack_inputs(&x, inputs, width, &mut xp);
            let pairs = inputs.div_ceil(2);
            let (mut a, mut b) = (vec![0.0; outputs * width], vec![0.0; outputs * width]);
            let (mut ha, mut hb) = (vec![0; outputs / 2 * width], vec![0; outputs / 2 * width]);
            // SAFETY: `native` checked the features; the shapes are the kernels' own.
            unsafe {
                super::native::dense(&wp, pairs, outputs, &xp, width, &mut a, false);
                super::emulated::dense(&wp, pairs, outputs, &xp, width, &mut b, false);
                super::native::swiglu::<false>(&wp, &wp, pairs, outputs, &xp, width, &mut ha);
                super::emulated::swiglu::<false>(&wp, &wp, pairs, outputs, &xp, width, &mut hb);
            }
            let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&a), bits(&b), "{inputs}x{outputs}@{width}");
            assert_eq!(ha, hb, "swiglu {inputs}x{outputs}@{width}");
        }
    }

    /// The fp32 tiles sum each output as one chain of fused multiply-adds over the inputs
    /// in order (the bits of the gemm crate's products they replace), on shapes with every
    /// tail; added sums are the sums written plus what was there.
    #[test]
    #[cfg_attr(not(tengen_avx512), ignore = "this CPU has no AVX-512 (F, VL, BW)")]
    fn fp32_tiles_sum_each_output_in_order() {
        assert!(
            crate::nn::bf16::available(),
            "this CPU has no AVX-512 (F, VL, BW)"
        );
        for (inputs, outputs, width) in [(7, 64, 1), (192, 128, 81), (33, 64, 17), (5, 192, 361)] {
            let mut seed = 5u64;
            let w = test_values(inputs * outputs, &mut seed);
            let x = test_values(inputs * width, &mut seed);
            let base = test_values(outputs * width, &mut seed);
            let wp = pack_weights_fp32(&w, inputs, outputs);
            let mut out = vec![f32::NAN; outputs * width];
            dense_fp32(&wp, inputs, outputs, &x, width, &mut out, Write::Store);
            let mut added = base.clone();
            dense_fp32(&wp, inputs, outputs, &x, width, &mut added, Write::Add);
            for o in 0..outputs {
                for p in 0..width {
                    let want = (0..inputs).fold(0.0f32, |a, i| {
                        x[i * width + p].mul_add(w[i * outputs + o], a)
                    });
                    let at = o * width + p;
                    assert_eq!(
                        out[at].to_bits(),
                        want.to_bits(),
                        "{inputs}x{outputs}@{width}"
                    );
                    assert_eq!(added[at].to_bits(), (base[at] + want).to_bits());
                }
            }
        }
    }

    #[test]
    #[cfg_attr(not(tengen_avx512), ignore = "this CPU has no AVX-512 (F, VL, BW)")]
    fn packed_rows_and_added_sums_are_the_plain_ones() {
        assert!(
            crate::nn::bf16::available(),
            "this CPU has no AVX-512 (F, VL, BW)"
        );
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
