#!/usr/bin/env python3
"""KaTrain drives `tengen analysis`: KaTrain 1.20.0's own engine and game code, headless.

What it proves. KaTrain (the most used Go review tool) talks to its engine only through
katrain/core/engine.py (`KataGoEngine`: it launches `EXE analysis -model M -config C
-override-config homeDataDir=DIR`, writes JSON queries from a writer thread, reads answers
in a reader thread, keeps the book of outstanding queries, terminates and ponders) and
reads every answer with katrain/core/game_node.py (`GameNode.set_analysis`, candidate
moves, points lost, policy ranking, comments) and core/game.py (`Game`: loading a record
analyses every node; `analyze_extra` is the Analysis menu). This script imports those
modules from the real KaTrain 1.20.0 wheel, unmodified, points KaTrain's engine settings at
the engine under test and runs what a user does when reviewing a game:

  game 9x9, game 19x19  load a real record (../shared/corpora) with `Game(...)`, which
                        queries every node (KaTrain's own `analyze_all_nodes`); every node
                        must end `analysis_complete` with root info, candidate moves,
                        ownership (x*y) and policy (x*y+1, -1 on occupied points); then
                        KaTrain's readers run on every node (comment with details, points
                        lost, policy ranking, `ai.game_report`) and the game is saved with
                        its analysis (`write_sgf`, save_analysis) and loaded back
                        (`load_analysis`).
  alternatives          Analysis menu "find alternatives": avoidMoves with the current
                        candidates (untilDepth 1) must be answered with other moves.
  region                a region of interest (`set_region_of_interest`) plus "extra
                        analysis": every candidate must lie in the region (or pass).
  sweep+illegal         "sweep" on a 9x9 node (one `next_move` query per legal point) plus a
                        `next_move` on an occupied point: KaTrain ignores an error only if
                        its text contains "Illegal move" (case-sensitive, engine.py).
  ponder                continuous analysis as the GUI runs it (`katrain.pondering` and
                        `update_state` -> `analyze_extra("ponder")`: maxVisits 10M,
                        reportDuringSearchEvery 0.25): partial results (isDuringSearch
                        true) must reach the node while the query runs, then
                        `stop_pondering` (terminate, final result expected), then the
                        engine must answer the next query.
  terminate             `Game.reset_current_analysis` while a 1M-visit query runs:
                        `terminate_queries(node)` + a new query for the same node; the new
                        query must be answered and the terminated one must end.
  ai default, ai simple ownership
                        KaTrain's AI (`ai.generate_ai_move`) with the default strategy and
                        with "simple ownership", which reads per-move ownership
                        (includeMovesOwnership).
and throughout: no error line except the tolerated "Illegal move", nothing logged at
KaTrain's error level ("Error in engine callback", "Unexpected exception", "Engine died"),
no recovery popup, and every answer's fields of the types KaTrain reads. Fields KataGo
sends that the engine does not are listed, and final answers with more root visits than
maxVisits are counted (information, not failure).

How to run (from the project root; KaTrain's wheel is downloaded once, ~106 MB, with
`pip download --no-deps katrain==1.20.0` into ~/.cache/tengen-katrain, or use --wheel):

    pip install 'pysgf>=1,<2'                      # KaTrain's SGF library, from PyPI
    cargo build --release                          # target/release/tengen (copied before use)
    scripts/fetch-model.sh                         # the network, if missing
    scripts/katrain_check.py                       # against Tengen
    scripts/katrain_check.py --engine katago       # against KataGo (the reference)
    scripts/katrain_check.py --only game9,ponder -v --transcript /tmp/t.txt
    scripts/katrain_check.py --engine katago --capture scripts/katrain_queries.jsonl

Exit status 0 when every check passed, 1 when one failed, 2 when it could not start.
--transcript FILE writes every line exchanged with the engine (-> sent, <- received, !
stderr) with the check it belongs to; a failed check prints its own lines. --capture FILE
writes the query lines KaTrain sent, exactly as written to the engine's stdin, one a line,
for a replay test without Python.

scripts/katrain_queries.jsonl is that capture from a full run against KataGo 1.17.2 (all
checks passed), 260 lines in the order sent: the 9x9 game (QUERY:1-55), the 19x19 game
(129), the alternatives (avoidMoves for one player, then next_move queries for candidates
with few visits), the region (avoidMoves for both players, 280 points each), the sweep
(next_move queries: the last move of `moves` is the one swept, analyzeTurns points after
it, no ownership) ending with a move on an occupied point, the ponder query (maxVisits
10000000, reportDuringSearchEvery 0.25) and its terminate action, the next query, a
1M-visit query and its terminate, its replacement, and the queries for the two positions
the AI played into. Every query except the two terminate actions is owed one final answer
(isDuringSearch false); the one on an occupied point is owed an error line instead, whose
text must contain "Illegal move". Replayed without pauses, the two terminates arrive before
their queries have a visit, and the owed answer is then {"noResults": true, ...} (KataGo
and Tengen both; KaTrain's stop_pondering waits for it). Fed whole to `tengen analysis`
(878d3be, 8 min on 2 cores) every owed line arrives.

What is stubbed, and why. Nothing of KaTrain's engine, game or AI code is replaced, and
pysgf (KaTrain's SGF library, not in the wheel) is the real one from PyPI.
  * kivy (the GUI toolkit; needs a display and a compiled build) is replaced by a fake
    module put in sys.modules before KaTrain is imported. KaTrain's core uses two names
    from it: `kivy.utils.platform` (engine.py: only to find a bundled KataGo when no
    executable is configured; here "linux") and `kivy._event.Observable` (lang.py: the base
    class of the translation object, whose bindings only update GUI widgets; here a class
    whose bind methods do nothing). Translations themselves are KaTrain's real gettext
    files from the wheel.
  * The KaTrain application object (KaTrainGui, a kivy App) is a small fake, `FakeKaTrain`
    below: `log(msg, level)` (recorded), `katrain("engine_recovery_popup", ...)` (recorded
    as a failure), `config("section/key")` (KaTrain's own config.json from the wheel, its
    "engine" section pointed at the engine under test), `controls.set_status` (ignored
    text), `players_info` and `update_state()`, which does what KaTrainGui's does for the
    engine after every answer: `game.analyze_extra("ponder")` while pondering, else
    `engine.stop_pondering()`, from a message-loop thread as in KaTrain.
  * Transport tap: `katrain.core.engine.subprocess` is a copy of the subprocess module
    whose Popen records each line written to the engine's stdin and read from its stdout
    (with a time stamp and the current check); the bytes pass through unchanged. KaTrain's
    `DATA_FOLDER` (homeDataDir, normally ~/.katrain) is a temporary directory.
"""
import argparse
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import types
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ROOT.parent / "shared" / "corpora"
KATRAIN_VERSION = "1.20.0"
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "tengen-katrain"
ANCHORS = Path.home() / ".cache" / "tengen-anchors" / "katago"
GAMES = {
    "game9": CORPORA / "fuego-regression/sgf/games/2008/ICGC2008/9/08-Fuego-Leela.sgf",
    "game19": CORPORA / "computer-go-dataset-ai/master/19-2016.12.30-Master-Ke_Jie.sgf",
}
CHECKS = ["game9", "game19", "alternatives", "region", "sweep", "ponder", "terminate", "ai"]

