//! Dense layers in int8 (issue 45's int8 screen): weights rounded to 8 bits with one scale
//! per output and run of [`CHUNK`] inputs, a layer's inputs rounded to 8 bits with one scale
//! per point and run of [`CHUNK`] inputs, four products summed into a 32-bit integer by
//! AVX512-VNNI's `vpdpbusd` (64 multiply-adds an instruction, twice fp32's on CPUs whose
//! AVX-512 has two FMA units and one VNNI unit, four times fp32's where both have one), and
//! each run's integer sum scaled into the fp32 output. Inputs are unsigned in the
//! instruction, so they are stored plus 128 and each sum starts from minus 128 times its
//! run's weights. Weights are packed once per layer, four input channels to a 32-bit lane,
//! eight outputs together (`[group][quad][out]`); inputs per call (`[quad][point]`). A tile
//! is eight outputs at 48 points. Owns the formats, the rounding, which kernel runs
//! (`Kernel`) and the AVX-512 kernels; CPUs without AVX512-VNNI run the same sums on
//! AVX2 (`avx2`, in `int8_avx2.rs`). Where the CPU has AMX-INT8, the weights are packed a
//! second time, as tiles, and the products run on them (`amx`, in `int8_amx.rs`, same bits). Knows
//! nothing of models, boards or evaluation.

// The AVX2 kernels: this module's, in a file of their own beside this one.
#[path = "int8_avx2.rs"]
mod avx2;

// The AMX kernels, the same way.
#[path = "int8_amx.rs"]
pub(super) mod amx;

/// Inputs that share a scale (the last run of a layer may be shorter).
pub const CHUNK: usize = 128;
/// Outputs one tile computes.
const OUTS: usize = 8;
/// Outputs a layer must come in multiples of to run in int8 here: the trunk's layers (the
/// heads' narrower 1x1 convolutions stay in fp32, where int8 moved the policy most).
pub const BLOCK: usize = 64;

/// The kernels that run the int8 products here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kernel {
    /// AVX512-VNNI's `vpdpbusd` on 512-bit registers (this file).
    Avx512Vnni,
    /// AVX-VNNI's `vpdpbusd` on 256-bit registers ([`avx2`]).
    AvxVnni,
    /// AVX2's `vpsignb`, `vpmaddubsw` and `vpmaddwd` ([`avx2`]).
    Avx2,
}

impl Kernel {
    /// The kernels this CPU runs (under `TENGEN_CPU`), `None` without AVX2.
    fn here() -> Option<Kernel> {
        let f = super::cpu::features();
        if f.avx512vnni {
            Some(Kernel::Avx512Vnni)
        } else if f.avxvnni {
            Some(Kernel::AvxVnni)
        } else if f.avx2 {
            Some(Kernel::Avx2)
        } else {
            None
        }
    }

    /// As `tengen bench` names them.
    fn name(self) -> &'static str {
        match self {
            Kernel::Avx512Vnni => "avx512vnni-int8",
            Kernel::AvxVnni => "avxvnni-int8",
            Kernel::Avx2 => "avx2-int8",
        }
    }
}

/// Whether this CPU runs the kernels: AVX512-VNNI, AVX-VNNI or AVX2 with FMA, all the same
/// sums (the standard library keeps what the CPU said; `TENGEN_CPU` caps it).
pub fn available() -> bool {
    Kernel::here().is_some()
}

/// Whether the kernels here are AVX512-VNNI's, those int8 was measured to play better than
/// fp32 on (`precision=auto`).
pub fn native() -> bool {
    Kernel::here() == Some(Kernel::Avx512Vnni)
}

/// The kernels' name for `tengen bench` (`avx512vnni-int8`, `avxvnni-int8`, `avx2-int8`),
/// `none` without them.
pub fn kernels() -> &'static str {
    Kernel::here().map_or("none", Kernel::name)
}

