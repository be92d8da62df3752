#!/usr/bin/env python3
"""`tengen analysis` against `katago analysis`, side by side: the same JSON queries on the
same network at equal visits, answers compared position by position (issue 41's
acceptance: "same best move or win rates within 0.05 at equal visits").

What it does, for each board size in turn (9x9, then 19x19):

1. Picks positions from real game records in ../shared/corpora (see its README): finished
   games (an RE property) of that size without handicap or set-up stones, colours
   alternating, read with sgfmill and replayed on an independent board (no suicide, no
   repeated whole-board position, stopping at the first pass), so every move is legal for
   both engines. --positions games are drawn (seeded) and one position taken from each,
   the phases in turn: opening (5-20% of the usable moves), middle game (35-60%), endgame
   (70-95%). 9x9 from fuego-regression/sgf/games and gnugo-regression/games, 19x19 from
   computer-go-dataset-ai and gnugo-regression/games.
2. Starts one Tengen and one KataGo analysis engine (one process each, at the same time,
   one position at a time each: the machine has 2 cores) and writes every query to both:
   `moves` up to the position, `analyzeTurns` [that turn], rules "chinese", komi from the
   record (7.5 if absent), maxVisits --visits, includeOwnership false, overrideSettings
   reportAnalysisWinratesAs BLACK (win rates and score leads both from Black's side).
3. Collects each engine's final answer (isDuringSearch false) per (id, turnNumber) and
   compares: best move (moveInfos order 0), rootInfo.winrate, rootInfo.scoreLead. A
   position agrees when the best move is the same OR |win rate difference| <= --tolerance
   (0.05).

Engines:

- Tengen: `tengen analysis -model M -config x -analysis-threads W -override-config
  numSearchThreadsPerAnalysisThread=T` (Tengen reads no config file; W positions at a
  time, T threads a search, both 1 by default as KataGo's). The binary (--tengen, default
  target/release/tengen) is copied to a temporary folder first, since others rebuild it.
  The network is fetched with scripts/fetch-model.sh when missing.
- KataGo 1.17.2 (--katago, default ~/.cache/tengen-anchors/katago/katago, built by
  /work/shared/anchors/build-katago.sh when missing) with the same network, `katago
  analysis -model M -config C`, C written to a temporary file (a copy is saved in --out)
  from KataGo's own cpp/configs/analysis_example.cfg (read from the source tarball in
  /work/shared/anchors) with these keys changed, and nothing else:
    wideRootNoise = 0.0            the analysis engine's default is 0.04, random noise
                                   that widens the root's exploration; Tengen has none, and
                                   it would spread KataGo's own answers (issue 41's brief)
    numAnalysisThreads = W         positions searched at once (1): one KataGo process on a
                                   shared 2-core machine, beside one Tengen
    numSearchThreadsPerAnalysisThread = T
                                   threads a search (1), as Tengen's: more threads change the
                                   tree through virtual losses, not only its speed
    maxBoardXSizeForNNBuffer = maxBoardYSizeForNNBuffer = size, requireMaxBoardSize = true
                                   speed only: otherwise a 9x9 position is evaluated in a
                                   19x19 buffer under a mask (here, under load: 200 visits
                                   on 9x9 took 45 s instead of 14 s); the mask is exact, so the
                                   outputs do not change beyond rounding
    nnCacheSizePowerOfTwo = 20, nnMutexPoolSizePowerOfTwo = 14
                                   memory only (the example's 2^23 entries are for a GPU
                                   server); a few thousand evaluations never fill 2^20
    logDir                         a temporary folder, not ./analysis_logs
  Left as the example and the analysis engine's defaults: reportAnalysisWinratesAs = BLACK,
  nnRandomize = true (a random symmetry each evaluation, as Tengen's search), and the
  analysis-only defaults ignorePreRootHistory = true (the network sees no moves before the
  root at the root), rootSymmetryPruning = true, passing hacks on. --katago-override k=v,...
  passes more keys to KataGo's -override-config (e.g. ignorePreRootHistory=false, to see
  how much of a difference the history makes).

Reading the figures: Tengen's rootInfo.winrate is its most visited move's win rate
(src/search/analysis.rs), KataGo's the mean over the whole tree with the root's own
evaluation counted as one visit; summary.json and the totals also give the difference with
Tengen's visit-weighted mean over its moves in its place (a diagnostic only: the verdict
uses rootInfo.winrate as the issue says). Tengen runs the same query the same way every
time; KataGo draws its symmetries afresh in each process (nnRandomize), so its own win
rates move by a few hundredths from run to run on sharp 9x9 positions.

Output (--out, default /tmp/analysis_vs_katago/): queries.jsonl (each query with its
record, phase and turn), tengen.jsonl and katago.jsonl (every line each engine wrote, raw),
katago_SIZE.cfg, table.txt (what is printed) and summary.json. Exit status 1 when a board
size's agreement rate is below --min-agreement (default 1.0: any disagreeing position), 2
on a setup or engine failure.

    scripts/analysis_vs_katago.py [--visits 200] [--positions 30] [--sizes 9 19]
        [--out /tmp/analysis_vs_katago] [--min-agreement 1.0] [--tolerance 0.05]
        [--seed 41] [--workers 1] [--threads 1] [--tengen PATH] [--katago PATH]
        [--tengen-model PATH] [--katago-model PATH] [--katago-override k=v,...]
"""

