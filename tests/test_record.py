"""Match records: round trips, lenient input, resuming, replay and errors."""

from __future__ import annotations

import datetime
import random
import re
from pathlib import Path

import pytest

from kamisado.rules.board import (
    AmbiguousMoveError,
    IllegalMoveError,
    KamisadoError,
    MalformedError,
    Move,
)
from kamisado.rules.match import FILL, FILLS, OVER, Match
from kamisado.rules.notation import parse_move
from kamisado.rules.position import Position
from kamisado.rules.record import (
    REASONS,
    GameEnd,
    Record,
    load,
    match_entries,
    read,
    replay,
    round_entries,
    save,
    start_kpn,
    write,
)

START_KPN_3 = "obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 3 0 0"
DOCS = Path(__file__).resolve().parent.parent / "docs" / "records.md"

# Rulebook Figure 6: Gold's blue tower has just moved to a green square; Black's
# green tower has one move (diagonally right to a red square) after which Gold's
# red tower and Black's green tower are both blocked: a deadlock Black caused.
FIG6 = "u5pg/3b4/8/8/2rRyo2/1PnU4/3G4/N4OBY b g 3 0 0"
# Rulebook Figure 9: a Long Match, Black 5 Gold 3; Gold's pink tower has just
# moved to a green square; Black's green Double Sumo can push two towers.
FIG9 = "1ng1r+o+1u/8/3y+4/3b2P+1/3G++4/7p/8/N+RY1UB1O b g 7 5 3"

KINDS = [
    (1, False),
    (3, False),
    (7, False),
    (15, False),
    (3, True),
    (2, True),
]


def play_random(
    target: int, series: bool, seed: int, limit: int | None = None
) -> tuple[Match, list[Move | str]]:
    """A match of random legal moves and fills; returns it and its actions."""
    rng = random.Random(seed)
    match = Match(target, series=series)
    actions: list[Move | str] = []
    while match.state != "over" and len(actions) < (limit if limit is not None else 2000):
        if match.state == "fill":
            action: Move | str = rng.choice(["left", "right"])
            match.choose_fill(action)
        else:
            action = rng.choice(match.legal_moves())
            match.push_move(action)
        actions.append(action)
    return match, actions


def apply(match: Match, actions: list[Move | str]) -> None:
    for action in actions:
        if isinstance(action, str):
            match.choose_fill(action)
        else:
            match.push_move(action)


def record_of(match: Match) -> Record:
    return Record.new(match, black="Johan", gold="Alain", date="2026-11-22")


def body(kpn: str, lines: str, match_type: str = "Standard", result: str = "unfinished") -> str:
    return (
        f"Kamisado match record\nMatch: {match_type}\nBlack: Johan\nGold: Alain\n"
        f"Date: 2026-11-22\nResult: {result}\n\nRound 1\nStart: {kpn}\n{lines}"
    )


# ---------------------------------------------------------------------------
# Round trips
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(40))
def test_round_trip_random_matches(seed: int) -> None:
    target, series = KINDS[seed % len(KINDS)]
    rng = random.Random(1000 + seed)
    limit = None if seed % 3 == 0 else rng.randrange(0, 150)
    match, _ = play_random(target, series, seed, limit)
    rec = Record.new(match, "Johan", "Alain", "2026-11-22", Event="Club night", Round_of="3")
    text = write(rec)
    again = read(text)
    assert again == rec
    assert write(again) == text
    assert again.match.state == match.state
    assert again.match.position.kpn() == match.position.kpn()
    assert again.match.points == match.points


def test_random_matches_cover_pushes_passes_and_deadlocks() -> None:
    texts = []
    for seed in range(120):
        target, series = KINDS[seed % len(KINDS)]
        match, _ = play_random(target, series, seed)
        text = write(record_of(match))
        assert write(read(text)) == text
        texts.append(text)
    joined = "\n".join(texts)
    assert re.search(r"\w+ Back 1 \w+", joined)
    assert re.search(r"\b[A-Z][a-z]+ 0 [A-Z][a-z]+", joined)
    assert ", deadlock, " in joined
    assert "fills left" in joined and "fills right" in joined
    assert "Match: Series to 3" in joined and "Match: Marathon" in joined


def test_written_layout() -> None:
    m = Match(3)
    for token in ["c1-c5", "b8-b3", "d1-g4", "c8-d7", "b1-e4", "a8-a3"]:
        m.push_move(token)
    text = write(Record.new(m, "Johan", "Alain", "2026-11-22", Event="Demo"))
    assert text == (
        "Kamisado match record\n"
        "Match: Standard\n"
        "Black: Johan\n"
        "Gold: Alain\n"
        "Date: 2026-11-22\n"
        "Event: Demo\n"
        "Result: unfinished\n"
        "\n"
        "Round 1\n"
        "Start: obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 3 0 0\n"
        "  1. Red Forward 4 Blue       Blue Forward 5 Yellow\n"
        "  2. Yellow Right 3 Purple    Purple Left 1 Green\n"
        "  3. Green Right 3 Orange     Orange Forward 5 Blue\n"
    )


