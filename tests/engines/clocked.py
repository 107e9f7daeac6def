"""A scripted KEI engine that takes its time, for the tournament's clock tests.

Run as ``python tests/engines/clocked.py [--delay MS] [--after N]
[--share F] [--log FILE] [--name NAME]``.  It plays the first legal move in
square order and fills left.  Before each ``bestmove`` it sleeps:

* ``--delay MS``: that long on every move after the first N (``--after``);
* ``--share F`` (without ``--delay``): F of what its clock allows, the time
  left over 20 moves plus the increment (``go btime .. gtime .. binc ..
  ginc ..``, or ``movetime``), so a well-behaved engine under a clock.

``--log FILE`` appends every line it reads to FILE.  It declares the
options ``Seed`` (spin), ``Hash`` (spin 1..1024) and ``Style`` (combo) and
reports the ones set as ``info string set NAME VALUE``.
"""

from __future__ import annotations

import argparse
import sys
import time

from kamisado.rules.match import Match
from kamisado.rules.position import Position

START = "obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0"


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--delay", type=int, default=None)
    p.add_argument("--after", type=int, default=0)
    p.add_argument("--share", type=float, default=0.5)
    p.add_argument("--log", default=None)
    p.add_argument("--name", default="Clocked")
    args = p.parse_args(argv)
    log = open(args.log, "a", encoding="utf-8") if args.log else None  # noqa: SIM115
    match = Match(1)
    moves_made = 0

    def out(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    for raw in sys.stdin:
        if log is not None:
            log.write(raw)
            log.flush()
        words = raw.split()
        if not words:
            continue
        cmd = words[0]
        if cmd == "kei":
            out(f"id name {args.name}")
            out("id author tests")
            out("option name Seed type spin default 0 min 0 max 2147483647")
            out("option name Hash type spin default 16 min 1 max 1024")
            out("option name Style type combo default calm var calm var wild")
            out("keiok")
        elif cmd == "isready":
            out("readyok")
        elif cmd == "setoption":
            out(f"info string set {words[2]} {words[4] if len(words) > 4 else ''}")
        elif cmd == "position":
            if words[1] == "startpos":
                kpn, tokens = START, words[3:]
            else:
                at = words.index("moves") if "moves" in words else len(words)
                kpn, tokens = " ".join(words[2:at]), words[at + 1 :]
            match = Match(Position(kpn).target, start=kpn)
            for token in tokens:
                match.apply(token)
        elif cmd == "go":
            fields = dict(zip(words[1::2], words[2::2], strict=False))
            if args.delay is not None:
                pause = args.delay / 1000 if moves_made >= args.after else 0.0
            elif "movetime" in fields:
                pause = args.share * int(fields["movetime"]) / 1000
            else:
                me = "b" if match.position.turn == 0 else "g"
                left = int(fields.get(f"{me}time", 0))
                inc = int(fields.get(f"{me}inc", 0))
                togo = int(fields.get("movestogo", 20))
                pause = args.share * (left / togo + inc) / 1000
            time.sleep(pause)
            moves_made += 1
            move = min(str(m) for m in match.position.legal_moves)
            out(f"info depth 1 score cp 0 nodes 1 pv {move}")
            out(f"bestmove {move}")
        elif cmd == "fill":
            out("fillchoice left")
        elif cmd == "quit":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
