"""What a match record holds: the :class:`Record`, its moves' comments, how
the game ended, and its rounds described as the rulebook's entries.

The lower half of :mod:`kamisado.rules.record`, which re-exports every public
name here (use them from there): both the record's writer
(:mod:`kamisado.rules.record`) and its reader (:mod:`kamisado.rules._record_reader`)
build on this module, so neither imports the other's module back.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import NamedTuple, overload

from kamisado.rules.board import (
    BLACK,
    COLOUR_LETTERS,
    COLOUR_NAMES,
    DEADLOCK,
    GOAL,
    GOLD,
    SIDE_NAMES,
    KamisadoError,
    MalformedError,
    Move,
    Outcome,
)
from kamisado.rules.match import OVER, Match, Round
from kamisado.rules.notation import (
    Entry,
    entries_after_load,
    move_entries,
)
from kamisado.rules.position import Position

TITLE = "Kamisado match record"
#: Width of Black's column in move lines (the longest long-form entry,
#: ``Orange Forward 7 Yellow``, has 23 characters).
COLUMN = 25
#: Header keys that ``write`` computes from the match (never in ``headers``).
COMPUTED_HEADERS = ("Match", "Result")

#: How a game can end, as the ``Result:`` line names it: ``goal`` and
#: ``deadlock`` end the last round of a match by the rules; the others stop a
#: match early (a player's clock ran out, an illegal move, a crashed or silent
#: engine, a resignation, a player who left an online game, a tournament's
#: adjudication).
REASONS = (
    "goal", "deadlock", "time", "illegal move", "crash", "no answer", "resignation",
    "abandonment", "adjudication",
)
#: The reasons that end a match by the rules (read from the moves).
NATURAL_REASONS = (str(GOAL), str(DEADLOCK))
#: The reasons that stop a match before its natural end (stated, not replayed).
EARLY_REASONS = tuple(r for r in REASONS if r not in NATURAL_REASONS)
_LINE_BREAKS = "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"

_KEY_RE = re.compile(r"[A-Za-z][A-Za-z0-9_.\-]*(?: [A-Za-z0-9_.\-]+)*")
_ROUND_RE = re.compile(r"Round\b")


def _fail(
    line: int, col: int, message: str, cls: type[KamisadoError] = MalformedError
) -> KamisadoError:
    return cls(f"line {line}, column {col}: {message}")


# ---------------------------------------------------------------------------
# The record
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class GameEnd:
    """How a game ended: the winner (0 Black, 1 Gold), the reason (one of
    :data:`REASONS`) and an optional one-line ``detail`` in words.

    >>> GameEnd(1, "time", "Black's clock ran out")
    GameEnd(winner=1, reason='time', detail="Black's clock ran out")
    >>> GameEnd(1, "time").early, GameEnd(0, "goal").early
    (True, False)
    >>> GameEnd(2, "time")
    Traceback (most recent call last):
    ...
    kamisado.MalformedError: a game's winner is 0 (Black) or 1 (Gold), found 2
    >>> GameEnd(0, "forfeit")
    Traceback (most recent call last):
    ...
    kamisado.MalformedError: a game ends by goal, deadlock, time, illegal move, \
