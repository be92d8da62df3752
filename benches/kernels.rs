//! Benches of the network's kernels alone, on criterion, on the shapes of b10c384's layers
//! at 9x9 and 19x19: the bf16 kernel with the inputs already packed (`dense/`: the
//! kernel's own speed, weights in cache after the warm-up) and with the packing
//! (`pack+dense/`), the same tiles in fp32 (`fp32/`, `fp32-swiglu/`), int8 on the CPU's
//! int8 kernels (`int8/`, `int8-pack/`) and one attention head (`attend/`,
//! `fp32-attend/`). Throughput is in floating-point operations: criterion's "elem/s" are
//! FLOP/s, to set against the core's fp32 multiply-add peak printed first (AVX512-BF16
//! does twice its multiply-adds; without it the bf16 products are emulated at the fp32
//! rate). `cargo bench -p tengen-benches --bench kernels [-- FILTER]`; nothing on a CPU
//! without AVX-512.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use tengen::nn::{attend, bf16};

/// Values in [-1, 1) from a seeded generator.
fn values(n: usize, seed: &mut u64) -> Vec<f32> {
    (0..n)
        .map(|_| {
            *seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((*seed >> 33) as f32 / (1u64 << 31) as f32) * 2.0 - 1.0
        })
        .collect()
}

fn kernels(c: &mut Criterion) {
    if !bf16::available() {
        println!("this CPU has no AVX-512 (F, VL, BW): no kernel benches");
        return;
    }
    let peak = (0..5)
        .map(|_| tengen::nn::fma_peak_gflops(1 << 22))
        .fold(0.0, f64::max);
    let bf16_peak = if bf16::native() { 2.0 * peak } else { peak };
    println!(
        "one core's fp32 multiply-add peak {peak:.1} GFLOP/s, bf16 {bf16_peak:.1} ({}); kernels on {}",
        if bf16::native() {
            "AVX512-BF16"
        } else {
            "emulated"
        },
        tengen::nn::cpu::features().describe()
    );
    // (inputs, outputs, points): projections, linear1 and gate, linear2, the bottleneck's
    // 1x1 convolutions, at 81 and 361 points; and one tile's worth, in L1.
    let shapes = [
        (192, 192, 81),
        (192, 512, 81),
        (512, 192, 81),
        (384, 192, 81),
        (192, 384, 81),
        (192, 192, 361),
        (192, 512, 361),
        (512, 192, 361),
        (192, 64, 6),
    ];
    let mut seed = 1u64;
    let mut group = c.benchmark_group("dense");
    for (inputs, outputs, width) in shapes {
        let w = values(inputs * outputs, &mut seed);
        let x = values(inputs * width, &mut seed);
        let wp = bf16::pack_weights(&w, inputs, outputs);
        let mut out = vec![0.0f32; outputs * width];
        let mut xp = Vec::new();
        bf16::pack_inputs(&x, inputs, width, &mut xp);
        let flops = 2 * (inputs * outputs * width) as u64;
        let shape = format!("{inputs}x{outputs}@{width}");
        group.throughput(Throughput::Elements(flops));
        group.bench_function(BenchmarkId::new("bf16", &shape), |b| {
            b.iter(|| {
                bf16::dense_packed(
                    &wp,
                    inputs,
                    outputs,
                    &xp,
                    width,
                    &mut out,
                    bf16::Write::Store,
                );
                black_box(&out);
            })
        });
        let w32 = bf16::pack_weights_fp32(&w, inputs, outputs);
        group.bench_function(BenchmarkId::new("fp32", &shape), |b| {
            b.iter(|| {
                bf16::dense_fp32(
                    &w32,
                    inputs,
                    outputs,
                    &x,
                    width,
                    &mut out,
                    bf16::Write::Store,
                );
                black_box(&out);
            })
        });
        if tengen::nn::int8::available() {
            let wq = tengen::nn::int8::pack_weights(&w, inputs, outputs);
            let mut xq = tengen::nn::int8::Inputs::default();
            xq.pack(&x, inputs, width);
            group.bench_function(BenchmarkId::new("int8", &shape), |b| {
                b.iter(|| {
                    tengen::nn::int8::dense(&wq, &xq, &mut out, bf16::Write::Store);
                    black_box(&out);
                })
            });
            group.bench_function(BenchmarkId::new("int8-pack", &shape), |b| {
                b.iter(|| {
                    xq.pack(&x, inputs, width);
                    tengen::nn::int8::dense(&wq, &xq, &mut out, bf16::Write::Store);
                    black_box(&out);
                })
            });
        }
        let mut xp2 = Vec::new();
        group.bench_function(BenchmarkId::new("pack+bf16", &shape), |b| {
            b.iter(|| {
                bf16::dense(&wp, inputs, outputs, &x, width, &mut out, &mut xp2, false);
                black_box(&out);
            })
        });
        if outputs == 512 {
            let mut h = Vec::new();
            group.throughput(Throughput::Elements(2 * flops));
            group.bench_function(BenchmarkId::new("fp32-swiglu", &shape), |b| {
                b.iter(|| {
                    bf16::swiglu_fp32(&w32, &w32, inputs, outputs, &x, width, &mut h);
                    black_box(&h);
                })
            });
        }
    }
    group.finish();
    // One head of b10c384h6's attention (32 channels of queries, keys and values) at 81
    // and 361 points, queries and keys packed, as the forward pass calls it.
    let mut group = c.benchmark_group("attend");
    for area in [81, 361] {
        let (d, dv) = (32, 32);
        let q = values(d * area, &mut seed);
        let k = values(d * area, &mut seed);
        let v = values(dv * area, &mut seed);
        let (mut qp, mut kp) = (Vec::new(), Vec::new());
        bf16::pack_inputs(&q, d, area, &mut qp);
        bf16::pack_inputs(&k, d, area, &mut kp);
        let mut out = vec![0.0f32; dv * area];
        let (mut scores, mut packed) = (Vec::new(), Vec::new());
        let shape = attend::HeadShape {
            area,
            stride: area,
            d,
            dv,
        };
        let name = format!("{d}+{dv}@{area}");
        group.throughput(Throughput::Elements(2 * ((d + dv) * area * area) as u64));
        group.bench_function(BenchmarkId::new("bf16", &name), |b| {
            b.iter(|| {
                attend::attend_bf16(
                    &qp,
                    &kp,
                    &v,
                    shape,
                    0.125,
                    &mut out,
                    &mut scores,
                    &mut packed,
                );
                black_box(&out);
            })
        });
        let mut scratch = Vec::new();
        group.bench_function(BenchmarkId::new("fp32", &name), |b| {
            b.iter(|| {
                attend::attend(&q, &k, &v, shape, 0.125, &mut out, &mut scratch);
                black_box(&out);
            })
        });
    }
    group.finish();
}

criterion_group!(benches, kernels);
criterion_main!(benches);
