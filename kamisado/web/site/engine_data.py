"""The data of the page's engine (``static/js/engine-levels.js``): the
opening book and the match-equity model of ``perfect``, served from the
package's own files (``kamisado/data``), so that nothing is written twice.

>>> sorted(ENGINE_DATA)
['book.txt', 'equity.json']
"""

from __future__ import annotations

from importlib import resources

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

__all__ = ["ENGINE_DATA", "ROUTES", "engine_data"]

#: The files served, and their media types.
ENGINE_DATA = {"book.txt": "text/plain; charset=utf-8", "equity.json": "application/json"}


async def engine_data(request: Request) -> Response:
    """``GET /static/engine/data/{name}``: one of :data:`ENGINE_DATA` (404 for any other name)."""
    name = request.path_params["name"]
    media = ENGINE_DATA.get(name)
    if media is None:
        return JSONResponse({"error": f"no engine data {name!r}"}, status_code=404)
    body = resources.files("kamisado").joinpath(f"data/{name}").read_bytes()
    return Response(body, media_type=media, headers={"Cache-Control": "public, max-age=3600"})


#: The routes (before the ``/static`` mount, which they lie under).
ROUTES = [Route("/static/engine/data/{name}", engine_data)]