crash, no answer, resignation, abandonment or adjudication, found 'forfeit'
    """

    winner: int
    reason: str
    detail: str = ""

    def __post_init__(self) -> None:
        if type(self.winner) is not int or self.winner not in (BLACK, GOLD):
            raise MalformedError(
                f"a game's winner is 0 (Black) or 1 (Gold), found {self.winner!r}"
            )
        if self.reason not in REASONS:
            raise MalformedError(
                f"a game ends by {', '.join(REASONS[:-1])} or {REASONS[-1]},"
                f" found {self.reason!r}"
            )
        d = self.detail
        if not isinstance(d, str) or d != d.strip() or any(ch in d for ch in _LINE_BREAKS):
            raise MalformedError(
                "a game end's detail is one line without leading or trailing spaces,"
                f" found {d!r}"
            )

    @property
    def early(self) -> bool:
        """Whether the game stopped before its natural end (not goal or deadlock)."""
        return self.reason in EARLY_REASONS

    def describe(self) -> str:
        """In words: ``'Gold wins (time: Black's clock ran out)'``.

        >>> GameEnd(0, "goal").describe()
        'Black wins (goal)'
        """
        how = f"{self.reason}: {self.detail}" if self.detail else self.reason
        return f"{SIDE_NAMES[self.winner]} wins ({how})"


def game_end(match: Match) -> GameEnd | None:
    """How a match ended by the rules: ``goal`` or ``deadlock`` (the last
    round's outcome) and the match's winner; ``None`` while it is not over.

    >>> game_end(Match(1)) is None
    True
    >>> m = Match(1, start=Position("u5pg/3b4/8/8/2rRyo2/1PnU4/3G4/N4OBY b g"))
    >>> _ = m.push_move("d2-e3")
    >>> game_end(m)
    GameEnd(winner=1, reason='deadlock', detail='')
    """
    if match.state != OVER or match.winner is None:
        return None
    outcome = match.rounds[-1].outcome
    assert outcome is not None
    return GameEnd(match.winner, str(outcome.reason))


# ---------------------------------------------------------------------------
# Move comments
# ---------------------------------------------------------------------------

#: The kinds of score a comment holds: ``cp`` an evaluation in hundredths of
#: a tower's worth, ``win``/``loss`` a proven win or loss in N moves (the
#: mover's point of view, as KEI's ``score cp|win|loss N``).
SCORE_KINDS = ("cp", "win", "loss")
_UINT = r"(?:0|[1-9]\d*)"
_EVAL_RE = re.compile(
    rf"(?:(?P<sign>[+-])(?P<units>{_UINT})\.(?P<cents>\d\d)|(?P<wl>[WL])(?P<n>{_UINT}))"
    rf"(?:/(?P<depth>{_UINT}))?"
)
_USED_RE = re.compile(rf"(?P<s>{_UINT})\.(?P<ms>\d{{3}})s")
_CLOCK_RE = re.compile(rf"(?P<side>[bg])=(?P<m>{_UINT}):(?P<s>[0-5]\d)\.(?P<ms>\d{{3}})")
_COMMENT_FORM = "'+0.35/12 1.234s b=1:58.766 g=2:00.000'"


class CommentError(MalformedError):
    """A move's comment that does not follow the grammar; ``offset`` is the
    0-based index in the comment's text (between the braces) where it goes wrong."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset


def _clock(ms: int) -> str:
    """``118766`` -> ``'1:58.766'``."""
    minutes, rest = divmod(ms, 60_000)
    return f"{minutes}:{rest // 1000:02d}.{rest % 1000:03d}"


@dataclass(frozen=True)
class Comment:
    """What a move's comment says (``docs/records.md``, *Move comments*):
    the mover's score and the depth of the search that found it, the time
    the move took and both clocks once it was made.  Any of them may be
    left out (``None``), but not all, and a depth only comes with a score.

    >>> c = Comment(("cp", 35), 12, 1234, (118766, 120000))
    >>> c.text()
    '+0.35/12 1.234s b=1:58.766 g=2:00.000'
    >>> Comment.parse(c.text()) == c
    True
    >>> Comment(("win", 3), 20).text(), Comment(("cp", -5)).text(), Comment(used_ms=40).text()
    ('W3/20', '-0.05', '0.040s')
    >>> Comment.parse("+0.35/12 1.2s")
    Traceback (most recent call last):
    ...
    kamisado.rules.record.CommentError: expected the time used as seconds with three \
decimals and 's' (1.234s), found '1.2s'
    """

    score: tuple[str, int] | None = None
    """``(kind, value)``: ``("cp", 35)``, ``("win", 3)``, ``("loss", 2)``."""
    depth: int | None = None
    """The depth of the search that gave the score."""
    used_ms: int | None = None
    """Milliseconds the move took."""
    clocks_ms: tuple[int, int] | None = None
    """Black's and Gold's time left once the move was made (increment added)."""

    def __post_init__(self) -> None:
        def count(value: object) -> bool:
            return type(value) is int and value >= 0

        if self.score is not None:
            kind, value = self.score if isinstance(self.score, tuple) and len(
                self.score) == 2 else (None, None)
            if kind not in SCORE_KINDS or type(value) is not int or (
                kind != "cp" and value < 0
            ):
                raise MalformedError(
                    "a comment's score is ('cp', hundredths), ('win', moves) or"
                    f" ('loss', moves), found {self.score!r}"
                )
        for name in ("depth", "used_ms"):
            value = getattr(self, name)
            if value is not None and not count(value):
                raise MalformedError(
                    f"a comment's {name} is a whole number from 0, found {value!r}"
                )
        if self.depth is not None and self.score is None:
            raise MalformedError("a comment's depth comes with its score, found no score")
        c = self.clocks_ms
        if c is not None and not (
            isinstance(c, tuple) and len(c) == 2 and all(count(x) for x in c)
        ):
            raise MalformedError(
                f"a comment's clocks are (Black's, Gold's) milliseconds from 0, found {c!r}"
            )
        if self.score is None and self.used_ms is None and c is None:
            raise MalformedError("a comment says something: a score, the time used or the clocks")

    def text(self) -> str:
        """The comment as a record writes it, between its braces."""
        out = []
        if self.score is not None:
            kind, value = self.score
            if kind == "cp":
                sign = "-" if value < 0 else "+"
                out.append(f"{sign}{abs(value) // 100}.{abs(value) % 100:02d}")
            else:
                out.append(f"{'W' if kind == 'win' else 'L'}{value}")
            if self.depth is not None:
                out[-1] += f"/{self.depth}"
        if self.used_ms is not None:
            out.append(f"{self.used_ms // 1000}.{self.used_ms % 1000:03d}s")
        if self.clocks_ms is not None:
            out.append(f"b={_clock(self.clocks_ms[0])} g={_clock(self.clocks_ms[1])}")
        return " ".join(out)

    def describe(self) -> str:
        """The comment in words (what ``kamisado replay`` and the web page show).

        >>> Comment(("cp", 35), 12, 1234, (118766, 120000)).describe()
        'score +0.35 at depth 12, 1.234 s used, clocks Black 1:58.766 Gold 2:00.000'
        >>> Comment(("loss", 1)).describe(), Comment(("win", 2), 5).describe()
        ('loss in 1 move', 'win in 2 moves at depth 5')
        """
        out = []
        if self.score is not None:
            kind, value = self.score
            what = (
                f"score {self.text().split()[0].split('/')[0]}"
                if kind == "cp"
                else f"{kind} in {value} move{'' if value == 1 else 's'}"
            )
            out.append(what + ("" if self.depth is None else f" at depth {self.depth}"))
        if self.used_ms is not None:
            out.append(f"{self.used_ms // 1000}.{self.used_ms % 1000:03d} s used")
        if self.clocks_ms is not None:
            out.append(
                f"clocks Black {_clock(self.clocks_ms[0])} Gold {_clock(self.clocks_ms[1])}"
            )
        return ", ".join(out)

    @classmethod
    def parse(cls, text: str) -> Comment:
        """Read a comment's text (between the braces), exactly as :meth:`text`
        writes it; anything else raises :class:`CommentError` with the offset.

        >>> Comment.parse("L2/7 b=0:03.500 g=0:09.000")
        Comment(score=('loss', 2), depth=7, used_ms=None, clocks_ms=(3500, 9000))
        >>> Comment.parse("1.234s +0.35/12").score
        Traceback (most recent call last):
        ...
        kamisado.rules.record.CommentError: expected the fields in the order score, \
time used, clocks; found the score '+0.35/12' after the time used
        """
        if not text:
            raise CommentError(0, f"expected a score, the time used or the clocks ({_COMMENT_FORM}),"
                                  " found an empty comment")
        score: tuple[str, int] | None = None
        depth: int | None = None
        used: int | None = None
        clocks: list[int | None] = [None, None]
        order = ("the score", "the time used", "Black's clock", "Gold's clock")
        last = -1
        at = 0
        for word in text.split(" "):
            where = at
            at += len(word) + 1
            if not word:
                raise CommentError(where, "expected one space between a comment's fields,"
                                          " found another space" if where < len(text) else
                                   "expected a field after the space, found '}'")
            if m := _EVAL_RE.fullmatch(word):
                kind = 0
                if m["sign"]:
                    cp = int(m["units"]) * 100 + int(m["cents"])
                    if m["sign"] == "-" and cp == 0:
                        raise CommentError(where, "expected '+0.00' for a score of zero,"
                                                  " found '-0.00'")
                    score = ("cp", -cp if m["sign"] == "-" else cp)
                else:
                    score = ("win" if m["wl"] == "W" else "loss", int(m["n"]))
                depth = None if m["depth"] is None else int(m["depth"])
            elif m := _USED_RE.fullmatch(word):
                kind = 1
                used = int(m["s"]) * 1000 + int(m["ms"])
            elif m := _CLOCK_RE.fullmatch(word):
                kind = 2 if m["side"] == "b" else 3
                clocks[kind - 2] = (int(m["m"]) * 60 + int(m["s"])) * 1000 + int(m["ms"])
            else:
                raise CommentError(where, _field_error(word))
            if kind <= last:
                what = "twice" if kind == last else f"after {order[last]}"
                raise CommentError(
                    where,
                    f"expected the fields in the order score, time used, clocks; found"
                    f" {order[kind]} {word!r} {what}",
                )
            last = kind
        if (clocks[0] is None) != (clocks[1] is None):
            missing = "g=" if clocks[1] is None else "b="
            raise CommentError(
                len(text) if clocks[1] is None else 0,
                f"expected both clocks, Black's then Gold's ('b=1:58.766 g=2:00.000'),"
                f" found no {missing} clock",
            )
        both = None if clocks[0] is None or clocks[1] is None else (clocks[0], clocks[1])
        return cls(score, depth, used, both)


def _field_error(word: str) -> str:
    """Why ``word`` is not a comment's field, naming the field it looks like."""
    if word[:1] in "+-WL" and not word.endswith("s"):
        return (
            "expected a score with two decimals in towers (+0.35, -1.20, +0.00) or a"
            f" proven win or loss in N moves (W3, L2), then '/depth' if known; found {word!r}"
        )
    if word[:2] in ("b=", "g="):
        return (
            f"expected a clock as minutes:seconds.milliseconds ({word[:2]}1:58.766),"
            f" found {word!r}"
        )
    if word.endswith("s") and word[:1].isdigit():
        return f"expected the time used as seconds with three decimals and 's' (1.234s), found {word!r}"
    return (
        f"expected a score (+0.35/12, W3/12), the time used (1.234s) or the clocks"
        f" (b=1:58.766 g=2:00.000), found {word!r}"
    )


def _check_early_end(match: Match, end: GameEnd | None) -> None:
    if end is None:
        return
    if not isinstance(end, GameEnd):
        raise MalformedError(f"an early end is a GameEnd, found {end!r}")
    if not end.early:
        raise MalformedError(
            f"a game ends by {end.reason} only by the rules, as the moves show; an early"
            f" end is one of {', '.join(EARLY_REASONS)}"
        )
    if match.state == OVER:
        natural = game_end(match)
        assert natural is not None
        raise MalformedError(
            f"an early end ({end.reason}) is for a match that stopped before its end;"
            f" this match is over ({_score(match.points)}, {natural.reason})"
        )


@dataclass(eq=False)
class Record:
    """A match with its header lines (players, date, anything else).

    ``headers`` keeps the ``Key: value`` lines in order; the ``Match`` and
    ``Result`` lines are computed from ``match`` and never stored there.
    ``early_end`` says how a match stopped before its natural end (see
    :attr:`end`).  Two records are equal when their headers (in order), their
    matches (type, every round's start, fill, moves and outcome, the live
    position, points and state) and their early ends are equal.
    """

    headers: dict[str, str]
    match: Match
    early_end: GameEnd | None = None
    """How the match stopped before its natural end (time, illegal move,
    crash, no answer, resignation, abandonment, adjudication); ``None`` when it did not."""
    comments: dict[tuple[int, int], Comment] = field(default_factory=dict)
    """Each commented move's :class:`Comment`, by ``(round, ply)``: the
    round's number from 1 and the move's number in its round from 1 (the
    ``round`` and ``ply`` of :func:`replay`'s steps)."""

    def __post_init__(self) -> None:
        _check_early_end(self.match, self.early_end)
        _check_comments(self.match, self.comments)

    # Two signatures so that ``**headers`` (a ``dict[str, str]``) type-checks
    # whether or not ``end`` is given.
    @overload
    @classmethod
    def new(
        cls,
        match: Match,
        black: str = "",
        gold: str = "",
        date: str | None = None,
        **extra: str,
    ) -> Record: ...

    @overload
    @classmethod
    def new(
        cls,
        match: Match,
        black: str = "",
        gold: str = "",
        date: str | None = None,
        *,
        end: GameEnd | None,
        **extra: str,
    ) -> Record: ...

    @classmethod
    def new(
        cls,
        match: Match,
        black: str = "",
        gold: str = "",
        date: str | None = None,
        *,
        end: object = None,
        **extra: str,
    ) -> Record:
        """A record of ``match`` with ``Black``, ``Gold``, ``Date`` and extra headers.

        ``date=None`` means today's date (ISO ``YYYY-MM-DD``).  Extra keyword
        arguments become further header lines, in order (``Event="Club"``).
        ``end`` records an early end of a match that is not over (a goal or a
        deadlock ending the match is read from the moves instead).  The moves'
        comments go into :attr:`comments` afterwards (``write`` checks them):

        >>> rec = Record.new(Match(3), "Ann", "Bob", "2026-11-22",
        ...                  end=GameEnd(1, "time", "Black's clock ran out"))
        >>> rec.end, result_text(rec)
        (GameEnd(winner=1, reason='time', detail="Black's clock ran out"), \
"Gold wins, Black 0, Gold 0 (time: Black's clock ran out)")
        >>> Record.new(Match(3), end=GameEnd(0, "goal"))
        Traceback (most recent call last):
        ...
        kamisado.MalformedError: a game ends by goal only by the rules, as the moves \
show; an early end is one of time, illegal move, crash, no answer, resignation, abandonment, \
adjudication
        """
        if date is None:
            date = datetime.date.today().isoformat()
        headers = {"Black": black, "Gold": gold, "Date": date}
        headers.update(extra)
        if end is not None and not isinstance(end, GameEnd):
            raise MalformedError(f"an early end is a GameEnd, found {end!r}")
        rec = cls(headers, match, end)
        _check_headers(rec.headers)
        return rec

    @property
    def end(self) -> GameEnd | None:
        """How the game ended: the early end, else (for a match that is over)
        the last round's ``goal`` or ``deadlock`` and the match's winner, else
        ``None`` (unfinished)."""
        return self.early_end if self.early_end is not None else game_end(self.match)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Record):
            return NotImplemented
        return (
            list(self.headers.items()) == list(other.headers.items())
            and self.match.key() == other.match.key()
            and self.early_end == other.early_end
            and self.comments == other.comments
        )


