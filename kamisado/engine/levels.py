"""Computer players at named strength levels, all replayable from a seed.

Every player has the same interface: ``choose_move(position)`` returns a
legal move and ``choose_fill(match)`` returns ``'left'`` or ``'right'`` when
it has won a round of a match.  A player built with the same level and seed
makes the same choices in the same positions, so every game can be replayed.

>>> from kamisado.rules.position import Position
>>> p = player("club", seed=1)
>>> p.choose_move(Position()) in Position().legal_moves
True

Levels, weakest first (their measured strength: docs/engine.md):

``beginner``
    Looks one move ahead: always takes a win on the spot, usually (not
    always) avoids a move that lets the opponent win at once, otherwise
    prefers towers that advance, with plenty of randomness.
``novice``
    A 2-move search with a noisy evaluation.
``casual``
    A 3-move search with some noise.
``club``
    A 5-move search.
``strong``
    Iterative deepening for 50,000 nodes (at most about 0.05 s a move).
``expert``
    Iterative deepening for 600,000 nodes (about 0.25 s at a round's start,
    at most about 0.5 s: ``bench/levels.py``); when the round
    decides the match, the solver (1 million nodes) has the last word.
``perfect``
    The opening book and the solver: wins every won single round and plays
    the longest resistance when lost.  Where the round decides the match
    and any win of the side to move ends it, it proves who wins (10 million
    nodes: half for the winner-only solver, ``solve(exact=False)``, half for
    the exact one) and plays the shortest win where the exact solver finds
    it, else a proven winning move.  Everywhere else the round's points
    matter, and it plays them (:func:`kamisado.engine.solve_points`, 8
    million nodes): in a round proven won it plays a move that keeps the
    most points proven (a Sumo, Double or Triple win is never traded for a
    smaller one); in a round proven lost, the move that concedes the fewest
    points, and of those the one that lasts longest; where only the plain
    win is proven, the search's move (4 million nodes, weighing a win's
    points) while the solver proves that it keeps the win; where nothing is
    proven, the search's move.  Across rounds it plays by match equity
    (:mod:`kamisado.engine.equity`: the score, the target, the rings): of
    the round wins on the spot it takes the one worth most to the match,
    and it fills after a round win by the next round's value: both next
    rounds go to the points solver (4 million nodes each), a proven round is
    worth the match equity after its proven result (who wins, and how many
    points), an unproven one the match equity at its start, and the fill
    worth more is taken (the search decides between two unproven ones).
    Given a :class:`MatchOracle` (``Player(..., proof=...)``: the match
    proof's store, :class:`kamisado.proving.play.ProofOracle`), it first
    plays the proof's move and fill where the store covers the position
    (docs/match-proof.md, "Playing from the proof").
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from kamisado.engine.limits import Limit
from kamisado.rules.board import BLACK, RING_POINTS, Move
from kamisado.rules.match import FILLS, Match
from kamisado.rules.position import Position

if TYPE_CHECKING:
    from kamisado.engine import PointsResult, SolveResult

__all__ = [
    "LEVELS",
    "SEED_MAX",
    "MatchOracle",
    "Player",
    "choose_fill_by_search",
    "player",
    "winning_replies",
]

#: The largest seed a player, the engine protocol's Seed option and a tournament take.
SEED_MAX = 2**31 - 1


def _wins_now(pos: Position, move: Move) -> bool:
    """Whether ``move`` wins the round on the spot for the side to move."""
    me = pos.turn
    pos.push(move)
    won = pos.outcome is not None and pos.outcome.winner == me
    pos.pop()
    return won


def _gives_win(pos: Position, move: Move) -> bool:
    """Whether after ``move`` the opponent can end the round in their favour at once."""
    me = pos.turn
    pos.push(move)
    try:
        if pos.outcome is not None:
            return pos.outcome.winner != me
        if pos.turn == me:  # a push: we move again
            return False
        for reply in pos.legal_moves:
            pos.push(reply)
            lost = pos.outcome is not None and pos.outcome.winner != me
            pos.pop()
            if lost:
                return True
        return False
    finally:
        pos.pop()


class MatchOracle(Protocol):
    """What a proof of the match says about a position (the engine only
    asks; :class:`kamisado.proving.play.ProofOracle` answers from a match
    proof's store).  ``None``: the proof does not cover it."""

    def winner(self, pos: Position) -> int | None:
        """The side that wins the match from ``pos`` (a round's end too)."""

    def move(self, pos: Position) -> Move | None:
        """The move to play in ``pos``: the proof's for its winner, the one
        that keeps the match longest for its loser."""

    def fill(self, end: Position) -> str | None:
        """The fill (``left``/``right``) after the finished round ``end``."""


@dataclass
class Player:
    """A computer player: a level name, a seed and the policy behind them;
    ``proof``: the match proof ``perfect`` plays from where it covers the
    position (:class:`MatchOracle`), or ``None``."""

    level: str
    seed: int = 0
    proof: MatchOracle | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(
                f"expected a level ({', '.join(LEVELS)}), found {self.level!r}"
            )
        self.rng = random.Random(f"{self.level}:{self.seed}")

    def choose_move(self, pos: Position) -> Move:
        """A legal move for the side to move in ``pos`` (which is not changed)."""
        if pos.outcome is not None:
            raise ValueError("the round is over: there is no move to choose")
        work = pos.copy(stack=False)
        move = LEVELS[self.level].policy(self, work)
        assert pos.is_legal(move), (self.level, pos.kpn(), move)
        return move

    def choose_fill(self, match: Match) -> str:
        """Fill left or right after winning a round (by search, not a rule;
        ``perfect`` first tries to prove each next round with the solver)."""
        if self.level == "perfect":
            return _perfect_fill(self, match)
        return choose_fill_by_search(match, LEVELS[self.level].fill_depth, self.rng)

    def _search_seed(self) -> int:
        return self.rng.randrange(1 << 30)


def _beginner(pl: Player, pos: Position) -> Move:
    moves = list(pos.legal_moves)
    wins = [m for m in moves if _wins_now(pos, m)]
    if wins:
        return pl.rng.choice(wins)
    safe = [m for m in moves if not _gives_win(pos, m)]
    # a new player sees the danger most of the time, not always
    pool = safe if safe and pl.rng.random() < 0.75 else moves
    # and likes to move towers a long way forward
    weights = [1 + abs((m.to_square >> 3) - (m.from_square >> 3)) for m in pool]
    return pl.rng.choices(pool, weights=weights)[0]


def _searcher(
    depth: int | None = None, nodes: int | None = None, noise: int = 0,
    solve_nodes: int | None = None,
) -> Callable[[Player, Position], Move]:
    limit = Limit(depth=depth, nodes=nodes)

    def policy(pl: Player, pos: Position) -> Move:
        from kamisado import engine

        moves = list(pos.legal_moves)
        if len(moves) == 1:
            return moves[0]
        if solve_nodes and _round_decides_match(pos):
            r = engine.solve(pos, limit=Limit(nodes=solve_nodes), pv=False)
            if r.winner == pos.turn and r.best_move is not None:
                return r.best_move
        weights = engine.Weights(noise=noise) if noise else None
        res = engine.search(pos, limit=limit, seed=pl._search_seed(), weights=weights)
        assert res.best_move is not None
        return res.best_move

    return policy


#: Node budgets of the ``perfect`` level (seconds at about 3-5 million nodes a second).
PERFECT_SOLVE_NODES = 10_000_000
PERFECT_SEARCH_NODES = 4_000_000
#: Solver budget in a round that does not decide the match.
PERFECT_MATCH_SOLVE_NODES = 4_000_000
#: Solver budget (all root moves together) to weigh the solver's winning moves
#: by the match equity their wins bring, in a round that does not decide the match.
PERFECT_MATCH_CHOICE_NODES = 500_000
#: Solver budget for each fill's next round when ``perfect`` chooses its fill.
PERFECT_FILL_SOLVE_NODES = 4_000_000
#: Budget of the points solver (who wins, then the thresholds of a Sumo,
#: Double and Triple win) in a round whose points matter to the match.
PERFECT_POINTS_NODES = 8_000_000
#: Budget (all moves together) to weigh each move of a proven lost round by
#: the points it concedes, then by how long it lasts.
PERFECT_CONCEDE_NODES = 2_000_000


def _round_decides_match(pos: Position) -> bool:
    """Whether winning this round wins the match for either side (any win brings a point)."""
    return pos.target == 1 or max(pos.points) + 1 >= pos.target


def _perfect(pl: Player, pos: Position) -> Move:
    from kamisado import engine
    from kamisado.engine import book

    moves = list(pos.legal_moves)
    if len(moves) == 1:
        return moves[0]
    if pl.proof is not None:
        proven = pl.proof.move(pos)
        if proven is not None and proven in moves:
            return proven
    hit = book.lookup(pos)
    if hit is not None:
        return hit
    me = pos.turn
    if _round_decides_match(pos):
        # some round win ends the match: the round is to be won at any price
        r = _prove(pos, PERFECT_SOLVE_NODES)
        if r.winner == me and r.best_move is not None:
            if pos.points[me] + 1 >= pos.target:
                # any win wins the match: the surest is best, but a proven
                # bigger win is kept all the same (the points stay proven)
                if _has_rings(pos):
                    pr = engine.solve_points(pos, limit=Limit(nodes=PERFECT_POINTS_NODES))
                    if pr.winner == me and pr.best_move is not None and pr.low >= 2:
                        return pr.best_move
                return r.best_move
            # behind, where only the opponent's win ends the match: a bigger
            # win may win the match rather than level it: the points decide
            return _play_points(pl, pos, moves, r.best_move)
        if r.winner is not None:
            # lost: the fewest points conceded, then the longest resistance
            return _play_points(pl, pos, moves, None)
        res = engine.search(pos, limit=Limit(nodes=PERFECT_SEARCH_NODES), seed=pl._search_seed())
        assert res.best_move is not None
        return res.best_move
    return _play_points(pl, pos, moves, None)


def _has_rings(pos: Position) -> bool:
    """Whether some tower on the board has a ring (else every win is worth 1)."""
    return any(pos.rings)


def _play_points(pl: Player, pos: Position, moves: list[Move], won: Move | None) -> Move:
    """``perfect`` in a round whose points matter to the match: the round's
    value in points (:func:`kamisado.engine.solve_points`) decides where it
    is proven; the match equity (:func:`_play_for_match`) elsewhere.
    ``won``: a move already proven to win the round, or ``None``."""
    from kamisado import engine

    me = pos.turn
    pr = engine.solve_points(pos, limit=Limit(nodes=PERFECT_POINTS_NODES))
    if pr.winner == me:
        if pr.best_move is not None and pr.low >= 2:
            # won with at least a Sumo tower's points (all of them when
            # proven): a move that keeps them; the next move proves again
            return pr.best_move
        # won, but only the plain win proven: the search plays on for
        # more points while the solver proves that its move keeps the win
        return _play_for_match(pl, pos, moves, pr.best_move or won)
    if pr.winner is not None:
        conceded = -pr.points if pr.points is not None else None
        return _fewest_conceded(pl, pos, moves, conceded, pr.best_move)
    return _play_for_match(pl, pos, moves, won, proven_open=True)


def _fewest_conceded(
    pl: Player, pos: Position, moves: list[Move], conceded: int | None, keeps: Move | None,
) -> Move:
    """``perfect`` in a round proven lost where the points it concedes matter:
    of the moves that concede no more than the round's value (``conceded``
    points, when proven), the one that lasts longest; ``keeps`` (the points
    solver's move, which keeps the concession proven so far) when no move's
    concession could be proven."""
    from kamisado import engine

    me = pos.turn
    fewest: list[Move] = []
    per_move = Limit(nodes=max(10_000, PERFECT_CONCEDE_NODES // max(1, len(moves))))
    for move in moves:
        q = pos.copy(stack=False)
        q.push(move)
        value: int | None
        if q.outcome is not None:
            value = q.outcome.points if q.outcome.winner != me else -q.outcome.points
        else:
            r = engine.solve_points(q, limit=per_move)
            # a Sumo push moves again: the value is then ours, not theirs
            value = None if r.points is None else r.points if q.turn != me else -r.points
        if conceded is not None and value == conceded:
            fewest.append(move)
    if not fewest:
        if keeps is not None:
            return keeps
        values = engine.solve_moves(pos, limit=Limit(nodes=PERFECT_SOLVE_NODES // 4))
        return _longest_resistance(pl, pos, values)
    if len(fewest) == 1:
        return fewest[0]
    # among them the longest resistance: the winner's shortest win after each
    lasts = []
    for move in fewest:
        q = pos.copy(stack=False)
        q.push(move)
        if q.outcome is not None:
            lasts.append((0, str(move), move))
            continue
        d = engine.solve(q, limit=per_move, pv=False)
        # a distance not proven in the budget counts as the longest
        far = d.distance if d.winner is not None and d.distance is not None else 10**6
        lasts.append((far, str(move), move))
    longest = max(t[0] for t in lasts)
    best = sorted((t for t in lasts if t[0] == longest), key=lambda t: t[1])
    if len(best) > 1:
        # fewer winning replies for the opponent is a harder problem for them
        best.sort(key=lambda t: winning_replies(pos, t[2], node_limit=20000))
    return best[0][2]


def _play_for_match(
    pl: Player, pos: Position, moves: list[Move], won: Move | None, proven_open: bool = False,
) -> Move:
    """``perfect`` in a round whose win is worth what its points bring to the
    match: the best round win for the match, else the search's move, a proven
    win kept.  ``won``: a move already proven to win the round, or ``None``;
    ``proven_open``: the solver already tried (and found no winner) within
    its budget, so it is not asked again."""
    from kamisado import engine

    # among the rounds won on the spot, the win worth most to the match (the
    # points, the rings: which tower wins)
    wins = sorted(
        ((_end_equity(pos, [m]) or 0.0, m) for m in moves if _wins_now(pos, m)),
        key=lambda vm: (-vm[0], str(vm[1])),
    )
    if wins and wins[0][0] >= 1.0:
        return wins[0][1]  # it wins the match
    # the search weighs the points a round carries (a proven win's points are
    # sure); where it sees no forced win, the solver looks further for one,
    # and among the solver's winning moves the one whose win (at the end of
    # its proven line) is worth most to the match is played
    res = engine.search(pos, limit=Limit(nodes=PERFECT_SEARCH_NODES), seed=pl._search_seed())
    assert res.best_move is not None
    if wins:
        if res.proven_win_in is not None and res.round_points in RING_POINTS:
            k = RING_POINTS.index(res.round_points)
            if _win_equity(pos, pos.turn, k, _rings_after(pos)) > wins[0][0] + 1e-9:
                return res.best_move  # a surely bigger win a few moves away
        return wins[0][1]
    if res.proven_win_in is None:
        if won is None and not proven_open:  # not proven yet: the solver looks further
            r = _prove(pos, PERFECT_MATCH_SOLVE_NODES)
            if r.winner == pos.turn:
                won = r.best_move
        if won is not None:
            move = _best_proven_win(pos, won)
            if move == won and res.best_move != move and _keeps_win(pos, res.best_move):
                # the search's move keeps the round won: it plays on for the
                # points (the search weighs a win's points, the solver's
                # shortest win does not), and the next move is proven again
                return res.best_move
            return move
    return res.best_move


def _prove(pos: Position, nodes: int) -> SolveResult:
    """Who wins the round from ``pos``, within about ``nodes`` nodes: the
    winner-only solver for half of them, then the exact one for the other
    half (on the same table), which proves some positions sooner (neither
    is best everywhere: ``bench/proven.py``).  A won round is answered by
    its shortest win when the exact solver finds it, else by a proven
    winning move; a lost one by the exact result when there is one."""
    from kamisado import engine

    half = Limit(nodes=max(1, nodes // 2))
    r = engine.solve(pos, limit=half, pv=False, exact=False)
    exact = engine.solve(pos, limit=half, pv=False)
    if exact.winner is not None:
        return exact
    return r


def _rings_after(pos: Position) -> tuple[int, int]:
    from kamisado.engine.equity import rings_of

    return rings_of(pos.rings)


def _win_equity(pos: Position, winner: int, k: int, rings: tuple[int, int]) -> float:
    """The match equity, for the side to move in ``pos``, after ``winner``
    wins the round with a tower of ``k`` rings (``rings``: each side's total
    rings before that tower gains its ring); the loser opens the next round."""
    from kamisado.engine.equity import match_equity

    points = pos.points[:]
    points[winner] += RING_POINTS[k]
    after = list(rings)
    after[winner] += k < 3
    black = match_equity((points[0], points[1]), pos.target, (after[0], after[1]), winner ^ 1)
    return black if pos.turn == BLACK else 1.0 - black


def _end_equity(pos: Position, line: Sequence[Move]) -> float | None:
    """The match equity, for the side to move in ``pos``, where ``line`` ends
    the round (``None`` when it does not)."""
    q = pos.copy(stack=False)
    for move in line:
        if q.outcome is not None or not q.is_legal(move):
            return None
        q.push(move)
    o = q.outcome
    if o is None:
        return None
    return _win_equity(pos, o.winner, o.rings, _rings_after(q))


def _best_proven_win(pos: Position, found: Move) -> Move:
    """Among the root moves the solver proves winning (within
    ``PERFECT_MATCH_CHOICE_NODES`` nodes in all), the one whose proven line
    ends with the win worth most to the match; ``found`` (the solver's own
    choice) on a tie or when no other is proven."""
    from kamisado import engine

    moves = list(pos.legal_moves)
    per_move = max(1000, PERFECT_MATCH_CHOICE_NODES // max(1, len(moves)))
    best, best_value = found, -1.0
    for move in sorted(moves, key=lambda m: (m != found, str(m))):
        q = pos.copy(stack=False)
        q.push(move)
        if q.outcome is not None:
            line: list[Move] = [move]
            if q.outcome.winner != pos.turn:
                continue
        else:
            r = engine.solve(q, limit=Limit(nodes=per_move), pv=True)
            if r.winner != pos.turn:
                continue
            line = [move, *r.pv]
        value = _end_equity(pos, line)
        if value is not None and value > best_value + 1e-9:
            best, best_value = move, value
    return best


#: Solver budget to check that the search's move keeps a proven round win.
PERFECT_KEEP_NODES = 1_000_000


def _keeps_win(pos: Position, move: Move) -> bool:
    """Whether the round is proven won for the side to move after ``move``
    (within ``PERFECT_KEEP_NODES`` nodes, on the table of the proof before)."""
    from kamisado import engine

    q = pos.copy(stack=False)
    q.push(move)
    if q.outcome is not None:
        return q.outcome.winner == pos.turn
    r = engine.solve(q, limit=Limit(nodes=PERFECT_KEEP_NODES), pv=False, exact=False)
    return r.winner == pos.turn


def winning_replies(pos: Position, move: Move, node_limit: int | None = None) -> int:
    """How many replies to ``move`` win the round for the opponent.

    Each reply is proven with the solver (within ``node_limit`` nodes, when
    given: a reply it cannot prove in time does not count).  The longest
    resistance with the fewest winning replies is the trickiest defence.
    """
    from kamisado.engine import solve

    q = pos.copy(stack=False)
    q.push(move)
    if q.outcome is not None:
        return 0
    mover = pos.turn
    count = 0
    for reply in list(q.legal_moves):
        q.push(reply)
        if q.outcome is not None:
            count += q.outcome.winner != mover
        else:
            r = solve(q, node_limit=node_limit, pv=False)
            count += r.winner is not None and r.winner != mover
        q.pop()
    return count


def _longest_resistance(pl: Player, pos: Position, values: Sequence[object]) -> Move:
    """Among lost moves, the longest; ties broken by the opponent's fewest wins."""
    from kamisado.engine import MoveValue

    vals = [v for v in values if isinstance(v, MoveValue)]
    unknown = [v for v in vals if v.winner is None]
    if unknown:  # not proven lost: that is the best hope
        return pl.rng.choice(unknown).move
    longest = max(v.distance or 0 for v in vals)
    best = [v.move for v in vals if (v.distance or 0) == longest]

    def trickiness(move: Move) -> int:
        # fewer winning replies for the opponent is a harder problem for them
        return -winning_replies(pos, move, node_limit=20000)

    if len(best) > 1:
        best.sort(key=lambda m: (trickiness(m), str(m)), reverse=True)
    return best[0]


def choose_fill_by_search(match: Match, depth: int, rng: random.Random) -> str:
    """The fill (left or right) whose next round looks worse for the opponent.

    Each line-up is searched to ``depth`` from the Challenger's side (the
    opponent moves first); the winner picks the one with the lower score,
    breaking ties at random.
    """
    if depth <= 0:
        return rng.choice(FILLS)
    from kamisado import engine

    scores = {}
    for fill in FILLS:
        start = match.next_round_start(fill)
        r = engine.search(start, limit=Limit(depth=depth), seed=rng.randrange(1 << 30))
        scores[fill] = r.score
    best = min(scores.values())
    return rng.choice([f for f in FILLS if scores[f] == best])


def _perfect_fill(pl: Player, match: Match) -> str:
    """``perfect``'s fill, by the next round's value: each fill's next round
    (the opponent opens it) is given to the points solver
    (:func:`kamisado.engine.solve_points`, ``PERFECT_FILL_SOLVE_NODES``
    each); a round it proves is worth the match equity after its proven
    result (who wins it and with how many points), a round it cannot prove
    the match equity at its start, and the fill worth more to us is taken.
    Where the two are worth the same (neither proven: the fill changes
    neither the points, the rings nor the opener), the search decides as in
    :func:`choose_fill_by_search`."""
    from kamisado import engine

    if pl.proof is not None:
        proven = pl.proof.fill(match.position)
        if proven in FILLS:
            return proven
    me = match.current_winner()
    starts = {fill: match.next_round_start(fill) for fill in FILLS}
    worth = {
        fill: _fill_equity(start, engine.solve_points(
            start, limit=Limit(nodes=PERFECT_FILL_SOLVE_NODES)), me)
        for fill, start in starts.items()
    }
    if abs(worth["left"] - worth["right"]) > 1e-9:
        return max(FILLS, key=lambda f: worth[f])
    depth = LEVELS[pl.level].fill_depth
    scores = {}
    for fill in FILLS:
        r = engine.search(starts[fill], limit=Limit(depth=depth), seed=pl._search_seed())
        scores[fill] = r.score
    best = min(scores.values())
    return pl.rng.choice([f for f in FILLS if scores[f] == best])


def _fill_equity(start: Position, value: PointsResult, me: int) -> float:
    """``me``'s match equity for a next round from ``start`` whose value to
    its opener the points solver gave: after the proven result when the
    winner is proven (the fewest points proven for the winner when the
    exact points are not), else at the round's start."""
    from kamisado.engine.equity import match_equity

    opener = start.turn
    rings = _rings_after(start)
    if value.winner is None:
        black = match_equity((start.points[0], start.points[1]), start.target, rings, opener)
        return black if me == BLACK else 1.0 - black
    # the points the winner is sure of: low when the opener wins, -high when it loses
    sure = value.low if value.winner == opener else -value.high
    k = RING_POINTS.index(sure) if sure in RING_POINTS else 0
    theirs = _win_equity(start, value.winner, k, rings)  # for the opener
    return theirs if me == opener else 1.0 - theirs


@dataclass(frozen=True)
class Level:
    """How a level plays: a move policy, how deep it searches its fill
    choice, a short description and its measured Elo (``beginner`` = 0; the
    levels table of docs/engine.md, from ``bench/ladder.py``).

    >>> [(n, lv.elo) for n, lv in LEVELS.items()][:3]
    [('beginner', 0), ('novice', 471), ('casual', 680)]
    """

    policy: Callable[[Player, Position], Move]
    fill_depth: int
    description: str
    elo: int


LEVELS: dict[str, Level] = {
    "beginner": Level(_beginner, 0, "one move ahead, often careless", 0),
    "novice": Level(_searcher(depth=2, noise=120), 2, "2-move search, noisy", 471),
    "casual": Level(_searcher(depth=3, noise=40), 3, "3-move search, some noise", 680),
    "club": Level(_searcher(depth=5), 4, "5-move search", 902),
    "strong": Level(_searcher(nodes=50_000), 6, "50k nodes of search (at most about 0.05 s)", 1209),
    "expert": Level(_searcher(nodes=600_000, solve_nodes=1_000_000), 8,
                    "600k nodes of search (up to about 0.5 s) and the solver", 1300),
    "perfect": Level(_perfect, 10,
                     "opening book and solver, playing the points for the match", 1319),
}


def player(level: str, seed: int = 0, proof: MatchOracle | None = None) -> Player:
    """A computer player of the named level; see ``LEVELS``.  ``proof``: the
    match proof ``perfect`` plays from (:class:`MatchOracle`)."""
    return Player(level, seed, proof)
