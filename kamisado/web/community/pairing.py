"""What a tournament's pairing pass decides, Arena and Swiss alike
(docs/web-tournaments.md): the games that ended are counted, then new
games are paired (:mod:`kamisado.web.community.arena`,
:mod:`kamisado.web.community.swiss`).

A pass is pure: it reads the event's rows as the database holds them
(:meth:`kamisado.web.store.tournament_calls.TournamentCalls.tournament_pass`
reads and writes them in one transaction, under a lock) and answers a
:class:`Plan`, the changes to write.

>>> plan = Plan()
>>> count_result(plan, {"game": "g1", "black": "ann", "gold": "bob"}, "g", {"ann": 2, "bob": 0}, {"ann": 0, "bob": 0})
('bob', 'ann')
>>> plan.games["g1"]["winner"], plan.players["bob"]["score"]
('g', 1)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ARENA", "KINDS", "SWISS", "Plan", "Tally", "colours", "count_result", "player_view", "tally"]

ARENA = "arena"
SWISS = "swiss"
#: The kinds of tournament.
KINDS = (ARENA, SWISS)

Row = dict[str, Any]


@dataclass
class Plan:
    """The changes one pass makes to one event: its row's (``event``), its
    players' and its games' (by player and game id: the columns to set),
    and the new games' pairs (``(black, gold)`` player ids) of ``round``."""

    event: Row = field(default_factory=dict)
    players: dict[str, Row] = field(default_factory=dict)
    games: dict[str, Row] = field(default_factory=dict)
    pairs: list[tuple[str, str]] = field(default_factory=list)
    round: int = 0
    #: a Swiss round's bye (its player scored it already), shown in the log
    bye: str | None = None

    def set(self, player: str, **values: Any) -> None:
        """Set columns of a player's row."""
        self.players.setdefault(player, {}).update(values)


def count_result(
    plan: Plan, game: Row, winner: str | None, points: dict[str, int], streaks: dict[str, int],
    win_points: Callable[[int], int] = lambda streak: 1,
) -> tuple[str, str] | None:
    """Count an ended game (``winner``: ``"b"``, ``"g"``, ``None`` for none)
    in ``plan``: the winner scores ``win_points(streak before the win)``,
    the loser nothing; ``points`` and ``streaks`` (by player) are the running
    totals, updated.  Returns ``(winner, loser)`` (``None``: no winner)."""
    black, gold = game["black"], game["gold"]
    if winner not in ("b", "g"):
        plan.games[game["game"]] = {"winner": None, "black_score": 0, "gold_score": 0}
        for p in (black, gold):
            streaks[p] = 0
            plan.set(p, streak=0)
        return None
    won, lost = (black, gold) if winner == "b" else (gold, black)
    gained = win_points(streaks.get(won, 0))
    points[won] = points.get(won, 0) + gained
    streaks[won] = streaks.get(won, 0) + 1
    streaks[lost] = 0
    plan.set(won, score=points[won], streak=streaks[won])
    plan.set(lost, streak=0)
    plan.games[game["game"]] = {
        "winner": winner, "black_score": gained if won == black else 0, "gold_score": gained if won == gold else 0}
    return won, lost


@dataclass
class Tally:
    """The running totals of a pass (by player): points, streaks and games
    played, with the games counted that ended since the last pass, and the
    players in a game still running (``busy``)."""

    points: dict[str, int]
    streaks: dict[str, int]
    played: dict[str, int]
    busy: set[str]


def tally(plan: Plan, players: list[Row], games: list[Row], ended: dict[str, str | None], now: int,
          win_points: Callable[[int], int] = lambda streak: 1) -> Tally:
    """Count in ``plan`` each game of ``games`` that ended since the last
    pass (``ended``: its winner by game id), in the order they started.

    >>> plan = Plan()
    >>> rows = [{"player": p, "score": 0, "streak": 0, "games": 0} for p in ("a", "b", "c", "d")]
    >>> games = [{"game": "g1", "black": "a", "gold": "b", "started": 1, "ended": None},
    ...          {"game": "g2", "black": "c", "gold": "d", "started": 2, "ended": None}]
    >>> t = tally(plan, rows, games, {"g1": "g"}, now=5)
    >>> t.points["b"], t.played["a"], sorted(t.busy), plan.games["g1"]["ended"]
    (1, 1, ['c', 'd'], 5)
    """
    points = {p["player"]: int(p["score"]) for p in players}
    streaks = {p["player"]: int(p["streak"]) for p in players}
    played = {p["player"]: int(p["games"]) for p in players}
    busy: set[str] = set()
    for g in sorted(games, key=lambda g: (g["started"], g["game"])):
        if g["ended"] is not None:
            continue
        if g["game"] not in ended:
            busy.update((g["black"], g["gold"]))
            continue
        count_result(plan, g, ended[g["game"]], points, streaks, win_points)
        plan.games[g["game"]]["ended"] = now
        for p in (g["black"], g["gold"]):
            played[p] += 1
            plan.set(p, games=played[p])
    return Tally(points, streaks, played, busy)


def colours(a: Row, b: Row, games: dict[str, int]) -> tuple[str, str]:
    """Who of two players (rows with ``player`` and ``blacks``) plays Black:
    the one who had Black less often for their games played (``games``:
    by player, counting this pass's), ``a`` on a tie.

    >>> colours({"player": "a", "blacks": 2}, {"player": "b", "blacks": 0}, {"a": 2, "b": 2})
    ('b', 'a')
    """
    def balance(r: Row) -> int:
        return 2 * int(r["blacks"]) - games.get(r["player"], 0)

    return (a["player"], b["player"]) if balance(a) <= balance(b) else (b["player"], a["player"])


def player_view(row: Row, games: list[Row], ratings: dict[str, int]) -> dict[str, Any]:
    """A player of the standings: ``score``, ``games``, the Arena ``streak``
    (``fire`` from two wins in a row on), and ``performance`` (the average
    of the opponents' ratings, ±400 a win or a loss; ``None`` before a game).

    >>> g = [{"black": "a", "gold": "b", "winner": "b", "ended": 1}]
    >>> player_view({"player": "a", "name": "A", "rating": 1500, "score": 2, "games": 1, "streak": 1,
    ...              "active": True, "byes": 0}, g, {"b": 1600})["performance"]
    2000
    """
    player = row["player"]
    opp: list[int] = []
    net = 0
    for g in games:
        if g.get("ended") is None or player not in (g["black"], g["gold"]):
            continue
        other = g["gold"] if g["black"] == player else g["black"]
        opp.append(ratings.get(other, 1500))
        side = "b" if g["black"] == player else "g"
        net += 0 if g["winner"] is None else (1 if g["winner"] == side else -1)
    return {
        "player": player, "name": row["name"], "rating": row["rating"], "score": row["score"],
        "games": row["games"], "streak": row["streak"], "fire": row["streak"] >= 2, "byes": row["byes"],
        "active": bool(row["active"]),
        "performance": round((sum(opp) + 400 * net) / len(opp)) if opp else None,
    }
