"""Uploaded records made games, away from the event loop, and their budget.

A record sent to ``POST /api/records`` (a text record of up to 1 MiB, or a
game played offline in the page, sent as its actions in JSON) costs CPU
that grows with it: the text parser, then the rules replaying every action
twice (reading the record, then building the game that is stored).  A
megabyte of newlines took the event loop for about two seconds.
:func:`read_upload` does all of that work and returns a small picklable
answer (:class:`Built`, a few tens of KiB for a long match, or the error in
words); the site runs it in the computer's process pool (in an analysis
slot, so a computer move always has a worker) or, where this process runs
no pool, in a thread (:func:`kamisado.web.site.pages.off_loop`).

:class:`ParseBudget` bounds that work: one upload in flight per client key
(an address, a player) and at most ``most`` at once in all, running or
waiting; the rest are refused at once with a ``Retry-After``.

>>> built = read_upload(b'{"target": 1, "actions": ["a1-a4", "e8-e5", "a4-e8"], "black": "Ann"}', True, "p1")
>>> built.row.black_name, built.row.black_player, built.tokens, built.state.match.state
('Ann', 'p1', ['a1-a4', 'e8-e5', 'a4-e8'], 'over')
>>> read_upload(b"not a record", False, None)
"line 1, column 1: expected the title 'Kamisado match record', found 'not a record'"
>>> read_upload(b"\\xff", False, None)
'expected a UTF-8 text record'
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, Executor
from dataclasses import dataclass
from typing import Any

from kamisado.rules import record as records
from kamisado.rules.board import SIDE_LETTERS, KamisadoError
from kamisado.web.basics.messages import ProtocolError
from kamisado.web.basics.text import UnstorableText, check_storable
from kamisado.web.play.state import GameState
from kamisado.web.store.storage import GameRow, new_id

__all__ = [
    "MAX_RECORD_ACTIONS",
    "PARSES_MOST",
    "Built",
    "ParseBudget",
    "built_from_record",
    "read_upload",
    "record_of_actions",
]

#: At most this many actions in a match sent as JSON (a Marathon runs to a few hundred).
MAX_RECORD_ACTIONS = 5_000
#: At most this many uploads parsed at once or waiting for their turn, in
#: all, per process; one more is refused (503, ``Retry-After``).
PARSES_MOST = 8


@dataclass
class Built:
    """An uploaded record made a game, not stored yet: its row (a fresh id
    and seat token, both seats the uploader's), its actions and its state
    replayed through the rules."""

    row: GameRow
    tokens: list[str]
    state: GameState


def record_of_actions(body: Any) -> records.Record:
    """A record from a match sent as its actions (a game played offline in
    the page): ``{"target": 3, "series": false, "actions": ["a1-a4", ...,
    "left", ...], "black": "Ann", "gold": "Bob"}``, every action replayed
    by the rules.  :class:`ProtocolError` or :class:`KamisadoError` (with
    the action's number) for bad input.

    >>> rec = record_of_actions({"target": 1, "actions": ["a1-a4", "e8-e5", "a4-e8"], "black": "Ann"})
    >>> rec.match.state, rec.headers["Black"]
    ('over', 'Ann')
    >>> record_of_actions({"target": 1, "actions": ["a1-a4", "e8-e1"]})
    Traceback (most recent call last):
    ...
    kamisado.IllegalMoveError: record: action 2, e8-e1: ...
    """
    from kamisado.rules.match import Match

    if not isinstance(body, dict):
        raise ProtocolError("record: expected a JSON object")
    target, series, actions = body.get("target"), body.get("series", False), body.get("actions")
    if not isinstance(target, int) or isinstance(target, bool) or not isinstance(series, bool):
        raise ProtocolError("record: expected target to be an integer and series true or false")
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise ProtocolError("record: expected actions to be a list of moves and fills")
    if len(actions) > MAX_RECORD_ACTIONS:
        raise ProtocolError(f"record: at most {MAX_RECORD_ACTIONS} actions, found {len(actions)}")
    names = [body.get(side, "") for side in ("black", "gold")]
    if not all(isinstance(n, str) and len(n) <= 40 and "\n" not in n for n in names):
        raise ProtocolError("record: expected black and gold to be names of one line (40 characters at most)")
    match = Match(target, series=series)
    for i, action in enumerate(actions, 1):
        try:
            match.apply(action)
        except KamisadoError as exc:
            raise type(exc)(f"record: action {i}, {action}: {exc}") from None
    return records.Record.new(match, names[0].strip(), names[1].strip())


def built_from_record(rec: records.Record, player: str | None = None) -> Built:
    """The game an uploaded record makes: a local (hotseat) game that can
    go on, both seats ``player``'s, with the record's comments on the moves
    they were written for, replayed through the rules as it will be stored.

    >>> b = built_from_record(record_of_actions({"target": 1, "actions": ["a1-a4", "e8-e5"]}))
    >>> b.tokens, b.row.state, b.row.to_act, b.row.actions, b.row.black_token == b.row.gold_token
    (['a1-a4', 'e8-e5'], 'playing', 'b', 2, True)
    """
    match = rec.match
    tokens: list[str] = []
    comments: dict[str, str] = {}  # each comment by its move's index in the tokens
    for i, rnd in enumerate(match.rounds):
        if i and rnd.fill is not None:
            tokens.append(rnd.fill)
        for ply, move in enumerate(rnd.moves, 1):
            comment = rec.comments.get((i + 1, ply))
            if comment is not None:
                comments[str(len(tokens))] = comment.text()
            tokens.append(str(move))
    token = new_id(18)
    row = GameRow.new(
        new_id(),
        target=match.target,
        series=match.series,
        start_kpn=match.rounds[0].start.kpn(),
        black_name=rec.headers.get("Black", "")[:40],
        gold_name=rec.headers.get("Gold", "")[:40],
        black_token=token,
        gold_token=token,
        black_player=player,
        gold_player=player,
        comments=json.dumps(comments, separators=(",", ":")) if comments else None,
    )
    state = GameState.build(row, tokens)  # replayed through the rules before storing
    row.state = state.match.state
    act = state.to_act()
    row.to_act = None if act is None else SIDE_LETTERS[act]
    row.black_points, row.gold_points = state.match.points
    row.actions = len(tokens)
    return Built(row, tokens, state)


def read_upload(raw: bytes, is_json: bool, player: str | None) -> Built | str:
    """An uploaded record's body made a game (:func:`built_from_record`), or
    why it cannot be (the 400's message).  ``is_json``: the body is a game
    played offline in the page (:func:`record_of_actions`), else a text
    record in UTF-8.  Run away from the event loop: it takes time that
    grows with the record, and both its argument and its answer pickle."""
    if is_json:
        try:
            body = json.loads(raw)
        except (ValueError, RecursionError):
            return "record: expected a JSON object"
        try:
            check_storable(body, "record")
            return built_from_record(record_of_actions(body), player)
        except (ProtocolError, UnstorableText, KamisadoError) as exc:
            return str(exc)
    try:
        text = raw.decode("utf-8")  # strict: no lone surrogate comes through
    except UnicodeDecodeError:
        return "expected a UTF-8 text record"
    nul = text.find("\x00")
    if nul >= 0:  # the store cannot hold it (PostgreSQL's text refuses NUL)
        line = text.count("\n", 0, nul) + 1
        column = nul - (text.rfind("\n", 0, nul) + 1) + 1
        return f"record: line {line}, column {column} holds a NUL character"
    try:
        return built_from_record(records.read(text), player)
    except KamisadoError as exc:
        return str(exc)


class ParseBudget:
    """Uploads being parsed, per client key: one in flight per key (an
    address or a player, :func:`kamisado.web.edge.guard.client_keys`), and at
    most ``most`` in all, running or waiting.

    >>> budget = ParseBudget(most=2)
    >>> budget.enter(["addr:a"]), budget.enter(["addr:a", "player:p"])
    (None, 'busy_key')
    >>> budget.enter(["addr:b"]), budget.enter(["addr:c"])
    (None, 'busy_all')
    >>> budget.leave(["addr:a"]); budget.enter(["addr:c"]), len(budget)
    (None, 2)
    """

    def __init__(self, most: int = PARSES_MOST) -> None:
        self.most = most
        #: held by an upload read by :meth:`run_alone`: one at a time
        self.alone = asyncio.Semaphore(1)
        #: makes the process :meth:`run_alone` reads uploads in (``None``: a
        #: thread); the server sets it when it thinks on a job queue and so
        #: has no process pool of its own
        self.pool_factory: Callable[[], Executor] | None = None
        self.pool: Executor | None = None
        self.keys: set[str] = set()
        self.count = 0

    async def run_alone(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)``, one at a time: in a process of the budget's own
        (:attr:`pool_factory`; started when first needed, dropped when it
        broke, so the next call starts another) or, without one, in a
        thread (which shares the interpreter's lock with the event loop:
        for a server that runs no engine, the tests)."""
        async with self.alone:
            if self.pool_factory is None:
                return await asyncio.to_thread(fn, *args)
            if self.pool is None:
                self.pool = self.pool_factory()
            pool = self.pool
            try:
                return await asyncio.get_running_loop().run_in_executor(pool, fn, *args)
            except BrokenExecutor:
                if self.pool is pool:
                    pool.shutdown(wait=False, cancel_futures=True)
                    self.pool = None
                raise

    def close(self) -> None:
        """Stop the process :meth:`run_alone` started, if any."""
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None

    def __len__(self) -> int:
        return self.count

    def enter(self, keys: list[str]) -> str | None:
        """Take a place for ``keys``' upload: ``None``, or why not
        (``busy_key``: one of its keys has an upload in flight;
        ``busy_all``: ``most`` are in flight)."""
        if any(k in self.keys for k in keys):
            return "busy_key"
        if self.count >= self.most:
            return "busy_all"
        self.keys.update(keys)
        self.count += 1
        return None

    def leave(self, keys: list[str]) -> None:
        """Give back the place :meth:`enter` took for ``keys``."""
        self.keys.difference_update(keys)
        self.count -= 1
