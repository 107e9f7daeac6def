"""The ``kamisado`` command line.

Other tools script against ``moves``, ``apply`` and ``perft``; their output
is a contract (see the README).  Errors go to standard error with exit
status 2 and nothing on standard output.
"""

from __future__ import annotations

import sys

from kamisado.args import (
    Parser,
    die,
    duration,
    duration_help,
    int_between,
    note_early_signals,
    quiet_pipe,
    take_kpn,
)

# before the heavier imports: a stop of ``kamisado tournament`` or ``kamisado
# web`` from here on is noted and ends the command (docs/tournament.md, docs/deploy.md)
if __name__ == "__main__" or sys.argv[0].endswith("kamisado"):
    note_early_signals(sys.argv[1:])

import argparse  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from typing import TYPE_CHECKING  # noqa: E402

from kamisado.rules.board import KamisadoError, MalformedError, Move  # noqa: E402
from kamisado.rules.position import Position  # noqa: E402

if TYPE_CHECKING:
    from kamisado.rules.record import Record

__all__ = ["PERFT_MAX_DEPTH", "main"]

#: The deepest ``kamisado perft`` counts: depth 10 from the start takes about
#: three minutes on the compiled core, each further move about ten times more.
PERFT_MAX_DEPTH = 10


def _moves_line(kpn: str) -> str:
    pos = Position(kpn)
    return " ".join(sorted(str(m) for m in pos.legal_moves))


def cmd_moves(args: argparse.Namespace) -> int:
    try:
        args.kpn, rest = take_kpn(args.kpn)
    except KamisadoError as e:
        return die(str(e))
    if rest:
        return die(f"unexpected arguments after the KPN: {' '.join(rest)}")
    if args.kpn != "-":
        try:
            line = _moves_line(args.kpn)
        except KamisadoError as e:
            return die(f"{args.kpn!r}: {e}")
        print(line)
        return 0
    for number, text in enumerate(sys.stdin, 1):
        text = text.strip()
        try:
            line = _moves_line(text)
        except KamisadoError as e:
            sys.stdout.flush()
            return die(f"standard input line {number}: {e}")
        print(line)
    return 0


def cmd_apply(args: argparse.Namespace) -> int:
    from kamisado.rules.match import FILLS, Match

    try:
        args.kpn, tokens = take_kpn(args.kpn)
        args.tokens = tokens
        pos = Position(args.kpn)
        match = Match(pos.target, start=pos)
    except KamisadoError as e:
        return die(f"{args.kpn!r}: {e}")
    for token in args.tokens:
        try:
            if token in FILLS:
                match.choose_fill(token)
            else:
                if "-" not in token:
                    raise MalformedError(
                        "expected a move in square form like c1-c5, or left/right,"
                        f" found {token!r}"
                    )
                match.push_move(Move.from_str(token))
        except KamisadoError as e:
            return die(f"token {token!r}: {e}")
    print(match.summary())
    return 0


def cmd_perft(args: argparse.Namespace) -> int:
    try:
        args.kpn, rest = take_kpn(args.kpn, keep_numbers=1)
        if len(rest) != 1 or not rest[0].isdigit():
            raise MalformedError(
                f"expected KPN then a depth (a whole number), found {' '.join(rest)!r}"
            )
        args.depth = int(rest[0])
        if args.depth > PERFT_MAX_DEPTH:
            raise MalformedError(
                f"expected a depth of at most {PERFT_MAX_DEPTH} (deeper counts take"
                f" hours), found {args.depth}"
            )
        pos = Position(args.kpn)
    except KamisadoError as e:
        return die(f"{args.kpn!r}: {e}")
    from kamisado.engine import perft

    print(perft(pos, args.depth))
    return 0


def _use_colour(flag: bool | None) -> bool:
    if flag is not None:
        return flag
    return sys.stdout.isatty()


def cmd_show(args: argparse.Namespace) -> int:
    from kamisado.pictures.render import render

    try:
        args.kpn, rest = take_kpn(args.kpn)
        if rest:
            raise MalformedError(f"unexpected arguments after the KPN: {' '.join(rest)}")
        pos = Position(args.kpn)
    except KamisadoError as e:
        return die(f"{args.kpn!r}: {e}")
    if args.svg is None and args.png is None:
        print(render(pos, colour=args.colour if args.colour is not None else True))
        return 0
    return _write_pictures(args, pos)


def _write_pictures(args: argparse.Namespace, pos: Position) -> int:
    """``show --svg FILE`` / ``--png FILE``: the position as a picture (with its
    last move when the KPN has one; a KPN has none)."""
    from kamisado.pictures import svg

    options = {"size": args.size, "characters": args.characters, "flipped": args.flipped}
    try:
        if args.svg is not None:
            with open(args.svg, "w", encoding="utf-8") as f:
                f.write(svg.board(pos, **options) + "\n")
        if args.png is not None:
            try:
                from kamisado.pictures import gif
            except ImportError as e:  # pragma: no cover - Pillow missing
                return die(f"show --png needs Pillow (pip install pillow): {e}")
            gif.png(pos, args.png, **options)
    except OSError as e:
        return die(f"cannot write {e.filename}: {e.strerror}")
    return 0


