"""Players: who a browser is, and optional accounts (docs/web.md, "Players").

A browser is given a player on its first visit to the page: an anonymous
player, named in a signed cookie (Starlette's ``SessionMiddleware``, signed
with itsdangerous; HttpOnly, SameSite=Lax).  The player can set a display
name, and may sign up (an account name and a password, hashed with argon2id
through argon2-cffi; the password itself is never stored) so that its games
follow it to another browser, where it signs in.  A signed-in browser is a
server-side session, and sign-ins are limited per account name
(:mod:`kamisado.web.accounts.sessions`).  Seats of games belong to players
(:mod:`kamisado.web.play.games`).

>>> import sqlalchemy as sa
>>> from kamisado.web.store.migrations import upgrade
>>> engine = sa.create_engine("sqlite://")
>>> upgrade(engine)
>>> book = Players(engine, PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))
>>> ann = book.new()
>>> book.set_name(ann.id, " Ann ").name
'Ann'
>>> book.sign_up(ann.id, "Ann_1", "a long password").account
'ann_1'
>>> book.sign_in("ANN_1", "a long password").id == ann.id
True
>>> book.sign_in("ann_1", "wrong password")
Traceback (most recent call last):
...
kamisado.web.accounts.players.PlayerError: wrong account name or password
"""

from __future__ import annotations

import json
import logging
import os
import re
import secrets
import time
import unicodedata
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import itsdangerous
import sqlalchemy as sa
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy.engine import Engine
from starlette.concurrency import run_in_threadpool
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from kamisado.web.accounts.sessions import (
    BEARER,
    SESSION_IDLE_S,
    AccountLocked,
    Bearer,
    Sessions,
    SessionSockets,
    SignInLocks,
    digest,
)
from kamisado.web.basics.messages import Refusal, error_body
from kamisado.web.basics.text import UnstorableText, check_storable, unseeable
from kamisado.web.store.database import StoreErrors
from kamisado.web.store.storage import Store, players

__all__ = [
    "ACCOUNT_RE",
    "MAX_NAME",
    "MAX_PASSWORD",
    "MIN_PASSWORD",
    "PasswordHasher",
    "Player",
    "PlayerError",
    "PlayerSession",
    "Players",
    "SessionKeys",
    "check_account",
    "check_name",
    "default_hasher",
    "check_password",
    "new_player_id",
    "player_of",
    "session_secret",
]

#: An account (sign-in) name: 3 to 30 letters, digits, ``_`` or ``-``;
#: case-insensitive (kept in lower case).
ACCOUNT_RE = re.compile(r"[A-Za-z0-9_-]{3,30}")
MIN_PASSWORD = 8
#: Longer passwords are refused: hashing is the costly part of a sign-in.
MAX_PASSWORD = 1024
MAX_NAME = 40
#: ``last_seen`` is written at most this often (seconds) per player.
SEEN_EVERY_S = 3600.0
WRONG = "wrong account name or password"
CLOSED = "this account was closed by a moderator"

log = logging.getLogger("kamisado.web")


class PlayerError(Refusal):
    """A request about players refused; ``status`` is the HTTP status,
    ``code`` and ``details`` what the page says in its language (the answer's
    ``code`` and ``args``: see ``docs/web-page.md``, Words).

    >>> PlayerError(WRONG, 401, "wrong_password").code
    'wrong_password'
    """


@dataclass(frozen=True)
class Player:
    """One row of ``players`` (the hash stays in the database)."""

    id: str
    name: str
    account: str | None
    created: float
    last_seen: float
    #: moderation (:mod:`kamisado.web.accounts.moderation`): the account's
    #: roles (space-separated), until when it is muted, since when closed
    roles: str | None = None
    muted_until: float | None = None
    closed: float | None = None
    #: a bot account (:mod:`kamisado.web.bots.accounts`): marked BOT wherever its name shows
    bot: bool = False

    @property
    def moderator(self) -> bool:
        """Whether the account holds the ``moderator`` role."""
        return "moderator" in (self.roles or "").split()

    def view(self) -> dict[str, Any]:
        """The player as ``GET /api/me`` answers it (``muted_until``: the
        end of a mute not over yet, in seconds since the epoch, else null)."""
        muted = self.muted_until if self.muted_until is not None and self.muted_until > time.time() else None
        return {"id": self.id, "name": self.name, "account": self.account,
                "signed_in": self.account is not None, "moderator": self.moderator,
                "muted_until": muted, "bot": self.bot}


