#!/usr/bin/env python3
"""Hostile SGF records against a Tengen binary: builds each file in a temporary folder,
runs `loadsgf FILE [N]` then `name` in a fresh engine (once with --max-memory 64, once
with the defaults), and prints a Markdown table of the answers, the peak RSS of the
process (VmHWM, read just before `quit`) and the time from start to the answer to
`name` (the --max-memory 64 run).

Usage: scripts/hostile_sgf.py [BINARY] [--cap-gib G]
  BINARY    default target/release/tengen
  --cap-gib address-space cap of each run (default 3), so an unbounded binary fails
            an allocation instead of taking the machine's memory.
"""

import os
import resource
import subprocess
import sys
import tempfile
import time

MIB = 1 << 20
VALUE = "[" + "x" * 13 + "]"


def cases():
    """(name, description, text builder, move number or None)."""
    big = 32 * MIB
    return [
        ("nodes", "`(;SZ[9]` + 4,000,000 `;` + `)` (4 MB)",
         lambda: "(;SZ[9]" + ";" * 4_000_000 + ")", None),
        ("nodes", "the same, `loadsgf FILE 2`",
         lambda: "(;SZ[9]" + ";" * 4_000_000 + ")", 2),
        ("full", "`(;SZ[9]` + `;` up to 32 MiB + `)`",
         lambda: "(;SZ[9]" + ";" * (big - 8) + ")", None),
        ("variations", "`(;SZ[9];B[ee];W[cc]` + 1,000,000 `(;B[aa])` + `)` (8 MB)",
         lambda: "(;SZ[9];B[ee];W[cc]" + "(;B[aa])" * 1_000_000 + ")", None),
        ("props", "1,000,000 `XX[]` in the root (4 MB)",
         lambda: "(;SZ[9]" + "XX[]" * 1_000_000 + ")", None),
        ("lists", "100,000 `AB[aa:ss]` in the root (0.9 MB)",
         lambda: "(;SZ[19]" + "AB[aa:ss]" * 100_000 + ")", None),
        ("comment", "one 30 MiB comment `C[xxx...]`",
         lambda: "(;SZ[9]C[" + "x" * (30 * MIB) + "])", None),
        ("limits", "at every limit: 25,000 nodes, 200,000 properties, 500,000 values "
         "(`;XX[a][b][c]` x4 `YY[a][b]` x4 per node, 1.9 MB)",
         lambda: "(;SZ[9]" + (";" + "XX[a][b][c]" * 4 + "YY[a][b]" * 4) * 24_999 + ")",
         None),
        ("limits13", "the same with 13-byte values (7.6 MB, near the 8 MiB limit too)",
         lambda: "(;SZ[9]" + (";" + ("XX" + VALUE * 3) * 4 + ("YY" + VALUE * 2) * 4) * 24_999
         + ")", None),
        ("moves", "25,000 nodes of passes `;B[];W[]...` (0.1 MB)",
         lambda: "(;SZ[9]" + ";B[];W[]" * 12_499 + ";B[])", None),
        ("comment8", "one comment just under 8 MiB",
         lambda: "(;SZ[9]C[" + "x" * (8 * MIB - 16) + "])", None),
        ("komi", "`(;SZ[9]KM[1e308];B[ee])`",
         lambda: "(;SZ[9]KM[1e308];B[ee])", None),
    ]


def vm_hwm_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def measure(binary, args, commands, cap):
    """Runs `commands` in a fresh engine, one response at a time, and reads the peak RSS
    (VmHWM) from /proc just before `quit`: wait4's ru_maxrss would count the forked
    Python image too. Returns (responses, stderr, seconds, peak KiB, exit status)."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    t0 = time.monotonic()
    p = subprocess.Popen([binary, "-v", "1", *args], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         preexec_fn=limit)
    responses = []
    peak = None
    for c in commands:
        p.stdin.write((c + "\n").encode())
        p.stdin.flush()
        lines = []
        while True:
            line = p.stdout.readline().decode(errors="replace")
            if not line or not line.strip():
                break
            lines.append(line.rstrip("\n"))
        if not line:
            break
        responses.append("\n".join(lines))
        peak = vm_hwm_kib(p.pid) or peak
    seconds = time.monotonic() - t0
    p.stdin.write(b"quit\n")
    try:
        p.stdin.close()
    except BrokenPipeError:
        pass
    err = p.stderr.read().decode(errors="replace")
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = status
    if peak is None:
        peak = usage.ru_maxrss
    return responses, err, seconds, peak, status


def main():
    argv = sys.argv[1:]
    cap_gib = 3
    if "--cap-gib" in argv:
        i = argv.index("--cap-gib")
        cap_gib = float(argv[i + 1])
        del argv[i:i + 2]
    binary = argv[0] if argv else "target/release/tengen"
    cap = int(cap_gib * (1 << 30))
    print(f"binary: {binary}; address space capped at {cap_gib:g} GiB")
    print()
    print("| input | answer (then `name`) | peak RSS, --max-memory 64 | peak RSS, default | time |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        built = {}
        for name, desc, build, n in cases():
            path = os.path.join(tmp, name + ".sgf")
            if name not in built:
                with open(path, "w") as f:
                    f.write(build())
                built[name] = path
            cmd = f"loadsgf {path}" + (f" {n}" if n else "")
            cells = []
            answer = None
            seconds = None
            for args in (["--max-memory", "64"], []):
                responses, err, secs, peak, status = measure(binary, args, [cmd, "name"], cap)
                if answer is None:
                    if len(responses) < 2:
                        reason = "out of memory" if "memory" in err else f"status {status}"
                        answer = f"engine died ({reason})"
                    else:
                        answer = f"`{responses[0]}`, `{responses[1]}`"
                        why = [l for l in err.splitlines() if "loadsgf" in l]
                        if why and responses[0].startswith("?"):
                            answer += " — " + why[0].split(": ", 2)[-1]
                    seconds = secs
                cells.append(f"{peak / 1024:.0f} MiB")
            print(f"| {desc} | {answer} | {cells[0]} | {cells[1]} | {seconds:.2f} s |")


if __name__ == "__main__":
    main()