def test_figure6_deadlock() -> None:
    match = Match(3, start=FIG6)
    match.push_move("d2-e3")
    assert match.state == "fill"
    rec = record_of(match)
    text = write(rec)
    assert text.endswith(
        "Round 1\n"
        f"Start: {FIG6}\n"
        "  1. Green Right 1 Red        Red 0 Green\n"
        "  2. Green 0 Red\n"
        "Winner: Gold, red tower, deadlock, 1 point (Black 0, Gold 1)\n"
    )
    again = read(text)
    assert again == rec and again.match.state == "fill"
    # The ring goes on Gold's red tower; the next round is set up by the rules.
    again.match.choose_fill("left")
    text2 = write(again)
    assert "Round 2 (Gold fills left)\nStart: " in text2
    assert "r+" in text2.split("Round 2")[1].splitlines()[1]
    assert read(text2) == again
    # The same deadlock from square-form input, passes left to the rules.
    short = read(body(FIG6, "  1. d2-e3\nWinner: Gold, red tower, deadlock, 1 point (Black 0, Gold 1)\n"))
    assert short == rec


def test_deadlock_and_passes_when_the_start_is_loaded() -> None:
    # Gold's red tower is blocked: the rules pass it before anyone moves.
    kpn = FIG6.replace(" b g ", " g r ")
    match = Match(3, start=kpn)
    assert start_kpn(match.rounds[0]) == kpn
    match.push_move("d2-e3")
    text = write(record_of(match))
    assert (
        "  1. ...                      Red 0 Green\n"
        "  2. Green Right 1 Red        Red 0 Green\n"
        "  3. Green 0 Red\n"
    ) in text
    assert read(text) == record_of(match)
    # Square form may leave the passes out, including the Black column's '...'.
    lenient = body(kpn, "  1. d2-e3\nWinner: Gold, red tower, deadlock, 1 point (Black 0, Gold 1)\n")
    assert read(lenient) == record_of(match)
    # A start that is a deadlock at once (Black counts as the last mover).
    dead = "u5pg/3b4/8/8/2rRyo2/1PnUG3/8/N4OBY g r 3 0 0"
    match = Match(3, start=dead)
    assert match.state == "fill"
    text = write(record_of(match))
    assert text.endswith(
        f"Start: {dead}\n"
        "  1. ...                      Red 0 Green\n"
        "  2. Green 0 Red\n"
        "Winner: Gold, red tower, deadlock, 1 point (Black 0, Gold 1)\n"
    )
    assert read(text) == record_of(match)


def test_unusual_starts() -> None:
    # A study start that is already won: the round has no entries.
    match = Match(3, start="1bupyrgn/8/8/8/N7/8/8/oGRYPUBO b - 3 0 0")
    assert match.state == "fill"
    match.choose_fill("left")
    text = write(record_of(match))
    assert "Start: 1bupyrgn/8/8/8/N7/8/8/oGRYPUBO b n 3 0 0\nWinner: Gold, orange" in text
    assert read(text) == record_of(match)
    # Black's brown tower is blocked at the start: its pass is the first entry.
    kpn = "obupyrgn/8/8/8/8/8/PU6/NGRY2BO b n 1 0 0"
    match = Match(1, start=kpn)
    assert write(record_of(match)).endswith(f"Start: {kpn}\n  1. Brown 0 Brown\n")
    # A start given as a Position with moves already made on it: its load-time
    # passes are history, not entries of the round.
    pos = Position(kpn)
    pos.push_move("h8-h7")
    match = Match(1, start=pos)
    text = write(record_of(match))
    assert text.endswith(f"Start: {pos.kpn()}\n")
    assert read(text) == record_of(match) and write(read(text)) == text


FIG9_PUSHES = (
    "  1. Green Forward 1 Orange   Yellow Back 1 Green\n"
    "  2. Green Forward 1 Red      Yellow Back 1 Pink\n"
    "  3. Pink Forward 3 Green\n"
    "Winner: Black, pink tower, goal, 2 points (Black 7, Gold 3)\n"
)


def test_figure9_double_push() -> None:
    match = Match(7, start=FIG9)
    for token in ["d4-d5", "d5-d6", "g5-g8"]:
        match.push_move(token)
    assert match.state == "over" and match.points == [7, 3]
    rec = record_of(match)
    text = write(rec)
    assert text == body(FIG9, FIG9_PUSHES, "Long", "Black 7, Gold 3 (goal)")
    assert read(text) == rec
    # Figure 9(e): after the first push the Double Sumo itself reaches the home row.
    match = Match(7, start=FIG9)
    for token in ["d4-d5", "d5-a8"]:
        match.push_move(token)
    assert write(record_of(match)).endswith(
        "  1. Green Forward 1 Orange   Yellow Back 1 Green\n"
        "  2. Green Left 3 Orange\n"
        "Winner: Black, green tower, goal, 4 points (Black 9, Gold 3)\n"
    )


# ---------------------------------------------------------------------------
# Lenient input
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "lines",
    [
        "  1. gF1 yB1\n  2. gF1 yB1\n  3. pF3\n",  # short form, every entry
        "  1. gF1 gF1\n  2. pF3\n",  # short form, Back entries left to the rules
        "  1. d4-d5 d5-d6\n  2. g5-g8\n",  # square form
        "  1. d4-d5 Yellow Back 1 Green\n  2. d5-d6 yB1\n  3. g5-g8\n",  # mixed
        "  1. d5   d6\n  2. g8\n",  # destination squares
        "1.   Green  forward 1   orange   Yellow Back 1 Green\n"  # loose spacing, any case
        "2. gF1 Yellow Back 1 Pink\n3. Pink Forward 3 Green\n",
    ],
)
def test_short_and_square_forms(lines: str) -> None:
    winner = "Winner: Black, pink tower, goal, 2 points (Black 7, Gold 3)\n"
    rec = read(body(FIG9, lines + winner, "Long", "Black 7, Gold 3"))
    assert write(rec) == body(FIG9, FIG9_PUSHES, "Long", "Black 7, Gold 3 (goal)")


