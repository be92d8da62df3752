#!/usr/bin/env python3
"""Differential check: the real gogui-regress 1.6.0 and `tengen regress` over the same files
with the same engine, compared verdict by verdict (id and passed / FAILED / failed / PASSED /
unexpected FAIL), on the Summary lines and on the exit status.

Cases: every gtp-tests/*.tst (run from gtp-tests/, engine Tengen, then the whole folder in one
run for the multi-file output), the shared derived files (each from the folder its paths are
relative to, engine Tengen and, when installed, GNU Go), and scripts/regress_quirks/*.tst
(engine: `tengen fake-gtp`, the fake built into the binary). A file gogui-regress stops on (exit 2: a regex it cannot
compile, a stray pattern, a dead engine) is still compared up to the stop, and listed.

Usage: scripts/regress_diff.py [--tengen BIN] [--gogui-regress PATH] [--gnugo PATH] [-v]
Exit status 0 when every case agrees, 1 otherwise.
"""

import argparse
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared"))
CORPORA = os.path.join(SHARED, "corpora")
VERDICT = re.compile(
    r"^(?:(\S+) )?(-?\d+) (passed|FAILED|failed|PASSED|unexpected FAIL|unexpected PASS)(?::|$)"
)
SUMMARY = re.compile(r"^Summary: .*")


def parse(stdout):
    """The verdict lines (file prefix, id, word) and Summary lines of a -long output."""
    verdicts, summaries = [], []
    for line in stdout.splitlines():
        m = VERDICT.match(line)
        if m:
            verdicts.append((m.group(1) or "", int(m.group(2)), m.group(3)))
        elif SUMMARY.match(line):
            summaries.append(line)
    return verdicts, summaries


def run(cmd, cwd, timeout=600):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def compare(name, files, cwd, engine, args, out_dir):
    """Run both tools; return (agreed, number of verdicts, gogui exit status, note)."""
    start = time.monotonic()
    g_rc, g_out, g_err = run(
        [args.gogui_regress, "-long", "-output", out_dir, shlex.join(engine)] + files, cwd
    )
    t_rc, t_out, t_err = run([args.tengen, "regress"] + files + ["--"] + engine, cwd)
    g_v, g_s = parse(g_out)
    t_v, t_s = parse(t_out)
    problems = []
    if g_rc != t_rc:
        problems.append(f"exit status: gogui-regress {g_rc}, tengen {t_rc}")
    if g_s != t_s:
        problems.append(f"summaries differ:\n  gogui:  {g_s}\n  tengen: {t_s}")
    for i, (g, t) in enumerate(zip(g_v, t_v)):
        if g != t:
            problems.append(f"verdict {i + 1}: gogui-regress {g}, tengen {t}")
            break
    if len(g_v) != len(t_v):
        problems.append(f"verdict count: gogui-regress {len(g_v)}, tengen {len(t_v)}")
    note = ""
    if g_rc == 2:
        last = (g_err.strip().splitlines() or ["?"])
        note = f"gogui-regress stopped: {last[0][:90]}"
    if problems or args.verbose:
        print(f"--- {name} ({time.monotonic() - start:.1f} s)")
        for p in problems:
            print("  " + p)
        if problems:
            print("  gogui-regress stderr: " + g_err.strip()[:300])
            print("  tengen stderr: " + t_err.strip()[:300])
    return not problems, len(g_v), g_rc, note


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tengen", default=os.path.join(ROOT, "target/release/tengen"))
    ap.add_argument(
        "--gogui-regress",
        default=os.path.join(SHARED, "anchors/gogui-1.6.0/bin/gogui-regress"),
    )
    ap.add_argument("--gnugo", default="/usr/games/gnugo")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    args.tengen = os.path.abspath(args.tengen)
    args.gogui_regress = os.path.abspath(args.gogui_regress)

    tengen = [args.tengen]
    cases = []  # (name, files, cwd, engine)
    tests = os.path.join(ROOT, "gtp-tests")
    own = sorted(os.path.basename(f) for f in glob.glob(os.path.join(tests, "*.tst")))
    for f in own:
        cases.append((f"gtp-tests/{f}", [f], tests, tengen))
    cases.append(("gtp-tests/*.tst (one run)", own, tests, tengen))

    derived = os.path.join(CORPORA, "derived")
    run_from = {
        "gtp_protocol_basics.tst": derived,
        "psk_repetition.tst": os.path.join(CORPORA, "fuego-regression"),
    }
    engines = [("tengen", tengen)]
    if os.access(args.gnugo, os.X_OK):
        # Level 0: the same verdicts matter, not GNU Go's strength (final_score reads less).
        engine = [args.gnugo, "--mode", "gtp", "--chinese-rules", "--level", "0"]
        engines.append(("gnugo", engine))
    else:
        # Every case runs or the check fails: a missing GNU Go is not a pass.
        sys.exit(f"regress_diff: {args.gnugo} not found (apt-get install gnugo)")
    for f in sorted(glob.glob(os.path.join(derived, "*.tst"))):
        cwd = run_from.get(os.path.basename(f), CORPORA)
        for label, engine in engines:
            name = f"derived/{os.path.basename(f)} ({label})"
            cases.append((name, [os.path.relpath(f, cwd)], cwd, engine))

    quirks = os.path.join(ROOT, "scripts/regress_quirks")
    for f in sorted(glob.glob(os.path.join(quirks, "*.tst"))):
        b = os.path.basename(f)
        cases.append((f"regress_quirks/{b} (fake)", [b], quirks, [args.tengen, "fake-gtp"]))

    agreed = verdicts = 0
    stopped = []
    with tempfile.TemporaryDirectory() as out_dir:
        for name, files, cwd, engine in cases:
            ok, n, g_rc, note = compare(name, files, cwd, engine, args, out_dir)
            agreed += ok
            verdicts += n if ok else 0
            if note:
                stopped.append(f"{name}: {note}")
    for s in stopped:
        print("  " + s)
    print(
        f"regress_diff: {agreed}/{len(cases)} runs agree "
        f"({verdicts} test verdicts, summaries and exit statuses identical)"
    )
    return 0 if agreed == len(cases) else 1


if __name__ == "__main__":
    sys.exit(main())
