"""Server-side sessions and the sign-in lockout (docs/web.md, "Players").

**Sessions.**  A signed-in browser's cookie carries, besides its player's
id, a random session id (32 URL-safe bytes); the database keeps one row per
session in ``sessions``, keyed by the id's SHA-256 (so the table alone
signs nobody in), with the player, when it was made and last seen, and the
browser's user agent.  The cookie is honoured only while its row exists:
signing out deletes it, a session idle longer than ``idle_s`` (30 days by
default; ``kamisado web --session-days``) is refused and deleted, and a
password change deletes every session of the player but the one it gets
afresh.  Anonymous players have no row: their cookie names the player
alone, as before (see :func:`kamisado.web.accounts.players.player_of`).

>>> import sqlalchemy as sa
>>> from kamisado.web.store.migrations import upgrade
>>> engine = sa.create_engine("sqlite://")
>>> upgrade(engine)
>>> now = [1000.0]
>>> book = Sessions(engine, idle_s=100.0, clock=lambda: now[0])
>>> token = book.start("p1", "Firefox")
>>> book.player(token)
'p1'
>>> now[0] += 101.0  # idle too long: refused, and gone
>>> book.player(token) is None, book.of_player("p1")
(True, [])

**The lockout.**  Sign-ins are counted per account name (lower case),
whether or not such an account exists, in ``sign_in_failures``, so every
process on one database counts alike and a guesser gains nothing from
changing address.  An attempt is counted before the password is checked
(a success then clears the count), so attempts sent at once cannot slip
past the limit: after ``free`` failures the name is locked for ``base_s``,
and every further failure doubles the lock (at most ``most_s``); a locked
name is refused (429) without looking at the password.  A name left alone
for ``forget_s`` starts afresh.

>>> locks = SignInLocks(engine, clock=lambda: now[0], free=2, base_s=60.0)
>>> locks.attempt("ann"); locks.attempt("ann")  # the second failure locks it
>>> locks.attempt("ann")
Traceback (most recent call last):
...
kamisado.web.accounts.sessions.AccountLocked: too many failed sign-ins to this account; try again in 60 s
>>> now[0] += 60.0
>>> locks.attempt("ann")  # allowed again, and the lock doubles
>>> locks.wait("ann")
120.0
>>> locks.succeeded("ann"); locks.wait("ann")
0.0
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import math
import secrets
import threading
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from kamisado.web.store.database import StoreErrors
from kamisado.web.store.schema import players, sessions, sign_in_failures, tokens

__all__ = [
    "BEARER",
    "FREE_FAILURES",
    "LOCK_BASE_S",
    "LOCK_MOST_S",
    "SESSION_IDLE_S",
    "TOKEN_SOCKET",
    "AccountLocked",
    "Bearer",
    "SessionInfo",
    "SessionSockets",
    "Sessions",
    "SignInLocks",
    "digest",
    "lock_for",
    "user_agent",
]

#: A session unused this long (seconds) is over: 30 days.
SESSION_IDLE_S = 30 * 24 * 3600.0
#: A session's ``last_seen`` is written at most this often (seconds).
SEEN_EVERY_S = 300.0
#: Expired sessions and forgotten failures are deleted at most this often
#: (seconds) by each process.
SWEEP_EVERY_S = 3600.0
MAX_USER_AGENT = 200

#: How often (seconds) each process checks that the sessions of its open
#: websockets still live (a session ended through another process).
WATCH_EVERY_S = 30.0

log = logging.getLogger("kamisado.web")

#: Failed sign-ins to one account name before it is locked.
FREE_FAILURES = 5
#: The first lock (seconds); each further failure doubles it, up to
#: :data:`LOCK_MOST_S`.
LOCK_BASE_S = 60.0
LOCK_MOST_S = 3600.0
#: A name with no failure for this long starts afresh (seconds).
FORGET_S = 24 * 3600.0


#: The ASGI scope's key for the personal token a request carries
#: (:class:`Bearer`, set by :class:`kamisado.web.accounts.tokens.BearerAuth`).
BEARER = "kamisado.bearer"
#: The key of a websocket opened with a personal token among
#: :class:`SessionSockets`' (this and the token's id): closed when the
#: token is revoked or its account closed, as a session's when it ends.
TOKEN_SOCKET = "token:"


@dataclass(frozen=True)
class Bearer:
    """A request's valid personal token: its id, its player and its scopes
    (:mod:`kamisado.web.accounts.tokens`); the request is that player, as a
    signed-in cookie would be."""

    token: str
    player: str
    scopes: frozenset[str]


def digest(token: str) -> str:
    """The key of a session's row: the SHA-256 of its id, in hex.

    >>> len(digest("abc")), digest("abc") == digest("abc")
    (64, True)
    """
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def user_agent(header: str | None) -> str:
    """A user agent as kept: printable, at most 200 characters.

    >>> user_agent("Mozilla/5.0\\x00 (X11)"), user_agent(None)
    ('Mozilla/5.0 (X11)', '')
    """
    text = "".join(c for c in (header or "") if c.isprintable())
    return text.strip()[:MAX_USER_AGENT]


def lock_for(failures: int, free: int = FREE_FAILURES, base_s: float = LOCK_BASE_S,
             most_s: float = LOCK_MOST_S) -> float:
    """How long (seconds) an account name is locked after ``failures``
    failed sign-ins in a row.

    >>> [lock_for(n) for n in (4, 5, 6, 7, 12)]
    [0.0, 60.0, 120.0, 240.0, 3600.0]
    """
    if failures < free:
        return 0.0
    return float(min(most_s, base_s * 2.0 ** min(failures - free, 40)))


@dataclass(frozen=True)
class SessionInfo:
    """One session of a player (``GET /api/sessions``)."""

    key: str
    created: float
    last_seen: float
    user_agent: str

    def view(self, current: str | None = None) -> dict[str, Any]:
        """As the API answers it; ``current``: the asking browser's key."""
        return {"created": self.created, "last_seen": self.last_seen,
                "user_agent": self.user_agent, "current": self.key == current}


