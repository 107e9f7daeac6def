"""Move comments in match records: ``{+0.35/12 1.234s b=1:58.766 g=2:00.000}``
after a move, kept by the reader on that move and written back exactly."""

from __future__ import annotations

import random
import re

import pytest

from kamisado.rules.board import MalformedError
from kamisado.rules.match import Match
from kamisado.rules.record import Comment, CommentError, Record, read, replay, write
from tests.test_record import KINDS, body, play_random

START = "obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 3 0 0"
FIG9 = "1ng1r+o+1u/8/3y+4/3b2P+1/3G++4/7p/8/N+RY1UB1O b g 7 5 3"


def random_comment(rng: random.Random) -> Comment:
    """A comment with a random choice of fields left out (never all)."""
    while True:
        kind = rng.choice(["cp", "win", "loss", None])
        score = None if kind is None else (kind, rng.randrange(-3000, 3000) if kind == "cp"
                                           else rng.randrange(0, 30))
        depth = rng.randrange(0, 40) if score is not None and rng.random() < 0.7 else None
        used = rng.randrange(0, 200_000) if rng.random() < 0.6 else None
        clocks = ((rng.randrange(0, 4_000_000), rng.randrange(0, 4_000_000))
                  if rng.random() < 0.5 else None)
        if score is not None or used is not None or clocks is not None:
            return Comment(score, depth, used, clocks)


@pytest.mark.parametrize("seed", range(24))
def test_random_commented_records_round_trip(seed: int) -> None:
    target, series = KINDS[seed % len(KINDS)]
    rng = random.Random(seed)
    match, _ = play_random(target, series, seed, None if seed % 2 else rng.randrange(1, 120))
    moves = [(r, p) for r, rnd in enumerate(match.rounds, 1)
             for p in range(1, len(rnd.moves) + 1)]
    chosen = rng.sample(moves, k=min(len(moves), rng.randrange(1, 40)))
    comments = {key: random_comment(rng) for key in chosen}
    rec = Record.new(match, "Ann", "Bob", "2026-11-22")
    rec.comments.update(comments)
    text = write(rec)
    assert text.count("{") == len(comments)
    again = read(text)
    assert again == rec and again.comments == comments
    assert write(again) == text
    # every step of the replay carries its move's comment
    seen = {(s.round, s.ply): s.comment for s in replay(again) if s.comment is not None}
    assert seen == comments
    # without comments the record is another record
    assert read(text) != Record.new(match, "Ann", "Bob", "2026-11-22")


def test_the_comment_follows_its_move_even_across_back_entries_and_passes() -> None:
    # Figure 9's double push: each move's Back 1 entry sits in Gold's column,
    # the comment stays on Black's move
    m = Match(7, start=FIG9)
    for t in ("d4-d5", "d5-d6", "g5-g8"):
        m.push_move(t)
    comments = {(1, 1): Comment(("cp", 120), 5), (1, 2): Comment(used_ms=7),
                (1, 3): Comment(("win", 1), 1, 3, (60_000, 1_000))}
    text = write(Record(dict(Black="L", Gold="A", Date="2026-11-22"), m, None, comments))
    lines = text.splitlines()
    assert lines[-4:-1] == [
        "  1. Green Forward 1 Orange {+1.20/5}  Yellow Back 1 Green",
        "  2. Green Forward 1 Red {0.007s}  Yellow Back 1 Pink",
        "  3. Pink Forward 3 Green {W1/1 0.003s b=1:00.000 g=0:01.000}",
    ]
    assert read(text).comments == comments


def test_uncommented_lines_keep_the_old_layout_and_short_forms_take_comments() -> None:
    lines = "1. c1-c5 {-0.40/3} b8-b3\n2. yR3 {L2/9 0.500s}\n"
    rec = read(body(START, lines))
    assert rec.comments == {(1, 1): Comment(("cp", -40), 3), (1, 3): Comment(("loss", 2), 9, 500)}
    assert write(rec).splitlines()[-2:] == [
        "  1. Red Forward 4 Blue {-0.40/3}  Blue Forward 5 Yellow",
        "  2. Yellow Right 3 Purple {L2/9 0.500s}",
    ]
    plain = write(read(body(START, "1. c1-c5 b8-b3\n")))
    assert "  1. Red Forward 4 Blue       Blue Forward 5 Yellow" in plain


