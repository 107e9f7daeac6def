"""The puzzle trainer (docs/web.md, "Puzzles"): moves judged on the server,
Glicko-2 ratings of players and puzzles, streaks, the set the migration
loads, and a few generated puzzles proven again by the solver."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from starlette.testclient import TestClient

from kamisado.lessons import load_puzzle_set, puzzle_step
from kamisado.rules.position import Position
from kamisado.web.basics.ratings import Rating, rate_puzzle
from kamisado.web.site.puzzles import KINDS, STREAK_STEP
from kamisado.web.site.server import create_app
from kamisado.web.store.schema import puzzle_attempts, puzzle_ratings, puzzles
from kamisado.web.store.storage import Store
from tests.test_web_controls import browser, sign_up

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

#: p01-w1: Gold wins in 1 with h6-h1 (the only winning move); h6-h5 does not.
P01 = "p01-w1"


@pytest.fixture(scope="module")
def app_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, str]]:
    db = str(tmp_path_factory.mktemp("puzzles") / "games.db")
    app = create_app(db, workers=0, limits={})  # many moves from one address, at test speed
    yield app, db


@pytest.fixture
def client(app_db: tuple[Any, str]) -> Iterator[TestClient]:
    """A new browser (a new anonymous player) on the module's server."""
    with TestClient(app_db[0]) as c:
        c.get("/")
        yield c


def attempt(c: TestClient, puzzle: str) -> dict[str, Any]:
    r = c.post(f"/api/puzzles/{puzzle}/attempts")
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def move(c: TestClient, att: int, mv: str, status: int = 200) -> dict[str, Any]:
    r = c.post(f"/api/puzzles/attempts/{att}", json={"move": mv})
    assert r.status_code == status, r.text
    out: dict[str, Any] = r.json()
    return out


def a_puzzle(c: TestClient, pred: Any) -> dict[str, Any]:
    """The easiest stored puzzle whose row satisfies ``pred``."""
    for p in load_puzzle_set():
        if pred(p):
            return p
    raise AssertionError("no such puzzle in the set")


def last_puzzle(pred: Any) -> dict[str, Any]:
    """The hardest stored puzzle whose row satisfies ``pred`` (one the tests
    that read a puzzle's rating do not use)."""
    found = [p for p in load_puzzle_set() if pred(p)]
    assert len(found) > 1, "no such puzzle in the set"
    return found[-1]


# -- judging ----------------------------------------------------------------------------


def solution(c: TestClient, att: int, status: int = 200) -> dict[str, Any]:
    r = c.post(f"/api/puzzles/attempts/{att}/solution")
    assert r.status_code == status, r.text
    out: dict[str, Any] = r.json()
    return out


def test_a_wrong_move_is_refused_at_once_without_the_answer(client: TestClient) -> None:
    att = attempt(client, P01)
    assert "solution" not in att["puzzle"] and "accepted" not in att["puzzle"]
    r = move(client, att["attempt"], "h6-h5")
    assert r["result"] == "wrong"
    assert "h6-h1" not in json.dumps(r)  # no right move, no solution: the retry stays worth it
    assert r["reply"] is None  # no defence played after a wrong move
    # the attempt is over: another move changes nothing
    again = client.post(f"/api/puzzles/attempts/{att['attempt']}", json={"move": "h6-h1"})
    assert again.status_code == 409
    # asked for, the answer comes
    shown = solution(client, att["attempt"])
    assert shown["right"] == ["h6-h1"] and shown["solution"] == ["h6-h1"]
    assert shown["state"] == "failed" and shown["ratings"] is None  # it was rated at the miss


