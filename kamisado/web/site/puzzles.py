"""The puzzle trainer (issue 27, item 2): puzzles judged on the server, Glicko-2 ratings, streaks.

The puzzles live in the database (``puzzles``, loaded by revision 0013 from
``kamisado/data/puzzle_set.json``, which ``tools/make_puzzle_set.py``
writes).  A player solves one in an *attempt* (``puzzle_attempts``): the
page posts each move, the server judges it at once and answers.

* The first move is right when it is one of the puzzle's accepted first
  moves (the tool proved them all: every move that wins within the bound
  counts, not only the stored line's).  A later move of a "win in N" puzzle
  is judged by the solver at play time (:func:`kamisado.lessons.puzzle_step`,
  a node limit, in the computer's pool): right when it is proven to win
  within the moves left.  A right move is answered with the solver's
  longest resistance, until the round is won: the attempt is *solved*.
  A puzzle of one move (``only_defence``, ``fill``) is solved by its right
  move.  A wrong move ends the attempt (*failed*, as lichess counts a
  puzzle failed at its first mistake) and says only that it is wrong: the
  page offers a retry (a new, unrated attempt).  The right moves and the
  solution line come only when the player asks for them
  (``POST /api/puzzles/attempts/{id}/solution``, which fails an attempt
  still playing) or with a solved attempt's or an ended streak's answer.
* Ratings are Glicko-2 (:func:`kamisado.web.basics.ratings.rate_puzzle`): an
  attempt is a game between the player and the puzzle.  Only a signed-in
  player's first attempt at a puzzle is rated (as lichess does); a retry,
  a streak's attempt and an anonymous player's attempt are stored but
  rate nothing (an anonymous player has no puzzle rating).  The database
  holds to one rated attempt (a unique index); a start while the rated
  attempt has no move yet (a double click) gets that attempt back.
* A streak (``/api/puzzles/streak``) serves puzzles of rising rating, each
  at least :data:`STREAK_STEP` above the last, until the first miss; its
  count is its solved attempts, the best streak the player's longest.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import secrets
import time
from functools import lru_cache
from typing import Any

import sqlalchemy as sa
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from kamisado.lessons import puzzle_text
from kamisado.pictures import svg
from kamisado.rules.board import SIDE_LETTERS, KamisadoError
from kamisado.rules.position import Position
from kamisado.web.accounts.players import Player, player_in_thread
from kamisado.web.basics.ratings import Rating, rate_puzzle
from kamisado.web.site.analysis import in_analysis_slot
from kamisado.web.site.images import size_arg
from kamisado.web.site.pages import (
    MAX_JSON_BODY,
    bad,
    hub_of,
    lang_arg,
    page_words,
    read_body,
)
from kamisado.web.store.database import StoreErrors
from kamisado.web.store.schema import puzzle_attempts, puzzle_ratings, puzzles
from kamisado.web.store.storage import Store
from kamisado.web.work import worker

__all__ = ["KINDS", "ROUTES", "STREAK_STEP", "PuzzleBook", "THEMES"]

log = logging.getLogger("kamisado.web")

#: The kinds of puzzle (``tools/make_puzzle_set.py``).
KINDS = ("win_in", "only_win", "sumo_push", "deadlock", "only_defence", "fill")
#: The themes a puzzle may have.
THEMES = ("short", "long", "sumo", "push", "blocked", "deadlock", "one_move", "several_wins",
          "match", "defence", "fill")
#: A streak's next puzzle is rated at least this much above the last one.
STREAK_STEP = 40.0
#: The most puzzles one list answer holds.
LIST_MAX = 100
PLAYING, SOLVED, FAILED = "playing", "solved", "failed"


def _summary(row: Any) -> dict[str, Any]:
    return {"id": row["id"], "kind": row["kind"], "side": row["side"], "win_in": row["win_in"],
            "themes": row["themes"].split(), "rating": round(row["rating"]),
            "attempts": row["attempts"], "solved": row["solved"]}


#: The stored source names (``tools/make_puzzle_set.py``): a seeded game of
#: two computer levels, a game of them with its round and move, a figure.
_SEEDED = re.compile(r"seed \d+ game \d+: (?P<match>[\w ]+), (?P<a>\w+) \(Black, seed \d+\)"
                     r" v (?P<b>\w+) \(Gold, seed \d+\)$")
_PLAYED = re.compile(r"(?P<match>[\w ]+), (?P<a>\w+) \(Black\) v (?P<b>\w+) \(Gold\), game \d+,"
                     r" round (?P<round>\d+), move (?P<move>\d+)$")
_FIGURE = re.compile(r"rulebook fig(?P<n>\d+)$")
_TARGETS = {"Single Round": 1, "Standard": 3, "Long": 7, "Marathon": 15}


def source_text(origin: str, game: str, ply: int, lang: str) -> str:
    """Where a puzzle comes from, in words of ``lang`` (the page's keys
    ``puzzles.from_*``): the match and the two computer levels, the round
    and move where they are stored; never the generator's seeds.  An
    unknown form gives ``""`` (the page then shows no source line).

    >>> source_text("self-play", "seed 2027 game 8: Marathon, novice (Black, seed 8028)"
    ...             " v club (Gold, seed 6768)", 119, "en")
    'From a Marathon match between two computer levels (Novice and Club player), move 119 of the match'
    >>> source_text("self-play", "Single Round, novice (Black) v club (Gold), game 25, round 1,"
    ...             " move 13", 0, "de")
    'Aus einer Einzelrunde zweier Computerstufen (Neuling und Vereinsspieler), Runde 1, Zug 13'
    >>> source_text("self-play", "rulebook fig9", 0, "hu")
    'A szabálykönyvből, 9. ábra'
    """
    words = page_words(lang)
    m = _SEEDED.match(game) or _PLAYED.match(game)
    if m is not None and m["match"] in _TARGETS and f"level.{m['a']}" in words and f"level.{m['b']}" in words:
        parts = {"match": words[f"puzzles.match.{_TARGETS[m['match']]}"], "a": words[f"level.{m['a']}"],
                 "b": words[f"level.{m['b']}"]}
        if "round" in m.groupdict():
            return words["puzzles.from_round"].format(**parts, round=m["round"], move=m["move"])
        return words["puzzles.from_match"].format(**parts, move=ply)
    if (fig := _FIGURE.match(game)) is not None:
        return words["puzzles.from_rulebook"].format(n=fig["n"])
    if origin == "record":
        return words["puzzles.from_record"].format(move=ply)
    return ""


def puzzle_view(row: Any, lang: str) -> dict[str, Any]:
    """A puzzle as the page gets it before it is solved: no accepted moves,
    no solution; its text and source line in ``lang``."""
    view = _summary(row)
    view.update(kpn=row["kpn"], rd=round(row["rd"]), initial=round(row["initial"]),
                source={"origin": row["origin"],
                        "text": source_text(row["origin"], row["source_game"], row["source_ply"], lang)},
                text=puzzle_text({"kpn": row["kpn"], "side": row["side"], "win_in": row["win_in"],
                                  "kind": row["kind"]}, lang))
    if row["kind"] == "fill":
        view["fill"] = {"left": row["fill_left"], "right": row["fill_right"]}
    return view


class PuzzleBook:
    """The puzzle tables of a store (every call is blocking: run it in the
    store's threads, :meth:`kamisado.web.store.storage.Store.call`)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.engine = store.engine

    def get(self, puzzle_id: str) -> dict[str, Any] | None:
        """One puzzle's row, or ``None``."""
        with self.engine.connect() as conn:
            row = conn.execute(puzzles.select().where(puzzles.c.id == puzzle_id)).mappings().first()
        return dict(row) if row is not None else None

    def listing(self, kind: str | None = None, theme: str | None = None, limit: int = LIST_MAX,
             offset: int = 0) -> tuple[list[dict[str, Any]], int]:
        """Puzzles of a kind and theme (either may be ``None``), easiest first, and their total."""
        where = self._filters(kind, theme)
        with self.engine.connect() as conn:
            total = conn.execute(sa.select(sa.func.count()).select_from(puzzles).where(*where)).scalar()
            rows = conn.execute(puzzles.select().where(*where)
                                .order_by(puzzles.c.rating, puzzles.c.id)
                                .limit(limit).offset(offset)).mappings().all()
        return [dict(r) for r in rows], int(total or 0)

    @staticmethod
    def _filters(kind: str | None, theme: str | None) -> list[Any]:
        where: list[Any] = []
        if kind is not None:
            where.append(puzzles.c.kind == kind)
        if theme is not None:
            spaced = sa.literal(" ") + puzzles.c.themes + sa.literal(" ")
            where.append(spaced.like(f"% {theme} %"))
        return where

    def next_for(self, player: str, kind: str | None = None, theme: str | None = None,
                 near: float | None = None) -> dict[str, Any] | None:
        """The puzzle the player has not tried yet whose rating is nearest
        ``near`` (default: its puzzle rating, 1500 without one), or ``None``
        when none is left."""
        rating = Rating(near) if near is not None else (self.rating_of(player) or Rating())
        tried = sa.select(puzzle_attempts.c.puzzle).where(puzzle_attempts.c.player == player)
        with self.engine.connect() as conn:
            row = conn.execute(
                puzzles.select().where(*self._filters(kind, theme), puzzles.c.id.not_in(tried))
                .order_by(sa.func.abs(puzzles.c.rating - rating.rating), puzzles.c.id).limit(1)
            ).mappings().first()
        return dict(row) if row is not None else None

    def rating_of(self, player: str) -> Rating | None:
        """A player's puzzle rating (``None``: no rated attempt yet)."""
        with self.engine.connect() as conn:
            r = conn.execute(puzzle_ratings.select().where(puzzle_ratings.c.player == player)
                             ).mappings().first()
        return None if r is None else Rating(r["rating"], r["rd"], r["vol"], r["games"])

    def progress(self, player: str) -> dict[str, Any]:
        """What a player page shows: the puzzle rating, puzzles solved, attempts, best streak."""
        rating = self.rating_of(player)
        pa = puzzle_attempts
        with self.engine.connect() as conn:
            solved = conn.execute(sa.select(sa.func.count(sa.distinct(pa.c.puzzle)))
                                  .where(pa.c.player == player, pa.c.state == SOLVED)).scalar()
            tried = conn.execute(sa.select(sa.func.count()).select_from(pa)
                                 .where(pa.c.player == player, pa.c.state != PLAYING)).scalar()
            streaks = conn.execute(
                sa.select(sa.func.count()).select_from(pa)
                .where(pa.c.player == player, pa.c.streak.is_not(None), pa.c.state == SOLVED)
                .group_by(pa.c.streak)).scalars().all()
        return {"rating": None if rating is None else rating.view(), "solved": int(solved or 0),
                "attempts": int(tried or 0), "best_streak": max(streaks, default=0)}

    def start(self, puzzle_id: str, player: Player, streak: str | None = None) -> dict[str, Any]:
        """A new attempt: rated when the player is signed in, has never
        tried this puzzle, and it is not a streak's.

        At most one attempt of a player at a puzzle is ever rated: the
        database holds to it (the unique index ``puzzle_attempts_rated``),
        so of two starts at once, on two processes, one is rated.  A start
        while the player's rated attempt at the puzzle is still playing and
        has no move yet (a double click, or the other of two starts at once)
        gets that same attempt back: a second start never costs rating.  A
        rated attempt with moves played ends first, failed, when the player
        starts again (a retry never dodges the first try's rating)."""
        pa = puzzle_attempts
        mine = (pa.c.player == player.id, pa.c.puzzle == puzzle_id)
        open_rated = pa.select().where(*mine, pa.c.rated.is_(True), pa.c.state == PLAYING)
        for _ in range(3):  # a start that lost the race finds the winner's attempt at the next turn
            with self.engine.connect() as conn:
                playing = conn.execute(open_rated).mappings().all()
            for att in playing:
                if streak is None and att["moves"] == "":
                    return dict(att)  # the same attempt back
                self.finish(att["id"], att["moves"], att["moves"], False)
            try:
                with self.engine.begin() as conn:
                    before = conn.execute(sa.select(sa.func.count()).select_from(pa).where(*mine)).scalar()
                    if before and streak is None:  # another start stored its attempt meanwhile
                        fresh = conn.execute(open_rated.where(pa.c.moves == "")).mappings().first()
                        if fresh is not None:
                            return dict(fresh)
                    rated = player.account is not None and not before and streak is None
                    row = {"puzzle": puzzle_id, "player": player.id, "started": time.time(),
                           "state": PLAYING, "moves": "", "rated": rated, "streak": streak}
                    aid = conn.execute(pa.insert().values(**row).returning(pa.c.id)).scalar()
            except sa.exc.IntegrityError:
                continue  # another start's rated attempt was stored first
            return {"id": int(aid or 0), **row}
        raise RuntimeError(f"puzzle {puzzle_id}: no attempt could be started for {player.id}")

    def attempt(self, attempt_id: int) -> dict[str, Any] | None:
        """One attempt's row, or ``None``."""
        with self.engine.connect() as conn:
            row = conn.execute(puzzle_attempts.select().where(puzzle_attempts.c.id == attempt_id)
                               ).mappings().first()
        return dict(row) if row is not None else None

    def advance(self, attempt_id: int, before: str, moves: str) -> bool:
        """Record the line of an attempt still playing (``False``: another
        request moved it first)."""
        pa = puzzle_attempts
        with self.engine.begin() as conn:
            n = conn.execute(pa.update().where(pa.c.id == attempt_id, pa.c.moves == before,
                                               pa.c.state == PLAYING).values(moves=moves)).rowcount
        return bool(n)

    def finish(self, attempt_id: int, before: str, moves: str, solved: bool) -> dict[str, Any] | None:
        """End an attempt, solved or failed; a rated one updates the player's
        and the puzzle's ratings in the same transaction.  Returns the
        ratings' changes (``{"player": {...} | None, "puzzle": {...}}``), or
        ``None`` when another request ended it first."""
        pa = puzzle_attempts
        now = time.time()
        with self.engine.begin() as conn:
            att = conn.execute(pa.select().where(pa.c.id == attempt_id).with_for_update()
                               ).mappings().first()
            if att is None or att["state"] != PLAYING or att["moves"] != before:
                return None
            prow = conn.execute(puzzles.select().where(puzzles.c.id == att["puzzle"])
                                .with_for_update()).mappings().one()
            out: dict[str, Any] = {"player": None, "puzzle": {"rating": round(prow["rating"]),
                                                              "change": 0}}
            change: float | None = None
            values: dict[str, Any] = {"attempts": prow["attempts"] + 1,
                                      "solved": prow["solved"] + int(solved)}
            if att["rated"]:
                r = conn.execute(puzzle_ratings.select().where(
                    puzzle_ratings.c.player == att["player"]).with_for_update()).mappings().first()
                old_p = Rating() if r is None else Rating(r["rating"], r["rd"], r["vol"], r["games"])
                old_z = Rating(prow["rating"], prow["rd"], prow["vol"], prow["attempts"])
                new_p, new_z = rate_puzzle(old_p, old_z, solved)
                rv = {"rating": new_p.rating, "rd": new_p.rd, "vol": new_p.vol,
                      "games": new_p.games, "updated": now}
                if r is None:
                    conn.execute(puzzle_ratings.insert().values(player=att["player"], **rv))
                else:
                    conn.execute(puzzle_ratings.update().where(
                        puzzle_ratings.c.player == att["player"]).values(**rv))
                values.update(rating=new_z.rating, rd=new_z.rd, vol=new_z.vol)
                change = new_p.rating - old_p.rating
                out["player"] = {"rating": round(new_p.rating), "change": round(change),
                                 "provisional": new_p.provisional}
                out["puzzle"] = {"rating": round(new_z.rating),
                                 "change": round(new_z.rating - old_z.rating)}
            conn.execute(puzzles.update().where(puzzles.c.id == prow["id"]).values(**values))
            conn.execute(pa.update().where(pa.c.id == attempt_id).values(
                state=SOLVED if solved else FAILED, moves=moves, ended=now, change=change))
        return out

    def streak_state(self, streak: str) -> dict[str, Any]:
        """A streak's attempts: ``{"player", "count", "last", "over", "seen"}``
        (``last``: the last attempt's row; ``None`` for an unknown streak)."""
        pa = puzzle_attempts
        with self.engine.connect() as conn:
            rows = conn.execute(pa.select().where(pa.c.streak == streak).order_by(pa.c.id)
                                ).mappings().all()
        if not rows:
            return {"player": None, "count": 0, "last": None, "over": False, "seen": []}
        last = dict(rows[-1])
        return {"player": last["player"], "count": sum(r["state"] == SOLVED for r in rows),
                "last": last, "over": any(r["state"] == FAILED for r in rows),
                "seen": [r["puzzle"] for r in rows]}

    def streak_next(self, seen: list[str], above: float | None) -> dict[str, Any] | None:
        """A streak's next puzzle: the easiest rated at least :data:`STREAK_STEP`
        above ``above`` (the first: the easiest of all), not seen in it;
        the hardest left when none is that hard; ``None`` when all were seen."""
        base = puzzles.select().where(puzzles.c.id.not_in(seen) if seen else sa.true())
        with self.engine.connect() as conn:
            row = None
            if above is not None:
                row = conn.execute(base.where(puzzles.c.rating >= above + STREAK_STEP)
                                   .order_by(puzzles.c.rating, puzzles.c.id).limit(1)).mappings().first()
                if row is None:
                    row = conn.execute(base.order_by(puzzles.c.rating.desc(), puzzles.c.id).limit(1)
                                       ).mappings().first()
            else:
                row = conn.execute(base.order_by(puzzles.c.rating, puzzles.c.id).limit(1)
                                   ).mappings().first()
        return dict(row) if row is not None else None


# -- HTTP ------------------------------------------------------------------------------


def book_of(request: Request) -> PuzzleBook:
    """The app's :class:`PuzzleBook` (made on first use)."""
    book: PuzzleBook | None = getattr(request.app.state, "puzzle_book", None)
    store = hub_of(request).store
    if book is None or book.store is not store:
        book = request.app.state.puzzle_book = PuzzleBook(store)
    return book


async def _db(request: Request, fn: Any, *args: Any) -> Any:
    return await hub_of(request).store.call(fn, *args)


def _kind_theme(request: Request) -> tuple[str | None, str | None] | Response:
    kind = request.query_params.get("kind") or None
    theme = request.query_params.get("theme") or None
    if kind is not None and kind not in KINDS:
        return bad(f"expected kind one of {', '.join(KINDS)}, found {kind[:30]!r}")
    if theme is not None and theme not in THEMES:
        return bad(f"expected theme one of {', '.join(THEMES)}, found {theme[:30]!r}")
    return kind, theme


async def _body(request: Request) -> dict[str, Any] | Response:
    raw = await read_body(request, MAX_JSON_BODY)
    if isinstance(raw, Response):
        return raw
    try:
        body = json.loads(raw or b"{}")
    except (ValueError, RecursionError):
        body = None
    if not isinstance(body, dict):
        return bad("expected a JSON object")
    return body


def _store_failed(what: str) -> Response:
    log.exception("puzzles: %s", what)
    return bad("the store cannot be read; try again", 503)


async def list_puzzles(request: Request) -> Response:
    """``GET /api/puzzles?kind=&theme=&offset=&limit=``: puzzles, easiest first."""
    kt = _kind_theme(request)
    if isinstance(kt, Response):
        return kt
    offset, limit = request.query_params.get("offset", "0"), request.query_params.get("limit", "100")
    whole = (offset.isascii() and offset.isdigit() and len(offset) <= 9) and (limit.isascii() and limit.isdigit())
    if not whole or not 1 <= int(limit) <= LIST_MAX:  # (ASCII: int() refuses "²", which isdigit() takes)
        return bad(f"expected offset a whole number and limit 1 to {LIST_MAX}")
    try:
        rows, total = await _db(request, book_of(request).listing, *kt, int(limit), int(offset))
    except StoreErrors:
        return _store_failed("list")
    return JSONResponse({"total": total, "kinds": list(KINDS), "themes": list(THEMES),
                         "puzzles": [_summary(r) for r in rows]})


#: The most puzzles the offline set holds (the whole trainer's set: some hundreds).
OFFLINE_MAX = 5_000


async def offline_puzzles(request: Request) -> Response:
    """``GET /api/offline/puzzles?lang=en``: every puzzle, easiest first, as
    :func:`puzzle_view` gives it **with** its accepted first moves and its
    solution: the service worker keeps it, and the page judges a puzzle
    offline as the server does (the first move against ``accepted``, later
    ones by the page's solver), unrated and not stored."""
    lang = lang_arg(request)
    try:
        rows, _ = await _db(request, book_of(request).listing, None, None, OFFLINE_MAX, 0)
    except StoreErrors:
        return _store_failed("list")
    return JSONResponse({"puzzles": [
        {**puzzle_view(r, lang), "accepted": json.loads(r["accepted"]), "solution": json.loads(r["solution"])}
        for r in rows]}, headers={"Cache-Control": "no-cache"})


async def _puzzle_or_404(request: Request, puzzle_id: str) -> dict[str, Any] | Response:
    try:
        row = await _db(request, book_of(request).get, puzzle_id[:40])
    except StoreErrors:
        return _store_failed("get")
    if row is None:
        return bad(f"no puzzle {puzzle_id[:40]!r}", 404, "no_puzzle")
    return dict(row)


async def one_puzzle(request: Request) -> Response:
    """``GET /api/puzzles/{id}``: one puzzle, to solve (no answer in it)."""
    row = await _puzzle_or_404(request, request.path_params["puzzle"])
    if isinstance(row, Response):
        return row
    return JSONResponse(puzzle_view(row, lang_arg(request)))


async def next_puzzle(request: Request) -> Response:
    """``GET /api/puzzles/next?kind=&theme=&rating=``: a puzzle near the
    player's rating (or ``rating``), not tried yet."""
    kt = _kind_theme(request)
    if isinstance(kt, Response):
        return kt
    raw = request.query_params.get("rating")
    if raw is not None and (not (raw.isascii() and raw.isdigit()) or not 100 <= int(raw) <= 4000):
        return bad(f"expected rating a whole number from 100 to 4000, found {raw[:20]!r}")
    near = None if raw is None else float(raw)
    player = await player_in_thread(request, create=True)
    assert player is not None
    try:
        row = await _db(request, book_of(request).next_for, player.id, *kt, near)
    except StoreErrors:
        return _store_failed("next")
    return JSONResponse({"puzzle": None if row is None else puzzle_view(row, lang_arg(request))})


async def my_puzzles(request: Request) -> Response:
    """``GET /api/me/puzzles``: this player's puzzle rating, solved, best streak."""
    player = await player_in_thread(request, create=True)
    assert player is not None
    try:
        progress = await _db(request, book_of(request).progress, player.id)
    except StoreErrors:
        return _store_failed("progress")
    return JSONResponse({**progress, "signed_in": player.account is not None})


async def player_puzzles(request: Request) -> Response:
    """``GET /api/players/{id}/puzzles``: a player's puzzles solved and puzzle rating
    (what its player page lists)."""
    player_id = request.path_params["player"][:40]
    try:
        progress = await _db(request, book_of(request).progress, player_id)
    except StoreErrors:
        return _store_failed("player")
    return JSONResponse({"player": player_id, **progress})


async def _begin(request: Request, row: dict[str, Any], player: Player,
                 streak: str | None) -> dict[str, Any]:
    att = await _db(request, book_of(request).start, row["id"], player, streak)
    return {"attempt": att["id"], "rated": att["rated"], "streak": streak,
            "puzzle": puzzle_view(row, lang_arg(request))}


async def start_attempt(request: Request) -> Response:
    """``POST /api/puzzles/{id}/attempts``: begin (or retry) a puzzle."""
    row = await _puzzle_or_404(request, request.path_params["puzzle"])
    if isinstance(row, Response):
        return row
    player = await player_in_thread(request, create=True)
    assert player is not None
    try:
        return JSONResponse(await _begin(request, row, player, None))
    except StoreErrors:
        return _store_failed("start")


async def start_streak(request: Request) -> Response:
    """``POST /api/puzzles/streak``: a new streak and its first (easiest) puzzle."""
    player = await player_in_thread(request, create=True)
    assert player is not None
    book = book_of(request)
    try:
        row = await _db(request, book.streak_next, [], None)
        progress = await _db(request, book.progress, player.id)
        if row is None:
            return bad("there are no puzzles", 404)
        out = await _begin(request, row, player, secrets.token_urlsafe(12))
    except StoreErrors:
        return _store_failed("streak")
    return JSONResponse({**out, "count": 0, "best": progress["best_streak"]})


async def streak_next(request: Request) -> Response:
    """``POST /api/puzzles/streak/{streak}/next``: the streak's next puzzle
    once its last one is solved (409 after a miss: the streak is over)."""
    streak = request.path_params["streak"][:40]
    player = await player_in_thread(request, create=True)
    assert player is not None
    book = book_of(request)
    try:
        state = await _db(request, book.streak_state, streak)
        if state["player"] != player.id:
            return bad(f"no streak {streak!r}", 404)
        progress = await _db(request, book.progress, player.id)
        if state["over"]:
            return JSONResponse({"error": "the streak ended with a miss", "code": "streak_over", "count": state["count"],
                                 "best": progress["best_streak"]}, status_code=409)
        if state["last"]["state"] != SOLVED:
            return bad("solve the streak's puzzle first", 409, "streak_unsolved")
        last = await _db(request, book.get, state["last"]["puzzle"])
        row = await _db(request, book.streak_next, state["seen"], last["rating"] if last else None)
        if row is None:
            return JSONResponse({"puzzle": None, "count": state["count"], "best": progress["best_streak"]})
        out = await _begin(request, row, player, streak)
    except StoreErrors:
        return _store_failed("streak")
    return JSONResponse({**out, "count": state["count"], "best": progress["best_streak"]})


async def _engine(request: Request, fn: Any, *args: Any) -> Any:
    """``fn(*args)`` in an analysis slot of the computer's pool, or in a
    thread when this server runs no computer (the compiled solver leaves
    the interpreter's lock while it works)."""
    if hub_of(request).computer.can_think:
        return await in_analysis_slot(request, fn, *args)
    return await asyncio.to_thread(fn, *args)


def _replay(row: dict[str, Any], moves: list[str]) -> Position:
    pos = Position(row["kpn"])
    for mv in moves:
        pos.push_move(mv)
    return pos


async def attempt_move(request: Request) -> Response:
    """``POST /api/puzzles/attempts/{attempt}`` ``{"move": "c1-c5"}`` (a fill
    puzzle: ``"left"``/``"right"``): the move judged at once."""
    raw_id = request.path_params["attempt"]
    if not (raw_id.isascii() and raw_id.isdigit()) or len(raw_id) > 12:
        return bad(f"no attempt {raw_id[:20]!r}", 404, "no_attempt")
    body = await _body(request)
    if isinstance(body, Response):
        return body
    move = body.get("move")
    if not isinstance(move, str) or not move or len(move) > 12:
        return bad("expected a move in square form like c1-c5 (or a fill: left, right)")
    player = await player_in_thread(request, create=True)
    assert player is not None
    book = book_of(request)
    try:
        att = await _db(request, book.attempt, int(raw_id))
        row = None if att is None else await _db(request, book.get, att["puzzle"])
    except StoreErrors:
        return _store_failed("attempt")
    if att is None or row is None or att["player"] != player.id:
        return bad(f"no attempt {raw_id!r}", 404, "no_attempt")
    if att["state"] != PLAYING:
        return bad(f"this attempt is over ({att['state']}): start it again", 409, "attempt_over")
    before = att["moves"]
    played = before.split()
    accepted: list[str] = json.loads(row["accepted"])
    solution: list[str] = json.loads(row["solution"])
    side = SIDE_LETTERS.index(row["side"])
    answer: dict[str, Any] = {"move": move, "reply": None}
    if row["kind"] == "fill":
        if move not in ("left", "right"):
            return bad(f"expected a fill, left or right, found {move!r}")
        right, over, solved = move in accepted, True, move in accepted
        answer["kpn"] = row["fill_left" if move == "left" else "fill_right"]
        line = [move]
    else:
        pos = _replay(row, played)
        try:
            pos.parse_move(move)
        except KamisadoError as exc:
            return bad(f"{move!r}: {exc}", 400, "illegal", {"detail": f"{move}: {exc}"})
        bound = None if row["win_in"] is None else int(row["win_in"]) - len(played)
        first = accepted if not played else None
        trial = pos.copy()
        trial.push_move(move)
        if first is not None and (move not in first or bound is None or trial.outcome is not None):
            # judged by the list alone, nothing to reply: no engine needed
            step = worker.puzzle_step(pos.kpn(), move, side, bound, first)
        else:
            step = await _engine(request, worker.puzzle_step, pos.kpn(), move, side, bound, first)
        if isinstance(step, Response):
            return step
        right = bool(step["right"])
        line = [*played, move] + ([step["reply"]] if right and step["reply"] else [])
        solved = right and (step["won"] or row["win_in"] is None)
        over = solved or not right
        answer.update(after=step["after"], kpn=step["kpn"] if right else step["after"],
                      reply=step["reply"] if right else None,
                      left=None if bound is None else bound - (2 if step["reply"] else 1))
    answer["result"] = "solved" if solved else ("right" if right else "wrong")
    try:
        if over:
            changes = await _db(request, book.finish, att["id"], before, " ".join(line), solved)
            if changes is None:
                return bad("this attempt was moved or ended meanwhile: start it again", 409, "attempt_over")
            answer["ratings"] = changes
            if solved:
                answer["solution"] = solution
            if att["streak"]:
                state = await _db(request, book.streak_state, att["streak"])
                progress = await _db(request, book.progress, player.id)
                answer["streak"] = {"count": state["count"], "over": state["over"],
                                    "best": progress["best_streak"]}
        elif not await _db(request, book.advance, att["id"], before, " ".join(line)):
            return bad("this attempt was moved or ended meanwhile: start it again", 409, "attempt_over")
    except StoreErrors:
        return _store_failed("move")
    if answer["result"] == "wrong" and att["streak"]:  # the streak is over: nothing to retry
        answer.update(await _answer_of(request, row, played))
    answer["rated"] = att["rated"]
    return JSONResponse(answer)


async def _answer_of(request: Request, row: dict[str, Any], before: list[str]) -> dict[str, Any]:
    """A puzzle's answer: ``solution`` (the stored line) and ``right``, the
    right moves after the line ``before``: the accepted first moves at the
    start, later the solver's shortest win from there."""
    accepted: list[str] = json.loads(row["accepted"])
    out: dict[str, Any] = {"solution": json.loads(row["solution"]), "right": accepted}
    if row["kind"] != "fill" and before:
        reply = await _engine(request, worker.solver_reply, _replay(row, before).kpn())
        out["right"] = [] if isinstance(reply, Response) else [reply]
    return out


async def attempt_solution(request: Request) -> Response:
    """``POST /api/puzzles/attempts/{attempt}/solution``: the puzzle's
    solution and right moves, asked for.  An attempt still playing ends
    failed first (a rated one is rated as a miss, as lichess counts
    "View the solution"): ``ratings`` holds the changes then, else ``null``."""
    raw_id = request.path_params["attempt"]
    if not (raw_id.isascii() and raw_id.isdigit()) or len(raw_id) > 12:
        return bad(f"no attempt {raw_id[:20]!r}", 404, "no_attempt")
    player = await player_in_thread(request, create=True)
    assert player is not None
    book = book_of(request)
    try:
        att = await _db(request, book.attempt, int(raw_id))
        row = None if att is None else await _db(request, book.get, att["puzzle"])
        if att is None or row is None or att["player"] != player.id:
            return bad(f"no attempt {raw_id!r}", 404, "no_attempt")
        changes = None
        if att["state"] == PLAYING:
            changes = await _db(request, book.finish, att["id"], att["moves"], att["moves"], False)
            if changes is None:
                return bad("this attempt was moved or ended meanwhile: ask again", 409, "attempt_over")
    except Exception:
        return _store_failed("solution")
    line = att["moves"].split()  # a failed attempt's last move is the wrong one
    before = line if att["state"] == PLAYING else line[:-1] if att["state"] == FAILED else []
    out = await _answer_of(request, row, before)
    return JSONResponse({**out, "state": SOLVED if att["state"] == SOLVED else FAILED,
                         "rated": att["rated"], "ratings": changes})


#: ``?size=`` of a puzzle's picture: default and bounds (pixels)
THUMB_SIZE = (160, 80, 480)


@lru_cache(maxsize=2048)
def _thumb(kpn: str, size: int, flipped: bool) -> str:
    return svg.board(Position(kpn), size=size, coordinates=False, flipped=flipped, must=False)


async def puzzle_board(request: Request) -> Response:
    """``GET /api/puzzles/{id}/board.svg?size=160``: the puzzle's start
    position as a small picture (the list's cards), from the mover's side;
    drawn once a puzzle and size, kept by browsers a day."""
    size = size_arg(request, THUMB_SIZE)
    if isinstance(size, Response):
        return size
    row = await _puzzle_or_404(request, request.path_params["puzzle"])
    if isinstance(row, Response):
        return row
    text = _thumb(row["kpn"], size, row["side"] == "g")
    return Response(text, media_type="image/svg+xml", headers={"Cache-Control": "public, max-age=86400"})


ROUTES = [
    Route("/api/puzzles", list_puzzles),
    Route("/api/offline/puzzles", offline_puzzles),
    Route("/api/puzzles/next", next_puzzle),
    Route("/api/puzzles/streak", start_streak, methods=["POST"]),
    Route("/api/puzzles/streak/{streak}/next", streak_next, methods=["POST"]),
    Route("/api/puzzles/attempts/{attempt}", attempt_move, methods=["POST"]),
    Route("/api/puzzles/attempts/{attempt}/solution", attempt_solution, methods=["POST"]),
    Route("/api/puzzles/{puzzle}/board.svg", puzzle_board),
    Route("/api/puzzles/{puzzle}", one_puzzle),
    Route("/api/puzzles/{puzzle}/attempts", start_attempt, methods=["POST"]),
    Route("/api/me/puzzles", my_puzzles),
    Route("/api/players/{player}/puzzles", player_puzzles),
]
