#!/usr/bin/env python3
"""Issue 59's figures in one run: Tengen's network evaluations a second against OpenVINO's
best (the fastest CPU runtime we know for KataGo's networks) and KataGo's own Eigen
`benchmark`, same network, same machine, two evaluators each, the programs taking turns
(never two at once), each round in the other order; medians and ratios per board size.

- Tengen, isolated passes: `tengen bench --nn MODEL --size N --threads 2 --seconds S
  [--precision P]`, one evaluator a thread at batch one: as shipped (no --precision: auto,
  the precision and kernels it picked are printed), then fp32, bf16 (AVX-512 CPUs) and int8
  (AVX512-VNNI CPUs), the rows the CPU takes. Also Tengen's own `peak_share` (its
  arithmetic rate over the core's peak).
- Tengen inside a search: `tengen bench --nn MODEL --in-search --size N --threads 2
  --seconds S`, as shipped (evaluations a second, cache hits left out).
- OpenVINO: `../shared/anchors/runtimebench.py GRAPH KIND BATCH S` on the ONNX graph that
  KataGo's own builder emits (`../shared/anchors/katago-onnx.sh` writes DIR/NET_N.onnx), for
  each kind of `--kinds` (ov-f32, ov-bf16, ov-int8) and batch of `--batches`: two
  one-thread processes started together, pinned one a core (`taskset -c 0`, `taskset -c
  1`: OpenVINO pins its thread itself, so two unpinned processes share a core), their
  rates summed; "skew" is how far apart the two finished (how much their timed windows
  missed each other). OpenVINO's best is the max over kinds and batches. ov-int8 runs a
  graph NNCF quantised (300 random board-like inputs), cached by runtimebench.py beside the
  graph as NET_N.ov-int8-bB.xml: a missing one is made before the first round, alone, and
  its time printed apart from the rates (delete the file to time it again).
- KataGo 1.17.2 (Eigen): `katago benchmark -model MODEL -config gtp.cfg -t 2 -boardsize N`
  (../shared/anchors/build-katago.sh builds it), nnEvals/s; its own positions and searches
  (nn_speed_vs_ort.py's run: 3 positions, 40 visits each). `--katago-ftz` adds the same with
  flush-to-zero and denormals-are-zero on: b10c384's weights hold thousands of subnormal
  floats, and on Intel CPUs each multiply-add that yields one takes a microcode assist
  (on a Sapphire Rapids, loaded, 9x9: 1.6 nnEvals/s as shipped, 20.5 with FTZ).

The header names the CPU (model name, family/model/stepping) and the flags that decide the
kernels; `--peak` also builds and runs ../shared/anchors/peak.c once (one core's fp32, bf16
and int8 peaks). The machine may be shared: the ratios of one round (programs measured
within the same minutes) are printed beside the ratio of the medians. Usage:

    scripts/nn_speed_vs_openvino.py [--rounds 3] [--sizes 9 19] [--seconds 10]
        [--batches 1 8] [--kinds ov-f32 ov-bf16 ov-int8] [--tengen target/release/tengen]
        [--model PATH] [--onnx-dir DIR] [--anchors DIR] [--katago DIR/katago]
        [--config DIR/gtp.cfg] [--no-katago] [--katago-ftz] [--no-in-search] [--peak]
"""

import argparse
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from nn_speed_vs_ort import KATAGO_DIR, MODEL, ONNX_DIR, ftz_library, katago

THREADS = 2  # issue 59: two evaluators a side
ANCHORS = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                        "../../shared/anchors"))
FLAGS = ["avx2", "fma", "avx512f", "avx512_bf16", "avx512_vnni", "amx_bf16", "amx_int8"]


def cpu_info():
    """(model name, family/model/stepping, {flag: present}) from /proc/cpuinfo."""
    fields = {}
    for line in open("/proc/cpuinfo"):
        if not line.strip():
            break  # the first processor is enough
        k, _, v = line.partition(":")
        fields[k.strip()] = v.strip()
    have = set(fields.get("flags", "").split())
    return (fields.get("model name", "?"),
            "family %s model %s stepping %s" % (fields.get("cpu family", "?"),
                                               fields.get("model", "?"),
                                               fields.get("stepping", "?")),
            {f: f in have for f in FLAGS})


def fields_of(out):
    """The key=value fields of a line of `tengen bench` (the last line that has them)."""
    got = {}
    for line in out.splitlines():
        kv = dict(re.findall(r"(\w+)=(\S+)", line))
        if "evals_per_s" in kv:
            got = kv
    if not got:
        raise RuntimeError("no evals_per_s in %r" % out[-300:])
    return got


