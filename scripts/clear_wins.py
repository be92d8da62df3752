#!/usr/bin/env python3
"""Issue 9's check of live analysis on positions from real games where one move clearly
wins: the side to move can capture a big opponent chain in atari (at least --stones
stones) that its owner could otherwise save (three liberties by extending, or a capture
next to it; --any-capture drops this condition), or must save its own big chain in atari by the one move that gives it three
liberties or more (the only saving move: no neighbour of the chain can be captured
instead), and the strong player of the record (computer-go-dataset-ai, 19x19)
played exactly that move. For each of --count positions (one per game), Tengen runs
`kata-analyze` for --seconds on 2 threads; its top candidate (order 0 of the last update)
must be the move.

    scripts/clear_wins.py [--tengen target/release/tengen] [--count 20] [--seconds 2]

Positions are found by replaying the records with sgfmill (an independent board), in file
order, so the set is the same every run. Prints one line per position and the tally.
"""
import argparse, glob, os, subprocess, sys, time

from sgfmill import sgf, boards

ap = argparse.ArgumentParser()
ap.add_argument("--tengen", default="target/release/tengen")
ap.add_argument("--count", type=int, default=20)
ap.add_argument("--seconds", type=float, default=2.0)
ap.add_argument("--stones", type=int, default=6)
ap.add_argument("--any-capture", action="store_true",
                help="count captures of chains that could not escape too (the selection before 2026-12-03's fourth session)")
args = ap.parse_args()

here = os.path.dirname(os.path.abspath(__file__))
corpus = os.path.join(here, "..", "..", "shared", "corpora", "computer-go-dataset-ai")
COLS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


def chain(board, r, c):
    color = board.get(r, c)
    seen, libs, todo = {(r, c)}, set(), [(r, c)]
    n = board.side
    while todo:
        y, x = todo.pop()
        for dy, dx in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            yy, xx = y + dy, x + dx
            if 0 <= yy < n and 0 <= xx < n:
                v = board.get(yy, xx)
                if v is None:
                    libs.add((yy, xx))
                elif v == color and (yy, xx) not in seen:
                    seen.add((yy, xx))
                    todo.append((yy, xx))
    return seen, libs


def libs_after(board, color, pt):
    b = board.copy()
    try:
        b.play(pt[0], pt[1], color)
    except ValueError:
        return -1
    if b.get(*pt) != color:
        return -1
    return len(chain(b, *pt)[1])


def saved_by_capture(board, color, stones):
    """Whether `color` can give its chain `stones` a liberty by capturing a neighbour."""
    n = board.side
    for y, x in stones:
        for dy, dx in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            yy, xx = y + dy, x + dx
            if 0 <= yy < n and 0 <= xx < n and board.get(yy, xx) not in (None, color):
                if len(chain(board, yy, xx)[1]) == 1:
                    return True
    return False


def clear_move(board, color):
    """The one clearly winning move for `color`, if the position has one."""
    other = "w" if color == "b" else "b"
    n = board.side
    seen = set()
    found = []
    for r in range(n):
        for c in range(n):
            if (r, c) in seen or board.get(r, c) is None:
                continue
            stones, libs = chain(board, r, c)
            seen |= stones
            if len(stones) < args.stones or len(libs) != 1:
                continue
            (lib,) = libs
            if board.get(r, c) == other:
                # A capture clearly wins only where it is urgent: the owner could save
                # the chain otherwise (as a save must: three liberties by the extension,
                # or a neighbour of the chain captured). A chain that cannot escape can
                # be taken later, and the capture is one good move among others.
                urgent = libs_after(board, other, lib) >= 3 or saved_by_capture(board, other, stones)
                if libs_after(board, color, lib) >= 1 and (urgent or args.any_capture):
                    found.append(("capture", len(stones), lib))
            elif libs_after(board, color, lib) >= 3 and not saved_by_capture(board, color, stones):
                # The extension is the only saving move: capturing a neighbour in atari
                # would be a second one (and the position no clear test).
                found.append(("save", len(stones), lib))
    # One clear answer only: several big chains in atari make the position murky.
    if len({f[2] for f in found}) == 1:
        return found[0]
    return None


def vertex(pt, n):
    r, c = pt
    return f"{COLS[c]}{r + 1}"


def positions():
    files = sorted(glob.glob(os.path.join(corpus, "**", "*.sgf"), recursive=True))
    for path in files:
        try:
            game = sgf.Sgf_game.from_bytes(open(path, "rb").read())
        except Exception:
            continue
        if game.get_size() != 19:
            continue
        board = boards.Board(19)
        try:
            ok = board.apply_setup(*game.get_root().get_setup_stones())
        except Exception:
            continue
        seq = [node.get_move() for node in game.get_main_sequence()[1:]]
        for k, (color, mv) in enumerate(seq):
            if color is None:
                continue
            if mv is not None and k >= 20:
                clear = clear_move(board, color)
                if clear is not None and clear[2] == mv:
                    yield path, k, color, clear
                    break
            if mv is not None:
                try:
                    board.play(mv[0], mv[1], color)
                except ValueError:
                    break


def top_candidate(path, k, color, seconds):
    p = subprocess.Popen([args.tengen, "--threads", "2"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
    p.stdin.write(f"loadsgf {path} {k + 1}\n")
    p.stdin.flush()
    assert p.stdout.readline().startswith("="), "loadsgf failed"
    p.stdout.readline()
    p.stdin.write(f"kata-analyze {color} 20\n")
    p.stdin.flush()
    assert p.stdout.readline().startswith("=")
    last = None
    t0 = time.time()
    while time.time() - t0 < seconds:
        line = p.stdout.readline()
        if line.startswith("info "):
            last = line
    p.stdin.write("quit\n")
    p.stdin.flush()
    p.communicate(timeout=10)
    if last is None:
        return None
    return last


def summary(info, want, n=3):
    """The first n segments of an `info` line, and the wanted move's, as 'MOVE visits winrate'."""
    segs = [s.split() for s in info.split("info ")[1:]]
    out = []
    for i, t in enumerate(segs):
        if i < n or t[1] == want:
            out.append(f"{t[1]} {t[t.index('visits') + 1]} {float(t[t.index('winrate') + 1]):.3f}")
    return ", ".join(out)


hits = 0
done = 0
for path, k, color, (kind, size, pt) in positions():
    want = vertex(pt, 19)
    info = top_candidate(path, k, color, args.seconds)
    got = info.split()[2] if info else None
    ok = got == want
    hits += ok
    done += 1
    name = os.path.relpath(path, corpus)
    print(f"{'ok  ' if ok else 'MISS'} {name} move {k + 1}: {color} {kind} {size} stones at {want}; "
          f"Tengen's top: {got}" + ("" if ok or not info else f" ({summary(info, want)})"))
    sys.stdout.flush()
    if done == args.count:
        break
print(f"positions={done} top_move_right={hits}")
