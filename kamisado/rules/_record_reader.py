"""Reading match records: the text of ``docs/records.md`` back into a
:class:`~kamisado.rules.record.Record`, replaying every move through the rules.

Move text is read and resolved by :mod:`kamisado.rules.notation` (``read_entry``,
``candidates``, ``resolve``), the one grammar of moves; this module reads the
record's lines (headers, rounds, move lines, ``Winner:`` lines), adds line
and column to every error and words the reasons for the record.  Use
:func:`kamisado.rules.record.read` or :func:`kamisado.rules.record.load`.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from kamisado.rules._record_model import (
    _KEY_RE,
    _ROUND_RE,
    EARLY_REASONS,
    NATURAL_REASONS,
    REASONS,
    TITLE,
    Comment,
    CommentError,
    GameEnd,
    Record,
    _fail,
    _score,
    _scores,
    _start_entries,
    game_end,
    result_text,
    winner_text,
)
from kamisado.rules.board import (
    BLACK,
    COLOUR_NAMES,
    DEADLOCK,
    GOAL,
    GOLD,
    SIDE_NAMES,
    SQUARE_COLOUR,
    AmbiguousMoveError,
    IllegalMoveError,
    KamisadoError,
    Move,
    Outcome,
    start_kpn,
)
from kamisado.rules.match import FILLS, MATCH_NAMES, OVER, Match, Round
from kamisado.rules.notation import (
    Entry,
    WordError,
    Written,
    candidates,
    move_entries,
    read_entry,
    resolve,
)
from kamisado.rules.position import Position

__all__ = ["read"]

_TARGETS_BY_NAME = {name: target for target, name in MATCH_NAMES.items()}
_SERIES_RE = re.compile(r"Series to ([1-9]\d*)")
_HEADER_RE = re.compile(r"(?P<key>[^:\s][^:]*?):(?P<sp> ?)(?P<value>.*)")
_ROUND_HEAD_RE = re.compile(
    r"Round (?P<n>[1-9]\d*)(?: \((?P<side>Black|Gold) fills (?P<fill>left|right)\))?"
)
_NUMBER_RE = re.compile(r"(?P<indent>\s*)(?P<n>\d+)\.(?=\s|$)")
_WORD_RE = re.compile(r"\S+")
_WINNER_RE = re.compile(
    r"(?P<side>\S+), (?P<colour>\S+) tower, (?P<reason>\S+),"
    r" (?P<points>\d+) points?(?P<score> \(.*\))"
)
_RESULT_RE = re.compile(
    r"(?:(?P<side>Black|Gold) wins, )?(?P<score>Black \d+, Gold \d+)"
    r"(?: \((?P<reason>[a-z]+(?: [a-z]+)*)(?:: (?P<detail>.*))?\))?"
)
_RESULT_FORMS = (
    "'unfinished', 'Black 3, Gold 1 (goal)' or"
    " 'Gold wins, Black 1, Gold 0 (time: Black's clock ran out)'"
)
#: Words of an old ``Forfeit:`` header's text and the reason they mean.
_FORFEIT_WORDS = (
    ("illegal", "illegal move"),
    ("malformed", "illegal move"),
    ("invalid", "illegal move"),
    ("resign", "resignation"),
    ("clock", "time"),
    ("out of time", "time"),
    ("terminated", "crash"),
    ("exited", "crash"),
    ("crash", "crash"),
    ("could not start", "crash"),
    ("no longer usable", "crash"),
)
_MATCH_TYPES = "Single Round, Standard, Long, Marathon or Series to N"
_RULES = ("", "Back")  # directions of the entries the rules write (pass, pushed back)


def _forfeit_end(text: str) -> GameEnd | None:
    """The early end an old ``Forfeit: Gold: reason`` header states: the
    other side wins; the reason from its words (else ``no answer``)."""
    side, _, why = text.partition(":")
    if side not in SIDE_NAMES:
        return None
    why = " ".join(why.split())
    low = why.lower()
    reason = next((r for word, r in _FORFEIT_WORDS if word in low), "no answer")
    return GameEnd(1 - SIDE_NAMES.index(side), reason, why)


class _Token(NamedTuple):
    """One entry of a move line, as written: ``...`` (``written`` is
    ``None``) or an entry read by :func:`kamisado.rules.notation.read_entry`."""

    written: Written | None
    text: str
    line: int
    col: int
    finish_col: int = 0
    comment: Comment | None = None
    """The comment in braces after the entry (a move's only)."""

    @property
    def kind(self) -> str:
        """``skip`` (``...``), ``square``, ``dest``, ``short`` or ``long``."""
        return "skip" if self.written is None else self.written.form

    @property
    def is_rules_entry(self) -> bool:
        """A pass or a pushed tower's ``Back`` entry (written by the rules)."""
        w = self.written
        return w is not None and w.form in ("long", "short") and w.direction in _RULES

    def describe(self) -> str:
        if self.written is None:
            return "'...'"
        if self.is_rules_entry:
            what = "a pass" if self.written.direction == "" else "a pushed tower's entry"
            return f"{what} {self.text!r}"
        return repr(self.text)


def _tokenize(text: str, line: int, start: int) -> list[_Token]:
    """The entries of a move line from character ``start`` on, each with the
    comment in braces that follows it: the notation reads the entries, this
    reads the comments and adds line and column to everything."""
    out: list[_Token] = []
    at = start
    while True:
        opening = text.find("{", at)
        closing = text.find("}", at)
        if closing >= 0 and (opening < 0 or closing < opening):
            raise _fail(line, closing + 1, "expected '{' before '}': a comment is"
                        " written in braces after its move, found '}'")
        end = len(text) if opening < 0 else opening
        toks = _entries(text, line, at, end)
        out.extend(toks)
        if opening < 0:
            return out
        closing = text.find("}", opening + 1)
        nested = text.find("{", opening + 1)
        if closing < 0 and nested < 0:
            raise _fail(
                line,
                len(text.rstrip()) + 1,
                f"expected '}}' closing the comment opened at column {opening + 1},"
                " found end of line",
            )
        if nested >= 0 and (closing < 0 or nested < closing):
            raise _fail(
                line,
                nested + 1,
                f"expected '}}' closing the comment opened at column {opening + 1},"
                " found '{': a comment holds no braces",
            )
        if not toks:
            raise _fail(
                line,
                opening + 1,
                "expected an entry before '{': a comment follows the move it describes,"
                " one comment a move",
            )
        last = toks[-1]
        if last.written is None or last.is_rules_entry:
            raise _fail(
                line,
                opening + 1,
                f"expected a move before '{{': a comment follows a move, found it after"
                f" {last.describe()}",
            )
        body = text[opening + 1 : closing]
        try:
            comment = Comment.parse(body)
        except CommentError as exc:
            raise _fail(line, opening + 2 + exc.offset, f"a move's comment: {exc}") from None
        out[-1] = last._replace(comment=comment)
        at = closing + 1


def _entries(text: str, line: int, start: int, stop: int) -> list[_Token]:
    """The entries of ``text[start:stop]`` (a move line or the part of it
    before a comment)."""
    found = [(m.group(), m.start() + 1) for m in _WORD_RE.finditer(text, start, stop)]
    words = [w for w, _ in found]
    end_col = len(text[:stop].rstrip()) + 1
    out: list[_Token] = []
    i = 0
    while i < len(words):
        word, col = found[i]
        if word == "...":
            out.append(_Token(None, word, line, col))
            i += 1
            continue
        try:
            w = read_entry(words, i, complete=True)
        except WordError as exc:
            at = found[exc.word][1] if exc.word < len(found) else end_col
            raise _fail(line, at, str(exc)) from None
        finish_col = found[i + w.finish_word][1] if w.finish_word >= 0 else 0
        out.append(_Token(w, " ".join(words[i : i + w.words]), line, col, finish_col))
        i += w.words
    return out


def _a(colour: int) -> str:
    """``'a red square'``, ``'an orange square'``."""
    name = COLOUR_NAMES[colour]
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name} square"


