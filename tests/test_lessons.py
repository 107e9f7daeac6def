"""Lessons (rulebook figures 2-10), solver puzzles and the page translations.

Every position, move, line-up and puzzle line in the shipped data is checked
against the rules core, the match flow and the solver, so a lesson can never
show an illegal move or a puzzle that is not a forced win.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from kamisado import lessons as lessons_mod
from kamisado.engine import clear_tables, solve
from kamisado.lessons import (
    LANGS,
    lessons_json,
    load_lessons,
    load_puzzles,
    puzzle_reply,
    puzzles_json,
)
from kamisado.rules.board import MalformedError, Move, parse_square
from kamisado.rules.match import Match
from kamisado.rules.position import Position

ROOT = Path(__file__).resolve().parent.parent
I18N = ROOT / "kamisado" / "web" / "static" / "i18n"
RULEBOOK = json.loads((ROOT / "tests" / "data" / "rulebook.json").read_text())

LESSONS = load_lessons()
STEPS = [
    pytest.param(lesson, i, id=f"{lesson['id']}-{i}")
    for lesson in LESSONS
    for i in range(len(lesson["steps"]))
]
KINDS = {"show", "move", "play", "fill", "puzzle"}
STEP_KEYS = {"kind", "kpn", "text", "highlight", "move", "hint", "fill", "solution"}
NEEDED = {
    "show": set(),
    "move": {"move"},
    "play": {"move", "hint"},
    "fill": {"fill"},
    "puzzle": {"solution"},
}
ONLY = {"move": {"move", "play"}, "hint": {"play"}, "fill": {"fill"}, "solution": {"puzzle"}}


def _steps_of_kind(*kinds: str) -> list[Any]:
    return [
        pytest.param(lesson["steps"][i], id=f"{lesson['id']}-{i}")
        for lesson in LESSONS
        for i in range(len(lesson["steps"]))
        if lesson["steps"][i]["kind"] in kinds
    ]


# -- lessons: structure ---------------------------------------------------------


def test_lessons_are_figures_2_to_10_in_order() -> None:
    assert [lesson["id"] for lesson in LESSONS] == [f"fig{n}" for n in range(2, 11)]
    assert [lesson["figure"] for lesson in LESSONS] == [str(n) for n in range(2, 11)]


def test_lessons_start_from_the_rulebook_positions() -> None:
    """Each lesson opens on its figure's position from tests/data/rulebook.json."""
    for lesson in LESSONS:
        assert lesson["steps"][0]["kpn"] == Position(RULEBOOK[lesson["id"]]["kpn"]).kpn()


@pytest.mark.parametrize(("lesson", "index"), STEPS)
def test_step_shape(lesson: dict[str, Any], index: int) -> None:
    step = lesson["steps"][index]
    assert step["kind"] in KINDS
    assert set(step) <= STEP_KEYS
    assert NEEDED[step["kind"]] <= set(step)
    for key, kinds in ONLY.items():
        if key in step:
            assert step["kind"] in kinds, key
    for square in step.get("highlight", []):
        parse_square(square)


def test_every_lesson_ends_with_its_puzzle() -> None:
    for lesson in LESSONS:
        kinds = [s["kind"] for s in lesson["steps"]]
        assert kinds[-1] == "puzzle", lesson["id"]
        assert "play" in kinds, lesson["id"]  # the learner plays, not only watches


# -- lessons: positions and moves -------------------------------------------------


@pytest.mark.parametrize(("lesson", "index"), STEPS)
def test_step_kpn_parses_and_is_written_back_alike(lesson: dict[str, Any], index: int) -> None:
    kpn = lesson["steps"][index]["kpn"]
    assert len(kpn.split()) == 6
    assert Position(kpn).kpn() == kpn


MOVE_STEPS = [
    pytest.param(lesson, i, id=f"{lesson['id']}-{i}")
    for lesson in LESSONS
    for i in range(len(lesson["steps"]))
    if lesson["steps"][i]["kind"] in ("move", "play")
]


