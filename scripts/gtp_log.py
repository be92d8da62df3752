#!/usr/bin/env python3
"""Log the GTP traffic between a GUI and an engine.

    gtp_log.py LOGFILE [--name-as NAME] -- ENGINE [ARGS...]

Spawns ENGINE, copies stdin to it and its stdout back, and appends every line of both
directions to LOGFILE with a time stamp (`>` GUI to engine, `<` engine to GUI). The
engine's stderr goes to LOGFILE too (`!`). `--name-as NAME` rewrites the answer to `name`
into `= NAME` (with the command's id kept), to see how a GUI treats another engine, e.g.
`--name-as KataGo` makes Lizzie 0.7.4 take Tengen for KataGo and use `kata-analyze`.

Used for issue 26 (Lizzie's analysis after the engine's move); see docs/gui.md, Lizzie.
"""
import subprocess
import sys
import threading
import time


def main():
    args = sys.argv[1:]
    if len(args) < 3 or "--" not in args:
        sys.exit(__doc__)
    log_path = args[0]
    sep = args.index("--")
    opts, engine = args[1:sep], args[sep + 1:]
    name_as = opts[opts.index("--name-as") + 1] if "--name-as" in opts else None

    log = open(log_path, "a", buffering=1)
    t0 = time.monotonic()
    lock = threading.Lock()

    def note(tag, line):
        with lock:
            log.write(f"{time.monotonic() - t0:9.3f} {tag} {line.rstrip(chr(10))}\n")

    proc = subprocess.Popen(engine, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, bufsize=0)
    name_ids = set()  # ids of pending `name` commands whose answer is rewritten

    def gui_to_engine():
        for raw in sys.stdin.buffer:
            line = raw.decode(errors="replace")
            note(">", line)
            words = line.split()
            if name_as and words:
                if words[0] == "name":
                    name_ids.add("")
                elif len(words) > 1 and words[0].isdigit() and words[1] == "name":
                    name_ids.add(words[0])
            try:
                proc.stdin.write(raw)
                proc.stdin.flush()
            except BrokenPipeError:
                break
        try:
            proc.stdin.close()
        except BrokenPipeError:
            pass

    def engine_stderr():
        for raw in proc.stderr:
            note("!", raw.decode(errors="replace"))

    threading.Thread(target=gui_to_engine, daemon=True).start()
    threading.Thread(target=engine_stderr, daemon=True).start()

    out = sys.stdout.buffer
    for raw in proc.stdout:
        line = raw.decode(errors="replace")
        if name_ids and line.startswith("="):
            head = line[1:].split(" ", 1)[0].strip()
            if head in name_ids:
                name_ids.discard(head)
                raw = f"={head} {name_as}\n".encode()
                note("<", line.rstrip("\n") + f"  (passed on as: ={head} {name_as})")
                out.write(raw)
                out.flush()
                continue
        note("<", line)
        out.write(raw)
        out.flush()
    note("#", f"engine exited {proc.wait()}")


if __name__ == "__main__":
    main()
