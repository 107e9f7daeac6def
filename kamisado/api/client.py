"""``Client``: the site's HTTP API for programs, shaped like berserk
(lichess's Python client): methods grouped by what they touch, streams as
iterators of dicts, every refusal one :class:`ApiError`.

Built on httpx2: one connection pool, timeouts per call, and streams read
as they come (a blocking iterator over the answer's bytes), which the
standard library's ``urllib`` does only with hand-written chunk handling.
Retrying is left to the caller (``kamisado bot`` reconnects with backoff).

>>> client = Client("http://localhost:8000", "kam_0123456789abcdef")
>>> client
Client('http://localhost:8000', token='kam_0123…')
>>> sorted(name for name in vars(client) if not name.startswith("_"))
['account', 'bots', 'challenges', 'games', 'tournaments', 'url']
>>> client.close()
"""

from __future__ import annotations

from collections.abc import Iterator
from types import TracebackType
from typing import Any, Literal, cast
from urllib.parse import quote

import httpx2
import orjson

from kamisado.api.types import Challenge, ChallengeClock, Event, GameEvent

__all__ = ["ApiError", "Client"]

#: Seconds a stream may be silent before it counts as dropped: the server
#: sends an empty line after 7 s of silence (docs/web-bots.md).
STREAM_SILENCE_S = 20.0


class ApiError(Exception):
    """A request the site refused, or one that got no (whole) answer.

    ``status`` is the HTTP status (0 when no answer came: ``code``
    ``network``, or ``stream_cut`` for a stream whose last line was cut
    off), ``code`` the server's error code, ``message`` its words and
    ``args`` its details (the legal moves of an ``illegal`` move...).

    >>> e = ApiError(409, "not_your_turn", "it is not your turn")
    >>> e
    ApiError(409, 'not_your_turn', 'it is not your turn')
    >>> str(e), e.args
    ('409 not_your_turn: it is not your turn', {})
    """

    def __init__(self, status: int, code: str, message: str, args: dict[str, Any] | None = None) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self._details: dict[str, Any] = dict(args or {})

    @property  # type: ignore[override]  # the server's ``args``, not the exception's tuple
    def args(self) -> dict[str, Any]:
        """The server's details of the refusal (``{}`` when none)."""
        return self._details

    @args.setter
    def args(self, value: Any) -> None:  # BaseException's own setting (a tuple) is not kept
        if isinstance(value, dict):
            self._details = value

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.status, self.code, self.message, self._details))

    def __str__(self) -> str:
        return f"{self.status} {self.code}: {self.message}"

    def __repr__(self) -> str:
        return f"ApiError({self.status}, {self.code!r}, {self.message!r})"

    @property
    def network(self) -> bool:
        """Whether no whole answer came (the request may be tried again)."""
        return self.status == 0 or self.status >= 500


def _refusal(response: httpx2.Response) -> ApiError:
    """The :class:`ApiError` of an answer that is not a success."""
    try:
        body = orjson.loads(response.read())
    except (orjson.JSONDecodeError, httpx2.HTTPError):
        body = None
    if isinstance(body, dict) and isinstance(body.get("error"), str):
        args = body.get("args")
        return ApiError(response.status_code, str(body.get("code") or f"http_{response.status_code}"),
                        body["error"], args if isinstance(args, dict) else {"value": args} if args else {})
    text = response.text.strip()[:200] if response.is_stream_consumed else ""
    return ApiError(response.status_code, f"http_{response.status_code}",
                    text or response.reason_phrase or "no answer")


def ndjson_lines(chunks: Iterator[bytes]) -> Iterator[dict[str, Any]]:
    """The objects of a newline-delimited JSON stream cut in ``chunks``
    anywhere; empty lines (the server's keep-alives) are skipped, and a last
    line without its newline (the connection dropped mid-line) is an
    :class:`ApiError` ``stream_cut``.

    >>> list(ndjson_lines(iter([b'{"a": 1}\\n\\n{"b"', b': 2}\\n', b'\\n'])))
    [{'a': 1}, {'b': 2}]
    >>> list(ndjson_lines(iter([b'{"a": 1}\\n{"b": '])))
    Traceback (most recent call last):
    ...
    kamisado.api.client.ApiError: 0 stream_cut: the stream ended inside a line: b'{"b": '
    """
    rest = b""
    for chunk in chunks:
        rest += chunk
        *lines, rest = rest.split(b"\n")
        for line in lines:
            if line.strip():
                try:
                    obj = orjson.loads(line)
                except orjson.JSONDecodeError:
                    raise ApiError(0, "bad_line", f"not a JSON line: {line[:200]!r}") from None
                yield obj
    if rest.strip():
        raise ApiError(0, "stream_cut", f"the stream ended inside a line: {rest[:200]!r}")


