"""Limits and security for ``kamisado web``: rate limits, the Origin rule
and the security headers (docs/web.md, "Limits and security headers").

The rate limiter is a set of token buckets, one for each (what, key): a
bucket holds at most ``burst`` tokens, refills at ``rate`` tokens a second,
and each request takes one.  It is pure: the clock is passed in.

>>> now = [0.0]
>>> limiter = RateLimiter({"create": Limit("create", 1 / 6, 2, "games created")}, lambda: now[0])
>>> [limiter.take("create", "addr:1.2.3.4") for _ in range(3)]
[0.0, 0.0, 6.0]
>>> limiter.take("create", "addr:5.6.7.8")  # another address is not slowed
0.0
>>> now[0] = 6.0
>>> limiter.take("create", "addr:1.2.3.4"), limiter.take("create", "addr:1.2.3.4")
(0.0, 6.0)
>>> limiter.take("unlimited", "addr:1.2.3.4")  # a name without a limit
0.0

The key says who is asking: today the client's address (an IPv6 address
by its /64 network, what one host is usually given); once players sign
in, their id (``client_key(scope, player=...)``), so a player is limited
the same wherever they connect from.

>>> client_key({"client": ("203.0.113.9", 5000)})
'addr:203.0.113.9'
>>> client_key({"client": ("2001:db8:1:2:3:4:5:6", 5000)})
'addr:2001:db8:1:2::/64'
>>> client_key({"client": ("203.0.113.9", 5000)}, player="p42")
'player:p42'
"""

from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import json
import math
import os
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlsplit

