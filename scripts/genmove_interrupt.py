#!/usr/bin/env python3
"""Times `# interrupt` during a long `genmove` (issue 9: the move within 200 ms).

    scripts/genmove_interrupt.py [--tengen target/release/tengen] [--size 19] [--runs 20]

Starts the engine on 2 threads, gives it 60 s a move (`time_settings 0 60 1`), sends
`genmove`, then GoGui's `# interrupt` after 0.3-1.0 s, and prints the time from the
interrupt to the answer: median and longest over --runs. Exits 1 when one takes more than
200 ms or an answer is not a move.
"""
import argparse, random, statistics, subprocess, sys, time

ap = argparse.ArgumentParser()
ap.add_argument("--tengen", default="target/release/tengen")
ap.add_argument("--size", type=int, default=19)
ap.add_argument("--runs", type=int, default=20)
args = ap.parse_args()

p = subprocess.Popen([args.tengen, "--threads", "2"], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)


def send(line):
    p.stdin.write(line + "\n")
    p.stdin.flush()


def answer():
    lines = []
    while True:
        line = p.stdout.readline()
        if line == "":
            sys.exit("engine closed its output")
        if line.strip() == "" and lines:
            return "\n".join(lines)
        if line.strip():
            lines.append(line.strip())


for cmd in (f"boardsize {args.size}", "clear_board", "komi 7.5", "time_settings 0 60 1"):
    send(cmd)
    assert answer().startswith("="), cmd

rng = random.Random(1)
took = []
color = "b"
for _ in range(args.runs):
    send(f"genmove {color}")
    time.sleep(rng.uniform(0.3, 1.0))
    t0 = time.perf_counter()
    send("# interrupt")
    resp = answer()
    took.append((time.perf_counter() - t0) * 1000)
    if not resp.startswith("= "):
        sys.exit(f"not a move: {resp!r}")
    color = "w" if color == "b" else "b"
send("quit")
p.communicate(timeout=10)
print(f"runs={len(took)} median_ms={statistics.median(took):.1f} longest_ms={max(took):.1f}")
sys.exit(0 if max(took) <= 200 else 1)