@pytest.mark.parametrize(
    "lines",
    [
        "  1. GF1 YB1\n  2. Gf1 yb1\n  3. PF3\n",  # short forms in any case, as the notation reads them
        "  1. GF1 GF1\n  2. PF3\n",
    ],
)
def test_short_forms_in_any_case(lines: str) -> None:
    winner = "Winner: Black, pink tower, goal, 2 points (Black 7, Gold 3)\n"
    rec = read(body(FIG9, lines + winner, "Long", "Black 7, Gold 3"))
    assert write(rec) == body(FIG9, FIG9_PUSHES, "Long", "Black 7, Gold 3 (goal)")


@pytest.mark.parametrize(
    "lines",
    [
        # 'forwards' and 'backwards' (any case), as the rulebook words them
        "  1. Green forwards 1 Orange   Yellow BACKWARDS 1 Green\n"
        "  2. Green Forwards 1 Red      Yellow Backward 1 Pink\n  3. Pink Forwards 3 Green\n",
        # short forms 'Green F1 Orange': a direction letter glued to the distance
        "  1. Green F1 Orange  Yellow B1 Green\n  2. green f1 red  Yellow b1 Pink\n  3. Pink F3 Green\n",
        # no finish colours: each fits one legal move
        "  1. Green Forward 1   Yellow Back 1\n  2. Green F1 Yellow Back 1 Pink\n  3. Pink Forward 3\n",
    ],
)
def test_the_rulebooks_own_words(lines: str) -> None:
    winner = "Winner: Black, pink tower, goal, 2 points (Black 7, Gold 3)\n"
    rec = read(body(FIG9, lines + winner, "Long", "Black 7, Gold 3 (goal)"))
    assert write(rec) == body(FIG9, FIG9_PUSHES, "Long", "Black 7, Gold 3 (goal)")


def test_long_forms_without_finish_colours_follow_each_other() -> None:
    # a colour word followed by a direction or distance starts the next entry
    for lines in [
        "  1. Red Forward 4 Blue Forward 5\n  2. Yellow Right 3 Purple Left 1\n",
        "  1. Red F4 Blue F 5\n  2. Yellow R3 Purple L1 Green\n",
        "  1. Red Forward 4   Blue Forward 5 Yellow\n  2. Yellow Right 3 Purple Purple Left 1\n",
        "  1. red f4 b8-b3\n  2. Yellow Right 3 d7\n",
    ]:
        assert write(read(body(START_KPN_3, lines))) == OPENING


def test_reader_and_notation_read_the_same_moves() -> None:
    # One grammar: an entry of a move line reads as parse_move reads it alone.
    moves = OPENING[OPENING.index("  1.") :]
    assert write(read(OPENING.replace(moves, "  1. RF4  bf5\n  2. Yr3  uL1\n"))) == OPENING
    for form in ("rf4", "RF4", "Rf4", "c1-c5", "rF4", "RED forward 4 blue"):
        assert str(parse_move(Position(), form)) == "c1-c5"
        line = f"  1. {form}  Blue Forward 5 Yellow\n  2. Yellow Right 3 Purple    uL1\n"
        assert write(read(OPENING.replace(moves, line))) == OPENING


def test_square_form_opening_with_defaults() -> None:
    # No Start line: round 1 starts from the colour-matching start.
    text = (
        "Kamisado match record\nMatch: Single Round\nResult: unfinished\n\nRound 1\n"
        "  1. c1-c5 b8-b3\n  2. yR3 uL1\n  3. Green Right 3 Orange\n"
    )
    rec = read(text)
    assert rec.headers == {}
    assert rec.match.position.kpn() == "o2pyrgn/3u4/8/2R5/4G1Y1/1b6/8/N3PUBO g o 1 0 0"
    assert write(rec).splitlines()[6:] == [
        "  1. Red Forward 4 Blue       Blue Forward 5 Yellow",
        "  2. Yellow Right 3 Purple    Purple Left 1 Green",
        "  3. Green Right 3 Orange",
    ]


def test_crlf_bom_and_files(tmp_path: Path) -> None:
    match, _ = play_random(3, False, 7)
    rec = record_of(match)
    text = write(rec)
    assert read("\ufeff" + text.replace("\n", "\r\n")) == rec
    path = tmp_path / "match.kmr"
    save(rec, path)
    assert path.read_bytes() == text.encode("utf-8")
    assert load(path) == rec


# ---------------------------------------------------------------------------
# Resuming
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_resume_gives_the_same_match(seed: int, tmp_path: Path) -> None:
    target, series = KINDS[seed % len(KINDS)]
    straight, actions = play_random(target, series, 500 + seed)
    cut = random.Random(seed).randrange(len(actions) + 1)
    partial = Match(target, series=series)
    apply(partial, actions[:cut])
    save(record_of(partial), tmp_path / "partial.kmr")
    resumed = load(tmp_path / "partial.kmr")
    assert resumed.match.state == partial.state
    apply(resumed.match, actions[cut:])
    assert resumed == record_of(straight)
    assert write(resumed) == write(record_of(straight))