import argparse
import json
import os
import queue
import random
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time

from sgfmill import boards, sgf

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
HOME = os.path.expanduser("~")
CORPORA = os.path.normpath(os.path.join(ROOT, "..", "shared", "corpora"))
ANCHORS = os.path.normpath(os.path.join(ROOT, "..", "shared", "anchors"))
KATAGO_DIR = os.path.join(HOME, ".cache/tengen-anchors/katago")
NET = "b10c384h6nbttflrs.bin.gz"
COLUMNS = "ABCDEFGHJKLMNOPQRST"

SOURCES = {
    9: ["fuego-regression/sgf/games", "gnugo-regression/games"],
    19: ["computer-go-dataset-ai", "gnugo-regression/games"],
}
# Fractions of a record's usable moves each phase takes its position from.
PHASES = [("opening", 0.05, 0.20), ("middle", 0.35, 0.60), ("endgame", 0.70, 0.95)]
# Fewest usable moves a record needs.
MIN_MOVES = {9: 30, 19: 100}


def die(msg):
    print(f"analysis_vs_katago: {msg}", file=sys.stderr)
    sys.exit(2)


# ----------------------------------------------------------------------------------------
# Positions


def vertex(move):
    row, col = move
    return f"{COLUMNS[col]}{row + 1}"


def usable_moves(game, size):
    """The record's moves as (colour, vertex) up to the first pass, an illegal move (occupied,
    suicide) or a repeated whole-board position; None when colours do not alternate."""
    board = boards.Board(size)
    seen = {tuple(map(tuple, board.board))}
    out = []
    for node in game.get_main_sequence()[1:]:
        colour, move = node.get_move()
        if colour is None:
            if node.has_property("AB") or node.has_property("AW") or node.has_property("AE"):
                break
            continue
        if out and out[-1][0] == colour.upper():
            return None
        if not out and colour != "b":
            return None
        if move is None:
            break
        row, col = move
        if board.get(row, col) is not None:
            break
        try:
            board.play(row, col, colour)
        except ValueError:
            break
        if board.get(row, col) is None:  # self-capture: sgfmill plays it, the rules do not
            break
        key = tuple(map(tuple, board.board))
        if key in seen:
            break
        seen.add(key)
        out.append((colour.upper(), vertex(move)))
    return out