def new_player_id() -> str:
    """A random player id (22 URL-safe characters)."""
    return secrets.token_urlsafe(16)


#: The format characters a display name may hold beside printable ones:
#: the zero-width non-joiner and joiner (Persian words, emoji sequences such
#: as 👩‍💻), the direction marks (U+200E, U+200F, U+061C) and the tag
#: characters of subdivision flags (🏴 + tags).  Other invisible ones
#: (U+200B, U+FEFF, U+2060...) are refused.
_NAME_FORMAT = re.compile("[\u200c-\u200f\u061c\U000e0020-\U000e007f]")


def check_name(name: Any) -> str:
    """A display name: at most 40 characters on one line (trimmed; may be
    empty), text a person can see (:func:`~kamisado.web.basics.text.unseeable`).

    >>> check_name("  Ann  "), check_name("\\U0001f469\\u200d\\U0001f4bb")
    ('Ann', '👩\\u200d💻')
    >>> check_name("two\\nlines")
    Traceback (most recent call last):
    ...
    kamisado.web.accounts.players.PlayerError: expected a name of at most 40 characters on one line
    >>> check_name("Ann\\u202e")
    Traceback (most recent call last):
    ...
    kamisado.web.accounts.players.PlayerError: display name: no bidi controls (U+202E found)
    >>> check_name("A\\u200bnn")
    Traceback (most recent call last):
    ...
    kamisado.web.accounts.players.PlayerError: display name: no invisible characters (U+200B found)
    """
    if not isinstance(name, str):
        raise PlayerError("expected the name as a string")
    text: str = name.strip()
    problem = unseeable(text, "a display name") if text else None
    if problem is not None:
        raise PlayerError(f"display name: {problem}", 400, "name_unseeable", {"detail": problem})
    if len(text) > MAX_NAME or any(c in "\r\n" for c in text):
        raise PlayerError(f"expected a name of at most {MAX_NAME} characters on one line", 400, "name_long",
                              {"n": MAX_NAME})
    unshown = next((c for c in text if not c.isprintable() and not _NAME_FORMAT.fullmatch(c)), None)
    if unshown is not None:
        if unicodedata.category(unshown) in ("Cc", "Zl", "Zp"):
            raise PlayerError(f"expected a name of at most {MAX_NAME} characters on one line", 400, "name_long",
                              {"n": MAX_NAME})
        raise PlayerError(f"display name: no invisible characters (U+{ord(unshown):04X} found)", 400,
                          "name_unseeable", {"detail": f"no invisible characters (U+{ord(unshown):04X} found)"})
    return text


def check_account(account: Any) -> str:
    """An account name, in lower case (case-insensitive).

    >>> check_account("Ann_1")
    'ann_1'
    >>> check_account("a b")
    Traceback (most recent call last):
    ...
    kamisado.web.accounts.players.PlayerError: expected an account name of 3 to 30 letters, digits, _ or -
    >>> check_account("ann\\u202e")
    Traceback (most recent call last):
    ...
    kamisado.web.accounts.players.PlayerError: account name: no bidi controls (U+202E found)
    """
    problem = unseeable(account, "an account name") if isinstance(account, str) and account else None
    if problem is not None:
        raise PlayerError(f"account name: {problem}", 400, "account_name", {"detail": problem})
    if not isinstance(account, str) or not ACCOUNT_RE.fullmatch(account):
        raise PlayerError("expected an account name of 3 to 30 letters, digits, _ or -", 400, "account_name")
    return account.lower()