@pytest.mark.parametrize(("lesson", "index"), MOVE_STEPS)
def test_moves_are_legal_and_lead_to_the_next_step(lesson: dict[str, Any], index: int) -> None:
    step = lesson["steps"][index]
    pos = Position(step["kpn"])
    move = Move.from_str(step["move"])
    assert pos.is_legal(move), step["move"]
    assert str(move) == step["move"]  # square form
    pos.push_move(move)
    nxt = lesson["steps"][index + 1]  # a lesson ends with its puzzle, never a move
    assert nxt["kpn"] == pos.kpn()


@pytest.mark.parametrize("step", _steps_of_kind("play"))
def test_play_steps_ask_for_a_choice(step: dict[str, Any]) -> None:
    """A play step's position is in progress; its hint answers any other move."""
    pos = Position(step["kpn"])
    assert pos.outcome is None
    assert step["hint"]["en"] and step["hint"]["en"] != step["text"]["en"]


@pytest.mark.parametrize("step", _steps_of_kind("fill"))
def test_fill_line_ups_are_the_match_rules(step: dict[str, Any]) -> None:
    pos = Position(step["kpn"])
    assert pos.outcome is not None
    match = Match(pos.target, start=step["kpn"])
    assert match.state == "fill"
    assert set(step["fill"]) == {"left", "right"}
    for direction in ("left", "right"):
        assert step["fill"][direction] == match.next_round_start(direction).kpn()


def test_figure7_fill_is_the_rulebook_line_up() -> None:
    """The fill step follows the figure's winning move, and the left line-up
    is the one figure 7(d) shows (Alain: brown, blue, orange, red, ...)."""
    (fill,) = [s for s in next(x for x in LESSONS if x["id"] == "fig7")["steps"]
               if s["kind"] == "fill"]
    pos = Position(RULEBOOK["fig7"]["kpn"])
    pos.push_move(RULEBOOK["fig7"]["moves"][0])
    assert fill["kpn"] == pos.kpn()
    left = Position(fill["fill"]["left"])
    assert left.kpn().split()[0].startswith("u+gyprobn/")


def _check_forced_win(kpn: str, line: list[str], n: int) -> None:
    """``line`` is a win in exactly ``n`` for the side to move of ``kpn``:
    each winning-side move keeps the shortest win, each defence is a longest
    resistance, and the round ends with the side to move winning."""
    pos = Position(kpn)
    side = pos.turn
    assert len(line) == n
    clear_tables()
    first = solve(pos)
    assert (first.winner, first.distance) == (side, n)
    for i, text in enumerate(line):
        assert pos.outcome is None
        pos.push_move(text)
        left = n - i - 1
        if left == 0:
            assert pos.outcome is not None and pos.outcome.winner == side
        else:
            assert pos.outcome is None
            r = solve(pos)
            assert (r.winner, r.distance) == (side, left), (i, text)


@pytest.mark.parametrize("step", _steps_of_kind("puzzle"))
def test_lesson_puzzles_are_shortest_forced_wins(step: dict[str, Any]) -> None:
    _check_forced_win(step["kpn"], step["solution"], len(step["solution"]))


# -- lessons: languages -------------------------------------------------------------


def test_every_text_is_in_every_language() -> None:
    for lesson in LESSONS:
        texts = [lesson["title"]] + [s["text"] for s in lesson["steps"]]
        texts += [s["hint"] for s in lesson["steps"] if "hint" in s]
        for t in texts:
            assert set(t) == set(LANGS), t
            assert all(isinstance(t[lang], str) and t[lang].strip() for lang in LANGS), t
            # translated, not copied
            assert t["de"] != t["en"] and t["hu"] != t["en"], t["en"]