def test_resume_at_the_fill_choice() -> None:
    match = Match(3)
    for token in ["c1-c5", "b8-b3", "d1-g4", "c8-d7", "b1-e4", "a8-a3"]:
        match.push_move(token)
    assert match.state == "playing"
    # Find a round end: play on with the first legal move.
    while match.state == "playing":
        match.push_move(match.legal_moves()[0])
    assert match.state == "fill"
    text = write(record_of(match))
    assert text.rstrip().splitlines()[-1].startswith("Winner: ")
    rec = read(text)
    assert rec.match.state == "fill"
    rec.match.choose_fill("right")
    match.choose_fill("right")
    assert rec == record_of(match)


# ---------------------------------------------------------------------------
# Replay and the API
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("target, series", KINDS)
def test_match_entries_walks_what_the_writer_writes(target: int, series: bool) -> None:
    match, _ = play_random(target, series, 13)
    walked = list(match_entries(match))
    assert [r.round for r in walked] == match.rounds
    text = write(record_of(match))
    for r in walked:
        assert r.entries == round_entries(r.round)
        assert r.plies[0].move is None and [p.move for p in r.plies[1:]] == r.round.moves
        assert f"Start: {r.start}\n" in text and r.start == start_kpn(r.round)
        assert (r.winner is None) == (r.round.outcome is None)
        if r.winner is not None:
            assert f"Winner: {r.winner}\n" in text
        if r.filler is not None:
            assert f"Round {r.number} ({('Black', 'Gold')[r.filler]} fills {r.round.fill})" in text


def test_replay_lists_every_position() -> None:
    match, _ = play_random(7, False, 11)
    steps = list(replay(record_of(match)))
    assert len(steps) == sum(len(r.moves) + 1 for r in match.rounds)
    for i, rnd in enumerate(match.rounds):
        mine = [s for s in steps if s.round == i + 1]
        assert mine[0].ply == 0 and mine[0].move is None
        assert mine[0].position == rnd.start and mine[0].fill == rnd.fill
        assert [s.move for s in mine[1:]] == rnd.moves
        assert [e for s in mine for e in s.entries] == round_entries(rnd)
        assert mine[-1].outcome == rnd.outcome
    assert steps[-1].position == match.position


def test_record_new_and_headers() -> None:
    rec = Record.new(Match(1), "A", "B", Venue="Club: room 2")
    assert list(rec.headers) == ["Black", "Gold", "Date", "Venue"]
    assert rec.headers["Date"] == datetime.date.today().isoformat()
    rec = Record.new(Match(1), date="")
    text = write(rec)
    assert "\nBlack:\nGold:\nDate:\n" in text
    assert read(text) == rec
    assert read(text) != Record.new(Match(1), gold="x", date="")
    for bad in [{"Result": "x"}, {"Bad key:": "x"}, {"Round 2": "x"}, {"Note": "two\nlines"}]:
        with pytest.raises(MalformedError):
            write(Record(bad, Match(1)))


# ---------------------------------------------------------------------------
# How a game ended: GameEnd, Record.end and the Result line
# ---------------------------------------------------------------------------


def test_game_end_is_validated() -> None:
    assert REASONS == ("goal", "deadlock", "time", "illegal move", "crash", "no answer", "resignation",
                       "abandonment", "adjudication")
    end = GameEnd(1, "time", "Black's clock ran out")
    assert (end.winner, end.reason, end.detail, end.early) == (1, "time", "Black's clock ran out", True)
    assert GameEnd(0, "deadlock") == GameEnd(0, "deadlock", "") and not GameEnd(0, "goal").early
    with pytest.raises(AttributeError):
        end.winner = 0  # type: ignore[misc]
    bad: list[tuple[object, object, object]] = [
        (2, "time", ""), (-1, "time", ""), (True, "time", ""), ("0", "time", ""),
        (0, "forfeit", ""), (0, "Time", ""), (0, "time", " late"), (0, "time", "two\nlines"),
        (0, "time", 5),
    ]
    for winner, reason, detail in bad:
        with pytest.raises(MalformedError) as info:
            GameEnd(winner, reason, detail)  # type: ignore[arg-type]
        assert isinstance(info.value, ValueError) and str(info.value).startswith("a game")


def _finished_fig6() -> Match:
    """Figure 6 as a Single Round: Gold wins the match by deadlock."""
    match = Match(1, start=FIG6.replace(" 3 0 0", " 1 0 0"))
    match.push_move("d2-e3")
    return match


def test_record_end_for_every_decided_game() -> None:
    assert record_of(Match(3)).end is None
    match = Match(7, start=FIG9)
    for token in ["d4-d5", "d5-d6", "g5-g8"]:
        match.push_move(token)
    assert record_of(match).end == GameEnd(0, "goal")
    assert record_of(_finished_fig6()).end == GameEnd(1, "deadlock")
    early = GameEnd(1, "resignation", "Black resigned")
    rec = Record.new(Match(3), "A", "B", "2026-11-22", end=early)
    assert rec.end == rec.early_end == early
    # Fig 6 in a Standard Match: the round is over, the match is not (fill choice)
    fill = Match(3, start=FIG6)
    fill.push_move("d2-e3")
    assert Record.new(fill, end=GameEnd(0, "no answer")).end == GameEnd(0, "no answer")