def _tower(side: int, colour: int) -> str:
    return f"{SIDE_NAMES[side]}'s {COLOUR_NAMES[colour]} tower"


def _wanted(pos: Position) -> str:
    """What the rules want next, in words."""
    if pos.must_move < 0:
        return f"{SIDE_NAMES[pos.turn]}'s first move of the round (any tower)"
    return f"a move of {_tower(pos.turn, pos.must_move)} ({pos._must_reason()})"


def _over_text(outcome: Outcome) -> str:
    how = "reached the opponent's home row" if outcome.reason == GOAL else "won by deadlock"
    return f"the round is over ({SIDE_NAMES[outcome.winner]} {how})"


def _describe_pending(e: Entry, pusher: int) -> str:
    if e.is_back:
        return (
            f"the pushed tower's entry {e.long()!r} in {SIDE_NAMES[e.side]}'s column"
            f" ({SIDE_NAMES[pusher]} pushed {_tower(e.side, e.colour)} onto"
            f" {_a(e.finish)})"
        )
    return (
        f"the pass {e.long()!r} in {SIDE_NAMES[e.side]}'s column"
        f" ({_tower(e.side, e.colour)} is blocked on {_a(e.finish)})"
    )


def _same_entry(w: Written, e: Entry) -> bool:
    if w.colour != e.colour or w.direction != e.direction:
        return False
    if w.distance is not None and w.distance != e.distance:
        return False
    return w.finish is None or w.finish == e.finish


