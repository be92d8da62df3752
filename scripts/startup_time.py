#!/usr/bin/env python3
"""Time from starting the engine to the answer of `name` (median and max of 30 starts).
Usage: scripts/startup_time.py [ENGINE]   (default target/release/tengen). Prints, never fails
on speed: timing is a measurement, not a test."""
import statistics, subprocess, sys, time

engine = sys.argv[1] if len(sys.argv) > 1 else 'target/release/tengen'
times = []
for _ in range(30):
    t = time.perf_counter()
    p = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    p.stdin.write('name\n')
    p.stdin.flush()
    reply = p.stdout.readline()
    times.append((time.perf_counter() - t) * 1000)
    p.stdin.write('quit\n')
    p.stdin.flush()
    p.wait()
print('start to name answer (%s): median %.2f ms, max %.2f ms over %d starts'
      % (reply.strip(), statistics.median(times), max(times), len(times)))