/// Whether a dense layer of `inputs` and `outputs` channels can run in int8 here.
pub fn usable(inputs: usize, outputs: usize) -> bool {
    outputs.is_multiple_of(BLOCK) && inputs > 0 && available()
}

/// A layer's weights in int8: `lanes` as the tiles read them, and per group of [`OUTS`]
/// outputs and run of [`CHUNK`] inputs, each output's scale and minus 128 times its run's
/// integer weights (`[group][run][out]`).
#[derive(Clone, Debug)]
pub struct Weights {
    inputs: usize,
    outputs: usize,
    lanes: Vec<u32>,
    scale: Vec<f32>,
    start: Vec<i32>,
    /// The same weights as AMX's tiles, where [`dense`] runs on them.
    pub(super) amx: Option<amx::Weights>,
}

fn quads(inputs: usize) -> usize {
    inputs.div_ceil(4)
}

fn runs(inputs: usize) -> usize {
    inputs.div_ceil(CHUNK)
}

/// The weights `w` (`inputs x outputs`, row-major; `outputs` a multiple of [`BLOCK`])
/// rounded to int8, each output's run of [`CHUNK`] inputs by its largest magnitude.
pub fn pack_weights(w: &[f32], inputs: usize, outputs: usize) -> Weights {
    assert!(outputs.is_multiple_of(OUTS), "{outputs} outputs");
    assert_eq!(w.len(), inputs * outputs, "weights of another shape");
    let (nq, nr, groups) = (quads(inputs), runs(inputs), outputs / OUTS);
    let mut q = vec![0i8; nq * 4 * outputs];
    let mut scale = vec![0.0f32; groups * nr * OUTS];
    let mut start = vec![0i32; groups * nr * OUTS];
    for o in 0..outputs {
        for r in 0..nr {
            let run = r * CHUNK..((r + 1) * CHUNK).min(inputs);
            let m = run
                .clone()
                .map(|i| w[i * outputs + o].abs())
                .fold(0.0f32, f32::max);
            let (s, inv) = if m > 1e-30 && m.is_finite() {
                (m / 127.0, 127.0 / m)
            } else {
                (0.0, 0.0)
            };
            let mut sum = 0i32;
            for i in run {
                let v = (w[i * outputs + o] * inv).round().clamp(-127.0, 127.0) as i8;
                q[i * outputs + o] = v;
                sum += v as i32;
            }
            let at = ((o / OUTS) * nr + r) * OUTS + o % OUTS;
            scale[at] = s;
            start[at] = -128 * sum;
        }
    }
    let mut lanes = vec![0u32; nq * outputs];
    for j in 0..nq {
        for o in 0..outputs {
            let b = |k: usize| q[(4 * j + k) * outputs + o] as u8 as u32;
            lanes[((o / OUTS) * nq + j) * OUTS + o % OUTS] =
                b(0) | b(1) << 8 | b(2) << 16 | b(3) << 24;
        }
    }
    let amx = amx::usable(outputs).then(|| {
        let at = |o: usize, r: usize| ((o / OUTS) * nr + r) * OUTS + o % OUTS;
        amx::pack(&q, inputs, outputs, |o, r| {
            (scale[at(o, r)], start[at(o, r)])
        })
    });
    Weights {
        inputs,
        outputs,
        lanes,
        scale,
        start,
        amx,
    }
}

/// A layer's inputs in int8: each point's run of [`CHUNK`] channels by its largest
/// magnitude, plus 128, four channels to a lane (`[quad][point]`), and the scales
/// (`[run][point]`).
#[derive(Default)]
pub struct Inputs {
    width: usize,
    inputs: usize,
    lanes: Vec<u32>,
    scale: Vec<f32>,
}

