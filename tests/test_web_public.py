"""Behind a reverse proxy (issue 25, items 2 and 7): ``--public-url`` and
``--forwarded-allow-ips``.

The share page's preview links are built from the public URL, never from
the request's ``Host`` (which anyone may forge); an https public URL makes
the cookie ``Secure`` and every answer carry ``Strict-Transport-Security``;
``X-Forwarded-For`` is believed only from the proxies listed, so by default
a client cannot pick the address its rate limits are counted against."""

from __future__ import annotations

import http.client
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from kamisado.web.edge.guard import LIMITS, Limit
from kamisado.web.site.server import create_app
from tests.conftest import stop_process
from tests.test_web_cli import refused, start, web

PUBLIC = "https://kamisado.example"


def meta(html: str) -> dict[str, str]:
    return {m[1]: m[2] for m in re.finditer(r'<meta (?:property|name)="([^"]+)" content="([^"]*)">', html)}


def app_client(tmp_path: Path, **kw: object) -> TestClient:
    return TestClient(create_app(str(tmp_path / "games.db"), workers=0, **kw))  # type: ignore[arg-type]


def new_game(client: TestClient) -> str:
    r = client.post("/api/games", json={"online": True})
    assert r.status_code == 200, r.text
    return str(r.json()["id"])


def test_the_share_page_never_reflects_the_host_header(tmp_path: Path) -> None:
    forged = {"Host": "evil.example", "X-Forwarded-Host": "evil.example"}
    with app_client(tmp_path) as client:  # no public URL: paths on this site
        game = new_game(client)
        for path, image in (("/", "/static/og.png"), (f"/game/{game}", f"/api/games/{game}/board.png")):
            page = client.get(path, headers=forged).text
            assert "evil.example" not in page
            assert meta(page)["og:image"] == image
            assert "og:url" not in meta(page)
    with app_client(tmp_path, public_url=PUBLIC + "/") as client:
        game = new_game(client)
        page = client.get(f"/game/{game}", headers=forged).text
        assert "evil.example" not in page
        tags = meta(page)
        assert tags["og:image"] == f"{PUBLIC}/api/games/{game}/board.png"
        assert tags["og:url"] == f"{PUBLIC}/game/{game}"
        home = meta(client.get("/", headers=forged).text)
        assert home["og:image"] == f"{PUBLIC}/static/og.png" and home["og:url"] == f"{PUBLIC}/"
        assert set(home) == set(tags)


def test_an_https_public_url_makes_the_cookie_secure_and_sends_hsts(tmp_path: Path) -> None:
    for public, https in ((None, False), ("http://kamisado.example:8080", False), (PUBLIC, True)):
        with app_client(tmp_path, public_url=public) as client:
            first = client.get("/")
            cookie = first.headers["set-cookie"].lower()
            assert ("; secure" in cookie) is https, (public, cookie)
            answers = [
                first,
                client.get("/api/levels"),
                client.get("/api/games/nosuchgame/record"),  # an error
                client.post("/api/games", json={}, headers={"Origin": "https://evil.example"}),  # refused
                client.get("/static/og.png"),
            ]
            assert [a.status_code for a in answers] == [200, 200, 404, 403, 200]
            for answer in answers:
                hsts = answer.headers.get("strict-transport-security")
                assert hsts == ("max-age=31536000" if https else None), (public, answer.url, hsts)


def test_the_public_origin_may_post_when_the_proxy_rewrites_host(tmp_path: Path) -> None:
    headers = {"Origin": PUBLIC, "Host": "127.0.0.1:8001"}
    with app_client(tmp_path) as client:
        assert client.post("/api/games", json={}, headers=headers).status_code == 403
    with app_client(tmp_path, public_url=PUBLIC) as client:
        assert client.post("/api/games", json={}, headers=headers).status_code == 200
        assert client.post("/api/games", json={}, headers={**headers, "Origin": "https://evil.example"}
                           ).status_code == 403


def statuses(client: TestClient, forwarded: list[str]) -> list[int]:
    """POST /api/games once per address, each naming it in X-Forwarded-For."""
    return [client.post("/api/games", json={}, headers={"X-Forwarded-For": f}).status_code for f in forwarded]


