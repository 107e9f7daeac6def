"""``kamisado.api.Client`` (issue 42, item 6) against real servers on
loopback: the site's own answers (``/api/me`` with a token, refusals as
one ``ApiError`` with the server's words), and newline-delimited JSON
streams as the site's :mod:`kamisado.web.bots.ndjson` writes them
(keep-alive lines skipped, a line cut by a dropped connection, a silent
stream).  The bot endpoints themselves are exercised in
tests/test_api_e2e.py."""

from __future__ import annotations

import asyncio
import contextlib
import doctest
import io
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from kamisado.api import ApiError, Client
from kamisado.api import client as client_module
from kamisado.web.bots import ndjson
from kamisado.web.site.openapi import OPERATIONS
from kamisado.web.site.server import create_app
from tests.test_docs import ROOT, blocks_of

WAIT = 20.0


@contextlib.contextmanager
def serve(app: Any) -> Iterator[str]:
    """``app`` on a free loopback port, in a thread: its address."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning",
                                           lifespan="on", ws="websockets-sansio"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    started = threading.Event()
    while not server.started:
        assert thread.is_alive(), "the server did not start"
        started.wait(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(WAIT)


#: What the stream routes were asked, for the tests to check.
SEEN: list[dict[str, Any]] = []


async def events(request: Request) -> Response:
    SEEN.append({"auth": request.headers.get("authorization")})

    async def gen() -> AsyncIterator[dict[str, Any]]:
        yield {"type": "challenge", "challenge": {"id": "c1"}}
        await asyncio.sleep(0.05)  # silent for longer than keepalive_s: empty lines come
        yield {"type": "gameStart", "game": {"id": "g1"}}

    return ndjson.stream(gen(), keepalive_s=0.01)


async def cut(request: Request) -> Response:
    async def body() -> AsyncIterator[bytes]:
        yield b'{"type": "gameFull", "id": "g1"}\n\n{"type": "gameSt'

    return StreamingResponse(body(), media_type=ndjson.MEDIA_TYPE)


async def silent(request: Request) -> Response:
    async def body() -> AsyncIterator[bytes]:
        yield b'{"type": "gameFull"}\n'
        await asyncio.Event().wait()  # never another byte: not even a keep-alive
        yield b""

    return StreamingResponse(body(), media_type=ndjson.MEDIA_TYPE)


async def refused(request: Request) -> Response:
    return JSONResponse({"error": "illegal move c1-c9", "code": "illegal", "args": {"legal": ["c1-c5"]}},
                        status_code=400)


async def plain(request: Request) -> Response:
    return Response("bad gateway\n", status_code=502)


STREAMS = Starlette(routes=[
    Route("/api/stream/event", events),
    Route("/api/bot/game/stream/cut", cut),
    Route("/api/bot/game/stream/silent", silent),
    Route("/api/bot/game/g1/move/{move}", refused, methods=["POST"]),
    Route("/api/bots", plain),
])


@pytest.fixture(scope="module")
def streams() -> Iterator[str]:
    with serve(STREAMS) as url:
        yield url


def test_a_stream_is_an_iterator_of_its_objects_keepalives_skipped(streams: str) -> None:
    with Client(streams, "kam_secret") as client:
        got = list(client.bots.stream_incoming_events())
    assert got == [{"type": "challenge", "challenge": {"id": "c1"}}, {"type": "gameStart", "game": {"id": "g1"}}]
    assert SEEN[-1] == {"auth": "Bearer kam_secret"}


def test_a_line_cut_by_the_connection_is_an_api_error_after_the_whole_lines(streams: str) -> None:
    got = []
    with Client(streams, "kam_x") as client, pytest.raises(ApiError) as e:
        for line in client.bots.stream_game_state("cut"):
            got.append(line)
    assert got == [{"type": "gameFull", "id": "g1"}]
    assert (e.value.status, e.value.code) == (0, "stream_cut")
    assert e.value.network and "b'{\"type\": \"gameSt'" in e.value.message


def test_a_silent_stream_is_a_network_error_after_its_limit(streams: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client_module, "STREAM_SILENCE_S", 0.2)
    with Client(streams) as client:
        lines = client.bots.stream_game_state("silent")
        assert next(lines) == {"type": "gameFull"}
        with pytest.raises(ApiError) as e:
            next(lines)
    assert (e.value.status, e.value.code) == (0, "network") and "ReadTimeout" in e.value.message


def test_refusals_are_one_api_error_with_the_servers_words(streams: str) -> None:
    with Client(streams, "kam_x") as client:
        with pytest.raises(ApiError) as e:
            client.bots.make_move("g1", "c1-c9")
        assert (e.value.status, e.value.code, e.value.message) == (400, "illegal", "illegal move c1-c9")
        assert e.value.args == {"legal": ["c1-c5"]} and not e.value.network
        with pytest.raises(ApiError) as e:
            client.bots.get_online_bots()
        assert (e.value.status, e.value.code, e.value.message) == (502, "http_502", "bad gateway")
    with Client("http://127.0.0.1:9") as nowhere, pytest.raises(ApiError) as e:  # nothing listens on 9
        nowhere.account.get()
    assert (e.value.status, e.value.code) == (0, "network") and e.value.message.startswith("GET /api/me: ")


def test_paths_are_quoted() -> None:
    seen: list[str] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        seen.append(request.url.raw_path.decode())
        return httpx2.Response(200, json={"ok": True, "game": "g9"})

    with Client("http://site.test/", "t", transport=httpx2.MockTransport(answer)) as client:
        assert client.challenges.accept("a/b c") == "g9"
        client.bots.fill("g1", "left", seq=7)
        client.challenges.create("ann smith", target=3, clock={"initial": 60, "increment": 1})
    assert seen == ["/api/challenge/a%2Fb%20c/accept", "/api/bot/game/g1/fill/left?seq=7", "/api/challenge/ann%20smith"]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db: Path = tmp_path_factory.mktemp("site") / "games.db"
    with serve(create_app(str(db), workers=0, limits={})) as url:
        yield url


def account_token(url: str, name: str, scopes: list[str]) -> str:
    """Sign ``name`` up on the site and make it a token (as its page does)."""
    with httpx2.Client(base_url=url, headers={"Origin": url}) as page:
        assert page.get("/api/me").status_code == 200
        r = page.post("/api/signup", json={"account": name, "password": "a long password"})
        assert r.status_code == 200, r.text
        r = page.post("/api/tokens", json={"name": "bot", "scopes": scopes})
        assert r.status_code == 201, r.text
        return str(r.json()["token"])


def test_the_account_of_a_token_and_the_sites_refusals(site: str) -> None:
    token = account_token(site, "reader", ["read"])
    with Client(site, token) as client:
        me = client.account.get()
        assert me["account"] == "reader"
        with pytest.raises(ApiError) as e:
            client.games.export("nosuchgame")
        assert e.value.status == 404
    with Client(site, "kam_" + "x" * 43) as stranger, pytest.raises(ApiError) as e:
        stranger.account.get()
    assert (e.value.status, e.value.code) == (401, "bad_token")
    assert e.value.message == "bad token: unknown, revoked, or its account closed"


@pytest.mark.skipif(not any(op.path == "/api/stream/event" for op in OPERATIONS),
                    reason="the server side of docs/web-bots.md is not in this tree yet")
def test_the_python_session_of_docs_bots_md(site: str) -> None:
    """docs/bots.md's ``pycon`` blocks, one doctest, against the site with
    ``url``, the ``token`` of a fresh account ``robo`` and ``ann``, a person's client."""
    ann = Client(site, account_token(site, "ann", ["read", "challenge"]))
    globs: dict[str, Any] = {"url": site, "token": account_token(site, "robo", ["read", "play", "challenge", "bot"]),
                             "ann": ann}
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    out = io.StringIO()
    blocks = [b for b in blocks_of("pycon") if b.page == ROOT / "docs" / "bots.md"]
    assert blocks
    for block in blocks:
        test = doctest.DocTestParser().get_doctest(block.text, globs, "bots.md", str(block.page), block.line)
        runner.run(test, out=out.write, clear_globs=False)
        globs = test.globs
    ann.close()
    result = runner.summarize(verbose=False)
    assert result.failed == 0 and result.attempted > 10, out.getvalue()