def _check_comments(match: Match, comments: object) -> None:
    """Every comment is a :class:`Comment` on a move the match holds."""
    if not isinstance(comments, dict):
        raise MalformedError(f"a record's comments are a dict, found {comments!r}")
    for key, comment in comments.items():
        ok = (
            isinstance(key, tuple)
            and len(key) == 2
            and all(type(k) is int for k in key)
            and 1 <= key[0] <= len(match.rounds)
            and 1 <= key[1] <= len(match.rounds[key[0] - 1].moves)
        )
        if not ok:
            raise MalformedError(
                f"a comment is on a move of the match, (round, ply) from (1, 1); found {key!r}"
            )
        if not isinstance(comment, Comment):
            raise MalformedError(f"a move's comment is a Comment, found {comment!r}")


def _check_headers(headers: dict[str, str]) -> None:
    for key, value in headers.items():
        if not isinstance(key, str) or not _KEY_RE.fullmatch(key):
            raise MalformedError(
                "a header key is letters, digits, '_', '.', '-' and single spaces,"
                f" starting with a letter; found {key!r}"
            )
        if key in COMPUTED_HEADERS or _ROUND_RE.match(key):
            raise MalformedError(
                f"header key {key!r} is reserved (the Match and Result lines are"
                " written from the match; 'Round' starts a round)"
            )
        if (
            not isinstance(value, str)
            or value != value.strip()
            or any(ch in value for ch in _LINE_BREAKS)
        ):
            raise MalformedError(
                f"header {key!r}: a value is one line without leading or trailing"
                f" spaces, found {value!r}"
            )