def _load_record(path: str) -> Record | int:
    """The match record at ``path``, or the exit status after saying why it
    cannot be read."""
    from kamisado.rules import record

    try:
        return record.load(path)
    except OSError as e:
        return die(f"cannot read {path}: {e.strerror}")
    except KamisadoError as e:
        return die(f"{path}: {e}")


def cmd_gif(args: argparse.Namespace) -> int:
    rec = _load_record(args.record)
    if isinstance(rec, int):
        return rec
    try:
        from kamisado.pictures import gif
    except ImportError as e:  # pragma: no cover - Pillow missing
        return die(f"gif needs Pillow (pip install pillow): {e}")
    try:
        n = gif.save_gif(rec, args.out, size=args.size, delay=args.delay,
                         characters=args.characters)
    except OSError as e:
        return die(f"cannot write {args.out}: {e.strerror}")
    print(f"{args.out}: {n} frames")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from kamisado.pictures.render import render
    from kamisado.rules import record

    rec = _load_record(args.record)
    if isinstance(rec, int):
        return rec
    colour = _use_colour(args.colour)
    for step in record.replay(rec):
        if step.ply == 0:
            fill = f" ({step.fill} fill)" if step.fill else ""
            title = f"Round {step.round}{fill}: start"
        else:
            title = f"Round {step.round}, move {step.ply}: {step.move}"
        done = "; ".join(e.long() for e in step.entries)
        print(title + (f"  [{done}]" if done else ""))
        if step.comment is not None:
            print(f"Comment: {step.comment.describe()}  {{{step.comment.text()}}}")
        shown = step.position
        if step.outcome is not None:
            # The round's points are the match's once it ends: show the score
            # after them (the KPN below stays the position's own).
            shown = shown.copy()
            shown.points[step.outcome.winner] += step.outcome.points
        print(render(shown, colour=colour))
        print(step.position.kpn())
        print()
    print(f"Result: {record.result_text(rec)}")
    return 0


#: The built-in commands, in the order ``kamisado`` lists them.
COMMANDS: dict[str, str] = {
    "moves": "print the legal moves of a KPN position",
    "apply": "apply moves (and fill choices) to a KPN position",
    "perft": f"count move sequences of exactly DEPTH moves (DEPTH 0..{PERFT_MAX_DEPTH})",
    "show": "draw a position in the terminal",
    "replay": "check a match record and print each position",
    "gif": "draw a match record as an animated GIF, one frame per move",
}


def version_text() -> str:
    """The version line: the package's version and the engine backend that runs.

    >>> version_text().startswith("kamisado ")
    True
    """
    from kamisado import __version__
    from kamisado.engine import BACKEND

    engine = "compiled C core" if BACKEND == "compiled" else "pure-Python engine"
    return f"kamisado {__version__} ({engine}; Python {sys.version.split()[0]})"


def command_list() -> str:
    """What plain ``kamisado`` prints: every command with one line of help.

    >>> command_list().splitlines()[2].split()[0]
    'web'
    """
    rows = [("web", PLUGINS["web"][1]), ("play", PLUGINS["play"][1])]
    rows += list(COMMANDS.items())
    rows += [(name, text) for name, (_, text) in PLUGINS.items() if name not in ("web", "play")]
    width = max(len(name) for name, _ in rows)
    lines = ["usage: kamisado COMMAND [ARGS...]   (kamisado COMMAND --help for more)", ""]
    lines += [f"  {name.ljust(width)}  {text}" for name, text in rows]
    return "\n".join(lines)


