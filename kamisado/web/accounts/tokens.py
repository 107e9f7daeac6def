"""Personal API tokens (docs/web-tokens.md), as lichess has them.

An account makes a token on its page (``POST /api/tokens``, signed in by
its cookie): a random ``kam_`` string shown once, with a name and scopes.
Only its SHA-256 is kept (a token is 32 random bytes: a fast hash is right,
as for lichess's and GitHub's tokens).  A request with ``Authorization:
Bearer TOKEN`` is then the account's player, on every API endpoint and on
the websocket, as far as the token's scopes allow (:func:`needed_scope`);
:class:`BearerAuth` checks it in the database on every request, so a
revoked token, or one of an account closed by a moderator, is refused at
once on every process.

>>> import sqlalchemy as sa
>>> from kamisado.web.store.migrations import upgrade
>>> engine = sa.create_engine("sqlite://")
>>> upgrade(engine)
>>> book = Tokens(engine, clock=lambda: 100.0)
>>> info, secret = book.create("p1", "my bot", ["read", "play"])
>>> secret.startswith("kam_"), info.view()["scopes"]
(True, ['play', 'read'])
>>> book.check(secret) is None  # no such player in this database
True
>>> book.create("p1", "x", ["read", "fly"])
Traceback (most recent call last):
...
kamisado.web.accounts.players.PlayerError: unknown token scope: fly (known: read, play, challenge, bot)
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kamisado.web.accounts.players import (
    PlayerError,
    answer_refusals,
    json_body,
    player_in_thread,
    sessions_ended,
)
from kamisado.web.accounts.sessions import BEARER, Bearer
from kamisado.web.basics.messages import error_body
from kamisado.web.basics.text import unseeable
from kamisado.web.store.database import StoreErrors
from kamisado.web.store.schema import players, tokens

__all__ = [
    "MAX_TOKENS",
    "PREFIX",
    "ROUTES",
    "SCOPES",
    "BearerAuth",
    "TokenInfo",
    "Tokens",
    "bearer_secret",
    "check_scopes",
    "needed_scope",
    "token_digest",
]

log = logging.getLogger("kamisado.web")

#: The scopes a token may hold, and what each allows (docs/web-tokens.md).
SCOPES: dict[str, str] = {
    "read": "read: every GET (games, players, the lobby, /api/me) and watching on the websocket",
    "play": "play: moves, fills, resigning, takebacks, rematches, chat, new games, every other POST",
    "challenge": "challenges and quick pairing: challenge, accept, decline, cancel, seek, unseek",
    "bot": "the bot API (/api/bot/...)",
}
#: Every token starts so (a leaked one is recognisable, as GitHub's ``ghp_``).
PREFIX = "kam_"
MAX_NAME = 60
#: The most tokens one account holds.
MAX_TOKENS = 50
#: ``last_used`` is written at most this often (seconds) per token.
USED_EVERY_S = 60.0

#: Paths a token is never good for: tokens themselves, signing in and out,
#: passwords, sessions and moderation are the page's, signed in by its cookie.
COOKIE_ONLY = ("/api/tokens", "/api/signin", "/api/signup", "/api/signout", "/api/password",
               "/api/sessions", "/api/mod/")
def token_digest(secret: str) -> str:
    """The key a token is kept by: its SHA-256, in hex.

    >>> token_digest("kam_abc") == hashlib.sha256(b"kam_abc").hexdigest()
    True
    """
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def check_scopes(scopes: Any) -> tuple[str, ...]:
    """A token's scopes: a non-empty list of known names (sorted, once each).

    >>> check_scopes(["read", "play", "read"])
    ('play', 'read')
    >>> check_scopes(["read", "admin", "root"])
    Traceback (most recent call last):
    ...
    kamisado.web.accounts.players.PlayerError: unknown token scopes: admin, root (known: read, play, challenge, bot)
    """
    if not isinstance(scopes, list) or not scopes or not all(isinstance(s, str) for s in scopes):
        raise PlayerError("expected scopes as a list of names: " + ", ".join(SCOPES), 400, "token_scopes",
                          {"known": ", ".join(SCOPES)})
    unknown = sorted({s for s in scopes if s not in SCOPES})
    if unknown:
        word = "scope" if len(unknown) == 1 else "scopes"
        raise PlayerError(f"unknown token {word}: {', '.join(unknown)} (known: {', '.join(SCOPES)})", 400,
                          "token_scopes", {"unknown": ", ".join(unknown), "known": ", ".join(SCOPES)})
    return tuple(sorted(set(scopes)))


def check_token_name(name: Any) -> str:
    """A token's name: 1 to 60 characters a person can see, on one line.

    >>> check_token_name("  my bot ")
    'my bot'
    >>> check_token_name("")
    Traceback (most recent call last):
    ...
    kamisado.web.accounts.players.PlayerError: expected a token name of 1 to 60 characters on one line
    """
    text = name.strip() if isinstance(name, str) else ""
    if not text or len(text) > MAX_NAME or not text.isprintable():
        raise PlayerError(f"expected a token name of 1 to {MAX_NAME} characters on one line", 400, "token_name",
                          {"n": MAX_NAME})
    problem = unseeable(text, "a token name")
    if problem is not None:
        raise PlayerError(f"token name: {problem}", 400, "token_name", {"n": MAX_NAME})
    return text


def needed_scope(method: str, path: str) -> str | None:
    """The scope a request with a token needs (``None``: no token will do,
    only the cookie).

    >>> needed_scope("GET", "/api/games/abc/steps"), needed_scope("GET", "/ws")
    ('read', 'read')
    >>> needed_scope("POST", "/api/games"), needed_scope("POST", "/api/bot/game/g1/move/a1-a2")
    ('play', 'bot')
    >>> needed_scope("POST", "/api/challenge/ann"), needed_scope("DELETE", "/api/tokens/t1")
    ('challenge', None)
    """
    if any(path == p or path.startswith(p.rstrip("/") + "/") for p in COOKIE_ONLY):
        return None
    if path.startswith("/api/bot/"):
        return "bot"
    if path.startswith(("/api/challenge/", "/api/seeks")):
        return "challenge"
    if method in ("GET", "HEAD", "OPTIONS"):
        return "read"
    return "play"


@dataclass(frozen=True)
class TokenInfo:
    """One of an account's tokens, as ``GET /api/tokens`` lists it (never
    the token itself: only its hash is kept)."""

    id: str
    name: str
    scopes: tuple[str, ...]
    created: float
    last_used: float | None

    def view(self) -> dict[str, Any]:
        """The JSON of the token.

        >>> TokenInfo("t1", "bot", ("play",), 1.0, None).view()
        {'id': 't1', 'name': 'bot', 'scopes': ['play'], 'created': 1.0, 'last_used': None}
        """
        return {"id": self.id, "name": self.name, "scopes": list(self.scopes),
                "created": self.created, "last_used": self.last_used}


class Tokens:
    """The personal tokens in a database (the ``tokens`` table)."""

    def __init__(self, engine: Engine, clock: Callable[[], float] = time.time) -> None:
        self.engine = engine
        self.clock = clock

    def create(self, player: str, name: Any, scopes: Any) -> tuple[TokenInfo, str]:
        """A new token of ``player``: its row, and the token (shown once)."""
        info = TokenInfo(secrets.token_urlsafe(12), check_token_name(name), check_scopes(scopes),
                         self.clock(), None)
        secret = PREFIX + secrets.token_urlsafe(32)
        with self.engine.begin() as conn:
            held = conn.execute(sa.select(sa.func.count()).select_from(tokens)
                                .where(tokens.c.player == player)).scalar_one()
            if held >= MAX_TOKENS:
                raise PlayerError(f"at most {MAX_TOKENS} tokens an account: revoke one first", 409,
                                  "token_many", {"n": MAX_TOKENS})
            conn.execute(tokens.insert().values(
                id=info.id, player=player, name=info.name, scopes=" ".join(info.scopes),
                hash=token_digest(secret), created=info.created))
        return info, secret

    def of_player(self, player: str) -> list[TokenInfo]:
        """A player's tokens, the newest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(tokens.c.id, tokens.c.name, tokens.c.scopes, tokens.c.created, tokens.c.last_used)
                .where(tokens.c.player == player).order_by(tokens.c.created.desc(), tokens.c.id)).all()
        return [TokenInfo(r.id, r.name, tuple(r.scopes.split()), r.created, r.last_used) for r in rows]

    def revoke(self, player: str, token_id: str) -> bool:
        """Delete one of ``player``'s tokens (``False``: it has none so)."""
        with self.engine.begin() as conn:
            done = conn.execute(tokens.delete().where(tokens.c.id == token_id, tokens.c.player == player))
        return bool(done.rowcount)

    def check(self, secret: str) -> Bearer | None:
        """The token ``secret`` if it is one, of an account not closed
        (``last_used`` noted at most once a minute); else ``None``."""
        if not secret.startswith(PREFIX) or len(secret) > 100:
            return None
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(tokens.c.id, tokens.c.player, tokens.c.scopes, tokens.c.last_used)
                .join(players, players.c.id == tokens.c.player)
                .where(tokens.c.hash == token_digest(secret), players.c.closed.is_(None),
                       players.c.account.is_not(None))).first()
        if row is None:
            return None
        now = self.clock()
        if row.last_used is None or now - row.last_used >= USED_EVERY_S:
            with self.engine.begin() as conn:
                conn.execute(tokens.update().where(tokens.c.id == row.id).values(last_used=now))
        return Bearer(row.id, row.player, frozenset(row.scopes.split()))