# ---------------------------------------------------------------------------
# Describing rounds
# ---------------------------------------------------------------------------


def start_kpn(rnd: Round) -> str:
    """The KPN a round started from, as written on its ``Start:`` line.

    When loading the KPN made the rules pass blocked towers, the round's
    ``start`` shows the position after those passes; the KPN written is the
    one before them, so the passes stay in the record.
    """
    return _start(rnd)[0]


def _start(rnd: Round) -> tuple[str, list[Entry]]:
    """The ``Start:`` KPN of a round and the passes loading it applies."""
    start = rnd.start
    text = start.kpn()
    if not start.initial_passes:
        return text, []
    first = start.initial_passes[0]
    fields = text.split()
    fields[1] = "bg"[first.side]
    fields[2] = COLOUR_LETTERS[first.colour]
    before = " ".join(fields)
    try:
        again = Position(before)
    except KamisadoError:  # pragma: no cover - defensive
        return text, []
    if again.initial_passes != start.initial_passes or again != start:
        # The passes are not those of loading this position (a start given
        # as a Position that already had moves made on it).
        return text, []
    return before, entries_after_load(start)


def _start_entries(rnd: Round) -> list[Entry]:
    """Entries of the passes applied when the round's start was loaded."""
    return _start(rnd)[1]


