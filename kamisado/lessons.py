"""Lessons from the rulebook's worked examples, and solver-made puzzles.

The web app teaches the rules with the rulebook's figures 2 to 10, each as a
short lesson of steps, and offers "win in N" puzzles that the solver
(:func:`kamisado.engine.solve`) found in games of the built-in players.  Both
ship inside the package (``kamisado/data/lessons.json`` and
``kamisado/data/puzzles.json``, the latter written by
``tools/make_puzzles.py``) in English, German and Hungarian.

A lesson is ``{"id", "figure", "title", "steps"}``; a step is a dict with
``kind`` (``show``, ``move``, ``play``, ``fill`` or ``puzzle``), ``kpn`` (the
position at the start of the step), ``text`` and, where they apply,
``highlight`` (square names), ``move`` (square form: the move a ``move`` step
animates, or the one a ``play`` step asks for), ``hint`` (shown after any
other move in a ``play`` step), ``fill`` (``{"left": kpn, "right": kpn}``,
both line-ups of the next round) and ``solution`` (a ``puzzle`` step's
winning line, the defence being the solver's longest resistance).

>>> lessons = lessons_json("en")
>>> [lesson["id"] for lesson in lessons][:3]
['fig2', 'fig3', 'fig4']
>>> lessons[1]["steps"][0]["kpn"]
'o1upyrgn/8/8/1P5b/6B1/7O/8/NGRY1U2 b n 1 0 0'
>>> lessons_json("fr")
Traceback (most recent call last):
...
ValueError: expected a language (en, de, hu), found 'fr'

A puzzle is ``{"id", "kpn", "side", "win_in", "solution", "text"}``
(see :func:`puzzles_json`).

:func:`puzzle_reply` is the computer's answer in a puzzle: the solver's
best move for the side to move, which for the losing side is the longest
resistance.  The compiled solver runs without the interpreter lock, on the
tables of the thread's :class:`kamisado.engine.Searcher` (the default one
otherwise); the web server calls it in a worker process of its pool.

>>> puzzle_reply("o1upyrgn/8/8/1P5b/6B1/N6O/8/1GRY1U2 g b 1 0 0")
'h5-h4'
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from kamisado.rules.position import Position

__all__ = [
    "JUDGE_NODES",
    "LANGS",
    "load_lessons",
    "load_puzzle_set",
    "load_puzzles",
    "lessons_json",
    "puzzle_reply",
    "puzzle_step",
    "puzzle_text",
    "puzzles_json",
    "wins_within",
]

#: The languages every lesson and puzzle text is written in (English first).
LANGS: tuple[str, ...] = ("en", "de", "hu")

_DATA = Path(__file__).parent / "data"

#: Step keys copied to the web as they are (``text`` and ``hint`` are translated).
_PLAIN_KEYS = ("highlight", "move", "fill", "solution")


def _check_lang(lang: str) -> str:
    if lang not in LANGS:
        raise ValueError(f"expected a language ({', '.join(LANGS)}), found {lang!r}")
    return lang


def _pick(texts: dict[str, str], lang: str) -> str:
    """``texts[lang]``, or the English text when that translation is missing."""
    text = texts.get(lang)
    return text if text else texts["en"]


@cache
def load_lessons() -> list[dict[str, Any]]:
    """The lessons as stored, with every language's text (``{"en": ..., ...}``).

    Loaded once; callers must not change what they get.
    """
    data: list[dict[str, Any]] = json.loads(
        (_DATA / "lessons.json").read_text(encoding="utf-8")
    )["lessons"]
    return data


@cache
def load_puzzles() -> list[dict[str, Any]]:
    """The puzzles as ``tools/make_puzzles.py`` wrote them (without texts)."""
    data: list[dict[str, Any]] = json.loads(
        (_DATA / "puzzles.json").read_text(encoding="utf-8")
    )["puzzles"]
    return data


@cache
def load_puzzle_set() -> list[dict[str, Any]]:
    """The puzzle trainer's set as ``tools/make_puzzle_set.py`` wrote it
    (``kamisado/data/puzzle_set.json``; the web server loads it into its
    database).  Loaded once; callers must not change what they get."""
    data: list[dict[str, Any]] = json.loads(
        (_DATA / "puzzle_set.json").read_text(encoding="utf-8")
    )["puzzles"]
    return data


def lessons_json(lang: str) -> list[dict[str, Any]]:
    """Every lesson, figures 2 to 10, with its texts in ``lang``.

    ``lang`` is ``'en'``, ``'de'`` or ``'hu'`` (anything else is a
    ``ValueError``); a text not translated falls back to English.  The result
    is new JSON-ready data each call.
    """
    _check_lang(lang)
    out: list[dict[str, Any]] = []
    for lesson in load_lessons():
        steps: list[dict[str, Any]] = []
        for step in lesson["steps"]:
            item: dict[str, Any] = {
                "kind": step["kind"],
                "kpn": step["kpn"],
                "text": _pick(step["text"], lang),
            }
            for key in _PLAIN_KEYS:
                if key in step:
                    item[key] = json.loads(json.dumps(step[key]))
            if "hint" in step:
                item["hint"] = _pick(step["hint"], lang)
            steps.append(item)
        out.append(
            {
                "id": lesson["id"],
                "figure": lesson["figure"],
                "title": _pick(lesson["title"], lang),
                "steps": steps,
            }
        )
    return out


_SIDES = {
    "en": ("Black", "Gold"),
    "de": ("Schwarz", "Gold"),
    "hu": ("Fekete", "Arany"),
}
_MATCHES = {
    "en": {1: "Single Round", 3: "Standard Match", 7: "Long Match", 15: "Marathon Match"},
    "de": {1: "Einzelrunde", 3: "Standard-Partie", 7: "Lange Partie", 15: "Marathon-Partie"},
    "hu": {1: "Egyszerű játszma", 3: "Sztenderd játszma", 7: "Hosszú játszma",
           15: "Maratoni játszma"},
}
_TEMPLATES = {
    "en": {
        "head": "{side} to move wins in {n}.",
        "head1": "{side} to move wins in 1: find the winning move.",
        "count": "The {n} moves are those of both sides, the winning move included.",
        "match": "{match}: Black {b}, Gold {g}.",
        "single": "Single Round.",
        "sumo": "Sumo towers are on the board: watch for pushes.",
        "only_defence": "{side} to move: find the only move that does not lose.",
        "find_win": "{side} to move: find the move that wins (the others lose).",
        "fill": "{side} won the round: choose the fill (the other one loses the next round).",
    },
    "de": {
        "head": "{side} am Zug gewinnt in {n}.",
        "head1": "{side} am Zug gewinnt in 1: Finde den Gewinnzug.",
        "count": "Gezählt werden die Züge beider Seiten, der Gewinnzug eingeschlossen.",
        "match": "{match}: Schwarz {b}, Gold {g}.",
        "single": "Einzelrunde.",
        "sumo": "Sumos stehen auf dem Brett: Achte auf Sumo-Stöße.",
        "only_defence": "{side} am Zug: Finde den einzigen Zug, der nicht verliert.",
        "find_win": "{side} am Zug: Finde den Gewinnzug (die anderen verlieren).",
        "fill": "{side} hat die Runde gewonnen: Wähle die Auffüllung (mit der anderen geht die"
                " nächste Runde verloren).",
    },
    "hu": {
        "head": "{side} lép, és {n} lépésben nyer.",
        "head1": "{side} lép, és 1 lépésben nyer: találd meg a nyerő lépést.",
        "count": "A lépésszámba mindkét fél lépései beletartoznak, a nyerő lépés is.",
        "match": "{match}: fekete {b}, arany {g}.",
        "single": "Egyszerű játszma.",
        "sumo": "Szumó tornyok is vannak a táblán: figyelj a szumó lökésekre.",
        "only_defence": "{side} lép: találd meg az egyetlen lépést, amellyel nem veszít.",
        "find_win": "{side} lép: találd meg a nyerő lépést (a többi veszít).",
        "fill": "{side} megnyerte a kört: válaszd ki a feltöltést (a másikkal elveszíti a"
                " következő kört).",
    },
}


def puzzle_text(puzzle: dict[str, Any], lang: str) -> str:
    """The task of a stored puzzle in words, in ``lang``.

    >>> puzzle_text({"kpn": "o1upyrgn/8/8/1P5b/6B1/7O/8/NGRY1U2 b n 1 0 0",
    ...              "side": "b", "win_in": 3}, "en")
    'Black to move wins in 3. The 3 moves are those of both sides, the winning move included. Single Round.'
    """
    t = _TEMPLATES[_check_lang(lang)]
    pos = Position(puzzle["kpn"])
    side = _SIDES[lang][0 if puzzle["side"] == "b" else 1]
    kind = puzzle.get("kind", "win_in")
    if kind in ("only_defence", "fill"):
        parts = [t[kind].format(side=side)]
    elif puzzle.get("win_in") is None:
        parts = [t["find_win"].format(side=side)]
    else:
        n = int(puzzle["win_in"])
        parts = [t["head1"].format(side=side) if n == 1 else t["head"].format(side=side, n=n)]
        if n > 1:
            parts.append(t["count"].format(n=n))
    if pos.target == 1:
        parts.append(t["single"])
    else:
        parts.append(
            t["match"].format(match=_MATCHES[lang][pos.target], b=pos.points[0], g=pos.points[1])
        )
    if any(pos.rings):
        parts.append(t["sumo"])
    return " ".join(parts)


def puzzles_json(lang: str) -> list[dict[str, Any]]:
    """Every puzzle with its task text in ``lang`` (easiest first).

    Each is ``{"id", "kpn", "side", "win_in", "solution", "text"}``: the side
    to move (``'b'`` or ``'g'``) wins in ``win_in`` moves of both sides along
    ``solution`` (square form), the defence being the solver's longest
    resistance.
    """
    _check_lang(lang)
    return [
        {
            "id": p["id"],
            "kpn": p["kpn"],
            "side": p["side"],
            "win_in": p["win_in"],
            "solution": list(p["solution"]),
            "text": puzzle_text(p, lang),
        }
        for p in load_puzzles()
    ]


def puzzle_reply(kpn: str, node_limit: int = 5_000_000) -> str:
    """The computer's move in a puzzle or lesson position, in square form.

    The solver's best move for the side to move: for the losing side the
    longest resistance, for the winning side the shortest win.  Should the
    solver not finish within ``node_limit`` nodes, a 6-move search answers.
    The tables are cleared first, so the answer depends on the position
    only.  A malformed KPN raises :class:`kamisado.MalformedError`, a
    finished round ``ValueError``.
    """
    from kamisado import engine

    pos = Position(kpn)
    if pos.outcome is not None:
        raise ValueError(f"the round is over: there is no move to reply in {kpn!r}")
    moves = list(pos.legal_moves)
    if len(moves) == 1:
        return str(moves[0])
    engine.clear_tables()
    r = engine.solve(pos, node_limit=node_limit, pv=False)
    if r.best_move is not None:
        return str(r.best_move)
    s = engine.search(pos, depth=6)
    assert s.best_move is not None
    return str(s.best_move)


#: The solver's node limit for judging a puzzle move at play time (the
#: remaining bound is short: a few moves of both sides).
JUDGE_NODES = 2_000_000


def wins_within(pos: Position, side: int, bound: int, node_limit: int = JUDGE_NODES) -> bool | None:
    """Whether the solver proves that ``side`` wins ``pos`` within ``bound``
    moves of both sides: ``True``, ``False``, or ``None`` when the node
    limit stopped it first.

    >>> pos = Position("1b1p1r2/1u1O2g1/2y3Bn/4P3/6U1/8/oN6/1GRY4 g n 1 0 0")
    >>> wins_within(pos, 1, 1), wins_within(pos, 0, 3)
    (True, False)
    """
    from kamisado import engine

    if pos.outcome is not None:
        return bool(pos.outcome.winner == side)
    if bound <= 0:
        return False
    engine.clear_tables()
    r = engine.solve(pos, node_limit=node_limit, max_depth=bound, pv=False)
    if r.winner is None:
        return None if r.nodes >= node_limit else False
    return bool(r.winner == side and r.distance is not None and r.distance <= bound)


def puzzle_step(kpn: str, move: str, side: int, bound: int | None,
                accepted: list[str] | None = None, node_limit: int = JUDGE_NODES) -> dict[str, Any]:
    """Judge the solver side's ``move`` in a puzzle at ``kpn``, and reply.

    ``bound``: the moves of both sides left to win in (``None``: a puzzle of
    one move, the first move being all); ``accepted``: the right first moves
    (precomputed by ``tools/make_puzzle_set.py``), else the solver judges:
    a move is right when it is proven to win within ``bound``.  A right move
    of a puzzle that goes on is answered with the solver's longest
    resistance (:func:`puzzle_reply`).  Returns ``{"right", "move", "after",
    "reply", "kpn", "won"}``: ``after`` the position after the move,
    ``kpn`` after the reply too, ``won`` whether the round is won by
    ``side`` there.  An illegal move raises :class:`kamisado.IllegalMoveError`.

    >>> r = puzzle_step("1b1p1r2/1u1O2g1/2y3Bn/4P3/6U1/8/oN6/1GRY4 g n 1 0 0", "h6-h5", 1, 1)
    >>> r["right"], r["reply"]
    (False, None)
    >>> puzzle_step("1b1p1r2/1u1O2g1/2y3Bn/4P3/6U1/8/oN6/1GRY4 g n 1 0 0", "h6-h1", 1, 1)["won"]
    True
    """
    pos = Position(kpn)
    pos.push_move(move)
    after = pos.kpn()
    if accepted is not None:
        right = move in accepted
    elif bound is None:
        right = pos.outcome is not None and pos.outcome.winner == side
    else:
        right = bool(wins_within(pos, side, bound - 1, node_limit))
    reply: str | None = None
    if right and pos.outcome is None and bound is not None:
        reply = puzzle_reply(after)
        pos.push_move(reply)
    won = pos.outcome is not None and pos.outcome.winner == side
    return {"right": right, "move": move, "after": after, "reply": reply, "kpn": pos.kpn(),
            "won": won}
