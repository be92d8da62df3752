//! Dense layers in int8 on AMX's tiles (Sapphire Rapids and later), `nn::int8`'s submodule
//! `amx`: the quantised products of `nn::int8` (the same int8 weights and inputs, scales and runs of [`CHUNK`] inputs),
//! with `tdpbsud` in place of `vpdpbusd`: one instruction multiplies 16 outputs' 64 signed
//! weights by 64 unsigned inputs at 16 points (16,384 multiply-adds). Owns the weights'
//! second packing, as tiles (`[block of 16 outputs][step of 64 inputs][output][input]`,
//! inputs past the layer's zero), the copy of a call's packed inputs into tiles (`[block
//! of 16 points][quad][point]`, points and quads past the layer's zero), Linux's
//! per-process request for the tiles' state, the tile configuration (loaded at each call,
//! released at its end), and the kernel: per 32 outputs and 32 points four sums in tiles
//! (`tmm0`-`tmm3`, from two weight tiles `tmm4`-`tmm5` and two input tiles `tmm6`-`tmm7`),
//! each run's integer sums stored and scaled into the fp32 outputs with AVX-512 exactly as
//! `nn::int8`'s kernel does (same bits), the next run's products in the tiles meanwhile.
//! Rust's AMX intrinsics are unstable: the instructions are written in `asm!`. Knows
//! nothing of models, boards or evaluation.

use super::CHUNK;

/// Outputs (rows) of a weight tile and of a sum tile; points of an input tile.
const ROWS: usize = 16;
/// Inputs one step of the product takes: a weight tile's row of bytes.
const STEP: usize = 64;
/// Steps a run of [`CHUNK`] inputs takes.
const STEPS: usize = CHUNK / STEP;

/// A tile's row: 64 bytes, on a cache line of its own.
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug)]
struct Line([u8; STEP]);

const ZERO: Line = Line([0; STEP]);

/// A layer's weights as tiles, and each output's scale and minus 128 times its run's
/// integer weights (`[run][output]`), as `nn::int8` rounded them.
#[derive(Clone, Debug)]
pub struct Weights {
    inputs: usize,
    outputs: usize,
    tiles: Vec<Line>,
    scale: Vec<f32>,
    start: Vec<i32>,
}

/// Whether the tiles can be used here: the CPU has AMX-INT8 (under `TENGEN_CPU`) and
/// Linux granted this process the tiles' state.
pub fn available() -> bool {
    super::super::cpu::features().amxint8 && permitted()
}

/// Whether a layer of `outputs` runs here (whole weight tiles).
pub fn usable(outputs: usize) -> bool {
    outputs.is_multiple_of(ROWS) && outputs > 0 && available()
}

/// Linux gives a process the tiles' state (8 KB more to save at each switch) only when
/// it asks: `arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)`, once for the process and
/// its threads; a tile instruction before it faults. Asked once; refused, the int8 layers
/// stay on AVX512-VNNI.
fn permitted() -> bool {
    static PERMITTED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *PERMITTED.get_or_init(|| {
        #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
        {
            const ARCH_REQ_XCOMP_PERM: libc::c_long = 0x1023;
            const XFEATURE_XTILEDATA: libc::c_long = 18;
            // SAFETY: a system call that changes nothing but the process's permission.
            let r = unsafe {
                libc::syscall(
                    libc::SYS_arch_prctl,
                    ARCH_REQ_XCOMP_PERM,
                    XFEATURE_XTILEDATA,
                )
            };
            r == 0
        }
        #[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
        false
    })
}

fn steps(inputs: usize) -> usize {
    inputs.div_ceil(STEP)
}