impl Inputs {
    /// `x` (`inputs x width`, channel-major) rounded and packed.
    pub fn pack(&mut self, x: &[f32], inputs: usize, width: usize) {
        assert!(x.len() >= inputs * width, "inputs of another shape");
        self.width = width;
        self.inputs = inputs;
        self.lanes.clear();
        self.lanes.resize(quads(inputs) * width, 0);
        self.scale.clear();
        self.scale.resize(runs(inputs) * width, 0.0);
        match Kernel::here() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `here` checked the features; the kernel stays inside the slices sized
            // above and asserted.
            Some(Kernel::Avx512Vnni) => unsafe {
                kernel::pack(x, inputs, width, &mut self.lanes, &mut self.scale)
            },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above (AVX2 and FMA).
            Some(_) => unsafe { avx2::pack(x, self) },
            _ => pack_plain(x, inputs, width, &mut self.lanes, &mut self.scale),
        }
    }
}

/// Points [`pack_plain`] packs at a time (their inverse scales on the stack).
const POINTS: usize = 64;

/// [`Inputs::pack`] in plain code (the reference the AVX-512 packing is tested against),
/// its loops over points for the compiler's vectors: compiled for any CPU here and for AVX2
/// by [`avx2`].
#[inline(always)]
fn pack_plain(x: &[f32], inputs: usize, width: usize, lanes: &mut [u32], scale: &mut [f32]) {
    for p in (0..width).step_by(POINTS) {
        let n = (width - p).min(POINTS);
        pack_points(x, inputs, width, p..p + n, lanes, scale);
    }
}

/// [`pack_plain`] of the points `at`. Channels past the last hold 128 (zero).
#[inline(always)]
fn pack_points(
    x: &[f32],
    inputs: usize,
    width: usize,
    at: std::ops::Range<usize>,
    lanes: &mut [u32],
    scale: &mut [f32],
) {
    let row = |i: usize| at.start + i * width..at.end + i * width;
    for r in 0..runs(inputs) {
        let (lo, hi) = (r * CHUNK, ((r + 1) * CHUNK).min(inputs));
        let mut m = [0.0f32; POINTS];
        let m = &mut m[..at.len()];
        for i in lo..hi {
            for (m, v) in m.iter_mut().zip(&x[row(i)]) {
                *m = m.max(v.abs());
            }
        }
        let mut inv = [0.0f32; POINTS];
        let inv = &mut inv[..at.len()];
        for ((inv, s), m) in inv.iter_mut().zip(&mut scale[row(r)]).zip(&*m) {
            *s = m * (1.0 / 127.0);
            *inv = if *m > 0.0 && m.is_finite() {
                127.0 / m
            } else {
                0.0
            };
        }
        for j in lo / 4..hi.div_ceil(4) {
            let lane = &mut lanes[row(j)];
            lane.fill(0);
            for b in 0..4 {
                let i = 4 * j + b;
                if i >= hi {
                    lane.iter_mut().for_each(|l| *l |= 128 << (8 * b));
                    continue;
                }
                for ((l, v), inv) in lane.iter_mut().zip(&x[row(i)]).zip(&*inv) {
                    // Not `clamp`, whose NaN would keep the conversion from the vectors.
                    #[allow(clippy::manual_clamp)]
                    let v = ((v * inv).round_ties_even() + 128.0).max(1.0).min(255.0);
                    // SAFETY: `v` is in [1, 255] (`max` takes a NaN to 1).
                    *l |= (unsafe { v.to_int_unchecked::<i32>() } as u32) << (8 * b);
                }
            }
        }
    }
}

/// What a layer does with its sums.
pub use super::bf16::Write;