def test_early_end_errors() -> None:
    with pytest.raises(MalformedError, match="this match is over \\(Black 0, Gold 1, deadlock\\)"):
        Record.new(_finished_fig6(), end=GameEnd(0, "time"))
    for reason in ("goal", "deadlock"):
        with pytest.raises(MalformedError, match=f"a game ends by {reason} only by the rules"):
            Record.new(Match(3), end=GameEnd(0, reason))
    with pytest.raises(MalformedError, match="an early end is a GameEnd"):
        Record({}, Match(3), "time")  # type: ignore[arg-type]
    # the match played on to its end after the early end was recorded
    match = Match(1, start=FIG6.replace(" 3 0 0", " 1 0 0"))
    rec = Record.new(match, end=GameEnd(0, "crash"))
    match.push_move("d2-e3")
    with pytest.raises(MalformedError, match="this match is over"):
        write(rec)


@pytest.mark.parametrize(
    "end, line",
    [
        (GameEnd(1, "time", "Black's clock ran out"), "Gold wins, Black 0, Gold 0 (time: Black's clock ran out)"),
        (GameEnd(0, "illegal move", "Gold played c8-c1 (blocked)"), "Black wins, Black 0, Gold 0 (illegal move: Gold played c8-c1 (blocked))"),
        (GameEnd(0, "crash", "engine: exit status 3 (signal: none)"), "Black wins, Black 0, Gold 0 (crash: engine: exit status 3 (signal: none))"),
        (GameEnd(1, "no answer"), "Gold wins, Black 0, Gold 0 (no answer)"),
        (GameEnd(0, "resignation", "Gold resigned"), "Black wins, Black 0, Gold 0 (resignation: Gold resigned)"),
    ],
)
def test_early_end_result_lines_round_trip(end: GameEnd, line: str) -> None:
    match = Match(3)
    for token in ["c1-c5", "b8-b3"]:
        match.push_move(token)
    rec = Record.new(match, "A", "B", "2026-11-22", end=end)
    text = write(rec)
    assert f"\nResult: {line}\n" in text
    again = read(text)
    assert again == rec and again.end == end and write(again) == text
    assert again != Record.new(match, "A", "B", "2026-11-22")


def test_early_end_after_rounds_states_the_score() -> None:
    match = Match(3, start=FIG6)
    match.push_move("d2-e3")  # Gold leads 1-0 and must choose the fill
    rec = Record.new(match, "A", "B", "2026-11-22", end=GameEnd(0, "no answer", "Gold did not choose a fill"))
    text = write(rec)
    assert "\nResult: Black wins, Black 0, Gold 1 (no answer: Gold did not choose a fill)\n" in text
    assert read(text) == rec


def test_natural_result_lines() -> None:
    text = write(record_of(_finished_fig6()))
    assert "\nResult: Black 0, Gold 1 (deadlock)\n" in text
    assert read(text).end == GameEnd(1, "deadlock")
    # the older line without the reason still reads, and is written anew
    old = text.replace("Result: Black 0, Gold 1 (deadlock)", "Result: Black 0, Gold 1")
    assert read(old) == read(text) and write(read(old)) == text



@pytest.mark.parametrize(
    "forfeit, end",
    [
        ("Gold: engine 'Mock' terminated (exit status 3)", GameEnd(0, "crash", "engine 'Mock' terminated (exit status 3)")),
        ("Black: engine 'x' did not answer 'bestmove' in time; it has been killed", GameEnd(1, "no answer", "engine 'x' did not answer 'bestmove' in time; it has been killed")),
        ("Gold: engine 'c' sent an illegal move c8-c1 in position 'x': blocked", GameEnd(0, "illegal move", "engine 'c' sent an illegal move c8-c1 in position 'x': blocked")),
        ("Black: could not start: no such file", GameEnd(1, "crash", "could not start: no such file")),
        ("Gold: ran out of time", GameEnd(0, "time", "ran out of time")),
        ("Black: resigned", GameEnd(1, "resignation", "resigned")),
        ("Gold: gone", GameEnd(0, "no answer", "gone")),
        ("Gold:", GameEnd(0, "no answer")),
        ("Nobody: strange", None),
    ],
)
def test_old_forfeit_header_reads_as_an_early_end(forfeit: str, end: GameEnd | None) -> None:
    text = OPENING.replace("Date: 2026-11-22\n", f"Date: 2026-11-22\nForfeit: {forfeit}\n")
    rec = read(text)
    assert rec.end == end and rec.headers["Forfeit"] == forfeit
    again = write(rec)
    assert ("Result: unfinished" in again) == (end is None)
    assert read(again) == rec and write(read(again)) == again