def bearer_secret(scope: Scope) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header, if any
    (``""`` for a Bearer header without one).

    >>> bearer_secret({"headers": [(b"authorization", b"Bearer kam_x")]})
    'kam_x'
    >>> bearer_secret({"headers": [(b"authorization", b"Basic eDp5")]}) is None
    True
    """
    for key, value in scope.get("headers", ()):
        if key.lower() == b"authorization":
            text = bytes(value).decode("latin-1").strip()
            if text[:7].lower() == "bearer ":
                return text[7:].strip()
            return "" if text.lower() == "bearer" else None
    return None


class BearerAuth:
    """ASGI middleware: a request (or websocket) with ``Authorization:
    Bearer TOKEN`` is checked against the database; a bad, revoked or
    closed account's token gets 401 (``bad_token``, ``WWW-Authenticate:
    Bearer``), a token without the scope the request needs 403
    (``token_scope``; ``token_refused`` where only the cookie will do);
    a good one is put in the scope (:data:`~kamisado.web.accounts.sessions.BEARER`)
    for :func:`kamisado.web.accounts.players.player_of`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        secret = bearer_secret(scope) if scope["type"] in ("http", "websocket") else None
        if secret is None:
            await self.app(scope, receive, send)
            return
        state = scope["app"].state
        try:
            found = await state.hub.store.call(state.tokens.check, secret) if secret else None
        except StoreErrors:
            log.exception("tokens: the store failed")
            await _refuse(scope, receive, send, 503, error_body("the store cannot be read; try again", 503))
            return
        if found is None:
            await _refuse(scope, receive, send, 401, error_body(
                "bad token: unknown, revoked, or its account closed", 401, "bad_token"),
                [(b"www-authenticate", b'Bearer error="invalid_token"')])
            return
        method = scope.get("method", "GET") if scope["type"] == "http" else "GET"
        needed = needed_scope(method, scope.get("path", ""))
        if needed is None:
            await _refuse(scope, receive, send, 403, error_body(
                "a token cannot do this: sign in on the page", 403, "token_refused"))
            return
        if needed not in found.scopes:
            await _refuse(scope, receive, send, 403, error_body(
                f"this token lacks the scope {needed}", 403, "token_scope", {"scope": needed}),
                [(b"www-authenticate", f'Bearer error="insufficient_scope", scope="{needed}"'.encode())])
            return
        scope[BEARER] = found
        await self.app(scope, receive, send)


