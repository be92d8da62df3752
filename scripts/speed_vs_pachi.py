#!/usr/bin/env python3
"""Search speed of Tengen against Pachi, measured side by side in one run (the machine is
shared, so only the ratio means much): one thread, 10,000 playouts, alternating the two
programs, median of N rounds.

    scripts/speed_vs_pachi.py [--tengen target/release/tengen] [--pachi PATH] [--rounds 3]

Pachi: ../shared/anchors/build-pachi.sh builds it (default ~/.cache/tengen-anchors/pachi).

Both engines get the same work through GTP, each in a fresh process: `boardsize N`,
`clear_board`, `komi 7.5`, one black stone in the centre (so that no opening book answers
instead of the search), then one `genmove w` with a fixed playout count (Pachi `-t =10000`,
Tengen `--playouts 10000`), timed with one stopwatch from the line sent to the answer.
The rate is the playouts the engine reports for that search over that wall time:

- Pachi reports `*** WINNER is .. (w/N games)` and `mcts S s (R games/s)` on stderr; it
  plays a few more than asked (N ~ 10,100-10,600), and N is what is counted.
- Tengen (`-v 2`) reports `search: N playouts in S s` on stderr.

Each engine's own search-only rate (Pachi's `games/s`, Tengen's N/S) is printed too.

An earlier version timed Pachi's second `genmove`: Pachi keeps the tree of its first one and
counts its playouts towards the 10,000, so that search ran only 3,000-6,000 new playouts and
Pachi's rate came out 1.5-2.2 times too high (and varied run to run).

Tengen's peak RSS is from `tengen bench --search` (10,000 playouts from the empty board).
"""
import argparse, os, re, statistics, subprocess, time

ap = argparse.ArgumentParser()
ap.add_argument("--tengen", default="target/release/tengen")
ap.add_argument("--pachi", default=os.path.expanduser("~/.cache/tengen-anchors/pachi/pachi"))
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--playouts", type=int, default=10000)
ap.add_argument("--threads", type=int, default=1)
ap.add_argument("--sizes", default="9,19")
args = ap.parse_args()


def timed_genmove(argv, size, cwd=None):
    """(wall seconds of `genmove w`, stderr text) in a fresh process."""
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, cwd=cwd)

    def cmd(c):
        p.stdin.write(c + "\n")
        p.stdin.flush()
        lines = []
        while True:
            l = p.stdout.readline()
            if not l:
                raise SystemExit(f"{argv[0]} closed its output after {c!r}")
            if l.strip() == "" and lines:
                return lines
            if l.strip():
                lines.append(l.strip())

    cmd(f"boardsize {size}")
    cmd("clear_board")
    cmd("komi 7.5")
    cmd("play b " + ("E5" if size == 9 else "K10"))
    t = time.perf_counter()
    reply = cmd("genmove w")
    dt = time.perf_counter() - t
    if not reply[0].startswith("="):
        raise SystemExit(f"{argv[0]}: genmove failed: {reply}")
    p.stdin.write("quit\n")
    p.stdin.flush()
    err = p.stderr.read()
    p.wait()
    return dt, err


def pachi(size):
    dt, err = timed_genmove([args.pachi, "--nodcnn", "-t", f"={args.playouts}",
                             f"threads={args.threads}", "pondering=0"], size,
                            cwd=os.path.dirname(args.pachi))
    n = int(re.findall(r"\*\*\* WINNER is .*?\(\d+/(\d+) games\)", err)[-1])
    own = float(re.findall(r"mcts [\d.]+s \((\d+) games/s", err)[-1])
    return n / dt, own


def tengen(size):
    dt, err = timed_genmove([args.tengen, "-v", "2", "--threads", str(args.threads),
                             "--playouts", str(args.playouts)], size)
    m = re.findall(r"search: (\d+) playouts in ([\d.]+) s", err)[-1]
    n, s = int(m[0]), float(m[1])
    return n / dt, n / s


def tengen_rss(size):
    out = subprocess.run([args.tengen, "bench", "--search", "--size", str(size),
                          "--threads", str(args.threads), "--playouts", str(args.playouts)],
                         capture_output=True, text=True, check=True).stdout
    return int(re.search(r"peak_rss_mib=(\d+)", out).group(1))


for size in [int(s) for s in args.sizes.split(",")]:
    t, p, t_own, p_own, ratios = [], [], [], [], []
    for _ in range(args.rounds):
        a, a_own = tengen(size)
        b, b_own = pachi(size)
        t.append(a)
        t_own.append(a_own)
        p.append(b)
        p_own.append(b_own)
        ratios.append(a / b)
    med = statistics.median
    print(f"size={size} threads={args.threads} playouts={args.playouts} "
          f"tengen_per_s={med(t):.0f} pachi_per_s={med(p):.0f} ratio={med(t) / med(p):.2f} "
          f"ratios={','.join(f'{r:.2f}' for r in ratios)} "
          f"search_only: tengen={med(t_own):.0f} pachi={med(p_own):.0f} "
          f"tengen_peak_rss_mib={tengen_rss(size)}")