__all__ = [
    "ENV_LIMITS",
    "GAME_ROUTE_LIMITS",
    "LIMITS",
    "ROUTE_LIMITS",
    "SECURITY_HEADERS",
    "SOCKET_LIMITS",
    "Bucket",
    "Guard",
    "Limit",
    "RateLimiter",
    "SharedBuckets",
    "SocketLimits",
    "Sockets",
    "client_key",
    "client_keys",
    "frame_limit",
    "limits_from_env",
    "refusal",
    "route_limit",
    "same_origin",
    "token_key",
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


@dataclass(frozen=True)
class Limit:
    """``burst`` requests at once, then ``rate`` a second; ``what`` names
    what is limited in the error message ("games created").  ``shared``:
    counted once for all the processes on one database (PostgreSQL) when
    the limiter has :class:`SharedBuckets`; the websocket frame limits
    are not (each guards its process's own event loop, and a round trip
    for every frame would cost more than the frame)."""

    name: str
    rate: float
    burst: int
    what: str
    shared: bool = True

    def describe(self) -> str:
        """The limit in words.

        >>> Limit("create", 10 / 60, 20, "games created").describe()
        'at most 20 at once, then 10 a minute'
        >>> Limit("frame", 30, 60, "frames").describe()
        'at most 60 at once, then 30 a second'
        """
        per_minute = self.rate * 60
        if self.rate < 1:
            return f"at most {self.burst} at once, then {per_minute:g} a minute"
        return f"at most {self.burst} at once, then {self.rate:g} a second"


#: The limits, by name (docs/web.md has the table).  ``create``: new games
#: (POST /api/games and the websocket's create frame), per address;
#: ``record``: record uploads (POST /api/records), per address;
#: ``analysis``: /api/analyse and /api/reply (each runs the engine), per
#: address; ``position``: /api/position (no search, cheap), per address;
#: ``frame``: websocket frames, per address and per player, shared by all
#: of its connections (a refused frame gets a ``rate_limited`` error and is
#: dropped); ``flood``: every frame, refused or not, per address and per
#: player, ten times the frame limit: a connection that empties it is
#: closed (1008) and its address and player are kept out a while
#: (:class:`SocketLimits`); ``chat``: a game's chat messages, per address
#: and per player; ``answer``: the websocket's ``decline`` and ``cancel``
#: frames (instead of ``frame``), per address and per player.
LIMITS: dict[str, Limit] = {
    lim.name: lim
    for lim in (
        Limit("create", 10 / 60, 20, "games created"),
        Limit("record", 10 / 60, 10, "records uploaded"),
        Limit("analysis", 2.0, 10, "analysis requests"),
        Limit("position", 20.0, 40, "position requests"),
        # a game's board as SVG or PNG (/api/games/{id}/board.svg, .png)
        Limit("picture", 5.0, 30, "board pictures"),
        # a game as an animated GIF (/api/games/{id}/match.gif): Pillow draws every position
        Limit("gif", 6 / 60, 6, "GIF downloads"),
        # each attempt hashes a password with argon2id (64 MiB, tens of ms)
        Limit("account", 10 / 60, 10, "sign-up and sign-in attempts"),
        # chat messages (kamisado.web.play.chat), per address and per player
        Limit("chat", 20 / 60, 8, "chat messages"),
        # players' reports of players (POST /api/players/{id}/report)
        Limit("complaint", 10 / 3600, 5, "player reports"),
        # every HTTP request with a personal token (Authorization: Bearer), per token
        Limit("token", 20.0, 100, "requests with this token"),
        Limit("frame", 30.0, 60, "websocket frames", shared=False),
        Limit("flood", 300.0, 600, "websocket frames", shared=False),
        # the websocket's decline and cancel frames (answers to challenges,
        # taken instead of ``frame``: a flood of challenges never leaves
        # its player without frames to decline them with)
        Limit("answer", 5.0, 60, "challenge answers", shared=False),
    )
}

#: Which HTTP requests take from which limit: (method, path) -> name.
ROUTE_LIMITS: dict[tuple[str, str], str] = {
    ("POST", "/api/games"): "create",
    ("POST", "/api/records"): "record",
    ("GET", "/api/analyse"): "analysis",
    ("GET", "/api/reply"): "analysis",
    ("GET", "/api/position"): "position",
    ("POST", "/api/signup"): "account",
    ("POST", "/api/signin"): "account",
    ("POST", "/api/password"): "account",
}

#: Which requests for one game's files take from which limit: (method, the
#: last part of ``/api/games/{id}/...``) -> name.
GAME_ROUTE_LIMITS: dict[tuple[str, str], str] = {
    ("GET", "board.svg"): "picture",
    ("GET", "board.png"): "picture",
    ("GET", "match.gif"): "gif",
    ("GET", "evaluations.svg"): "analysis",
    ("GET", "review"): "analysis",
    ("POST", "report"): "analysis",
}


def route_limit(method: str, path: str) -> str | None:
    """The limit a request takes from, if any.

    >>> route_limit("GET", "/api/games/abc/match.gif"), route_limit("GET", "/api/games/abc/steps")
    ('gif', None)
    >>> route_limit("POST", "/api/puzzles/attempts/12"), route_limit("POST", "/api/players/abc/report")
    ('analysis', 'complaint')
    """
    name = ROUTE_LIMITS.get((method, path))
    if name is None and method == "POST" and path.startswith("/api/players/") and path.endswith("/report"):
        name = "complaint"
    if name is None and method == "POST" and path.startswith("/api/puzzles/attempts/"):
        name = "analysis"  # a puzzle move: the solver may judge it and reply
    if name is None and method == "POST" and path.startswith("/api/challenge/") and path.count("/") == 3:
        name = "create"  # a challenge over HTTP, as on the websocket
    if name is None and path.startswith("/api/games/"):
        parts = path.split("/")
        if len(parts) == 5:
            name = GAME_ROUTE_LIMITS.get((method, parts[4]))
    return name


#: The websocket frames that take from ``answer`` instead of ``frame``.
ANSWER_FRAMES = frozenset({"decline", "cancel"})


def frame_limit(frame: str | bytes) -> str:
    """The limit a websocket frame takes from: ``answer`` for a decline or
    a cancel (the cheap test first: most frames are moves), else ``frame``.

    >>> frame_limit('{"type": "decline", "challenge": "c1"}'), frame_limit('{"type": "move", "move": "a1-a2"}')
    ('answer', 'frame')
    >>> frame_limit('{"type": "chat", "text": "decline"}'), frame_limit(b"not json")
    ('frame', 'frame')
    """
    text = frame.decode("utf-8", "replace") if isinstance(frame, bytes) else frame
    if '"decline"' not in text and '"cancel"' not in text:
        return "frame"
    try:
        obj = json.loads(text)
    except ValueError:
        return "frame"
    return "answer" if isinstance(obj, dict) and obj.get("type") in ANSWER_FRAMES else "frame"


#: Set to ``off`` to run without rate limits (a load test from one address).
ENV_LIMITS = "KAMISADO_WEB_LIMITS"


def limits_from_env(env: Mapping[str, str] | None = None) -> dict[str, Limit]:
    """:data:`LIMITS`, or none at all when ``KAMISADO_WEB_LIMITS=off``.

    >>> sorted(limits_from_env({})) == sorted(LIMITS)
    True
    >>> limits_from_env({"KAMISADO_WEB_LIMITS": "off"})
    {}
    """
    env = os.environ if env is None else env
    return {} if env.get(ENV_LIMITS, "").lower() in ("off", "0", "no") else dict(LIMITS)


class Bucket:
    """One token bucket: full at first, ``take`` returns 0.0 and takes a
    token, or the seconds until one is there (and takes nothing).

    >>> b = Bucket(Limit("frame", 2.0, 2, "frames"), 0.0)
    >>> b.take(0.0), b.take(0.0), b.take(0.0), b.take(0.5), b.take(0.5)
    (0.0, 0.0, 0.5, 0.0, 0.5)
    """

    __slots__ = ("limit", "stamp", "tokens")

    def __init__(self, limit: Limit, now: float) -> None:
        self.limit = limit
        self.tokens = float(limit.burst)
        self.stamp = now

    def _refill(self, now: float) -> None:
        if now > self.stamp:
            self.tokens = min(float(self.limit.burst), self.tokens + (now - self.stamp) * self.limit.rate)
            self.stamp = now

    def take(self, now: float) -> float:
        self._refill(now)
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return 0.0
        return (1.0 - self.tokens) / self.limit.rate

    def full(self, now: float) -> bool:
        """Whether the bucket is full again (then it is as good as new)."""
        return self.tokens + max(0.0, now - self.stamp) * self.limit.rate >= self.limit.burst


class SharedBuckets(Protocol):
    """Buckets every process on one database shares
    (:class:`kamisado.web.store.buckets.SharedBuckets` on PostgreSQL)."""

    async def take(self, name: str, rate: float, burst: int, keys: list[str]) -> float | None:
        """One token from each of ``keys``' buckets of limit ``name``: 0.0
        when each had one, else the seconds to wait; ``None`` when the
        buckets cannot be reached now."""


class RateLimiter:
    """Token buckets by (limit name, key); a name with no limit is never refused.
    With ``shared`` (:class:`SharedBuckets`), the limits marked ``shared``
    are counted there, once for every process (:meth:`take_all_async`).
    With ``sockets``, also the caps on websockets (:class:`Sockets`, on the
    same clock).

    The state stays bounded: buckets that have filled up again (their key
    has been idle) are forgotten, the least recently used first, and never
    more than ``max_keys`` are kept (the oldest go; that key starts afresh).

    >>> now = [0.0]
    >>> rl = RateLimiter({"a": Limit("a", 1.0, 1, "a")}, lambda: now[0], max_keys=2)
    >>> [rl.take("a", k) for k in "xyz"], len(rl)
    ([0.0, 0.0, 0.0], 2)
    >>> now[0] = 5.0
    >>> rl.take("a", "w"), len(rl)  # the idle ones are forgotten
    (0.0, 1)
    """

    def __init__(
        self,
        limits: Mapping[str, Limit],
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = 100_000,
        sockets: SocketLimits | None = None,
        shared: SharedBuckets | None = None,
    ) -> None:
        self.limits = dict(limits)
        self.clock = clock
        self.max_keys = max_keys
        #: the buckets all processes share (set by the server on PostgreSQL)
        self.shared = shared
        #: the websockets open and the clients kept out (None: no caps)
        self.sockets = None if sockets is None else Sockets(sockets, clock)
        self._buckets: OrderedDict[tuple[str, str], Bucket] = OrderedDict()

    def __len__(self) -> int:
        return len(self._buckets)

    def take(self, name: str, key: str) -> float:
        """0.0 when allowed (one token taken), else the seconds to wait."""
        limit = self.limits.get(name)
        if limit is None:
            return 0.0
        now = self.clock()
        self._prune(now)
        bucket = self._buckets.get((name, key))
        if bucket is None:
            bucket = self._buckets[(name, key)] = Bucket(limit, now)
            while len(self._buckets) > self.max_keys:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end((name, key))
        return bucket.take(now)

    def take_all(self, name: str, keys: Iterable[str]) -> float:
        """Take one token for each of ``keys`` (an address and a player):
        0.0 when every one allowed it, else the first refusal's wait (the
        keys after it are not charged).

        >>> limiter = RateLimiter({"create": Limit("create", 1.0, 1, "games")}, lambda: 0.0)
        >>> limiter.take_all("create", ["addr:a", "player:p"])
        0.0
        >>> limiter.take_all("create", ["addr:b", "player:p"])  # the same player elsewhere
        1.0
        """
        for key in keys:
            wait = self.take(name, key)
            if wait:
                return wait
        return 0.0

    async def take_all_async(self, name: str, keys: Iterable[str]) -> float:
        """:meth:`take_all`, in the shared buckets for a ``shared`` limit
        when there are some (one round trip; every key is charged that has
        a token), else in this process's.  While the shared buckets cannot
        be reached, this process's count instead: the limit then holds per
        process, as without them (never everyone refused, never anyone
        unlimited).

        >>> import asyncio
        >>> limiter = RateLimiter({"create": Limit("create", 1.0, 1, "games")}, lambda: 0.0)
        >>> [asyncio.run(limiter.take_all_async("create", ["addr:a"])) for _ in range(2)]
        [0.0, 1.0]
        """
        limit = self.limits.get(name)
        if limit is None:
            return 0.0
        if self.shared is not None and limit.shared:
            wait = await self.shared.take(name, limit.rate, limit.burst, list(keys))
            if wait is not None:
                return wait
        return self.take_all(name, keys)

    def bucket(self, name: str) -> Bucket | None:
        """A fresh bucket for limit ``name`` (one connection's), or None."""
        limit = self.limits.get(name)
        return None if limit is None else Bucket(limit, self.clock())

    def _prune(self, now: float, most: int = 8) -> None:
        # the least recently used come first: forget those that are full again
        for _ in range(most):
            if not self._buckets:
                return
            key, oldest = next(iter(self._buckets.items()))
            if not oldest.full(now):
                return
            del self._buckets[key]


@dataclass(frozen=True)
class SocketLimits:
    """Caps on websockets: at most ``per_address`` open at once from one
    address and ``per_player`` for one player (0: no cap), and a client
    closed for flooding (its ``flood`` bucket emptied) is kept out for
    ``keep_out`` seconds (0: not at all): its new websockets are refused
    and its open ones closed at their next frame.  The refusal of a client
    kept out is answered after ``hold`` seconds (at most
    :attr:`Sockets.HOLD_PER_KEY` held at once for one address or player
    and :attr:`Sockets.MAX_HELD` in all, the others answered at once), so a
    flooder that reconnects at once costs a handshake every ``hold``
    seconds, not hundreds a second.
    """

    per_address: int = 32
    per_player: int = 16
    keep_out: float = 60.0
    hold: float = 2.0

    def __post_init__(self) -> None:
        if min(self.per_address, self.per_player) < 0 or not min(self.keep_out, self.hold) >= 0:
            raise ValueError(f"socket limits must be 0 or more, found {self}")


#: The caps ``kamisado web`` uses unless told otherwise (its ``--ws-per-address``,
#: ``--ws-per-player`` and ``--ws-keep-out``).
SOCKET_LIMITS = SocketLimits()


class Sockets:
    """The websockets open, counted by key (``addr:...``, ``player:...``),
    and the keys kept out after a flood, until when.  Pure: the clock is
    passed in.

    >>> now = [0.0]
    >>> socks = Sockets(SocketLimits(per_address=2, per_player=1, keep_out=30), lambda: now[0])
    >>> socks.admit(["addr:a"]), socks.admit(["addr:a"]), socks.admit(["addr:a"])[0]
    (None, None, 'too many websockets: at most 2 at once from one address')
    >>> socks.open("addr:a")
    2
    >>> socks.release(["addr:a"]); socks.admit(["addr:a", "player:p"])
    >>> socks.admit(["addr:b", "player:p"])  # the same player from elsewhere
    ('too many websockets: at most 1 at once for one player', 5)
    >>> socks.open("addr:b")  # a refused one is not counted
    0
    >>> socks.keep_out(["addr:c"])
    >>> socks.admit(["addr:c"])
    ('kept out after a flood of websocket frames; try again in 30 s', 30)
    >>> now[0] = 30.0
    >>> socks.admit(["addr:c"]) is None
    True
    """

    #: The seconds a client over a cap is told to wait (``Retry-After``).
    RETRY = 5
    #: Keys kept out at most (then those whose time ends first are let in).
    MAX_KEPT_OUT = 100_000
    #: Refusals held at once for one key at most, and in all (:meth:`hold`).
    HOLD_PER_KEY = 64
    MAX_HELD = 512

    def __init__(self, limits: SocketLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self._open: dict[str, int] = {}
        self._out: dict[str, float] = {}  # key -> kept out until
        self._held: dict[str, int] = {}  # key -> refusals being held
        self._holding = 0  # refusals being held in all

    def open(self, key: str) -> int:
        """The websockets open now for ``key``."""
        return self._open.get(key, 0)

    def _cap(self, key: str) -> tuple[int, str]:
        if key.startswith("player:"):
            return self.limits.per_player, "for one player"
        return self.limits.per_address, "from one address"

    def kept_out(self, keys: Iterable[str]) -> float:
        """The seconds until the last of ``keys`` is let in again (0.0: none kept out)."""
        if not self._out:
            return 0.0
        now = self.clock()
        wait = 0.0
        for key in keys:
            until = self._out.get(key)
            if until is not None:
                if until > now:
                    wait = max(wait, until - now)
                else:
                    del self._out[key]
        return wait

    def refusal(self, keys: list[str]) -> tuple[str, int] | None:
        """Why a new websocket of ``keys`` is refused now and the whole
        seconds to wait, or None when it may come in."""
        wait = self.kept_out(keys)
        if wait:
            seconds = max(1, math.ceil(wait))
            return f"kept out after a flood of websocket frames; try again in {seconds} s", seconds
        for key in keys:
            cap, where = self._cap(key)
            if cap and self._open.get(key, 0) >= cap:
                return f"too many websockets: at most {cap} at once {where}", self.RETRY
        return None

    def admit(self, keys: list[str]) -> tuple[str, int] | None:
        """Let a new websocket of ``keys`` in (counted until :meth:`release`),
        or why not (:meth:`refusal`)."""
        refused = self.refusal(keys)
        if refused is None:
            for key in keys:
                self._open[key] = self._open.get(key, 0) + 1
        return refused

    def release(self, keys: Iterable[str]) -> None:
        """A websocket :meth:`admit` let in has ended."""
        _less(self._open, keys)

    def hold(self, keys: list[str]) -> float:
        """The seconds to hold the refusal of a websocket of ``keys`` before
        answering it: the limits' ``hold`` while they are kept out and fewer
        than :attr:`HOLD_PER_KEY` are held for each (counted until
        :meth:`unhold`), else 0.0 (answer at once).

        >>> socks = Sockets(SocketLimits(hold=2.0), lambda: 0.0)
        >>> socks.hold(["addr:a"])  # not kept out: at once
        0.0
        >>> socks.keep_out(["addr:a"])
        >>> held = [socks.hold(["addr:a"]) for _ in range(Sockets.HOLD_PER_KEY + 1)]
        >>> held.count(2.0), held[-1]
        (64, 0.0)
        >>> socks.unhold(["addr:a"]); socks.hold(["addr:a"])
        2.0
        """
        if not self.limits.hold or not self.kept_out(keys):
            return 0.0
        if self._holding >= self.MAX_HELD or any(self._held.get(k, 0) >= self.HOLD_PER_KEY for k in keys):
            return 0.0
        for key in keys:
            self._held[key] = self._held.get(key, 0) + 1
        self._holding += 1
        return self.limits.hold

    def unhold(self, keys: Iterable[str]) -> None:
        """A refusal :meth:`hold` held has been answered."""
        _less(self._held, keys)
        self._holding -= 1

    def keep_out(self, keys: Iterable[str]) -> None:
        """Keep ``keys`` out for the limits' ``keep_out`` seconds (a flood)."""
        if self.limits.keep_out <= 0:
            return
        until = self.clock() + self.limits.keep_out
        for key in keys:
            self._out.pop(key, None)  # (to the end: the dict is in the order they end)
            while len(self._out) >= self.MAX_KEPT_OUT:  # bounded: the first to end go
                del self._out[next(iter(self._out))]
            self._out[key] = until


def _less(counts: dict[str, int], keys: Iterable[str]) -> None:
    """One fewer for each of ``keys`` (none left: forgotten)."""
    for key in keys:
        left = counts.get(key, 0) - 1
        if left > 0:
            counts[key] = left
        else:
            counts.pop(key, None)


def client_key(scope: Mapping[str, Any], player: str | None = None) -> str:
    """Who is asking, for the limits: ``player:ID`` once players exist,
    else ``addr:ADDRESS`` (IPv6 by its /64 network)."""
    if player:
        return f"player:{player}"
    client = scope.get("client")
    host = str(client[0]) if client else "unknown"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return f"addr:{host}"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return f"addr:{ip.ipv4_mapped}"
        return f"addr:{ipaddress.ip_network(f'{ip}/64', strict=False)}"
    return f"addr:{ip}"


def token_key(scope: Mapping[str, Any]) -> str | None:
    """The limits' key of the personal token a request carries
    (``Authorization: Bearer``), if any: ``token:`` and the start of its
    SHA-256, so each token is limited the same on every process without
    reading the database first.

    >>> token_key({"headers": [(b"authorization", b"Bearer kam_x")]})
    'token:197fa0a3c50b7bf7b34a260e5f4e1f00'
    >>> token_key({"headers": [(b"authorization", b"Basic eDp5")]}) is None
    True
    """
    value = _header(scope, b"authorization")
    if value is None or value.strip()[:7].lower() != "bearer ":
        return None
    secret = value.strip()[7:].strip()
    return "token:" + hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def client_keys(scope: Mapping[str, Any]) -> list[str]:
    """Every key a request is limited by: its address and, when it comes
    from a player (the signed cookie, read by the session middleware that
    runs before the guard), the player, so a player is limited the same
    wherever they connect from.

    >>> client_keys({"client": ("203.0.113.9", 1), "session": {"player": "p42"}})
    ['addr:203.0.113.9', 'player:p42']
    >>> client_keys({"client": ("203.0.113.9", 1)})
    ['addr:203.0.113.9']
    """
    keys = [client_key(scope)]
    token = token_key(scope)
    if token is not None:
        keys.append(token)
    session = scope.get("session")
    player = session.get("player") if isinstance(session, Mapping) else None
    if isinstance(player, str) and player:
        keys.append(client_key(scope, player=player))
    return keys


def refusal(limit: Limit, wait: float) -> tuple[str, int]:
    """The error message for a refused request, and the whole seconds to wait.

    >>> refusal(LIMITS["create"], 4.2)
    ('too many games created: at most 20 at once, then 10 a minute; try again in 5 s', 5)
    """
    seconds = max(1, math.ceil(wait))
    return f"too many {limit.what}: {limit.describe()}; try again in {seconds} s", seconds


_DEFAULT_PORTS = {"http": 80, "ws": 80, "https": 443, "wss": 443}


def _host_port(netloc: str, scheme: str) -> tuple[str, int | None]:
    parts = urlsplit(f"//{netloc}")
    try:
        port = parts.port
    except ValueError:
        return "", None
    return (parts.hostname or "").lower(), port or _DEFAULT_PORTS.get(scheme)


def same_origin(origin: str, host: str, scheme: str = "http", allow: Iterable[str] = ()) -> bool:
    """Whether an ``Origin`` header names the site itself: its host and port
    are the request's ``Host`` (the scheme may differ: a TLS proxy in front
    speaks https to the browser and http to us), or it is in ``allow``.

    >>> same_origin("http://localhost:8000", "localhost:8000")
    True
    >>> same_origin("https://kamisado.example", "kamisado.example", "https")
    True
    >>> same_origin("https://kamisado.example", "kamisado.example:443", "http")
    True
    >>> same_origin("http://evil.example", "localhost:8000")
    False
    >>> same_origin("null", "localhost:8000")
    False
    >>> same_origin("https://app.example", "localhost:8000", allow=["https://app.example"])
    True
    """
    origin = origin.strip().lower()
    if origin in (a.strip().lower().rstrip("/") for a in allow):
        return True
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False
    o_host, o_port = _host_port(parts.netloc, parts.scheme)
    h_host, h_port = _host_port(host.strip(), "https" if parts.scheme == "https" else scheme)
    if h_port is None:
        h_port = o_port
    return bool(o_host) and (o_host, o_port) == (h_host, h_port)


#: On every HTTP response.  ``'wasm-unsafe-eval'`` lets the page's engine
#: compile its WebAssembly (static/js/engine.js; no other eval is allowed).
#: The page's only inline script is a JSON data
#: block (not run, so not blocked); it sets element styles from its modules
#: (allowed: CSP's style-src covers style attributes and elements only).
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; "
        b"connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'; "
        b"form-action 'self'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
)

_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def _header(scope: Mapping[str, Any], name: bytes) -> str | None:
    for k, v in scope.get("headers", ()):
        if k.lower() == name:
            return bytes(v).decode("latin-1")
    return None


async def _json(send: Send, status: int, body: dict[str, Any], extra: Iterable[tuple[bytes, bytes]] = ()) -> None:
    data = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(data)).encode()),
                *extra,
            ],
        }
    )
    await send({"type": "http.response.body", "body": data})