def test_asking_for_the_solution_fails_a_rated_attempt(client: TestClient) -> None:
    sign_up(client, "peeker")
    p = last_puzzle(lambda p: p["win_in"] == 3 and p["kind"] != "fill" and p["id"] != P01)
    att = attempt(client, p["id"])
    assert att["rated"] is True
    shown = solution(client, att["attempt"])
    assert shown["solution"] == p["solution"] and shown["right"] == p["accepted"]
    assert shown["state"] == "failed" and shown["rated"] is True
    assert shown["ratings"]["player"]["rating"] < 1500  # counted as a miss
    assert client.get("/api/me/puzzles").json()["rating"]["rating"] == shown["ratings"]["player"]["rating"]
    move(client, att["attempt"], p["solution"][0], 409)  # over: no move after it
    assert solution(client, att["attempt"])["ratings"] is None  # asking again costs nothing more
    other = TestClient(client.app)
    other.get("/")
    solution(other, att["attempt"], 404)  # another player's attempt
    solution(client, 10**11, 404)
    assert client.post("/api/puzzles/attempts/x1/solution").status_code == 404


def test_the_text_and_source_line_come_in_the_pages_language(client: TestClient) -> None:
    seeded = a_puzzle(None, lambda p: p["source"]["game"].startswith("seed "))
    for lang, head, source in (
        ("en", "to move", "between two computer levels"),
        ("de", "am Zug", "zweier Computerstufen"),
        ("hu", "lép", "két számítógépes szint"),
    ):
        view = client.get(f"/api/puzzles/{seeded['id']}?lang={lang}").json()
        assert head in view["text"] and source in view["source"]["text"], view
        assert "seed" not in json.dumps(view)  # no generator seeds shown
        started = client.post(f"/api/puzzles/{P01}/attempts?lang={lang}").json()
        assert head in started["puzzle"]["text"]
    played = a_puzzle(None, lambda p: ", round " in p["source"]["game"])
    text = client.get(f"/api/puzzles/{played['id']}").json()["source"]["text"]
    assert text.startswith("From a ") and ", round " in text and ", move " in text, text
    fig = a_puzzle(None, lambda p: p["source"]["game"].startswith("rulebook fig"))
    assert client.get(f"/api/puzzles/{fig['id']}?lang=de").json()["source"]["text"].startswith(
        "Aus der Spielregel, Abbildung ")


def test_a_puzzles_picture_is_its_start_position(client: TestClient) -> None:
    r = client.get(f"/api/puzzles/{P01}/board.svg?size=120")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert r.text.lstrip().startswith("<svg") and 'width="120"' in r.text
    assert "max-age" in r.headers["cache-control"]
    assert client.get(f"/api/puzzles/{P01}/board.svg?size=9000").status_code == 400
    assert client.get("/api/puzzles/nope/board.svg").status_code == 404


def test_bad_moves_get_a_clear_error_and_change_nothing(client: TestClient) -> None:
    att = attempt(client, P01)
    for bad in ("a1-a9", "h6-a1", "", 7):
        r = client.post(f"/api/puzzles/attempts/{att['attempt']}", json={"move": bad})
        assert r.status_code == 400, r.text
        assert r.json()["error"]
    assert move(client, att["attempt"], "h6-h1")["result"] == "solved"  # still playing
    assert client.post("/api/puzzles/nope/attempts").status_code == 404
    assert client.post("/api/puzzles/attempts/999999", json={"move": "h6-h1"}).status_code == 404
    assert client.get("/api/puzzles?kind=mate").status_code == 400
    # numbers: ASCII digits only ("²" is a digit to str.isdigit, not to int),
    # and no offset too large for the database (both were 500s: Schemathesis)
    for query in ("offset=%C2%B2", "limit=%C2%B2", "offset=" + "9" * 30, "limit=-1"):
        assert client.get(f"/api/puzzles?{query}").status_code == 400, query
    assert client.get("/api/puzzles/attempts/%C2%B2/solution").status_code != 500


def test_an_attempt_is_its_players_only(client: TestClient) -> None:
    att = attempt(client, P01)
    other = browser(client)
    r = other.post(f"/api/puzzles/attempts/{att['attempt']}", json={"move": "h6-h1"})
    assert r.status_code == 404