def start_entries(rnd: Round) -> list[Entry]:
    """The entries a round's move list opens with: the passes the rules
    applied when its start was loaded (ply 0 of :func:`match_entries`)."""
    return _start(rnd)[1]


class Ply(NamedTuple):
    """A move of a round and the entries it writes; ply 0 of a round is its
    start (``move`` is ``None``), with the passes loading the start applied."""

    move: Move | None
    entries: list[Entry]
    """The move, a pushed tower's ``Back 1`` entry, then the passes."""


class RoundEntries(NamedTuple):
    """One round of a match as a record lists it (see :func:`match_entries`)."""

    number: int
    """Round number, from 1."""
    round: Round
    start: str
    """The KPN of the round's ``Start:`` line (:func:`start_kpn`)."""
    filler: int | None
    """The side that chose the fill setting this round up (``None``: no fill)."""
    plies: list[Ply]
    """The start (ply 0), then each move of the round with its entries."""
    winner: str | None
    """The text of the round's ``Winner:`` line (``None`` until it ends)."""

    @property
    def entries(self) -> list[Entry]:
        """Every entry of the round in order, as the move lines list them."""
        return [e for ply in self.plies for e in ply.entries]


def _plies(rnd: Round, start: list[Entry]) -> list[Ply]:
    pos = rnd.start.copy(stack=False)
    plies = [Ply(None, start)]
    for move in rnd.moves:
        plies.append(Ply(move, move_entries(pos, move)))
        pos.push(move)
    return plies