def test_documented_result_examples_read() -> None:
    doc = DOCS.read_text(encoding="utf-8")
    section = doc[doc.index("### The result line") : doc.index("### Move lines")]
    lines = [ln[len("Result: "):] for ln in section.splitlines() if ln.startswith("Result: ")]
    assert len(lines) >= 5
    fig6 = write(record_of(_finished_fig6()))
    for value in lines:
        if "wins" in value or value == "unfinished":
            score = re.search(r"Black \d+, Gold \d+", value)
            text = OPENING.replace("Result: unfinished", f"Result: {value}")
            text = text.replace(score[0], "Black 0, Gold 0", 1) if score else text
            rec = read(text)
            assert (rec.end is None) == (value == "unfinished")
            assert rec.end is None or rec.end.early
        else:
            # a match over by the rules: the reader checks the line against the
            # replayed match, so each example reads in a match that ends so
            found = re.fullmatch(r"Black (\d+), Gold (\d+) \((goal|deadlock)\)", value)
            assert found, value
            black, gold, why = int(found[1]), int(found[2]), found[3]
            text = fig6 if value == "Black 0, Gold 1 (deadlock)" else write(record_of(_random_match_ending(value)))
            rec = read(re.sub(r"Result: .*", f"Result: {value}", text))
            assert rec.end == GameEnd(0 if black > gold else 1, why)


def _random_match_ending(result: str) -> Match:
    """A match of random play (fixed seeds) whose record's result line is
    ``result``, a natural end such as ``Black 3, Gold 1 (goal)``."""
    target = max(int(n) for n in re.findall(r"\d+", result))
    for seed in range(5000):
        rng = random.Random(seed)
        match = Match(target)
        while match.state != OVER:
            if match.state == FILL:
                match.choose_fill(rng.choice(FILLS))
            else:
                match.push_move(rng.choice(match.legal_moves()))
        if f"\nResult: {result}\n" in write(record_of(match)):
            return match
    raise AssertionError(f"no match of random play ends with {result!r}")


def test_series_rounds_alternate_the_first_move() -> None:
    match = Match(3, series=True)
    while len(match.rounds) < 2:
        match.push_move(match.legal_moves()[-1])
    text = write(record_of(match))
    assert "Round 2\nStart: obupyrgn/8/8/8/8/8/8/NGRYPUBO g - 1 0 0\n" in text
    assert read(text) == record_of(match)


# ---------------------------------------------------------------------------
# Errors: line, column, what was expected and what was found
# ---------------------------------------------------------------------------

OPENING = body(
    "obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 3 0 0",
    "  1. Red Forward 4 Blue       Blue Forward 5 Yellow\n"
    "  2. Yellow Right 3 Purple    Purple Left 1 Green\n",
)
FIG9_TEXT = body(FIG9, FIG9_PUSHES, "Long", "Black 7, Gold 3")
FIG6_TEXT = body(
    FIG6,
    "  1. Green Right 1 Red        Red 0 Green\n  2. Green 0 Red\n"
    "Winner: Gold, red tower, deadlock, 1 point (Black 0, Gold 1)\n",
)


def _two_rounds() -> str:
    match = Match(3, start=FIG6)
    match.push_move("d2-e3")
    match.choose_fill("left")
    return write(record_of(match))


TWO_ROUNDS = _two_rounds()

