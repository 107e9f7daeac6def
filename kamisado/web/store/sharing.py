"""The store's calls for several processes on one database (PostgreSQL).

Several ``kamisado web`` processes may serve one PostgreSQL database; what
they share besides the games goes through these calls of the
:class:`kamisado.web.store.storage.Store` (:class:`SharedCalls`, one of its
bases): every change to a game announced to the others (:data:`CHANNEL`),
who is connected through which process (``presence``,
:mod:`kamisado.web.play.presence`), the lease on a computer move
(:meth:`SharedCalls.take_turn`, :mod:`kamisado.web.play.computer`) and the
lobby's challenges (:data:`LOBBY_CHANNEL`, :mod:`kamisado.web.community.lobby`).  On
a database one process serves (SQLite) they do nothing, or what one
process needs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import sqlalchemy as sa

from kamisado.web.store.database import Database, PostgreSQL, Tx
from kamisado.web.store.schema import (
    GameRow,
    blocks,
    challenges,
    games,
    presence,
    ratings,
    seeks,
)
from kamisado.web.store.schema import players as people

__all__ = ["CHANNEL", "KEPT", "LOBBY_CHANNEL", "SharedCalls"]

#: The PostgreSQL channel on which every change to a game is announced
#: (``NOTIFY``, sent with the change's own transaction, so delivered only
#: once it is committed): the payload is ``"ORIGIN GAME_ID KIND"``,
#: ``ORIGIN`` the :attr:`SharedCalls.origin` of the store that wrote it, ``KIND``
#: ``state`` (the game's row or actions), ``presence`` (who is connected)
#: or ``chat`` (a chat message stored: :mod:`kamisado.web.play.chat`);
#: ``"ORIGIN * clocks"``: every running clock was moved forward over an
#: outage (:meth:`kamisado.web.store.storage.Store.keep_alive`).
CHANNEL = "kamisado_games"
#: The channel of the lobby's changes: ``"ORIGIN changed"`` (the list
#: changed) or ``"ORIGIN started CHALLENGE GAME"`` (a challenge was accepted:
#: the process holding its poster's connection sends it ``started``); for
#: direct challenges also ``"ORIGIN direct CHALLENGE"`` (made: the processes
#: holding its player's connections show it), ``"ORIGIN withdrawn CHALLENGE
#: PLAYER"`` (gone: they take it down) and ``"ORIGIN declined CHALLENGE"``
#: (the process holding its poster tells it).
LOBBY_CHANNEL = "kamisado_lobby"
#: The lobby channel also carries quick pairing (:mod:`kamisado.web.community.seeks`):
#: ``"ORIGIN paired SEEK GAME"`` (a seek was paired: the process holding its
#: connection sends it ``started``) and ``"ORIGIN unseeked SEEK"`` (a seek
#: went because its player was paired by another of their seeks).
#: PostgreSQL: the advisory lock one pairing pass holds (its transaction),
#: so that passes of several processes see each other's outcome.
SEEK_LOCK = 270_012
#: A player's row of ``presence`` (a websocket of theirs is open through a
#: process) has ``game_id`` this prefix and the player's id: no game id
#: starts with it.
ONLINE_PREFIX = "@"
#: Announces a change to the other processes (PostgreSQL ``NOTIFY``,
#: delivered when the transaction commits).
_NOTIFY = sa.text("SELECT pg_notify(:channel, :payload)")
#: The lease on the computer's move at action ``seq`` (every computer move
#: with several processes on the database).
_TAKE_TURN = (
    games.update()
    .where(games.c.id == sa.bindparam("gid"), games.c.actions == sa.bindparam("seq"),
           sa.or_(games.c.thinker.is_(None), games.c.thinker == sa.bindparam("origin"),
                  games.c.think_until < sa.bindparam("now")))
    .values(thinker=sa.bindparam("origin"), think_until=sa.bindparam("until"))
)
#: PostgreSQL: the leases this process holds on some games' computer moves,
#: renewed until ``until`` (one statement); the ids of those renewed (a
#: lease another process took over, or an action cleared, is not).
_PG_RENEW_TURNS = sa.text(
    "UPDATE games SET think_until = :until WHERE id = ANY(CAST(:ids AS TEXT[])) AND thinker = :origin"
    " RETURNING id"
)
#: PostgreSQL: the leases on some games' computer moves, with each game's action count.
_PG_LEASES = sa.text(
    "SELECT id, actions, thinker, think_until FROM games WHERE id = ANY(CAST(:ids AS TEXT[]))"
)
#: A seek paired: the row says its game (and when), until its player is told.
_PAIRED = (
    seeks.update().where(seeks.c.id == sa.bindparam("sid"))
    .values(game=sa.bindparam("gid"), seen=sa.bindparam("now"))
)
#: When each seat of a game was last seen held through another process.
_ELSEWHERE = (
    sa.select(presence.c.side, sa.func.max(presence.c.seen))
    .where(presence.c.game_id == sa.bindparam("gid"), presence.c.origin != sa.bindparam("origin"))
    .group_by(presence.c.side)
)
#: PostgreSQL: the seats of some games this process holds, in one statement
#: (so one round trip and its own transaction, on the event loop): the rows
#: of the seats held are put (or renewed), the others of those games
#: deleted, and each game announced (``presence``).  ``games``: every game
#: named; ``held_games`` and ``held_sides``: one entry per seat held.
_PG_SET_PRESENCE = sa.text(
    "WITH held AS (SELECT * FROM unnest(CAST(:held_games AS TEXT[]), CAST(:held_sides AS TEXT[]))"
    " AS h(game_id, side)),"
    " gone AS (DELETE FROM presence p WHERE p.origin = :origin AND p.game_id = ANY(CAST(:games AS TEXT[]))"
    " AND NOT EXISTS (SELECT 1 FROM held h WHERE h.game_id = p.game_id AND h.side = p.side)),"
    " put AS (INSERT INTO presence (game_id, side, origin, seen) SELECT game_id, side, :origin, :seen FROM held"
    " ON CONFLICT (game_id, side, origin) DO UPDATE SET seen = excluded.seen)"
    " SELECT count(pg_notify(:channel, :origin || ' ' || g || ' presence'))"
    " FROM unnest(CAST(:games AS TEXT[])) AS g"
)
#: PostgreSQL: when each seat of many games was last seen held through
#: other processes, one statement whatever the number of games.
_PG_ELSEWHERE_OF = sa.text(
    "SELECT game_id, side, max(seen) FROM presence"
    " WHERE game_id = ANY(CAST(:games AS TEXT[])) AND origin != :origin GROUP BY game_id, side"
)
#: PostgreSQL: this process lives (its presence rows and its challenges
#: renewed), one statement.
_PG_RENEW = sa.text(
    "WITH p AS (UPDATE presence SET seen = :now WHERE origin = :origin RETURNING 1)"
    " UPDATE challenges SET seen = :now WHERE origin = :origin"
)
#: The statements run again and again (:meth:`kamisado.web.store.database.Database.keep`).
KEPT = (_NOTIFY, _TAKE_TURN, _ELSEWHERE)
#: ... and those kept on PostgreSQL only.
PG_KEPT = (_PG_SET_PRESENCE, _PG_ELSEWHERE_OF, _PG_RENEW)


def _seen_by_game(rows: list[tuple[Any, ...]]) -> dict[str, dict[str, int]]:
    """Rows of (game id, side letter, ms last seen) as game id -> side -> ms."""
    out: dict[str, dict[str, int]] = {}
    for game_id, side, seen in rows:
        out.setdefault(game_id, {})[side] = int(seen)
    return out


#: Lock the direct challenges to one player (PostgreSQL, until the
#: transaction ends), and count those waiting.
_LOCK_TO = sa.text("SELECT pg_advisory_xact_lock(hashtext(:key))")
_WAITING = sa.select(sa.func.count()).select_from(challenges).where(
    challenges.c.to_player == sa.bindparam("to"), challenges.c.seen >= sa.bindparam("since"))


class SharedCalls:
    """The calls of a :class:`kamisado.web.store.storage.Store` that the processes
    on one database share (a base of the store's, on its database)."""

    _db: Database
    #: the database when it is PostgreSQL (its calls from the event loop)
    _pg: PostgreSQL | None
    #: whether several processes may serve the database (PostgreSQL)
    shared: bool
    #: the store's own name in what it announces (random, one per store)
    origin: str

    def _announce(self, tx: Tx, game_id: str, kind: str = "state") -> None:
        """Announce a change to a game to the other processes (PostgreSQL:
        delivered when the transaction commits; nothing on SQLite):
        ``kind`` ``state`` (its row or actions) or ``presence``; game ``*``
        kind ``clocks``: every running clock."""
        if self.shared:
            tx.run(_NOTIFY, {"channel": CHANNEL, "payload": f"{self.origin} {game_id} {kind}"})

    # -- presence and the computer's leases -------------------------------------

    def take_turn(self, game_id: str, seq: int, until_ms: int, now_ms: int) -> bool:
        """Take the lease on the computer's move at action ``seq`` of a game
        until ``until_ms``: granted when nobody holds it, this store holds
        it, or its holder's lease ran out (a process that died thinking).
        Every action clears it.  Always granted on a database only one
        process serves (SQLite).  A lease granted is announced, so the
        other processes show the computer thinking."""
        if not self.shared:
            return True
        with self._db.write() as tx:
            done = tx.run(_TAKE_TURN, {"gid": game_id, "seq": seq, "origin": self.origin,
                                       "now": now_ms, "until": until_ms}).rowcount
            if done == 1:
                self._announce(tx, game_id)
        return done == 1

    async def renew_turns_async(self, game_ids: list[str], until_ms: int) -> set[str]:
        """Renew, until ``until_ms``, the leases this store holds on the
        computer's moves of some games (one statement, on the event loop);
        the ids of the games whose lease it still held and renewed.  Every
        id on a database only one process serves (SQLite)."""
        pg = self._pg
        if not self.shared or pg is None or not game_ids:
            return set(game_ids)
        rows = await pg.rows_async(_PG_RENEW_TURNS, {"ids": game_ids, "until": until_ms, "origin": self.origin})
        return {row[0] for row in rows}

    async def leases_async(self, game_ids: list[str]) -> dict[str, tuple[int, str | None, int | None]]:
        """The lease on the computer's move of some games (one statement, on
        the event loop): game id -> (its action count, the holder's origin
        or ``None``, until when in ms)."""
        pg = self._pg
        if not self.shared or pg is None or not game_ids:
            return {}
        rows = await pg.rows_async(_PG_LEASES, {"ids": game_ids})
        return {gid: (int(n), thinker, None if until is None else int(until)) for gid, n, thinker, until in rows}

    def let_go_of_turns(self, tx: Tx) -> None:
        """Give up every lease this store holds on a computer move (the
        process stops: another takes the moves over at once), each
        announced."""
        if not self.shared:
            return
        held = tx.run(games.update().where(games.c.thinker == self.origin)
                      .values(thinker=None, think_until=None).returning(games.c.id)).scalars()
        for game_id in held:
            self._announce(tx, game_id)

    def set_presence(self, held: dict[str, tuple[bool, bool]], now_ms: int) -> None:
        """Say which seats of some games this process has connections
        holding (``game id -> (black held, gold held)``; shared databases
        only), in one transaction, and announce each change."""
        if not self.shared or not held:
            return
        with self._db.write() as tx:
            tx.run(presence.delete().where(presence.c.game_id.in_(list(held)),
                                           presence.c.origin == self.origin))
            rows = [{"game_id": game_id, "side": "bg"[s], "origin": self.origin, "seen": now_ms}
                    for game_id, sides in held.items() for s in (0, 1) if sides[s]]
            if rows:
                tx.run(presence.insert(), rows)
            for game_id in held:
                self._announce(tx, game_id, "presence")

    async def set_presence_async(self, held: dict[str, tuple[bool, bool]], now_ms: int) -> None:
        """:meth:`set_presence` from the event loop: one statement on the
        loop's own connections (:data:`_PG_SET_PRESENCE`)."""
        pg = self._pg
        if not self.shared or not held or pg is None:
            return
        seats = [(game_id, "bg"[s]) for game_id, sides in held.items() for s in (0, 1) if sides[s]]
        await pg.rows_async(_PG_SET_PRESENCE, {
            "games": list(held), "held_games": [g for g, _ in seats], "held_sides": [s for _, s in seats],
            "origin": self.origin, "seen": now_ms, "channel": CHANNEL,
        })

    def renew_presence(self, now_ms: int) -> None:
        """Renew this process's presence rows and challenges (it lives)."""
        if not self.shared:
            return
        with self._db.write() as tx:
            tx.run(presence.update().where(presence.c.origin == self.origin).values(seen=now_ms))
            tx.run(challenges.update().where(challenges.c.origin == self.origin).values(seen=now_ms))

    async def renew_presence_async(self, now_ms: int) -> None:
        """:meth:`renew_presence` from the event loop (PostgreSQL: one
        statement on the loop's own connections)."""
        if not self.shared:
            return
        if self._pg is None:
            self.renew_presence(now_ms)
            return
        await self._pg.rows_async(_PG_RENEW, {"now": now_ms, "origin": self.origin})

    async def presence_elsewhere_of_async(self, game_ids: list[str]) -> dict[str, dict[str, int]]:
        """:meth:`presence_elsewhere_of` from the event loop (on the loop's
        own connections)."""
        if not self.shared or not game_ids or self._pg is None:
            return {}
        return _seen_by_game(await self._pg.rows_async(
            _PG_ELSEWHERE_OF, {"games": game_ids, "origin": self.origin}))

    def presence_elsewhere_of(self, game_ids: list[str]) -> dict[str, dict[str, int]]:
        """:meth:`presence_elsewhere` of many games in one query."""
        if not self.shared or not game_ids:
            return {}
        with self._db.read() as tx:  # (shared: PostgreSQL) one statement however many games
            return _seen_by_game(tx.run(_PG_ELSEWHERE_OF, {"games": game_ids, "origin": self.origin}).rows)

    def presence_elsewhere(self, game_id: str) -> dict[str, int]:
        """When each seat of a game was last seen held through another
        process: side letter -> ms (renewed while that process lives)."""
        if not self.shared:
            return {}
        with self._db.read() as tx:
            rows = tx.run(_ELSEWHERE, {"gid": game_id, "origin": self.origin}).rows
        return {side: int(seen) for side, seen in rows}

    async def presence_elsewhere_async(self, game_id: str) -> dict[str, int]:
        """:meth:`presence_elsewhere` from the event loop (PostgreSQL: on the
        loop's own connections)."""
        pg = self._pg
        if not self.shared or pg is None:
            return {}
        rows = await pg.rows_async(_ELSEWHERE, {"gid": game_id, "origin": self.origin})
        return {side: int(seen) for side, seen in rows}

    # -- the lobby (several processes) ------------------------------------------

    def announce_lobby(self, tx: Tx, what: str) -> None:
        """Announce a change of the lobby to the other processes."""
        tx.run(_NOTIFY, {"channel": LOBBY_CHANNEL, "payload": f"{self.origin} {what}"})

    def add_challenge(self, row: dict[str, Any], most: int | None = None, since_ms: int = 0) -> bool:
        """Store a challenge this process holds the poster's connection of.
        A direct one (``to_player``) is stored only while fewer than
        ``most`` renewed since ``since_ms`` wait for that player, counted
        under a lock on the player (PostgreSQL: an advisory lock for the
        transaction), so two processes cannot both store the last one;
        ``False`` when there are that many already."""
        to = row.get("to_player")
        with self._db.write() as tx:
            if to is not None and most is not None:
                if self._pg is not None:
                    tx.run(_LOCK_TO, {"key": f"challenges to {to}"})
                waiting = tx.run(_WAITING, {"to": to, "since": since_ms}).scalar()
                if waiting >= most:
                    return False
            tx.run(challenges.insert().values(origin=self.origin, **row))
            self.announce_lobby(tx, "changed")
        return True

    def remove_challenges(self, ids: list[str]) -> None:
        """Withdraw challenges (their poster left, or took them back)."""
        if not ids:
            return
        with self._db.write() as tx:
            tx.run(challenges.delete().where(challenges.c.id.in_(ids)))
            self.announce_lobby(tx, "changed")

    def take_challenge(self, challenge_id: str) -> dict[str, Any] | None:
        """Take a challenge out of the lobby to accept it, at most once over
        every process (``DELETE ... RETURNING``); ``None`` when it is gone."""
        with self._db.write() as tx:
            rows = tx.run(
                challenges.delete().where(challenges.c.id == challenge_id).returning(*challenges.c)
            ).mappings()
            if rows:
                self.announce_lobby(tx, "changed")
            return rows[0] if rows else None

    def tell_lobby(self, what: str) -> None:
        """Announce ``what`` on :data:`LOBBY_CHANNEL` (direct challenges)."""
        if not self.shared:
            return
        with self._db.write() as tx:
            self.announce_lobby(tx, what)

    def started(self, challenge_id: str, game_id: str) -> None:
        """Tell the process holding a challenge's poster that it was accepted."""
        with self._db.write() as tx:
            self.announce_lobby(tx, f"started {challenge_id} {game_id}")

    def set_online(self, player: str, online: bool, now_ms: int) -> None:
        """Say whether this process holds a websocket of ``player``: a row of
        ``presence`` with ``game_id`` ``"@" + player`` and side ``"p"``
        (renewed with the seats' rows while the process lives, so a dead
        process's players age out)."""
        if not self.shared:
            return
        key = ONLINE_PREFIX + player
        with self._db.write() as tx:
            tx.run(presence.delete().where(presence.c.game_id == key, presence.c.origin == self.origin))
            if online:
                tx.run(presence.insert().values(game_id=key, side="p", origin=self.origin, seen=now_ms))

    def online_elsewhere(self, player: str, since_ms: int) -> bool:
        """Whether another process held a websocket of ``player`` since ``since_ms``."""
        if not self.shared:
            return False
        with self._db.read() as tx:
            rows = tx.run(
                sa.select(presence.c.origin).where(
                    presence.c.game_id == ONLINE_PREFIX + player, presence.c.origin != self.origin,
                    presence.c.seen >= since_ms).limit(1)
            ).rows
        return bool(rows)

    def challenge_row(self, challenge_id: str) -> dict[str, Any] | None:
        """One challenge of the lobby, or ``None``."""
        with self._db.read() as tx:
            rows = tx.run(challenges.select().where(challenges.c.id == challenge_id)).mappings()
        return rows[0] if rows else None

    # -- quick pairing (kamisado.web.community.seeks; SQLite and PostgreSQL alike) ---------

    def remove_seeks(self, ids: list[str]) -> list[str]:
        """Withdraw seeks (cancelled, or their connection closed); the ids of
        those that were still there (the others were paired already: a
        paired seek's row stays until its player is told, :meth:`told_seeks`)."""
        if not ids:
            return []
        with self._db.write() as tx:
            rows = tx.run(seeks.delete().where(seeks.c.id.in_(ids), seeks.c.game.is_(None))
                          .returning(seeks.c.id)).rows
        return [r[0] for r in rows]

    def pair_seeks(
        self, now_ms: int, alive_since: int, new: list[dict[str, Any]],
        pairer: Callable[[list[dict[str, Any]], int, set[tuple[str, str]]],
                         list[tuple[dict[str, Any], dict[str, Any]]]],
        games_of: Callable[[list[tuple[dict[str, Any], dict[str, Any]]]], list[GameRow]],
        players: list[str] | None = None, kept_since: int = 0,
    ) -> tuple[list[tuple[dict[str, Any], dict[str, Any]]], list[dict[str, Any]], list[GameRow],
               list[dict[str, Any]]]:
        """One pairing pass, in one transaction: the ``new`` seeks of this
        process are stored and its others renewed, those whose process
        stopped renewing them before ``alive_since`` deleted, every seek
        not paired yet read and locked (PostgreSQL: ``FOR UPDATE SKIP
        LOCKED``, under an advisory lock that makes the passes of several
        processes one after the other; SQLite: ``BEGIN IMMEDIATE``),
        ``pairer`` picks the pairs (told the blocks between the seekers,
        ``(blocker, blocked)``: never paired), every other seek of their players is
        deleted, each pair's game (``games_of``) is stored and both seeks of
        the pair say it (``seeks.game``), all in the same commit: a seek is
        paired at most once whichever process looks, never without its
        game, and the pairing is never lost (the row says where it went
        until its player is told: :meth:`told_seeks`; a paired row older
        than ``kept_since`` goes).  Returns the pairs, the other seeks of
        the paired players, the games, and the seeks of ``players`` paired
        before this pass whose players were not told yet."""
        with self._db.write() as tx:
            if new:  # (before the lock: a row not committed is no other pass's business)
                tx.run(seeks.insert(), [{**row, "origin": self.origin} for row in new])
            if self.shared:
                tx.run(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": SEEK_LOCK})
            tx.run(seeks.update().where(seeks.c.origin == self.origin, seeks.c.game.is_(None))
                   .values(seen=now_ms))
            tx.run(seeks.delete().where(sa.or_(
                sa.and_(seeks.c.game.is_(None), seeks.c.seen < alive_since),
                sa.and_(seeks.c.game.is_not(None), seeks.c.seen < kept_since))))
            waiting: list[dict[str, Any]] = []
            if players:
                waiting = tx.run(seeks.select().where(seeks.c.game.is_not(None), seeks.c.player.in_(players))
                                 .order_by(seeks.c.seen, seeks.c.id)).mappings()
            rows = tx.run(
                seeks.select().where(seeks.c.game.is_(None)).order_by(seeks.c.created, seeks.c.id)
                .with_for_update(skip_locked=True)
            ).mappings()
            seekers = sorted({r["player"] for r in rows})
            closed = set(tx.run(sa.select(people.c.id).where(
                people.c.id.in_(seekers), people.c.closed.is_not(None))).scalars()) if seekers else set()
            rows = [r for r in rows if r["player"] not in closed]  # (a closed account's seek, until it goes)
            apart = {(str(a), str(b)) for a, b in tx.run(sa.select(blocks.c.blocker, blocks.c.blocked).where(
                blocks.c.blocker.in_(seekers), blocks.c.blocked.in_(seekers))).rows} if len(seekers) > 1 else set()
            pairs = pairer(rows, now_ms, apart)
            if not pairs:
                return [], [], [], waiting
            paired = {r["id"] for pair in pairs for r in pair}
            players_paired = {r["player"] for pair in pairs for r in pair}
            dropped = [r for r in rows if r["player"] in players_paired and r["id"] not in paired]
            if dropped:
                tx.run(seeks.delete().where(seeks.c.id.in_(sorted(r["id"] for r in dropped))))
            made = games_of(pairs)
            tx.run(games.insert(), [{**asdict(game), "actions": 0} for game in made])
            tx.run(_PAIRED, [{"sid": r["id"], "gid": game.id, "now": now_ms}
                             for pair, game in zip(pairs, made, strict=True) for r in pair])
        return pairs, dropped, made, waiting

    def paired_seeks(self, player: str) -> list[dict[str, Any]]:
        """A player's seeks that were paired and whose player was not told
        yet (the process that paired them died before it told them), oldest
        first."""
        with self._db.read() as tx:
            return tx.run(seeks.select().where(seeks.c.player == player, seeks.c.game.is_not(None))
                          .order_by(seeks.c.seen, seeks.c.id)).mappings()

    def told_seeks(self, ids: list[str]) -> None:
        """The players of these paired seeks were told (``started``): their rows go."""
        if ids:
            with self._db.write() as tx:
                tx.run(seeks.delete().where(seeks.c.id.in_(ids), seeks.c.game.is_not(None)))

    def seek_news(self, notes: list[str]) -> None:
        """Announce what became of other processes' seeks (``paired SEEK
        GAME``, ``unseeked SEEK``) on :data:`LOBBY_CHANNEL`, in one transaction."""
        if not self.shared or not notes:
            return
        with self._db.write() as tx:
            for note in notes:
                self.announce_lobby(tx, note)

    def lobby_counts(self, now_ms: int, online_since: int, recent_s: float) -> dict[str, Any]:
        """What the lobby shows of the whole site: ``online`` (players with a
        websocket open through any process: ``presence``; ``None`` on a
        database one process serves, which counts its own), ``playing``
        (games in play: online, between two players, not over, and either a
        move within ``recent_s`` or a correspondence clock still running)
        and ``top``, one of those whose two players' ratings at the game's
        speed add up to the most (``None`` when no game is in play)."""
        online: int | None = None
        with self._db.read() as tx:
            if self.shared:
                online = tx.run(
                    sa.select(sa.func.count(sa.distinct(presence.c.game_id))).where(
                        presence.c.game_id.like(ONLINE_PREFIX + "%"), presence.c.seen >= online_since)
                ).scalar()
            in_play = sa.and_(
                games.c.online.is_(True), games.c.state != "over", games.c.ended.is_(None),
                games.c.black == "human", games.c.gold == "human",
                games.c.black_player.is_not(None), games.c.gold_player.is_not(None),
                sa.or_(games.c.updated >= now_ms / 1000 - recent_s,
                       sa.and_(games.c.clock_days.is_not(None), games.c.clock_deadline > now_ms)),
            )
            playing = tx.run(sa.select(sa.func.count()).select_from(games).where(in_play)).scalar()
            rows = tx.run(
                sa.select(games.c.id, games.c.black_name, games.c.gold_name, games.c.black_player,
                          games.c.gold_player, games.c.clock_days, games.c.clock_initial, games.c.rated)
                .where(in_play).order_by(games.c.updated.desc()).limit(200)
            ).mappings()
            players = list({p for r in rows for p in (r["black_player"], r["gold_player"])})
            rated: dict[tuple[str, str], float] = {}
            if players:
                for r in tx.run(sa.select(ratings.c.player, ratings.c.speed, ratings.c.rating)
                                .where(ratings.c.player.in_(players))).mappings():
                    rated[(r["player"], r["speed"])] = r["rating"]
        top: dict[str, Any] | None = None
        best = -1.0
        for r in rows:
            speed = "correspondence" if r["clock_days"] else "realtime"
            pair = [rated.get((r["black_player"], speed)), rated.get((r["gold_player"], speed))]
            score = sum(x if x is not None else 1500.0 for x in pair) + (0.5 if r["rated"] else 0.0)
            if score > best:
                best = score
                top = {"game": r["id"], "names": [r["black_name"], r["gold_name"]],
                       "ratings": [None if x is None else round(x) for x in pair], "rated": bool(r["rated"])}
        return {"online": online, "playing": int(playing or 0), "top": top}

    def open_challenges(self, since_ms: int) -> list[dict[str, Any]]:
        """Every process's challenges whose process renewed them since
        ``since_ms`` (a dead process's age out), oldest first."""
        with self._db.read() as tx:
            return tx.run(
                challenges.select().where(challenges.c.seen >= since_ms).order_by(challenges.c.created)
            ).mappings()