def check_password(password: Any) -> str:
    """A new password: at least 8 characters (at most 1024), text that can
    be written in UTF-8 (a lone surrogate, ``"\\ud800"`` in JSON, cannot).

    >>> check_password("\\ud800" * 8)
    Traceback (most recent call last):
    ...
    kamisado.web.accounts.players.PlayerError: expected the password as text (it holds a lone surrogate)
    """
    if not isinstance(password, str) or len(password) < MIN_PASSWORD:
        raise PlayerError(f"expected a password of at least {MIN_PASSWORD} characters", 400, "password_short",
                          {"n": MIN_PASSWORD})
    if len(password) > MAX_PASSWORD:
        raise PlayerError(f"expected a password of at most {MAX_PASSWORD} characters", 400, "password_long",
                          {"n": MAX_PASSWORD})
    if not _encodable(password):
        raise PlayerError("expected the password as text (it holds a lone surrogate)")
    return password


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def default_hasher() -> PasswordHasher:
    """The password hasher a :class:`Players` makes when it is given none:
    argon2id with argon2-cffi's defaults (64 MiB and tens of milliseconds a
    hash, on purpose).  The test suite puts a cheap one in its place
    (tests/conftest.py): most of its tests start a server, and each start
    hashes once (the dummy password below).

    >>> default_hasher().hash("a password").startswith("$argon2id$")
    True
    """
    return PasswordHasher()


