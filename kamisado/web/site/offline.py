"""The page as an installable app that works offline: its manifest and its service worker.

``GET /manifest.webmanifest`` is the web app manifest (name, start URL,
``standalone``, the page's colours, the icons of ``static/icons/`` made by
``tools/make_icons.py``).  ``GET /sw.js`` is the service worker, served
from the site's root so that its scope is every route: the file
``static/sw.js`` with two things written into it by the server, the list of
the URLs it precaches (the app shell: the page, every file under
``static/``; the engine's WebAssembly, its worker and its data (the book, the match
equity); the lessons in every language; the levels; the positions the
lessons show come in one answer, ``GET /api/offline/positions``) and the cache's version, a SHA-256 of the contents of all of
them.  A deploy that changes any of those files changes the version, so the
browser installs the new worker, which fills a new cache and drops the old
one; nobody ever writes a version by hand.

>>> from starlette.testclient import TestClient
>>> from kamisado.web.site.server import create_app
>>> with TestClient(create_app("sqlite://", workers=0)) as client:
...     sw = client.get("/sw.js")
...     manifest = client.get("/manifest.webmanifest")
>>> sw.headers["content-type"], manifest.headers["content-type"]
('text/javascript; charset=utf-8', 'application/manifest+json')
>>> cache_version() in sw.text and manifest.json()["display"]
'standalone'
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response

__all__ = ["LANGUAGES", "MANIFEST", "ROUTES", "cache_version", "lesson_positions", "position_url",
           "precached", "service_worker", "version_of"]

LANGUAGES = ("en", "de", "hu")
#: The page's colours (style.css: ``--dark`` the top bar, ``--bg`` the page).
THEME = "#1d1b19"
BACKGROUND = "#f4efe6"

MANIFEST: dict[str, Any] = {
    "name": "Kamisado",
    "short_name": "Kamisado",
    "description": "Play Kamisado, the game of coloured towers: against the computer, a friend here or online.",
    "id": "/",
    "start_url": "/",
    "scope": "/",
    "display": "standalone",
    "orientation": "any",
    "theme_color": THEME,
    "background_color": BACKGROUND,
    "icons": [
        {"src": "/static/icons/icon-192.png", "sizes": "192x192", "type": "image/png", "purpose": "any"},
        {"src": "/static/icons/icon-512.png", "sizes": "512x512", "type": "image/png", "purpose": "any"},
        {"src": "/static/icons/maskable-512.png", "sizes": "512x512", "type": "image/png", "purpose": "maskable"},
    ],
}

#: Files under ``static/`` the worker does not precache: the link preview's
#: picture (for other sites' crawlers), the worker's own template and the
#: page's template (the page is precached as ``/``, as the server fills it in).
NOT_PRECACHED = frozenset({"og.png", "sw.js", "index.html"})


def _lesson_positions() -> list[tuple[str, str | None]]:
    """Every position the lessons show, as lessons.js asks for it (a step's
    position, its move played, a fill's two starts): ``(kpn, move)``."""
    from kamisado.lessons import lessons_json

    seen: dict[tuple[str, str | None], None] = {}
    for lesson in lessons_json("en"):
        for step in lesson["steps"]:
            seen[(step["kpn"], None)] = None
            if step.get("move"):
                seen[(step["kpn"], step["move"])] = None
            for start in (step.get("fill") or {}).values():
                seen[(start, None)] = None
    return list(seen)


def position_url(kpn: str, move: str | None = None) -> str:
    """``/api/position`` as the page asks for it (``encodeURIComponent``'s escapes).

    >>> position_url("8/8/8/8/8/8/8/8 b - 1 0 0", "a1-a4")
    '/api/position?kpn=8%2F8%2F8%2F8%2F8%2F8%2F8%2F8%20b%20-%201%200%200&move=a1-a4'
    """
    url = f"/api/position?kpn={quote(kpn, safe='')}"
    return url if move is None else f"{url}&move={quote(move, safe='')}"


@functools.cache
def lesson_positions() -> dict[str, Any]:
    """``GET /api/offline/positions``' answer: each position the lessons
    show, by the ``/api/position`` URL the page asks for it with, as that
    URL answers (the worker puts each in its cache under its URL: one
    request, where one each would pass the ``position`` rate limit)."""
    from kamisado.rules.position import Position
    from kamisado.web.basics.views import move_view, position_view

    out: dict[str, Any] = {}
    for kpn, move in _lesson_positions():
        pos = Position(kpn)
        if move is None:
            out[position_url(kpn)] = {**position_view(pos), "push": False}
        else:
            parsed = pos.parse_move(move)
            last = move_view(pos, parsed)
            pos.push_move(parsed)
            out[position_url(kpn, move)] = {**position_view(pos), "push": last["push"], "last": last}
    return out


@functools.cache
def precached() -> tuple[str, ...]:
    """Every URL the worker precaches: the page, its files, the levels and
    the lessons (their positions come in one answer: :func:`lesson_positions`)."""
    from kamisado.web.site.pages import STATIC

    files = sorted(p.relative_to(STATIC).as_posix() for p in STATIC.rglob("*") if p.is_file())
    shell = [f"/static/{f}" for f in files if f not in NOT_PRECACHED and not f.endswith((".map", ".ts"))]
    lessons = [f"/api/lessons?lang={lang}" for lang in LANGUAGES]
    lessons += [f"/api/offline/puzzles?lang={lang}" for lang in LANGUAGES]
    return ("/", "/manifest.webmanifest", *shell, *_engine_data_urls(), "/api/levels", "/api/board", "/api/me", *lessons)


def _engine_data_urls() -> list[str]:
    """The page engine's data (the book, the match equity), served from the package's data."""
    from kamisado.web.site.engine_data import ENGINE_DATA

    return [f"/static/engine/data/{name}" for name in sorted(ENGINE_DATA)]


def version_of(static: Path, urls: Iterable[str]) -> str:
    """The version of a cache holding ``urls``, the files under ``static``
    (``/static/...``) read from it: the first 16 hex digits of a SHA-256 of
    the URLs, those files' contents, the worker's template, the manifest,
    the lessons in every language and the positions they show."""
    from kamisado.lessons import lessons_json

    digest = hashlib.sha256()
    for url in urls:
        digest.update(url.encode() + b"\0")
        if url.startswith("/static/engine/data/"):
            digest.update(resources.files("kamisado").joinpath(f"data/{url.rsplit('/', 1)[1]}").read_bytes())
        elif url.startswith("/static/"):
            digest.update((static / url.removeprefix("/static/")).read_bytes())
    digest.update((static / "sw.js").read_bytes())
    digest.update(json.dumps(MANIFEST, sort_keys=True).encode())
    for lang in LANGUAGES:
        digest.update(json.dumps(lessons_json(lang), sort_keys=True).encode())
    digest.update(json.dumps(lesson_positions(), sort_keys=True).encode())
    return digest.hexdigest()[:16]


@functools.cache
def cache_version() -> str:
    """The cache's version for the installed files (:func:`version_of`),
    computed once per process."""
    from kamisado.web.site.pages import STATIC

    return version_of(STATIC, precached())


@functools.cache
def service_worker() -> str:
    """``static/sw.js`` with the version and the precached URLs written in."""
    from kamisado.web.site.pages import STATIC

    text = (STATIC / "sw.js").read_text("utf-8")
    return text.replace('"__VERSION__"', json.dumps(cache_version())).replace(
        "[/*__PRECACHE__*/]", json.dumps(list(precached()), indent=0))


async def sw_js(request: Request) -> Response:
    """``GET /sw.js``: the service worker (never cached by HTTP: the browser checks it on each visit)."""
    return Response(service_worker(), media_type="text/javascript; charset=utf-8",
                    headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"})


async def positions(request: Request) -> Response:
    """``GET /api/offline/positions``: :func:`lesson_positions`."""
    return Response(json.dumps(lesson_positions()), media_type="application/json",
                    headers={"Cache-Control": "no-cache"})


async def manifest(request: Request) -> Response:
    """``GET /manifest.webmanifest``: the web app manifest."""
    return Response(json.dumps(MANIFEST), media_type="application/manifest+json",
                    headers={"Cache-Control": "no-cache"})


def routes() -> list[Any]:
    """The two routes, for :mod:`kamisado.web.site.server`."""
    from starlette.routing import Route

    return [Route("/sw.js", sw_js), Route("/manifest.webmanifest", manifest),
            Route("/api/offline/positions", positions)]


ROUTES = routes()