/// The int8 weights `q` (`inputs x outputs`, row-major, perhaps more rows past; `outputs` a
/// multiple of 16) as
/// tiles, with `sums(o, r)`: output `o`'s scale and start in run `r`.
pub fn pack(
    q: &[i8],
    inputs: usize,
    outputs: usize,
    sums: impl Fn(usize, usize) -> (f32, i32),
) -> Weights {
    assert!(outputs.is_multiple_of(ROWS), "{outputs} outputs");
    assert!(q.len() >= inputs * outputs, "weights of another shape");
    let (nk, nr) = (steps(inputs), inputs.div_ceil(CHUNK));
    let mut tiles = vec![ZERO; outputs / ROWS * nk * ROWS];
    for b in 0..outputs / ROWS {
        for k in 0..nk {
            for row in 0..ROWS {
                let line = &mut tiles[(b * nk + k) * ROWS + row].0;
                for (c, v) in line.iter_mut().enumerate() {
                    let i = k * STEP + c;
                    if i < inputs {
                        *v = q[i * outputs + b * ROWS + row] as u8;
                    }
                }
            }
        }
    }
    let (mut scale, mut start) = (vec![0.0; nr * outputs], vec![0; nr * outputs]);
    for r in 0..nr {
        for o in 0..outputs {
            (scale[r * outputs + o], start[r * outputs + o]) = sums(o, r);
        }
    }
    Weights {
        inputs,
        outputs,
        tiles,
        scale,
        start,
    }
}

/// `out (outputs x width) = W^T x` for inputs packed by `nn::int8` (`lanes`: `[quad][point]`,
/// four inputs plus 128 to a lane; `scale`: `[run][point]`), written or added into `out`.
pub fn dense(w: &Weights, lanes: &[u32], scale: &[f32], width: usize, out: &mut [f32], add: bool) {
    assert!(available(), "AMX kernels on a CPU without AMX-INT8");
    let (nq, nr) = (w.inputs.div_ceil(4), w.inputs.div_ceil(CHUNK));
    assert!(
        lanes.len() >= nq * width && scale.len() >= nr * width,
        "inputs of another shape"
    );
    assert!(out.len() >= w.outputs * width, "output too short");
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the CPU has the instructions and Linux granted the tiles (`available`); the
    // shapes are asserted above and the kernel stays inside them.
    unsafe {
        kernel::dense(w, lanes, scale, width, out, add)
    }
}

#[cfg(target_arch = "x86_64")]
mod kernel {
    use super::{steps, Line, Weights, CHUNK, ROWS, STEP, STEPS, ZERO};
    use crate::nn::bf16::kernel::mask_of;
    use std::arch::asm;
    use std::arch::x86_64::*;
    use std::cell::RefCell;

    /// `ldtilecfg`'s operand: palette 1, then each tile's bytes a row and rows.
    #[repr(C, align(64))]
    struct Config {
        palette: u8,
        start_row: u8,
        reserved: [u8; 14],
        bytes: [u16; 16],
        rows: [u8; 16],
    }

    /// Eight tiles of 16 rows of 64 bytes: sums, weights and inputs alike.
    const CONFIG: Config = {
        let mut c = Config {
            palette: 1,
            start_row: 0,
            reserved: [0; 14],
            bytes: [0; 16],
            rows: [0; 16],
        };
        let mut t = 0;
        while t < 8 {
            c.bytes[t] = STEP as u16;
            c.rows[t] = ROWS as u8;
            t += 1;
        }
        c
    };

    /// Bytes from one tile row to the next in [`Line`]s.
    const STRIDE: usize = std::mem::size_of::<Line>();

    #[inline(always)]
    unsafe fn zero<const T: u8>() {
        asm!("tilezero tmm{t}", t = const T, options(nostack, preserves_flags));
    }

    #[inline(always)]
    unsafe fn load<const T: u8>(p: *const Line) {
        asm!(
            "tileloadd tmm{t}, [{p} + {s}*1]",
            t = const T,
            p = in(reg) p,
            s = in(reg) STRIDE,
            options(nostack, readonly, preserves_flags)
        );
    }

    #[inline(always)]
    unsafe fn store<const T: u8>(p: *mut Line) {
        asm!(
            "tilestored [{p} + {s}*1], tmm{t}",
            t = const T,
            p = in(reg) p,
            s = in(reg) STRIDE,
            options(nostack, preserves_flags)
        );
    }

    /// `tmm{C} += tmm{A} (signed bytes) . tmm{B} (unsigned bytes)`, four products to a
    /// 32-bit sum.
    #[inline(always)]
    unsafe fn dot<const C: u8, const A: u8, const B: u8>() {
        asm!(
            "tdpbsud tmm{c}, tmm{a}, tmm{b}",
            c = const C,
            a = const A,
            b = const B,
            options(nostack, preserves_flags)
        );
    }

    thread_local! {
        /// A call's inputs as tiles, and the sums of two runs of a block.
        static SCRATCH: RefCell<(Vec<Line>, Vec<Line>)> = const { RefCell::new((Vec::new(), Vec::new())) };
    }