def test_every_winning_first_move_counts_not_only_the_stored_lines() -> None:
    p = a_puzzle(None, lambda p: p["win_in"] is not None and len(p["accepted"]) >= 2
                 and p["kind"] != "fill")
    side = Position(p["kpn"]).turn
    for mv in p["accepted"]:
        step = puzzle_step(p["kpn"], mv, side, p["win_in"], p["accepted"])
        assert step["right"], mv
    other = [mv for mv in p["accepted"] if mv != p["solution"][0]][0]
    # and the solver, not the list, agrees (what later moves are judged by)
    assert puzzle_step(p["kpn"], other, side, p["win_in"])["right"]


def test_a_second_winning_move_is_accepted_over_http(client: TestClient) -> None:
    p = a_puzzle(None, lambda p: p["win_in"] is not None and len(p["accepted"]) >= 2
                 and p["kind"] != "fill")
    other = [mv for mv in p["accepted"] if mv != p["solution"][0]][0]
    att = attempt(client, p["id"])
    r = move(client, att["attempt"], other)
    assert r["result"] in ("right", "solved")


def test_a_right_move_is_answered_and_the_puzzle_ends_solved(client: TestClient) -> None:
    p = a_puzzle(None, lambda p: p["win_in"] == 3 and p["kind"] != "fill")
    att = attempt(client, p["id"])
    r = move(client, att["attempt"], p["solution"][0])
    assert r["result"] == "right"
    assert r["reply"] is not None and r["left"] == 1
    pos = Position(r["after"])
    assert Position(r["kpn"]) != pos  # the defender moved
    # the winning move from there, whatever the defence was
    from kamisado.lessons import puzzle_reply

    win = puzzle_reply(r["kpn"])
    end = move(client, att["attempt"], win)
    assert end["result"] == "solved"
    assert end["solution"] == p["solution"]
    row = client.app.state.puzzle_book.attempt(att["attempt"])  # type: ignore[attr-defined]
    assert row["state"] == "solved"
    assert row["moves"].split() == [p["solution"][0], r["reply"], win]


def test_a_later_move_that_does_not_win_within_the_bound_is_wrong(client: TestClient) -> None:
    p = a_puzzle(None, lambda p: p["win_in"] == 3 and p["kind"] != "fill")
    att = attempt(client, p["id"])
    r = move(client, att["attempt"], p["solution"][0])
    pos = Position(r["kpn"])
    side = 0 if p["side"] == "b" else 1
    losing = None
    for m in pos.legal_moves:
        pos.push(m)
        won = pos.outcome is not None and pos.outcome.winner == side
        pos.pop()
        if not won:
            losing = str(m)
            break
    if losing is None:
        pytest.skip("every move wins there")
    end = move(client, att["attempt"], losing)
    assert end["result"] == "wrong" and "right" not in end and "solution" not in end
    right = solution(client, att["attempt"])["right"]
    assert right and right[0] != losing  # the solver's winning move from there
    after = Position(r["kpn"])
    after.push_move(right[0])
    assert after.outcome is not None and after.outcome.winner == side


def test_a_fill_and_a_defence_are_one_choice(client: TestClient) -> None:
    fill = a_puzzle(None, lambda p: p["kind"] == "fill")
    (good,) = fill["accepted"]
    bad = "right" if good == "left" else "left"
    att = attempt(client, fill["id"])
    assert set(att["puzzle"]["fill"]) == {"left", "right"}
    assert client.post(f"/api/puzzles/attempts/{att['attempt']}", json={"move": "c1-c5"}).status_code == 400
    r_att = att["attempt"]
    r = move(client, r_att, bad)
    assert r["result"] == "wrong" and "right" not in r and r["kpn"] == fill["fill"][bad]
    assert solution(client, r_att)["right"] == [good]
    r = move(client, attempt(client, fill["id"])["attempt"], good)
    assert r["result"] == "solved"
    defence = a_puzzle(None, lambda p: p["kind"] == "only_defence")
    r = move(client, attempt(client, defence["id"])["attempt"], defence["accepted"][0])
    assert r["result"] == "solved" and r["reply"] is None


# -- ratings --------------------------------------------------------------------------------


