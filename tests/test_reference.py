"""Cross-check ``kamisado.rules.position`` against the independent reference in
``tests/reference.py`` over thousands of random positions.

Every game is driven by a fixed seed, so a failure is reproducible: the
assertion message carries the KPN of the position and the move.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from kamisado.rules.board import MalformedError, Move
from kamisado.rules.match import Match
from kamisado.rules.notation import long_form
from kamisado.rules.position import Position

try:
    import reference as ref
except ImportError:  # pragma: no cover - when tests/ becomes a package
    from tests import reference as ref

FILES = "abcdefgh"
SIDES = "bg"


def name(square: int) -> str:
    return FILES[square % 8] + str(square // 8 + 1)


def core_moves(pos: Position) -> list[tuple[str, str]]:
    return sorted((name(m.from_square), name(m.to_square)) for m in pos.legal_moves)


def core_outcome(pos: Position) -> tuple[str, str, str, int] | None:
    o = pos.outcome
    if o is None:
        return None
    return (SIDES[o.winner], ref.COLOURS[o.colour], o.reason, o.rings)


def core_passes(pos: Position) -> list[tuple[str, str, str]]:
    return [(SIDES[p.side], ref.COLOURS[p.colour], name(p.square)) for p in pos.passes()]


def to_move(pos: Position, move: tuple[str, str]) -> Move:
    frm, to = move
    return Move(
        FILES.index(frm[0]) + 8 * (int(frm[1]) - 1),
        FILES.index(to[0]) + 8 * (int(to[1]) - 1),
    )


def compare(pos: Position, rp: ref.RefPosition, stats: Counter[str], where: str) -> None:
    """Assert that core and reference agree on everything observable."""
    assert core_outcome(pos) == rp.outcome, where
    assert core_passes(pos) == rp.passes, where
    moves = core_moves(pos)
    assert moves == sorted(rp.moves()), where
    codes = sorted(pos.move_codes())
    assert codes == sorted(m.from_square | m.to_square << 6 for m in pos.legal_moves), where
    assert pos.kpn() == rp.kpn(), where
    if rp.outcome is not None:
        stats[rp.outcome[2]] += 1
        again = Position(pos.kpn())
        if core_outcome(again) == rp.outcome:
            stats["reads back"] += 1
        else:
            # known core limitation, see test_pushed_deadlock_kpn_reads_back
            assert rp.outcome[2] == "deadlock" and rp.last_pushed, where
            stats["does not read back"] += 1
    stats["positions"] += 1
    if rp.passes:
        stats["passes"] += 1
        stats[f"passes{min(len(rp.passes), 3)}"] += 1


def choose(
    rp: ref.RefPosition, moves: list[tuple[str, str]], rng: random.Random
) -> tuple[str, str]:
    """A random move, biased towards pushes and away from winning at once,
    so that games last and the Sumo rules get exercised."""
    pushes = [m for m in moves if m[1] in rp.towers]
    if pushes and rng.random() < 0.6:
        return rng.choice(pushes)
    slow = [m for m in moves if ref.rank_of(m[1]) != ref.GOAL_RANK[rp.side]]
    if slow and rng.random() < 0.9:
        return rng.choice(slow)
    return rng.choice(moves)


def play_out(
    pos: Position,
    rp: ref.RefPosition,
    rng: random.Random,
    stats: Counter[str],
    max_moves: int = 200,
    notation_every: int = 7,
) -> None:
    """Play random moves on both, comparing after each one."""
    compare(pos, rp, stats, f"start {pos.kpn()}")
    for ply in range(max_moves):
        moves = rp.moves()
        if not moves:
            return
        move = choose(rp, moves, rng)
        where = f"{pos.kpn()} then {move[0]}-{move[1]}"
        if move[1] in rp.towers:
            stats[f"push{len(rp.push_run(move[0]))}"] += 1
        m = to_move(pos, move)
        if ply % notation_every == 0:
            assert long_form(pos, m) == rp.long_form(move), where
        pos.push_move(m)
        rp = rp.play(move)
        compare(pos, rp, stats, where)


def random_rings(rng: random.Random, target: int) -> dict[tuple[str, str], int]:
    """Rings for every tower, each side's points below ``target``."""
    while True:
        rings = {(s, c): 0 for s in SIDES for c in ref.COLOURS}
        for side in SIDES:
            for colour in rng.sample(ref.COLOURS, rng.randint(0, 5)):
                rings[side, colour] = rng.choice((1, 1, 2, 2, 3))
            if target == 15 and rng.random() < 0.4:
                rings[side, rng.choice(ref.COLOURS)] = 3
        totals = [sum(ref.RING_TOTAL[rings[s, c]] for c in ref.COLOURS) for s in SIDES]
        if max(totals) < target:
            return rings


