"""A scripted KEI engine for tests, with switchable misbehaviour.

Run as ``python tests/engines/scripted.py [--crash-at EVENT] [--hang-at EVENT]
[--cheat KIND] [--after N]``.  It plays the first legal move in square
order (the lowest), fills left, and sends one ``info`` line per ``go``.
EVENT is ``handshake``, ``go``, ``fill`` or ``isready``; with ``--after N``
the misbehaviour starts at the (N+1)-th such event.  ``--cheat`` answers
``go`` with an ``illegal`` move, a ``malformed`` one, ``none``, or a fill
with ``fill`` (an invalid choice).  ``--no-newgame`` answers ``newgame`` as an
unknown command (an engine written before KEI had it).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from kamisado.rules.match import Match
from kamisado.rules.position import Position

START = "obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0"


def serve(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--crash-at", default=None)
    p.add_argument("--hang-at", default=None)
    p.add_argument("--cheat", default=None)
    p.add_argument("--after", type=int, default=0)
    p.add_argument("--name", default="Mock")
    p.add_argument("--no-newgame", action="store_true")
    args = p.parse_args(argv)
    seen: dict[str, int] = {}
    match = Match(1)

    def out(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def trouble(event: str) -> None:
        seen[event] = seen.get(event, 0) + 1
        if seen[event] <= args.after:
            return
        if args.crash_at == event:
            sys.stderr.write(f"mock engine: crashing at {event}\n")
            os._exit(3)
        if args.hang_at == event:
            while True:
                time.sleep(60)

    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        cmd = words[0]
        if cmd == "kei":
            trouble("handshake")
            out(f"id name {args.name}")
            out("id author tests")
            out("option name Style type combo default calm var calm var wild")
            out("option name Depth type spin default 1 min 1 max 9")
            out("keiok")
        elif cmd == "isready":
            trouble("isready")
            out("readyok")
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
            trouble("go")
            moves = sorted(str(m) for m in match.position.legal_moves)
            if args.cheat == "illegal" and seen["go"] > args.after:
                legal = set(moves)
                bad = next(
                    f"{a}-{b}"
                    for a in ("a1", "h8", "d4")
                    for b in ("a2", "h7", "d5", "a8")
                    if f"{a}-{b}" not in legal
                )
                out(f"bestmove {bad}")
                continue
            if args.cheat == "malformed" and seen["go"] > args.after:
                out("bestmove z9-c5")
                continue
            if args.cheat == "none" and seen["go"] > args.after:
                out("bestmove none")
                continue
            out(f"info depth 1 score cp 7 nodes 1 pv {moves[0]}")
            out("info string thinking is easy")
            out(f"bestmove {moves[0]}")
        elif cmd == "fill":
            trouble("fill")
            if args.cheat == "fill":
                out("fillchoice up")
            else:
                out("fillchoice left")
        elif cmd == "quit":
            return 0
        elif cmd == "newgame" and args.no_newgame:
            out(f"info string error: unknown command {cmd!r}")
        elif cmd in ("setoption", "newgame", "stop"):
            pass
        else:
            out(f"info string error: unknown command {cmd!r}")
    return 0


if __name__ == "__main__":
    sys.exit(serve(sys.argv[1:]))
