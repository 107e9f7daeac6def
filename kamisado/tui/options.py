"""``kamisado play``'s command line: its options, and where unfinished games are kept.

>>> opts = parse_args(["--level", "club", "--match", "long", "--colour", "gold"])
>>> opts.level, opts.target, opts.series, opts.colour
('club', 7, False, 'gold')
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kamisado.args import Parser, duration, duration_help, int_between
from kamisado.engine.levels import LEVELS, SEED_MAX

__all__ = ["MATCH_TARGETS", "Options", "last_unfinished", "parse_args", "unfinished_folder"]

#: ``--match`` names and their targets (points to win).
MATCH_TARGETS = {"single": 1, "standard": 3, "long": 7, "marathon": 15}


@dataclass
class Options:
    """Everything ``kamisado play`` was asked to do."""

    level: str | None = None
    """The computer's level, or ``None`` for two people at one keyboard."""
    colour: str = "black"
    """The colour the person plays against the computer (``black`` or ``gold``)."""
    target: int = 1
    series: bool = False
    seed: int = 0
    save: str | None = None
    resume: str | None = None
    """A record to go on with; ``""``: the last unfinished game (:func:`last_unfinished`)."""
    plain: bool = False
    delay: float = 0.4
    """Shortest time a computer move takes on screen (seconds), so it can be followed."""
    proof_store: str | None = None
    """A match proof store (``kamisado solve-match --store``) ``perfect`` plays from."""


def _build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="kamisado play",
        description=(
            "Play Kamisado in the terminal: two people at one keyboard, or against"
            " a computer level. Keys: cursor keys and Enter pick a tower and its"
            " destination; type a move (c1-c5, 'Red Forward 4', rF4, c5) and press"
            " Enter; s saves, l switches letters mode, v turns the board, q quits."
        ),
    )
    p.add_argument(
        "--level",
        choices=list(LEVELS),
        help="play against this computer level (default: two people, hotseat)",
    )
    p.add_argument(
        "--colour",
        "--color",
        choices=["black", "gold"],
        default="black",
        help="your colour against the computer (Black moves first; default black)",
    )
    p.add_argument(
        "--match",
        choices=list(MATCH_TARGETS),
        help="single round (1 point), standard (3), long (7) or marathon (15); default single",
    )
    p.add_argument(
        "--series",
        type=int,
        metavar="N",
        help="a series of single rounds: the first to win N rounds wins",
    )
    p.add_argument("--seed", type=int_between(0, SEED_MAX),
                   help="the computer's seed (default: random)")
    p.add_argument(
        "--save",
        metavar="FILE",
        help="write the match record to FILE after every move (and on the s key)",
    )
    p.add_argument(
        "--resume",
        metavar="FILE",
        nargs="?",
        const="",
        help="go on with the match in a record FILE (saved to it again unless --save);"
        " without FILE, with the last unfinished game (kept in the data folder)",
    )
    p.add_argument(
        "--plain",
        action="store_true",
        help="letters mode: no colours, every square as 'square colour:tower'",
    )
    p.add_argument(
        "--delay",
        type=duration("s", 0),
        default=0.4,
        metavar="TIME",
        help=f"shortest time a computer move takes on screen, in {duration_help('s')}"
        " (default 0.4 s)",
    )
    p.add_argument(
        "--proof-store",
        metavar="PATH_OR_URL",
        help="a match proof store (kamisado solve-match --store) the perfect level plays from",
    )
    return p


def parse_args(argv: Sequence[str]) -> Options:
    """Read the command line; a bad option exits with status 2 and a message."""
    p = _build_parser()
    ns = p.parse_args(list(argv))
    if ns.series is not None and ns.series < 1:
        p.error(f"--series: expected a number of rounds of at least 1, found {ns.series}")
    if ns.series is not None and ns.match is not None:
        p.error("--match and --series exclude each other (a series is of single rounds)")
    if ns.resume is not None and (ns.series is not None or ns.match is not None):
        p.error(
            "--resume takes the match type from the record; leave out --match and --series"
        )
    return Options(
        level=ns.level,
        colour=ns.colour,
        target=ns.series if ns.series is not None else MATCH_TARGETS[ns.match or "single"],
        series=ns.series is not None,
        seed=ns.seed if ns.seed is not None else random.randrange(1 << 30),
        save=ns.save,
        resume=ns.resume,
        plain=ns.plain,
        delay=ns.delay,
        proof_store=ns.proof_store,
    )


def unfinished_folder() -> Path:
    """Where unfinished games are kept: ``unfinished`` in the user's data folder.

    The data folder is platformdirs' (``$XDG_DATA_HOME/kamisado``, else
    ``~/.local/share/kamisado``, on Linux).  Every match in progress is
    written there after each move and fill and deleted once it is over.
    """
    import platformdirs

    return Path(platformdirs.user_data_dir("kamisado")) / "unfinished"


def last_unfinished(folder: Path | None = None) -> Path | None:
    """The unfinished game written last (``None`` when there is none)."""
    folder = unfinished_folder() if folder is None else folder
    try:
        games = [p for p in folder.iterdir() if p.suffix == ".kmr" and p.is_file()]
    except OSError:
        return None
    return max(games, key=lambda p: (p.stat().st_mtime_ns, p.name), default=None)