def random_setup(rng: random.Random) -> str:
    """A random legal-looking KPN with Sumos, Doubles or Triples.

    16 towers on distinct squares, none on its opponent's home row; points
    equal to the rings' worth and below the target; a random tower to move.
    Ringed towers often get opponents stacked straight in front of them, and
    most setups crowd the towers into the middle ranks, so that pushes,
    blocked towers and deadlocks are common.
    """
    target = rng.choice((3, 7, 15, 15))
    rings = random_rings(rng, target)
    low, high = rng.choice(((1, 8), (2, 7), (3, 6), (3, 6), (3, 5), (4, 6), (4, 5)))
    pushers: list[tuple[str, str]] = []
    board: dict[str, tuple[str, str, int]] = {}

    def free_squares(side: str) -> list[str]:
        for ranks in (range(low, high + 1), range(1, 9)):
            free = [
                f + str(r)
                for f in FILES
                for r in ranks
                if f + str(r) not in board and r != ref.GOAL_RANK[side]
            ]
            if free:
                return free
        raise AssertionError("a board always has room for 16 towers")

    towers = [(s, c) for s in SIDES for c in ref.COLOURS]
    rng.shuffle(towers)
    placed: set[tuple[str, str]] = set()
    for tower in towers:
        if tower in placed:
            continue
        side, colour = tower
        square = rng.choice(free_squares(side))
        board[square] = (side, colour, rings[tower])
        placed.add(tower)
        n = rings[tower]
        if n and rng.random() < 0.4 + 0.2 * n:
            # opponents with fewer rings straight ahead, maybe too many
            ahead = square
            for _ in range(rng.randint(1, n + 1)):
                ahead = ref.shift(ahead, ref.FORWARD[side], 0)
                if ahead is None or ahead in board:
                    break
                other = ref.OTHER[side]
                if ref.rank_of(ahead) == ref.GOAL_RANK[other]:
                    break
                candidates = [
                    (other, c)
                    for c in ref.COLOURS
                    if (other, c) not in placed and rings[other, c] < n
                ]
                if not candidates:
                    break
                pushed = rng.choice(candidates)
                board[ahead] = (other, pushed[1], rings[pushed])
                placed.add(pushed)
                pushers.append((side, colour))
    side = rng.choice(SIDES)
    ringed = [c for c in ref.COLOURS if rings[side, c]]
    stacked = [c for s, c in pushers if s == side]
    if rng.random() < 0.08:
        must = "-"
    elif stacked and rng.random() < 0.75:
        must = ref.LETTER_OF[rng.choice(stacked)]
    elif ringed and rng.random() < 0.5:
        must = ref.LETTER_OF[rng.choice(ringed)]
    else:
        must = ref.LETTER_OF[rng.choice(ref.COLOURS)]
    tmp = ref.RefPosition(
        kpn_text="",
        towers=board,
        side=side,
        must=None,
        target=target,
        points={s: sum(ref.RING_TOTAL[rings[s, c]] for c in ref.COLOURS) for s in SIDES},
    )
    placement = tmp.kpn().split()[0]
    return f"{placement} {side} {must} {target} {tmp.points['b']} {tmp.points['g']}"


def test_reference_start_matches_rulebook() -> None:
    """The reference's own sanity: the rulebook's opening (Figures 2(a)-(k))."""
    rp = ref.RefPosition()
    assert len(rp.moves()) == 102
    for move, colour in [
        (("c1", "c5"), "blue"),
        (("b8", "b3"), "yellow"),
        (("d1", "g4"), "purple"),
        (("c8", "d7"), "green"),
        (("b1", "e4"), "orange"),
        (("a8", "a3"), "blue"),
    ]:
        rp = rp.play(move)
        assert rp.must == colour
    assert rp.long_form(("c5", "c6")) == "Red Forward 1 Orange"