ERRORS = [
    # (text, old, new, error class, line, column, message fragment)
    (OPENING, "Kamisado match record", "Kamisado record", MalformedError, 1, 1, "expected the title"),
    (OPENING, "Match: Standard", "Match: Normal", MalformedError, 2, 8, "found 'Normal'"),
    (
        OPENING,
        "Blue Forward 5 Yellow",
        "Pink Forward 5 Yellow",
        IllegalMoveError,
        10,
        31,
        "expected a move of Gold's blue tower (Black finished on a blue square), found"
        " 'Pink Forward 5 Yellow'",
    ),
    (
        OPENING,
        "Blue Forward 5 Yellow",
        "Blue Forward 5 Green",
        MalformedError,
        10,
        46,
        "expected the finish colour 'Yellow' (b8-b3 ends on a yellow square), found 'Green'",
    ),
    (
        OPENING,
        "Blue Forward 5 Yellow",
        "Blue 0 Yellow",
        MalformedError,
        10,
        31,
        "found a pass 'Blue 0 Yellow': Gold's blue tower can move",
    ),
    (
        OPENING,
        "Blue Forward 5 Yellow",
        "Blue Right 5 Yellow",
        IllegalMoveError,
        10,
        31,
        "'Blue Right 5 Yellow' is not a legal move: Gold's blue tower can move only",
    ),
    (OPENING, "Blue Forward 5 Yellow", "b8-b1", IllegalMoveError, 10, 31, "blocked by the tower on b1"),
    (OPENING, "Blue Forward 5 Yellow", "bF", AmbiguousMoveError, 10, 31, "'bF' fits 6 legal moves"),
    (OPENING, "Blue Forward 5 Yellow", "Blue Onwards 5 Yellow", MalformedError, 10, 36, "expected a direction"),
    # the rulebook's own words, where they fit no move or several
    (OPENING, "Blue Forward 5 Yellow", "Blue Backwards 5 Yellow", MalformedError, 10, 31, "expected a move of Gold's blue tower (Black finished on a blue square), found a pushed tower's entry 'Blue Backwards 5 Yellow': a tower moves back only"),
    (OPENING, "Blue Forward 5 Yellow", "Blue R5 Yellow", IllegalMoveError, 10, 31, "'Blue R5 Yellow' is not a legal move: Gold's blue tower can move only"),
    (OPENING, "Blue Forward 5 Yellow", "Blue Right 5", IllegalMoveError, 10, 31, "'Blue Right 5' is not a legal move: Gold's blue tower can move only"),
    (OPENING, "Blue Forward 5 Yellow", "Blue F5 Green", MalformedError, 10, 39, "expected the finish colour 'Yellow' (b8-b3 ends on a yellow square), found 'Green'"),
    (OPENING, "Blue Forward 5 Yellow", "Blue F8 Yellow", MalformedError, 10, 36, "a move with a direction has a distance of 1-7: 'Blue F8'"),
    (OPENING, "Blue Forward 5 Yellow", "Blue F5 Bleu", MalformedError, 10, 39, "expected the colour of the square the tower finished on after 'Blue F5', found 'Bleu'"),
    (OPENING, "  1. Red Forward 4 Blue", "  1. Red", MalformedError, 10, 16, "expected a direction (Forward, Left, Right or Back) or 0 after 'Red', found 'Blue'"),
    (OPENING, "  1. Red Forward 4 Blue", "  1. rF", AmbiguousMoveError, 10, 6, "'rF' fits 6 legal moves (c1-c2, c1-c3, c1-c4, c1-c5, c1-c6, c1-c7); write more of it"),
    (OPENING, "Blue Forward 5 Yellow", "Blue Forward", MalformedError, 10, 43, "expected a distance 1-7 after 'Blue Forward', found end of line"),
    (OPENING, "  2. ", "  3. ", MalformedError, 11, 3, "expected move line 2., found 3."),
    (OPENING, "  1. Red Forward 4 Blue", "  1. ...", MalformedError, 10, 6, "Black moves first in this round"),
    (OPENING, "Result: unfinished", "Result: Black 3, Gold 0", MalformedError, 6, 9, "expected the result 'unfinished'"),
    (OPENING, "Start: obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 3 0 0", "Start: obupyrgn/8/8/8/8/8/8/NGRYPUBX b - 3 0 0", MalformedError, 9, 8, "bad start position"),
    (
        FIG9_TEXT,
        "Yellow Back 1 Green\n  2. Green Forward 1 Red      Yellow Back 1 Pink\n  3. Pink Forward 3 Green\n",
        "Green Forward 1 Red\n  2. Yellow Back 1 Pink       Pink Forward 3 Green\n",
        MalformedError,
        10,
        31,
        "expected the pushed tower's entry 'Yellow Back 1 Green' in Gold's column (Black"
        " pushed Gold's yellow tower onto a green square): the long form lists every entry;"
        " found 'Green Forward 1 Red'",
    ),
    (FIG9_TEXT, "Yellow Back 1 Pink", "Yellow Back 1 Red", MalformedError, 11, 31, "expected the pushed tower's entry 'Yellow Back 1 Pink'"),
    (FIG9_TEXT, "2 points (Black 7", "4 points (Black 7", MalformedError, 13, 34, "expected the points the round is worth '2', found '4'"),
    (FIG9_TEXT, "Winner: Black, pink", "Winner: Black, green", MalformedError, 13, 16, "expected the colour of the tower that gains a ring 'pink'"),
    (FIG9_TEXT, "Winner: Black, pink tower, goal, 2 points (Black 7, Gold 3)\n", "", MalformedError, 13, 1, "expected the line 'Winner: Black, pink tower, goal, 2 points (Black 7, Gold 3)'"),
    (FIG9_TEXT, "  3. Pink Forward 3 Green\n", "  3. Pink Forward 3 Green   Red Forward 1 Blue\n", IllegalMoveError, 12, 29, "expected no more entries: the round is over"),
    (FIG6_TEXT, "Red 0 Green", "Red 0 Blue", MalformedError, 10, 31, "expected the pass 'Red 0 Green' in Gold's column (Gold's red tower is blocked on a green square)"),
    (FIG6_TEXT, "Green Right 1 Red        Red 0 Green\n  2. Green 0 Red\n", "Green Right 1 Red\n", MalformedError, 11, 1, "expected the pass 'Red 0 Green'"),
    (FIG6_TEXT, "deadlock, 1 point", "goal, 1 point", MalformedError, 12, 26, "expected how the round ended (goal or deadlock) 'deadlock', found 'goal'"),
    (TWO_ROUNDS, "Round 2 (Gold fills left)", "Round 2 (Black fills left)", MalformedError, 14, 10, "expected 'Gold' (Gold won round 1 and chooses the fill)"),
    (TWO_ROUNDS, "Round 2 (Gold fills left)", "Round 2", MalformedError, 14, 8, "expected '(Gold fills left)' or '(Gold fills right)'"),
    (TWO_ROUNDS, "Round 2 (Gold fills left)", "Round 3 (Gold fills left)", MalformedError, 14, 7, "expected round number 2, found 3"),
    # The Result line (how the game ended) against the replayed moves
    (FIG9_TEXT, "Result: Black 7, Gold 3", "Result: Black 7, Gold 3 (deadlock)", MalformedError, 6, 26, "expected how the match ended 'goal' (the replayed match is over (Black 7, Gold 3, goal)), found 'deadlock'"),
    (FIG9_TEXT, "Result: Black 7, Gold 3", "Result: Gold wins, Black 7, Gold 3 (time)", MalformedError, 6, 9, "expected the result 'Black 7, Gold 3 (goal)' (the replayed match is over (Black 7, Gold 3, goal)), found an early end (time)"),
    (FIG9_TEXT, "Result: Black 7, Gold 3", "Result: Black 7, Gold 3 (goal: x)", MalformedError, 6, 30, "a match over by the rules has no detail"),
    (FIG9_TEXT, "Result: Black 7, Gold 3", "Result: Black 7, Gold 2 (goal)", MalformedError, 6, 9, "expected the score 'Black 7, Gold 3'"),
    (FIG9_TEXT, "Result: Black 7, Gold 3", "Result: unfinished", MalformedError, 6, 9, "expected the result 'Black 7, Gold 3 (goal)'"),
    (OPENING, "Result: unfinished", "Result: Black 0, Gold 0 (goal)", MalformedError, 6, 26, "the replayed match is unfinished (Black 0, Gold 0), so it did not end by goal"),
    (OPENING, "Result: unfinished", "Result: Gold wins, Black 0, Gold 0 (deadlock)", MalformedError, 6, 37, "so it did not end by deadlock"),
    (OPENING, "Result: unfinished", "Result: Gold wins, Black 0, Gold 0 (forfeit)", MalformedError, 6, 37, "expected how the game ended (goal, deadlock, time, illegal move, crash, no answer, resignation, abandonment, adjudication), found 'forfeit'"),
    (OPENING, "Result: unfinished", "Result: Black 0, Gold 0 (time)", MalformedError, 6, 9, "expected the winner of an early end ('Black wins, ' or 'Gold wins, ')"),
    (OPENING, "Result: unfinished", "Result: Gold wins, Black 1, Gold 0 (time)", MalformedError, 6, 20, "expected the score 'Black 0, Gold 0'"),
    (OPENING, "Result: unfinished", "Result: Gold wins, Black 0, Gold 0", MalformedError, 6, 35, "expected how the game ended after the score"),
    (OPENING, "Result: unfinished", "Result: Gold wins, Black 0, Gold 0 (time:  x)", MalformedError, 6, 43, "detail is one line without leading or trailing spaces"),
    (OPENING, "Result: unfinished", "Result: Gold 0, Black 0 (time)", MalformedError, 6, 9, "expected a result ('unfinished', 'Black 3, Gold 1 (goal)' or"),
]


