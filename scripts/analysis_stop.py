#!/usr/bin/env python3
"""How fast a streaming analysis stops: 19x19, 2 threads searching, `kata-analyze b 10
ownership true` (with an update every 0.1 s), stopped after 0.1-0.4 s by a command line
(`protocol_version`, as Sabaki sends, or `name`, as Lizzie does) or an empty line; the time
from writing the stopping line to reading the closing empty line of the analysis.

    scripts/analysis_stop.py [--tengen target/release/tengen] [--stops 100]

Prints the median, 95th percentile and maximum in milliseconds (issue 9 wants at most 50).
"""
import argparse, random, statistics, subprocess, time

ap = argparse.ArgumentParser()
ap.add_argument("--tengen", default="target/release/tengen")
ap.add_argument("--stops", type=int, default=100)
ap.add_argument("--size", type=int, default=19)
args = ap.parse_args()

p = subprocess.Popen([args.tengen, "--threads", "2"], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)


def send(line):
    p.stdin.write(line + "\n")
    p.stdin.flush()


def response():
    lines = []
    while True:
        l = p.stdout.readline()
        if not l:
            raise SystemExit("engine closed its output")
        if l == "\n":
            return lines
        lines.append(l.rstrip("\n"))


send(f"boardsize {args.size}")
response()
rng = random.Random(1)
times = []
moves = ["D4", "Q16", "Q4", "D16", "K10", "C3"]
for i in range(args.stops):
    if i % 10 == 0:
        # Change the position now and then (the tree is kept within a game).
        send("clear_board")
        response()
        for k, m in enumerate(rng.sample(moves, 3)):
            send(f"play {'b' if k % 2 == 0 else 'w'} {m}")
            response()
    send("kata-analyze b 10 ownership true")
    first = p.stdout.readline()
    assert first.startswith("="), first
    time.sleep(rng.uniform(0.1, 0.4))
    stop = ["protocol_version", "name", ""][i % 3]
    t0 = time.perf_counter()
    send(stop)
    while p.stdout.readline() != "\n":
        pass
    times.append((time.perf_counter() - t0) * 1000)
    if stop:
        response()
send("quit")
p.wait()
times.sort()
print(f"stops={len(times)} median_ms={statistics.median(times):.1f} "
      f"p95_ms={times[int(0.95 * (len(times) - 1))]:.1f} max_ms={times[-1]:.1f}")
