"""The store's calls of a game's side tables: its chat, its report, and the
stored settings (a base of :class:`kamisado.web.store.storage.Store`, on
its database).

>>> from kamisado.web.store.storage import Store
>>> store = Store("sqlite://")
>>> store.chat_of("nogame"), store.report_of("nogame")
([], None)
>>> store.close()
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.sql.expression import ClauseElement

from kamisado.web.store.database import Database, IntegrityErrors, PostgreSQL, Tx
from kamisado.web.store.schema import chat, reports, settings

__all__ = ["CHAT_KEPT", "SideCalls"]

T = TypeVar("T")


def _chat_query(room: bool) -> ClauseElement:
    """A game's last chat messages, newest first (of one room, or both)."""
    where = [chat.c.game_id == sa.bindparam("gid"), chat.c.id > sa.bindparam("after")]
    if room:
        where.append(chat.c.room == sa.bindparam("room"))
    return sa.select(chat).where(*where).order_by(chat.c.id.desc()).limit(sa.bindparam("limit"))


#: what a join reads of a game's chat, and what a process reads when
#: another announced a message (on the event loop: :meth:`Store.chat_of_async`)
_CHAT_OF_ROOM = _chat_query(room=True)
_CHAT_OF = _chat_query(room=False)
_CHAT_FIELDS = [c.name for c in chat.columns]


def _chat_call(game_id: str, room: str | None, after: int,
               limit: int) -> tuple[ClauseElement, dict[str, Any]]:
    """The kept statement and its values for :meth:`Store.chat_of`."""
    values: dict[str, Any] = {"gid": game_id, "after": after, "limit": limit}
    if room is None:
        return _CHAT_OF, values
    return _CHAT_OF_ROOM, {**values, "room": room}


#: the chat's statements, kept by the store (compiled once)
CHAT_KEPT: tuple[ClauseElement, ...] = (_CHAT_OF_ROOM, _CHAT_OF)


