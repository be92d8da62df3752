#!/usr/bin/env python3
"""Checks how the games of `tengen match` folders ended (the game-end acceptance of
issue 8), with sgfmill's board, independent of Tengen's:

- every game ends by two passes or a resignation (a loss on time is listed apart: the
  runner ended it, not the players);
- on every game that ends in passes, both engines' final_score named the same result
  (the runner's `scorer` column says `engines`, not `referee` or `tengen`);
- Tengen never answers an opponent's pass with a stone inside the opponent's settled
  area: an empty region of the board at that moment that only the opponent's stones
  border and that holds at most half of the empty points, on a board at most half
  empty, unless the stone captures (the engine's own rule also asks that the stones be alive, which this board
  cannot judge; on a mostly open board an early pass is answered with play anywhere:
  docs/gtp.md, "The clock and the end of the game");
- Tengen never passes over an atari: right after an opponent's stone that leaves a chain
  of Tengen's beside it with one liberty, which extending would give two or more,
  Tengen does not pass (it passed so in 5 of 7 lost 9x9 games against GNU Go at
  f6b1af8, and the chain was captured).

With `--tromp-taylor`, also: on every game that ends in passes, the Tromp-Taylor count of
the final board (every stone alive: stones plus empty regions only one colour reaches,
komi from KM) equals the recorded result, which the two engines agreed on (so every dead
stone was captured before the passes).

Usage: scripts/game_end_check.py [--tromp-taylor] RUN_DIR... (needs `pip install
sgfmill`); a folder's game-*.sgf, or its games.tar.gz when the games are archived. Prints one line per folder and the offending moves; exits 1 if any check
fails.
"""
import csv
import glob
import os
import sys
import tarfile
import tempfile

from sgfmill import boards, sgf


def flood(board, size, row, col):
    """The points connected to (row, col) that hold what it holds (a chain, or an empty
    region), the empty points next to them, and the colours of the stones next to them."""
    kind = board.get(row, col)
    seen = {(row, col)}
    stack = [(row, col)]
    empties, colours = set(), set()
    while stack:
        r, c = stack.pop()
        for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if not (0 <= nr < size and 0 <= nc < size) or (nr, nc) in seen:
                continue
            v = board.get(nr, nc)
            if v == kind:
                seen.add((nr, nc))
                stack.append((nr, nc))
            elif v is None:
                empties.add((nr, nc))
            else:
                colours.add(v)
    return seen, empties, colours


def captures(board, row, col, colour):
    """Whether `colour` playing at (row, col) captures stones (a stone in atari inside an
    area is no throw-in)."""
    other = "w" if colour == "b" else "b"
    trial = board.copy()
    before = sum(1 for c, _ in trial.list_occupied_points() if c == other)
    try:
        trial.play(row, col, colour)
    except ValueError:
        return False
    return sum(1 for c, _ in trial.list_occupied_points() if c == other) < before


def region_owner(board, size, row, col):
    """The colour that alone borders the empty region of (row, col), else None."""
    border = flood(board, size, row, col)[2]
    return border.pop() if len(border) == 1 else None


def tromp_taylor(board, size, komi):
    """The Tromp-Taylor result of `board` in the SGF form (`B+3.5`, `W+0.5`, `0`)."""
    area = {"b": 0, "w": 0}
    for r in range(size):
        for c in range(size):
            colour = board.get(r, c)
            if colour is not None:
                area[colour] += 1
            else:
                owner = region_owner(board, size, r, c)
                if owner is not None:
                    area[owner] += 1
    margin = area["b"] - area["w"] - komi
    if margin == 0:
        return "0"
    text = f"{abs(margin):g}"
    return ("B+" if margin > 0 else "W+") + text


def liberties(board, size, row, col):
    """The liberties of the chain at (row, col)."""
    return flood(board, size, row, col)[1]


def ataris_beside(board, size, point, colour):
    """Whether a chain of `colour` next to `point` has one liberty, and extending on it
    would give the chain two liberties or more (a chain that cannot be saved so may be
    given up)."""
    r, c = point
    for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
        if 0 <= nr < size and 0 <= nc < size and board.get(nr, nc) == colour:
            libs = liberties(board, size, nr, nc)
            if len(libs) == 1:
                (lr, lc), = libs
                after = board.copy()
                try:
                    after.play(lr, lc, colour)
                except ValueError:
                    continue
                if after.get(lr, lc) == colour and len(liberties(after, size, lr, lc)) >= 2:
                    return True
    return False