class Sessions:
    """The ``sessions`` table: sessions made, found, touched and ended.

    Every call is a database call: the server runs them in the store's
    threads.  ``clock`` is the wall clock (tests give their own)."""

    def __init__(self, engine: Engine, idle_s: float = SESSION_IDLE_S,
                 clock: Callable[[], float] = time.time) -> None:
        if not idle_s > 0:
            raise ValueError(f"expected a session lifetime above 0 s, found {idle_s}")
        self.engine = engine
        self.idle_s = idle_s
        self.clock = clock
        self._swept = -math.inf
        self._sweeping = threading.Lock()

    def start(self, player: str, agent: str | None = None) -> str:
        """A new session of ``player``: its id, for the cookie (the
        database keeps only its digest)."""
        token = secrets.token_urlsafe(32)
        now = self.clock()
        with self.engine.begin() as conn:
            conn.execute(sessions.insert().values(
                id=digest(token), player=player, created=now, last_seen=now,
                user_agent=user_agent(agent)))
        self.sweep()
        return token

    def find(self, token: str) -> tuple[str, float] | None:
        """The player of a live session and when it was last seen; an
        expired one is deleted (``None``), a live one is touched (at most
        every few minutes)."""
        key = digest(token)
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(sessions.c.player, sessions.c.last_seen).where(sessions.c.id == key)
            ).first()
        if row is None:
            return None
        player, seen = str(row[0]), float(row[1])
        now = self.clock()
        if now - seen > self.idle_s:
            self.end(token)
            return None
        if now - seen >= SEEN_EVERY_S:
            with self.engine.begin() as conn:
                conn.execute(sessions.update().where(sessions.c.id == key).values(last_seen=now))
        return player, seen

    def player(self, token: str) -> str | None:
        """The player a session signs in (``None``: no such session, or over)."""
        found = self.find(token)
        return None if found is None else found[0]

    def end(self, token: str) -> bool:
        """End one session (sign-out); whether it existed."""
        with self.engine.begin() as conn:
            return bool(conn.execute(sessions.delete().where(sessions.c.id == digest(token))).rowcount)

    def end_all(self, player: str, but: str | None = None) -> int:
        """End every session of ``player`` (but the one of token ``but``):
        signing out everywhere, a password change.  Returns how many ended."""
        where = sessions.c.player == player
        if but is not None:
            where = sa.and_(where, sessions.c.id != digest(but))
        with self.engine.begin() as conn:
            return int(conn.execute(sessions.delete().where(where)).rowcount)

    def of_player(self, player: str) -> list[SessionInfo]:
        """A player's live sessions, the most recently seen first."""
        cutoff = self.clock() - self.idle_s
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(sessions.c.id, sessions.c.created, sessions.c.last_seen, sessions.c.user_agent)
                .where(sessions.c.player == player, sessions.c.last_seen >= cutoff)
                .order_by(sessions.c.last_seen.desc())
            ).all()
        return [SessionInfo(str(r[0]), float(r[1]), float(r[2]), str(r[3])) for r in rows]

    def live(self, keys: list[str]) -> set[str]:
        """Which of these session keys (digests) are still live; a key
        :data:`TOKEN_SOCKET` + id (a websocket opened with a personal token)
        is live while the token is and its account is not closed."""
        cutoff = self.clock() - self.idle_s
        found: set[str] = set()
        digests = [k for k in keys if not k.startswith(TOKEN_SOCKET)]
        held = [k[len(TOKEN_SOCKET):] for k in keys if k.startswith(TOKEN_SOCKET)]
        with self.engine.connect() as conn:
            for at in range(0, len(digests), 500):
                found.update(conn.execute(
                    sa.select(sessions.c.id).where(
                        sessions.c.id.in_(digests[at:at + 500]), sessions.c.last_seen >= cutoff)
                ).scalars())
            for at in range(0, len(held), 500):
                found.update(TOKEN_SOCKET + t for t in conn.execute(
                    sa.select(tokens.c.id).join(players, players.c.id == tokens.c.player).where(
                        tokens.c.id.in_(held[at:at + 500]), players.c.closed.is_(None))
                ).scalars())
        return found

    def sweep(self, force: bool = False) -> int:
        """Delete the expired sessions (at most once an hour unless
        ``force``); how many went."""
        now = self.clock()
        if not force and now - self._swept < SWEEP_EVERY_S:
            return 0
        if not self._sweeping.acquire(blocking=False):
            return 0
        try:
            self._swept = now
            with self.engine.begin() as conn:
                return int(conn.execute(
                    sessions.delete().where(sessions.c.last_seen < now - self.idle_s)).rowcount)
        finally:
            self._sweeping.release()