def tengen(args, size, precision, in_search):
    cmd = [args.tengen, "bench", "--nn", args.model, "--size", str(size),
           "--threads", str(THREADS), "--seconds", str(args.seconds)]
    if in_search:
        cmd.insert(4, "--in-search")
    if precision is not None:
        cmd += ["--precision", precision]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr.strip()[-300:]))
    f = fields_of(p.stdout)
    info = "precision=%s kernels=%s cpu=%s peak_share=%s gflops_per_s=%s core_peak_gflops=%s" % (
        f.get("precision"), f.get("kernels"), f.get("cpu"), f.get("peak_share"),
        f.get("gflops_per_s"), f.get("core_peak_gflops"))
    if in_search:
        info += " mean_batch=%s" % f.get("mean_batch")
    return float(f["evals_per_s"]), info, f


def graph(args, size):
    return os.path.join(args.onnx_dir, "%s_%d.onnx" % (os.path.basename(args.model).split(".")[0], size))


def runtimebench(args, size, kind, batch, seconds, cpu=None):
    """One runtimebench.py process; its stdout line, with stderr in a file (NNCF and
    OpenVINO can write a lot there, and a full pipe would stall the process)."""
    cmd = [sys.executable, os.path.join(args.anchors, "runtimebench.py"), graph(args, size),
           kind, str(batch), str(seconds)]
    if cpu is not None:
        cmd = ["taskset", "-c", str(cpu)] + cmd
    err = tempfile.TemporaryFile("w+")
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True), err


def finish(p, err):
    out = p.communicate()[0]
    m = re.search(r"evals_per_s=([0-9.]+)", out)
    if p.returncode != 0 or not m:
        err.seek(0)
        raise RuntimeError("runtimebench exit %d: %s" % (p.returncode, (out + err.read()).strip()[-400:]))
    err.close()
    return float(m.group(1)), out.strip()


def openvino(args, size, kind, batch):
    """THREADS one-thread runtimebench.py processes started together, pinned one a core:
    the sum of their rates, and a description (the precision OpenVINO ran, the skew)."""
    procs = [runtimebench(args, size, kind, batch, args.seconds, cpu) for cpu in args.cores]
    ends = [None] * len(procs)

    def wait(i):
        procs[i][0].wait()
        ends[i] = time.monotonic()

    waiters = [threading.Thread(target=wait, args=(i,)) for i in range(len(procs))]
    for w in waiters:
        w.start()
    for w in waiters:
        w.join()
    rates, lines = zip(*(finish(p, e) for p, e in procs))
    # The label ends "(openvino VERSION, <Type: 'bfloat16'>)": the precision it ran (for
    # ov-int8 that of the layers NNCF left unquantised).
    prec = re.search(r"\(openvino [^,]*, .*?(\w+)'?>?\)", lines[0])
    prec = prec.group(1) if prec else "?"
    info = "precision=%s per_process=%s skew_s=%.2f" % (
        "int8+" + prec if kind == "ov-int8" else prec, "+".join("%.2f" % r for r in rates),
        max(ends) - min(ends))
    return sum(rates), info


def quantise(args):
    """Makes the missing NNCF-quantised graphs before the first round, one at a time, and
    prints how long each took: the run that quantised less a second run from the cache
    (the same start-up: imports, ONNX Runtime's reference, OpenVINO's compile)."""
    for size in args.sizes:
        for batch in args.batches:
            xml = graph(args, size)[:-5] + ".ov-int8-b%d.xml" % batch
            if os.path.exists(xml):
                print("ov-int8 size %d batch %d: quantised graph cached (%s; delete it to time "
                      "the quantisation)" % (size, batch, xml), flush=True)
                continue
            t0 = time.monotonic()
            finish(*runtimebench(args, size, "ov-int8", batch, 0.5))
            t1 = time.monotonic()
            finish(*runtimebench(args, size, "ov-int8", batch, 0.5))
            t2 = time.monotonic()
            print("ov-int8 size %d batch %d: NNCF quantisation %.1f s (run that quantised %.1f s, "
                  "the same run from the cache %.1f s; both cores, nothing else of ours running)"
                  % (size, batch, (t1 - t0) - (t2 - t1), t1 - t0, t2 - t1), flush=True)