async def _leaves_within(receive: Receive, seconds: float) -> bool:
    """Whether a websocket not yet accepted is given up by its client within
    ``seconds`` (then there is nobody to answer)."""
    try:
        message = await asyncio.wait_for(receive(), seconds)
    except TimeoutError:
        return False
    return bool(message["type"] == "websocket.disconnect")


async def _refuse_websocket(scope: Scope, send: Send, message: str, seconds: int) -> None:
    """Refuse a websocket before it is accepted (its ``websocket.connect``
    received): ``429`` with ``Retry-After`` and a JSON body where the server
    can answer the handshake so (ASGI's denial response), else closed with
    1008 (the server answers 403)."""
    if "websocket.http.response" not in scope.get("extensions", {}):
        await send({"type": "websocket.close", "code": 1008, "reason": message[:120]})
        return
    data = json.dumps(
        {"error": message, "code": "rate_limited", "limit": "websocket", "retry_after": seconds}).encode()
    await send(
        {
            "type": "websocket.http.response.start",
            "status": 429,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(data)).encode()),
                (b"retry-after", str(seconds).encode()),
                *SECURITY_HEADERS,
            ],
        }
    )
    await send({"type": "websocket.http.response.body", "body": data})


class Guard:
    """ASGI middleware: the security headers on every HTTP response, the
    Origin rule for the websocket and every state-changing request, and
    the HTTP limits (:data:`ROUTE_LIMITS`) per address and per player (it
    runs inside the session middleware, so it reads the cookie's player),
    and the caps on websockets (:class:`Sockets`): one over a cap, or from
    a client kept out after a flood, is refused with ``429``.

    A request with an ``Origin`` that is not the site's is refused: 403
    (HTTP) or closed before it is accepted (websocket; the server answers
    403).  One without ``Origin`` is not from a browser's page (browsers
    send it on every POST and websocket) and is allowed, unless its
    ``Sec-Fetch-Site`` says it comes from another site.  A request with a
    personal token (``Authorization: Bearer``) and no cookie needs no
    Origin at all (a browser's page sends its cookie; a program its token),
    and takes one from the token's own ``token`` limit (:func:`token_key`).
    """

    def __init__(
        self, app: ASGIApp, limiter: RateLimiter, allow_origins: Iterable[str] = (),
        headers: Iterable[tuple[bytes, bytes]] = (),
    ) -> None:
        self.app = app
        self.limiter = limiter
        self.allow_origins = tuple(allow_origins)
        #: every response's headers: :data:`SECURITY_HEADERS` and ``headers``
        #: (``Strict-Transport-Security`` behind an https public URL)
        self.headers = (*SECURITY_HEADERS, *headers)

    def origin_ok(self, scope: Scope) -> bool:
        if token_key(scope) is not None and _header(scope, b"cookie") is None:
            return True  # a program with a personal token: no browser's page sends it without a cookie
        origin = _header(scope, b"origin")
        if origin is None:
            return _header(scope, b"sec-fetch-site") in (None, "same-origin", "none")
        scheme = "https" if scope.get("scheme") in ("https", "wss") else "http"
        return same_origin(origin, _header(scope, b"host") or "", scheme, self.allow_origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "websocket":
            if not self.origin_ok(scope):
                await receive()  # websocket.connect
                await send({"type": "websocket.close", "code": 1008, "reason": "foreign origin"})
                return
            sockets = self.limiter.sockets
            if sockets is None:
                await self.app(scope, receive, send)
                return
            keys = client_keys(scope)
            refused = sockets.admit(keys)
            if refused is not None:
                await receive()  # websocket.connect
                hold = sockets.hold(keys)
                if hold:  # a flooder kept out: its answer waits (unless it goes)
                    try:
                        if await _leaves_within(receive, hold):
                            return
                    finally:
                        sockets.unhold(keys)
                    refused = sockets.refusal(keys) or refused
                await _refuse_websocket(scope, send, *refused)
                return
            try:
                await self.app(scope, receive, send)
            finally:
                sockets.release(keys)
            return
        if kind != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {bytes(k).lower() for k, _ in headers}
                headers.extend(h for h in self.headers if h[0] not in present)
                message["headers"] = headers
            await send(message)

        method = scope.get("method", "GET")
        if method not in _SAFE_METHODS and not self.origin_ok(scope):
            await _json(send_with_headers, 403, {"error": "refused: the request comes from another site (Origin)"})
            return
        token = token_key(scope)
        route = route_limit(method, scope.get("path", ""))
        checks = ([("token", [token])] if token else []) + ([(route, client_keys(scope))] if route else [])
        for name, keys in checks:  # each token's own limit, then the route's
            wait = await self.limiter.take_all_async(name, keys)
            if wait:
                message, seconds = refusal(self.limiter.limits[name], wait)
                await _json(
                    send_with_headers, 429,
                    {"error": message, "code": "rate_limited", "limit": name, "retry_after": seconds},
                    [(b"retry-after", str(seconds).encode())],
                )
                return
        await self.app(scope, receive, send_with_headers)