def candidate_records(size):
    """Records of that size that pass the cheap checks: finished (RE), no handicap or set-up
    stones, a sane komi. Sorted by path."""
    found = []
    for rel in SOURCES[size]:
        top = os.path.join(CORPORA, rel)
        for dirpath, dirnames, filenames in os.walk(top):
            for name in filenames:
                if not name.lower().endswith(".sgf"):
                    continue
                path = os.path.join(dirpath, name)
                try:
                    with open(path, "rb") as f:
                        game = sgf.Sgf_game.from_bytes(f.read())
                    if game.get_size() != size:
                        continue
                    root = game.get_root()
                    if any(root.has_property(p) for p in ("AB", "AW", "AE")):
                        continue
                    if root.has_property("HA") and int(root.get("HA") or 0) > 1:
                        continue
                    if not root.has_property("RE"):
                        continue
                    komi = game.get_komi() if root.has_property("KM") else 7.5
                except Exception:
                    continue
                if not (abs(komi) <= 150 and float(komi * 2).is_integer()):
                    continue
                found.append((os.path.relpath(path, CORPORA), komi, game))
    return sorted(found, key=lambda r: r[0])


def pick_positions(size, count, seed):
    """`count` records drawn in a seeded order, each replayed (usable_moves) and kept when
    it has enough legal moves; one position from each, the phases in turn."""
    records = candidate_records(size)
    rng = random.Random(f"{seed}-{size}")
    rng.shuffle(records)
    positions = []
    for path, komi, game in records:
        if len(positions) == count:
            break
        moves = usable_moves(game, size)
        if moves is None or len(moves) < MIN_MOVES[size]:
            continue
        phase, lo, hi = PHASES[len(positions) % len(PHASES)]
        n = len(moves)
        turn = rng.randint(max(1, int(n * lo)), max(1, int(n * hi)))
        positions.append(
            {
                "id": f"s{size}-{len(positions):02d}",
                "size": size,
                "record": path,
                "phase": phase,
                "turn": turn,
                "komi": komi,
                "moves": moves[:turn],
            }
        )
    if len(positions) < count:
        die(f"only {len(positions)} usable {size}x{size} records, {count} asked")
    return positions


def query_of(p, visits):
    return {
        "id": p["id"],
        "moves": [list(m) for m in p["moves"]],
        "rules": "chinese",
        "komi": p["komi"],
        "boardXSize": p["size"],
        "boardYSize": p["size"],
        "analyzeTurns": [p["turn"]],
        "maxVisits": visits,
        "includeOwnership": False,
        "overrideSettings": {"reportAnalysisWinratesAs": "BLACK"},
    }


# ----------------------------------------------------------------------------------------
# Engines


def katago_config(size, args, logdir):
    """KataGo's analysis_example.cfg with the keys of the module docstring changed."""
    with tarfile.open(os.path.join(ANCHORS, "katago-1.17.2.tar.gz")) as tar:
        member = next(
            m for m in tar.getmembers() if m.name.endswith("cpp/configs/analysis_example.cfg")
        )
        text = tar.extractfile(member).read().decode()
    changed = {
        "logDir": logdir,
        "wideRootNoise": "0.0",
        "numAnalysisThreads": str(args.workers),
        "numSearchThreadsPerAnalysisThread": str(args.threads),
        "maxBoardXSizeForNNBuffer": str(size),
        "maxBoardYSizeForNNBuffer": str(size),
        "requireMaxBoardSize": "true",
        "nnCacheSizePowerOfTwo": "20",
        "nnMutexPoolSizePowerOfTwo": "14",
    }
    lines = []
    for line in text.splitlines():
        key = line.split("=", 1)[0].strip()
        if "=" in line and not line.lstrip().startswith("#") and key in changed:
            line = "# (set below by analysis_vs_katago.py) " + line
        lines.append(line)
    lines.append("")
    lines.append("# --- analysis_vs_katago.py (see the script's docstring for why) ---")
    lines += [f"{k} = {v}" for k, v in changed.items()]
    return "\n".join(lines) + "\n"