class _Line(NamedTuple):
    number: int
    text: str


def _check_result(
    match: Match, headers: dict[str, str], line: _Line, value: str, col: int
) -> GameEnd | None:
    """Check the ``Result:`` line against the replayed match; the early
    end it states (or an old ``Forfeit:`` header states), if any."""
    over = match.state == OVER
    now = (
        f"the replayed match is over ({_score(match.points)},"
        f" {(game_end(match) or GameEnd(0, 'goal')).reason})"
        if over
        else f"the replayed match is unfinished ({_score(match.points)})"
    )
    if value == "unfinished":
        if over:
            raise _fail(
                line.number,
                col,
                f"expected the result {result_text(match)!r} ({now}), found {value!r}",
            )
        forfeit = headers.get("Forfeit")
        return None if forfeit is None else _forfeit_end(forfeit)
    m = _RESULT_RE.fullmatch(value)
    if not m:
        wanted = result_text(match)
        raise _fail(
            line.number,
            col,
            f"expected a result ({_RESULT_FORMS}); here {wanted!r}"
            + ("" if over else " or an early end")
            + f" ({now}), found {value!r}",
        )

    def at(group: str) -> int:
        return col + m.start(group)

    reason, side, detail = m["reason"], m["side"], m["detail"]
    if reason is not None and reason not in REASONS:
        raise _fail(
            line.number,
            at("reason"),
            f"expected how the game ended ({', '.join(REASONS)}), found {reason!r}",
        )
    score_error = _fail(
        line.number,
        at("score"),
        f"expected the score {_score(match.points)!r} ({now}), found {m['score']!r}",
    )
    if over:
        natural = game_end(match)
        assert natural is not None
        if side is not None or (reason is not None and reason not in NATURAL_REASONS):
            what = f"an early end ({reason})" if reason else "a winner before the score"
            raise _fail(
                line.number,
                col,
                f"expected the result {result_text(match)!r} ({now}), found {what}:"
                f" {value!r}",
            )
        if m["score"] != _score(match.points):
            raise score_error
        if reason is not None and reason != natural.reason:
            raise _fail(
                line.number,
                at("reason"),
                f"expected how the match ended {natural.reason!r} ({now}), found"
                f" {reason!r}",
            )
        if detail is not None:
            raise _fail(
                line.number,
                at("detail") - 2,
                f"expected ')' after {natural.reason!r}: a match over by the rules"
                f" has no detail; found {value[m.start('detail') - 2 :]!r}",
            )
        return None
    if side is None and reason is None:
        raise _fail(
            line.number,
            col,
            f"expected the result 'unfinished' ({now}) or an early end such as"
            f" 'Gold wins, {_score(match.points)} (time)', found {value!r}",
        )
    if reason in NATURAL_REASONS:
        raise _fail(
            line.number,
            at("reason"),
            f"expected 'unfinished' or an early end ({', '.join(EARLY_REASONS)}):"
            f" {now}, so it did not end by {reason}; found {value!r}",
        )
    if side is None:
        raise _fail(
            line.number,
            col,
            f"expected the winner of an early end ('Black wins, ' or 'Gold wins, ')"
            f" before the score, found {value!r}",
        )
    if reason is None:
        raise _fail(
            line.number,
            col + len(value),
            f"expected how the game ended after the score, e.g. ' (time)' (one of"
            f" {', '.join(EARLY_REASONS)}), found end of line",
        )
    if m["score"] != _score(match.points):
        raise score_error
    try:
        return GameEnd(SIDE_NAMES.index(side), reason, detail or "")
    except KamisadoError as exc:
        raise _fail(line.number, at("detail"), str(exc)) from None