class _Session:
    """The requests every group makes: JSON in, JSON out, refusals raised."""

    def __init__(self, http: httpx2.Client) -> None:
        self.http = http

    def request(self, method: str, path: str, body: Any = None, params: dict[str, Any] | None = None) -> Any:
        try:
            response = self.http.request(method, path, json=body, params=params)
        except httpx2.TransportError as e:
            raise ApiError(0, "network", f"{method} {path}: {type(e).__name__}: {e}") from e
        if response.is_error:
            raise _refusal(response)
        if "json" not in response.headers.get("content-type", ""):
            return response.text
        return response.json()

    def stream(self, path: str) -> Iterator[dict[str, Any]]:
        """Open the stream at once (a refusal is raised here, and the server
        has taken the request once this returns); its lines as they come."""
        request = self.http.build_request("GET", path, timeout=httpx2.Timeout(
            self.http.timeout.connect, read=STREAM_SILENCE_S))
        try:
            response = self.http.send(request, stream=True)
        except httpx2.TransportError as e:
            raise ApiError(0, "network", f"GET {path}: {type(e).__name__}: {e}") from e
        if response.is_error:
            try:
                response.read()
            except httpx2.TransportError as e:
                raise ApiError(0, "network", f"GET {path}: {type(e).__name__}: {e}") from e
            finally:
                response.close()
            raise _refusal(response)
        return self._lines(response, path)

    @staticmethod
    def _lines(response: httpx2.Response, path: str) -> Iterator[dict[str, Any]]:
        try:
            yield from ndjson_lines(response.iter_raw())
        except httpx2.TransportError as e:
            raise ApiError(0, "network", f"GET {path}: {type(e).__name__}: {e}") from e
        finally:
            response.close()


def _path(*parts: str) -> str:
    return "/" + "/".join(quote(p, safe="") for p in parts)


class _Group:
    def __init__(self, session: _Session) -> None:
        self._s = session

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self._s.http.base_url}>"


class Account(_Group):
    """The token's account."""

    def get(self) -> dict[str, Any]:
        """``GET /api/me``: the account as the site sees it (name, ratings...)."""
        return cast(dict[str, Any], self._s.request("GET", "/api/me"))


class Bots(_Group):
    """A bot's requests: its events, its games' streams and its moves."""

    def upgrade_to_bot_account(self) -> dict[str, Any]:
        """``POST /api/bot/upgrade``: make the account a bot, for good (it must
        have played no game); answers ``{"id", "name", "bot": True}``."""
        return cast(dict[str, Any], self._s.request("POST", "/api/bot/upgrade"))

    def stream_incoming_events(self) -> Iterator[Event]:
        """``GET /api/stream/event``: the games in progress and open challenges
        first, then each event as it comes; ends when the server does.  The
        stream is open (the account online) once this returns."""
        return cast(Iterator[Event], self._s.stream("/api/stream/event"))

    def stream_game_state(self, game_id: str) -> Iterator[GameEvent]:
        """``GET /api/bot/game/stream/{id}``: ``gameFull``, then a ``gameState``
        for each change."""
        return cast(Iterator[GameEvent], self._s.stream(_path("api", "bot", "game", "stream", game_id)))

    def _act(self, game_id: str, *action: str, seq: int | None = None) -> None:
        params = None if seq is None else {"seq": seq}
        self._s.request("POST", _path("api", "bot", "game", game_id, *action), params=params)

    def make_move(self, game_id: str, move: str, seq: int | None = None) -> None:
        """Play ``move`` (square form, ``c1-c5``) for the account's seat;
        with ``seq`` (the state's) it is refused (409 ``stale``) once the
        game has moved on."""
        self._act(game_id, "move", move, seq=seq)

    def fill(self, game_id: str, side: Literal["left", "right"] | str, seq: int | None = None) -> None:
        """Fill (``left`` or ``right``) after the account won a round (``seq``
        as for :meth:`make_move`)."""
        self._act(game_id, "fill", side, seq=seq)

    def resign_game(self, game_id: str) -> None:
        """Resign the match."""
        self._act(game_id, "resign")

    def abort_game(self, game_id: str) -> None:
        """Abort the game (only before both sides moved)."""
        self._act(game_id, "abort")

    def get_online_bots(self) -> list[dict[str, Any]]:
        """``GET /api/bots``: the bots online, with their ratings."""
        return cast(list[dict[str, Any]], self._s.request("GET", "/api/bots"))


