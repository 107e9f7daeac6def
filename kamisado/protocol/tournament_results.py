"""A tournament's results and the files of its output directory.

:class:`GameResult` is a finished game (read back from its match record by
:func:`result_of_record`); :func:`write_state` writes ``state.json`` (the
configuration and the finished games, which ``--resume`` reads back with
:func:`read_state`) and ``results.tsv`` (one line per game, columns
:data:`RESULTS_COLUMNS`).  The names of the other files there (the Elo
chart, the debug log) are here too.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kamisado.protocol.tournament_config import Config, Game
from kamisado.rules.board import SIDE_NAMES, KamisadoError
from kamisado.rules.record import GameEnd, Record

__all__ = [
    "DEBUG_FILE",
    "ELO_CHART",
    "RESULTS_COLUMNS",
    "RESULTS_FILE",
    "STATE_FILE",
    "STATE_VERSION",
    "GameResult",
    "read_state",
    "result_of_record",
    "write_state",
]

STATE_FILE = "state.json"
STATE_VERSION = 1
RESULTS_FILE = "results.tsv"
#: The Elo chart written at the end of a run (:func:`kamisado.pictures.graph.elo_svg`).
ELO_CHART = "elo.svg"
DEBUG_FILE = "debug.log"
#: The columns of ``results.tsv`` (its first line), one line per finished game.
RESULTS_COLUMNS = (
    "game", "black", "gold", "winner", "score", "reason", "detail", "moves",
    "rounds", "points", "seconds", "seed", "opening", "file",
)


@dataclass
class GameResult:
    """A finished game: the score of Black (1 or 0) and how it ended."""

    game: Game
    black_score: float
    points: tuple[int, int]
    end: GameEnd
    seconds: float = 0.0
    moves: int = 0
    rounds: int = 0

    @property
    def forfeit(self) -> str | None:
        """``'Gold: detail'`` for an early end (``None`` for a goal or deadlock)."""
        if not self.end.early:
            return None
        return f"{SIDE_NAMES[1 - self.end.winner]}: {self.end.detail or self.end.reason}"

    @property
    def score(self) -> str:
        return {1.0: "1-0", 0.0: "0-1"}.get(self.black_score, "1/2-1/2")

    def summary(self, total: int) -> str:
        g = self.game
        e = self.end
        how = (
            f"{SIDE_NAMES[1 - e.winner]} loses by {e.reason}"
            + (f" ({e.detail})" if e.detail else "")
            if e.early
            else f"{e.reason}, {self.points[0]}-{self.points[1]} in {self.rounds} round(s),"
            f" {self.moves} moves"
        )
        return (
            f"game {g.number}/{total}: {g.black} (Black) - {g.gold} (Gold) {self.score},"
            f" {how}, {self.seconds:.1f} s, seed {g.seed}, {g.filename}"
        )

    def tsv_row(self) -> list[str]:
        """This game's line of ``results.tsv`` (see :data:`RESULTS_COLUMNS`)."""
        g = self.game
        winner = g.black if self.end.winner == 0 else g.gold
        return [
            str(g.number), g.black, g.gold, winner, self.score, self.end.reason,
            self.end.detail, str(self.moves), str(self.rounds),
            f"{self.points[0]}-{self.points[1]}", f"{self.seconds:.1f}", str(g.seed),
            g.opening or "", g.filename,
        ]


def result_of_record(game: Game, rec: Record) -> GameResult:
    """Read a finished game's result back from its record (``Forfeit:`` headers too)."""
    m = rec.match
    moves = sum(len(r.moves) for r in m.rounds)
    end = rec.end
    if end is None:
        raise KamisadoError(f"{game.filename}: the record has no result")
    if (rec.headers.get("Black"), rec.headers.get("Gold")) != (game.black, game.gold):
        raise KamisadoError(
            f"{game.filename}: the record's players are not {game.black} and {game.gold}"
        )
    score = 1.0 if end.winner == 0 else 0.0
    return GameResult(game, score, (m.points[0], m.points[1]), end, 0.0, moves, len(m.rounds))


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8", newline="\n")
    os.replace(tmp, path)


def _tsv_field(text: str) -> str:
    return " ".join(text.replace("\t", " ").split())


def write_state(out: Path, config: Config, results: dict[int, GameResult]) -> None:
    """Write ``state.json`` (the configuration and the finished games) and ``results.tsv``."""
    state = {
        "version": STATE_VERSION,
        "config": config.to_json(),
        "finished": {
            str(n): {
                "file": r.game.filename,
                "black": r.game.black,
                "gold": r.game.gold,
                "seed": r.game.seed,
                "black_score": r.black_score,
                "reason": r.end.reason,
                "detail": r.end.detail,
                "forfeit": r.forfeit,
                "seconds": r.seconds,  # unrounded: results.tsv reads the same after --resume
            }
            for n, r in sorted(results.items())
        },
    }
    _atomic_write(out / STATE_FILE, json.dumps(state, indent=2) + "\n")
    rows = ["\t".join(RESULTS_COLUMNS)] + [
        "\t".join(_tsv_field(f) for f in r.tsv_row())
        for _, r in sorted(results.items())
    ]
    _atomic_write(out / RESULTS_FILE, "\n".join(rows) + "\n")


def read_state(out: Path) -> tuple[Config, dict[int, dict[str, Any]]]:
    """The configuration and the finished games (by number) saved in ``out``."""
    path = out / STATE_FILE
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"nothing to resume: {path} does not exist") from None
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: cannot read the tournament state: {e}") from None
    if state.get("version") != STATE_VERSION:
        raise ValueError(f"{path}: unknown state version {state.get('version')!r}")
    finished = {int(n): dict(v) for n, v in state["finished"].items()}
    return Config.from_json(state["config"]), finished
