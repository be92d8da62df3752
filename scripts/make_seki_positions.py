#!/usr/bin/env python3
"""Plays seki positions out to the end with KataGo and records what KataGo says of the
final position: the test set of issue 42 (tests/data/seki_positions.tsv).

For each SGF (a position or a game record, read from ../shared/corpora), KataGo plays both
sides from the position set up with KataGo's `set_position` (its `loadsgf` refuses
set-up stones after the root) until two passes in a row (at most 160
moves, no resignation), then answers `final_status_list dead` and `final_score` for the
final position. The row keeps the source, the moves played (GTP, after the set-up) and
KataGo's two answers, so that a test rebuilds the position from the corpus and the moves.

    scripts/make_seki_positions.py --katago 'KATAGO gtp -config C -model M' SGF... > TSV
"""
import argparse
import os
import shlex
import subprocess
import sys

from sgfmill import sgf


def setup(path):
    """The board size and `set_position` arguments of the set-up stones (in any node:
    KataGo's loadsgf refuses set-up after the root)."""
    game = sgf.Sgf_game.from_bytes(open(path, "rb").read())
    size = game.get_size()
    cols = "ABCDEFGHJKLMNOPQRST"
    stones = []
    for node in game.get_main_sequence():
        for prop, c in (("AB", "b"), ("AW", "w")):
            if node.has_property(prop):
                for r, col in node.get(prop):
                    stones.append(f"{c} {cols[col]}{r + 1}")
    return size, " ".join(stones)


def to_move(path):
    game = sgf.Sgf_game.from_bytes(open(path, "rb").read())
    root = game.get_root()
    last = None
    for node in game.get_main_sequence():
        c, _ = node.get_move()
        if c is not None:
            last = c
    if last is not None:
        return "w" if last == "b" else "b"
    if root.has_property("PL"):
        return root.get("PL")
    return "b"


class Gtp:
    def __init__(self, cmd):
        self.p = subprocess.Popen(shlex.split(cmd), stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  text=True)

    def ask(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        out = []
        while True:
            l = self.p.stdout.readline()
            if l == "":
                raise RuntimeError("engine closed")
            if l.strip() == "" and out:
                break
            if l.strip():
                out.append(l.strip())
        text = " ".join(out)
        if not text.startswith("="):
            raise RuntimeError(f"{line}: {text}")
        return text[1:].strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--katago", required=True)
    ap.add_argument("--corpora", default="../shared/corpora")
    ap.add_argument("--max-moves", type=int, default=160)
    ap.add_argument("--cleanup", action="store_true",
                    help="KataGo takes dead stones off before passing (friendlyPassOk false): "
                         "its count of the final position is then exact, not an estimate")
    ap.add_argument("sgfs", nargs="+")
    a = ap.parse_args()
    print("source\tcleanup\tmoves\tkatago_dead\tkatago_score")
    for path in a.sgfs:
        rel = os.path.relpath(os.path.abspath(path), os.path.abspath(a.corpora))
        g = Gtp(a.katago)
        size, stones = setup(path)
        g.ask(f"boardsize {size}")
        g.ask(f"set_position {stones}")
        g.ask("komi 7.5")
        if a.cleanup:
            g.ask("kata-set-rule friendlyPassOk false")
        color = to_move(path)
        moves, passes = [], 0
        while passes < 2 and len(moves) < a.max_moves:
            mv = g.ask(f"genmove {color}").lower()
            moves.append(f"{color} {mv}")
            passes = passes + 1 if mv == "pass" else 0
            color = "w" if color == "b" else "b"
        dead = g.ask("final_status_list dead")
        score = g.ask("final_score")
        g.p.stdin.close()
        g.p.wait()
        print(f"{rel}\t{int(a.cleanup)}\t{' '.join(moves)}\t{dead}\t{score}", flush=True)
        print(f"{rel}: {len(moves)} moves, dead [{dead}], {score}", file=sys.stderr)


if __name__ == "__main__":
    main()