def test_a_rated_attempt_moves_both_ratings_and_a_retry_does_not(
    client: TestClient, app_db: tuple[Any, str]
) -> None:
    sign_up(client, "puzzler")
    p = a_puzzle(None, lambda p: p["win_in"] == 1 and p["id"] != P01)
    att = attempt(client, p["id"])
    assert att["rated"] is True
    before = client.get(f"/api/puzzles/{p['id']}").json()
    # the stored rating, not the page's rounded one: another test of the
    # module's database may have rated this puzzle before (in any order)
    engine = sa.create_engine(f"sqlite:///{app_db[1]}")
    with engine.connect() as conn:
        row = conn.execute(sa.select(puzzles).where(puzzles.c.id == p["id"])).mappings().one()
    engine.dispose()
    assert round(row["rating"]) == before["rating"]
    wrong = next(str(m) for m in Position(p["kpn"]).legal_moves if str(m) not in p["accepted"])
    r = move(client, att["attempt"], wrong)
    assert r["result"] == "wrong" and r["rated"] is True
    stored = Rating(row["rating"], row["rd"], row["vol"], row["attempts"])
    mine, theirs = rate_puzzle(Rating(), stored, False)
    assert r["ratings"]["player"]["rating"] == round(mine.rating) < 1500
    assert r["ratings"]["puzzle"]["rating"] == round(theirs.rating) > before["rating"]
    after = client.get(f"/api/puzzles/{p['id']}").json()
    assert after["rating"] == round(theirs.rating) and after["attempts"] == before["attempts"] + 1
    me = client.get("/api/me/puzzles").json()
    assert me["rating"]["rating"] == round(mine.rating)
    # the retry is not rated: solved, and neither rating moves
    again = attempt(client, p["id"])
    assert again["rated"] is False
    solved = move(client, again["attempt"], p["accepted"][0])
    assert solved["result"] == "solved" and solved["rated"] is False
    assert solved["ratings"]["player"] is None
    assert client.get("/api/me/puzzles").json()["rating"]["rating"] == round(mine.rating)
    assert client.get(f"/api/puzzles/{p['id']}").json()["rating"] == round(theirs.rating)
    # the player page lists the puzzles solved and the puzzle rating
    me_id = client.get("/api/me").json()["id"]
    page = client.get(f"/api/players/{me_id}/puzzles").json()
    assert page["solved"] == 1 and page["rating"]["rating"] == round(mine.rating)


def test_a_second_start_gets_the_same_rated_attempt_back(client: TestClient) -> None:
    sign_up(client, "clicker")
    p = last_puzzle(lambda p: p["win_in"] == 1)  # one no other test rates
    first = attempt(client, p["id"])
    assert first["rated"] is True
    again = attempt(client, p["id"])  # a double click: no move yet, the same attempt
    assert (again["attempt"], again["rated"]) == (first["attempt"], True)
    assert client.get("/api/me/puzzles").json()["rating"] is None  # it cost nothing
    solved = move(client, first["attempt"], p["accepted"][0])
    assert solved["result"] == "solved" and solved["rated"] is True
    assert client.get("/api/me/puzzles").json()["rating"]["rating"] > 1500
    assert attempt(client, p["id"])["rated"] is False  # a retry once it is over


def test_a_rated_attempt_left_after_a_move_counts_as_failed_on_a_retry(client: TestClient) -> None:
    sign_up(client, "leaver")
    p = last_puzzle(lambda p: p["win_in"] == 3 and p["kind"] != "fill")
    first = attempt(client, p["id"])
    assert first["rated"] is True
    assert move(client, first["attempt"], p["solution"][0])["result"] == "right"
    assert client.get("/api/me/puzzles").json()["rating"] is None
    again = attempt(client, p["id"])  # the first was left half way
    assert again["rated"] is False and again["attempt"] != first["attempt"]
    me = client.get("/api/me/puzzles").json()
    assert me["rating"]["rating"] < 1500 and me["attempts"] == 1
    assert client.post(f"/api/puzzles/attempts/{first['attempt']}",
                       json={"move": p["accepted"][0]}).status_code == 409