class Engine:
    """One analysis engine: queries written to stdin, every stdout line saved raw and the
    final answers handed over by (id, turnNumber)."""

    def __init__(self, name, argv, raw_path, expected):
        self.name = name
        self.argv = argv
        self.raw = open(raw_path, "a")
        self.expected = expected
        self.answers = {}
        self.errors = {}
        self.lines = queue.Queue()
        self.stderr_tail = []
        self.p = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.raw.write(line)
            self.raw.flush()
            self.lines.put(line)
        self.lines.put(None)

    def _read_err(self):
        for line in self.p.stderr:
            self.stderr_tail = (self.stderr_tail + [line.rstrip()])[-20:]

    def send(self, q):
        self.p.stdin.write(json.dumps(q) + "\n")
        self.p.stdin.flush()

    def done(self):
        return all(k in self.answers or k[0] in self.errors for k in self.expected)

    def pump(self, timeout):
        """Handles the lines that came within `timeout` seconds; False at end of output."""
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            return True
        while True:
            if line is None:
                return False
            try:
                d = json.loads(line)
            except ValueError:
                d = None
            if isinstance(d, dict):
                if "error" in d and "id" in d:
                    self.errors[d["id"]] = d["error"]
                elif "moveInfos" in d and not d.get("isDuringSearch", False):
                    self.answers[(d["id"], d["turnNumber"])] = d
            try:
                line = self.lines.get_nowait()
            except queue.Empty:
                return True

    def close(self):
        try:
            self.p.stdin.close()
        except OSError:
            pass
        try:
            self.p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        self.raw.close()


def run_size(size, positions, args, tengen_bin, tmp):
    expected = [(p["id"], p["turn"]) for p in positions]
    logdir = os.path.join(tmp, f"katago_logs_{size}")
    cfg_text = katago_config(size, args, logdir)
    cfg = os.path.join(tmp, f"katago_{size}.cfg")
    with open(cfg, "w") as f:
        f.write(cfg_text)
    shutil.copy(cfg, os.path.join(args.out, f"katago_{size}.cfg"))
    katago_argv = [args.katago, "analysis", "-model", args.katago_model, "-config", cfg]
    if args.katago_override:
        katago_argv += ["-override-config", args.katago_override]
    tengen_argv = [
        tengen_bin, "analysis", "-model", args.tengen_model, "-config", "x",
        "-analysis-threads", str(args.workers),
        "-override-config", f"numSearchThreadsPerAnalysisThread={args.threads}",
    ]
    engines = [
        Engine("tengen", tengen_argv, os.path.join(args.out, "tengen.jsonl"), expected),
        Engine("katago", katago_argv, os.path.join(args.out, "katago.jsonl"), expected),
    ]
    print(f"{size}x{size}: {len(positions)} positions, {args.visits} visits", file=sys.stderr)
    for e in engines:
        print(f"  {e.name}: {' '.join(e.argv)}", file=sys.stderr)
    start = time.time()
    for p in positions:
        q = query_of(p, args.visits)
        for e in engines:
            e.send(q)
    last = {e.name: (0, time.time()) for e in engines}
    while not all(e.done() for e in engines):
        for e in engines:
            if e.done():
                continue
            if not e.pump(0.5):
                print(f"  {e.name} exited early; stderr:", file=sys.stderr)
                print("    " + "\n    ".join(e.stderr_tail), file=sys.stderr)
                die(f"{e.name} stopped before answering every {size}x{size} query")
            n = len(e.answers) + len(e.errors)
            if n != last[e.name][0]:
                last[e.name] = (n, time.time())
                print(
                    f"  {e.name}: {n}/{len(positions)} answered ({time.time() - start:.0f} s)",
                    file=sys.stderr,
                )
            elif time.time() - last[e.name][1] > args.stall:
                die(f"{e.name} answered nothing for {args.stall} s")
    for e in engines:
        e.close()
    return engines


# ----------------------------------------------------------------------------------------
# Comparison


def best(answer):
    infos = sorted(answer["moveInfos"], key=lambda m: m["order"])
    return infos[0]["move"] if infos else "-"


def top(answer, n=3):
    infos = sorted(answer["moveInfos"], key=lambda m: m["order"])[:n]
    return ", ".join(f"{m['move']} {m['visits']}v {m['winrate']:.3f}" for m in infos)


