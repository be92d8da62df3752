#!/usr/bin/env python3
"""Soak: `kata-analyze` on a 19x19 (or --size 9, 13) middle-game position for an hour (by default), the
engine's resident memory sampled every 10 s. Writes `seconds rss_mib updates` rows to
--out and a summary line at the end: RSS at the first minute, the largest after it,
their growth, the peak, and whether the peak stayed within --max-memory (default: the
engine's default bound, 512 MiB).

    scripts/soak_analysis.py [--engine target/release/tengen] [--seconds 3600]
                             [--out runs/soak-analysis.tsv] [--max-memory MIB]
"""
import argparse, os, shutil, subprocess, sys, tempfile, threading, time

MOVES = {
    19: "Q16 D4 Q4 D16 C14 R6 F17 O17 R13 N3 E6 P7 K4 K16 H17 C6 F3".split(),
    13: "K10 D4 K4 D10 C7 L7 G11 G3".split(),
    9: "E5 C4 G6 C6 G4 D7".split(),
}


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", default="target/release/tengen")
    ap.add_argument("--seconds", type=float, default=3600)
    ap.add_argument("--interval", type=float, default=10)
    ap.add_argument("--out", default="runs/soak-analysis.tsv")
    ap.add_argument("--max-memory", type=int, default=None)
    ap.add_argument("--size", type=int, default=19, choices=sorted(MOVES))
    a = ap.parse_args()
    # A copy, so that rebuilding the project meanwhile does not swap the binary.
    tmp = tempfile.mkdtemp()
    exe = os.path.join(tmp, "tengen")
    shutil.copy(a.engine, exe)
    cmd = [exe, "-v", "0"]
    if a.max_memory:
        cmd += ["--max-memory", str(a.max_memory)]
    bound = a.max_memory or 512
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    setup = [f"boardsize {a.size}", "clear_board", "komi 7.5"]
    colour = "b"
    for m in MOVES[a.size]:
        setup.append(f"play {colour} {m}")
        colour = "w" if colour == "b" else "b"
    for c in setup:
        p.stdin.write(c + "\n")
    p.stdin.write(f"kata-analyze {colour} 100 ownership true\n")
    p.stdin.flush()
    updates = [0]
    bad = [0]

    def drain():
        for line in p.stdout:
            if line.startswith("info "):
                updates[0] += 1
                if " pv " not in line or "ownership" not in line:
                    bad[0] += 1

    threading.Thread(target=drain, daemon=True).start()
    rows = []
    t0 = time.time()
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    with open(a.out, "w") as out:
        out.write("seconds\trss_mib\tupdates\n")
        while time.time() - t0 < a.seconds:
            time.sleep(a.interval)
            if p.poll() is not None:
                print("engine exited", file=sys.stderr)
                break
            t = time.time() - t0
            r = rss_mib(p.pid)
            rows.append((t, r))
            out.write(f"{t:.0f}\t{r:.1f}\t{updates[0]}\n")
            out.flush()
    alive = p.poll() is None
    if alive:
        p.stdin.write("\nquit\n")
        p.stdin.flush()
        p.wait(timeout=30)
    shutil.rmtree(tmp, ignore_errors=True)
    first = next((r for t, r in rows if t >= 60), rows[-1][1] if rows else 0)
    after = max((r for t, r in rows if t >= 60), default=first)
    peak = max((r for _, r in rows), default=0)
    growth = (after - first) / first * 100 if first else 0
    print(
        f"samples={len(rows)} seconds={rows[-1][0]:.0f} updates={updates[0]} malformed={bad[0]} "
        f"rss_at_1min={first:.1f} max_after_1min={after:.1f} growth={growth:.1f}% "
        f"peak={peak:.1f} bound={bound} within_bound={peak <= bound} alive_to_end={alive} "
        f"exit={p.returncode}"
    )


if __name__ == "__main__":
    main()