class Challenges(_Group):
    """Challenges made, accepted, declined and withdrawn over HTTP."""

    def create(self, player: str, *, target: int = 1, clock: ChallengeClock | None = None,
               rated: bool = False, color: str = "random", series: bool = False) -> Challenge:
        """Challenge ``player`` (a person or a bot) to a match to ``target``;
        ``clock`` is ``{"initial": s, "increment": s}``, ``{"days": n}`` or
        ``None``; ``color`` is the challenger's side."""
        body = {"target": target, "clock": clock, "rated": rated, "color": color, "series": series}
        return cast(Challenge, self._s.request("POST", _path("api", "challenge", player), body))

    def accept(self, challenge_id: str) -> str:
        """Accept a challenge to the account: the game's id."""
        answer = self._s.request("POST", _path("api", "challenge", challenge_id, "accept"))
        return str(answer["game"])

    def decline(self, challenge_id: str) -> None:
        """Decline a challenge to the account."""
        self._s.request("POST", _path("api", "challenge", challenge_id, "decline"))

    def cancel(self, challenge_id: str) -> None:
        """Withdraw the account's own challenge."""
        self._s.request("POST", _path("api", "challenge", challenge_id, "cancel"))


class Tournaments(_Group):
    """The site's Arena and Swiss events (docs/web-tournaments.md): a bot
    joins one that allows bots, and its pairings come as ``gameStart`` on
    its event stream (with ``"tournament"``: the event's id)."""

    def listed(self) -> list[dict[str, Any]]:
        """``GET /api/tournaments``: those upcoming and running, then the last finished."""
        return cast(list[dict[str, Any]], self._s.request("GET", "/api/tournaments"))

    def get(self, tournament_id: str) -> dict[str, Any]:
        """``GET /api/tournaments/{id}``: the event, its standings and its games."""
        return cast(dict[str, Any], self._s.request("GET", _path("api", "tournaments", tournament_id)))

    def join(self, tournament_id: str) -> dict[str, Any]:
        """Join the event (or come back after a pause): paired while the
        event stream is open; a bot in an event for people only: 403 ``no_bots``."""
        return cast(dict[str, Any], self._s.request("POST", _path("api", "tournaments", tournament_id, "join"), {}))

    def withdraw(self, tournament_id: str) -> dict[str, Any]:
        """Stop being paired (a game running goes on and counts)."""
        return cast(dict[str, Any], self._s.request("POST", _path("api", "tournaments", tournament_id, "withdraw"),
                                                    {}))


class Games(_Group):
    """Games, as anyone may read them."""

    def export(self, game_id: str) -> str:
        """``GET /api/games/{id}/record``: the game's record (text)."""
        return str(self._s.request("GET", _path("api", "games", game_id, "record")))


class Client:
    """The site at ``url`` as the account of ``token`` (a personal token,
    docs/web-tokens.md).  ``timeout`` bounds each request (a stream may be
    silent for :data:`STREAM_SILENCE_S`); ``transport`` replaces the network
    (an ``httpx2.MockTransport`` in tests).  Use it in a ``with`` or
    :meth:`close` it.
    """

    def __init__(self, url: str, token: str | None = None, *, timeout: float = 30.0,
                 transport: httpx2.BaseTransport | None = None) -> None:
        self.url = url.rstrip("/")
        self._token = token
        headers = {"User-Agent": "kamisado-api", "Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self._http = httpx2.Client(base_url=self.url, headers=headers, timeout=timeout,
                                   transport=transport, trust_env=False)
        session = _Session(self._http)
        self.account = Account(session)
        self.bots = Bots(session)
        self.challenges = Challenges(session)
        self.games = Games(session)
        self.tournaments = Tournaments(session)

    def __repr__(self) -> str:
        token = f", token={self._token[:8] + '…'!r}" if self._token else ""
        return f"Client({self.url!r}{token})"

    def close(self) -> None:
        """Close the connections (the streams open too)."""
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