def test_random_single_rounds_from_start() -> None:
    rng = random.Random(20240601)
    stats: Counter[str] = Counter()
    for _ in range(400):
        play_out(Position(), ref.RefPosition(), rng, stats)
    assert stats["goal"] + stats["deadlock"] == 400
    assert stats["goal"] > 300
    assert stats["passes"] > 20
    assert stats["positions"] > 5000


def test_random_sumo_setups() -> None:
    rng = random.Random(7)
    stats: Counter[str] = Counter()
    refused = 0
    for i in range(3000):
        kpn = random_setup(rng)
        rp = ref.RefPosition(kpn)
        if rp.must is None and not rp.moves():
            # '-' with no tower able to move: core refuses such a KPN
            with pytest.raises(MalformedError):
                Position(kpn)
            refused += 1
            continue
        pos = Position(kpn)
        stats["setups"] += 1
        play_out(pos, rp, rng, stats, notation_every=5 if i % 3 else 1)
    # the generator must really exercise the Sumo rules
    assert stats["setups"] > 2800
    assert stats["push1"] > 800
    assert stats["push2"] > 200
    assert stats["push3"] > 25
    assert stats["deadlock"] > 40
    assert stats["passes3"] > 50
    assert stats["goal"] > 2500
    assert stats["reads back"] > 2500
    assert refused < 200


def test_random_loaded_positions() -> None:
    """Load many more setups (no playout): passes and deadlocks found on
    loading, the legal moves, and one move from each."""
    rng = random.Random(8)
    stats: Counter[str] = Counter()
    for _ in range(5000):
        kpn = random_setup(rng)
        rp = ref.RefPosition(kpn)
        if rp.must is None and not rp.moves():
            continue
        pos = Position(kpn)
        compare(pos, rp, stats, kpn)
        moves = rp.moves()
        if moves:
            move = choose(rp, moves, rng)
            pos.push_move(to_move(pos, move))
            compare(pos, rp.play(move), stats, f"{kpn} then {move[0]}-{move[1]}")
    assert stats["deadlock"] > 40
    assert stats["passes3"] > 60


def test_random_matches_round_starts() -> None:
    """Regrouped rounds of whole matches: reference loaded at each round start."""
    rng = random.Random(99)
    stats: Counter[str] = Counter()
    rounds = 0
    for target in (3, 7, 15, 15):
        match = Match(target)
        while match.state != "over":
            if match.state == "fill":
                match.choose_fill(rng.choice(("left", "right")))
            pos = match.position
            rp = ref.RefPosition(pos.kpn())
            compare(pos, rp, stats, pos.kpn())
            rounds += 1
            while match.state == "playing":
                move = rng.choice(rp.moves())
                match.push_move(to_move(pos, move))
                rp = rp.play(move)
                compare(match.position, rp, stats, match.position.kpn())
    assert rounds > 10


def test_loaded_deadlock_loser_is_side_not_to_move() -> None:
    """RULES.md: a deadlock found on loading a KPN is lost by the side not to
    move, and the ring goes on the winner's tower of the KPN's tower-to-move
    colour."""
    # Gold's purple tower on g5 (a red square) is blocked by Black's red on g4
    # and Gold's own brown f4 and blue h4; Black's red on g4 (a purple square)
    # is blocked by Gold's purple g5, Black's blue f5 and Gold's red h5.
    kpn = "8/8/8/OoNYyBur/pUPgGnRb/8/8/8 g u 3 0 0"
    expected_passes = [("g", "purple", "g5"), ("b", "red", "g4")]
    expected_outcome = ("g", "purple", "deadlock", 0)
    pos = Position(kpn)
    rp = ref.RefPosition(kpn)
    assert rp.passes == expected_passes and rp.outcome == expected_outcome
    assert core_passes(pos) == expected_passes
    assert core_outcome(pos) == expected_outcome
    assert list(pos.legal_moves) == [] and pos.perft(2) == 0