class SideCalls:
    """The calls of a :class:`~kamisado.web.store.storage.Store` on a
    game's chat and report, and the settings."""

    _db: Database
    _pg: PostgreSQL | None

    if TYPE_CHECKING:  # the store's own, which these calls use
        async def call(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T: ...
        def _took(self, call: str, start: float) -> None: ...
        def _announce(self, tx: Tx, game_id: str, kind: str = "state") -> None: ...

    # -- a game's chat (kamisado.web.play.chat) -------------------------------------------

    def add_chat(self, game_id: str, room: str, player: str | None, name: str, side: str | None,
                 text: str | None, canned: str | None, at: float | None = None) -> dict[str, Any]:
        """Store one chat message of a game's room (committed before anyone
        is sent it) and announce it to the other processes (``chat``); the
        message as stored, with its id (ids grow with each message)."""
        row = {"game_id": game_id, "room": room, "at": time.time() if at is None else at,
               "player": player, "name": name, "side": side, "text": text, "canned": canned}
        with self._db.write() as tx:
            found = tx.run(chat.insert().values(**row).returning(chat.c.id)).scalar()
            self._announce(tx, game_id, "chat")
        return {"id": int(found), **row}

    def chat_of(self, game_id: str, room: str | None = None, after: int = 0,
                limit: int = 200) -> list[dict[str, Any]]:
        """A game's chat messages (of one room, or both), oldest first: the
        last ``limit`` of those with an id above ``after``."""
        query, values = _chat_call(game_id, room, after, limit)
        with self._db.read() as tx:
            rows = tx.run(query, values).mappings()
        return rows[::-1]

    async def chat_of_async(self, game_id: str, room: str | None = None, after: int = 0,
                            limit: int = 200) -> list[dict[str, Any]]:
        """:meth:`chat_of` from the event loop (PostgreSQL: its one
        statement on the loop's own connections, no thread; SQLite: in the
        store's threads)."""
        if self._pg is None:
            return await self.call(self.chat_of, game_id, room, after, limit)
        start = time.perf_counter()
        query, values = _chat_call(game_id, room, after, limit)
        try:
            rows = await self._pg.rows_async(query, values)
        finally:
            self._took("chat_of", start)
        return [dict(zip(_CHAT_FIELDS, r, strict=True)) for r in rows[::-1]]

    # -- game reports (kamisado.web.play.reports) -------------------------------------------

    def report_of(self, game_id: str) -> dict[str, Any] | None:
        """A game's report row (``None``: never asked for)."""
        with self._db.read() as tx:
            rows = tx.run(reports.select().where(reports.c.game_id == game_id)).mappings()
        return dict(rows[0]) if rows else None

    def ask_report(self, game_id: str, total: int, auto: bool, now: float) -> bool:
        """Queue a game's report of ``total`` positions, at most once: a report
        queued, running or done stays as it is (``False``); a failed one is
        queued again.  Returns whether a report was queued."""
        fresh = {"state": "queued", "auto": auto, "asked": now, "done": 0, "total": total,
                 "owner": None, "lease": None, "looks": None, "report": None,
                 "finished": None, "error": None}
        try:
            with self._db.write() as tx:
                tx.run(reports.insert().values(game_id=game_id, **fresh))
            return True
        except IntegrityErrors:
            pass
        with self._db.write() as tx:
            again = tx.run(reports.update().where(
                reports.c.game_id == game_id, reports.c.state == "failed").values(**fresh)).rowcount
        return again == 1

    def take_report(self, owner: str, lease_until: int, now_ms: int) -> dict[str, Any] | None:
        """Take the next report to work on for ``owner`` until ``lease_until``
        (ms): a queued one (asked by a click before a rated game's), or one
        whose owner's lease ran out (its process died); ``None`` when none."""
        free = sa.or_(reports.c.state == "queued",
                      sa.and_(reports.c.state == "running", reports.c.lease < now_ms))
        with self._db.read() as tx:
            ids = tx.run(sa.select(reports.c.game_id).where(free)
                         .order_by(reports.c.auto, reports.c.asked).limit(5)).scalars()
        for game_id in ids:
            with self._db.write() as tx:
                took = tx.run(reports.update().where(reports.c.game_id == game_id, free)
                              .values(state="running", owner=owner, lease=lease_until)).rowcount
            if took == 1:
                return self.report_of(game_id)
        return None

    def report_progress(self, game_id: str, owner: str, done: int, looks: str, lease_until: int) -> bool:
        """Store a report's progress (``done`` positions, their ``looks``) and
        renew ``owner``'s lease; ``False`` when ``owner`` no longer holds it."""
        with self._db.write() as tx:
            return bool(tx.run(reports.update().where(
                reports.c.game_id == game_id, reports.c.owner == owner, reports.c.state == "running",
            ).values(done=done, looks=looks, lease=lease_until)).rowcount == 1)

    def finish_report(self, game_id: str, owner: str, report: str | None, error: str | None,
                      now: float) -> bool:
        """Store a report (``done``), or why it failed (``failed``, ``error``)."""
        values: dict[str, Any] = {"state": "done" if error is None else "failed", "report": report,
                                  "error": None if error is None else error[:200], "finished": now,
                                  "owner": None, "lease": None}
        if error is None:
            values["looks"] = None
        with self._db.write() as tx:
            return bool(tx.run(reports.update().where(
                reports.c.game_id == game_id, reports.c.owner == owner, reports.c.state == "running",
            ).values(**values)).rowcount == 1)

    def setting(self, name: str, make: Callable[[], str]) -> str:
        """A stored setting; made by ``make`` and stored when missing (when
        two servers make it at once, the first stored wins)."""
        query = sa.select(settings.c.value).where(settings.c.name == name)
        with self._db.read() as tx:
            value: str | None = tx.run(query).scalar()
        if value is not None:
            return value
        with contextlib.suppress(*IntegrityErrors), self._db.write() as tx:
            tx.run(settings.insert().values(name=name, value=make()))
        with self._db.read() as tx:
            stored: str = tx.run(query).scalar()
            return stored