def _match_type(value: str, ln: int, col: int) -> tuple[int, bool]:
    if value in _TARGETS_BY_NAME:
        return _TARGETS_BY_NAME[value], False
    m = _SERIES_RE.fullmatch(value)
    if m:
        return int(m[1]), True
    raise _fail(
        ln,
        col,
        f"expected a match type ({_MATCH_TYPES}), found {value!r}",
    )


def _next_round(
    match: Match,
    head: _Line,
    m: re.Match[str],
    number: int,
    indent: int,
    start_line: _Line | None,
    start_text: str,
    start_col: int,
) -> None:
    prev = match.rounds[number - 2]
    text = head.text.strip()
    if prev.outcome is None:
        raise _fail(
            head.number,
            indent + 1,
            f"round {number - 1} has not ended ({_wanted(match.position)} is"
            f" next), found {text!r}",
        )
    if match.state == OVER:
        raise _fail(
            head.number,
            indent + 1,
            f"the match is over ({_score(match.points)}), found {text!r}",
        )
    winner = SIDE_NAMES[prev.outcome.winner]
    if match.series:
        if m["fill"]:
            raise _fail(
                head.number,
                indent + 1 + m.start("side") - 1,
                f"expected 'Round {number}': every round of a series starts from the"
                f" colour-matching start, with no fill; found {text!r}",
            )
        assert len(match.rounds) == number
    else:
        if not m["fill"]:
            raise _fail(
                head.number,
                indent + len(text) + 1,
                f"expected '({winner} fills left)' or '({winner} fills right)' after"
                f" 'Round {number}' ({winner} won round {number - 1}), found end of line",
            )
        if m["side"] != winner:
            raise _fail(
                head.number,
                indent + 1 + m.start("side"),
                f"expected {winner!r} ({winner} won round {number - 1} and chooses"
                f" the fill), found {m['side']!r}",
            )
        assert m["fill"] in FILLS
        match.choose_fill(m["fill"])
    if start_line is None:
        return
    wanted = match.current.start.kpn()
    try:
        found = Position(start_text).kpn()
    except KamisadoError as exc:
        raise _fail(start_line.number, start_col, f"bad start position: {exc}") from None
    if found != wanted:
        how = (
            "the series' colour-matching start"
            if match.series
            else f"the rules' regrouping after {winner} fills {m['fill']}"
        )
        raise _fail(
            start_line.number,
            start_col,
            f"expected the start {wanted!r} ({how}), found {start_text!r}",
        )


def _next_text(pos: Position, pending: list[Entry], pusher: int) -> str:
    if pending:
        return _describe_pending(pending[0], pusher)
    if pos.outcome is not None:
        return f"no more entries ({_over_text(pos.outcome)})"
    return _wanted(pos)