def match_entries(match: Match) -> Iterator[RoundEntries]:
    """Walk a match's entries round by round: the one way to list its moves
    (the writer, the terminal game and the web page all read them here).

    >>> m = Match(1)
    >>> for token in ["c1-c5", "b8-b3"]:
    ...     _ = m.push_move(token)
    >>> [(r.number, r.start, [e.short() for e in r.entries]) for r in match_entries(m)]
    [(1, 'obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0', ['rF4', 'bF5'])]
    """
    scores = _scores(match)
    previous = [0, 0] if match.series else match.rounds[0].start.points[:]
    for i, rnd in enumerate(match.rounds):
        kpn, start = _start(rnd)
        filler = None
        if rnd.fill is not None:
            prev = match.rounds[i - 1].outcome
            assert prev is not None
            filler = prev.winner
        winner = None
        if rnd.outcome is not None:
            score = scores[i]
            gained = score[rnd.outcome.winner] - previous[rnd.outcome.winner]
            winner = winner_text(rnd.outcome, gained, score)
            previous = score
        yield RoundEntries(i + 1, rnd, kpn, filler, _plies(rnd, start), winner)


def round_entries(rnd: Round) -> list[Entry]:
    """Every entry of a round in order: passes applied when its start was
    loaded, then each move's entries (move, pushed tower's ``Back 1``, passes)."""
    return [e for ply in _plies(rnd, _start_entries(rnd)) for e in ply.entries]