async def _refuse(scope: Scope, receive: Receive, send: Send, status: int, body: dict[str, Any],
                  extra: Iterable[tuple[bytes, bytes]] = ()) -> None:
    """Answer ``status`` with the JSON ``body``; a websocket is refused
    before it is accepted (ASGI's denial response where the server has it,
    else closed with 1008: the server answers 403)."""
    data = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()), *extra]
    if scope["type"] == "websocket":
        await receive()  # websocket.connect
        if "websocket.http.response" not in scope.get("extensions", {}):
            await send({"type": "websocket.close", "code": 1008, "reason": body["error"][:120]})
            return
        start: Message = {"type": "websocket.http.response.start", "status": status, "headers": headers}
        await send(start)
        await send({"type": "websocket.http.response.body", "body": data})
        return
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


async def _account(request: Request) -> str:
    """The signed-in account's player id (by the cookie): tokens are an
    account's."""
    player = await player_in_thread(request)
    if player is None or player.account is None:
        raise PlayerError("sign in first: tokens belong to an account", 403, "account_needed")
    return player.id


def _tokens(request: Request) -> Tokens:
    book: Tokens = request.app.state.tokens
    return book


@answer_refusals
async def create_token(request: Request) -> Response:
    """``POST /api/tokens`` ``{"name", "scopes"}``: a new token, answered
    this once (201; ``token`` is not kept, only its hash)."""
    body = await json_body(request)
    player = await _account(request)
    store = request.app.state.hub.store
    info, secret = await store.call(_tokens(request).create, player, body.get("name"), body.get("scopes"))
    return JSONResponse({**info.view(), "token": secret}, status_code=201)


@answer_refusals
async def list_tokens(request: Request) -> Response:
    """``GET /api/tokens``: the account's tokens, the newest first."""
    player = await _account(request)
    found = await request.app.state.hub.store.call(_tokens(request).of_player, player)
    return JSONResponse([t.view() for t in found])


@answer_refusals
async def revoke_token(request: Request) -> Response:
    """``DELETE /api/tokens/{id}``: revoke one of the account's tokens
    (refused at once on every process: each request reads the database;
    its open websockets close at once on every process, told on the
    lobby's channel, as for ended sessions)."""
    player = await _account(request)
    token_id = request.path_params["token"]
    if not await request.app.state.hub.store.call(_tokens(request).revoke, player, token_id):
        raise PlayerError("no such token", 404, "no_token")
    await sessions_ended(request)  # its websockets close now, here and on the other processes
    return JSONResponse({"revoked": token_id})


ROUTES = [
    Route("/api/tokens", list_tokens),
    Route("/api/tokens", create_token, methods=["POST"]),
    Route("/api/tokens/{token}", revoke_token, methods=["DELETE"]),
]