@pytest.mark.parametrize(
    ("line", "col", "words"),
    [
        ("1. rF4 {+0.35/12 1.2s} bF5", 18, "expected the time used as seconds with three decimals"),
        ("1. rF4 {+0.35/12 bF5", 21, "expected '}' closing the comment opened at column 8"),
        ("1. rF4 {+0.35 {W1}} bF5", 15, "a comment holds no braces"),
        ("1. rF4 } bF5", 8, "expected '{' before '}'"),
        ("1. {+0.35} rF4 bF5", 4, "expected an entry before '{'"),
        ("1. rF4 {+0.35} {W1} bF5", 16, "one comment a move"),
        ("1. rF4 {} bF5", 9, "found an empty comment"),
        ("1. rF4 {-0.00} bF5", 9, "expected '+0.00' for a score of zero"),
        ("1. rF4 {0.35} bF5", 9, "expected a score (+0.35/12, W3/12)"),
        ("1. rF4 {+0.3} bF5", 9, "expected a score with two decimals"),
        ("1. rF4 {+0.35  1.000s} bF5", 15, "expected one space between"),
        ("1. rF4 {1.000s +0.35} bF5", 16, "found the score '+0.35' after the time used"),
        ("1. rF4 {W1 W2} bF5", 12, "found the score 'W2' twice"),
        ("1. rF4 {b=1:00.000} bF5", 19, "expected both clocks"),
        ("1. rF4 {g=1:00.000 b=1:00.000} bF5", 20, "found Black's clock 'b=1:00.000' after Gold's clock"),
        ("1. rF4 {b=1:60.000 g=0:00.000} bF5", 9, "expected a clock as minutes:seconds"),
        ("1. rF4 {W01} bF5", 9, "expected a score with two decimals"),
        ("1. rF4 {/12} bF5", 9, "expected a score (+0.35/12"),
        ("1. ... {W1} rF4", 8, "found it after '...'"),
    ],
)
def test_a_malformed_comment_is_an_error_at_its_line_and_column(
    line: str, col: int, words: str
) -> None:
    text = body(START, line + "\n")
    with pytest.raises(MalformedError) as info:
        read(text)
    message = str(info.value)
    assert message.startswith(f"line 10, column {col}: "), message
    assert words in message, message


def test_a_comment_after_a_pushed_towers_entry_or_a_pass_is_refused() -> None:
    text = body(FIG9, "1. Green Forward 1 Orange Yellow Back 1 Green {+0.10}\n",
                "Long", "unfinished")
    with pytest.raises(MalformedError, match=r"^line 10, column 47: expected a move before"
                       r" '\{'.*pushed tower's entry 'Yellow Back 1 Green'"):
        read(text)
    fig6 = "u5pg/3b4/8/8/2rRyo2/1PnU4/3G4/N4OBY b g 3 0 0"
    text = body(fig6, "1. Green Right 1 Red {+0.10} Red 0 Green {W1}\n")
    with pytest.raises(MalformedError, match=r"^line 10, column 42: .*a pass 'Red 0 Green'"):
        read(text)


def test_comment_values_are_checked() -> None:
    for bad in [dict(score=("mate", 3)), dict(score=("win", -1)), dict(depth=3),
                dict(used_ms=-1), dict(clocks_ms=(1, -1)), dict(), dict(score=("cp", 1.5))]:
        with pytest.raises(MalformedError):
            Comment(**bad)  # type: ignore[arg-type]
    with pytest.raises(MalformedError, match="a comment is on a move of the match"):
        Record({}, Match(3), None, {(1, 1): Comment(used_ms=1)})
    rec = Record.new(Match(3))
    rec.comments[(1, 0)] = Comment(used_ms=1)  # a start is no move: write refuses it
    with pytest.raises(MalformedError, match=r"found \(1, 0\)"):
        write(rec)
    with pytest.raises(CommentError) as info:
        Comment.parse("+0.35/12 1.000s b=0:01.000 g=x")
    assert info.value.offset == 27


def test_text_and_parse_are_inverse_on_the_edges() -> None:
    for c, text in [
        (Comment(("cp", 0)), "+0.00"),
        (Comment(("cp", -100), 0), "-1.00/0"),
        (Comment(("cp", 12345)), "+123.45"),
        (Comment(("loss", 0)), "L0"),
        (Comment(used_ms=0), "0.000s"),
        (Comment(used_ms=61_001), "61.001s"),
        (Comment(clocks_ms=(0, 3_600_000)), "b=0:00.000 g=60:00.000"),
    ]:
        assert c.text() == text
        assert Comment.parse(text) == c


def test_every_mutated_comment_is_an_error_with_a_location_or_still_round_trips() -> None:
    rng = random.Random(8)
    match, _ = play_random(3, False, 8, 30)
    rec = Record.new(match, "Ann", "Bob", "2026-11-22")
    for n, rnd in enumerate(match.rounds, 1):
        for ply in range(1, len(rnd.moves) + 1):
            rec.comments[(n, ply)] = random_comment(rng)
    text = write(rec)
    spots = [i for i, ch in enumerate(text) if ch in "{}" or text.rfind("{", 0, i) > text.rfind("}", 0, i)]
    errors = 0
    for _ in range(300):
        chars = list(text)
        for _ in range(rng.randrange(1, 3)):
            chars[rng.choice(spots)] = rng.choice("{} +-/.:=sbgWL0159x")
        mutated = "".join(chars)
        try:
            again = read(mutated)
        except ValueError as exc:
            errors += 1
            assert re.match(r"line \d+, column \d+: ", str(exc)), str(exc)
        else:  # what is read is written back as read
            assert read(write(again)) == again
    assert errors > 200
