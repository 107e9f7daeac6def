"""The store's calls of moderation: blocks, players' reports of players,
accounts' roles, mutes and closings, and the moderators' audit log (a base
of :class:`kamisado.web.store.storage.Store`, on its database; the rules
are :mod:`kamisado.web.accounts.moderation`'s).

>>> from kamisado.web.store.storage import Store
>>> store = Store("sqlite://")
>>> store.block("ann", "bob", 1.0), store.block("ann", "bob", 2.0)
(True, False)
>>> store.blocking([("ann", "bob"), ("bob", "ann")])
{('ann', 'bob')}
>>> store.unblock("ann", "bob"), store.blocking([("ann", "bob")])
(True, set())
>>> store.close()
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from kamisado.web.store.database import Database, IntegrityErrors, Tx
from kamisado.web.store.schema import (
    blocks,
    challenges,
    chat,
    games,
    mod_audit,
    player_reports,
    players,
    seeks,
    sessions,
)

__all__ = ["ModerationCalls"]

#: A player's fields moderation reads (``players`` less the hash).
_PLAYER = (players.c.id, players.c.name, players.c.account, players.c.roles,
           players.c.muted_until, players.c.closed)


class ModerationCalls:
    """The calls of a :class:`~kamisado.web.store.storage.Store` on
    moderation's tables."""

    _db: Database
    shared: bool

    if TYPE_CHECKING:  # the store's own, which these calls use
        def announce_lobby(self, tx: Tx, what: str) -> None: ...

    # -- blocks ----------------------------------------------------------------

    def block(self, blocker: str, blocked: str, at: float) -> bool:
        """``blocker`` blocks ``blocked``; whether it is new (a block kept
        already is left as it is)."""
        try:
            with self._db.write() as tx:
                tx.run(blocks.insert().values(blocker=blocker, blocked=blocked, at=at))
        except IntegrityErrors:
            return False
        return True

    def unblock(self, blocker: str, blocked: str) -> bool:
        """The block goes; whether there was one."""
        with self._db.write() as tx:
            return bool(tx.run(blocks.delete().where(
                blocks.c.blocker == blocker, blocks.c.blocked == blocked)).rowcount)

    def blocks_of(self, blocker: str) -> list[dict[str, Any]]:
        """The players ``blocker`` blocks, the latest first: ``{"player",
        "name", "at"}``."""
        with self._db.read() as tx:
            rows = tx.run(
                sa.select(blocks.c.blocked, players.c.name, blocks.c.at)
                .select_from(blocks.outerjoin(players, players.c.id == blocks.c.blocked))
                .where(blocks.c.blocker == blocker)
                .order_by(blocks.c.at.desc(), blocks.c.blocked)
            ).rows
        return [{"player": r[0], "name": r[1] or "", "at": r[2]} for r in rows]

    def blocking(self, pairs: list[tuple[str, str]]) -> set[tuple[str, str]]:
        """Which ``(blocker, blocked)`` pairs of ``pairs`` are blocks."""
        if not pairs:
            return set()
        blockers = sorted({a for a, _ in pairs})
        blocked = sorted({b for _, b in pairs})
        with self._db.read() as tx:
            rows = tx.run(sa.select(blocks.c.blocker, blocks.c.blocked).where(
                blocks.c.blocker.in_(blockers), blocks.c.blocked.in_(blocked))).rows
        return {(str(a), str(b)) for a, b in rows} & set(pairs)

    # -- players' state ----------------------------------------------------------

    def moderated(self, player: str) -> dict[str, Any] | None:
        """A player's id, name, account, roles, ``muted_until`` and
        ``closed`` (``None``: no such player)."""
        with self._db.read() as tx:
            rows = tx.run(sa.select(*_PLAYER).where(players.c.id == player)).mappings()
        return rows[0] if rows else None

    def player_by_account(self, account: str) -> dict[str, Any] | None:
        """:meth:`moderated` by account name (lower case)."""
        with self._db.read() as tx:
            rows = tx.run(sa.select(*_PLAYER).where(players.c.account == account)).mappings()
        return rows[0] if rows else None

    def standing(self, player: str) -> tuple[float | None, float | None]:
        """Until when a player is muted and since when its account is
        closed (seconds; ``None``: not; the caller compares the mute's end
        with the time)."""
        with self._db.read() as tx:
            rows = tx.run(sa.select(players.c.muted_until, players.c.closed).where(players.c.id == player)).rows
        if not rows:
            return None, None
        muted, closed = rows[0]
        return (None if muted is None else float(muted)), (None if closed is None else float(closed))

    def set_roles(self, player: str, roles: str | None) -> None:
        """A player's roles (space-separated; ``None``: none)."""
        with self._db.write() as tx:
            tx.run(players.update().where(players.c.id == player).values(roles=roles))

    def set_muted(self, player: str, until: float | None) -> None:
        """A player muted until ``until`` (``None``: unmuted)."""
        with self._db.write() as tx:
            tx.run(players.update().where(players.c.id == player).values(muted_until=until))

    def close_account(self, player: str, at: float) -> int:
        """Close an account, in one transaction: marked closed, every
        session of it ended (every process signs it out at its next
        request), its seeks not paired yet and its challenges gone.
        Returns how many sessions ended."""
        with self._db.write() as tx:
            tx.run(players.update().where(players.c.id == player).values(closed=at))
            ended = int(tx.run(sessions.delete().where(sessions.c.player == player)).rowcount)
            tx.run(seeks.delete().where(seeks.c.player == player, seeks.c.game.is_(None)))
            gone = tx.run(challenges.delete().where(challenges.c.player == player)).rowcount
            if gone and self.shared:
                self.announce_lobby(tx, "changed")
        return ended

    def reopen_account(self, player: str) -> None:
        """An account closed is open again (its sessions stay ended)."""
        with self._db.write() as tx:
            tx.run(players.update().where(players.c.id == player).values(closed=None))

    # -- players' reports of players ---------------------------------------------

    def add_complaint(self, reporter: str, reported: str, reason: str, text: str,
                      game: str | None, at: float) -> tuple[int, bool]:
        """Store a report of ``reported`` by ``reporter``: its id, and
        whether it was merged into the one the reporter has open on that
        player already (its text then gains the new text, on a new line)."""
        with self._db.write() as tx:
            open_one = tx.run(
                sa.select(player_reports.c.id, player_reports.c.text)
                .where(player_reports.c.reported == reported, player_reports.c.reporter == reporter,
                       player_reports.c.state == "open")
                .order_by(player_reports.c.id)
                .limit(1)
            ).rows
            if open_one:
                found, before = int(open_one[0][0]), str(open_one[0][1])
                merged = f"{before}\n[{reason}] {text}"[-2000:]
                tx.run(player_reports.update().where(player_reports.c.id == found).values(text=merged))
                return found, True
            found = tx.run(player_reports.insert().values(
                reporter=reporter, reported=reported, reason=reason, text=text, game=game,
                created=at, state="open").returning(player_reports.c.id)).scalar()
        return int(found), False

    def complaints(self, state: str = "open", limit: int = 100) -> list[dict[str, Any]]:
        """The reports in ``state`` (``open`` or ``resolved``), the oldest
        first, each with the reporter's and the reported player's name and
        account (``reporter_name``, ``reported_name``, ``reported_account``)."""
        by = players.alias("by")
        on = players.alias("on")
        with self._db.read() as tx:
            return tx.run(
                sa.select(player_reports, by.c.name.label("reporter_name"),
                          on.c.name.label("reported_name"), on.c.account.label("reported_account"))
                .select_from(player_reports
                             .outerjoin(by, by.c.id == player_reports.c.reporter)
                             .outerjoin(on, on.c.id == player_reports.c.reported))
                .where(player_reports.c.state == state)
                .order_by(player_reports.c.created, player_reports.c.id)
                .limit(limit)
            ).mappings()

    def complaint(self, report_id: int) -> dict[str, Any] | None:
        """One report (``None``: no such report)."""
        with self._db.read() as tx:
            rows = tx.run(player_reports.select().where(player_reports.c.id == report_id)).mappings()
        return rows[0] if rows else None

    def resolve_complaint(self, report_id: int, by: str, note: str | None, at: float) -> bool:
        """Resolve an open report; whether it was open."""
        with self._db.write() as tx:
            return bool(tx.run(
                player_reports.update()
                .where(player_reports.c.id == report_id, player_reports.c.state == "open")
                .values(state="resolved", resolved_by=by, resolved_at=at, note=note)
            ).rowcount)

    def chat_by(self, player: str, limit: int = 20) -> list[dict[str, Any]]:
        """A player's last chat lines, the newest first: ``{"game", "room",
        "at", "text", "canned"}``."""
        with self._db.read() as tx:
            return tx.run(
                sa.select(chat.c.game_id.label("game"), chat.c.room, chat.c.at, chat.c.text, chat.c.canned)
                .where(chat.c.player == player)
                .order_by(chat.c.id.desc())
                .limit(limit)
            ).mappings()

    def games_by(self, player: str, limit: int = 10) -> list[dict[str, Any]]:
        """A player's last online games, the latest first: ``{"id",
        "updated", "black_name", "gold_name", "black_player", "gold_player",
        "state", "rated", "ended"}``."""
        with self._db.read() as tx:
            return tx.run(
                sa.select(games.c.id, games.c.updated, games.c.black_name, games.c.gold_name,
                          games.c.black_player, games.c.gold_player, games.c.state, games.c.rated,
                          games.c.ended)
                .where(sa.or_(games.c.black_player == player, games.c.gold_player == player),
                       games.c.online.is_(True))
                .order_by(games.c.updated.desc())
                .limit(limit)
            ).mappings()

    # -- the audit log ------------------------------------------------------------

    def audit(self, at: float, actor: str, actor_player: str | None, action: str,
              target: str | None, reason: str | None, detail: str | None = None) -> None:
        """Write one row of the audit log."""
        with self._db.write() as tx:
            tx.run(mod_audit.insert().values(at=at, actor=actor, actor_player=actor_player, action=action,
                                             target=target, reason=reason, detail=detail))

    def audit_log(self, limit: int = 100) -> list[dict[str, Any]]:
        """The audit log's last ``limit`` rows, the newest first, each with
        the target's name and account (``target_name``, ``target_account``)."""
        on = players.alias("on")
        with self._db.read() as tx:
            return tx.run(
                sa.select(mod_audit, on.c.name.label("target_name"), on.c.account.label("target_account"))
                .select_from(mod_audit.outerjoin(on, on.c.id == mod_audit.c.target))
                .order_by(mod_audit.c.id.desc())
                .limit(limit)
            ).mappings()
