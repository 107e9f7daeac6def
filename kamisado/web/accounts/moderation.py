"""Moderation (docs/web-moderation.md): blocks, players' reports of
players, moderators, mutes, closed accounts and the audit log.

Every rule is here; the database calls are the store's
(:mod:`kamisado.web.store.moderation_calls`), the routes the site's
(:mod:`kamisado.web.site.moderation`), the command line ``kamisado admin``
(:mod:`kamisado.web.accounts.admin`).  Every call is a database call: the
server runs them in the store's threads.  Each moderator action writes one
row of the audit log: who (an :class:`Actor`), when, what, on whom, why.

>>> from kamisado.web.store.storage import Store
>>> from kamisado.web.accounts.players import Players, PasswordHasher
>>> store = Store("sqlite://")
>>> book = Players(store.engine, PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))
>>> ann, bob = book.new("Ann"), book.new("Bob")
>>> mod = Moderation(store, clock=lambda: 1000.0)
>>> mod.report(ann.id, bob.id, {"reason": "spam", "text": "links in the chat"})
{'id': 1, 'merged': False}
>>> mod.report(ann.id, ann.id, {"reason": "spam", "text": "me"})
Traceback (most recent call last):
...
kamisado.web.accounts.moderation.ModerationError: report: you cannot report yourself
>>> mod.mute(Actor("cli:root"), bob.id, 2, "spam")
8200.0
>>> [(row["action"], row["actor"], row["detail"]) for row in store.audit_log()]
[('mute', 'cli:root', '2 h')]
>>> store.close()
"""

from __future__ import annotations

import getpass
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from kamisado.web.basics.messages import Refusal
from kamisado.web.basics.text import unseeable
from kamisado.web.store.storage import Store

__all__ = [
    "MAX_NOTE",
    "MAX_REPORT_TEXT",
    "MODERATOR",
    "MUTE_MOST_HOURS",
    "REASONS",
    "ROLES",
    "Actor",
    "Moderation",
    "ModerationError",
    "check_hours",
    "check_note",
    "when",
]

#: The reasons a report gives.
REASONS = ("abuse", "cheat", "spam", "other")
#: A report's text: at most this many characters (it may hold line breaks).
MAX_REPORT_TEXT = 500
#: A moderator's reason or note: at most this many characters, one line.
MAX_NOTE = 300
#: The roles an account may hold.
MODERATOR = "moderator"
ROLES = (MODERATOR,)
#: The longest mute (hours): 30 days; longer is a closing.
MUTE_MOST_HOURS = 720.0


class ModerationError(Refusal):
    """A moderation request refused; ``status`` is the HTTP status, ``code``
    and ``details`` what the page says in its language."""


@dataclass(frozen=True)
class Actor:
    """Who acts: a moderator's account (``name``: the account name,
    ``player``: its id), or the command line (``cli:USER``)."""

    name: str
    player: str | None = None

    @classmethod
    def cli(cls) -> Actor:
        """The command line, as the operating system's user running it."""
        try:
            user = getpass.getuser()
        except (OSError, KeyError):
            user = "unknown"
        return cls(f"cli:{user}"[:80])


def when(at: float) -> str:
    """A time as the messages say it (UTC, to the minute).

    >>> when(0.0)
    '1970-01-01 00:00 UTC'
    """
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d %H:%M UTC")