@pytest.mark.parametrize("text, old, new, cls, line, col, fragment", ERRORS)
def test_errors_name_line_and_column(
    text: str, old: str, new: str, cls: type[KamisadoError], line: int, col: int, fragment: str
) -> None:
    assert text.count(old) == 1, old
    bad = text.replace(old, new)
    with pytest.raises(cls) as info:
        read(bad)
    message = str(info.value)
    assert message.startswith(f"line {line}, column {col}: "), message
    assert fragment in message, message


def test_wrong_start_of_a_later_round() -> None:
    lines = TWO_ROUNDS.splitlines()
    i = lines.index("Round 2 (Gold fills left)") + 1
    assert lines[i].startswith("Start: ")
    other = Match(3, start=FIG6)
    other.push_move("d2-e3")
    wrong = "Start: " + other.next_round_start("right").kpn()
    bad = "\n".join(lines[:i] + [wrong] + lines[i + 1 :]) + "\n"
    with pytest.raises(MalformedError, match=rf"^line {i + 1}, column 8: expected the start '"):
        read(bad)
    assert "the rules' regrouping after Gold fills left" in _message(bad)


def test_gold_first_round_needs_the_placeholder() -> None:
    text = body(
        "obupyrgn/8/8/8/8/8/8/NGRYPUBO g - 1 0 0",
        "  1. Blue Forward 5 Yellow\n",
        "Single Round",
    )
    assert _message(text).startswith(
        "line 10, column 6: expected '...' in Black's column: Gold moves first"
    )
    fixed = text.replace("1. Blue", "1. ...  Blue")
    assert write(read(fixed)).endswith("  1. ...                      Blue Forward 5 Yellow\n")


def _message(text: str) -> str:
    with pytest.raises(KamisadoError) as info:
        read(text)
    return str(info.value)


def test_every_error_is_a_value_error_with_a_location() -> None:
    text = write(record_of(play_random(3, False, 3)[0]))
    rng = random.Random(5)
    for _ in range(200):
        chars = list(text)
        for _ in range(rng.randrange(1, 4)):
            chars[rng.randrange(len(chars))] = rng.choice("abcxyz019 .-:\n")
        mutated = "".join(chars)
        try:
            read(mutated)
        except ValueError as exc:
            assert re.match(r"line \d+, column \d+: ", str(exc)), str(exc)


# ---------------------------------------------------------------------------
# The documentation's examples
# ---------------------------------------------------------------------------


def _doc_blocks() -> list[tuple[str, str]]:
    text = DOCS.read_text(encoding="utf-8")
    blocks = re.findall(r"^```(\w*)[^\n]*\n(.*?)^```$", text, flags=re.M | re.S)
    return [(info, b) for info, b in blocks if b.startswith("Kamisado match record\n")]


def test_documented_records() -> None:
    blocks = _doc_blocks()
    assert sum(1 for info, _ in blocks if info == "text") >= 2
    for info, block in blocks:
        rec = read(block)
        if info == "text":  # canonical examples round-trip exactly
            assert write(rec) == block


def test_record_new_end_is_a_keyword_and_a_game_end() -> None:
    headers = {"Event": "Club"}
    rec = Record.new(Match(3), "A", "B", "2026-11-22", end=GameEnd(0, "crash"), **headers)
    assert list(rec.headers) == ["Black", "Gold", "Date", "Event"]
    with pytest.raises(MalformedError, match="an early end is a GameEnd, found 'time'"):
        Record.new(Match(3), end="time")