def test_an_anonymous_players_attempt_is_stored_and_not_rated(client: TestClient,
                                                               app_db: tuple[Any, str]) -> None:
    p = a_puzzle(None, lambda p: p["win_in"] == 1 and p["id"] not in (P01,))
    att = attempt(client, p["id"])
    assert att["rated"] is False
    r = move(client, att["attempt"], p["accepted"][0])
    assert r["result"] == "solved" and r["ratings"]["player"] is None
    me = client.get("/api/me").json()["id"]
    engine = sa.create_engine(f"sqlite:///{app_db[1]}")
    with engine.connect() as conn:
        rows = conn.execute(sa.select(puzzle_attempts).where(puzzle_attempts.c.player == me)).all()
        rating = conn.execute(sa.select(puzzle_ratings).where(puzzle_ratings.c.player == me)).all()
    engine.dispose()
    assert len(rows) == 1 and rows[0].state == "solved" and not rows[0].rated
    assert rating == []


# -- streaks and the next puzzle ---------------------------------------------------------------


def test_a_streak_rises_in_difficulty_and_ends_with_a_miss(client: TestClient) -> None:
    s = client.post("/api/puzzles/streak").json()
    sid = s["streak"]
    assert s["count"] == 0 and s["rated"] is False
    ratings = []
    for n in range(3):
        p = s["puzzle"]
        ratings.append(p["rating"])
        full = next(q for q in load_puzzle_set() if q["id"] == p["id"])
        r = move(client, s["attempt"], full["accepted"][0] if full["kind"] != "fill" else full["accepted"][0])
        while r["result"] == "right":  # a longer puzzle: go on winning
            from kamisado.lessons import puzzle_reply

            r = move(client, s["attempt"], puzzle_reply(r["kpn"]))
        assert r["result"] == "solved", r
        assert r["streak"]["count"] == n + 1
        s = client.post(f"/api/puzzles/streak/{sid}/next").json()
        assert s["count"] == n + 1
    ratings.append(s["puzzle"]["rating"])
    assert all(b >= a + STREAK_STEP - 1 for a, b in zip(ratings, ratings[1:], strict=False)), ratings
    # a miss ends it
    full = next(q for q in load_puzzle_set() if q["id"] == s["puzzle"]["id"])
    if full["kind"] == "fill":
        wrong = "right" if full["accepted"] == ["left"] else "left"
    else:
        wrong = next(str(m) for m in Position(full["kpn"]).legal_moves if str(m) not in full["accepted"])
    r = move(client, s["attempt"], wrong)
    assert r["result"] == "wrong"
    assert r["streak"] == {"count": 3, "over": True, "best": 3}
    # nothing to retry: the answer comes with the miss
    assert r["solution"] == full["solution"] and r["right"] == full["accepted"]
    over = client.post(f"/api/puzzles/streak/{sid}/next")
    assert over.status_code == 409 and over.json()["count"] == 3
    assert client.get("/api/me/puzzles").json()["best_streak"] == 3


def test_the_next_puzzle_is_near_the_rating_and_not_tried(client: TestClient) -> None:
    first = client.get("/api/puzzles/next").json()["puzzle"]
    nearest = min(abs(p["rating"] - 1500) for p in load_puzzle_set())
    assert abs(first["rating"] - 1500) <= nearest + 1
    attempt(client, first["id"])
    assert client.get("/api/puzzles/next").json()["puzzle"]["id"] != first["id"]
    hard = client.get("/api/puzzles/next?rating=2400").json()["puzzle"]
    assert abs(hard["rating"] - 2400) <= min(abs(p["rating"] - 2400) for p in load_puzzle_set()) + 1
    assert client.get("/api/puzzles/next?rating=abc").status_code == 400
    defence = client.get("/api/puzzles/next?kind=only_defence&rating=1500").json()["puzzle"]
    of_kind = [p["rating"] for p in load_puzzle_set() if p["kind"] == "only_defence"]
    assert of_kind  # the set has puzzles of the kind: the answer is one of them
    assert defence is not None and defence["kind"] == "only_defence"
    assert abs(defence["rating"] - 1500) <= min(abs(r - 1500) for r in of_kind) + 1