def check_game(path, tt=False):
    """(ended_properly, violations, tengen_colour, ends_in_passes, Tromp-Taylor result,
    recorded result, passes over an atari)."""
    with open(path, "rb") as f:
        game = sgf.Sgf_game.from_bytes(f.read())
    root = game.get_root()
    size = game.get_size()
    names = {c: (root.get(p) if root.has_property(p) else "") for c, p in (("b", "PB"), ("w", "PW"))}
    tengen = next((c for c, n in names.items() if "tengen" in n.lower()), None)
    result = root.get("RE") if root.has_property("RE") else ""
    board = boards.Board(size)
    komi = game.get_komi()
    moves = []
    violations = []
    passed_over = []
    for node in game.get_main_sequence()[1:]:
        colour, point = node.get_move()
        if colour is None:
            continue
        if point is None and colour == tengen and moves and moves[-1][1] is not None:
            if ataris_beside(board, size, moves[-1][1], colour):
                passed_over.append(len(moves) + 1)
        if point is not None and colour == tengen and moves and moves[-1][1] is None:
            if board.get(*point) is None:
                region, _, border = flood(board, size, *point)
                empty = sum(
                    board.get(r, c) is None for r in range(size) for c in range(size)
                )
                settled = len(border) == 1 and 2 * len(region) <= empty
                if (
                    settled
                    and 2 * empty <= size * size
                    and border.pop() != colour
                    and not captures(board, *point, colour)
                ):
                    violations.append((len(moves) + 1, point))
        if point is not None:
            try:
                board.play(point[0], point[1], colour)
            except ValueError:
                pass
        moves.append((colour, point))
    passes = len(moves) >= 2 and moves[-1][1] is None and moves[-2][1] is None
    resigned = result.upper().endswith("+R") or result.upper().endswith("+RESIGN")
    on_time = result.upper().endswith("+T") or result.upper().endswith("+TIME")
    ended = "passes" if passes else "resign" if resigned else "time" if on_time else None
    tt_result = tromp_taylor(board, size, komi) if tt and passes else None
    return ended, violations, tengen, passes, tt_result, result, passed_over


def main():
    ok = True
    args = sys.argv[1:]
    tt = "--tromp-taylor" in args
    args = [a for a in args if a != "--tromp-taylor"]
    for run in args:
        scorer = {}
        tsv = os.path.join(run, "results.tsv")
        if os.path.exists(tsv):
            with open(tsv) as f:
                for row in csv.DictReader(f, delimiter="\t"):
                    scorer[int(row["game"])] = row["scorer"]
        games = sorted(glob.glob(os.path.join(run, "game-*.sgf")))
        archive = os.path.join(run, "games.tar.gz")
        if not games and os.path.exists(archive):
            unpacked = tempfile.mkdtemp()
            with tarfile.open(archive) as tar:
                tar.extractall(unpacked, filter="data")
            games = sorted(glob.glob(os.path.join(unpacked, "game-*.sgf")))
        bad_end, disagree, moves_in, timed, tt_bad, atari_passes = [], [], [], [], [], []
        n_passes = 0
        for path in games:
            number = int(os.path.basename(path)[5:8])
            ended, violations, _, passes, tt_result, recorded, passed_over = check_game(path, tt)
            atari_passes += [(number, m) for m in passed_over]
            if tt_result is not None and tt_result != recorded:
                tt_bad.append((number, tt_result, recorded))
            if ended is None:
                bad_end.append(number)
            elif ended == "time":
                timed.append(number)
            if passes:
                n_passes += 1
                if scorer.get(number, "engines") != "engines":
                    disagree.append((number, scorer.get(number)))
            for move, point in violations:
                moves_in.append((number, move, point))
        print(
            f"{run}: {len(games)} games, {n_passes} end in passes; "
            f"ended on time {len(timed)}; "
            f"ended otherwise {len(bad_end)}; "
            f"final_score disagreements {len(disagree)}; "
            f"Tengen stones in the opponent's area after a pass {len(moves_in)}; "
            f"passes over an atari {len(atari_passes)}"
            + (f"; Tromp-Taylor count differs from the result {len(tt_bad)}" if tt else "")
        )
        for g, t, r in tt_bad:
            print(f"  game {g}: Tromp-Taylor count {t}, result {r}")
        for g in timed:
            print(f"  game {g}: a loss on time")
        for g in bad_end:
            print(f"  game {g}: neither two passes nor a resignation")
        for g, s in disagree:
            print(f"  game {g}: counted by {s} (the engines disagreed)")
        for g, m, p in moves_in:
            print(f"  game {g} move {m}: Tengen at {p} inside the opponent's area after a pass")
        for g, m in atari_passes:
            print(f"  game {g} move {m}: Tengen passed, leaving its chain in atari")
        ok &= not (bad_end or disagree or moves_in or tt_bad or atari_passes)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
