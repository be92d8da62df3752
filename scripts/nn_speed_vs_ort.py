#!/usr/bin/env python3
"""Issue 44's figures in one run: Tengen's network evaluations a second inside a search
against ONNX Runtime's best and KataGo's own `benchmark`, same network, same machine,
the engines taking turns (never two at once), each round in a new order.

- Tengen: `tengen bench --nn MODEL --in-search --size N --threads T --seconds S
  [--batch B]`: one search from the bench position; network evaluations (cache hits left
  out) a second, the mean batch.
- ONNX Runtime: T one-thread processes of `ortbench.py` at once (the graph KataGo's own
  ONNX builder emits, from ../shared/anchors/katago-onnx.sh), at each batch size of
  `--ort-batches`; the sum of the processes' evaluations a second, the best batch kept.
- KataGo 1.17.2 (Eigen): `katago benchmark -t T` on its own positions, nnEvals/s; with
  `--katago-ftz` also with flush-to-zero and denormals-are-zero set (ftz.so preloaded).
- `--ort-ftz`: ONNX Runtime also with flush-to-zero and denormals-are-zero (its own session
  option: `scripts/ortbench_ftz.py` runs the anchors' `ortbench.py` with it). On Intel CPUs every multiply-add that yields a
  subnormal costs a microcode assist, and b10c384's weights hold thousands of them: the
  best figure is then the one with FTZ.

Prints one line a measurement and, per size, the medians and the ratios. Usage:

    scripts/nn_speed_vs_ort.py [--rounds 3] [--sizes 9 19] [--threads 2] [--seconds 6]
        [--batches 1 8] [--ort-batches 1 8] [--precisions fp32 bf16] [--tengen target/release/tengen]
        [--katago-ftz] [--ort-ftz]
"""

import argparse
import os
import re
import statistics
import subprocess
import sys

from nn_speed_vs_katago import FTZ_C

HOME = os.path.expanduser("~")
KATAGO_DIR = os.path.join(HOME, ".cache/tengen-anchors/katago")
ONNX_DIR = os.path.join(HOME, ".cache/tengen-anchors/onnx")
MODEL = os.path.join(HOME, ".local/share/tengen/b10c384h6nbttflrs.bin.gz")