    /// What a block of the product reads and writes.
    struct Call<'a> {
        w: &'a Weights,
        /// The inputs' tiles (`[block of 16 points][step][quad of the step][point]`).
        x: *const Line,
        scale: *const f32,
        width: usize,
        out: *mut f32,
        add: bool,
        nk: usize,
        nr: usize,
    }

    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn dense(
        w: &Weights,
        lanes: &[u32],
        scale: &[f32],
        width: usize,
        out: &mut [f32],
        add: bool,
    ) {
        let (nk, nq, nr) = (
            steps(w.inputs),
            w.inputs.div_ceil(4),
            w.inputs.div_ceil(CHUNK),
        );
        let (nb, npb) = (w.outputs / ROWS, width.div_ceil(ROWS));
        SCRATCH.with(|s| {
            let (x, sums) = &mut *s.borrow_mut();
            x.resize(npb * nk * ROWS, ZERO);
            sums.resize(2 * 4 * ROWS, ZERO);
            // The inputs' lanes of 16 points, quad by quad; zero past the points and the
            // quads (a weight of zero meets them).
            for pb in 0..npb {
                let p = pb * ROWS;
                let mask = mask_of(width - p);
                for j in 0..nk * ROWS {
                    let v = if j < nq {
                        _mm512_maskz_loadu_epi32(
                            mask,
                            lanes.as_ptr().add(j * width + p) as *const _,
                        )
                    } else {
                        _mm512_setzero_si512()
                    };
                    _mm512_store_si512(x.as_mut_ptr().add(pb * nk * ROWS + j) as *mut _, v);
                }
            }
            let call = Call {
                w,
                x: x.as_ptr(),
                scale: scale.as_ptr(),
                width,
                out: out.as_mut_ptr(),
                add,
                nk,
                nr,
            };
            let sums = sums.as_mut_ptr();
            asm!("ldtilecfg [{}]", in(reg) &CONFIG, options(nostack, readonly, preserves_flags));
            for b in (0..nb).step_by(2) {
                for pb in (0..npb).step_by(2) {
                    match (nb - b > 1, npb - pb > 1) {
                        (true, true) => block::<2, 2>(&call, b, pb, sums),
                        (true, false) => block::<2, 1>(&call, b, pb, sums),
                        (false, true) => block::<1, 2>(&call, b, pb, sums),
                        (false, false) => block::<1, 1>(&call, b, pb, sums),
                    }
                }
            }
            asm!("tilerelease", options(nostack, nomem, preserves_flags));
        });
    }

    /// `MO` blocks of 16 outputs from block `b` at `NP` blocks of 16 points from `pb`, run by
    /// run: the next run's products in the tiles while this one's sums are scaled.
    #[inline(always)]
    unsafe fn block<const MO: usize, const NP: usize>(
        c: &Call,
        b: usize,
        pb: usize,
        sums: *mut Line,
    ) {
        products::<MO, NP>(c, b, pb, 0);
        stores::<MO, NP>(sums);
        for r in 0..c.nr {
            if r + 1 < c.nr {
                products::<MO, NP>(c, b, pb, r + 1);
            }
            epilogue::<MO, NP>(c, b, pb, r, sums.add((r % 2) * 4 * ROWS));
            if r + 1 < c.nr {
                stores::<MO, NP>(sums.add(((r + 1) % 2) * 4 * ROWS));
            }
        }
    }

    /// Run `r`'s sums into `tmm0`-`tmm3` (`tmm{2i + j}`: output block `b + i`, point
    /// block `pb + j`).
    #[inline(always)]
    unsafe fn products<const MO: usize, const NP: usize>(c: &Call, b: usize, pb: usize, r: usize) {
        zero::<0>();
        if NP > 1 {
            zero::<1>();
        }
        if MO > 1 {
            zero::<2>();
            if NP > 1 {
                zero::<3>();
            }
        }
        let (w, x, nk) = (c.w.tiles.as_ptr(), c.x, c.nk);
        for k in r * STEPS..((r + 1) * STEPS).min(nk) {
            load::<6>(x.add((pb * nk + k) * ROWS));
            load::<4>(w.add((b * nk + k) * ROWS));
            dot::<0, 4, 6>();
            if NP > 1 {
                load::<7>(x.add(((pb + 1) * nk + k) * ROWS));
                dot::<1, 4, 7>();
            }
            if MO > 1 {
                load::<5>(w.add(((b + 1) * nk + k) * ROWS));
                dot::<2, 5, 6>();
                if NP > 1 {
                    dot::<3, 5, 7>();
                }
            }
        }
    }

    /// The sum tiles into `sums` (`[tile][row]`, tile `2i + j`).
    #[inline(always)]
    unsafe fn stores<const MO: usize, const NP: usize>(sums: *mut Line) {
        store::<0>(sums);
        if NP > 1 {
            store::<1>(sums.add(ROWS));
        }
        if MO > 1 {
            store::<2>(sums.add(2 * ROWS));
            if NP > 1 {
                store::<3>(sums.add(3 * ROWS));
            }
        }
    }

    /// Run `r`'s integer sums (`sums`) scaled into the outputs: as `nn::int8`'s kernel,
    /// `(sum + start) * (input scale * weight scale)` stored at the first run (unless
    /// adding), added by one fused multiply-add at the others.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn epilogue<const MO: usize, const NP: usize>(
        c: &Call,
        b: usize,
        pb: usize,
        r: usize,
        sums: *const Line,
    ) {
        let (width, outputs) = (c.width, c.w.outputs);
        let first = r == 0 && !c.add;
        for j in 0..NP {
            let p = (pb + j) * ROWS;
            let mask = mask_of(width - p);
            let sx = _mm512_maskz_loadu_ps(mask, c.scale.add(r * width + p));
            for i in 0..MO {
                let tile = sums.add((2 * i + j) * ROWS);
                for row in 0..ROWS {
                    let o = (b + i) * ROWS + row;
                    let sum = _mm512_load_si512(tile.add(row) as *const _);
                    let start = _mm512_set1_epi32(*c.w.start.get_unchecked(r * outputs + o));
                    let f = _mm512_cvtepi32_ps(_mm512_add_epi32(sum, start));
                    let sw = _mm512_set1_ps(*c.w.scale.get_unchecked(r * outputs + o));
                    let t = _mm512_mul_ps(sx, sw);
                    let at = c.out.add(o * width + p);
                    let v = if first {
                        _mm512_mul_ps(f, t)
                    } else {
                        _mm512_fmadd_ps(f, t, _mm512_maskz_loadu_ps(mask, at))
                    };
                    _mm512_mask_storeu_ps(at, mask, v);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{self as int8, Inputs, Write};
    use super::*;

    /// The tiles give the bits AVX512-VNNI's kernel gives (the same integer sums, scaled
    /// the same way), which `nn::int8`'s test checks against sums done by hand: ragged
    /// inputs (a short run, a short step, a short quad), ragged points (one, a block and
    /// one, a 9x9 and a 19x19 board), stored and added.
    #[cfg_attr(not(tengen_amx), ignore = "needs AMX-INT8")]
    #[test]
    fn the_tiles_compute_what_vnni_computes() {
        assert!(
            available(),
            "this CPU has no AMX-INT8, or Linux refused the tiles"
        );
        let mut seed = 11;
        for inputs in [100, 384, 385] {
            for outputs in [64, 384] {
                let w = super::super::super::bf16::test_values(inputs * outputs, &mut seed);
                let amx = int8::pack_weights(&w, inputs, outputs);
                assert!(amx.amx.is_some(), "packed for the tiles");
                let mut vnni = amx.clone();
                vnni.amx = None;
                for width in [1, 17, 81, 361] {
                    let x = super::super::super::bf16::test_values(inputs * width, &mut seed);
                    let mut xq = Inputs::default();
                    xq.pack(&x, inputs, width);
                    for write in [Write::Store, Write::Add] {
                        let before =
                            super::super::super::bf16::test_values(outputs * width, &mut seed);
                        let (mut a, mut v) = (before.clone(), before);
                        int8::dense(&amx, &xq, &mut a, write);
                        int8::dense(&vnni, &xq, &mut v, write);
                        for (k, (a, v)) in a.iter().zip(&v).enumerate() {
                            assert_eq!(
                                a.to_bits(),
                                v.to_bits(),
                                "{inputs}x{outputs}@{width} {write:?}: output {} point {}: {a} {v}",
                                k / width,
                                k % width
                            );
                        }
                    }
                }
            }
        }
    }
}
