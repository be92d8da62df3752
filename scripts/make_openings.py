#!/usr/bin/env python3
"""Writes balanced openings for `tengen match --openings`: N short openings drawn from a
network's policy (temperature 1, moves of at least 2% policy), kept when the network's score
lead for Black after them lies within [--min, --max] points. Each opening is written twice
(`NNN-a.sgf`, `NNN-b.sgf`) so that games 2k and 2k+1 (colours swapped) start alike.

    scripts/make_openings.py --model M --out DIR [--count 50] [--plies 4] [--size 9] [--seed 1]

Needs the engine (target/release/tengen by default) for `kata-raw-nn`.
"""
import argparse
import os
import random
import subprocess
import sys

COLS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


def ask(proc, cmd):
    proc.stdin.write(cmd + "\n")
    proc.stdin.flush()
    lines = []
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("engine died on " + cmd)
        line = line.rstrip("\n")
        if line == "" and lines:
            return lines
        if line:
            lines.append(line)


def raw(proc, size):
    lines = ask(proc, "kata-raw-nn 0")
    if not lines[0].startswith("="):
        raise RuntimeError(lines[0])
    vals = {}
    policy = []
    i = 0
    while i < len(lines):
        w = lines[i].split()
        if w[0] == "policy":
            policy = [lines[i + 1 + r].split() for r in range(size)]
            i += size + 1
            continue
        if len(w) == 2:
            vals[w[0]] = w[1]
        i += 1
    moves = []
    for r, row in enumerate(policy):
        for c, v in enumerate(row):
            if v != "NAN":
                moves.append(("%s%d" % (COLS[c], size - r), float(v)))
    return float(vals["whiteLead"]), moves


def sgf_point(move, size):
    c = COLS.index(move[0])
    r = size - int(move[1:])
    return "abcdefghijklmnopqrstuvwxyz"[c] + "abcdefghijklmnopqrstuvwxyz"[r]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", default=os.path.join(os.path.dirname(__file__), "..",
                                                     "target", "release", "tengen"))
    ap.add_argument("--model", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--count", type=int, default=50)
    ap.add_argument("--plies", type=int, default=4)
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--komi", type=float, default=7.5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--min", type=float, default=-2.0)
    ap.add_argument("--max", type=float, default=1.0)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    proc = subprocess.Popen([args.engine, "--threads", "1", "--model", args.model],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, bufsize=1)
    ask(proc, "boardsize %d" % args.size)
    ask(proc, "komi %g" % args.komi)
    os.makedirs(args.out, exist_ok=True)
    seen = set()
    kept = tries = 0
    while kept < args.count and tries < 50 * args.count:
        tries += 1
        ask(proc, "clear_board")
        moves = []
        for ply in range(args.plies):
            _, cands = raw(proc, args.size)
            cands = [(m, p) for m, p in cands if p >= 0.02]
            m = rng.choices([m for m, _ in cands], weights=[p for _, p in cands])[0]
            colour = "b" if ply % 2 == 0 else "w"
            ask(proc, "play %s %s" % (colour, m))
            moves.append(m)
        if tuple(moves) in seen:
            continue
        white_lead, _ = raw(proc, args.size)
        black = -white_lead
        if not args.min <= black <= args.max:
            continue
        seen.add(tuple(moves))
        body = "".join(";%s[%s]" % ("B" if i % 2 == 0 else "W", sgf_point(m, args.size))
                       for i, m in enumerate(moves))
        text = "(;FF[4]GM[1]SZ[%d]KM[%g]C[Black leads by %.1f by the network]%s)\n" % (
            args.size, args.komi, black, body)
        for half in "ab":
            with open(os.path.join(args.out, "%03d-%s.sgf" % (kept, half)), "w") as f:
                f.write(text)
        kept += 1
    ask(proc, "quit")
    print("kept %d openings of %d tried in %s" % (kept, tries, args.out))
    return 0 if kept == args.count else 1


if __name__ == "__main__":
    sys.exit(main())
