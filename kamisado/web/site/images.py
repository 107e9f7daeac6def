"""The pictures of a game: its board as SVG or PNG, the whole match as a GIF.

``/api/games/{id}/board.svg``, ``board.png`` (the share page's link
preview) and ``match.gif``, each of the game as the store holds it, with
``?size=`` within bounds; browsers may keep them ``PICTURE_CACHE_S``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from kamisado.pictures import svg
from kamisado.rules.position import Position
from kamisado.web.play.game import Game
from kamisado.web.site.pages import bad, game_or_404

__all__ = ["board_png", "board_svg", "match_gif", "picture_headers"]


# -- pictures: the board, the evaluation graph, the match as a GIF ---------------

#: ``?size=`` of the board pictures: default and bounds (pixels)
PICTURE_SIZE = (400, 120, 1200)
#: ``?size=`` of the GIF: default and bounds; a GIF of more frames is refused
GIF_SIZE = (320, 120, 480)
GIF_MAX_FRAMES = 1000
GIF_DELAY_MS = 700
#: how long browsers and proxies may keep a picture of a game (seconds)
PICTURE_CACHE_S = 10


def size_arg(request: Request, bounds: tuple[int, int, int]) -> int | Response:
    default, low, high = bounds
    raw = request.query_params.get("size")
    if raw is None:
        return default
    try:
        size = int(raw)
    except ValueError:
        return bad("expected size to be a whole number")
    if not low <= size <= high:
        return bad(f"size must be {low} to {high}")
    return size


def _game_position(game: Game) -> Position:
    """The position a game's pictures show: the last one reached (a round's
    end while the winner chooses the next round's fill), with its own last
    move, so :func:`kamisado.pictures.svg.marks` finds the marks (no replay needed)."""
    return game.match.position


def picture_headers(game: Game) -> dict[str, str]:
    """The caching headers of a picture of a game (its ETag: the game and its action count)."""
    return {"Cache-Control": f"public, max-age={PICTURE_CACHE_S}",
            "ETag": f'"{game.row.id}-{game.seq}"'}


async def _picture_of(request: Request) -> tuple[Game, int] | Response:
    """The game a picture request names and the size asked for, or the error answer."""
    game = await game_or_404(request)
    if isinstance(game, Response):
        return game
    size = size_arg(request, PICTURE_SIZE)
    if isinstance(size, Response):
        return size
    return game, size


async def board_svg(request: Request) -> Response:
    asked = await _picture_of(request)
    if isinstance(asked, Response):
        return asked
    game, size = asked
    pos = _game_position(game)
    text = svg.board(pos, size=size, title=f"Kamisado: {game.match.name}", **svg.marks(pos))
    return Response(text, media_type="image/svg+xml", headers=picture_headers(game))


def _board_png(pos: Position, size: int) -> bytes:
    from kamisado.pictures import gif

    return gif.png(pos, size=size, **svg.marks(pos))


async def board_png(request: Request) -> Response:
    asked = await _picture_of(request)
    if isinstance(asked, Response):
        return asked
    game, size = asked
    data = await asyncio.to_thread(_board_png, _game_position(game), size)
    return Response(data, media_type="image/png", headers=picture_headers(game))


def _match_gif(match: Any, size: int) -> bytes:
    import io

    from kamisado.pictures import gif

    pictures, durations = [], []
    for frame, ends in gif.frames(match, size=size):
        pictures.append(frame)
        durations.append(GIF_DELAY_MS * gif.END_HOLD if ends else GIF_DELAY_MS)
    buf = io.BytesIO()
    pictures[0].save(buf, format="GIF", save_all=True, append_images=pictures[1:],
                     duration=durations, loop=0, optimize=True, disposal=1)
    return buf.getvalue()


async def match_gif(request: Request) -> Response:
    game = await game_or_404(request)
    if isinstance(game, Response):
        return game
    size = size_arg(request, GIF_SIZE)
    if isinstance(size, Response):
        return size
    frames = sum(len(r.moves) + 1 for r in game.match.rounds)
    if frames > GIF_MAX_FRAMES:
        return bad(f"the game is too long for a GIF (at most {GIF_MAX_FRAMES} positions)")
    data = await asyncio.to_thread(_match_gif, game.match, size)
    return Response(data, media_type="image/gif", headers={
        **picture_headers(game),
        "Content-Disposition": f'attachment; filename="kamisado-{game.row.id}.gif"',
    })
