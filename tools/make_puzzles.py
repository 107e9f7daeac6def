"""Find "win in N" puzzles in games of the built-in players; write puzzles.json.

    python tools/make_puzzles.py [--seed 2026] [--count 40] [--write | --out PATH]

Without ``--write`` or ``--out`` it checks: the puzzles are found again and
compared with ``kamisado/data/puzzles.json`` (exit 1 when it is stale);
``--write`` writes that file, ``--out`` another.

The built-in players (levels beginner, novice, casual and club: the levels
that search by depth, so a game replays exactly from its seed) play single
rounds and Standard, Long and Marathon matches, Sumo rounds included.  Every
position of every game is screened by the solver (:func:`kamisado.engine.solve`
with a node limit and a horizon of 7 moves); where the side to move has a
forced win in exactly N moves of both sides (N = 1, 3, 5 or 7), each of its
moves is solved, and the position is kept when at most two moves win in N, at
most three win at all and at least two do not (a puzzle with one clear answer
and real ways to go wrong); a board is used once, whatever the match type.  The solution line
is the solver's shortest win against its longest resistance, the same
replies that :func:`kamisado.lessons.puzzle_reply` gives the web app.

The puzzles are spread over N (8, 12, 12 and 8 of 40) and, within each N, over
the match types, and written sorted by N.  Everything is driven by node
limits and seeds, never by the clock, so the same seed writes the same file.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # tools/generated.py, however this is loaded

import generated  # noqa: E402

from kamisado.engine import clear_tables, solve
from kamisado.engine.levels import player
from kamisado.lessons import puzzle_reply
from kamisado.rules.board import SIDE_LETTERS
from kamisado.rules.match import MATCH_NAMES, Match
from kamisado.rules.position import Position

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "kamisado" / "data" / "puzzles.json"

#: Levels whose play depends on the seed only (no clock).
LEVELS = ("beginner", "novice", "casual", "club")
TARGETS = (1, 3, 7, 15)
WIN_IN = (1, 3, 5, 7)
#: Share of each N in the puzzle set (fractions of ``--count``).
SHARE = {1: 0.2, 3: 0.3, 5: 0.3, 7: 0.2}
SCREEN_NODES = 200_000
MOVE_NODES = 400_000
MAX_PLIES = 600


@dataclass
class Candidate:
    """A position where the side to move wins in exactly ``n``."""

    kpn: str
    n: int
    winning: int
    """Moves that win at all."""
    best: int
    """Moves that win in exactly ``n``."""
    source: str


def _solve(pos: Position, **limits: int) -> tuple[int | None, int | None]:
    clear_tables()  # the answer must not depend on earlier searches
    r = solve(pos, pv=False, **limits)
    return r.winner, r.distance


def screen(pos: Position) -> int | None:
    """N when the side to move wins in exactly N (1, 3, 5, 7), else None."""
    winner, dist = _solve(pos, node_limit=SCREEN_NODES, max_depth=7)
    if winner != pos.turn or dist not in WIN_IN:
        return None
    return dist


def count_wins(pos: Position, n: int) -> tuple[int, int] | None:
    """(moves that win, moves that win in n), or None when a move is unsolved."""
    side = pos.turn
    winning = best = 0
    for move in list(pos.legal_moves):
        pos.push(move)
        try:
            if pos.outcome is not None:
                won, dist = pos.outcome.winner == side, 1
            else:
                winner, d = _solve(pos, node_limit=MOVE_NODES)
                if winner is None or d is None:
                    return None
                won, dist = winner == side, d + 1
        finally:
            pos.pop()
        if won:
            winning += 1
            best += dist == n
    return winning, best


def solution_line(kpn: str) -> list[str]:
    """The shortest win against the longest resistance, in square form."""
    pos = Position(kpn)
    line: list[str] = []
    while pos.outcome is None:
        move = puzzle_reply(pos.kpn())
        pos.push_move(move)
        line.append(move)
    return line


def games(seed: int) -> Iterator[tuple[str, Match, Position]]:
    """Every position in progress of an endless, seeded run of games."""
    rng = random.Random(seed)
    game = 0
    while True:
        game += 1
        target = TARGETS[(game - 1) % len(TARGETS)]
        levels = (rng.choice(LEVELS), rng.choice(LEVELS))
        players = [player(levels[0], rng.randrange(1 << 30)),
                   player(levels[1], rng.randrange(1 << 30))]
        match = Match(target)
        plies = 0
        name = f"{MATCH_NAMES[target]}, {levels[0]} (Black) v {levels[1]} (Gold), game {game}"
        while match.state != "over" and plies < MAX_PLIES:
            if match.state == "fill":
                winner = match.current_winner()
                match.choose_fill(players[winner].choose_fill(match))
                continue
            pos = match.position
            where = f"{name}, round {len(match.rounds)}, move {len(match.current.moves) + 1}"
            yield where, match, pos.copy(stack=False)
            match.push_move(players[pos.turn].choose_move(pos))
            plies += 1


def find(seed: int, count: int, max_games: int, log: bool) -> list[dict[str, object]]:
    """Play until every N has its share of candidates; pick and solve them."""
    want = {n: max(1, round(count * SHARE[n])) for n in WIN_IN}
    want[3] += count - sum(want.values())
    # up to want[n] candidates of each N for each match type, to pick a spread from
    pools: dict[tuple[int, int], list[Candidate]] = {(n, t): [] for n in WIN_IN for t in TARGETS}
    seen: set[str] = set()
    started = time.monotonic()
    last_game = ""
    for where, _match, pos in games(seed):
        game = where.split(", round")[0]
        if game != last_game:
            last_game = game
            n_games = int(game.rsplit(" ", 1)[1])
            if log:
                sizes = " ".join(
                    f"N{n}:" + "/".join(str(len(pools[n, t])) for t in TARGETS) for n in WIN_IN
                )
                print(f"[{time.monotonic() - started:6.0f}s] {game}  {sizes}", file=sys.stderr)
            if n_games > max_games or all(len(pools[k]) >= want[k[0]] for k in pools):
                break
        key = " ".join(pos.kpn().split()[:3])  # the board, whatever the match
        if key in seen:
            continue
        seen.add(key)
        legal = len(list(pos.legal_moves))
        if legal < 3:
            continue  # hardly a choice to make
        n = screen(pos)
        if n is None or len(pools[n, pos.target]) >= want[n]:
            continue
        counts = count_wins(pos, n)
        if counts is None:
            continue
        winning, best = counts
        if best > 2 or winning > 3 or legal - winning < 2:
            continue  # one clear answer, and at least two ways to go wrong
        pools[n, pos.target].append(Candidate(pos.kpn(), n, winning, best, where))
    rng = random.Random(seed)
    chosen: list[Candidate] = []
    for n in WIN_IN:
        by_target = {t: pools[n, t][:] for t in TARGETS}
        for group in by_target.values():
            rng.shuffle(group)
        picked: list[Candidate] = []
        while len(picked) < want[n] and any(by_target.values()):
            for target in sorted(by_target):  # round robin over the match types
                if by_target[target] and len(picked) < want[n]:
                    picked.append(by_target[target].pop())
        chosen += sorted(picked, key=lambda c: (c.best, c.winning, c.kpn))
    out: list[dict[str, object]] = []
    for i, c in enumerate(chosen, 1):
        line = solution_line(c.kpn)
        assert len(line) == c.n, (c.kpn, line)
        out.append({
            "id": f"p{i:02d}-w{c.n}",
            "kpn": c.kpn,
            "side": SIDE_LETTERS[Position(c.kpn).turn],
            "win_in": c.n,
            "solution": line,
            "winning_first_moves": c.winning,
            "source": c.source,
        })
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="tools/make_puzzles.py",
                                 description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=2026, help="seed of the games (default 2026)")
    ap.add_argument("--count", type=int, default=40, help="puzzles to write (default 40)")
    ap.add_argument("--max-games", type=int, default=300, help="stop after this many games")
    mode = generated.add_options(ap, "kamisado/data/puzzles.json")
    mode.add_argument("--out", type=Path, help="write the puzzles to this file instead")
    ap.add_argument("--quiet", action="store_true", help="no progress on standard error")
    args = ap.parse_args(argv)
    if args.count < len(WIN_IN):
        ap.error(f"--count must be at least {len(WIN_IN)}")
    started = time.monotonic()
    puzzles = find(args.seed, args.count, args.max_games, not args.quiet)
    doc = {
        "_about": "Win-in-N puzzles found by the solver in games of the built-in players; "
        f"written by: python tools/make_puzzles.py --seed {args.seed} --count {args.count}. "
        "Each solution is the shortest win against the solver's longest resistance.",
        "seed": args.seed,
        "puzzles": puzzles,
    }
    made = (json.dumps(doc, indent=1) + "\n").encode()
    print(f"found {len(puzzles)} puzzles in {time.monotonic() - started:.0f} s")
    if len(puzzles) != args.count:
        return generated.fail("make_puzzles.py", f"found {len(puzzles)} puzzles of"
                              f" {args.count} in {args.max_games} games: nothing written")
    if args.out is not None:
        args.out.write_bytes(made)
        print(f"wrote {args.out}")
        return 0
    return generated.settle({DEFAULT_OUT: made}, write=args.write, script="make_puzzles.py")


if __name__ == "__main__":
    raise SystemExit(main())