def _misplaced_rules_entry(pos: Position, tok: _Token) -> None:
    side = SIDE_NAMES[pos.turn]
    assert tok.written is not None
    if tok.written.direction == "":
        if pos.must_move < 0:
            reason = f"{side} chooses any tower for the first move of the round"
        elif tok.written.colour == pos.must_move:
            reason = f"{_tower(pos.turn, pos.must_move)} can move, so it does not pass"
        else:
            reason = "the rules pass only the tower that must move when it is blocked"
        raise _fail(
            tok.line,
            tok.col,
            f"expected {_wanted(pos)}, found {tok.describe()}: {reason}",
        )
    raise _fail(
        tok.line,
        tok.col,
        f"expected {_wanted(pos)}, found {tok.describe()}: a tower moves back only"
        " when the move just before it was a Sumo push",
    )


def _resolve(pos: Position, tok: _Token) -> Move:
    """The move ``tok`` names, by the notation's resolver; the reasons
    for refusing it are worded for a record, with line and column."""
    w = tok.written
    assert w is not None
    if w.form == "square":
        try:
            return resolve(pos, w, tok.text)
        except KamisadoError as exc:
            raise _fail(tok.line, tok.col, str(exc), type(exc)) from None
    side = pos.turn
    if w.form != "dest" and pos.must_move >= 0 and w.colour != pos.must_move:
        raise _fail(
            tok.line,
            tok.col,
            f"expected {_wanted(pos)}, found {tok.text!r} (the"
            f" {COLOUR_NAMES[w.colour]} tower)",
            IllegalMoveError,
        )
    hits = candidates(pos, w)
    if not hits and w.form == "dest":
        raise _fail(
            tok.line,
            tok.col,
            f"expected {_wanted(pos)}, found {tok.text!r}: no legal move goes to"
            f" {tok.text}",
            IllegalMoveError,
        )
    if not hits:
        tower = _tower(side, w.colour)
        mine = candidates(pos, w._replace(direction=None, distance=None))
        if mine:
            options = ", ".join(
                sorted(
                    " ".join(e.long().split()[1:3]) for e in
                    (move_entries(pos, mv)[0] for mv in mine)
                )
            )
            why = f"{tower} can move only {options}"
        else:
            why = f"{tower} cannot move"
        raise _fail(
            tok.line, tok.col, f"{tok.text!r} is not a legal move: {why}", IllegalMoveError
        )
    if len(hits) > 1:
        names = ", ".join(sorted(str(h) for h in hits))
        raise _fail(
            tok.line,
            tok.col,
            f"{tok.text!r} fits {len(hits)} legal moves ({names}); write more of it",
            AmbiguousMoveError,
        )
    move = hits[0]
    if w.finish is not None and SQUARE_COLOUR[move.to_square] != w.finish:
        actual = COLOUR_NAMES[SQUARE_COLOUR[move.to_square]]
        raise _fail(
            tok.line,
            tok.finish_col,
            f"expected the finish colour {actual.capitalize()!r} ({move} ends on"
            f" {_a(SQUARE_COLOUR[move.to_square])}), found"
            f" {COLOUR_NAMES[w.finish].capitalize()!r}",
        )
    return move


def _winner_wanted(match: Match, number: int) -> str:
    rnd = match.rounds[number - 1]
    assert rnd.outcome is not None
    scores = _scores(match)
    score = scores[number - 1]
    before = (
        scores[number - 2]
        if number > 1
        else ([0, 0] if match.series else match.rounds[0].start.points)
    )
    w = rnd.outcome.winner
    return winner_text(rnd.outcome, score[w] - before[w], score)