class AccountLocked(Exception):
    """A sign-in refused: the account name is locked for ``retry_after`` s."""

    def __init__(self, wait: float) -> None:
        self.retry_after = max(1, math.ceil(wait))
        super().__init__(f"too many failed sign-ins to this account; try again in {self.retry_after} s")


class SignInLocks:
    """Failed sign-ins per account name, in the database (every process on
    it counts alike), and the lock that grows with them (see the module's
    documentation).  Names are counted as given (the caller lowers them)."""

    def __init__(
        self,
        engine: Engine,
        clock: Callable[[], float] = time.time,
        free: int = FREE_FAILURES,
        base_s: float = LOCK_BASE_S,
        most_s: float = LOCK_MOST_S,
        forget_s: float = FORGET_S,
    ) -> None:
        self.engine = engine
        self.clock = clock
        self.free, self.base_s, self.most_s, self.forget_s = free, base_s, most_s, forget_s
        self._swept = -math.inf

    def _row(self, conn: sa.Connection, account: str) -> tuple[int, float, float] | None:
        row = conn.execute(
            sa.select(sign_in_failures.c.failures, sign_in_failures.c.last_failure,
                      sign_in_failures.c.locked_until)
            .where(sign_in_failures.c.account == account)
        ).first()
        return None if row is None else (int(row[0]), float(row[1]), float(row[2]))

    def wait(self, account: str) -> float:
        """Seconds until ``account`` may be tried again (0.0: now)."""
        with self.engine.connect() as conn:
            row = self._row(conn, account)
        return 0.0 if row is None else max(0.0, row[2] - self.clock())

    def attempt(self, account: str) -> None:
        """Count a sign-in attempt to ``account`` as a failure, before its
        password is checked; :class:`AccountLocked` when the name is locked
        (nothing counted then).  Several processes at once: each attempt
        is counted once (a compare-and-set on the count)."""
        for _ in range(20):
            now = self.clock()
            with self.engine.connect() as conn:
                row = self._row(conn, account)
            if row is not None and row[2] > now:
                raise AccountLocked(row[2] - now)
            if row is None:
                try:
                    with self.engine.begin() as conn:
                        conn.execute(sign_in_failures.insert().values(
                            account=account, failures=1, last_failure=now,
                            locked_until=now + self._lock(1)))
                except sa.exc.IntegrityError:
                    continue  # counted by another attempt meanwhile: read again
                self._sweep(now)
                return
            failures, last, _ = row
            count = 1 if now - last >= self.forget_s else failures + 1
            with self.engine.begin() as conn:
                done = conn.execute(
                    sign_in_failures.update()
                    .where(sign_in_failures.c.account == account,
                           sign_in_failures.c.failures == failures,
                           sign_in_failures.c.last_failure == last)
                    .values(failures=count, last_failure=now, locked_until=now + self._lock(count))
                ).rowcount
            if done == 1:
                return
        raise AccountLocked(1.0)  # a crowd of attempts at once: try again shortly

    def succeeded(self, account: str) -> None:
        """The password was right: the name's failures are forgotten."""
        with self.engine.begin() as conn:
            conn.execute(sign_in_failures.delete().where(sign_in_failures.c.account == account))

    def _lock(self, failures: int) -> float:
        return lock_for(failures, self.free, self.base_s, self.most_s)

    def _sweep(self, now: float) -> None:
        # names nobody failed on for a day are forgotten (at most hourly)
        if now - self._swept < SWEEP_EVERY_S:
            return
        self._swept = now
        with self.engine.begin() as conn:
            conn.execute(sign_in_failures.delete().where(
                sign_in_failures.c.last_failure < now - self.forget_s,
                sign_in_failures.c.locked_until < now))


