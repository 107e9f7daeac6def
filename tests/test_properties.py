"""Property tests over random whole matches (targets 3, 7 and 15).

Each example is a seed: the match is played with random legal moves and
random fill choices, and invariants are checked along the way.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from kamisado.rules.board import RING_POINTS, IllegalMoveError, Move, ring_total
from kamisado.rules.match import Match
from kamisado.rules.position import Position

SETTINGS = settings(max_examples=30, deadline=None, derandomize=True)
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
TARGETS = st.sampled_from((3, 7, 15))
FORWARD = (1, -1)  # rank step of a forward move, by side (Black, Gold)


def snapshot(pos: Position) -> tuple[object, ...]:
    """Everything observable about a position."""
    return (
        pos.kpn(),
        list(pos.board),
        list(pos.rings),
        list(pos.tower_square),
        pos.turn,
        pos.must_move,
        pos.outcome,
        pos.passes(),
        list(pos.move_stack),
        list(pos.points),
        sorted(pos.move_codes()),
    )


def pick(pos: Position, rng: random.Random) -> Move:
    """A random legal move, biased towards Sumo pushes, towards ringed towers
    and away from winning at once with an ordinary tower, so that rounds last
    and pushes, Doubles and Triples happen."""
    moves = list(pos.legal_moves)
    goal_rank = 7 if pos.turn == 0 else 0
    ringed_wins = [
        m
        for m in moves
        if m.to_square >> 3 == goal_rank and pos.rings[pos.board[m.from_square]]
    ]
    if ringed_wins and rng.random() < 0.9:
        return rng.choice(ringed_wins)
    pushes = [m for m in moves if pos.board[m.to_square] >= 0]
    if pushes and rng.random() < 0.7:
        return rng.choice(pushes)
    if pos.must_move < 0 and rng.random() < 0.7:
        # the first move of a round (T1): prefer a ringed tower
        ringed = [m for m in moves if pos.rings[pos.board[m.from_square]]]
        moves = ringed or moves
    slow = [m for m in moves if m.to_square >> 3 != goal_rank]
    if slow and rng.random() < 0.85:
        return rng.choice(slow)
    return rng.choice(moves)


def random_match(seed: int, target: int) -> Iterator[tuple[Match, Move | str | None]]:
    """Play a random match, yielding ``(match, what happens next)`` before each
    move or fill, and ``(match, None)`` once it is over."""
    rng = random.Random(seed)
    match = Match(target)
    for _ in range(5000):
        if match.state == "over":
            yield match, None
            return
        if match.state == "fill":
            fill = rng.choice(("left", "right"))
            yield match, fill
            match.choose_fill(fill)
            continue
        move = pick(match.position, rng)
        yield match, move
        match.push_move(move)
    raise AssertionError(f"match with seed {seed} did not finish")


def check_invariants(pos: Position) -> None:
    """16 towers, each on its own square, board and tower_square consistent."""
    towers = [t for t in pos.board if t >= 0]
    assert sorted(towers) == list(range(16)), pos.kpn()
    assert len(set(pos.tower_square)) == 16
    for t, sq in enumerate(pos.tower_square):
        assert pos.board[sq] == t
    # one letter per tower in the KPN, each ring once
    placement = pos.kpn().split()[0]
    assert sum(ch.isalpha() for ch in placement) == 16
    assert placement.count("+") == sum(pos.rings)


@SETTINGS
@given(seed=SEEDS, target=TARGETS)
def test_kpn_round_trip(seed: int, target: int) -> None:
    positions = 0
    for match, nxt in random_match(seed, target):
        pos = match.position
        if match.state != "playing":
            if isinstance(nxt, str) or nxt is None:
                # a finished round reads back finished the same way (except
                # after a deadlock caused by a push: see test_reference.py)
                last = pos.pop()
                pushed = pos.board[last.to_square] >= 0
                pos.push(last)
                assert pos.outcome is not None
                if pos.outcome.reason == "goal" or not pushed:
                    again = Position(pos.kpn())
                    assert again.outcome == pos.outcome
                    assert again.kpn() == pos.kpn()
            continue
        assert isinstance(nxt, Move)
        text = pos.kpn()
        again = Position(text)
        assert again.kpn() == text
        assert again.passes() == ()  # the tower to move can move: no passes on load
        assert sorted(again.move_codes()) == sorted(pos.move_codes())
        assert again.outcome is None
        check_invariants(pos)
        positions += 1
    assert positions > 0


@SETTINGS
@given(seed=SEEDS, target=TARGETS)
def test_push_pop_restores_everything(seed: int, target: int) -> None:
    rng = random.Random(seed ^ 0x5EED)
    for match, _ in random_match(seed, target):
        if match.state != "playing":
            continue
        pos = match.position
        before = snapshot(pos)
        moves = list(pos.legal_moves)
        for move in rng.sample(moves, min(len(moves), 6)):
            pos.push(move)
            check_invariants(pos)
            # two levels deep, when the round goes on
            inner = list(pos.legal_moves)
            if inner:
                mid = snapshot(pos)
                pos.push(rng.choice(inner))
                pos.pop()
                assert snapshot(pos) == mid
            assert pos.pop() == move
            assert snapshot(pos) == before, f"{before[0]} push/pop {move}"


@SETTINGS
@given(seed=SEEDS, target=TARGETS)
def test_towers_move_forward_unless_pushed(seed: int, target: int) -> None:
    pushes = 0
    for match, nxt in random_match(seed, target):
        if not isinstance(nxt, Move):
            continue
        pos = match.position
        frm, to = nxt
        mover = pos.board[frm]
        side = mover >> 3
        is_push = pos.board[to] >= 0
        rings_before = list(pos.rings)
        before = list(pos.tower_square)
        pos.push(nxt)
        after = list(pos.tower_square)
        pos.pop()
        step = FORWARD[side]
        dr = (after[mover] >> 3) - (before[mover] >> 3)
        df = (after[mover] & 7) - (before[mover] & 7)
        assert dr * step > 0, f"{pos.kpn()} {nxt}: the mover did not go forward"
        assert df == 0 or abs(df) == abs(dr)
        moved = [t for t in range(16) if t != mover and after[t] != before[t]]
        if not is_push:
            assert moved == [], f"{pos.kpn()} {nxt}: other towers moved"
            continue
        pushes += 1
        assert dr * step == 1 and df == 0
        assert 1 <= len(moved) <= rings_before[mover]
        for t in moved:
            assert t >> 3 != side, "a push moves only the opponent's towers"
            assert rings_before[t] < rings_before[mover]
            assert after[t] - before[t] == 8 * step, "pushed exactly one square back"
            assert after[t] & 7 == frm & 7, "pushed towers stand straight ahead"


@SETTINGS
@given(seed=SEEDS, target=TARGETS)
def test_scores_only_grow(seed: int, target: int) -> None:
    points = [0, 0]
    rings = [0] * 16
    rounds = 0
    for match, _ in random_match(seed, target):
        assert match.points[0] >= points[0] and match.points[1] >= points[1]
        if match.points != points:
            outcome = match.current.outcome
            assert outcome is not None
            gained = [match.points[s] - points[s] for s in (0, 1)]
            assert gained[outcome.winner] == RING_POINTS[outcome.rings]
            assert gained[outcome.winner ^ 1] == 0
            rounds += 1
        points = list(match.points)
        if match.state == "playing":
            pos = match.position
            assert pos.points == points
            for side in (0, 1):
                worth = sum(ring_total(pos.rings[side * 8 + c]) for c in range(8))
                assert worth == points[side]
            assert all(a >= b for a, b in zip(pos.rings, rings, strict=True))
            rings = list(pos.rings)
        if match.state == "over":
            assert match.winner is not None
            assert points[match.winner] >= target > points[match.winner ^ 1]
            assert match.summary().startswith("match ")
    assert rounds >= 1


def _all_pairs_checked(pos: Position, rng: random.Random) -> None:
    """Every from-to pair: legal ones are accepted by push_move, all others are
    refused with IllegalMoveError and change nothing."""
    legal = set(pos.move_codes())
    before = snapshot(pos)
    accepted = 0
    for frm in range(64):
        for to in range(64):
            move = Move(frm, to)
            if frm | to << 6 in legal:
                assert pos.push_move(move) == move
                pos.pop()
                accepted += 1
            else:
                try:
                    pos.push_move(move)
                except IllegalMoveError:
                    pass
                else:
                    raise AssertionError(f"{pos.kpn()}: {move} accepted")
                assert pos.kpn() == before[0]
    assert accepted == len(legal)
    assert snapshot(pos) == before
    # the square-form text goes through the notation parser: same verdicts
    for _ in range(150):
        move = Move(rng.randrange(64), rng.randrange(64))
        if rng.random() < 0.3 and legal:
            code = rng.choice(sorted(legal))
            move = Move(code & 63, code >> 6)
        if move.from_square | move.to_square << 6 in legal:
            assert pos.push_move(str(move)) == move
            pos.pop()
        else:
            try:
                pos.push_move(str(move))
            except IllegalMoveError:
                pass
            else:
                raise AssertionError(f"{pos.kpn()}: {move} accepted as text")
    assert snapshot(pos) == before


@settings(max_examples=12, deadline=None, derandomize=True)
@given(seed=SEEDS, target=TARGETS)
def test_push_move_accepts_exactly_the_legal_moves(seed: int, target: int) -> None:
    rng = random.Random(seed)
    checked = 0
    for match, nxt in random_match(seed, target):
        pos = match.position
        if match.state == "playing" and (checked == 0 or rng.random() < 0.04):
            _all_pairs_checked(pos, rng)
            checked += 1
        if match.state != "playing" and pos.outcome is not None and rng.random() < 0.5:
            # a finished round takes no move at all
            for code in rng.sample(range(4096), 200):
                try:
                    pos.push_move(Move(code & 63, code >> 6))
                except IllegalMoveError:
                    pass
                else:
                    raise AssertionError(f"{pos.kpn()}: move accepted after the round")
        if match.state == "fill" and isinstance(nxt, str):
            try:
                match.push_move("a1-a2")
            except IllegalMoveError:
                pass
            else:
                raise AssertionError("a move was accepted while a fill is due")
    assert checked >= 1


def test_random_matches_exercise_the_sumo_rules() -> None:
    """The match generator used above really produces single and multiple
    pushes, passes, deadlocks and Triples (so the properties cover them)."""
    seen: dict[str, int] = {"push1": 0, "push2": 0, "pass": 0, "triple": 0, "deadlock": 0}
    for seed in range(60):
        for match, nxt in random_match(seed, 15):
            pos = match.position
            if match.state == "playing" and pos.passes():
                seen["pass"] += 1
            if 3 in pos.rings:
                seen["triple"] += 1
            if (
                nxt is not None
                and pos.outcome is not None
                and pos.outcome.reason == "deadlock"
            ):
                seen["deadlock"] += 1
            if isinstance(nxt, Move) and pos.board[nxt.to_square] >= 0:
                before = list(pos.tower_square)
                pos.push(nxt)
                moved = sum(a != b for a, b in zip(before, pos.tower_square, strict=True))
                pos.pop()
                seen[f"push{min(moved - 1, 2)}"] += 1
    assert all(seen.values()), seen
