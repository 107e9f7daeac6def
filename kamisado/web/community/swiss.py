"""A Swiss event's pairing pass (docs/web-tournaments.md, "Swiss").

A fixed number of rounds, each paired by the tournament runner's Swiss
pairing (:func:`kamisado.protocol.tournament_config.swiss_pairs`: players
with like scores meet, never twice while that can be helped, a bye for the
lowest placed when odd), the colours balanced (:func:`colours`).  A win
scores 1, as does a bye.  The next round is paired when every game of the
round has ended, among the players present then (an absent player gets
no game, and no bye, that round); after the last round the event is
finished.

>>> event = {"kind": "swiss", "status": "created", "starts": 0, "rounds": 2, "round": 0}
>>> rows = [{"player": p, "rating": r, "score": 0, "games": 0, "streak": 0, "blacks": 0, "byes": 0,
...          "active": True} for p, r in (("a", 1500), ("b", 1600), ("c", 1400))]
>>> plan = plan_swiss(event, rows, [], {}, {"a", "b", "c"}, now=0)
>>> plan.round, plan.pairs, plan.bye
(1, [('b', 'a')], 'c')
"""

from __future__ import annotations

from typing import Any

from kamisado.protocol.tournament_config import Standing, swiss_pairs
from kamisado.web.community.pairing import Plan, colours, tally

__all__ = ["plan_swiss"]

Row = dict[str, Any]


def plan_swiss(event: Row, players: list[Row], games: list[Row], ended: dict[str, str | None],
               present: set[str], now: int) -> Plan:
    """One pass over a Swiss event (the arguments as
    :func:`kamisado.web.community.arena.plan_arena` takes them)."""
    plan = Plan()
    if event["status"] == "created":
        if now < event["starts"]:
            return plan
        plan.event["status"] = "started"
    counted = tally(plan, players, games, ended, now)
    points, played, running = counted.points, counted.played, bool(counted.busy)
    if running:
        return plan
    if int(event["round"]) >= int(event["rounds"]):
        plan.event.update(status="finished", ends=now)
        return plan
    here = [p for p in players if p["active"] and p["player"] in present]
    if len(here) < 2:
        return plan  # a round of one: it waits for a second player
    met: dict[str, set[str]] = {p["player"]: set() for p in players}
    for g in games:
        met[g["black"]].add(g["gold"])
        met[g["gold"]].add(g["black"])
    order = sorted(here, key=lambda p: (-points[p["player"]], -int(p["rating"]), p["player"]))
    table = [Standing(p["player"], points[p["player"]], met[p["player"]], int(p["byes"])) for p in order]
    pairs, bye = swiss_pairs(table)
    plan.round = int(event["round"]) + 1
    plan.event["round"] = plan.round
    rows = {p["player"]: p for p in players}
    for a, b in pairs:
        black, gold = colours(rows[a], rows[b], played)
        plan.pairs.append((black, gold))
        plan.set(black, blacks=int(rows[black]["blacks"]) + 1, last_opponent=gold)
        plan.set(gold, last_opponent=black)
    if bye is not None:
        plan.bye = bye
        plan.set(bye, score=points[bye] + 1, byes=int(rows[bye]["byes"]) + 1)
    return plan