def _points_word(n: int) -> str:
    return f"{n} point" if n == 1 else f"{n} points"


def _score(points: list[int] | tuple[int, int]) -> str:
    return f"Black {points[0]}, Gold {points[1]}"


def _scores(match: Match) -> list[list[int]]:
    """Score after each finished round of ``match``."""
    points = [0, 0] if match.series else match.rounds[0].start.points[:]
    out = []
    for rnd in match.rounds:
        if rnd.outcome is None:
            break
        points[rnd.outcome.winner] += 1 if match.series else rnd.outcome.points
        out.append(points[:])
    return out


def winner_text(outcome: Outcome, points: int, score: list[int]) -> str:
    """The text of a ``Winner:`` line (after ``Winner: ``).

    >>> from kamisado.rules.board import Outcome
    >>> winner_text(Outcome(1, 5, "goal", 0), 1, [0, 1])
    'Gold, purple tower, goal, 1 point (Black 0, Gold 1)'
    """
    return (
        f"{SIDE_NAMES[outcome.winner]}, {COLOUR_NAMES[outcome.colour]} tower,"
        f" {outcome.reason}, {_points_word(points)} ({_score(score)})"
    )


def result_text(record: Record | Match) -> str:
    """The text of the ``Result:`` line (see ``docs/records.md``).

    A match over by the rules: the score and how its last round ended; an
    early end: the winner, the score when the match stopped and the reason,
    with the detail after ``:``; else ``unfinished``.

    >>> result_text(Match(3))
    'unfinished'
    >>> m = Match(1, start=Position("u5pg/3b4/8/8/2rRyo2/1PnU4/3G4/N4OBY b g"))
    >>> _ = m.push_move("d2-e3")
    >>> result_text(m)
    'Black 0, Gold 1 (deadlock)'
    >>> result_text(Record(
    ...     {}, Match(3), GameEnd(0, "illegal move", "Gold played c8-c1")))
    'Black wins, Black 0, Gold 0 (illegal move: Gold played c8-c1)'
    """
    if isinstance(record, Record):
        match, end = record.match, record.end
    else:
        match, end = record, game_end(record)
    if end is None:
        return "unfinished"
    how = f"{end.reason}: {end.detail}" if end.detail else end.reason
    if not end.early:
        return f"{_score(match.points)} ({how})"
    return f"{SIDE_NAMES[end.winner]} wins, {_score(match.points)} ({how})"


# Every public name here is kamisado.rules.record's (it re-exports them): so
# they are named there in tracebacks, pickles and the API reference, as before,
# and their doctests (methods' too) run as that module's.
def _rehome(obj: object, module: str = "kamisado.rules.record") -> None:
    """Name ``module`` as the home of ``obj`` (a function or class defined here,
    and a class's methods, properties and nested classes)."""
    obj = getattr(obj, "__func__", getattr(obj, "fget", obj))
    if hasattr(obj, "__module__") and getattr(obj, "__module__", None) == __name__:
        obj.__module__ = module
    if isinstance(obj, type):
        for member in vars(obj).values():
            _rehome(member, module)


for _public in (
    GameEnd, Comment, CommentError, Record, Ply, RoundEntries, game_end, start_kpn,
    start_entries, match_entries, round_entries, winner_text, result_text,
):
    _rehome(_public)
del _public
