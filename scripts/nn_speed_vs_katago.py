#!/usr/bin/env python3
"""Network evaluations a second: Tengen's evaluator against KataGo's Eigen backend, same
network, same position, same number of threads, measured interleaved in one run.

Both sides evaluate one mid-game position (the one `tengen bench --nn` uses: a 9x9 CGOS
game after 47 moves, a 19x19 Master game after 85 moves) at batch size one, one
evaluator per thread, the symmetry turning from one evaluation to the next:

- Tengen: `tengen bench --nn MODEL --size N --threads T --seconds S`.
- KataGo: T GTP processes at once, each with one Eigen thread
  (`numSearchThreads=1, numEigenThreadsPerModel=1, nnMaxBatchSize=1`), each timing
  `kata-raw-nn SYM` round trips after one untimed warm-up. `kata-raw-nn` passes
  `skipCache = true` to the evaluator (KataGo's gtp.cpp), so every answer is a fresh
  evaluation, inputs and post-processing included, as in Tengen's bench. KataGo's own
  `benchmark` command runs searches whose nnEvals/s also count one evaluation each, but it
  picks its own positions; `--benchmark` adds its nnEvals/s for reference.
- `--katago-ftz` adds a third engine: the same KataGo with the CPU's flush-to-zero and
  denormals-are-zero modes on (a two-line preloaded library sets MXCSR before KataGo
  starts its threads, which inherit it). b10c384's feed-forward weights hold thousands of
  subnormal floats, and on this CPU every multiply-add that yields a subnormal takes a
  microcode assist; Tengen zeroes those weights at load. KataGo as shipped does not, so
  this column shows how much of the ratio that one difference is.

The machine is shared: only the ratios of a round mean much. Each round alternates which
engine goes first. Usage:

    scripts/nn_speed_vs_katago.py [--rounds 3] [--sizes 9 19] [--threads 1 2]
        [--seconds 8] [--tengen target/release/tengen] [--katago DIR/katago]
        [--config DIR/gtp.cfg] [--model PATH] [--benchmark] [--katago-ftz]
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HOME = os.path.expanduser("~")
KATAGO_DIR = os.path.join(HOME, ".cache/tengen-anchors/katago")

# The positions of `tengen bench --nn` (src/tools/bench.rs, GAME_9 and GAME_19): keep the
# two in step.
GAMES = {
    9: "F4 E5 E4 D5 F5 F6 D4 G7 C5 C6 E6 D6 E7 B5 C4 D8 B6 H3 D7 C7 C8 B7 E8 B8 D9 A5 G6 F7 "
    "H7 H6 G8 G5 F8 G6 G4 H4 J6 H5 H8 G2 F2 F1 G3 E1 H2 G1 J2",
    19: "Q16 Q4 D17 C4 C14 K17 E3 K3 D7 D5 H3 C10 D9 D10 E10 E11 C9 D12 F10 F5 C2 F7 G4 G5 "
    "H5 H6 J5 J6 K5 K6 L5 E9 B10 B11 E8 F9 F8 G9 G8 H9 B9 N3 H8 J9 J8 K8 K9 L8 J10 K10 L9 "
    "H10 M9 N7 J11 H11 E6 F4 F3 F6 J12 C15 C6 D15 N4 O3 R4 Q5 R5 R3 R7 Q6 G17 D3 D2 N17 "
    "O16 N16 O17 N15 Q13 O8 L11 R6 S6",
}


class Gtp:
    def __init__(self, argv, env=None):
        self.p = subprocess.Popen(
            argv,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )

    def send(self, cmd):
        self.p.stdin.write(cmd + "\n")
        self.p.stdin.flush()
        lines = []
        while True:
            line = self.p.stdout.readline()
            if line == "":
                raise RuntimeError(f"engine exited during {cmd!r}")
            if line.strip() == "" and lines:
                break
            if line.strip() != "":
                lines.append(line.rstrip("\n"))
        if not lines[0].startswith("="):
            raise RuntimeError(f"{cmd!r}: {lines[0]}")
        return lines

    def close(self):
        try:
            self.send("quit")
        except (RuntimeError, BrokenPipeError):
            pass
        self.p.wait(timeout=30)


FTZ_C = """#include <xmmintrin.h>
__attribute__((constructor)) static void ftz(void) { _mm_setcsr(_mm_getcsr() | 0x8040); }
"""


def ftz_library():
    """Builds the preloaded library that turns on flush-to-zero and denormals-are-zero."""
    d = tempfile.mkdtemp(prefix="ftz")
    src, lib = os.path.join(d, "ftz.c"), os.path.join(d, "ftz.so")
    with open(src, "w") as f:
        f.write(FTZ_C)
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", lib, src], check=True)
    return lib


def katago_ftz_run(args, size, threads, seconds):
    return katago_run(args, size, threads, seconds, preload=args.ftz_lib)


def katago_run(args, size, threads, seconds, preload=None):
    """Evaluations a second of `threads` KataGo processes evaluating at once for about
    `seconds` each (after start-up and one warm-up evaluation, not timed)."""
    env = dict(os.environ)
    if preload:
        env["LD_PRELOAD"] = preload
    overrides = (
        "numSearchThreads=1,numEigenThreadsPerModel=1,nnMaxBatchSize=1,"
        "nnCacheSizePowerOfTwo=10,logToStderr=false"
    )
    engines = [
        Gtp([args.katago, "gtp", "-model", args.model, "-config", args.config,
             "-override-config", overrides], env=env)
        for _ in range(threads)
    ]
    for g in engines:
        g.send(f"boardsize {size}")
        g.send("clear_board")
        g.send("komi 7.5")
        for i, v in enumerate(GAMES[size].split()):
            g.send(f"play {'b' if i % 2 == 0 else 'w'} {v}")
        g.send("kata-raw-nn 0")
    barrier = threading.Barrier(threads + 1)
    counts = [0] * threads

    def work(t):
        g = engines[t]
        barrier.wait()
        start = time.monotonic()
        sym = t
        while time.monotonic() - start < seconds:
            sym = (sym + 1) % 8
            g.send(f"kata-raw-nn {sym}")
            counts[t] += 1

    workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for w in workers:
        w.start()
    barrier.wait()
    start = time.monotonic()
    for w in workers:
        w.join()
    elapsed = time.monotonic() - start
    for g in engines:
        g.close()
    return sum(counts) / elapsed


def tengen_run(args, size, threads, seconds):
    out = subprocess.run(
        [args.tengen, "bench", "--nn", args.model, "--size", str(size), "--threads",
         str(threads), "--seconds", str(seconds)],
        check=True, capture_output=True, text=True,
    ).stdout
    m = re.search(r"evals_per_s=([0-9.]+)", out)
    if not m:
        raise RuntimeError(f"no evals_per_s in {out!r}")
    return float(m.group(1))


def katago_benchmark(args, size, threads):
    out = subprocess.run(
        [args.katago, "benchmark", "-model", args.model, "-config", args.config,
         "-boardsize", str(size), "-t", str(threads), "-v", "12", "-n", "2"],
        capture_output=True, text=True,
    ).stdout
    m = re.findall(r"nnEvals/s = ([0-9.]+)", out)
    return float(m[-1]) if m else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sizes", type=int, nargs="+", default=[9, 19], choices=sorted(GAMES))
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--seconds", type=float, default=8.0,
                    help="timed seconds of each engine's run (default 8)")
    ap.add_argument("--tengen", default="target/release/tengen")
    ap.add_argument("--katago", default=os.path.join(KATAGO_DIR, "katago"))
    ap.add_argument("--config", default=os.path.join(KATAGO_DIR, "gtp.cfg"))
    ap.add_argument("--model", default=os.path.join(KATAGO_DIR, "b10c384h6nbttflrs.bin.gz"))
    ap.add_argument("--benchmark", action="store_true",
                    help="also print KataGo's own `benchmark` nnEvals/s (its positions)")
    ap.add_argument("--katago-ftz", action="store_true",
                    help="also run KataGo with flush-to-zero / denormals-are-zero on")
    args = ap.parse_args()
    for what, v in [("--rounds", args.rounds), ("--seconds", args.seconds)]:
        if v <= 0:
            ap.error(f"{what} must be positive")
    if any(t < 1 or t > 64 for t in args.threads):
        ap.error("--threads must be in 1..=64")
    for path in [args.tengen, args.katago, args.config, args.model]:
        if not os.path.exists(path):
            ap.error(f"{path} does not exist")

    args.ftz_lib = ftz_library() if args.katago_ftz else None
    engines = [("tengen", tengen_run), ("katago", katago_run)]
    if args.katago_ftz:
        engines.append(("katago-ftz", katago_ftz_run))
    results = {}  # (size, threads) -> list of {engine: evals/s}
    for r in range(args.rounds):
        for size in args.sizes:
            for threads in args.threads:
                runs = list(engines)
                if r % 2 == 1:
                    runs.reverse()
                got = {}
                for name, fn in runs:
                    got[name] = fn(args, size, threads, args.seconds)
                results.setdefault((size, threads), []).append(got)
                line = " ".join(f"{n} {got[n]:.2f}/s" for n, _ in engines)
                ratios = " ".join(f"tengen/{n} {got['tengen'] / got[n]:.2f}" for n, _ in engines[1:])
                print(f"round {r + 1} size {size} threads {threads}: {line} {ratios}", flush=True)
    print()
    others = [n for n, _ in engines[1:]]
    print("| size | threads | Tengen evals/s | " + " | ".join(f"{n} evals/s" for n in others)
          + " | " + " | ".join(f"ratio to {n} (per round)" for n in others) + " |")
    print("|---|---|---|" + "---|" * (2 * len(others)))
    for (size, threads), rs in results.items():
        med = {n: statistics.median(g[n] for g in rs) for n, _ in engines}
        cells = [f"{med['tengen']:.2f}"] + [f"{med[n]:.2f}" for n in others]
        for n in others:
            ratios = [g["tengen"] / g[n] for g in rs]
            cells.append(f"**{statistics.median(ratios):.2f}x** ({', '.join(f'{x:.2f}' for x in ratios)})")
        print(f"| {size}x{size} | {threads} | " + " | ".join(cells) + " |")
    if args.benchmark:
        print()
        for size in args.sizes:
            for threads in args.threads:
                print(f"katago benchmark size {size} threads {threads}: nnEvals/s "
                      f"{katago_benchmark(args, size, threads):.2f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