Closer = Callable[[], Awaitable[None]]


class SessionSockets:
    """This process's open websockets of signed-in sessions, by session key
    (:func:`digest`): a websocket keeps the player it opened as, so when
    its session ends (signed out, here or on another device, everywhere, a
    password change, idle too long) it is closed, and the page's
    reconnection comes back as whoever its cookie now says.  Sessions ended
    through this process close their websockets at once; those ended
    through another process on the same database, when that process says so
    on the lobby's channel (``sessions``: the site's server calls
    :meth:`check`), or else within :data:`WATCH_EVERY_S` (:meth:`watch`)."""

    def __init__(self) -> None:
        self._open: dict[str, set[Closer]] = {}

    def __len__(self) -> int:
        return sum(len(v) for v in self._open.values())

    def add(self, key: str, close: Closer) -> None:
        """A websocket of session ``key`` opened; ``close`` closes it."""
        self._open.setdefault(key, set()).add(close)

    def discard(self, key: str, close: Closer) -> None:
        """That websocket closed (found under ``key``, or under the key it
        was moved to by :meth:`rekey`)."""
        for k in (key, *self._open):
            held = self._open.get(k)
            if held is not None and close in held:
                held.discard(close)
                if not held:
                    del self._open[k]
                return

    def rekey(self, old: str, new: str) -> None:
        """The websockets of session ``old`` now belong to session ``new``
        (the same player's, on the same browser).

        >>> sockets = SessionSockets()
        >>> async def close() -> None: ...
        >>> sockets.add("a", close); sockets.rekey("a", "b")
        >>> sorted(sockets._open), len(sockets)
        (['b'], 1)
        >>> sockets.discard("a", close); len(sockets)  # its websocket closed
        0
        """
        held = self._open.pop(old, None)
        if held:
            self._open.setdefault(new, set()).update(held)

    async def close(self, keys: Iterable[str]) -> int:
        """Close every websocket of these sessions; how many."""
        closed = 0
        for key in list(keys):
            for close in list(self._open.pop(key, ())):
                closed += 1
                with contextlib.suppress(Exception):
                    await close()
        return closed

    async def check(self, store: Any, book: Sessions) -> int:
        """Close the websockets whose session is over (one query; the
        database call runs in ``store``'s threads); how many."""
        keys = list(self._open)
        if not keys:
            return 0
        live: set[str] = await store.call(book.live, keys)
        return await self.close(k for k in keys if k not in live)

    async def watch(self, store: Any, book: Sessions, every: float = WATCH_EVERY_S) -> None:
        """:meth:`check` every ``every`` seconds, for as long as it runs."""
        while True:
            await asyncio.sleep(every)
            try:
                await self.check(store, book)
            except StoreErrors as exc:  # the store is down: try again next time
                log.warning("could not check the sessions of open websockets: %s", exc)
            except Exception:  # a bug: logged with its traceback, and the loop goes on
                log.exception("could not check the sessions of open websockets")