def test_deadlock_after_a_real_move_is_lost_by_the_mover() -> None:
    """Figure 6 style: the player who made the last real move loses, and the
    winner's ring goes on the tower of the colour of the square it moved to."""
    # The towers of the test above, but Black's red comes from g3 to g4 (a
    # purple square): Gold's purple is blocked, then Black's red: deadlock
    # caused by Black, so Gold wins and rings its purple tower.
    kpn = "8/8/8/OoNYyBur/pUPgGn1b/6R1/8/8 b r 3 0 0"
    pos = Position(kpn)
    rp = ref.RefPosition(kpn)
    assert core_outcome(pos) is None and rp.outcome is None
    pos.push_move("g3-g4")
    rp = rp.play(("g3", "g4"))
    expected = ("g", "purple", "deadlock", 0)
    assert rp.outcome == expected
    assert core_outcome(pos) == expected
    assert core_passes(pos) == rp.passes == [("g", "purple", "g5"), ("b", "red", "g4")]
    # Gold's purple is blocked, so the finished KPN reads back the same way
    assert Position(pos.kpn()).outcome == pos.outcome


def test_finished_goal_kpn_reads_back() -> None:
    pos = Position()
    for move in ("a1-a4", "e8-e5", "a4-e8"):
        pos.push_move(move)
    assert core_outcome(pos) == ("b", "brown", "goal", 0)
    # the loser to move, with the tower of the goal square's colour (e8 yellow)
    assert pos.kpn() == "obupNrgn/8/8/4y3/8/8/8/1GRYPUBO g y 1 0 0"
    again = Position(pos.kpn())
    assert again.outcome == pos.outcome
    assert again.kpn() == pos.kpn()


# Black's purple Sumo on a2 pushes Gold's blue a3 -> a4 (a yellow square) and
# must move its yellow tower: Black's yellow d2 is blocked, then Gold's blue
# a4, then Black's yellow again: deadlock caused by Black's push, Gold wins and
# the ring goes on Gold's tower of the colour of a3 (blue), the square Black
# last moved to.  Here Gold's blue tower happens to be blocked too.
PUSH_DEADLOCK_BLOCKED = ("4r3/2g3GB/3o4/1uN5/8/bnpRy1P+1/U+O1Y4/8 b u 3 2 0", "a2-a3")
# Gold's green Double on h4 pushes Black's pink Sumo
# h3 -> h2 (red) and must move its red tower: Gold's red g3 is blocked, then
# Black's pink h2, then Gold's red again: Gold caused the deadlock, Black wins
# and the ring goes on Black's green tower (h3 is green) - which is free to move.
PUSH_DEADLOCK_FREE = ("n+1b2y2/3p4/N3o3/8/2G3Yg++/6rP+/1u3U+B+1/1R2O+3 g g 15 4 4", "h4-h3")


def test_pushed_deadlock_outcome() -> None:
    for (kpn, move), expected in [
        (PUSH_DEADLOCK_BLOCKED, ("g", "blue", "deadlock", 0)),
        (PUSH_DEADLOCK_FREE, ("b", "green", "deadlock", 0)),
    ]:
        pos = Position(kpn)
        rp = ref.RefPosition(kpn)
        pos.push_move(move)
        frm, to = move.split("-")
        rp = rp.play((frm, to))
        assert rp.outcome == expected
        assert core_outcome(pos) == expected
        assert core_passes(pos) == rp.passes and len(rp.passes) == 2
    # the KPN of the first one reads back as the same deadlock
    pos = Position(PUSH_DEADLOCK_BLOCKED[0])
    pos.push_move(PUSH_DEADLOCK_BLOCKED[1])
    assert Position(pos.kpn()).outcome == pos.outcome


@pytest.mark.xfail(
    strict=True,
    reason="core bug: kpn() of a deadlock caused by a Sumo push writes the winner"
    " to move its tower of the ring's colour, but that tower is free, so the KPN"
    " reads back as a round in progress (the kpn() docstring promises it reads"
    " back finished the same way)",
)
def test_pushed_deadlock_kpn_reads_back() -> None:
    kpn, move = PUSH_DEADLOCK_FREE
    pos = Position(kpn)
    pos.push_move(move)
    assert core_outcome(pos) == ("b", "green", "deadlock", 0)
    # core writes 'n+1b2y2/3p4/N3o3/8/2G3Y1/6rg++/1u3U+B+P+/1R2O+3 b g 15 4 4',
    # which reads back with Black to move a free green tower
    assert Position(pos.kpn()).outcome == pos.outcome
