#!/usr/bin/env python3
"""Times `final_score` / `final_status_list dead` answering `# interrupt`, and with
--genmove N also a `genmove` that has 60 s (issue 9), N times.

    scripts/status_interrupt.py [ENGINE] [--genmove N]   (default target/release/tengen, 0)

Starts the engine with a dead-stone budget it cannot finish (--status-playouts 100000000),
loads a 19x19 game, sends the command, then `# interrupt` after 0.5 s, and prints the time
from the interrupt to the answer. A `genmove` runs on 2 threads from the empty 19x19
board with `time_settings 0 60 1`. Exits 1 when an answer takes more than 200 ms.
"""
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAME = os.path.join(ROOT, "..", "shared", "corpora", "computer-go-dataset-ai", "AlphaGo",
                    "AG_vs_AG_-_G1_-_English.sgf")
LIMIT = 0.2


def reply(proc):
    lines = []
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("engine died")
        line = line.rstrip("\r\n")
        if line == "" and lines:
            return "\n".join(lines)
        if line:
            lines.append(line)


def main():
    args = sys.argv[1:]
    genmoves = 0
    if "--genmove" in args:
        i = args.index("--genmove")
        genmoves = int(args[i + 1])
        del args[i:i + 2]
    engine = args[0] if args else os.path.join(ROOT, "target", "release", "tengen")
    status = 0
    commands = ["final_score", "final_status_list dead"] + ["genmove b"] * genmoves
    for command in commands:
        genmove = command.startswith("genmove")
        extra = ["--threads", "2"] if genmove else []
        proc = subprocess.Popen([engine, "--status-playouts", "100000000"] + extra,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True, bufsize=1)
        setup = ["boardsize 19", "time_settings 0 60 1"] if genmove else ["loadsgf %s" % GAME]
        for line in setup:
            proc.stdin.write(line + "\n")
            proc.stdin.flush()
            reply(proc)
        proc.stdin.write(command + "\n")
        proc.stdin.flush()
        time.sleep(0.5)
        sent = time.time()
        proc.stdin.write("# interrupt\n")
        proc.stdin.flush()
        answer = reply(proc)
        took = time.time() - sent
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        proc.wait(timeout=10)
        ok = took <= LIMIT
        status |= not ok
        print("%s: answered %.0f ms after the interrupt (%s): %s" % (
            command, took * 1000, "ok" if ok else "TOO SLOW", answer.split("\n")[0][:60]))
    return status


if __name__ == "__main__":
    sys.exit(main())