# What KaTrain reads from an answer (engine.py, game_node.py, game.py, ai.py): key -> types.
NUM = (int, float)
READ_TOP = {"id": (str,), "moveInfos": (list,), "rootInfo": (dict,)}
READ_ROOT = {"visits": (int,), "winrate": NUM, "scoreLead": NUM}
READ_MOVE = {"move": (str,), "visits": (int,), "winrate": NUM, "scoreLead": NUM, "order": (int,),
             "pv": (list,), "prior": NUM}


# ---------------------------------------------------------------- KaTrain, headless


def unpack_katrain(wheel):
    """KaTrain's wheel unpacked (without its bundled KataGo binaries and network)."""
    dest = CACHE / f"katrain-{KATRAIN_VERSION}"
    if (dest / "katrain" / "core" / "engine.py").is_file():
        return dest
    CACHE.mkdir(parents=True, exist_ok=True)
    if not wheel:
        found = sorted(CACHE.glob(f"katrain-{KATRAIN_VERSION}-*.whl"))
        if not found:
            print(f"katrain_check: downloading KaTrain {KATRAIN_VERSION} (pip download --no-deps)", file=sys.stderr)
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q",
                            f"katrain=={KATRAIN_VERSION}", "-d", str(CACHE)], check=True)
            found = sorted(CACHE.glob(f"katrain-{KATRAIN_VERSION}-*.whl"))
        wheel = found[0]
    tmp = Path(tempfile.mkdtemp(dir=CACHE))
    with zipfile.ZipFile(wheel) as z:
        skip = re.compile(r"katrain/(models/.*\.gz|KataGo/.*\.(dll|exe)|KataGo/katago)$")
        z.extractall(tmp, [n for n in z.namelist() if not skip.match(n)])
    tmp.rename(dest)
    return dest


def install_kivy_stub():
    """The two kivy names KaTrain's core imports (see the docstring), without kivy."""
    kivy = types.ModuleType("kivy")
    kivy.__path__ = []
    utils = types.ModuleType("kivy.utils")
    utils.platform = "linux"
    event = types.ModuleType("kivy._event")

    class Observable:  # lang.Lang's base: GUI property bindings, none here
        def __init__(self, *args, **kwargs):
            pass

        def fbind(self, name, func, *args, **kwargs):
            return 0

        def funbind(self, name, func, *args, **kwargs):
            return None

        def unbind_uid(self, name, uid):
            return None

    event.Observable = Observable
    kivy.utils, kivy._event = utils, event
    sys.modules.update({"kivy": kivy, "kivy.utils": utils, "kivy._event": event})


class Transcript:
    """Every line exchanged with the engine: (time, check, direction, text)."""

    def __init__(self):
        self.lines = []
        self.lock = threading.Lock()
        self.phase = "start"
        self.t0 = time.time()

    def add(self, direction, text):
        with self.lock:
            self.lines.append((time.time() - self.t0, self.phase, direction, text))

    def mark(self):
        with self.lock:
            return len(self.lines)

    def since(self, start, direction=None):
        with self.lock:
            return [x for x in self.lines[start:] if direction is None or x[2] == direction]


class TapWriter:
    def __init__(self, raw, transcript):
        self.raw, self.transcript, self.buf = raw, transcript, b""

    def write(self, data):
        self.buf += data
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            self.transcript.add("->", line.decode(errors="replace"))
        return self.raw.write(data)

    def __getattr__(self, name):
        return getattr(self.raw, name)


class TapReader:
    def __init__(self, raw, transcript):
        self.raw, self.transcript = raw, transcript

    def readline(self, *args):
        line = self.raw.readline(*args)
        if line.strip():
            self.transcript.add("<-", line.decode(errors="replace").rstrip("\n"))
        return line

    def __getattr__(self, name):
        return getattr(self.raw, name)


def tapped_subprocess(transcript):
    """A copy of the subprocess module whose Popen records the engine's stdin and stdout lines."""

    class TappedPopen(subprocess.Popen):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.stdin = TapWriter(self.stdin, transcript)
            self.stdout = TapReader(self.stdout, transcript)

    shim = types.ModuleType("subprocess_tap")
    shim.__dict__.update(subprocess.__dict__)
    shim.Popen = TappedPopen
    return shim


class FakeControls:
    def __init__(self):
        self.status = ""

    def set_status(self, message, *args, **kwargs):
        self.status = message


class PlayerInfo:
    human = True
    ai = False


