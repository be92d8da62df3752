#!/usr/bin/env python3
"""Checks a `tengen match` folder played against scripts/early_passer.py.

For each game: the move at which the early passer passed (if it did), Tengen's answer
to it (a move or a pass) and the result. Prints one line a game, then a summary:
games, Tengen's wins, games where the passer passed, and answers that were passes
(each must then be a Tengen win by the count). Exit status 1 if Tengen answered an
early pass with a pass and lost, or passed while more than half the board was empty.

Usage: scripts/early_pass_check.py RUN_DIR [--tengen-name Tengen]
(RUN_DIR's game-*.sgf, or its games.tar.gz when the games are archived.)
The board is sgfmill's (pip install sgfmill), so captures count.
"""

import argparse
import glob
import os
import re
import sys

from sgfmill import boards

MOVE = re.compile(r";([BW])\[([a-z]{0,2})\]")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run_dir")
    p.add_argument("--tengen-name", default="Tengen")
    args = p.parse_args()
    games = sorted(glob.glob(os.path.join(args.run_dir, "game-*.sgf")))
    archive = os.path.join(args.run_dir, "games.tar.gz")
    if not games and os.path.exists(archive):
        import tarfile
        import tempfile

        unpacked = tempfile.mkdtemp()
        with tarfile.open(archive) as tar:
            tar.extractall(unpacked, filter="data")
        games = sorted(glob.glob(os.path.join(unpacked, "game-*.sgf")))
    wins = passed = answered_pass = bad = 0
    for path in games:
        text = open(path, encoding="utf-8").read()
        size = int(re.search(r"SZ\[(\d+)\]", text).group(1))
        pb = re.search(r"PB\[([^\]]*)\]", text).group(1)
        tengen = "B" if pb.startswith(args.tengen_name) else "W"
        result = re.search(r"RE\[([^\]]*)\]", text)
        result = result.group(1) if result else "?"
        won = result.startswith(tengen + "+")
        wins += won
        moves = MOVE.findall(text)
        board = boards.Board(size)
        line = f"{os.path.basename(path)} tengen={tengen} result={result}"
        for i, (colour, where) in enumerate(moves):
            is_pass = where in ("", "tt") and not (where == "tt" and size > 19)
            if colour != tengen and is_pass:
                passed += 1
                answer = moves[i + 1] if i + 1 < len(moves) else None
                answer_pass = answer is not None and answer[1] in ("", "tt")
                stones = len(board.list_occupied_points())
                open_board = 2 * (size * size - stones) > size * size
                line += f" passer_passed_at={i + 1} stones={stones}"
                line += " answer=" + ("pass" if answer_pass else (answer[1] if answer else "none"))
                if answer_pass:
                    answered_pass += 1
                    if not won or open_board:
                        bad += 1
                        line += " BAD"
                break
            if not is_pass:
                col, row = ord(where[0]) - 97, ord(where[1]) - 97
                board.play(size - 1 - row, col, colour.lower())
        print(line)
    n = len(games)
    print(
        f"games={n} tengen_wins={wins} passer_passed={passed} "
        f"answered_with_pass={answered_pass} bad={bad}"
    )
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