def winrate_of(answer, move):
    for m in answer["moveInfos"]:
        if m["move"].upper() == move.upper():
            return m["winrate"], m["visits"]
    return None, 0


def tree_winrate(answer):
    infos = answer["moveInfos"]
    n = sum(m["visits"] for m in infos)
    return sum(m["visits"] * m["winrate"] for m in infos) / n if n else None


def compare(positions, engines, tolerance):
    t, k = engines
    rows = []
    for p in positions:
        key = (p["id"], p["turn"])
        at, ak = t.answers.get(key), k.answers.get(key)
        row = {
            "id": p["id"], "size": p["size"], "turn": p["turn"], "phase": p["phase"],
            "record": p["record"], "komi": p["komi"],
            "to_play": "W" if p["turn"] % 2 else "B",
        }
        if at is None or ak is None:
            row["error"] = t.errors.get(p["id"]) or k.errors.get(p["id"]) or "no answer"
            row["agree"] = False
            rows.append(row)
            continue
        row.update(
            tengen_best=best(at), katago_best=best(ak),
            tengen_wr=at["rootInfo"]["winrate"], katago_wr=ak["rootInfo"]["winrate"],
            tengen_lead=at["rootInfo"]["scoreLead"], katago_lead=ak["rootInfo"]["scoreLead"],
            tengen_visits=at["rootInfo"]["visits"], katago_visits=ak["rootInfo"]["visits"],
            tengen_top=top(at), katago_top=top(ak),
        )
        row["wr_diff"] = row["tengen_wr"] - row["katago_wr"]
        # Tengen's rootInfo.winrate is its most visited move's; KataGo's the whole tree's
        # (the root's own evaluation included). The visit-weighted mean of Tengen's moves
        # is the nearer like for like; kept as a diagnostic, not for the verdict.
        row["tengen_tree_wr"] = tree_winrate(at)
        row["tree_wr_diff"] = row["tengen_tree_wr"] - row["katago_wr"]
        row["lead_diff"] = row["tengen_lead"] - row["katago_lead"]
        row["same_best"] = row["tengen_best"].upper() == row["katago_best"].upper()
        row["agree"] = row["same_best"] or abs(row["wr_diff"]) <= tolerance
        # How each engine rates the other's choice (move win rates are from Black's side).
        row["katago_on_tengen_best"] = winrate_of(ak, row["tengen_best"])
        row["tengen_on_katago_best"] = winrate_of(at, row["katago_best"])
        rows.append(row)
    return rows


def table(rows):
    head = (
        f"{'position':<9} {'phase':<7} {'turn':>4} {'pl':>2} {'komi':>5}  "
        f"{'T best':<6} {'K best':<6}  {'T wr':>6} {'K wr':>6} {'diff':>7}  "
        f"{'T lead':>7} {'K lead':>7}  {'visits T/K':>10}  agree"
    )
    out = [head, "-" * len(head)]
    for r in rows:
        if "error" in r:
            out.append(f"{r['id']:<9} {r['phase']:<7} {r['turn']:>4}  error: {r['error']}")
            continue
        out.append(
            f"{r['id']:<9} {r['phase']:<7} {r['turn']:>4} {r['to_play']:>2} {r['komi']:>5}  "
            f"{r['tengen_best']:<6} {r['katago_best']:<6}  {r['tengen_wr']:6.3f} "
            f"{r['katago_wr']:6.3f} {r['wr_diff']:+7.3f}  {r['tengen_lead']:7.2f} "
            f"{r['katago_lead']:7.2f}  {r['tengen_visits']:>4}/{r['katago_visits']:<5}  "
            f"{'yes' if r['agree'] else 'NO'}{'' if r['same_best'] else ' (other move)'}"
        )
    return out


