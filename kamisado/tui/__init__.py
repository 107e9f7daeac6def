"""``kamisado play``: Kamisado in the terminal (a Textual app).

The board is drawn in true colour (or as letters with ``--plain``); moves are
entered with the cursor keys and Enter, with the mouse, or as text in any
written form (``c1-c5``, ``Red Forward 4``, ``rF4``, ``c5``).  Two people play
at one keyboard (hotseat) or one person plays a computer level::

    kamisado play                                  # hotseat, single round
    kamisado play --level casual --colour gold --match standard
    kamisado play --series 3 --level beginner --save games/series.kmr
    kamisado play --resume games/series.kmr
    kamisado play --resume                         # the last unfinished game

This module holds only ``main``; the command line is :mod:`kamisado.tui.options`,
the computer's thread :mod:`kamisado.tui.computer` and the app itself
:mod:`kamisado.tui.app` (Textual is imported only when the app starts).

>>> opts = parse_args(["--level", "club", "--match", "long", "--colour", "gold"])
>>> opts.level, opts.target, opts.series, opts.colour
('club', 7, False, 'gold')
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from kamisado.tui.computer import think_fill, think_move
from kamisado.tui.options import (
    MATCH_TARGETS,
    Options,
    last_unfinished,
    parse_args,
    unfinished_folder,
)

__all__ = [
    "MATCH_TARGETS",
    "Options",
    "last_unfinished",
    "main",
    "parse_args",
    "think_fill",
    "think_move",
    "unfinished_folder",
]


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``kamisado play``; returns the exit status (2 for a record that cannot be read)."""
    opts = parse_args(sys.argv[1:] if argv is None else argv)
    from kamisado.tui.app import SetupError, build_app

    try:
        app = build_app(opts)
    except SetupError as e:
        print(f"kamisado play: {e}", file=sys.stderr)
        return 2
    app.run()
    return 0