/// `out (outputs x width) = W^T x` for inputs `x` packed by [`Inputs::pack`] and weights
/// `w` ([`pack_weights`]), written or added into `out`. The caller checks [`usable`].
pub fn dense(w: &Weights, x: &Inputs, out: &mut [f32], write: Write) {
    let here = Kernel::here().expect("int8 kernels on a CPU without AVX2");
    assert_eq!(w.inputs, x.inputs, "inputs of another layer");
    assert!(out.len() >= w.outputs * x.width, "output too short");
    let add = write == Write::Add;
    if let Some(amx) = &w.amx {
        return amx::dense(amx, &x.lanes, &x.scale, x.width, out, add);
    }
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `here` checked the features; the packed shapes agree (asserted) and the
    // kernels keep every index inside them.
    unsafe {
        match here {
            Kernel::Avx512Vnni => kernel::dense(w, x, out, add),
            Kernel::AvxVnni => avx2::vnni::dense(w, x, out, add),
            Kernel::Avx2 => avx2::madd::dense(w, x, out, add),
        }
    }
}

/// One group of [`OUTS`] outputs as a tile reads it: its weights' lanes (`[quad][out]`),
/// scales and starts (`[run][out]`), its rows of the output, and the layer's quads and runs
/// of inputs.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Group {
    lanes: *const u32,
    scale: *const f32,
    start: *const i32,
    out: *mut f32,
    quads: usize,
    runs: usize,
}

/// The groups of outputs of `w`, their outputs in `out` (`w.outputs x width`, its length
/// checked by [`dense`]).
#[cfg(target_arch = "x86_64")]
fn groups<'a>(w: &'a Weights, out: &mut [f32], width: usize) -> impl Iterator<Item = Group> + 'a {
    let (nq, nr) = (quads(w.inputs), runs(w.inputs));
    let out = out.as_mut_ptr();
    (0..w.outputs / OUTS).map(move |g| Group {
        lanes: w.lanes[g * nq * OUTS..].as_ptr(),
        scale: w.scale[g * nr * OUTS..].as_ptr(),
        start: w.start[g * nr * OUTS..].as_ptr(),
        out: out.wrapping_add(g * OUTS * width),
        quads: nq,
        runs: nr,
    })
}

#[cfg(target_arch = "x86_64")]
mod kernel {
    use super::{groups, quads, runs, Group, Inputs, Weights, CHUNK, OUTS};
    use crate::nn::bf16::kernel::mask_of;
    use std::arch::x86_64::*;