def totals(rows):
    ok = [r for r in rows if "error" not in r]
    n = len(rows)
    return {
        "positions": n,
        "answered": len(ok),
        "agree": sum(r["agree"] for r in rows),
        "agreement_rate": sum(r["agree"] for r in rows) / n if n else 0.0,
        "same_best_rate": sum(r["same_best"] for r in ok) / n if n else 0.0,
        "mean_abs_wr_diff": statistics.mean(abs(r["wr_diff"]) for r in ok) if ok else None,
        "max_abs_wr_diff": max((abs(r["wr_diff"]) for r in ok), default=None),
        "mean_abs_lead_diff": statistics.mean(abs(r["lead_diff"]) for r in ok) if ok else None,
        "mean_abs_tree_wr_diff": (
            statistics.mean(abs(r["tree_wr_diff"]) for r in ok) if ok else None
        ),
        "by_phase": {
            ph: {
                "positions": sum(r["phase"] == ph for r in rows),
                "agree": sum(r["agree"] for r in rows if r["phase"] == ph),
                "same_best": sum(r.get("same_best", False) for r in rows if r["phase"] == ph),
            }
            for ph, _, _ in PHASES
        },
    }


def disagreement_lines(rows, tolerance):
    out = []
    for r in rows:
        if r["agree"]:
            continue
        if "error" in r:
            out.append(f"{r['id']} ({r['record']} turn {r['turn']}): {r['error']}")
            continue
        kt, kt_v = r["katago_on_tengen_best"]
        tk, tk_v = r["tengen_on_katago_best"]
        out.append(
            f"{r['id']} {r['record']} turn {r['turn']} ({r['phase']}, {r['to_play']} to play, "
            f"komi {r['komi']}): best T {r['tengen_best']} / K {r['katago_best']}, "
            f"win rate diff {r['wr_diff']:+.3f} (> {tolerance})"
        )
        out.append(f"    Tengen top: {r['tengen_top']}")
        out.append(f"    KataGo top: {r['katago_top']}")
        out.append(
            f"    KataGo on Tengen's {r['tengen_best']}: "
            + (f"{kt:.3f} ({kt_v} visits)" if kt is not None else "not searched")
            + f"; Tengen on KataGo's {r['katago_best']}: "
            + (f"{tk:.3f} ({tk_v} visits)" if tk is not None else "not searched")
        )
    return out


# ----------------------------------------------------------------------------------------