class Players:
    """The players in a database (the ``players`` table of
    :mod:`kamisado.web.store.storage`).  Hashing takes tens of milliseconds by
    design: the server calls :meth:`sign_up` and :meth:`sign_in` in a thread."""

    def __init__(
        self,
        engine: Engine,
        hasher: PasswordHasher | None = None,
        *,
        clock: Callable[[], float] = time.time,
        session_idle: float = SESSION_IDLE_S,
        locks: SignInLocks | None = None,
    ) -> None:
        self.engine = engine
        self.hasher = hasher or default_hasher()  # argon2id, the library's defaults
        # a hash of a password nobody knows, made with the same parameters:
        # an unknown account name is checked against it, so it costs the
        # same hashing (and time) as a wrong password
        self._dummy = self.hasher.hash(secrets.token_urlsafe(12))
        #: the signed-in browsers (server-side sessions)
        self.sessions = Sessions(engine, session_idle, clock)
        #: failed sign-ins per account name, and the lock that grows with them
        self.locks = locks or SignInLocks(engine, clock)

    def _row(self, conn: sa.Connection, where: Any) -> Player | None:
        row = conn.execute(
            sa.select(players.c.id, players.c.name, players.c.account,
                      players.c.created, players.c.last_seen, players.c.roles,
                      players.c.muted_until, players.c.closed, players.c.bot).where(where)
        ).first()
        return None if row is None else Player(*row[:8], bot=bool(row[8]))

    def get(self, player_id: str) -> Player | None:
        """A player by id (``None``: unknown)."""
        with self.engine.connect() as conn:
            return self._row(conn, players.c.id == player_id)

    def new(self, name: str = "") -> Player:
        """A new anonymous player."""
        now = time.time()
        player = Player(new_player_id(), check_name(name), None, now, now)
        with self.engine.begin() as conn:
            conn.execute(players.insert().values(
                id=player.id, created=now, last_seen=now, name=player.name))
        return player

    def seen(self, player: Player) -> None:
        """Note that a player came back (written at most once an hour)."""
        now = time.time()
        if now - player.last_seen >= SEEN_EVERY_S:
            with self.engine.begin() as conn:
                conn.execute(players.update().where(players.c.id == player.id).values(last_seen=now))

    def set_name(self, player_id: str, name: Any) -> Player:
        """Set a player's display name (checked by :func:`check_name`)."""
        name = check_name(name)
        with self.engine.begin() as conn:
            conn.execute(players.update().where(players.c.id == player_id).values(name=name))
            player = self._row(conn, players.c.id == player_id)
        if player is None:
            raise PlayerError("no such player", 404, "no_player")
        return player

    def sign_up(self, player_id: str, account: Any, password: Any, name: Any = None) -> Player:
        """Give an anonymous player an account: it keeps its id, so it keeps
        its games.  Refused (409) when the name is taken or the player has
        an account already."""
        typed = account
        account = check_account(account)
        password = check_password(password)
        display = None if name is None else check_name(name)
        hashed = self.hasher.hash(password)
        try:
            with self.engine.begin() as conn:
                player = self._row(conn, players.c.id == player_id)
                if player is None:
                    raise PlayerError("no such player", 404, "no_player")
                if player.account is not None:
                    raise PlayerError(f"already signed in as {player.account}; sign out first", 409,
                                      "signed_in", {"account": player.account})
                values: dict[str, Any] = {"account": account, "password_hash": hashed}
                if display is not None or not player.name:
                    values["name"] = display or typed
                done = conn.execute(
                    players.update()
                    .where(players.c.id == player_id, players.c.account.is_(None))
                    .values(**values)
                ).rowcount
                if done != 1:
                    raise PlayerError("already signed in; sign out first", 409, "signed_in")
                player = self._row(conn, players.c.id == player_id)
        except sa.exc.IntegrityError:
            raise PlayerError(f"the account name {account} is taken", 409, "name_taken", {"account": account}) from None
        assert player is not None
        return player

    def sign_in(self, account: Any, password: Any) -> Player:
        """The player of an account, when the password is right.

        A wrong name and a wrong password get the same answer (401,
        :data:`WRONG`) after the same work: an unknown name is checked
        against a dummy hash.  Every attempt on a well-formed name counts
        against it, whoever makes it from wherever (:class:`SignInLocks`):
        after a few failures the name is locked, and :class:`AccountLocked`
        (429) answers without looking at the password.  An account a
        moderator closed is refused (403, :data:`CLOSED`) once the password
        is right."""
        if not isinstance(account, str) or not isinstance(password, str) or len(password) > MAX_PASSWORD:
            raise PlayerError(WRONG, 401, "wrong_password")
        name = account.lower()
        counted = ACCOUNT_RE.fullmatch(account) is not None  # no other name can be an account
        if counted:
            self.locks.attempt(name)
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(players.c.id, players.c.password_hash)
                .where(players.c.account == name)
            ).first() if counted else None
        hashed = row[1] if row is not None and row[1] else self._dummy
        if not self._verify(hashed, password) or row is None:
            raise PlayerError(WRONG, 401, "wrong_password")  # (a password no account can have is never right)
        self.locks.succeeded(name)
        self._rehash(row[0], hashed, password)
        player = self.get(row[0])
        if player is None:
            raise PlayerError(WRONG, 401, "wrong_password")
        if player.closed is not None:
            raise PlayerError(CLOSED, 403, "closed")
        return player

    def _verify(self, hashed: str, password: str) -> bool:
        # a lone surrogate is no password: the same work against the dummy, and wrong
        fits = _encodable(password)
        try:
            return bool(self.hasher.verify(hashed if fits else self._dummy,
                                           password if fits else "\ufffd" * len(password))) and fits
        except (VerificationError, InvalidHashError):
            return False

    def _rehash(self, player_id: str, hashed: str, password: str) -> None:
        # a hash made with older parameters is made again with the current ones
        if self.hasher.check_needs_rehash(hashed):
            with self.engine.begin() as conn:
                conn.execute(players.update().where(players.c.id == player_id)
                             .values(password_hash=self.hasher.hash(password)))

    def change_password(self, player_id: str, current: Any, password: Any) -> Player:
        """A signed-in player's new password, given the current one (a
        wrong one is 403, and counts against the account like a failed
        sign-in, so a stolen session guesses no faster).  The caller ends
        the player's other sessions."""
        player = self.get(player_id)
        if player is None or player.account is None:
            raise PlayerError("sign in first: only an account has a password", 403, "account_needed")
        password = check_password(password)
        if not isinstance(current, str) or len(current) > MAX_PASSWORD:
            raise PlayerError("wrong current password", 403, "wrong_current")
        self.locks.attempt(player.account)
        hashed = self.password_hash(player_id) or self._dummy
        if not self._verify(hashed, current):
            raise PlayerError("wrong current password", 403, "wrong_current")
        self.locks.succeeded(player.account)
        new_hash = self.hasher.hash(password)
        with self.engine.begin() as conn:
            conn.execute(players.update().where(players.c.id == player_id).values(password_hash=new_hash))
        return player

    def by_session(self, token: str, player_id: Any = None) -> Player | None:
        """The player a session signs in (``None``: no such session, over,
        or not ``player_id``'s when that is given)."""
        found = self.sessions.player(token)
        if found is None or (player_id is not None and found != player_id):
            return None
        player = self.get(found)
        return None if player is None or player.closed is not None else player

    def password_hash(self, player_id: str) -> str | None:
        """The stored hash of a player's password (for tests and audits)."""
        with self.engine.connect() as conn:
            value: str | None = conn.execute(
                sa.select(players.c.password_hash).where(players.c.id == player_id)
            ).scalar()
            return value


