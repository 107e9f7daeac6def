"""Pictures of a game (issue "Pictures people would rather look at than
read"): the board as SVG and PNG, the match as a GIF, the evaluation graph,
and the share page's link preview; never a seat's token in any of them."""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image
from starlette.testclient import TestClient

from kamisado.pictures import svg
from kamisado.rules import record
from kamisado.rules.match import Match
from kamisado.web.site.server import create_app

QUICK_WIN = ["a1-a4", "e8-e5", "a4-e8"]
SVG = "{http://www.w3.org/2000/svg}"


def quick_match(moves: list[str]) -> Match:
    m = Match(1)
    for mv in moves:
        m.apply(mv)
    return m


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(str(tmp_path / "games.db"), workers=0)) as c:
        yield c


def upload(client: TestClient, moves: list[str]) -> dict[str, object]:
    text = record.write(record.Record.new(quick_match(moves), black="Ann", gold="Bo"))
    r = client.post("/api/records", content=text)
    assert r.status_code == 200, r.text
    return dict(r.json())


def online_game(client: TestClient) -> dict[str, object]:
    r = client.post("/api/games", json={"black": "human", "gold": "human", "target": 1, "online": True})
    assert r.status_code == 200, r.text
    return dict(r.json())


def tokens_of(game: dict[str, object]) -> list[str]:
    tokens = game["tokens"]
    assert isinstance(tokens, dict) and tokens
    return [str(t) for t in tokens.values()]


def test_the_board_svg_is_the_games_position_with_its_last_move(client: TestClient) -> None:
    g = upload(client, QUICK_WIN[:2])
    r = client.get(f"/api/games/{g['id']}/board.svg")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("image/svg+xml")
    assert "max-age" in r.headers["cache-control"]
    root = ET.fromstring(r.text)
    assert root.tag == f"{SVG}svg" and root.get("width") == "400"
    pos = quick_match(QUICK_WIN[:2]).position
    assert r.text == svg.board(pos, size=400, title=f"Kamisado: {quick_match([]).name}", **svg.marks(pos))
    for token in tokens_of(g):
        assert token not in r.text


def test_the_board_png_has_the_size_asked_for_and_the_size_is_bounded(client: TestClient) -> None:
    g = upload(client, QUICK_WIN)
    r = client.get(f"/api/games/{g['id']}/board.png?size=200")
    assert r.status_code == 200 and r.headers["content-type"] == "image/png"
    with Image.open(io.BytesIO(r.content)) as im:
        assert im.format == "PNG" and im.size == (200, 200)
    for token in tokens_of(g):
        assert token.encode() not in r.content
    assert client.get(f"/api/games/{g['id']}/board.png?size=5000").status_code == 400
    assert client.get(f"/api/games/{g['id']}/board.svg?size=x").status_code == 400
    assert client.get("/api/games/nosuchgame/board.png").status_code == 404


def test_the_gif_has_a_frame_for_every_position(client: TestClient) -> None:
    g = upload(client, QUICK_WIN)
    r = client.get(f"/api/games/{g['id']}/match.gif?size=160")
    assert r.status_code == 200 and r.headers["content-type"] == "image/gif"
    assert "attachment" in r.headers["content-disposition"]
    with Image.open(io.BytesIO(r.content)) as im:
        assert im.format == "GIF" and im.n_frames == 1 + len(QUICK_WIN)
        assert im.size[0] == 160
    for token in tokens_of(g):
        assert token.encode() not in r.content
    assert client.get(f"/api/games/{g['id']}/match.gif?size=4000").status_code == 400


def test_an_online_games_pictures_and_share_page_hold_no_token(client: TestClient) -> None:
    g = online_game(client)
    tokens = tokens_of(g)
    assert len(set(tokens)) == 2
    for path in ("board.svg", "board.png", "match.gif"):
        r = client.get(f"/api/games/{g['id']}/{path}")
        assert r.status_code == 200, path
        for token in tokens:
            assert token.encode() not in r.content, path
    page = client.get(f"/game/{g['id']}").text
    for token in tokens:
        assert token not in page


def _meta(html: str) -> dict[str, str]:
    return {m[1]: m[2] for m in re.finditer(r'<meta (?:property|name)="([^"]+)" content="([^"]*)">', html)}


def test_the_share_page_previews_the_games_board(client: TestClient) -> None:
    g = upload(client, QUICK_WIN)
    r = client.get(f"/game/{g['id']}")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    meta = _meta(r.text)
    # no public URL (--public-url): a path on this site, nothing taken from the request's Host
    assert meta["og:image"] == f"/api/games/{g['id']}/board.png"
    assert meta["og:title"] == "Kamisado: Ann – Bo"
    assert meta["og:description"] and meta["og:image:alt"]
    assert meta["twitter:card"] == "summary_large_image"
    for token in tokens_of(g):
        assert token not in r.text
    assert '<script type="module" src="/static/js/main.js">' in r.text  # the page itself
    assert client.get("/game/nosuchgame").status_code == 404
    # the landing page has a preview of its own
    home = _meta(client.get("/").text)
    assert home["og:image"] == "/static/og.png"
    assert client.get("/static/og.png").headers["content-type"] == "image/png"
    assert set(home) == set(meta)


def test_the_evaluation_graph_has_a_point_for_every_step(tmp_path: Path) -> None:
    with TestClient(create_app(str(tmp_path / "games.db"), workers=1)) as client:
        g = upload(client, QUICK_WIN)
        r = client.get(f"/api/games/{g['id']}/evaluations.svg")
        assert r.status_code == 200, r.text
        assert r.headers["content-type"].startswith("image/svg+xml")
        root = ET.fromstring(r.text)
        plies = [c.get("data-ply") for c in root.iter(f"{SVG}circle") if "point" in (c.get("class") or "")]
        steps = client.get(f"/api/games/{g['id']}/steps").json()["steps"]
        assert plies == [str(i) for i in range(len(steps))] == ["0", "1", "2", "3"]
        for token in tokens_of(g):
            assert token not in r.text
        assert root.get("width") == "720" and "Black wins in" in r.text
        # a phone's review asks for the width it shows the graph at, in its language
        hu = client.get(f"/api/games/{g['id']}/evaluations.svg?width=360&lang=hu")
        root = ET.fromstring(hu.text)
        assert root.get("width") == "360" and root.get("viewBox", "").split()[2] == "360"
        texts = [t.text or "" for t in root.iter(f"{SVG}text")]
        assert "F nyer" in texts and "értékelés (Fekete +)" in texts and "B wins" not in texts
        assert "Fekete +1 (1-0)" in texts  # the round's result, with the side's name translated
        sizes = {float(e.get("font-size") or 0) for e in root.iter() if e.get("font-size")}
        assert sizes and min(sizes) >= 11
        assert client.get(f"/api/games/{g['id']}/evaluations.svg?width=99").status_code == 400


def test_the_evaluation_graph_needs_the_engine(client: TestClient) -> None:
    g = upload(client, QUICK_WIN)
    assert client.get(f"/api/games/{g['id']}/evaluations.svg").status_code == 503


def test_the_pictures_are_rate_limited(tmp_path: Path) -> None:
    from kamisado.web.edge.guard import LIMITS

    with TestClient(create_app(str(tmp_path / "games.db"), workers=0, limits=LIMITS)) as client:
        g = upload(client, QUICK_WIN[:1])
        codes = [client.get(f"/api/games/{g['id']}/match.gif?size=120").status_code
                 for _ in range(LIMITS["gif"].burst + 1)]
        assert codes[:-1] == [200] * LIMITS["gif"].burst and codes[-1] == 429