def prepare(args):
    if not os.path.exists(args.tengen_model):
        print("analysis_vs_katago: fetching the network", file=sys.stderr)
        path = subprocess.run(
            ["bash", os.path.join(HERE, "fetch-model.sh")],
            check=True, capture_output=True, text=True,
        ).stdout.strip().splitlines()[-1]
        args.tengen_model = path
    if not (os.path.exists(args.katago) and os.path.exists(args.katago_model)):
        print("analysis_vs_katago: building KataGo", file=sys.stderr)
        subprocess.run(["bash", os.path.join(ANCHORS, "build-katago.sh")], check=True)
    for what, path in [
        ("tengen", args.tengen), ("tengen model", args.tengen_model),
        ("katago", args.katago), ("katago model", args.katago_model),
    ]:
        if not os.path.exists(path):
            die(f"{what} not found: {path}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--visits", type=int, default=200, help="maxVisits of every query")
    ap.add_argument("--positions", type=int, default=30, help="positions per board size")
    ap.add_argument("--sizes", type=int, nargs="+", default=[9, 19], choices=[9, 19])
    ap.add_argument("--out", default="/tmp/analysis_vs_katago/")
    ap.add_argument("--min-agreement", type=float, default=1.0,
                    help="agreement rate each size must reach for exit status 0")
    ap.add_argument("--tolerance", type=float, default=0.05,
                    help="largest |win rate difference| that agrees with another best move")
    ap.add_argument("--seed", default="41", help="seed of the choice of positions")
    ap.add_argument("--workers", type=int, default=1, help="positions at a time per engine")
    ap.add_argument("--threads", type=int, default=1, help="search threads per position")
    ap.add_argument("--stall", type=float, default=1800,
                    help="give up when an engine answers nothing for this many seconds")
    ap.add_argument("--tengen", default=os.path.join(ROOT, "target/release/tengen"))
    ap.add_argument("--tengen-model",
                    default=os.path.join(HOME, ".local/share/tengen", NET))
    ap.add_argument("--katago", default=os.path.join(KATAGO_DIR, "katago"))
    ap.add_argument("--katago-model", default=os.path.join(KATAGO_DIR, NET))
    ap.add_argument("--katago-override", default="",
                    help="more KataGo config keys, k=v,... (its -override-config)")
    args = ap.parse_args()
    prepare(args)
    os.makedirs(args.out, exist_ok=True)
    for name in ("tengen.jsonl", "katago.jsonl", "queries.jsonl"):
        open(os.path.join(args.out, name), "w").close()

    tmp = tempfile.mkdtemp(prefix="analysis_vs_katago")
    tengen_bin = os.path.join(tmp, "tengen")
    shutil.copy2(args.tengen, tengen_bin)

    report, summary, failed = [], {"visits": args.visits, "tolerance": args.tolerance}, False
    report.append(
        f"tengen analysis vs katago analysis, {args.visits} visits, same network "
        f"({os.path.basename(args.katago_model)}), rules chinese, win rates and leads from "
        f"Black's side; agree = same best move or |win rate diff| <= {args.tolerance}"
    )
    report.append(f"tengen: {args.tengen} (copied to {tengen_bin}), katago: {args.katago}"
                  + (f", -override-config {args.katago_override}" if args.katago_override else ""))
    print("\n".join(report), flush=True)
    try:
        for size in args.sizes:
            positions = pick_positions(size, args.positions, args.seed)
            with open(os.path.join(args.out, "queries.jsonl"), "a") as f:
                for p in positions:
                    f.write(json.dumps({"record": p["record"], "phase": p["phase"],
                                        "query": query_of(p, args.visits)}) + "\n")
            start = time.time()
            engines = run_size(size, positions, args, tengen_bin, tmp)
            elapsed = time.time() - start
            rows = compare(positions, engines, args.tolerance)
            tot = totals(rows)
            tot["seconds"] = round(elapsed, 1)
            summary[f"{size}x{size}"] = {"totals": tot, "rows": rows}
            section = ["", f"== {size}x{size} =="]
            section += table(rows)
            section.append("")
            mw = tot["mean_abs_wr_diff"]
            ml = tot["mean_abs_lead_diff"]
            section.append(
                f"{size}x{size}: agreement {tot['agree']}/{tot['positions']} "
                f"({tot['agreement_rate']:.1%}), same best move "
                f"{tot['same_best_rate']:.1%}, mean |win rate diff| "
                + (f"{mw:.4f} (max {tot['max_abs_wr_diff']:.4f})" if mw is not None else "-")
                + ", mean |scoreLead diff| "
                + (f"{ml:.3f}" if ml is not None else "-")
                + f"; {elapsed:.0f} s"
            )
            if tot["mean_abs_tree_wr_diff"] is not None:
                section.append(
                    "  mean |win rate diff| with Tengen's visit-weighted move mean in place of "
                    f"its rootInfo.winrate: {tot['mean_abs_tree_wr_diff']:.4f}"
                )
            section.append(
                "  by phase (agree / same best / positions): "
                + ", ".join(f"{ph} {v['agree']}/{v['same_best']}/{v['positions']}"
                            for ph, v in tot["by_phase"].items())
            )
            dis = disagreement_lines(rows, args.tolerance)
            if dis:
                section.append(f"  disagreements ({size}x{size}):")
                section += ["  " + line for line in dis]
            if tot["agreement_rate"] < args.min_agreement:
                failed = True
            report += section
            print("\n".join(section), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    report.append("")
    report.append(
        f"{'FAIL' if failed else 'PASS'}: agreement at least {args.min_agreement:.0%} "
        f"per board size"
    )
    text = "\n".join(report) + "\n"
    with open(os.path.join(args.out, "table.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print("\n" + report[-1])
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