@pytest.mark.parametrize("lang", LANGS)
def test_lessons_json_gives_the_schema_in_one_language(lang: str) -> None:
    out = lessons_json(lang)
    assert json.loads(json.dumps(out)) == out
    assert [x["id"] for x in out] == [x["id"] for x in LESSONS]
    for web, raw in zip(out, LESSONS, strict=True):
        assert set(web) == {"id", "figure", "title", "steps"}
        assert web["title"] == raw["title"][lang]
        for w, r in zip(web["steps"], raw["steps"], strict=True):
            assert set(w) == set(r)
            assert w["text"] == r["text"][lang]
            if "hint" in r:
                assert w["hint"] == r["hint"][lang]
            for key in ("kpn", "highlight", "move", "fill", "solution"):
                assert w.get(key) == r.get(key)


def test_lessons_json_is_a_fresh_copy() -> None:
    out = lessons_json("en")
    out[0]["steps"].clear()
    out[0]["steps"] = []
    assert lessons_json("en")[0]["steps"]


@pytest.mark.parametrize("bad", ["fr", "EN", "", "english"])
def test_unknown_language_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match=r"expected a language \(en, de, hu\), found"):
        lessons_json(bad)
    with pytest.raises(ValueError, match=r"expected a language"):
        puzzles_json(bad)


def test_missing_translation_falls_back_to_english(monkeypatch: pytest.MonkeyPatch) -> None:
    kpn = "obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0"
    fake = [{
        "id": "x", "figure": "2", "title": {"en": "Title", "de": "Titel"},
        "steps": [{"kind": "play", "kpn": kpn, "move": "c1-c5",
                   "text": {"en": "Go", "hu": "Menj"}, "hint": {"en": "Hint", "de": ""}}],
    }]
    monkeypatch.setattr(lessons_mod, "load_lessons", lambda: fake)
    (de,) = lessons_json("de")
    assert de["title"] == "Titel"
    assert de["steps"][0]["text"] == "Go" and de["steps"][0]["hint"] == "Hint"
    (hu,) = lessons_json("hu")
    assert hu["title"] == "Title" and hu["steps"][0]["text"] == "Menj"


# -- puzzles -------------------------------------------------------------------------

PUZZLES = load_puzzles()


def test_puzzle_set_spread() -> None:
    assert 30 <= len(PUZZLES) <= 60
    assert len({p["id"] for p in PUZZLES}) == len(PUZZLES)
    # each board once, whatever the match type
    assert len({" ".join(p["kpn"].split()[:3]) for p in PUZZLES}) == len(PUZZLES)
    for p in PUZZLES:  # a real choice: at least two first moves that do not win
        assert len(list(Position(p["kpn"]).legal_moves)) - p["winning_first_moves"] >= 2
    assert {p["win_in"] for p in PUZZLES} == {1, 3, 5, 7}
    assert {p["side"] for p in PUZZLES} == {"b", "g"}
    targets = {Position(p["kpn"]).target for p in PUZZLES}
    assert {1, 3} <= targets and len(targets) >= 3  # single rounds and matches
    assert any(any(Position(p["kpn"]).rings) for p in PUZZLES)  # Sumos included
    assert [p["win_in"] for p in PUZZLES] == sorted(p["win_in"] for p in PUZZLES)


@pytest.mark.parametrize("puzzle", PUZZLES, ids=[p["id"] for p in PUZZLES])
def test_puzzle_is_a_forced_win_in_exactly_n(puzzle: dict[str, Any]) -> None:
    pos = Position(puzzle["kpn"])
    assert puzzle["side"] == "bg"[pos.turn]
    assert puzzle["win_in"] in (1, 3, 5, 7)
    assert Position(puzzle["kpn"]).kpn() == puzzle["kpn"]
    _check_forced_win(puzzle["kpn"], puzzle["solution"], puzzle["win_in"])


@pytest.mark.parametrize("lang", LANGS)
def test_puzzles_json_schema_and_texts(lang: str) -> None:
    out = puzzles_json(lang)
    assert json.loads(json.dumps(out)) == out
    assert len(out) == len(PUZZLES)
    for web, raw in zip(out, PUZZLES, strict=True):
        assert set(web) == {"id", "kpn", "side", "win_in", "solution", "text"}
        assert web["solution"] == raw["solution"] and web["kpn"] == raw["kpn"]
        assert str(web["win_in"]) in web["text"]
    english = {p["text"] for p in puzzles_json("en")}
    if lang != "en":
        assert not english & {p["text"] for p in out}