def test_forwarded_addresses_are_believed_only_from_the_listed_proxies(tmp_path: Path) -> None:
    two = {"create": Limit("create", 1 / 600, 2, "games created")}
    others = ["198.51.100.1", "198.51.100.2", "198.51.100.3"]
    # by default no forwarded header is believed, not even from localhost: one address, one bucket
    app = create_app(str(tmp_path / "a.db"), workers=0, limits=two)
    with TestClient(app, client=("127.0.0.1", 5000)) as client:
        assert statuses(client, others) == [200, 200, 429]
    # a listed proxy: each forwarded address is limited on its own, the proxy's peers share nothing
    app = create_app(str(tmp_path / "b.db"), workers=0, limits=two, forwarded_allow_ips="127.0.0.1, 10.0.0.0/8")
    with TestClient(app, client=("127.0.0.1", 5000)) as client:
        assert statuses(client, others) == [200, 200, 200]
        assert statuses(client, ["198.51.100.1"]) == [200]
        assert statuses(client, ["198.51.100.1"]) == [429]  # that client's own bucket is spent
        # the client is the last address the proxies did not add ("spoofed, client, proxy")
        assert statuses(client, ["203.0.113.9, 198.51.100.2, 10.1.2.3"]) == [200]
        assert statuses(client, ["203.0.113.8, 198.51.100.2"]) == [429]
        with client.websocket_connect("/ws", headers={"X-Forwarded-For": "198.51.100.3"}) as ws:
            ws.send_json({"type": "create"})  # the websocket's create takes from the same bucket
            assert ws.receive_json()["type"] == "created"
            ws.send_json({"type": "create"})
            assert ws.receive_json()["code"] == "rate_limited"
    with TestClient(app, client=("203.0.113.50", 5000)) as client:  # not a listed proxy
        assert statuses(client, others) == [200, 200, 429]


def test_bad_settings_are_refused(tmp_path: Path) -> None:
    for public in ("kamisado.example", "ftp://kamisado.example", "https://kamisado.example/sub",
                   "https://kamisado.example:99999"):
        with pytest.raises(ValueError):
            create_app("sqlite://", workers=0, public_url=public)
        refused(web("--public-url", public, "--db", str(tmp_path / "g.db")), "--public-url")
    for hosts in ("", "proxy.internal", "10.0.0.1, 10.0.0.0/33"):
        with pytest.raises(ValueError):
            create_app("sqlite://", workers=0, forwarded_allow_ips=hosts)
    refused(web("--forwarded-allow-ips", "proxy.internal", "--db", str(tmp_path / "g.db")),
            "--forwarded-allow-ips", "'proxy.internal'")


@pytest.fixture
def real(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[int]:
    """``kamisado web`` on a port of its own, with the test's arguments."""
    proc, port = start(["--db", str(tmp_path / "games.db"), *request.param], tmp_path)
    try:
        yield int(port)
    finally:
        stop_process(proc)


def post_forwarded(port: int, forwarded: str) -> tuple[int, dict[str, str]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("POST", "/api/games", body=json.dumps({}),
                     headers={"Content-Type": "application/json", "X-Forwarded-For": forwarded,
                              "X-Forwarded-Proto": "https"})
        answer = conn.getresponse()
        answer.read()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}
    finally:
        conn.close()


@pytest.mark.parametrize("real", [[]], indirect=True)
def test_the_real_server_believes_no_forwarded_header_by_default(real: int) -> None:
    # uvicorn's own default believes localhost's X-Forwarded-For: kamisado web turns it off
    burst = LIMITS["create"].burst
    got = [post_forwarded(real, f"198.51.100.{i + 1}")[0] for i in range(burst + 1)]
    assert got == [200] * burst + [429]


@pytest.mark.parametrize("real", [["--forwarded-allow-ips", "127.0.0.1", "--public-url", PUBLIC]], indirect=True)
def test_the_real_server_behind_its_proxy(real: int) -> None:
    burst = LIMITS["create"].burst
    got = [post_forwarded(real, f"198.51.100.{i + 1}") for i in range(burst + 1)]
    assert [status for status, _ in got] == [200] * (burst + 1)  # each client its own bucket
    assert all(h["strict-transport-security"] == "max-age=31536000" for _, h in got)
    conn = http.client.HTTPConnection("127.0.0.1", real, timeout=30)
    conn.request("GET", "/", headers={"Host": "evil.example"})
    answer = conn.getresponse()
    page = answer.read().decode()
    assert "secure" in answer.getheader("set-cookie", "").lower()
    assert "evil.example" not in page and f'content="{PUBLIC}/static/og.png"' in page
