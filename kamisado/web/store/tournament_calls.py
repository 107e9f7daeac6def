"""The store's calls for tournaments on the site (a base of
:class:`kamisado.web.store.storage.Store`; the rules of the events are
:mod:`kamisado.web.community.tournaments`'s).

The state of every event lives in its three tables (``tournaments``,
``tournament_players``, ``tournament_games``), so any process serves any
event, and a process killed mid-event loses nothing that was committed.
A pairing pass (:meth:`TournamentCalls.tournament_pass`) is one
transaction under a lock that holds across processes (PostgreSQL: an
advisory lock for the transaction; SQLite: ``BEGIN IMMEDIATE``, its one
writer): the games that ended are counted, the new games stored and the
pairings written in the same commit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any, Protocol

import sqlalchemy as sa

from kamisado.web.store.database import Database, PostgreSQL, Tx
from kamisado.web.store.schema import (
    GameRow,
    actions,
    games,
    presence,
    tournament_games,
    tournament_players,
    tournaments,
)

__all__ = ["ONLINE_TTL_MS", "TOURNAMENT_LOCK", "PassPlan", "TournamentCalls"]

#: PostgreSQL: the advisory lock of a tournament pairing pass (its transaction).
TOURNAMENT_LOCK = 270_043
#: A player counts as present when a process said so this recently (ms):
#: processes renew their ``presence`` rows every few seconds.
ONLINE_TTL_MS = 30_000
#: How many finished events ``GET /api/tournaments`` lists.
FINISHED_LISTED = 20

Row = dict[str, Any]


class PassPlan(Protocol):
    """What a pass decides for one event (:class:`kamisado.web.community.pairing.Plan`)."""

    event: Row
    players: dict[str, Row]
    games: dict[str, Row]
    pairs: list[tuple[str, str]]
    round: int


class TournamentCalls:
    """The tournaments' calls of a :class:`kamisado.web.store.storage.Store`."""

    _db: Database
    _pg: PostgreSQL | None
    shared: bool
    origin: str

    def add_tournament(self, row: Row, most: int | None = None) -> bool:
        """Store a new event; ``False`` when one with its ``schedule`` key is
        there already, or its maker has ``most`` events not finished."""
        with self._db.write() as tx:
            if row.get("schedule") is not None and tx.run(
                    sa.select(tournaments.c.id).where(tournaments.c.schedule == row["schedule"])).rows:
                return False
            if most is not None and tx.run(sa.select(sa.func.count()).select_from(tournaments).where(
                    tournaments.c.created_by == row["created_by"], tournaments.c.status != "finished")).scalar() >= most:
                return False
            tx.run(tournaments.insert().values(**row))
        return True

    def tournament_list(self, now_ms: int) -> list[Row]:
        """The events not finished (starting soonest first) and the last
        :data:`FINISHED_LISTED` finished, each with its ``players`` counted."""
        count = (sa.select(sa.func.count()).select_from(tournament_players)
                 .where(tournament_players.c.tournament == tournaments.c.id).scalar_subquery())
        with self._db.read() as tx:
            live = tx.run(sa.select(tournaments, count.label("players"))
                          .where(tournaments.c.status != "finished").order_by(tournaments.c.starts)).mappings()
            done = tx.run(sa.select(tournaments, count.label("players"))
                          .where(tournaments.c.status == "finished")
                          .order_by(tournaments.c.ends.desc()).limit(FINISHED_LISTED)).mappings()
        return live + done

    def tournament_of(self, tournament_id: str) -> tuple[Row, list[Row], list[Row]] | None:
        """An event's row, its players and its games (oldest first); ``None``: no such event."""
        with self._db.read() as tx:
            rows = tx.run(tournaments.select().where(tournaments.c.id == tournament_id)).mappings()
            if not rows:
                return None
            return rows[0], _players(tx, tournament_id), _games(tx, tournament_id)

    def player_tournaments(self, player: str, limit: int = 50) -> list[Row]:
        """The events a player took part in, the latest first, with their score."""
        with self._db.read() as tx:
            return tx.run(
                sa.select(tournaments.c.id, tournaments.c.name, tournaments.c.kind, tournaments.c.status,
                          tournaments.c.starts, tournament_players.c.score, tournament_players.c.games)
                .join(tournament_players, tournament_players.c.tournament == tournaments.c.id)
                .where(tournament_players.c.player == player)
                .order_by(tournaments.c.starts.desc()).limit(limit)).mappings()

    def fresh_tournament_games(self, player: str, since_ms: int) -> list[str]:
        """A player's event games that started since ``since_ms``, in which
        nothing was played yet and whose players were not told (the process
        that paired them died first): a page that comes back is told of them."""
        with self._db.read() as tx:
            return tx.run(
                sa.select(tournament_games.c.game).join(games, games.c.id == tournament_games.c.game)
                .where(sa.or_(tournament_games.c.black == player, tournament_games.c.gold == player),
                       tournament_games.c.ended.is_(None), tournament_games.c.started >= since_ms,
                       tournament_games.c.told.is_(False),
                       games.c.actions == 0, games.c.state != "over")
                .order_by(tournament_games.c.started)).scalars()

    def tournaments_of_games(self, ids: list[str]) -> dict[str, str]:
        """The event each of these games belongs to, by game id (a game of none is not there)."""
        if not ids:
            return {}
        with self._db.read() as tx:
            rows = tx.run(sa.select(tournament_games.c.game, tournament_games.c.tournament)
                          .where(tournament_games.c.game.in_(ids))).rows
        return {r[0]: r[1] for r in rows}

    def told_tournament_games(self, ids: list[str]) -> None:
        """These event games' players were sent ``started`` (here, and the other processes told)."""
        if ids:
            with self._db.write() as tx:
                tx.run(tournament_games.update().where(tournament_games.c.game.in_(ids)).values(told=True))

    def join_tournament(self, tournament_id: str, row: Row) -> Row | None:
        """Put a player (``row``: ``player``, ``name``, ``rating``,
        ``registered``, ``joined``) into an event not finished, or bring a
        paused one back; the event's row, or ``None`` when it is gone or finished."""
        with self._db.write() as tx:
            got = tx.run(tournaments.select().where(tournaments.c.id == tournament_id)).mappings()
            if not got or got[0]["status"] == "finished":
                return None
            done = tx.run(tournament_players.update().where(
                tournament_players.c.tournament == tournament_id, tournament_players.c.player == row["player"])
                .values(active=True))
            if not done.rowcount:
                tx.run(tournament_players.insert().values(
                    tournament=tournament_id, score=0, games=0, streak=0, byes=0, blacks=0, active=True,
                    last_opponent=None, **row))
            return got[0]

    def withdraw_tournament(self, tournament_id: str, player: str) -> bool:
        """Pause a player of an event (not paired until they join again);
        ``False`` when they were not in it."""
        with self._db.write() as tx:
            done = tx.run(tournament_players.update().where(
                tournament_players.c.tournament == tournament_id, tournament_players.c.player == player)
                .values(active=False))
            return bool(done.rowcount)

    def tournament_pass(
        self, now_ms: int, here: set[str],
        plan_of: Callable[[Row, list[Row], list[Row], dict[str, str | None], set[str], int], PassPlan],
        winner_of: Callable[[GameRow, list[str]], str | None],
        games_of: Callable[[Row, Sequence[tuple[str, str]], dict[str, Row]], list[GameRow]],
    ) -> list[tuple[str, list[tuple[str, str, str]]]]:
        """One pairing pass over every event that should be running, in one
        transaction under the lock: the events' games that ended since the
        last pass are found (``winner_of`` their row and actions), each
        event's players and games read and ``plan_of`` asked what changes
        (``here``: the players with a page open on this process; with
        several processes, those present on any), the new pairs' games
        made (``games_of``) and stored with their pairings.  Returns each
        event that ran and its new games, ``(game, black, gold)`` (none: an
        empty list)."""
        made: list[tuple[str, list[tuple[str, str, str]]]] = []
        with self._db.read() as tx:  # most passes find nothing to do: no lock, no write
            if not tx.run(sa.select(tournaments.c.id).where(
                    tournaments.c.status != "finished", tournaments.c.starts <= now_ms).limit(1)).rows:
                return made
        with self._db.write() as tx:
            if self.shared:
                tx.run(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": TOURNAMENT_LOCK})
            events = tx.run(tournaments.select().where(tournaments.c.status != "finished",
                                                       tournaments.c.starts <= now_ms)
                            .order_by(tournaments.c.starts, tournaments.c.id)).mappings()
            for event in events:
                players = _players(tx, event["id"])
                present = set(here)
                if self.shared and players:
                    present |= {str(k)[1:] for k in tx.run(sa.select(presence.c.game_id).where(
                        presence.c.game_id.in_(["@" + p["player"] for p in players]),
                        presence.c.seen >= now_ms - ONLINE_TTL_MS)).scalars()}
                their_games = _games(tx, event["id"])
                open_ids = [g["game"] for g in their_games if g["ended"] is None]
                ended: dict[str, str | None] = {}
                if open_ids:
                    over = tx.run(sa.select(games).where(games.c.id.in_(open_ids), games.c.state == "over")).mappings()
                    for row in over:
                        tokens = tx.run(sa.select(actions.c.token).where(actions.c.game_id == row["id"])
                                        .order_by(actions.c.seq)).scalars()
                        ended[row["id"]] = winner_of(GameRow(**row), tokens)
                plan = plan_of(event, players, their_games, ended, present, now_ms)
                self._write_plan(tx, event, plan)
                if not plan.pairs:
                    made.append((event["id"], []))
                else:
                    new = games_of(event, plan.pairs, {p["player"]: p for p in players})
                    tx.run(games.insert(), [{**asdict(g), "actions": 0} for g in new])
                    tx.run(tournament_games.insert(), [
                        {"game": g.id, "tournament": event["id"], "round": plan.round, "black": b, "gold": w,
                         "started": now_ms, "told": False} for g, (b, w) in zip(new, plan.pairs, strict=True)])
                    made.append((event["id"], [(g.id, b, w) for g, (b, w) in zip(new, plan.pairs, strict=True)]))
        return made

    @staticmethod
    def _write_plan(tx: Tx, event: Row, plan: PassPlan) -> None:
        if plan.event:
            tx.run(tournaments.update().where(tournaments.c.id == event["id"]).values(**plan.event))
        for player, values in plan.players.items():
            tx.run(tournament_players.update().where(
                tournament_players.c.tournament == event["id"], tournament_players.c.player == player)
                .values(**values))
        for game_id, values in plan.games.items():
            tx.run(tournament_games.update().where(tournament_games.c.game == game_id).values(**values))


def _players(tx: Tx, tournament_id: str) -> list[Row]:
    return tx.run(tournament_players.select().where(tournament_players.c.tournament == tournament_id)
                  .order_by(tournament_players.c.joined, tournament_players.c.player)).mappings()


def _games(tx: Tx, tournament_id: str) -> list[Row]:
    return tx.run(tournament_games.select().where(tournament_games.c.tournament == tournament_id)
                  .order_by(tournament_games.c.started, tournament_games.c.game)).mappings()
