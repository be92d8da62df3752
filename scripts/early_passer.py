#!/usr/bin/env python3
"""A GTP engine that passes once, early: a proxy in front of a real engine.

Every command goes to the proxied engine (default GNU Go level 10, Chinese rules,
positional superko) and its answer comes back verbatim, ids kept, except:

- `name` answers `EarlyPasser(NAME)` with the proxied engine's name;
- the N-th `genmove` of a game (counted from 1 over this player's own genmoves since
  the last `clear_board`) answers `pass` without asking the engine, which is then told
  `play COLOUR pass` so both stay in sync; later genmoves are the engine's again.

N is `--pass-at N`, or with `--random-pass-at LO HI --seed S` drawn uniformly from
LO..HI (inclusive) for each game: a game counter starts at 0 and goes up by one on
every `clear_board`, and game G draws from random.Random(f"{S}:{G}"), so each game of
a match (where the runner keeps the engine and sends `clear_board` between games)
passes at its own move, and the same seed repeats the same moves.

Usage (as `tengen match --b`):
    python3 scripts/early_passer.py --random-pass-at 1 40 --seed 1
    python3 scripts/early_passer.py --pass-at 5 -- /usr/games/gnugo --mode gtp --level 1

Each pass is logged on stderr. Python 3 standard library only.
"""

import argparse
import random
import subprocess
import sys

DEFAULT_ENGINE = [
    "/usr/games/gnugo",
    "--mode",
    "gtp",
    "--level",
    "10",
    "--chinese-rules",
    "--positional-superko",
]


def log(text):
    print(f"early_passer: {text}", file=sys.stderr, flush=True)


def parse_args(argv):
    engine = DEFAULT_ENGINE
    if "--" in argv:
        cut = argv.index("--")
        argv, engine = argv[:cut], argv[cut + 1 :]
        if not engine:
            sys.exit("early_passer: no engine command after --")
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="The proxied engine's command line follows `--` (default: "
        + " ".join(DEFAULT_ENGINE)
        + "). With --random-pass-at, game G (0 before the first clear_board, +1 at "
        "each clear_board) passes at its N-th genmove, N drawn uniformly from LO..HI "
        "by random.Random(f'{SEED}:{G}').",
    )
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "--pass-at", type=int, metavar="N", help="pass at this genmove of every game (from 1)"
    )
    which.add_argument(
        "--random-pass-at",
        type=int,
        nargs=2,
        metavar=("LO", "HI"),
        help="pass at a genmove drawn uniformly from LO..HI, per game",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of --random-pass-at (default 0)")
    args = p.parse_args(argv)
    if args.pass_at is not None and args.pass_at < 1:
        p.error("--pass-at must be 1 or more")
    if args.random_pass_at is not None:
        lo, hi = args.random_pass_at
        if lo < 1 or hi < lo:
            p.error("--random-pass-at needs 1 <= LO <= HI")
    return args, engine


class Engine:
    """The proxied GTP engine over pipes."""

    def __init__(self, command):
        self.proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def ask(self, line):
        """Sends one command line; returns the response lines (without the final
        empty line), or None if the engine has gone."""
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            return None
        lines = []
        while True:
            out = self.proc.stdout.readline()
            if out == "":
                return lines or None
            out = out.rstrip("\r\n")
            if out.strip() == "":
                if lines:
                    return lines
                continue  # stray empty lines before a response
            lines.append(out)

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def clean(line):
    """The command part of an input line (comment, control characters and
    surrounding white space removed), as GTP's preprocessing does."""
    line = line.split("#", 1)[0]
    line = "".join(c if c == "\t" or c >= " " else "" for c in line if c != "\x7f")
    return line.replace("\t", " ").strip()


def split_id(words):
    """(id, the rest) of a command's words."""
    if words and words[0].isdigit():
        return words[0], words[1:]
    return "", words


def send(text):
    sys.stdout.write(text)
    sys.stdout.flush()


def main():
    args, command = parse_args(sys.argv[1:])
    engine = Engine(command)
    game = 0
    genmoves = 0

    def pass_at():
        if args.pass_at is not None:
            return args.pass_at
        lo, hi = args.random_pass_at
        return random.Random(f"{args.seed}:{game}").randint(lo, hi)

    target = pass_at()
    for raw in sys.stdin:
        line = clean(raw)
        if not line:
            continue
        words = line.split()
        gid, rest = split_id(words)
        name = rest[0].lower() if rest else ""
        if name == "genmove" and len(rest) == 2:
            genmoves += 1
            if genmoves == target:
                colour = rest[1]
                answer = engine.ask(f"play {colour} pass")
                if answer is None:
                    break
                if not answer[0].startswith("="):
                    log(f"engine refused play {colour} pass: {answer[0]}")
                log(f"game {game}: pass at genmove {genmoves}")
                send(f"={gid} pass\n\n")
                continue
        answer = engine.ask(line)
        if answer is None:
            log("the proxied engine has gone")
            break
        if name == "name" and answer[0].startswith("="):
            head = answer[0][1 + len(gid) :].strip()
            answer = [f"={gid} EarlyPasser({head})"] + answer[1:]
        if name == "clear_board" and answer[0].startswith("="):
            game += 1
            genmoves = 0
            target = pass_at()
        send("\n".join(answer) + "\n\n")
        if name == "quit":
            break
    engine.close()


if __name__ == "__main__":
    main()