def peak(args):
    src = os.path.join(args.anchors, "peak.c")
    exe = os.path.join(tempfile.mkdtemp(prefix="peak"), "peak")
    subprocess.run(["gcc", "-O2", "-march=native", src, "-o", exe], check=True)
    out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    for line in out.strip().splitlines():
        print("peak.c, one core: " + line, flush=True)


def med(xs):
    xs = [x for x in xs if not math.isnan(x)]
    return statistics.median(xs) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sizes", type=int, nargs="+", default=[9, 19])
    ap.add_argument("--seconds", type=float, default=10.0,
                    help="timed seconds of each measurement (default 10)")
    ap.add_argument("--batches", type=int, nargs="+", default=[1, 8], help="OpenVINO's batches")
    ap.add_argument("--kinds", nargs="+", default=["ov-f32", "ov-bf16", "ov-int8"],
                    choices=["ov-f32", "ov-bf16", "ov-int8"], help="OpenVINO's precisions")
    ap.add_argument("--tengen", default="target/release/tengen")
    ap.add_argument("--model", default=MODEL)
    ap.add_argument("--onnx-dir", default=ONNX_DIR, help="where katago-onnx.sh wrote the graphs")
    ap.add_argument("--anchors", default=ANCHORS, help="runtimebench.py and peak.c are here")
    ap.add_argument("--katago", default=os.path.join(KATAGO_DIR, "katago"))
    ap.add_argument("--config", default=os.path.join(KATAGO_DIR, "gtp.cfg"))
    ap.add_argument("--no-katago", action="store_true", help="leave KataGo out")
    ap.add_argument("--katago-ftz", action="store_true",
                    help="also KataGo with flush-to-zero and denormals-are-zero (ftz.so preloaded)")
    ap.add_argument("--no-in-search", action="store_true", help="leave Tengen inside a search out")
    ap.add_argument("--peak", action="store_true", help="also run ../shared/anchors/peak.c once")
    args = ap.parse_args()
    args.threads = THREADS  # nn_speed_vs_ort.katago reads it
    if args.rounds < 1 or args.seconds <= 0:
        ap.error("--rounds and --seconds must be positive")
    if any(b < 1 for b in args.batches):
        ap.error("--batches must be positive")
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < THREADS:
        ap.error("OpenVINO's processes need %d cores to pin, this process may use %s" % (THREADS, cores))
    args.cores = cores[:THREADS]
    need = [args.tengen, args.model, os.path.join(args.anchors, "runtimebench.py")]
    need += [graph(args, s) for s in args.sizes]
    if not args.no_katago:
        need += [args.katago, args.config]
    for path in need:
        if not os.path.exists(path):
            ap.error("%s does not exist%s" % (path, " (or pass --no-katago)" if "katago" in path
                                                and "onnx" not in path else ""))

    name, fms, flags = cpu_info()
    print("cpu: %s (%s), %d cores here, OpenVINO pinned to %s" % (
        name, fms, len(cores), ",".join(map(str, args.cores))))
    print("cpu flags: " + " ".join("%s=%s" % (f, "yes" if v else "no") for f, v in flags.items()))
    print("threads %d, %g s a measurement, %d round(s), sizes %s, model %s" % (
        THREADS, args.seconds, args.rounds, " ".join(map(str, args.sizes)), args.model), flush=True)
    if args.peak:
        peak(args)
    if args.katago_ftz and not args.no_katago:
        ftz_library(args)  # built beside KataGo before the first round

    # Tengen's rows: as shipped, then each precision the CPU takes.
    precisions = [None, "fp32"]
    if flags["avx512f"]:
        precisions.append("bf16")
    if flags["avx512_vnni"]:
        precisions.append("int8")
    skipped = [p for p in ("bf16", "int8") if p not in precisions]
    if skipped:
        print("tengen: no %s rows (the CPU lacks %s)" % (
            "/".join(skipped), " and ".join({"bf16": "AVX-512", "int8": "AVX512-VNNI"}[p] for p in skipped)))
    if "ov-int8" in args.kinds:
        quantise(args)

    def tname(p, s=False):
        return "tengen %s%s" % ("in search " if s else "", "as shipped" if p is None else p)

    rows = {}   # (size, name) -> [evals/s a round]
    infos = {}  # (size, name) -> [description a round]
    for r in range(args.rounds):
        for size in args.sizes:
            jobs = [(tname(p), lambda p=p: tengen(args, size, p, False)[:2]) for p in precisions]
            if not args.no_in_search:
                jobs.append((tname(None, True), lambda: tengen(args, size, None, True)[:2]))
            jobs += [("openvino %s batch %d" % (k, b), lambda k=k, b=b: openvino(args, size, k, b))
                     for k in args.kinds for b in args.batches]
            if not args.no_katago:
                jobs.append(("katago eigen", lambda: (katago(args, size, False), "katago benchmark -t %d" % THREADS)))
                if args.katago_ftz:
                    jobs.append(("katago eigen ftz", lambda: (katago(args, size, True),
                                                              "the same, LD_PRELOAD=ftz.so")))
            if r % 2:
                jobs.reverse()
            for job, run in jobs:
                try:
                    v, info = run()
                except (RuntimeError, OSError) as e:
                    v, info = float("nan"), "FAILED: %s" % e
                rows.setdefault((size, job), []).append(v)
                infos.setdefault((size, job), []).append(info)
                print("round %d size %d %s: %.2f evals/s %s" % (r + 1, size, job, v, info), flush=True)

    for size in args.sizes:
        names = [n for (s, n) in rows if s == size]
        m = {n: med(rows[(size, n)]) for n in names}
        print("\n== size %dx%d, medians of %d round(s), evaluations a second (two evaluators)" % (
            size, size, args.rounds))
        for n in names:
            tail = ""
            if n.startswith("tengen"):
                last = infos[(size, n)][-1]
                shares = [re.search(r"peak_share=(\S+)", i) for i in infos[(size, n)]]
                shares = [float(x.group(1)) for x in shares if x and x.group(1) != "None"]
                tail = "  %s  peak_share median %s" % (
                    " ".join(re.findall(r"(?:precision|kernels)=\S+", last)),
                    "%.2f" % statistics.median(shares) if shares else "?")
            elif n.startswith("openvino"):
                prec = re.search(r"precision=(\S+)", infos[(size, n)][-1])
                tail = "  (ran %s)" % (prec.group(1) if prec else "?")
            print("  %-34s %9.2f%s" % (n, m[n], tail))

        def best(keep, r=None):
            """The largest median (or round r's value) of the rows keep(name) keeps."""
            cand = [(rows[(size, n)][r] if r is not None else m[n], n) for n in names if keep(n)]
            cand = [c for c in cand if not math.isnan(c[0])]
            return max(cand) if cand else (float("nan"), None)

        def ratio(num, den, label):
            """num and den: functions of a round (None: the medians) -> (value, row name)."""
            v, vn = num(None)
            w, wn = den(None)
            per = [num(r)[0] / den(r)[0] for r in range(args.rounds)]
            per = [x for x in per if not math.isnan(x)]
            if math.isnan(v) or math.isnan(w) or w == 0:
                print("  %s: n/a" % label)
                return
            print("  %s: %.2fx  (%s / %s; each round's own: %s)" % (
                label, v / w, vn, wn, " ".join("%.2fx" % x for x in per) or "n/a"))

        def row(n):
            return lambda r: ((rows[(size, n)][r] if r is not None else m[n]), n) if (size, n) in rows \
                else (float("nan"), n)

        ov_best = lambda r: best(lambda n: n.startswith("openvino "), r)
        ov_int8 = lambda r: best(lambda n: n.startswith("openvino ov-int8 "), r)
        tengen_best = lambda r: best(lambda n: n.startswith("tengen ") and "in search" not in n, r)
        print("ratios, size %dx%d (ratio of the medians; OpenVINO's best is the best median, or "
              "in a round that round's best):" % (size, size))
        ratio(row(tname(None)), ov_best, "Tengen as shipped / OpenVINO best")
        ratio(tengen_best, ov_best, "Tengen's best row / OpenVINO best")
        if "int8" in precisions and "ov-int8" in args.kinds:
            ratio(row(tname("int8")), ov_int8, "Tengen int8 / OpenVINO int8 (best batch)")
            if 1 in args.batches:
                ratio(row(tname("int8")), row("openvino ov-int8 batch 1"),
                      "Tengen int8 / OpenVINO int8 batch 1 (Tengen's batch)")
        if not args.no_katago:
            ratio(row(tname(None)), row("katago eigen"), "Tengen as shipped / KataGo Eigen")
            if args.katago_ftz:
                ratio(row(tname(None)), row("katago eigen ftz"), "Tengen as shipped / KataGo Eigen with FTZ")
        if not args.no_in_search:
            ratio(row(tname(None, True)), ov_best, "Tengen in search / OpenVINO best")
            if not args.no_katago:
                ratio(row(tname(None, True)), row("katago eigen"), "Tengen in search / KataGo Eigen")
    return 0


if __name__ == "__main__":
    sys.exit(main())