def tengen(args, size, batch, precision):
    cmd = [args.tengen, "bench", "--nn", args.model, "--in-search", "--size", str(size),
           "--threads", str(args.threads), "--seconds", str(args.seconds),
           "--precision", precision]
    if batch is not None:
        cmd += ["--batch", str(batch)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    evals = float(re.search(r"evals_per_s=([0-9.]+)", out).group(1))
    batch = float(re.search(r"mean_batch=([0-9.]+)", out).group(1))
    return evals, batch


def ftz_library(args):
    """ftz.so beside KataGo (which turns on flush-to-zero and denormals-are-zero when
    preloaded), built if missing."""
    lib = os.path.join(os.path.dirname(args.katago), "ftz.so")
    if not os.path.exists(lib):
        src = lib[:-3] + ".c"
        with open(src, "w") as f:
            f.write(FTZ_C)
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", lib, src], check=True)
    return lib


def ort(args, size, batch, ftz=False):
    bench = [os.path.join(args.onnx_dir, "ortbench.py")]
    if ftz:
        bench.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "ortbench_ftz.py"))
    graph = os.path.join(args.onnx_dir, f"{os.path.basename(args.model).split('.')[0]}_{size}.onnx")
    procs = [subprocess.Popen([sys.executable, *bench, graph, "1", str(batch), str(args.seconds)],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
             for _ in range(args.threads)]
    total = 0.0
    for p in procs:
        out = p.communicate()[0]
        total += float(re.search(r"evals_per_s=([0-9.]+)", out).group(1))
    return total


def katago(args, size, ftz):
    env = dict(os.environ)
    if ftz:
        env["LD_PRELOAD"] = ftz_library(args)
    out = subprocess.run(
        [args.katago, "benchmark", "-model", args.model, "-config", args.config,
         "-boardsize", str(size), "-t", str(args.threads), "-v", "40", "-n", "3"],
        capture_output=True, text=True, env=env,
    ).stdout
    m = re.findall(r"nnEvals/s = ([0-9.]+)", out)
    return float(m[-1]) if m else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sizes", type=int, nargs="+", default=[9, 19])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=6.0)
    ap.add_argument("--batches", type=int, nargs="+", default=[None],
                    help="Tengen's nn-batch, each measured (default: its own choice)")
    ap.add_argument("--ort-batches", type=int, nargs="+", default=[1, 8])
    ap.add_argument("--precisions", nargs="+", default=["fp32"], choices=["fp32", "bf16", "int8"],
                    help="Tengen's precisions, each measured (bf16: AVX-512 CPUs; int8: AVX512-VNNI CPUs)")
    ap.add_argument("--tengen", default="target/release/tengen")
    ap.add_argument("--katago", default=os.path.join(KATAGO_DIR, "katago"))
    ap.add_argument("--config", default=os.path.join(KATAGO_DIR, "gtp.cfg"))
    ap.add_argument("--model", default=MODEL)
    ap.add_argument("--onnx-dir", default=ONNX_DIR)
    ap.add_argument("--katago-ftz", action="store_true")
    ap.add_argument("--ort-ftz", action="store_true")
    args = ap.parse_args()
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                if l.startswith("model name")), "?")
    flags = open("/proc/cpuinfo").read()
    isa = "AVX-512" if " avx512f" in flags else "AVX2" if " avx2" in flags else "baseline"
    print(f"cpu: {cpu} ({isa}), threads {args.threads}, {args.seconds} s a measurement", flush=True)
    for size in args.sizes:
        rows = {}
        for r in range(args.rounds):
            jobs = [(f"tengen {p} batch {b if b is not None else 'default'}",
                     lambda b=b, p=p: tengen(args, size, b, p))
                    for p in args.precisions for b in args.batches]
            jobs += [(f"ort batch {b}", lambda b=b: (ort(args, size, b), b)) for b in args.ort_batches]
            if args.ort_ftz:
                jobs += [(f"ort ftz batch {b}", lambda b=b: (ort(args, size, b, True), b))
                         for b in args.ort_batches]
            jobs += [("katago", lambda: (katago(args, size, False), 1))]
            if args.katago_ftz:
                jobs += [("katago ftz", lambda: (katago(args, size, True), 1))]
            if r % 2:
                jobs.reverse()
            for name, job in jobs:
                v, batch = job()
                rows.setdefault(name, []).append(v)
                print(f"size {size} round {r + 1} {name}: {v:.2f} evals/s (batch {batch})", flush=True)
        med = {k: statistics.median(v) for k, v in rows.items()}
        ort_best = max(v for k, v in med.items() if k.startswith("ort"))
        line = ", ".join(f"{k} {v:.2f}" for k, v in med.items())
        print(f"size {size} medians: {line}")
        for k, v in med.items():
            if k.startswith("tengen"):
                print(f"size {size}: {k}: / ONNX Runtime's best {v / ort_best:.2f}x, "
                      f"/ KataGo benchmark {v / med['katago']:.2f}x"
                      + (f", / KataGo with FTZ {v / med['katago ftz']:.2f}x"
                         if args.katago_ftz else ""), flush=True)
                # Each round's own ratio: the engines measured within the same minutes, so
                # a slow spell of a shared machine moves both sides of it.
                per_round = [t / max(v[r] for n, v in rows.items() if n.startswith("ort"))
                             for r, t in enumerate(rows[k])]
                print(f"size {size}: {k}: / ONNX Runtime's best of the same round: "
                      + " ".join(f"{x:.2f}x" for x in per_round)
                      + f" (median {statistics.median(per_round):.2f}x)", flush=True)


if __name__ == "__main__":
    main()
