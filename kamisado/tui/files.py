"""The files of a match played in the terminal: :class:`RecordFiles` writes the
record where ``--save`` (or ``s``) says and keeps an unfinished match in the
data folder, so that ``kamisado play --resume`` finds it.

>>> import tempfile
>>> from kamisado.rules.match import Match
>>> folder = tempfile.mkdtemp()
>>> files = RecordFiles({}, save_path=f"{folder}/a.kmr", keep_path=f"{folder}/kept.kmr")
>>> m = Match(1)
>>> _ = m.push_move("c1-c5")
>>> files.autosave(m), files.unsaved(m), sorted(p.name for p in Path(folder).iterdir())
([], False, ['a.kmr', 'kept.kmr'])
>>> files.renew(1, None)
>>> files.save_path.endswith("a-2.kmr"), files.keep_path
(True, None)
"""

from __future__ import annotations

import contextlib
import datetime
from pathlib import Path

from kamisado.rules.match import OVER, Match
from kamisado.rules.record import Record, save
from kamisado.tui.options import unfinished_folder

__all__ = ["RecordFiles"]


def has_moves(match: Match) -> bool:
    """Whether anything was played in ``match`` (a move, or a round ended)."""
    return len(match.rounds) > 1 or bool(match.rounds[0].moves)


class RecordFiles:
    """Where a match's record goes: ``save_path`` (``--save``, the resumed
    file, or ``None`` until saved) and ``keep_path`` (the copy kept in the
    data folder while unfinished, written after every move and fill from
    the first on, deleted once the match is over); ``headers`` are the
    record's."""

    def __init__(
        self,
        headers: dict[str, str],
        *,
        save_path: str | None = None,
        keep_path: str | None = None,
    ) -> None:
        self.headers = headers
        self.save_path = save_path
        self.keep_path = keep_path

    def save(self, match: Match) -> str:
        """Write the record to ``save_path`` (a new file in the current folder
        when there is none yet) and return the path; ``OSError`` when it fails."""
        if self.save_path is None:
            stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
            self.save_path = f"kamisado-{stamp}.kmr"
        save(Record(self.headers, match), self.save_path)
        return self.save_path

    def keep(self, match: Match) -> str | None:
        """Keep the unfinished match in the data folder (and forget it once
        over); the error to show when it cannot be written."""
        if match.state == OVER:
            if self.keep_path is not None:
                with contextlib.suppress(OSError):
                    Path(self.keep_path).unlink()
                self.keep_path = None
            return None
        if not has_moves(match):
            return None
        if self.keep_path is None:
            stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
            self.keep_path = str(unfinished_folder() / f"kamisado-{stamp}.kmr")
        try:
            Path(self.keep_path).parent.mkdir(parents=True, exist_ok=True)
            save(Record(self.headers, match), self.keep_path)
        except OSError as e:
            return f"Could not keep the game in {self.keep_path}: {e.strerror or e}"
        return None

    def autosave(self, match: Match) -> list[str]:
        """After a move or fill: :meth:`keep`, then write ``save_path`` if
        there is one; the errors to show."""
        errors = [why for why in [self.keep(match)] if why is not None]
        if self.save_path is not None:
            try:
                save(Record(self.headers, match), self.save_path)
            except OSError as e:
                errors.append(f"Could not save to {self.save_path}: {e.strerror or e}")
        return errors

    def unsaved(self, match: Match) -> bool:
        """A match in progress, with moves, that was never saved to a file."""
        return match.state != OVER and has_moves(match) and self.save_path is None

    def renew(self, game: int, seed: int | None) -> None:
        """For the ``game``-th new match (counting from 0): today's date, the
        computer's ``seed`` (if it plays), a new kept file and a numbered
        ``save_path`` (``a.kmr`` -> ``a-2.kmr``)."""
        self.keep_path = None  # the finished one was forgotten; a new file
        self.headers = dict(self.headers)
        self.headers["Date"] = datetime.date.today().isoformat()
        if "Seed" in self.headers and seed is not None:
            self.headers["Seed"] = str(seed)
        if self.save_path is not None:
            p = Path(self.save_path)
            self.save_path = str(p.with_name(f"{p.stem}-{game + 1}{p.suffix}"))
