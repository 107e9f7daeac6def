"""The rules of one tournament game that need no engine: how time is charged,
how a broken engine forfeits, when both engines' scores end a game by
resignation, each move's comment and the record's headers.

:meth:`kamisado.protocol.tournament.Tournament.play_game` plays the game
with them.

>>> ms(0.25), clock_text(75.25)
('250 ms', '1:15.2')
"""

from __future__ import annotations

import contextlib
import math

from kamisado.engine.limits import Score
from kamisado.protocol.client import (
    EngineError,
    EngineTerminatedError,
    EngineTimeoutError,
    Info,
)
from kamisado.protocol.tournament_config import Config, Game, PlayerSpec
from kamisado.protocol.tournament_engines import one_line
from kamisado.rules.board import SIDE_NAMES, MalformedError
from kamisado.rules.match import Match
from kamisado.rules.record import Comment, GameEnd

__all__ = [
    "LostOnTime",
    "charge",
    "clock_text",
    "comment",
    "forfeit",
    "headers",
    "ms",
    "resign",
]


class LostOnTime(Exception):
    """An engine answered later than its clock (or movetime) plus the margin."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


def ms(seconds: float) -> str:
    """Seconds as whole milliseconds, for a game's end."""
    return f"{seconds * 1000:.0f} ms"


def clock_text(seconds: float) -> str:
    """A clock as ``m:ss.s`` (never below 0), for the progress line."""
    seconds = max(seconds, 0.0)
    return f"{int(seconds // 60)}:{seconds % 60:04.1f}"


def charge(
    clocks: list[float], side: int, elapsed: float, margin: float, name: str, what: str
) -> None:
    """Take ``elapsed`` off the clock: later than the clock plus the margin loses.

    >>> clocks = [1.0, 1.0]
    >>> charge(clocks, 0, 0.25, 0.1, "A", "move"); clocks
    [0.75, 1.0]
    >>> charge(clocks, 1, 1.2, 0.1, "B", "fill")
    Traceback (most recent call last):
    ...
    kamisado.protocol.tournament_game.LostOnTime: B answered its fill after 1200 ms with 1000 ms on its clock + margin 100 ms
    """
    left = clocks[side] - elapsed
    if left < -margin:
        raise LostOnTime(
            f"{name} answered its {what} after {ms(elapsed)} with {ms(clocks[side])}"
            f" on its clock + margin {ms(margin)}"
        )
    clocks[side] = max(left, 0.0)


def forfeit(
    e: EngineError,
    side: int,
    timed: bool,
    clocks: list[float] | None,
    allowed: float | None,
    margin: float,
    names: tuple[str, str],
) -> tuple[GameEnd, int]:
    """How a game ends when ``side``'s engine failed with ``e`` (and that side).

    >>> forfeit(EngineTerminatedError("engine 'A' terminated"), 0, False, None, None, 0.1, ("A", "B"))
    (GameEnd(winner=1, reason='crash', detail="engine 'A' terminated"), 0)
    """
    if isinstance(e, EngineTimeoutError):
        if timed:
            what = "on its clock" if clocks is not None else "of movetime"
            return GameEnd(
                1 - side,
                "time",
                f"{names[side]} did not answer within {ms(allowed or 0)} {what}"
                f" + margin {ms(margin)}; it was killed",
            ), side
        return GameEnd(1 - side, "no answer", one_line(str(e))), side
    if isinstance(e, EngineTerminatedError):
        return GameEnd(1 - side, "crash", one_line(str(e))), side
    return GameEnd(1 - side, "illegal move", one_line(str(e))), side


def resign(
    match: Match,
    streaks: list[list[int]],
    side: int,
    score: Score | None,
    names: tuple[str, str],
    limit: int,
    moves: int,
) -> GameEnd | None:
    """Count ``side``'s score and end the game by the resign rule when both agree.

    The rule (cutechess-cli's ``-resign`` with ``twosided=true``): one
    engine's scores were ``-limit`` or lower for its last ``moves`` moves,
    and the other's ``+limit`` or higher for its last as many; a proven
    loss or win counts as beyond any score.  The round must decide the
    match (its winner's points plus one reach the target), as a lost round
    of a longer match is not a lost match.  ``streaks`` holds, per side, its
    moves in a row scored losing and winning.
    """
    if score is None:
        value = 0.0
    elif score.kind == "cp":
        value = float(score.value)
    else:
        value = math.inf if score.kind == "win" else -math.inf
    low, high = streaks[side]
    streaks[side] = [low + 1 if value <= -limit else 0, high + 1 if value >= limit else 0]
    for loser in (side, 1 - side):
        winner = 1 - loser
        if (
            streaks[loser][0] >= moves
            and streaks[winner][1] >= moves
            and match.points[winner] + 1 >= match.target
        ):
            return GameEnd(
                winner,
                "adjudication",
                f"resigned: {names[loser]} scored -{limit} or lower and {names[winner]}"
                f" +{limit} or higher for {moves} move(s) each",
            )
    return None


def comment(info: Info, elapsed: float, clocks: list[float] | None) -> Comment:
    """A move's comment for its record: the engine's last score and depth (as
    its ``info`` gave them), the seconds the move took and both clocks after it.

    >>> from kamisado.engine.limits import Score
    >>> comment(Info(depth=7, score=Score("cp", -12)), 0.2504, [1.5, 2.0]).text()
    '-0.12/7 0.250s b=0:01.500 g=0:02.000'
    >>> comment(Info(depth=3), 1.0, None).text()  # no score: no depth either
    '1.000s'
    """
    used = max(0, round(elapsed * 1000))
    both = None if clocks is None else (round(clocks[0] * 1000), round(clocks[1] * 1000))
    if info.score is not None:
        with contextlib.suppress(MalformedError):  # a score out of KEI's range: left out
            return Comment((info.score.kind, info.score.value), info.depth, used, both)
    return Comment(None, None, used, both)


def headers(config: Config, game: Game, players: dict[str, PlayerSpec]) -> dict[str, str]:
    """The record's headers besides the players, the date and the end: the
    event, the game's number and seed, the time control, each side's engine
    (and its options) and the opening."""
    names = (game.black, game.gold)
    extra = {
        "Event": f"kamisado tournament, {config.format}",
        "Game": str(game.number),
        "Seed": str(game.seed),
        "Time control": config.describe(),
        "Black engine": players[game.black].spec,
        "Gold engine": players[game.gold].spec,
    }
    for side_name, name in zip(SIDE_NAMES, names, strict=True):
        if players[name].options:
            extra[f"{side_name} options"] = " ".join(players[name].option_words())
    if game.opening:
        extra["Opening"] = game.opening
    return extra
