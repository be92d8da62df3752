#!/usr/bin/env python3
"""A hostile GTP client: floods an engine's stdin with 1 MB lines during a long genmove.

Starts BINARY with the engine arguments (default: --threads 1 --max-memory 64
--playouts 100000000 -v 0), sends `boardsize 19` and `genmove b`, then writes lines
`known_command xxx...` of --line-bytes bytes as fast as the pipe takes them for
--seconds, sampling the engine's VmRSS and VmHWM from /proc every 0.1 s. Then it
writes `# interrupt` and `quit`, waits up to --drain seconds for the engine to answer
and exit, and kills it if it has not. Prints the RSS over time, the peak (VmHWM), the
lines written and the responses received (`boardsize`, `genmove`, one a flood line,
`quit`: lines_written + 3 when everything was answered).

Usage:
    scripts/flood_stdin.py target/release/tengen [--seconds 15] [--drain 10] [-- ARGS...]

Python 3 standard library only; Linux (/proc).
"""

import argparse
import subprocess
import sys
import threading
import time

DEFAULT_ARGS = ["--threads", "1", "--max-memory", "64", "--playouts", "100000000", "-v", "0"]


def status_kib(pid, key):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def main():
    argv = sys.argv[1:]
    engine_args = DEFAULT_ARGS
    if "--" in argv:
        cut = argv.index("--")
        argv, engine_args = argv[:cut], argv[cut + 1 :]
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("binary")
    p.add_argument("--seconds", type=float, default=15.0, help="flood length (default 15)")
    p.add_argument("--line-bytes", type=int, default=1_000_000, help="bytes a line, LF included")
    p.add_argument("--drain", type=float, default=10.0, help="seconds to wait for the end")
    args = p.parse_args(argv)

    proc = subprocess.Popen(
        [args.binary] + engine_args,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    pid = proc.pid
    responses = [0]

    def read_out():
        # Counts responses (a line starting with = or ? opens one).
        for line in proc.stdout:
            if line[:1] in (b"=", b"?"):
                responses[0] += 1

    reader = threading.Thread(target=read_out, daemon=True)
    reader.start()

    proc.stdin.write(b"boardsize 19\ngenmove b\n")
    proc.stdin.flush()
    time.sleep(0.2)

    line = b"known_command " + b"x" * (args.line_bytes - len(b"known_command ") - 1) + b"\n"
    written = [0]
    stop = threading.Event()

    def flood():
        try:
            while not stop.is_set():
                proc.stdin.write(line)
                written[0] += 1
            proc.stdin.write(b"# interrupt\nquit\n")
            proc.stdin.flush()
            proc.stdin.close()
        except (BrokenPipeError, OSError, ValueError):
            pass

    writer = threading.Thread(target=flood, daemon=True)
    t0 = time.monotonic()
    writer.start()
    samples = []
    next_report = 1.0
    while time.monotonic() - t0 < args.seconds and proc.poll() is None:
        time.sleep(0.1)
        rss = status_kib(pid, "VmRSS")
        if rss is not None:
            samples.append(rss)
        if time.monotonic() - t0 >= next_report:
            print(f"t={next_report:4.0f} s  rss={(rss or 0) / 1024:7.1f} MiB  lines written={written[0]}")
            sys.stdout.flush()
            next_report += 1.0
    peak = status_kib(pid, "VmHWM") or 0
    stop.set()
    end = time.monotonic() + args.drain
    while time.monotonic() < end and proc.poll() is None:
        time.sleep(0.1)
    exited = proc.poll() is not None
    if not exited:
        proc.kill()
        proc.wait()
    reader.join(timeout=5)
    writer.join(timeout=5)
    flooded = written[0]
    print(
        f"binary={args.binary} seconds={args.seconds:g} line_bytes={args.line_bytes} "
        f"peak_rss_mib={peak / 1024:.1f} max_sampled_rss_mib={max(samples, default=0) / 1024:.1f} "
        f"lines_written={flooded} responses={responses[0]} "
        f"exited={'yes' if exited else 'no (killed)'}"
    )


if __name__ == "__main__":
    main()