class FakeKaTrain:
    """Stands in for KaTrainGui where KaTrain's engine, game and AI code call it (see the docstring)."""

    def __init__(self, config, levels, verbose):
        self._config = config
        self.L = levels
        self.verbose = verbose
        self.logs = []  # (time, level, message)
        self.popups = []
        self.pondering = False
        self.engine = None
        self.game = None
        self.controls = FakeControls()
        self.players_info = {"B": PlayerInfo(), "W": PlayerInfo()}
        self.messages = queue.Queue()
        self.loop_errors = []
        self.on_stderr = None
        threading.Thread(target=self._message_loop_thread, daemon=True).start()

    def log(self, message, level=0):
        self.logs.append((time.time(), level, str(message)))
        if level == self.L.OUTPUT_KATAGO_STDERR and self.on_stderr:
            self.on_stderr(str(message))
        if self.verbose and (level <= self.L.OUTPUT_INFO or self.verbose > 1):
            print(f"    [katrain log {level}] {str(message)[:300]}", file=sys.stderr)

    def __call__(self, message, *args, **kwargs):  # KaTrain's message queue; only popups come here
        self.popups.append((message, args))
        self.log(f"popup {message} {args}", self.L.OUTPUT_ERROR)

    def config(self, setting, default=None):
        section, _, key = setting.partition("/")
        value = self._config.get(section, default)
        return value.get(key, default) if key and isinstance(value, dict) else value

    def update_state(self, redraw_board=False):  # KaTrainGui.update_state -> message loop
        self.messages.put("update_state")

    def _message_loop_thread(self):  # what KaTrainGui._do_update_state does for the engine
        while True:
            self.messages.get()
            try:
                if self.engine and self.game:
                    if self.pondering:
                        self.game.analyze_extra("ponder")
                    else:
                        self.engine.stop_pondering()
            except Exception as e:
                self.loop_errors.append(repr(e))
                self.log(f"Exception in update_state: {e}", self.L.OUTPUT_ERROR)

    def errors_since(self, t):
        return [m for (tt, lvl, m) in self.logs if tt >= t and lvl == self.L.OUTPUT_ERROR]


# ---------------------------------------------------------------- helpers


def wait_until(cond, timeout, poll=0.05):
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return True
        time.sleep(poll)
    return cond()


def short(text, limit=260):
    """A line with long number arrays cut, for reports."""
    text = re.sub(r"\[(-?[0-9.e-]+,){8,}-?[0-9.e-]+\]", lambda m: f"[{m.group(0).count(',') + 1} numbers]", text)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