def check_hours(value: Any) -> float:
    """A mute's length in hours: a number above 0, at most
    :data:`MUTE_MOST_HOURS`.

    >>> check_hours(1.5)
    1.5
    >>> check_hours("2")
    Traceback (most recent call last):
    ...
    kamisado.web.accounts.moderation.ModerationError: expected hours as a number above 0 and at most 720
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not 0 < value <= MUTE_MOST_HOURS:
        raise ModerationError(f"expected hours as a number above 0 and at most {MUTE_MOST_HOURS:g}")
    return float(value)


def check_note(value: Any, what: str = "reason") -> str | None:
    """A moderator's reason or note: optional (``None`` or blank: none),
    one line of at most :data:`MAX_NOTE` characters, text a person can see.

    >>> check_note("  spam  "), check_note(None), check_note("")
    ('spam', None, None)
    >>> check_note("a\\u202e")
    Traceback (most recent call last):
    ...
    kamisado.web.accounts.moderation.ModerationError: reason: no bidi controls (U+202E found)
    """
    if value is None:
        return None
    if not isinstance(value, str):
        raise ModerationError(f"expected the {what} as a string")
    text = value.strip()
    if not text:
        return None
    if len(text) > MAX_NOTE or "\n" in text or "\r" in text:
        raise ModerationError(f"expected a {what} of at most {MAX_NOTE} characters on one line")
    problem = unseeable(text, f"a {what}")
    if problem is not None:
        raise ModerationError(f"{what}: {problem}", 400, "unseeable", {"detail": problem})
    return text


def _check_report(body: dict[str, Any]) -> tuple[str, str, str | None]:
    reason, text, game = body.get("reason"), body.get("text", ""), body.get("game")
    if reason not in REASONS:
        raise ModerationError(f"report: expected reason {', '.join(REASONS)}, found {reason!r}")
    if not isinstance(text, str):
        raise ModerationError("report: expected the text as a string")
    text = text.strip()
    if len(text) > MAX_REPORT_TEXT:
        raise ModerationError(f"report: expected a text of at most {MAX_REPORT_TEXT} characters, found {len(text)}",
                              400, "report_long", {"n": MAX_REPORT_TEXT})
    problem = unseeable(text, "a report's text")
    if problem is not None:
        raise ModerationError(f"report: {problem}", 400, "unseeable", {"detail": problem})
    if game is not None and (not isinstance(game, str) or not 0 < len(game) <= 40):
        raise ModerationError("report: expected game as a game's id")
    return str(reason), text, game


class Moderation:
    """The rules of moderation over a :class:`Store`; ``clock``: the wall
    clock (tests give their own)."""

    def __init__(self, store: Store, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock

    def player(self, who: str) -> dict[str, Any]:
        """A player by id (404 when unknown)."""
        found = self.store.moderated(who)
        if found is None:
            raise ModerationError(f"no player {who!r}", 404, "no_player")
        return found

    def account(self, name: str) -> dict[str, Any]:
        """A player by account name (case-insensitive; 404 when unknown)."""
        found = self.store.player_by_account(name.lower())
        if found is None:
            raise ModerationError(f"no account {name!r}", 404, "no_player")
        return found

    # -- what every player may do ----------------------------------------------

    def block(self, blocker: str, blocked: str) -> bool:
        """``blocker`` blocks ``blocked`` (a known player, not themself);
        whether the block is new."""
        if blocker == blocked:
            raise ModerationError("block: you cannot block yourself", 400, "block_self")
        self.player(blocked)
        return self.store.block(blocker, blocked, self.clock())

    def unblock(self, blocker: str, blocked: str) -> bool:
        """The block goes; whether there was one."""
        return self.store.unblock(blocker, blocked)

    def report(self, reporter: str, reported: str, body: dict[str, Any]) -> dict[str, Any]:
        """A report of ``reported`` by ``reporter`` (``body``: ``reason``,
        ``text``, ``game`` optional).  A second report while the reporter's
        first on that player is open is merged into it (``merged``)."""
        reason, text, game = _check_report(body)
        if reporter == reported:
            raise ModerationError("report: you cannot report yourself", 400, "report_self")
        self.player(reported)
        if game is not None and self.store.load(game) is None:
            raise ModerationError(f"report: no game {game!r}", 404, "no_game")
        found, merged = self.store.add_complaint(reporter, reported, reason, text, game, self.clock())
        return {"id": found, "merged": merged}

    # -- moderators' actions (each one row of the audit log) -------------------------

    def _audit(self, actor: Actor, action: str, target: str | None, reason: str | None,
               detail: str | None = None) -> None:
        self.store.audit(self.clock(), actor.name, actor.player, action, target, reason, detail)

    def grant(self, actor: Actor, player: str, role: str, reason: Any = None) -> None:
        """Give an account a role (:data:`ROLES`)."""
        self._role(actor, player, role, True, check_note(reason))

    def revoke(self, actor: Actor, player: str, role: str, reason: Any = None) -> None:
        """Take a role from an account."""
        self._role(actor, player, role, False, check_note(reason))

    def _role(self, actor: Actor, player: str, role: str, on: bool, reason: str | None) -> None:
        if role not in ROLES:
            raise ModerationError(f"expected a role: {', '.join(ROLES)}; found {role!r}")
        found = self.player(player)
        if found["account"] is None:
            raise ModerationError("only an account can hold a role")
        roles = set((found["roles"] or "").split())
        roles = roles | {role} if on else roles - {role}
        self.store.set_roles(player, " ".join(sorted(roles)) or None)
        self._audit(actor, "grant" if on else "revoke", player, reason, role)

    def mute(self, actor: Actor, player: str, hours: Any, reason: Any = None) -> float:
        """Mute a player for ``hours``: until when (seconds)."""
        length = check_hours(hours)
        note = check_note(reason)
        self.player(player)
        until = self.clock() + length * 3600.0
        self.store.set_muted(player, until)
        self._audit(actor, "mute", player, note, f"{length:g} h")
        return until

    def unmute(self, actor: Actor, player: str, reason: Any = None) -> None:
        """End a player's mute."""
        note = check_note(reason)
        self.player(player)
        self.store.set_muted(player, None)
        self._audit(actor, "unmute", player, note)

    def close(self, actor: Actor, player: str, reason: Any = None) -> int:
        """Close an account: no sign-in, every session ends, its seeks and
        challenges go, and it leaves the leaderboards; its games stay.
        Returns how many sessions ended."""
        note = check_note(reason)
        found = self.player(player)
        if found["account"] is None:
            raise ModerationError("only an account can be closed")
        if actor.player == player:
            raise ModerationError("you cannot close your own account", 400, "close_self")
        ended = self.store.close_account(player, self.clock())
        self._audit(actor, "close", player, note, f"{ended} sessions ended")
        return ended

    def reopen(self, actor: Actor, player: str, reason: Any = None) -> None:
        """Open a closed account again."""
        note = check_note(reason)
        found = self.player(player)
        if found["closed"] is None:
            raise ModerationError("that account is not closed", 409, "not_closed")
        self.store.reopen_account(player)
        self._audit(actor, "reopen", player, note)

    def resolve(self, actor: Actor, report_id: Any, note: Any = None) -> None:
        """Resolve an open report."""
        if isinstance(report_id, bool) or not isinstance(report_id, int):
            raise ModerationError("expected a report's id")
        text = check_note(note, "note")
        found = self.store.complaint(report_id)
        if found is None:
            raise ModerationError(f"no report {report_id}", 404, "no_report")
        if not self.store.resolve_complaint(report_id, actor.name, text, self.clock()):
            raise ModerationError(f"report {report_id} is resolved already", 409, "resolved")
        self._audit(actor, "resolve", found["reported"], text, f"report {report_id}")

    # -- what moderators read ---------------------------------------------------

    def open_reports(self, limit: int = 100, chat: int = 20, games: int = 10) -> list[dict[str, Any]]:
        """The open reports, the oldest first, each with the reported
        player's state (``muted_until``, ``closed``), last chat lines
        (``chat``: each with its game) and last online games (``games``)."""
        out = []
        for row in self.store.complaints("open", limit):
            on = self.store.moderated(row["reported"]) or {}
            out.append({
                "id": row["id"], "created": row["created"], "reason": row["reason"], "text": row["text"],
                "game": row["game"],
                "reporter": {"player": row["reporter"], "name": row["reporter_name"]},
                "reported": {"player": row["reported"], "name": row["reported_name"],
                             "account": row["reported_account"], "muted_until": on.get("muted_until"),
                             "closed": on.get("closed")},
                "chat": self.store.chat_by(row["reported"], chat),
                "games": self.store.games_by(row["reported"], games),
            })
        return out