    /// [`Inputs::pack`] 16 points at a time.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn pack(
        x: &[f32],
        inputs: usize,
        width: usize,
        lanes: &mut [u32],
        scale: &mut [f32],
    ) {
        assert!(lanes.len() >= quads(inputs) * width && scale.len() >= runs(inputs) * width);
        let x = x.as_ptr();
        let zero = _mm512_set1_epi32(128);
        for p in (0..width).step_by(16) {
            let mask = mask_of(width - p);
            for r in 0..runs(inputs) {
                let (lo, hi) = (r * CHUNK, ((r + 1) * CHUNK).min(inputs));
                let mut m = _mm512_setzero_ps();
                for i in lo..hi {
                    let v = _mm512_maskz_loadu_ps(mask, x.add(i * width + p));
                    m = _mm512_max_ps(m, _mm512_abs_ps(v));
                }
                let s = _mm512_mul_ps(m, _mm512_set1_ps(1.0 / 127.0));
                _mm512_mask_storeu_ps(scale.as_mut_ptr().add(r * width + p), mask, s);
                let nonzero = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(m, _mm512_setzero_ps());
                let inv = _mm512_maskz_div_ps(nonzero, _mm512_set1_ps(127.0), m);
                for j in lo / 4..hi.div_ceil(4) {
                    let mut lane = _mm512_setzero_si512();
                    for k in 0..4 {
                        let i = 4 * j + k;
                        let q = if i < hi {
                            let v = _mm512_maskz_loadu_ps(mask, x.add(i * width + p));
                            _mm512_add_epi32(_mm512_cvtps_epi32(_mm512_mul_ps(v, inv)), zero)
                        } else {
                            zero
                        };
                        lane = _mm512_or_si512(
                            lane,
                            _mm512_sllv_epi32(q, _mm512_set1_epi32(8 * k as i32)),
                        );
                    }
                    _mm512_mask_storeu_epi32(
                        lanes.as_mut_ptr().add(j * width + p) as *mut _,
                        mask,
                        lane,
                    );
                }
            }
        }
    }

    /// [`super::dense`]: per group of eight outputs, per 48 points, per run of inputs.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub(super) unsafe fn dense(w: &Weights, x: &Inputs, out: &mut [f32], add: bool) {
        let width = x.width;
        for g in groups(w, out, width) {
            let mut p = 0;
            while p < width {
                let n = (width - p).min(48);
                match n.div_ceil(16) {
                    3 => tile::<3>(g, x, p, n, add),
                    2 => tile::<2>(g, x, p, n, add),
                    _ => tile::<1>(g, x, p, n, add),
                }
                p += n;
            }
        }
    }

    /// Eight outputs at `n` points from `p` (in `V` registers of 16).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    unsafe fn tile<const V: usize>(g: Group, x: &Inputs, p: usize, n: usize, add: bool) {
        let width = x.width;
        let masks: [__mmask16; V] = std::array::from_fn(|v| mask_of(n.saturating_sub(16 * v)));
        let xl = x.lanes.as_ptr().add(p);
        for r in 0..g.runs {
            let mut acc = [[_mm512_setzero_si512(); V]; OUTS];
            for (k, row) in acc.iter_mut().enumerate() {
                let s = _mm512_set1_epi32(*g.start.add(r * OUTS + k));
                *row = [s; V];
            }
            let (j0, j1) = (r * CHUNK / 4, ((r + 1) * CHUNK / 4).min(g.quads));
            for j in j0..j1 {
                let xs: [__m512i; V] = std::array::from_fn(|v| {
                    _mm512_maskz_loadu_epi32(masks[v], xl.add(j * width + 16 * v) as *const _)
                });
                let wj = g.lanes.add(j * OUTS);
                for (k, row) in acc.iter_mut().enumerate() {
                    let b = _mm512_set1_epi32(*wj.add(k) as i32);
                    for v in 0..V {
                        row[v] = _mm512_dpbusd_epi32(row[v], xs[v], b);
                    }
                }
            }
            let xs = x.scale.as_ptr().add(r * width + p);
            let sx: [__m512; V] =
                std::array::from_fn(|v| _mm512_maskz_loadu_ps(masks[v], xs.add(16 * v)));
            for (k, row) in acc.iter().enumerate() {
                let sw = _mm512_set1_ps(*g.scale.add(r * OUTS + k));
                let orow = g.out.add(k * width + p);
                for v in 0..V {
                    let f = _mm512_cvtepi32_ps(row[v]);
                    let t = _mm512_mul_ps(sx[v], sw);
                    let at = orow.add(16 * v);
                    let sum = if r == 0 && !add {
                        _mm512_mul_ps(f, t)
                    } else {
                        _mm512_fmadd_ps(f, t, _mm512_maskz_loadu_ps(masks[v], at))
                    };
                    _mm512_mask_storeu_ps(at, masks[v], sum);
                }
            }
        }
    }
}