def test_puzzle_reply_is_the_longest_resistance() -> None:
    """After the learner's first winning move, the reply keeps the loss as
    far away as possible: the win still needs exactly the moves left."""
    tried = 0
    for p in PUZZLES:
        if p["win_in"] < 3:
            continue
        pos = Position(p["kpn"])
        pos.push_move(p["solution"][0])
        if pos.turn == Position(p["kpn"]).turn:
            continue  # a push: the winner moves again
        reply = puzzle_reply(pos.kpn())
        assert pos.is_legal(Move.from_str(reply))
        longest = max(_loss_length(pos, m) for m in pos.legal_moves)
        assert _loss_length(pos, Move.from_str(reply)) == longest == p["win_in"] - 1
        tried += 1
        if tried == 6:
            break
    assert tried == 6


def _loss_length(pos: Position, move: Move) -> int:
    """Moves until the loss after ``move`` (``move`` included)."""
    pos.push(move)
    try:
        if pos.outcome is not None:
            return 1
        r = solve(pos, pv=False)
        assert r.distance is not None
        return r.distance + 1
    finally:
        pos.pop()


def test_puzzle_reply_in_a_lesson() -> None:
    # figure 3: Steve's blue has one square; Helmut then wins with pink
    assert puzzle_reply("o1upyrgn/8/8/1P5b/6B1/N6O/8/1GRY1U2 g b 1 0 0") == "h5-h4"
    assert puzzle_reply("o1upyrgn/8/8/1P6/6Bb/N6O/8/1GRY1U2 b p 1 0 0") == "b5-b8"


def test_puzzle_reply_refuses_bad_positions() -> None:
    with pytest.raises(MalformedError):
        puzzle_reply("not a position")
    with pytest.raises(ValueError, match="the round is over"):
        puzzle_reply("oPupyrgn/8/8/8/6Bb/N6O/8/1GRY1U2 g b 1 0 0")


# -- translations of the page ------------------------------------------------------

PLACEHOLDER = re.compile(r"\{[^{}]*\}")


def _keys(tree: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(tree, dict):
        out: dict[str, Any] = {}
        for k, v in tree.items():
            out.update(_keys(v, f"{prefix}{k}."))
        return out
    return {prefix[:-1]: tree}


@pytest.mark.parametrize("lang", ["de", "hu"])
def test_i18n_files_have_exactly_the_english_keys(lang: str) -> None:
    en_path = I18N / "en.json"
    if not en_path.exists():
        pytest.skip("kamisado/web/static/i18n/en.json is not written yet")
    en = _keys(json.loads(en_path.read_text(encoding="utf-8")))
    other = _keys(json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8")))
    assert set(other) == set(en), set(other) ^ set(en)
    for key, text in en.items():
        assert type(other[key]) is type(text), key
        if isinstance(text, str):
            assert other[key].strip(), key
            # the same {placeholders}, so the page can fill them in
            assert sorted(PLACEHOLDER.findall(other[key])) == sorted(
                PLACEHOLDER.findall(text)
            ), key


def _make_puzzles_module() -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "make_puzzles", ROOT / "tools" / "make_puzzles.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_puzzles"] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


def test_make_puzzles_finds_forced_wins_reproducibly() -> None:
    """A small run of the generator: same seed, same puzzles, all sound."""
    tool = _make_puzzles_module()
    first = tool.find(seed=7, count=4, max_games=2, log=False)
    assert first == tool.find(seed=7, count=4, max_games=2, log=False)
    assert first, "two games gave no puzzle"
    for p in first:
        assert p["win_in"] in (1, 3, 5, 7) and p["winning_first_moves"] <= 3
        assert len(list(Position(p["kpn"]).legal_moves)) - p["winning_first_moves"] >= 2
        _check_forced_win(p["kpn"], p["solution"], p["win_in"])
