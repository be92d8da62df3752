#!/usr/bin/env python3
"""Search speed of Tengen against Pachi, measured side by side in one run (the machine is
shared, so only the ratio means much): one thread, 10,000 playouts from the empty board,
alternating the two programs, median of N rounds.

    scripts/speed_vs_pachi.py [--tengen target/release/tengen] [--pachi PATH] [--rounds 3]

Pachi: ../shared/anchors/build-pachi.sh builds it (default ~/.cache/tengen-anchors/pachi).
Pachi's time is the wall time of one `genmove` (start-up and the first genmove, which loads its
pattern files, excluded: it is the second `genmove`, from the line to its answer); Tengen's is `tengen bench --search`'s own figure.
"""
import argparse, os, re, statistics, subprocess, time

ap = argparse.ArgumentParser()
ap.add_argument("--tengen", default="target/release/tengen")
ap.add_argument("--pachi", default=os.path.expanduser("~/.cache/tengen-anchors/pachi/pachi"))
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--playouts", type=int, default=10000)
ap.add_argument("--threads", type=int, default=1)
args = ap.parse_args()


def tengen(size):
    out = subprocess.run([args.tengen, "bench", "--search", "--size", str(size),
                          "--threads", str(args.threads), "--playouts", str(args.playouts)],
                         capture_output=True, text=True, check=True).stdout
    m = re.search(r"playouts_per_s=(\d+).*peak_rss_mib=(\d+)", out)
    return float(m.group(1)), int(m.group(2))


def pachi(size):
    p = subprocess.Popen([args.pachi, "--nodcnn", "-t", f"={args.playouts}",
                          f"threads={args.threads}", "pondering=0"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True)

    def cmd(c):
        p.stdin.write(c + "\n")
        p.stdin.flush()
        lines = []
        while True:
            l = p.stdout.readline()
            if l.strip() == "" and lines:
                return lines
            if l.strip():
                lines.append(l.strip())

    cmd(f"boardsize {size}")
    cmd("clear_board")
    cmd("komi 7.5")
    # One move each first, so that no opening book answers instead of the search.
    # The first genmove also loads Pachi's pattern files: time the second one.
    mid = "E5" if size == 9 else "K10"
    cmd(f"play b {mid}")
    cmd("genmove w")
    t = time.perf_counter()
    cmd("genmove b")
    dt = time.perf_counter() - t
    cmd("quit")
    p.wait()
    return args.playouts / dt


for size in (9, 19):
    ts, ps, rss = [], [], []
    for _ in range(args.rounds):
        a, r = tengen(size)
        ts.append(a)
        rss.append(r)
        ps.append(pachi(size))
    t, p = statistics.median(ts), statistics.median(ps)
    print(f"size={size} threads={args.threads} playouts={args.playouts} tengen_per_s={t:.0f} "
          f"pachi_per_s={p:.0f} ratio={t / p:.2f} tengen_peak_rss_mib={max(rss)}")