/// A kernel's packing and products on layers of several shapes, against [`pack_plain`]
/// (the same bits) and against the same integer sums done by hand (equal up to fp32
/// rounding of the scaling: the integer sums themselves are exact). One layer's weights
/// and inputs are all at their largest magnitude, where a sum that saturates would show.
/// The outputs, shape by shape.
#[cfg(test)]
fn check_kernel(
    pack: impl Fn(&[f32], &mut Inputs),
    dense: impl Fn(&Weights, &Inputs, &mut [f32], bool),
) -> Vec<Vec<f32>> {
    let mut seed = 7;
    let mut values = |n: usize| super::bf16::test_values(n, &mut seed);
    let extreme = |n: usize, m: usize| (0..n).map(move |i| if i % m == 0 { -2.0 } else { 2.0 });
    let mut outs = Vec::new();
    for (inputs, outputs, width) in [
        (192, 64, 81),
        (130, 16, 17),
        (512, 8, 5),
        (7, 8, 33),
        (256, 16, 19),
    ] {
        let (w, x): (Vec<f32>, Vec<f32>) = if inputs == 256 {
            (
                extreme(inputs * outputs, 5).collect(),
                extreme(inputs * width, 3).collect(),
            )
        } else {
            (values(inputs * outputs), values(inputs * width))
        };
        let wq = pack_weights(&w, inputs, outputs);
        let shape = format!("{inputs}x{outputs}@{width}");
        let empty = || Inputs {
            width,
            inputs,
            lanes: vec![0; quads(inputs) * width],
            scale: vec![0.0; runs(inputs) * width],
        };
        let (mut xq, mut plain) = (empty(), empty());
        pack(&x, &mut xq);
        pack_plain(&x, inputs, width, &mut plain.lanes, &mut plain.scale);
        assert_eq!(xq.lanes, plain.lanes, "{shape}: packing");
        assert_eq!(xq.scale, plain.scale, "{shape}: scales");
        let mut out = vec![0.0; outputs * width];
        dense(&wq, &xq, &mut out, false);
        let byte = |l: u32, k: usize| (l >> (8 * k)) as u8;
        for o in 0..outputs {
            for p in 0..width {
                let mut want = 0.0f64;
                let mut exact = 0.0f64;
                for r in 0..runs(inputs) {
                    let mut sum = 0i64;
                    for i in r * CHUNK..((r + 1) * CHUNK).min(inputs) {
                        let wl = wq.lanes[((o / OUTS) * quads(inputs) + i / 4) * OUTS + o % OUTS];
                        let xl = xq.lanes[(i / 4) * width + p];
                        sum += (byte(wl, i % 4) as i8 as i64) * (byte(xl, i % 4) as i64 - 128);
                    }
                    let at = ((o / OUTS) * runs(inputs) + r) * OUTS + o % OUTS;
                    want += sum as f64 * wq.scale[at] as f64 * xq.scale[r * width + p] as f64;
                }
                for i in 0..inputs {
                    exact += w[i * outputs + o] as f64 * x[i * width + p] as f64;
                }
                let got = out[o * width + p] as f64;
                assert!(
                    (got - want).abs() < 1e-4 * (1.0 + want.abs()),
                    "{shape}: {o} {p}: {got} {want}"
                );
                // And near the fp32 product: int8's rounding, a few percent of the sum's
                // spread.
                assert!(
                    (got - exact).abs() < 0.05 * (inputs as f64).sqrt(),
                    "{shape}: {got} {exact}"
                );
            }
        }
        let before = out.clone();
        dense(&wq, &xq, &mut out, true);
        for (a, b) in out.iter().zip(&before) {
            assert!(
                (a - 2.0 * b).abs() < 1e-4 * (1.0 + b.abs()),
                "{shape}: added"
            );
        }
        outs.push(before);
    }
    outs
}

/// [`check_kernel`] of the AVX-512 kernels.
#[cfg(all(test, target_arch = "x86_64"))]
fn check_avx512() -> Vec<Vec<f32>> {
    assert!(
        super::cpu::Features::detected().avx512vnni,
        "this CPU has no AVX512-VNNI"
    );
    // SAFETY: the CPU has the features (asserted); the helper passes packed shapes that
    // agree.
    check_kernel(
        |x, q| unsafe { kernel::pack(x, q.inputs, q.width, &mut q.lanes, &mut q.scale) },
        |w, x, o, add| unsafe { kernel::dense(w, x, o, add) },
    )
}

#[cfg(test)]
mod tests {
    /// The AVX-512 kernels against the products done by hand ([`super::check_kernel`]).
    #[cfg_attr(not(tengen_avx512vnni), ignore = "this CPU has no AVX512-VNNI")]
    #[test]
    fn the_kernel_computes_the_quantised_products() {
        super::check_avx512();
    }
}