# -- the web side: the cookie, who a request is, the player endpoints ----------

#: The cookie naming a browser's player, and how long it lasts (seconds,
#: from when it was set: at the first visit, at each sign-in and sign-out).
COOKIE = "kamisado_player"
MAX_AGE = 400 * 24 * 3600
#: The ``settings`` row holding the generated signing secret.
SECRET_SETTING = "session_secret"
ENV_SECRET = "KAMISADO_SECRET"
MAX_BODY = 4096


class SessionKeys:
    """The key that signs the cookies, set when the server starts
    (:func:`session_secret`): the middleware exists before the database is
    open, so it reads the signer from here."""

    def __init__(self, given: str | None = None) -> None:
        self.given = given  # --secret
        self.signer: itsdangerous.TimestampSigner | None = None

    def set(self, secret: str) -> None:
        """Sign with ``secret`` from now on."""
        self.signer = itsdangerous.TimestampSigner(secret)


class PlayerSession(SessionMiddleware):
    """Starlette's session middleware (a signed cookie: itsdangerous), with
    the key given when the server starts, HttpOnly, SameSite=Lax and a long
    life.  It holds ``{"player": ID}`` for an anonymous player, and
    ``{"player": ID, "session": SID}`` for a signed-in browser (a session
    of :mod:`kamisado.web.accounts.sessions`; see :func:`player_of`)."""

    def __init__(self, app: ASGIApp, keys: SessionKeys, https_only: bool = False) -> None:
        # until the server starts, a random key nobody knows
        super().__init__(app, secrets.token_urlsafe(32), session_cookie=COOKIE,
                         max_age=MAX_AGE, same_site="lax", https_only=https_only)
        self.keys = keys

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.keys.signer is not None:
            self.signer = self.keys.signer
        await super().__call__(scope, receive, send)


def session_secret(given: str | None, store: Store) -> str:
    """The key that signs the cookies: ``--secret``, else ``KAMISADO_SECRET``,
    else one generated once and kept in the database (``settings``), so a
    restart keeps everyone's player, and every server on one database
    signs alike."""
    return given or os.environ.get(ENV_SECRET) or store.setting(
        SECRET_SETTING, lambda: secrets.token_urlsafe(32))


def book_of(conn: HTTPConnection) -> Players:
    """The app's :class:`Players` (set when the server starts)."""
    book: Players = conn.app.state.players
    return book


def player_of(conn: HTTPConnection, create: bool = False) -> Player | None:
    """The player a request (or websocket) comes from, by its cookie.

    A signed-in browser's cookie holds ``{"player": ID, "session": SID}``:
    it is that player only while the session lives in the database
    (:class:`kamisado.web.accounts.sessions.Sessions`: not signed out, not idle
    for too long, not ended by a password change).  An anonymous player's
    holds ``{"player": ID}`` alone, as before sessions existed, and is
    honoured only while that player has no account: a cookie of an
    account's player without a session (one from before sessions, or a
    copy of the anonymous cookie from before it signed up) signs nobody in.

    ``create``: a browser that is no player (no cookie, a cookie that is
    not ours, tampered with, of an unknown player or of a session that is
    over) is given a new anonymous player and the cookie; the page and
    ``/api/me`` do so on a first visit.  Other requests without a player
    get ``None``.

    A request with a personal token (``Authorization: Bearer``, checked by
    :class:`kamisado.web.accounts.tokens.BearerAuth`) is the token's player,
    whatever its cookie says, and is never given a new one."""
    book = book_of(conn)
    bearer = conn.scope.get(BEARER)
    if isinstance(bearer, Bearer):
        found = book.get(bearer.player)
        if found is None or found.closed is not None:
            if create:
                raise PlayerError("bad token: unknown, revoked, or its account closed", 401, "bad_token")
            return None
        return found
    cookie = conn.session if "session" in conn.scope else {}
    player_id, token = cookie.get("player"), cookie.get("session")
    player: Player | None = None
    if isinstance(token, str):
        player = book.by_session(token, player_id)
    elif isinstance(player_id, str):
        player = book.get(player_id)
        if player is not None and player.account is not None:
            player = None  # an account signs in only through a session
    if player is not None:
        book.seen(player)
        return player
    if not create:
        return None
    player = book.new()
    conn.session.clear()
    conn.session["player"] = player.id
    return player