def test_the_list_filters_by_kind_and_theme(client: TestClient) -> None:
    every = client.get("/api/puzzles?limit=100").json()
    assert every["total"] == len(load_puzzle_set())
    assert [p["rating"] for p in every["puzzles"]] == sorted(p["rating"] for p in every["puzzles"])
    for kind in KINDS:
        got = client.get(f"/api/puzzles?kind={kind}&limit=100").json()
        assert got["total"] == sum(p["kind"] == kind for p in load_puzzle_set())
        assert all(p["kind"] == kind for p in got["puzzles"])
    sumo = client.get("/api/puzzles?theme=sumo&limit=100").json()
    assert sumo["total"] == sum("sumo" in p["themes"] for p in load_puzzle_set()) > 0
    assert all("sumo" in p["themes"] for p in sumo["puzzles"])


# -- the set ------------------------------------------------------------------------------------


def test_the_migration_loads_the_set_with_kinds_themes_and_sources(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "fresh.db"))
    try:
        with store.engine.connect() as conn:
            rows = conn.execute(sa.select(puzzles)).mappings().all()
    finally:
        store.close()
    ids = {r["id"] for r in rows}
    assert len(rows) >= 500
    old = json.loads((ROOT / "kamisado/data/puzzles.json").read_text())["puzzles"]
    assert {p["id"] for p in old} <= ids and len(old) == 40
    assert {r["kind"] for r in rows} >= {"win_in", "only_win", "sumo_push", "only_defence"}
    for r in rows:
        assert r["themes"] is not None and r["source_game"] and r["origin"] in (
            "self-play", "record", "rulebook")
        assert json.loads(r["accepted"]) and json.loads(r["solution"])
        assert 600 <= r["initial"] <= 2600
    # the real games: the rulebook's figures (the stored records in tests/data are 2 moves long)
    assert {r["origin"] for r in rows} >= {"self-play", "rulebook"}


def test_a_few_generated_puzzles_are_proven_again() -> None:
    import make_puzzle_set

    seen: set[tuple[str, bool]] = set()
    for p in load_puzzle_set():
        group = (p["kind"], p["win_in"] is None)  # a kind's one-move puzzles apart
        if group in seen or p["id"].startswith("p"):
            continue
        seen.add(group)
        assert make_puzzle_set.check_puzzle(p), p["id"]
    assert {kind for kind, _ in seen} == set(KINDS)


def test_the_trainer_on_postgresql(pg_url: str) -> None:
    """The same calls on PostgreSQL: the set loaded, a theme filter, a rated
    miss that moves both ratings (row locks and all)."""
    import secrets

    with TestClient(create_app(pg_url, workers=0)) as c:
        c.get("/")
        sign_up(c, "pg" + secrets.token_hex(4))
        assert c.get("/api/puzzles?limit=1").json()["total"] >= 40
        assert c.get(f"/api/puzzles/{P01}").json()["kind"] in KINDS
        sumo = c.get("/api/puzzles?theme=sumo&limit=100").json()
        assert sumo["total"] > 0 and all("sumo" in p["themes"] for p in sumo["puzzles"])
        p = c.get("/api/puzzles/next?kind=win_in").json()["puzzle"]
        full = next(q for q in load_puzzle_set() if q["id"] == p["id"])
        att = attempt(c, p["id"])
        assert att["rated"] is True
        wrong = next(str(m) for m in Position(full["kpn"]).legal_moves if str(m) not in full["accepted"])
        r = move(c, att["attempt"], wrong)
        assert r["result"] == "wrong" and r["ratings"]["player"]["change"] < 0
        assert c.get("/api/me/puzzles").json()["rating"]["rating"] == r["ratings"]["player"]["rating"]
