"""A bot's games over HTTP: the game stream and the actions (docs/web-bots.md).

``GET /api/bot/game/stream/{id}`` is newline-delimited JSON
(:mod:`kamisado.web.bots.ndjson`): a ``gameFull`` line, then a ``gameState``
line after every change of the game (a move, a fill, an offer, the clocks,
the end), until the game ends.  The stream is a connection on the game
(:class:`kamisado.web.play.game.Conn`) like a page's websocket: it joins as
the token's account, so it holds the account's seats, and every state the
game broadcasts (its own actions, another process's through
:mod:`kamisado.web.play.news`, a flag that fell) becomes a line, the
:data:`STATE` read from the game at that moment.

``POST /api/bot/game/{id}/move/{move}``, ``/fill/{left|right}``,
``/resign`` and ``/abort`` act for the account's seat through the game's one
checked path (:meth:`kamisado.web.play.game.Game.act`: its lock, the seat,
``seq``, the rules, the store); each answers only once the action is
stored.

>>> from kamisado.web.play.state import GameState
>>> from kamisado.web.store.schema import GameRow
>>> game = GameState.build(GameRow.new("g1", target=3), [])
>>> s = state_of(game, now=0)
>>> s["seq"], s["to_act"], s["awaiting"], s["legal"][:2], s["status"], s["btime"]
(0, 'b', 'move', ['a1-a2', 'a1-a3'], 'started', None)
>>> game.apply("c1-c5"); state_of(game, now=0)["moves"]
['c1-c5']
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from kamisado.rules.board import SIDE_LETTERS, KamisadoError, Move
from kamisado.rules.match import FILL, OVER
from kamisado.web.accounts.players import player_in_thread
from kamisado.web.accounts.sessions import BEARER, TOKEN_SOCKET, Bearer, SessionSockets
from kamisado.web.basics import clocks
from kamisado.web.basics.messages import AbortMsg, FillMsg, MoveMsg, ResignMsg, error_body
from kamisado.web.bots.ndjson import stream
from kamisado.web.play.game import Conn, Game
from kamisado.web.play.games import Hub
from kamisado.web.play.state import GameError, GameState
from kamisado.web.store.database import StoreErrors

__all__ = ["ROUTES", "game_full", "state_of"]

log = logging.getLogger("kamisado.web")

#: The HTTP status of each refusal a bot's action gets (its ``code`` is the
#: game's: docs/web-bots.md); any other is 400.
STATUS = {"illegal": 400, "malformed": 400, "not_your_turn": 409, "stale": 409, "over": 409, "time": 409,
          "not_your_game": 403, "no_such_game": 404, "storage": 503, "restarting": 503}


class BotRefusal(Exception):
    """A bot's request refused: the JSON error answer (``status``, ``code``, ``args``)."""

    def __init__(self, message: str, status: int, code: str, args: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.details = status, code, args

    def answer(self) -> Response:
        """The error answer (401 says how to authenticate)."""
        head = {"WWW-Authenticate": 'Bearer scope="bot"'} if self.status == 401 else None
        return JSONResponse(error_body(str(self), self.status, self.code, self.details),
                            status_code=self.status, headers=head)


# -- what a bot is told -------------------------------------------------------------------


def state_of(game: GameState, now: int) -> dict[str, Any]:
    """A game's ``STATE`` (docs/web-bots.md) at ``now`` (ms): the clocks as
    they stand then (derived from the stored clock, never ticked).

    >>> from kamisado.web.store.schema import GameRow
    >>> game = GameState.build(GameRow.new("g1", target=1), ["c1-c5", "resign-g"])
    >>> s = state_of(game, now=0)
    >>> s["status"], s["winner"], s["reason"], s["to_act"], s["legal"]
    ('finished', 'b', 'resignation', None, [])
    """
    match = game.match
    act = game.to_act()
    over = game.state == OVER
    awaiting = None if act is None else "fill" if match.state == FILL else "move"
    legal = ([] if awaiting is None else ["left", "right"] if awaiting == "fill"
             else [str(m) for m in match.legal_moves()])
    clock = game.clock
    winner = game.winner()
    offer = game.offer()
    reason = game.ended[0] if game.ended is not None else "points" if over else None
    return {
        "seq": game.seq,
        "round": len(match.rounds),
        "points": list(match.points),
        "kpn": match.position.kpn(),
        "start": match.current.start.kpn(),
        "moves": [str(m) for m in match.current.moves],
        "to_act": None if act is None else SIDE_LETTERS[act],
        "awaiting": awaiting,
        "legal": legal,
        "btime": None if clock is None else clock.left("b", now),
        "gtime": None if clock is None else clock.left("g", now),
        "binc": None if clock is None else clock.control.increment_ms,
        "ginc": None if clock is None else clock.control.increment_ms,
        "status": "finished" if over else "started",
        "winner": None if winner is None or not over else SIDE_LETTERS[winner],
        "reason": reason,
        "offer": None if offer is None else {"kind": offer[0], "by": SIDE_LETTERS[offer[1]]},
    }


def _change(game: GameState) -> tuple[Any, ...]:
    """What a ``gameState`` line is sent for: a new action, a clock that
    moved (an outage made up for), an offer, the end (not a seat coming
    online, which the page is told of and a bot need not be)."""
    return game.seq, game.clock, game.row.offer, game.ended


def _seconds(value: float | None) -> float | int | None:
    return None if value is None else int(value) if float(value).is_integer() else value


def game_full(game: Game, player: str | None, state: dict[str, Any]) -> dict[str, Any]:
    """The ``gameFull`` line: the game, its players, the seat ``player``
    plays (``None``: it watches) and its ``state``."""
    row = game.row
    if row.clock_days:
        clock: dict[str, Any] | None = {"days": row.clock_days}
    elif row.clock_initial is not None:
        clock = {"initial": _seconds(row.clock_initial), "increment": _seconds(row.clock_increment or 0)}
    else:
        clock = None
    names = game.seat_names()
    players = [{"id": row.owners[side], "name": names[side], "rating": game.ratings[side][0], "bot": bool(game.bots[side])}
               for side in (0, 1)]
    seats = [side for side, owner in enumerate(row.owners) if player is not None and owner == player]
    seat = None if not seats else SIDE_LETTERS[seats[0]] if len(seats) == 1 or state["to_act"] is None \
        else state["to_act"]
    return {"type": "gameFull", "id": row.id, "rated": row.rated, "target": row.target, "series": row.series,
            "clock": clock, "black": players[0], "gold": players[1], "seat": seat, "state": state}


# -- the requests ---------------------------------------------------------------------------


def _bearer(request: Request) -> Bearer:
    """The request's personal token (:class:`~kamisado.web.accounts.tokens.BearerAuth`
    checked it and its ``bot`` scope); a request without one is refused 401."""
    bearer = request.scope.get(BEARER)
    if not isinstance(bearer, Bearer):
        raise BotRefusal("a bot's request needs a personal token with the scope bot "
                         "(Authorization: Bearer TOKEN)", 401, "token_needed")
    return bearer


def _hub(request: Request) -> Hub:
    hub: Hub = request.app.state.hub
    return hub


async def _held(hub: Hub, game_id: str) -> Game:
    """The game held in memory for the request (the caller lets go:
    :func:`_let_go`); 404 ``no_such_game``."""
    try:
        game = await hub.hold(game_id)
    except GameError as exc:
        raise BotRefusal(str(exc), 503, exc.code) from None
    if game is None:
        raise BotRefusal(f"no game {game_id!r}", 404, "no_such_game", {"game": game_id})
    return game


def _let_go(hub: Hub, game: Game) -> None:
    game.joining -= 1
    hub.evict(game)


def _is_state(text: str) -> bool:
    """Whether a frame sent to a connection is the game's state (not an
    error, a chat line or the server's restart notice)."""
    return text.startswith('{"type":"state"')


def _kind(text: str) -> str | None:
    """The type of a (small) frame other than the state.

    >>> _kind('{"type": "restarting"}'), _kind("not json")
    ('restarting', None)
    """
    try:
        frame = json.loads(text)
    except ValueError:
        return None
    kind = frame.get("type") if isinstance(frame, dict) else None
    return kind if isinstance(kind, str) else None


async def game_stream(request: Request) -> Response:
    """``GET /api/bot/game/stream/{game}``: ``gameFull``, then a
    ``gameState`` after each change, until the game ends (docs/web-bots.md).
    The stream ends too when the server stops (a client opening it again
    gets ``gameFull``) or the token is revoked."""
    try:
        bearer = _bearer(request)
        hub = _hub(request)
        player = await player_in_thread(request)
        if player is None:
            raise BotRefusal("bad token: unknown, revoked, or its account closed", 401, "bad_token")
        game = await _held(hub, request.path_params["game"])
    except BotRefusal as exc:
        return exc.answer()
    except StoreErrors:
        log.exception("bots: the store failed")
        return JSONResponse(error_body("the store cannot be read; try again", 503), status_code=503)
    queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

    async def heard(text: str) -> None:
        if _is_state(text):
            queue.put_nowait(state_of(game, clocks.now_ms()) | {"_change": _change(game)})
        elif _kind(text) == "restarting":  # the server stops (kamisado.web.site.ops.drain): the stream ends
            queue.put_nowait(None)

    async def closed(code: int = 0, reason: str = "") -> None:
        queue.put_nowait(None)

    async def revoked() -> None:
        queue.put_nowait(None)

    conn = Conn(heard, closed, player=player.id, name=player.name, registered=player.account is not None,
                stream=True)
    try:
        await game.join(conn, None)  # holds the account's seats (none: it watches)
    except GameError as exc:
        hub.leave(conn)
        return BotRefusal(str(exc), STATUS.get(exc.code, 400), exc.code).answer()
    finally:
        _let_go(hub, game)
    hub.open_conns.add(conn)  # told when the server stops
    sockets: SessionSockets = request.app.state.session_sockets
    key = TOKEN_SOCKET + bearer.token
    sockets.add(key, revoked)  # closed when the token is revoked

    async def lines() -> AsyncIterator[dict[str, Any]]:
        last: tuple[Any, ...] | None = None
        try:
            while True:
                state = await queue.get()
                if state is None:
                    return
                change = state.pop("_change")
                if last is None:
                    yield game_full(game, player.id, state)
                elif change != last:
                    yield {"type": "gameState", **state}
                last = change
                if state["status"] == "finished":
                    return
        finally:
            sockets.discard(key, revoked)
            hub.open_conns.discard(conn)
            hub.leave(conn)

    return stream(lines())


async def _act(request: Request, what: str) -> Response:
    """One action of the account's seat: stored, then answered ``{"ok": true}``."""
    hub = _hub(request)
    began = time.perf_counter()
    try:
        bearer = _bearer(request)
        seq = _seq(request)
        msg = _message(request, what, seq)
        game = await _held(hub, request.path_params["game"])
        try:
            seats = tuple(s for s, owner in enumerate(game.row.owners) if owner == bearer.player)
            if not seats:
                raise BotRefusal(f"game {game.row.id}: the token's account plays no seat of it", 403,
                                 "not_your_game", {"game": game.row.id})
            conn = Conn(_nowhere, player=bearer.player, registered=True)
            conn.game, conn.seats = game, seats
            try:
                if isinstance(msg, MoveMsg | FillMsg):
                    await game.act(conn, msg)
                    if isinstance(msg, MoveMsg):  # stored and sent: its round trip, as the websocket's
                        hub.metrics.moved(time.perf_counter() - began)
                else:
                    await game.end(conn, msg)
            except GameError as exc:
                args = {"legal": state_of(game, clocks.now_ms())["legal"]} if exc.code == "illegal" else None
                raise BotRefusal(str(exc), STATUS.get(exc.code, 400), exc.code, args) from None
        finally:
            _let_go(hub, game)
    except BotRefusal as exc:
        return exc.answer()
    except StoreErrors:
        log.exception("bots: the store failed")
        return JSONResponse(error_body("the store cannot be read; try again", 503), status_code=503)
    return JSONResponse({"ok": True})


async def _nowhere(text: str) -> None:
    """A request's connection is answered by its HTTP answer, not frames."""


def _seq(request: Request) -> int | None:
    """The optional ``?seq=N``: the action count the bot saw (a state
    moved on meanwhile refuses the action: 409 ``stale``)."""
    raw = request.query_params.get("seq")
    if raw is None:
        return None
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 9:
        raise BotRefusal(f"seq: expected an action count, found {raw[:20]!r}", 400, "malformed")
    return int(raw)


def _message(request: Request, what: str, seq: int | None) -> MoveMsg | FillMsg | ResignMsg | AbortMsg:
    """The game's message for the request (the move's square form checked:
    nothing but a move goes through ``/move/``)."""
    if what == "move":
        text = request.path_params["move"]
        try:
            ok = str(Move.from_str(text)) == text
        except KamisadoError:
            ok = False
        if not ok:
            raise BotRefusal(f"expected a move in square form like c1-c5, found {text[:20]!r}", 400, "malformed")
        return MoveMsg(text, seq)
    if what == "fill":
        direction = request.path_params["direction"]
        if direction not in ("left", "right"):
            raise BotRefusal(f"expected a fill left or right, found {direction[:20]!r}", 400, "malformed")
        return FillMsg(direction, seq)
    return ResignMsg(seq) if what == "resign" else AbortMsg(seq)


async def move(request: Request) -> Response:
    """``POST /api/bot/game/{game}/move/{move}``: play a move (square form)."""
    return await _act(request, "move")


async def fill(request: Request) -> Response:
    """``POST /api/bot/game/{game}/fill/{direction}``: fill ``left`` or ``right``."""
    return await _act(request, "fill")


async def resign(request: Request) -> Response:
    """``POST /api/bot/game/{game}/resign``: resign the match."""
    return await _act(request, "resign")


async def abort(request: Request) -> Response:
    """``POST /api/bot/game/{game}/abort``: call the game off before both sides moved."""
    return await _act(request, "abort")


ROUTES = [
    Route("/api/bot/game/stream/{game}", game_stream),
    Route("/api/bot/game/{game}/move/{move}", move, methods=["POST"]),
    Route("/api/bot/game/{game}/fill/{direction}", fill, methods=["POST"]),
    Route("/api/bot/game/{game}/resign", resign, methods=["POST"]),
    Route("/api/bot/game/{game}/abort", abort, methods=["POST"]),
]
