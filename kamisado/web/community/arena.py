"""An Arena's pairing pass (lichess's rules; docs/web-tournaments.md, "Arena").

During its minutes every player who is present and not in a game is paired
as soon as another is free: the free players in order of score, then
rating, each with the next one down it did not just play (no immediate
rematch: one who would have only that opponent waits for another, or,
when no other comes, :data:`REMATCH_WAIT_MS` after their game ended).  A win
scores 2, a loss 0; after two wins in a row each win scores 4 until a
loss (the streak's flame).  Games running at the end count; the event is
finished once the last of them ended.

>>> event = {"kind": "arena", "status": "started", "starts": 0, "ends": 60_000}
>>> rows = [{"player": p, "rating": r, "score": 0, "games": 0, "streak": 0, "blacks": 0, "active": True,
...          "last_opponent": None} for p, r in (("a", 1500), ("b", 1600), ("c", 1400))]
>>> plan_arena(event, rows, [], {}, {"a", "b", "c"}, now=1_000).pairs
[('b', 'a')]
>>> played = [{"game": "g1", "black": "a", "gold": "b", "started": 0, "ended": 500}]
>>> two = [{**r, "last_opponent": "b" if r["player"] == "a" else "a"} for r in rows[:2]]
>>> plan_arena(event, two, played, {}, {"a", "b"}, now=1_000).pairs
[]
>>> plan_arena(event, two, played, {}, {"a", "b"}, now=500 + REMATCH_WAIT_MS).pairs
[('b', 'a')]
>>> win_points(0), win_points(1), win_points(2), win_points(5)
(2, 2, 4, 4)
"""

from __future__ import annotations

from typing import Any

from kamisado.web.community.pairing import Plan, colours, tally

__all__ = ["REMATCH_WAIT_MS", "plan_arena", "win_points"]

Row = dict[str, Any]

#: Two players who just met may meet again once both have waited this long
#: (ms) since that game ended and nobody else came free.
REMATCH_WAIT_MS = 20_000


def win_points(streak: int) -> int:
    """A win's points after ``streak`` wins in a row: 2, doubled from the third on."""
    return 4 if streak >= 2 else 2


def plan_arena(event: Row, players: list[Row], games: list[Row], ended: dict[str, str | None],
               present: set[str], now: int) -> Plan:
    """One pass over an Arena: ``games`` are all its games (rows of
    ``tournament_games``), ``ended`` the winners of those that ended since
    the last pass (by game id), ``present`` the players with a page open."""
    plan = Plan()
    if event["status"] == "created":
        if now < event["starts"]:
            return plan
        plan.event["status"] = "started"
    counted = tally(plan, players, games, ended, now, win_points)
    points, played, busy = counted.points, counted.played, counted.busy
    if now >= event["ends"]:
        if not busy:
            plan.event["status"] = "finished"
        return plan
    last = {p["player"]: p["last_opponent"] for p in players}
    free_since: dict[str, int] = {}
    for g in games:
        ended_at = now if g["game"] in ended else g["ended"]
        if ended_at is not None:
            for p in (g["black"], g["gold"]):
                free_since[p] = max(free_since.get(p, 0), int(ended_at))

    def may_meet(a: str, b: str) -> bool:
        if last[a] != b and last[b] != a:
            return True
        return now - max(free_since.get(a, 0), free_since.get(b, 0)) >= REMATCH_WAIT_MS

    free = sorted((p for p in players if p["active"] and p["player"] in present and p["player"] not in busy),
                  key=lambda p: (-points[p["player"]], -int(p["rating"]), p["player"]))
    while len(free) > 1:
        a = free.pop(0)
        other = next((b for b in free if last[a["player"]] != b["player"] and last[b["player"]] != a["player"]),
                     None) or next((b for b in free if may_meet(a["player"], b["player"])), None)
        if other is None:
            continue  # only its last opponent is free: it waits for another
        free.remove(other)
        black, gold = colours(a, other, played)
        plan.pairs.append((black, gold))
        plan.set(black, last_opponent=gold, blacks=int(next(p for p in players if p["player"] == black)["blacks"]) + 1)
        plan.set(gold, last_opponent=black)
    return plan