class _Version(argparse.Action):
    """``--version``, computed only when asked (it loads the engine)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help=str(kwargs.get("help", "")))

    def __call__(self, parser: argparse.ArgumentParser, *_args: object) -> None:
        print(version_text())
        parser.exit(0)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``kamisado`` command."""
    p = Parser(
        prog="kamisado",
        description="Kamisado: rules engine, notation, records and tools.",
    )
    p.add_argument("--version", action=_Version, help="print the version and engine backend")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND",
                           parser_class=Parser)

    s = sub.add_parser("moves", help=COMMANDS["moves"])
    s.add_argument("kpn", metavar="KPN", nargs="+",
                   help="a position in KPN (one quoted argument), or - to read lines")
    s.set_defaults(func=cmd_moves)

    s = sub.add_parser("apply", help=COMMANDS["apply"])
    s.add_argument("kpn", metavar="KPN TOKEN", nargs="+",
                   help="a position in KPN, then moves (c1-c5) and fill choices (left, right)")
    s.set_defaults(func=cmd_apply)

    s = sub.add_parser("perft", help=COMMANDS["perft"])
    s.add_argument("kpn", metavar="KPN DEPTH", nargs="+")
    s.set_defaults(func=cmd_perft)

    for name, func, what in (("show", cmd_show, "kpn"), ("replay", cmd_replay, "record")):
        s = sub.add_parser(name, help=COMMANDS[name])
        s.add_argument(what, metavar=what.upper(), nargs="+" if what == "kpn" else None)
        g = s.add_mutually_exclusive_group()
        g.add_argument("--colour", "--color", dest="colour", action="store_true", default=None,
                       help="24-bit ANSI colours")
        g.add_argument("--plain", dest="colour", action="store_false",
                       help="letters only, no colour codes")
        if name == "show":
            s.add_argument("--svg", metavar="FILE", help="write the position as an SVG picture")
            s.add_argument("--png", metavar="FILE",
                           help="write the position as a PNG picture (needs Pillow)")
            _picture_options(s, 400)
        s.set_defaults(func=func)

    s = sub.add_parser("gif", help=COMMANDS["gif"])
    s.add_argument("record", metavar="RECORD", help="a match record")
    s.add_argument("out", metavar="OUT.gif", help="the GIF to write")
    s.add_argument("--delay", metavar="TIME", type=duration("ms", 20, 60000, whole=True),
                   default=700, help=f"time per move, in {duration_help('ms')} (20ms..1m,"
                   " default 700 ms; a round's end stays 3 times as long)")
    _picture_options(s, 360, flip=False)
    s.set_defaults(func=cmd_gif)

    for name, (target, helptext) in PLUGINS.items():
        s = sub.add_parser(name, help=helptext, add_help=False)
        s.add_argument("rest", nargs=argparse.REMAINDER)
        s.set_defaults(func=_plugin(name, target))
    return p


def _picture_options(s: argparse.ArgumentParser, size: int, flip: bool = True) -> None:
    s.add_argument("--size", metavar="N", type=int_between(64, 4000), default=size,
                   help=f"the board's width and height in pixels (default {size})")
    s.add_argument("--characters", action="store_true",
                   help="draw the Chinese characters on squares and towers")
    if flip:
        s.add_argument("--flipped", action="store_true", help="Gold's home row at the bottom")


#: Commands that live in their own modules: ``name -> ("module:function", help)``.
#: The function takes the arguments after the command name and returns the exit
#: status; it parses them itself (``prog="kamisado NAME"``).  The module is
#: imported only when its command runs, so ``moves`` and ``apply`` stay fast.
PLUGINS: dict[str, tuple[str, str]] = {
    "analyse": ("kamisado.engine.analysis:main_analyse", "analyse a position with the engine"),
    "solve": ("kamisado.engine.analysis:main_solve", "prove who wins the round: '<b|g> wins in N'"),
    "solve-match": ("kamisado.proving.cli:main_solve_match", "prove who wins a whole match, on Dask workers"),
    "verify-match": ("kamisado.proving.cli:main_verify_match", "re-check a match proof with the rules and the round solver"),
    "best": ("kamisado.engine.analysis:main_best", "print the engine's move for a position"),
    "web": ("kamisado.web:main", "serve the game in the browser (the main program)"),
    "worker": ("kamisado.web.work.jobs:main", "think for kamisado web --queue: computer moves and analysis"),
    "backup": ("kamisado.web.store.backup:main_backup", "copy kamisado web's SQLite database, while it plays"),
    "restore": ("kamisado.web:main_restore", "put a backup back (never under a running server)"),
    "admin": ("kamisado.web.accounts.admin:main", "moderate kamisado web: roles, reports, mutes, closed accounts"),
    "play": ("kamisado.tui:main", "play in the terminal"),
    "engine": ("kamisado.protocol.kei:main", "speak the engine protocol on stdin/stdout"),
    "tournament": ("kamisado.protocol.tournament_cli:main", "play a tournament between engines"),
    "bot": ("kamisado.api.bot:main", "put a KEI engine online on a kamisado site, as a bot"),
}


def _plugin(name: str, target: str) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        import importlib

        module_name, _, func_name = target.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as e:  # pragma: no cover - a broken install
            return die(f"{name}: cannot load {module_name}: {e}")
        func: Callable[[list[str]], int] = getattr(module, func_name)
        return func(list(args.rest))

    return run


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status.

    Every command ends quietly when its standard output is closed under it
    (``kamisado analyse --review game.kmr | head -5``): exit status 141, as a
    shell reports for any Unix tool that a closed pipe ends, and nothing on
    standard error (:func:`kamisado.args.quiet_pipe`).
    """
    words = list(sys.argv[1:] if argv is None else argv)
    return quiet_pipe(lambda: _run(words))


def _run(words: list[str]) -> int:
    if not words:
        print(command_list())
        return 0
    if words[0] in PLUGINS:  # the plugin parses its own options (--help too)
        return _plugin(words[0], PLUGINS[words[0]][0])(argparse.Namespace(rest=words[1:]))
    args = build_parser().parse_args(words)
    status: int = args.func(args)
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