def session_key(conn: HTTPConnection) -> str | None:
    """The key (digest) of the session a request's cookie carries, if any
    (none for a request with a personal token)."""
    if BEARER in conn.scope:
        return None
    token = conn.session.get("session") if "session" in conn.scope else None
    return digest(token) if isinstance(token, str) else None


async def player_in_thread(conn: HTTPConnection, create: bool = False) -> Player | None:
    """:func:`player_of`, run in one of the store's threads (its database
    calls never hold up the server's event loop)."""
    store = conn.app.state.hub.store
    player: Player | None = await store.call(player_of, conn, create)
    return player


async def _in_thread(request: Request, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` (a database call) in one of the store's threads."""
    return await request.app.state.hub.store.call(fn, *args)


async def json_body(request: Request) -> dict[str, Any]:
    """A request's JSON object body (at most ``MAX_BODY`` bytes), or a
    :class:`PlayerError` naming what was wrong (the accounts', tokens' and
    moderators' routes share it)."""
    length = request.headers.get("content-length")
    if length is not None and (not (length.isascii() and length.isdigit()) or int(length) > MAX_BODY):
        raise PlayerError(f"expected a JSON object of at most {MAX_BODY} bytes", 413)
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY:
            raise PlayerError(f"expected a JSON object of at most {MAX_BODY} bytes", 413)
    try:
        body = json.loads(raw or b"{}")
    except (ValueError, RecursionError):
        body = None
    if not isinstance(body, dict):
        raise PlayerError("expected a JSON object")
    try:  # a NUL or a lone surrogate: bad input, never a 500 from the hasher or the store
        check_storable(body, request.url.path.rsplit("/", 1)[-1])
    except UnstorableText as exc:
        raise PlayerError(str(exc)) from None
    return body


def answer_refusals(fn: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
    """A route whose :class:`PlayerError` (and the store's errors) become
    the JSON error answer (shared by the tokens' routes)."""
    async def run(request: Request) -> Response:
        try:
            return await fn(request)
        except PlayerError as exc:
            return JSONResponse(error_body(str(exc), exc.status, exc.code, exc.details), status_code=exc.status)
        except AccountLocked as exc:
            return JSONResponse(
                {**error_body(str(exc), 429), "limit": "signin", "retry_after": exc.retry_after},
                status_code=429, headers={"Retry-After": str(exc.retry_after)})
        except StoreErrors:
            log.exception("players: the store failed")
            return JSONResponse(error_body("the store cannot be read; try again", 503), status_code=503)

    return run


async def _signed_in(request: Request, player: Player, keep_sockets: bool = False) -> None:
    """This browser's cookie becomes a new session of ``player`` (an
    account); the session it carried before, if any, ends, and its
    websockets here close, unless ``keep_sockets`` (the same player goes on,
    as after a new password: they are the new session's now, so the page is
    not told its session ended before it has the new cookie)."""
    book = book_of(request)
    old = request.session.get("session")
    token = await _in_thread(request, book.sessions.start, player.id, request.headers.get("user-agent"))
    if isinstance(old, str):
        await _in_thread(request, book.sessions.end, old)
        if keep_sockets:
            sockets_of(request).rekey(digest(old), digest(token))
        else:
            await sockets_of(request).close([digest(old)])
    request.session.clear()
    request.session["player"] = player.id
    request.session["session"] = token


def sockets_of(conn: HTTPConnection) -> SessionSockets:
    """This process's websockets of signed-in sessions (closed when their
    session ends)."""
    sockets: SessionSockets = conn.app.state.session_sockets
    return sockets


async def sessions_ended(request: Request) -> None:
    """Sessions were ended through this request: close their websockets on
    this process, and tell the other processes on the database to close
    theirs now (``sessions`` on the lobby's channel) rather than at their
    next look (:data:`~kamisado.web.accounts.sessions.WATCH_EVERY_S`)."""
    store = request.app.state.hub.store
    await sockets_of(request).check(store, book_of(request).sessions)
    if store.shared:
        try:
            await store.call(store.tell_lobby, "sessions")
        except StoreErrors as exc:  # they still close within their watch
            log.warning("could not tell the other processes of ended sessions: %s", exc)


@answer_refusals
async def me(request: Request) -> Response:
    """``GET /api/me``: who this browser is (made on a first visit)."""
    player = await player_in_thread(request, create=True)
    assert player is not None
    return JSONResponse(player.view())


@answer_refusals
async def set_me(request: Request) -> Response:
    """``POST /api/me`` ``{"name": ...}``: set the display name."""
    body = await json_body(request)
    player = await player_in_thread(request, create=True)
    assert player is not None
    named = await _in_thread(request, book_of(request).set_name, player.id, body.get("name"))
    return JSONResponse(named.view())


@answer_refusals
async def sign_up(request: Request) -> Response:
    """``POST /api/signup`` ``{"account", "password", "name"?}``: this
    browser's player gets an account (and keeps its games), and the
    browser a session of it."""
    body = await json_body(request)
    player = await player_in_thread(request, create=True)
    assert player is not None
    done = await run_in_threadpool(
        book_of(request).sign_up, player.id, body.get("account"), body.get("password"), body.get("name"))
    await _signed_in(request, done)
    return JSONResponse(done.view())


@answer_refusals
async def sign_in(request: Request) -> Response:
    """``POST /api/signin`` ``{"account", "password"}``: this browser becomes
    the account's player, in a new session; the games of the anonymous
    player it was move to the account.  401 for a wrong name or password
    alike, 429 (``Retry-After``) while the name is locked."""
    body = await json_body(request)
    current = await player_in_thread(request)
    player = await run_in_threadpool(book_of(request).sign_in, body.get("account"), body.get("password"))
    if current is not None and current.account is None and current.id != player.id:
        hub = request.app.state.hub
        if await hub.store.call(hub.store.move_games, current.id, player.id):
            hub.moved_games(current.id, player.id)
    await _signed_in(request, player)
    return JSONResponse(player.view())


@answer_refusals
async def sign_out(request: Request) -> Response:
    """``POST /api/signout`` (``{"everywhere": true}`` optional): this
    browser's session ends (with ``everywhere``, every session of its
    player) and it gets a new anonymous player (the account keeps its
    games)."""
    body = await json_body(request)
    everywhere = body.get("everywhere", False)
    if not isinstance(everywhere, bool):
        raise PlayerError("expected everywhere as true or false")
    book = book_of(request)
    token = request.session.get("session")
    if everywhere:
        current = await player_in_thread(request)
        if current is not None and current.account is not None:
            await _in_thread(request, book.sessions.end_all, current.id)
    elif isinstance(token, str):
        await _in_thread(request, book.sessions.end, token)
    await sessions_ended(request)
    player = await _in_thread(request, book.new)
    request.session.clear()
    request.session["player"] = player.id
    return JSONResponse(player.view())


@answer_refusals
async def change_password(request: Request) -> Response:
    """``POST /api/password`` ``{"current", "password"}``: a signed-in
    player's new password.  Every session of the player ends; this browser
    goes on in a new one."""
    body = await json_body(request)
    player = await player_in_thread(request)
    if player is None or player.account is None:
        raise PlayerError("sign in first: only an account has a password", 403, "account_needed")
    book = book_of(request)
    await run_in_threadpool(book.change_password, player.id, body.get("current"), body.get("password"))
    await _in_thread(request, book.sessions.end_all, player.id)
    await _signed_in(request, player, keep_sockets=True)
    await sessions_ended(request)
    return JSONResponse(player.view())


@answer_refusals
async def list_sessions(request: Request) -> Response:
    """``GET /api/sessions``: the signed-in player's sessions, the most
    recently seen first (``[]`` for an anonymous browser)."""
    player = await player_in_thread(request)
    if player is None or player.account is None:
        return JSONResponse([])
    found = await _in_thread(request, book_of(request).sessions.of_player, player.id)
    current = session_key(request)
    return JSONResponse([s.view(current) for s in found])


ROUTES = [
    Route("/api/me", me),
    Route("/api/me", set_me, methods=["POST"]),
    Route("/api/signup", sign_up, methods=["POST"]),
    Route("/api/signin", sign_in, methods=["POST"]),
    Route("/api/signout", sign_out, methods=["POST"]),
    Route("/api/password", change_password, methods=["POST"]),
    Route("/api/sessions", list_sessions),
]