def lines_report(lines, limit=14):
    out = [f"{d} {short(t)}" for (_, _, d, t) in lines if d != "!"]
    if len(out) > limit:
        out = out[: limit // 2] + [f"... {len(out) - limit} lines ..."] + out[-(limit // 2):]
    return out


def parse_json(text):
    try:
        v = json.loads(text)
        return v if isinstance(v, dict) else None
    except ValueError:
        return None


def answers_for(lines, qid):
    return [a for (_, _, d, t) in lines if d == "<-" for a in [parse_json(t)] if a and a.get("id") == qid]


def sent_queries(lines):
    return [q for (_, _, d, t) in lines if d == "->" for q in [parse_json(t)] if q]


class Result:
    def __init__(self, name):
        self.name, self.ok, self.summary, self.details, self.seconds = name, True, "", [], 0.0

    def fail(self, text):
        self.ok = False
        self.details.append(text)


# ---------------------------------------------------------------- the checks


class Harness:
    def __init__(self, args, kt, label):
        self.args, self.kt, self.label = args, kt, label
        self.transcript = Transcript()
        self.results = []
        self.expected_errors = set()  # ids of queries sent to be refused
        self.games = {}
        self.field_gaps = {}  # where -> set of keys KataGo sends that the engine did not
        self.move_ownership_gaps = []  # (id, isDuringSearch, moveInfos without ownership, moveInfos)
        self.visit_counts = []  # (id, maxVisits, rootInfo.visits) of final answers

    # -- setup
    def start(self):
        kt, args = self.kt, self.args
        self.engine_mod = kt["engine"]
        self.engine_mod.subprocess = tapped_subprocess(self.transcript)
        self.engine_mod.DATA_FOLDER = tempfile.mkdtemp(prefix="katrain-home-")
        config = json.load(open(Path(kt["dir"]) / "katrain" / "config.json"))
        config["engine"].update({
            "backend": "local", "katago": str(args.exe), "model": str(args.model), "config": str(args.config),
            "max_visits": args.visits, "fast_visits": args.fast_visits, "max_time": 8.0,
        })
        self.config = config
        self.katrain = FakeKaTrain(config, kt["constants"], args.verbose)
        self.katrain.on_stderr = lambda text: self.transcript.add("!", text)
        self.engine = kt["engine"].KataGoEngine(self.katrain, config["engine"])
        self.katrain.engine = self.engine
        if not self.engine.check_alive():
            raise RuntimeError(f"KaTrain could not start the engine: {self.katrain.errors_since(0)}")

    def phase(self, name):
        self.transcript.phase = name

    def run_check(self, name, fn, *a):
        r = Result(name)
        self.phase(name)
        t0 = time.time()
        mark = self.transcript.mark()
        try:
            fn(r, *a)
        except Exception as e:
            r.fail(f"exception in the check: {e!r}")
            r.details += traceback.format_exc().splitlines()[-6:]
        r.seconds = time.time() - t0
        errors = self.katrain.errors_since(t0)
        if errors:
            r.fail(f"{len(errors)} line(s) logged by KaTrain at its error level, first: {short(errors[0], 400)}")
        # error lines from the engine, other than the expected refusals
        for (_, _, d, t) in self.transcript.since(mark, "<-"):
            a = parse_json(t)
            if a is None:
                r.fail(f"not a JSON object: {short(t)}")
            elif "error" in a and a.get("id") not in self.expected_errors:
                r.fail(f"error line: {short(t)}")
        if not r.ok and not getattr(r, "lines_shown", False):
            r.details.append("lines exchanged during the check:")
            r.details += ["  " + x for x in lines_report(self.transcript.since(mark))]
        self.results.append(r)
        status = "PASS" if r.ok else "FAIL"
        print(f"{status}  {name}: {r.summary} ({r.seconds:.1f} s)", flush=True)
        if not r.ok:
            for d in r.details:
                print(f"      {d}", flush=True)
        return r

    def recover(self, r):
        """After a check left the engine busy: KaTrain's own engine restart."""
        r.details.append("engine restarted with KaTrain's KataGoEngine.restart() for the next checks")
        self.engine.restart()
        self.katrain.pondering = False

    def idle(self, timeout):
        return wait_until(lambda: self.engine.is_idle(), timeout)

    # -- field check on every answer
    def check_fields(self, r, lines, size):
        bad = []
        queries = {q.get("id"): q for q in sent_queries(lines)}
        for (_, _, d, t) in lines:
            if d != "<-":
                continue
            a = parse_json(t)
            if not a or "rootInfo" not in a and "moveInfos" not in a:
                continue
            for k, ty in READ_TOP.items():
                if not isinstance(a.get(k), ty):
                    bad.append(f"{k} missing or not {ty[0].__name__}")
            root = a.get("rootInfo") or {}
            for k, ty in READ_ROOT.items():
                if not isinstance(root.get(k), ty) or isinstance(root.get(k), bool):
                    bad.append(f"rootInfo.{k} missing or not {'/'.join(x.__name__ for x in ty)}")
            for m in a.get("moveInfos") or []:
                for k, ty in READ_MOVE.items():
                    if not isinstance(m.get(k), ty) or isinstance(m.get(k), bool):
                        bad.append(f"moveInfos[].{k} missing or not {'/'.join(x.__name__ for x in ty)}")
                if not all(isinstance(p, str) for p in m.get("pv", [])):
                    bad.append("moveInfos[].pv not a list of strings")
            if "isDuringSearch" in a and not isinstance(a["isDuringSearch"], bool):
                bad.append("isDuringSearch not a boolean")
            x, y = size
            if "ownership" in a and len(a["ownership"]) != x * y:
                bad.append(f"ownership has {len(a['ownership'])} values, not {x * y}")
            if "policy" in a and len(a["policy"]) != x * y + 1:
                bad.append(f"policy has {len(a['policy'])} values, not {x * y + 1}")
            self.note_gaps(a)
            q = queries.get(a.get("id"))
            if q and not a.get("isDuringSearch") and isinstance(root.get("visits"), int):
                self.visit_counts.append((a["id"], q.get("maxVisits"), root["visits"]))
        for b in sorted(set(bad)):
            r.fail(f"answer field: {b} ({bad.count(b)} times)")

    def note_gaps(self, a):
        """Keys KataGo 1.17 always sends in an analysis answer, missing here (information)."""
        katago = {
            "top": {"id", "isDuringSearch", "moveInfos", "rootInfo", "turnNumber"},
            "rootInfo": {"currentPlayer", "rawLead", "rawNoResultProb", "rawScoreSelfplay",
                         "rawScoreSelfplayStdev", "rawStScoreError", "rawStWrError", "rawVarTimeLeft",
                         "rawWinrate", "scoreLead", "scoreSelfplay", "scoreStdev", "symHash", "thisHash",
                         "utility", "visits", "weight", "winrate"},
            "moveInfos[]": {"edgeVisits", "edgeWeight", "lcb", "move", "order", "playSelectionValue", "prior",
                            "pv", "scoreLead", "scoreMean", "scoreSelfplay", "scoreStdev", "utility",
                            "utilityLcb", "visits", "weight", "winrate"},
        }
        if "ownership" in a:  # KaTrain asks includeMovesOwnership whenever it asks includeOwnership
            katago["moveInfos[]"].add("ownership")
            infos = a.get("moveInfos") or []
            without = sum(1 for m in infos if "ownership" not in m)
            if without:
                self.move_ownership_gaps.append((a.get("id"), a.get("isDuringSearch"), without, len(infos)))
        have = {"top": set(a), "rootInfo": set(a.get("rootInfo") or {})}
        if a.get("moveInfos"):
            have["moveInfos[]"] = set.intersection(*(set(m) for m in a["moveInfos"]))
        for where, keys in have.items():
            self.field_gaps.setdefault(where, set()).update(katago[where] - keys)

    # -- game analysis
    def check_game(self, r, key):
        kt = self.kt
        path = Path(self.args.sgf9 if key == "game9" else self.args.sgf19)
        move_tree = kt["game"].KaTrainSGF.parse_file(str(path))
        mark = self.transcript.mark()
        self.engine.on_new_game()  # as KaTrainGui._do_new_game
        game = kt["game"].Game(self.katrain, self.engine, move_tree=move_tree, sgf_filename=str(path))
        self.katrain.game = game
        self.games[key] = game
        nodes = list(game.root.nodes_in_tree)
        sx, sy = game.board_size
        per_node = self.args.node_seconds * (4 if sx * sy > 200 else 1)
        # wait while answers keep coming: at most per_node a node, and no 60 s without an answer
        deadline = time.time() + 60 + per_node * len(nodes)
        last, last_t = -1, time.time()
        while time.time() < deadline and time.time() - last_t < 60:
            if all(n.analysis_complete for n in nodes) and self.engine.is_idle():
                break
            got = len(self.transcript.since(mark, "<-"))
            if got != last:
                last, last_t = got, time.time()
            time.sleep(0.2)
        complete = [n for n in nodes if n.analysis_complete]
        r.summary = f"{path.name} {sx}x{sy}: {len(complete)}/{len(nodes)} nodes analysis_complete"
        if len(complete) < len(nodes):
            missing = [n.depth for n in nodes if not n.analysis_complete]
            r.fail(f"nodes without complete analysis (move numbers): {missing[:20]}{' ...' if len(missing) > 20 else ''}")
        # the node-by-node contents, as KaTrain keeps them
        problems = []
        ncand = 0
        for n in nodes:
            if not n.analysis_exists:
                continue
            a = n.analysis
            root = a["root"]
            if not root.get("visits"):
                problems.append((n.depth, "root visits 0"))
            if not a["moves"]:
                problems.append((n.depth, "no candidate moves"))
            ncand += len(a["moves"])
            own, pol = a.get("ownership"), a.get("policy")
            if not own or len(own) != sx * sy:
                problems.append((n.depth, f"ownership {'missing' if not own else len(own)}"))
            elif not all(-1.0 <= v <= 1.0 for v in own):
                problems.append((n.depth, "ownership outside [-1, 1]"))
            if not pol or len(pol) != sx * sy + 1:
                problems.append((n.depth, f"policy {'missing' if not pol else len(pol)}"))
            else:
                legal = [p for p in pol if p >= 0]
                if abs(sum(legal) - 1.0) > 0.02:
                    problems.append((n.depth, f"policy sums to {sum(legal):.3f}"))
                game.set_current_node(n)
                grid = kt["utils"].var_to_grid(pol, (sx, sy))
                on_stones = [s.gtp() for s in game.stones if grid[s.coords[1]][s.coords[0]] >= 0]
                if on_stones:
                    problems.append((n.depth, f"policy >= 0 on occupied points {on_stones[:4]}"))
            for d in a["moves"].values():
                try:
                    kt["pysgf"].Move.from_gtp(d["move"])
                except Exception:
                    problems.append((n.depth, f"candidate move {d['move']!r} not a GTP vertex"))
        game.set_current_node(game.root)
        for depth, p in problems[:12]:
            r.fail(f"move {depth}: {p}")
        if len(problems) > 12:
            r.fail(f"... {len(problems) - 12} more node problems")
        r.summary += f", {ncand / max(1, len(complete)):.1f} candidates a node"
        # KaTrain's readers on every node
        try:
            for n in nodes:
                n.comment(sgf=True, details=True, interactive=False)
                n.points_lost
                n.policy_ranking
                n.move_policy_stats()
                n.candidate_moves
            thresholds = self.config["trainer"]["eval_thresholds"]
            stats, histogram, ptloss = kt["ai"].game_report(game, thresholds)
            r.summary += (f", game report B accuracy {stats['B'].get('accuracy', 0):.0f}"
                          f" W {stats['W'].get('accuracy', 0):.0f}")
        except Exception as e:
            r.fail(f"KaTrain's readers raised {e!r}")
        # save with analysis, load back
        try:
            out = Path(tempfile.mkdtemp(prefix="katrain-sgf-")) / f"{key}.sgf"
            tc = {**self.config["trainer"], "save_analysis": True, "save_feedback": [True] * 6}
            game.write_sgf(str(out), trainer_config=tc)
            back = kt["game"].KaTrainSGF.parse_file(str(out))
            loaded = [m for m in back.nodes_in_tree if m.analysis_from_sgf]
            ok = sum(1 for m in loaded if m.load_analysis() and m.analysis["root"])
            if ok != len(complete):
                r.fail(f"save/load with analysis: {ok} of {len(complete)} nodes came back")
            else:
                r.summary += ", saved and reloaded with analysis"
        except Exception as e:
            r.fail(f"write_sgf/load_analysis raised {e!r}")
        lines = self.transcript.since(mark)
        self.check_fields(r, lines, (sx, sy))
        r.summary += f"; {len(sent_queries(lines))} queries"

    def node_of(self, game, depth):
        n = game.root
        while n.children and n.depth < depth:
            n = n.children[0]
        return n

    def fresh_analysis(self, r, node, what, timeout):
        """A normal query for `node` (analysis cleared first) must complete."""
        node.clear_analysis()
        node.analyze(self.engine, visits=self.args.visits)
        if wait_until(lambda: node.analysis_complete, timeout):
            return True
        r.fail(f"{what}: the engine did not answer a new query within {timeout:.0f} s")
        return False

    def game19(self, r):
        game = self.games.get("game19")
        if game is None:
            raise RuntimeError("needs the game19 check (run it too)")
        self.katrain.game = game
        return game

    def check_alternatives(self, r):
        game = self.game19(r)
        cn = self.node_of(game, 40)
        game.set_current_node(cn)
        if not cn.analysis_complete and not self.fresh_analysis(r, cn, "before", 60):
            return
        before = set(cn.analysis["moves"])
        mark = self.transcript.mark()
        game.analyze_extra("alternative")
        self.idle(60 + 10 * len(before))
        lines = self.transcript.since(mark)
        alt = [q for q in sent_queries(lines) if q.get("avoidMoves")]
        if not alt:
            r.fail("KaTrain sent no query with avoidMoves")
            return
        q = alt[0]
        avoided = set(q["avoidMoves"][0]["moves"])
        ans = [a for a in answers_for(lines, q["id"]) if "moveInfos" in a and not a.get("isDuringSearch")]
        if not ans:
            r.fail(f"no final answer to the avoidMoves query {q['id']}")
            return
        got = [m["move"] for m in ans[-1]["moveInfos"]]
        clash = [m for m in got if m in avoided]
        if clash:
            r.fail(f"avoided moves among the candidates: {clash}")
        new = set(cn.analysis["moves"]) - before
        r.summary = (f"move {cn.depth}: {len(avoided)} moves avoided, answer {got[:6]}, "
                     f"{len(new)} new candidates kept by KaTrain")
        if not new:
            r.fail("KaTrain's node gained no new candidate moves")
        self.check_fields(r, lines, game.board_size)

    def check_region(self, r):
        game = self.game19(r)
        cn = self.node_of(game, 60)
        game.set_current_node(cn)
        sx, sy = game.board_size
        game.set_region_of_interest([0, 8, 0, 8])  # lower-left quarter (KaTrain coords: x, y from bottom)
        try:
            mark = self.transcript.mark()
            game.analyze_extra("extra")
            self.idle(60)
            lines = self.transcript.since(mark)
        finally:
            game.region_of_interest = None
        qs = [q for q in sent_queries(lines) if q.get("avoidMoves")]
        if not qs:
            r.fail("KaTrain sent no query with avoidMoves")
            return
        ans = [a for a in answers_for(lines, qs[0]["id"]) if "moveInfos" in a and not a.get("isDuringSearch")]
        if not ans:
            r.fail(f"no final answer to the region query {qs[0]['id']}")
            return
        Move = self.kt["pysgf"].Move
        got = [m["move"] for m in ans[-1]["moveInfos"]]
        outside = [g for g in got if g != "pass" and not all(c <= 8 for c in Move.from_gtp(g).coords)]
        if outside:
            r.fail(f"candidates outside the region A1-J9: {outside}")
        r.summary = (f"move {cn.depth}, region A1-J9 ({len(qs[0]['avoidMoves'])} avoidMoves entries, "
                     f"{len(qs[0]['avoidMoves'][0]['moves'])} points each): answer {got[:8]}")
        self.check_fields(r, lines, (sx, sy))

    def check_sweep(self, r):
        game = self.games.get("game9")
        if game is None:
            raise RuntimeError("needs the game9 check (run it too)")
        self.katrain.game = game
        cn = self.node_of(game, 20)
        game.set_current_node(cn)
        if not cn.analysis_complete and not self.fresh_analysis(r, cn, "before", 60):
            return
        stones = game.stones
        occupied = stones[0]
        mark = self.transcript.mark()
        t0 = time.time()
        game.analyze_extra("sweep")
        # and a next_move on an occupied point, as a sweep without policy would send
        Move = self.kt["pysgf"].Move
        illegal = Move(coords=occupied.coords, player=cn.next_player)
        cn.analyze(self.engine, priority=self.kt["constants"].PRIORITY_SWEEP, visits=self.args.fast_visits,
                   refine_move=illegal, time_limit=False)
        self.idle(60 + 3 * 81)
        lines = self.transcript.since(mark)
        qs = sent_queries(lines)
        ill = [q for q in qs if q.get("moves") and q["moves"][-1] == [cn.next_player, illegal.gtp()]]
        self.expected_errors.update(q["id"] for q in ill)
        sweep = [q for q in qs if q not in ill]
        answered = sum(1 for q in sweep if any(not a.get("isDuringSearch") and "rootInfo" in a
                                               for a in answers_for(lines, q["id"])))
        r.summary = (f"move {cn.depth}: {len(sweep)} next_move queries, {answered} answered, "
                     f"{len(cn.analysis['moves'])} moves in KaTrain's node")
        if answered < len(sweep):
            r.fail(f"{len(sweep) - answered} sweep queries unanswered")
        if not ill:
            r.fail("the illegal next_move query was not sent")
            return
        errs = [a for a in answers_for(lines, ill[0]["id"]) if "error" in a]
        if not errs:
            r.fail(f"no error answer to the illegal move {illegal.gtp()} (occupied) in {ill[0]['id']}: "
                   f"{[short(json.dumps(a)) for a in answers_for(lines, ill[0]['id'])]}")
        else:
            text = errs[0]["error"]
            r.summary += f"; illegal {illegal.gtp()} answered {json.dumps(text)}"
            if "Illegal move" not in text:
                r.fail(f"error text {text!r} lacks \"Illegal move\" (KaTrain matches it case-sensitively to "
                       f"ignore sweep refusals; KataGo writes \"Illegal move 39: C3\"), so KaTrain logs it as an "
                       f"error: {[short(m) for m in self.katrain.errors_since(t0)][:1]}")
                r.lines_shown = True
                r.details.append("lines exchanged (the illegal query):")
                r.details += ["  " + x for x in lines_report(
                    [x for x in lines if (parse_json(x[3]) or {}).get("id") == ill[0]["id"]])]
        self.check_fields(r, [x for x in lines if (parse_json(x[3]) or {}).get("id") not in self.expected_errors],
                          game.board_size)

    def check_ponder(self, r):
        game = self.game19(r)
        cn = self.node_of(game, 80)
        game.set_current_node(cn)
        cn.clear_analysis()
        mark = self.transcript.mark()
        kat = self.katrain
        kat.pondering = True  # KaTrainGui.toggle_continuous_analysis
        kat.update_state()
        partial_seen = []

        def partial():
            ex = cn.analysis_exists and not cn.analysis["completed"] and self.engine.ponder_query is not None
            if ex and (not partial_seen or partial_seen[-1] != cn.root_visits):
                partial_seen.append(cn.root_visits)
            return len(partial_seen) >= 3

        t_ponder = time.time()
        wait_until(partial, self.args.ponder_seconds)
        t_ponder = time.time() - t_ponder
        lines = self.transcript.since(mark)
        qs = [q for q in sent_queries(lines) if q.get("reportDuringSearchEvery") == 0.25]
        if not qs:
            r.fail("KaTrain sent no pondering query")
            kat.pondering = False
            return
        pid = qs[0]["id"]
        during = [a for a in answers_for(lines, pid) if a.get("isDuringSearch")]
        r.summary = (f"move {cn.depth}: {len(during)} partial results in {t_ponder:.1f} s, "
                     f"KaTrain's node root visits {partial_seen[:6]}")
        if not during:
            r.fail(f"no isDuringSearch answer to the ponder query {pid} within {self.args.ponder_seconds:.0f} s "
                   f"(maxVisits {qs[0].get('maxVisits')}, reportDuringSearchEvery 0.25)")
        elif len(partial_seen) < 2:
            r.fail(f"partial results did not reach KaTrain's node with growing visits: {partial_seen}")
        # stop pondering as the GUI does: pondering off, update_state -> engine.stop_pondering()
        t_stop = time.time()
        kat.pondering = False
        kat.update_state()
        ended = wait_until(lambda: pid not in self.engine.queries, self.args.stop_seconds)
        lines = self.transcript.since(mark)
        terms = [q for q in sent_queries(lines) if q.get("action") == "terminate" and q.get("terminateId") == pid]
        finals = [a for a in answers_for(lines, pid) if not a.get("isDuringSearch")]
        if not terms:
            r.fail("KaTrain sent no terminate for the ponder query")
        if not ended or not finals:
            r.fail(f"no final answer (isDuringSearch false) to {pid} within {self.args.stop_seconds:.0f} s of "
                   f"the terminate")
        else:
            r.summary += f"; stopped, final answer {time.time() - t_stop:.1f} s after terminate"
            if not cn.analysis_complete:
                r.fail("the final answer did not make KaTrain's node complete")
        nxt = self.node_of(game, 81)
        if self.fresh_analysis(r, nxt, "after pondering", self.args.stop_seconds + 20):
            r.summary += "; next query answered"
        else:
            self.recover(r)
        self.check_fields(r, self.transcript.since(mark), game.board_size)

    def check_terminate(self, r):
        game = self.game19(r)
        cn = self.node_of(game, 100)
        game.set_current_node(cn)
        mark = self.transcript.mark()
        cn.analyze(self.engine, visits=1_000_000, time_limit=False, report_every=None)  # long "game re-analysis"
        long_q = None
        if wait_until(lambda: any(q.get("maxVisits") == 1_000_000 for q in sent_queries(self.transcript.since(mark))), 10):
            long_q = [q for q in sent_queries(self.transcript.since(mark)) if q.get("maxVisits") == 1_000_000][0]
        time.sleep(2.0)
        t_term = time.time()
        game.reset_current_analysis()  # terminate_queries(cn), clear, analyze again
        done = wait_until(lambda: cn.analysis_complete, self.args.stop_seconds + 20)
        lines = self.transcript.since(mark)
        if long_q is None:
            r.fail("the 1M-visit query was not sent")
            return
        terms = [q for q in sent_queries(lines) if q.get("action") == "terminate" and q.get("terminateId") == long_q["id"]]
        if not terms:
            r.fail("KaTrain sent no terminate for the running query")
        end_long = wait_until(lambda: any(not a.get("isDuringSearch") and "terminateId" not in a
                                          for a in answers_for(self.transcript.since(mark), long_q["id"])),
                              2 if not done else self.args.stop_seconds)
        r.summary = f"move {cn.depth}: {long_q['id']} (1M visits) terminated after 2 s"
        if done:
            r.summary += f"; the new query answered {time.time() - t_term:.1f} s after"
        else:
            r.fail(f"the new query for the same node was not answered within {self.args.stop_seconds + 20:.0f} s "
                   f"of the terminate")
        if end_long:
            r.summary += f"; {long_q['id']} ended (KaTrain discards its answer)"
        else:
            r.fail(f"the terminated query {long_q['id']} never ended (no final answer)")
        if not done or not end_long:
            self.recover(r)

    def check_ai(self, r):
        game = self.games.get("game9") or self.games.get("game19")
        if game is None:
            raise RuntimeError("needs a game check (run game9 too)")
        self.katrain.game = game
        ai = self.kt["ai"]
        C = self.kt["constants"]
        outcomes = []
        for mode, depth in ((C.AI_DEFAULT, 10), (C.AI_SIMPLE_OWNERSHIP, 12)):
            cn = self.node_of(game, depth)
            game.set_current_node(cn)
            if not cn.analysis_complete:
                self.fresh_analysis(r, cn, mode, 60)
            settings = self.config["ai"].get(mode, {})
            box = {}

            def gen():
                try:
                    box["move"], box["node"] = ai.generate_ai_move(game, mode, settings)
                except Exception as e:
                    box["error"] = e

            t = threading.Thread(target=gen, daemon=True)
            t.start()
            t.join(60)
            if t.is_alive():
                r.fail(f"{mode}: no move within 60 s")
            elif "error" in box:
                r.fail(f"{mode}: {box['error']!r}")
                if mode == C.AI_SIMPLE_OWNERSHIP:
                    own = [d["move"] for d in cn.candidate_moves if "ownership" in d]
                    r.fail(f"{mode} reads moveInfos[].ownership (includeMovesOwnership true in KaTrain's queries): "
                           f"{len(own)} of {len(cn.candidate_moves)} candidates have it")
            else:
                outcomes.append(f"{mode} plays {box['move'].gtp()}")
                if mode == C.AI_SIMPLE_OWNERSHIP:
                    cands = [d for d in cn.candidate_moves if d["order"] < C.ADDITIONAL_MOVE_ORDER]
                    without = [d["move"] for d in cands if "ownership" not in d]
                    if without:
                        r.fail(f"{mode} skipped candidates without moveInfos[].ownership (includeMovesOwnership "
                               f"true in KaTrain's query): {without} of {[d['move'] for d in cands]}")
            self.idle(30)
        game.set_current_node(game.root)
        r.summary = "; ".join(outcomes) or "no move"

    # -- the run
    def run(self, only):
        self.start()
        print(f"katrain_check: KaTrain {self.kt['version']} ({self.kt['dir']}) driving {self.label}", flush=True)
        print(f"  command: {' '.join(map(str, self.engine.command))}", flush=True)
        table = {
            "game9": lambda r: self.check_game(r, "game9"),
            "game19": lambda r: self.check_game(r, "game19"),
            "alternatives": self.check_alternatives,
            "region": self.check_region,
            "sweep": self.check_sweep,
            "ponder": self.check_ponder,
            "terminate": self.check_terminate,
            "ai": self.check_ai,
        }
        names = {"ai": "ai default, simple ownership", "sweep": "sweep+illegal"}
        for name in CHECKS:
            if name in only:
                self.run_check(names.get(name, name), table[name])
        # the whole session
        r = Result("session")
        self.phase("end")
        if self.katrain.popups:
            r.fail(f"recovery popups: {self.katrain.popups[:3]}")
        if self.katrain.loop_errors:
            r.fail(f"update_state errors: {self.katrain.loop_errors[:3]}")
        if not self.engine.check_alive():
            r.fail("the engine is not running at the end")
        sent = sum(1 for x in self.transcript.lines if x[2] == "->")
        got = sum(1 for x in self.transcript.lines if x[2] == "<-")
        r.summary = f"{sent} lines sent, {got} received, engine alive: {self.engine.check_alive()}"
        self.engine.shutdown(finish=False)
        self.results.append(r)
        print(f"{'PASS' if r.ok else 'FAIL'}  session: {r.summary}")
        for d in r.details:
            print(f"      {d}")
        gaps = {k: sorted(v) for k, v in self.field_gaps.items() if v}
        if gaps:
            print("  fields KataGo 1.17 sends that this engine did not:")
            for k, v in gaps.items():
                print(f"    {k}: {', '.join(v)}")
            if "ownership" in gaps.get("moveInfos[]", []):
                g = self.move_ownership_gaps
                final = [x for x in g if not x[1]]
                print("    (of these KaTrain reads only moveInfos[].ownership, asked by includeMovesOwnership: "
                      "its 'simple ownership' and 'settle stones' AIs skip a candidate without it; missing on "
                      f"{sum(x[2] for x in g)} of {sum(x[3] for x in g)} candidates in {len(g)} answers, "
                      f"{len(final)} of them final, e.g. {(final or g)[0][0]})")
            else:
                print("    (KaTrain reads none of them)")
        over = [(i, m, v) for (i, m, v) in self.visit_counts if isinstance(m, int) and v > m]
        if over:
            worst = max(over, key=lambda x: x[2] / x[1])
            print(f"  final answers with rootInfo.visits above the query's maxVisits (KaTrain does not mind): "
                  f"{len(over)} of {len(self.visit_counts)}, e.g. {worst[0]}: {worst[2]} visits for maxVisits {worst[1]}")
        warnings = sorted({parse_json(t).get("warning") for (_, _, d, t) in self.transcript.lines
                           if d == "<-" and parse_json(t) and "warning" in parse_json(t)})
        if warnings:
            print(f"  warnings received (KaTrain logs them at debug level): {warnings}")
        failed = [x.name for x in self.results if not x.ok]
        print(f"{len(self.results) - len(failed)} passed, {len(failed)} failed" +
              (f": {', '.join(failed)}" if failed else ""))
        return not failed


def load_katrain(args):
    try:
        import pysgf  # noqa: F401
    except ImportError:
        print("katrain_check: KaTrain needs pysgf: pip install 'pysgf>=1,<2'", file=sys.stderr)
        sys.exit(2)
    kdir = Path(args.katrain) if args.katrain else unpack_katrain(args.wheel)
    if not (kdir / "katrain" / "core" / "engine.py").is_file():
        print(f"katrain_check: no katrain/core/engine.py under {kdir}", file=sys.stderr)
        sys.exit(2)
    install_kivy_stub()
    sys.path.insert(0, str(kdir))
    import pysgf
    from katrain.core import constants, engine, game, utils
    from katrain.core import ai
    if constants.VERSION != KATRAIN_VERSION:
        print(f"katrain_check: warning: KaTrain {constants.VERSION}, checked with {KATRAIN_VERSION}", file=sys.stderr)
    return {"dir": kdir, "version": constants.VERSION, "constants": constants, "engine": engine, "game": game,
            "utils": utils, "ai": ai, "pysgf": pysgf}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", choices=["tengen", "katago"], default="tengen")
    ap.add_argument("--exe", help="engine executable (tengen: target/release/tengen, copied first; "
                                  "katago: ~/.cache/tengen-anchors/katago/katago)")
    ap.add_argument("--no-copy", action="store_true", help="run --exe in place, not a copy")
    ap.add_argument("--model", help="network (default: the engine's b10c384h6nbttflrs.bin.gz)")
    ap.add_argument("--config", help="engine config (default: KaTrain's katrain/KataGo/analysis_config.cfg)")
    ap.add_argument("--katrain", help="directory holding an unpacked katrain/ package (default: the wheel, "
                                      f"unpacked into {CACHE})")
    ap.add_argument("--wheel", help=f"KaTrain {KATRAIN_VERSION} wheel to unpack instead of downloading it")
    ap.add_argument("--sgf9", default=str(GAMES["game9"]))
    ap.add_argument("--sgf19", default=str(GAMES["game19"]))
    ap.add_argument("--visits", type=int, default=24, help="KaTrain's max_visits (default 24)")
    ap.add_argument("--fast-visits", type=int, default=8, help="KaTrain's fast_visits, used by the sweep")
    ap.add_argument("--node-seconds", type=float, default=3.0, help="time allowed a 9x9 node (x4 on 19x19)")
    ap.add_argument("--ponder-seconds", type=float, default=8.0, help="how long to wait for partial results")
    ap.add_argument("--stop-seconds", type=float, default=10.0, help="how long a terminate may take")
    ap.add_argument("--only", help=f"comma-separated checks among {','.join(CHECKS)} (default: all)")
    ap.add_argument("--transcript", help="write every line exchanged to this file")
    ap.add_argument("--capture", help="write the query lines KaTrain sent (JSONL) to this file")
    ap.add_argument("-v", "--verbose", action="count", default=0)
    args = ap.parse_args()

    only = set(args.only.split(",")) if args.only else set(CHECKS)
    unknown = only - set(CHECKS)
    if unknown:
        ap.error(f"unknown checks {sorted(unknown)}")
    if only & {"alternatives", "region", "ponder", "terminate"}:
        only.add("game19")
    if only & {"sweep", "ai"}:
        only.add("game9")

    kt = load_katrain(args)
    if args.engine == "tengen":
        exe = Path(args.exe or ROOT / "target" / "release" / "tengen")
        model = Path(args.model or Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share"))
                     / "tengen" / "b10c384h6nbttflrs.bin.gz")
        if not exe.is_file():
            print(f"katrain_check: {exe} missing: cargo build --release", file=sys.stderr)
            sys.exit(2)
        if not model.is_file():
            print(f"katrain_check: {model} missing: scripts/fetch-model.sh", file=sys.stderr)
            sys.exit(2)
        if not args.no_copy:  # the project may be rebuilt meanwhile
            copy = Path(tempfile.mkdtemp(prefix="katrain-check-")) / "tengen"
            shutil.copy(exe, copy)
            exe = copy
    else:
        exe = Path(args.exe or ANCHORS / "katago")
        model = Path(args.model or ANCHORS / "b10c384h6nbttflrs.bin.gz")
        for f in (exe, model):
            if not f.is_file():
                print(f"katrain_check: {f} missing", file=sys.stderr)
                sys.exit(2)
    args.exe, args.model = exe, model
    args.config = Path(args.config or Path(kt["dir"]) / "katrain" / "KataGo" / "analysis_config.cfg")
    for name in ("sgf9", "sgf19"):
        if not Path(getattr(args, name)).is_file():
            print(f"katrain_check: {getattr(args, name)} missing", file=sys.stderr)
            sys.exit(2)

    h = Harness(args, kt, f"{args.engine} ({args.exe})")
    try:
        ok = h.run(only)
    except RuntimeError as e:
        print(f"katrain_check: {e}", file=sys.stderr)
        ok = None
    finally:
        if args.transcript:
            with open(args.transcript, "w") as f:
                for (t, ph, d, text) in h.transcript.lines:
                    f.write(f"{t:9.3f} {ph:<14} {d} {text}\n")
        if args.capture:
            with open(args.capture, "w") as f:
                for (_, _, d, text) in h.transcript.lines:
                    if d == "->":
                        f.write(text + "\n")
    sys.exit(2 if ok is None else 0 if ok else 1)


if __name__ == "__main__":
    main()