class _Reader:
    def __init__(self, text: str) -> None:
        if text.startswith("\ufeff"):
            text = text[1:]
        self.lines = [_Line(i + 1, t) for i, t in enumerate(text.splitlines())]
        self.pos = 0
        self.comments: dict[tuple[int, int], Comment] = {}

    # -- line helpers ---------------------------------------------------------

    def peek(self) -> _Line | None:
        while self.pos < len(self.lines) and not self.lines[self.pos].text.strip():
            self.pos += 1
        return self.lines[self.pos] if self.pos < len(self.lines) else None

    def end_location(self) -> tuple[int, int]:
        if not self.lines:
            return 1, 1
        last = self.lines[-1]
        return last.number + 1, 1

    def found(self, line: _Line | None) -> str:
        return "end of text" if line is None else repr(line.text.strip())

    def where(self, line: _Line | None) -> tuple[int, int]:
        if line is None:
            return self.end_location()
        return line.number, len(line.text) - len(line.text.lstrip()) + 1

    # -- whole record ------------------------------------------------------------

    def read(self) -> Record:
        first = self.peek()
        if first is None or first.text.strip() != TITLE:
            ln, col = self.where(first)
            raise _fail(ln, col, f"expected the title {TITLE!r}, found {self.found(first)}")
        self.pos += 1
        headers: dict[str, str] = {}
        match_line: tuple[_Line, int, bool] | None = None
        result_line: tuple[_Line, str, int] | None = None
        while True:
            line = self.peek()
            if line is None or _ROUND_RE.match(line.text.strip()):
                break
            self.pos += 1
            text = line.text.strip()
            indent = len(line.text) - len(line.text.lstrip())
            m = _HEADER_RE.fullmatch(text)
            if not m:
                raise _fail(
                    line.number,
                    indent + 1,
                    f"expected a header line 'Key: value' or 'Round 1', found {text!r}",
                )
            key = m["key"]
            value = m["value"].strip()
            vcol = indent + m.start("value") + 1
            if key in headers or (key == "Match" and match_line) or (
                key == "Result" and result_line
            ):
                raise _fail(line.number, indent + 1, f"header {key!r} appears twice")
            if key == "Match":
                target, series = _match_type(value, line.number, vcol)
                match_line = (line, target, series)
            elif key == "Result":
                result_line = (line, value, vcol)
            elif not _KEY_RE.fullmatch(key):
                raise _fail(
                    line.number,
                    indent + 1,
                    "expected a header key (letters, digits, '_', '.', '-' and single"
                    f" spaces, starting with a letter), found {key!r}",
                )
            else:
                headers[key] = value
        for key, what, line_seen in (
            ("Match", _MATCH_TYPES, match_line),
            ("Result", _RESULT_FORMS, result_line),
        ):
            if line_seen is None:
                ln, col = self.where(self.peek())
                raise _fail(
                    ln,
                    col,
                    f"expected a '{key}:' header line ({what}) before the rounds,"
                    f" found {self.found(self.peek())}",
                )
        assert match_line is not None and result_line is not None
        match = self.rounds(match_line[1], match_line[2])
        line, value, vcol = result_line
        end = _check_result(match, headers, line, value, vcol)
        return Record(headers, match, end, self.comments)

    # -- rounds --------------------------------------------------------------------

    def rounds(self, target: int, series: bool) -> Match:
        match: Match | None = None
        number = 0
        while True:
            line = self.peek()
            if line is None:
                break
            self.pos += 1
            number += 1
            match = self.round(line, number, match, target, series)
        if match is None:
            ln, col = self.end_location()
            raise _fail(ln, col, "expected 'Round 1', found end of text")
        return match

    def round(
        self, head: _Line, number: int, match: Match | None, target: int, series: bool
    ) -> Match:
        indent = len(head.text) - len(head.text.lstrip())
        text = head.text.strip()
        m = _ROUND_HEAD_RE.fullmatch(text)
        if not m:
            raise _fail(
                head.number,
                indent + 1,
                f"expected 'Round {number}'"
                + (" (with '(Black fills left)' or similar after round 1)" if number > 1 else "")
                + f", found {text!r}",
            )
        if int(m["n"]) != number:
            raise _fail(
                head.number,
                indent + 7,
                f"expected round number {number}, found {m['n']}",
            )
        start_line: _Line | None = None
        nxt = self.peek()
        if nxt is not None and nxt.text.strip().startswith("Start:"):
            start_line = nxt
            self.pos += 1
        start_text = ""
        start_col = 0
        if start_line is not None:
            raw = start_line.text
            rest = raw[raw.index("Start:") + 6 :]
            start_text = rest.strip()
            start_col = len(raw) - len(rest.lstrip()) + 1

        if match is None:
            if m["fill"]:
                raise _fail(
                    head.number,
                    indent + 1 + m.start("side") - 1,
                    "expected 'Round 1' (the first round has no fill), found"
                    f" {text!r}",
                )
            kpn = start_text or start_kpn(1 if series else target)
            ln = start_line.number if start_line else head.number
            try:
                pos = Position(kpn)
            except KamisadoError as exc:
                raise _fail(ln, start_col or 1, f"bad start position: {exc}") from None
            try:
                match = Match(target, series=series, start=pos)
            except KamisadoError as exc:
                raise _fail(ln, start_col or 1, str(exc)) from None
        else:
            _next_round(match, head, m, number, indent, start_line, start_text, start_col)
        self.entries(match, number)
        return match

    # -- entries -----------------------------------------------------------------------

    def entries(self, match: Match, number: int) -> None:
        rnd = match.rounds[number - 1]
        tokens: list[_Token] = []
        lines: list[tuple[_Line, list[_Token]]] = []
        expected_number = 1
        while True:
            line = self.peek()
            if line is None:
                break
            nm = _NUMBER_RE.match(line.text)
            if not nm:
                break
            self.pos += 1
            if lines and len(lines[-1][1]) < 2:
                prev_line = lines[-1][0]
                raise _fail(
                    prev_line.number,
                    len(prev_line.text.rstrip()) + 1,
                    "expected a second entry (Gold's column); only the last line of a"
                    " round may hold one entry; found end of line",
                )
            if int(nm["n"]) != expected_number:
                raise _fail(
                    line.number,
                    nm.start("n") + 1,
                    f"expected move line {expected_number}., found {nm['n']}.",
                )
            expected_number += 1
            toks = _tokenize(line.text, line.number, nm.end())
            if not toks:
                raise _fail(
                    line.number,
                    len(line.text.rstrip()) + 1,
                    f"expected an entry after '{nm['n']}.', found end of line",
                )
            if len(toks) > 2:
                raise _fail(
                    line.number,
                    toks[2].col,
                    "expected at most two entries on a line (Black's column and Gold's),"
                    f" found a third: {toks[2].describe()}",
                )
            lines.append((line, toks))
            tokens.extend(toks)
        end = self.peek()
        end_is_winner = end is not None and end.text.strip().startswith("Winner:")
        self.play(match, rnd, tokens, end, number)
        if end_is_winner:
            assert end is not None
            self.pos += 1
            self.winner(match, rnd, number, end)
        elif rnd.outcome is not None:
            ln, col = self.where(end)
            raise _fail(
                ln,
                col,
                f"expected the line 'Winner: {_winner_wanted(match, number)}'"
                f" ({_over_text(rnd.outcome)}), found {self.found(end)}",
            )
        elif end is not None and not _ROUND_RE.match(end.text.strip()):
            ln, col = self.where(end)
            raise _fail(
                ln,
                col,
                "expected a numbered move line, 'Winner:' or the next 'Round', found"
                f" {self.found(end)}",
            )

    def play(
        self, match: Match, rnd: Round, tokens: list[_Token], end: _Line | None, number: int
    ) -> None:
        pos = match.position
        pending = _start_entries(rnd)
        # Whether the pending rules entries may be left out: None until the
        # next token decides (passes applied when the start was loaded).
        optional: bool | None = None
        pusher = pos.turn
        if tokens:
            tok = tokens[0]
            real = tokens[1] if tok.kind == "skip" and len(tokens) > 1 else tok
            if pending and real.kind not in ("skip", "long") and not real.is_rules_entry:
                # Short or square form leaves the start's passes to the rules.
                pending = []
                optional = True
            first_side = pending[0].side if pending else pos.turn
            if pos.outcome is None or pending:
                if tok.kind == "skip" and first_side == BLACK:
                    raise _fail(
                        tok.line,
                        tok.col,
                        "expected Black's first entry: Black moves first in this round,"
                        " so Black's column starts with an entry, found '...'",
                    )
                if tok.kind != "skip" and first_side == GOLD:
                    raise _fail(
                        tok.line,
                        tok.col,
                        "expected '...' in Black's column: Gold moves first in this"
                        f" round, found {tok.describe()}",
                    )
            if tok.kind == "skip":
                tokens = tokens[1:]
        for tok in tokens:
            if tok.kind == "skip":
                raise _fail(
                    tok.line,
                    tok.col,
                    "'...' only fills Black's empty column at the start of a round"
                    f" that Gold begins; expected {_next_text(pos, pending, pusher)},"
                    " found '...'",
                )
            if pending:
                if tok.is_rules_entry:
                    e = pending.pop(0)
                    assert tok.written is not None
                    if not _same_entry(tok.written, e):
                        raise _fail(
                            tok.line,
                            tok.col,
                            f"expected {_describe_pending(e, pusher)}, found {tok.describe()}",
                        )
                    continue
                if optional is None:
                    optional = tok.kind != "long"
                if not optional:
                    raise _fail(
                        tok.line,
                        tok.col,
                        f"expected {_describe_pending(pending[0], pusher)}: the long form"
                        f" lists every entry; found {tok.describe()}",
                    )
                pending = []
            if pos.outcome is not None:
                raise _fail(
                    tok.line,
                    tok.col,
                    f"expected no more entries: {_over_text(pos.outcome)};"
                    f" found {tok.describe()}",
                    IllegalMoveError,
                )
            if tok.is_rules_entry:
                _misplaced_rules_entry(pos, tok)
            move = _resolve(pos, tok)
            entries = move_entries(pos, move)
            pusher = pos.turn
            match.push_move(move)
            if tok.comment is not None:
                self.comments[(number, len(rnd.moves))] = tok.comment
            pending = entries[1:]
            optional = tok.kind != "long"
        if pending and optional is False:
            ln, col = self.where(end)
            raise _fail(
                ln,
                col,
                f"expected {_describe_pending(pending[0], pusher)}, found {self.found(end)}",
            )

    # -- winner lines ----------------------------------------------------------------------

    def winner(self, match: Match, rnd: Round, number: int, line: _Line) -> None:
        raw = line.text
        base = raw.index("Winner:") + 7
        body = raw[base:]
        lead = len(body) - len(body.lstrip())
        body = body.strip()
        col0 = base + lead + 1
        if rnd.outcome is None:
            raise _fail(
                line.number,
                raw.index("Winner:") + 1,
                f"expected {_next_text(match.position, [], 0)} (round {number} has"
                f" not ended), found {raw.strip()!r}",
            )
        wanted = _winner_wanted(match, number)
        if body == wanted:
            return
        m = _WINNER_RE.fullmatch(body)
        w = _WINNER_RE.fullmatch(wanted)
        assert w is not None
        if not m:
            raise _fail(
                line.number,
                col0,
                f"expected 'Winner: {wanted}', found {raw.strip()!r}",
            )
        names = {
            "side": "the winner",
            "colour": "the colour of the tower that gains a ring",
            "reason": f"how the round ended ({GOAL} or {DEADLOCK})",
            "points": "the points the round is worth",
            "score": "the score after the round",
        }
        for group, what in names.items():
            if m[group] != w[group]:
                raise _fail(
                    line.number,
                    col0 + m.start(group),
                    f"expected {what} {w[group].strip()!r}, found {m[group].strip()!r}"
                    f" (the replay gives 'Winner: {wanted}')",
                )
        raise _fail(line.number, col0, f"expected 'Winner: {wanted}', found {raw.strip()!r}")


def read(text: str) -> Record:
    """Read a record, replaying every move through the rules.

    Raises ``MalformedError`` (or ``IllegalMoveError`` for a readable move
    the rules refuse, ``AmbiguousMoveError`` for short text fitting several
    moves); every message starts with ``line L, column C:``.
    """
    return _Reader(text).read()
