"""SIGINT and SIGTERM noted from the first instruction of ``kamisado tournament``.

The ``kamisado`` entry point (:mod:`kamisado.cli`) calls :func:`install`
before its heavier imports: a stop that comes while Python still loads the
tournament's modules (a few hundred milliseconds on a busy machine) is
noted here, and the tournament, once it handles signals itself
(:mod:`kamisado.protocol.tournament_cli`), takes it as a stop and exits
with status 130, as for any later stop.  Before this runs (while the
interpreter itself starts) a signal has its default effect.

Only the standard library is imported here.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Sequence

__all__ = ["COMMANDS", "NOTED", "install", "take"]

#: The commands whose stops are noted from the start.
COMMANDS = ("tournament",)

#: The signals noted so far (numbers, in order), until :func:`take`.
NOTED: list[int] = []


def _note(number: int, frame: object) -> None:
    NOTED.append(number)


def install(argv: Sequence[str]) -> bool:
    """Note SIGINT and SIGTERM from now on when ``argv`` runs one of :data:`COMMANDS`.

    Returns whether it did (not outside the main thread, nor for other commands).
    """
    if not argv or argv[0] not in COMMANDS:
        return False
    if threading.current_thread() is not threading.main_thread():
        return False
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, _note)
    return True


def take() -> list[int]:
    """The signals noted so far, forgetting them."""
    came = list(NOTED)
    NOTED.clear()
    return came
