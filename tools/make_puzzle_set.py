"""Make the puzzle trainer's set: kamisado/data/puzzle_set.json (500 and more puzzles).

    python tools/make_puzzle_set.py [--seed 2027] [--count 505] [--max-games 300] --write
    python tools/make_puzzle_set.py --out /tmp/set.json      # anywhere else
    python tools/make_puzzle_set.py --validate FILE [--sample 5]   # re-prove a few

Where the puzzles come from: the 40 puzzles of ``kamisado/data/puzzles.json``
(kept with their ids, ``p01-w1`` ...), the positions of the real games in
``tests/data/games-before-migrations.sqlite3`` and of the rulebook's
figures (``tests/data/rulebook.json``), then the games the built-in levels
play from seeds (levels beginner, novice, casual and club, which replay
exactly from their seed; single rounds and Standard, Long and Marathon
matches, Sumo rounds included).  Every position is screened with a cheap
solver call (a node limit and a horizon of 7 moves); what passes is proven
move by move with larger node limits.  The kinds:

``win_in``
    The side to move wins within N moves of both sides (N = 1, 3, 5, 7);
    every first move that wins within N is accepted (``accepted``), at
    least two moves do not.
``only_win``
    A win in N where one move wins and the solver proves that every other
    move loses.
``sumo_push``
    A win in N whose solution has a Sumo push in it (and see the second
    pass below).
``deadlock``
    A win in N whose solution blocks a tower (a pass, M6) or ends the round
    by a deadlock (M8).
``only_defence``
    The only move that does not lose: every other move loses within 6
    moves, the one move is proven to win in the end.  One move to find.
``sumo_push`` (second pass)
    A position where a Sumo push is legal and one or two moves win, a push
    among them, every other losing (each move proven over the whole round):
    one move to find.
``fill``
    The round is over and its winner fills the home rows: after one
    direction the opponent (who moves first) wins the next round (proven),
    or wins it within 7 moves where after the other direction it cannot
    (proven both ways); the other direction is the answer.

Each puzzle carries its kind, themes, an initial rating (the difficulty,
from N, the moves that go wrong, Sumo towers, the kind), the accepted first
moves (or fill), the solution line (the shortest win against the longest
resistance, what :func:`kamisado.lessons.puzzle_reply` answers at play time)
and its source: the game (seed, levels, match) or record, and the ply.
Everything is driven by seeds and node limits, never by the clock, so the
same arguments write the same file.  CI does not run this script (it takes
about an hour); ``tests/test_puzzles_trainer.py`` re-proves a few puzzles.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generated  # noqa: E402

from kamisado.engine import clear_tables, solve
from kamisado.engine.levels import player
from kamisado.lessons import puzzle_reply
from kamisado.rules.board import SIDE_LETTERS
from kamisado.rules.match import MATCH_NAMES, Match
from kamisado.rules.position import Position

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "kamisado" / "data" / "puzzle_set.json"
OLD = ROOT / "kamisado" / "data" / "puzzles.json"
RECORDS = ROOT / "tests" / "data" / "games-before-migrations.sqlite3"
RULEBOOK = ROOT / "tests" / "data" / "rulebook.json"

LEVELS = ("beginner", "novice", "casual", "club")
TARGETS = (1, 3, 7, 15)
WIN_IN = (1, 3, 5, 7)
#: The cheap first look at every position.
SCREEN_NODES = 30_000
#: Proving one move of a candidate.
MOVE_NODES = 300_000
#: Proving a whole round (a fill's two starts, a defence's one move).
ROUND_NODES = 600_000
#: Proving a fill's next round from its start (a full board).
FILL_NODES = 2_000_000
#: A fill that lets the opponent win within this many moves is wrong.
FILL_BOUND = 7
#: How many Sumo pushes the second pass adds at most.
PUSH_COUNT = 40
MAX_PLIES = 600
#: The most of each kind the set takes (the 40 old puzzles count too): the
#: common kinds are capped, the rare ones (pushes, deadlocks, fills) are not.
QUOTA = {"win_in": 330, "only_win": 140, "sumo_push": 1000, "deadlock": 1000,
         "only_defence": 130, "fill": 1000}


def _solve(pos: Position, **limits: Any) -> Any:
    clear_tables()  # the answer must not depend on earlier searches
    return solve(pos, pv=False, **limits)


def win_within(pos: Position, side: int, bound: int, nodes: int = MOVE_NODES) -> bool | None:
    """Whether ``side`` wins ``pos`` within ``bound`` moves of both sides
    (``None``: the node limit stopped the solver first)."""
    if pos.outcome is not None:
        return pos.outcome.winner == side
    if bound <= 0:
        return False
    r = _solve(pos, node_limit=nodes, max_depth=bound)
    if r.winner is None:
        return None if r.nodes >= nodes else False
    return bool(r.winner == side and r.distance is not None and r.distance <= bound)


def proven_winner(pos: Position, nodes: int = ROUND_NODES) -> int | None:
    """The side that wins ``pos`` with best play, or ``None`` when unproven."""
    if pos.outcome is not None:
        return int(pos.outcome.winner)
    r = _solve(pos, node_limit=nodes, exact=False)
    return None if r.winner is None else int(r.winner)


def solution_line(kpn: str) -> list[str]:
    """The shortest win against the longest resistance, in square form."""
    pos = Position(kpn)
    line: list[str] = []
    while pos.outcome is None:
        move = puzzle_reply(pos.kpn())
        pos.push_move(move)
        line.append(move)
    return line


def line_facts(kpn: str, line: list[str]) -> dict[str, bool]:
    """What happens along a line: pushes (by either side), passes, a deadlock."""
    pos = Position(kpn)
    push = blocked = False
    for mv in line:
        if pos.is_push(pos.parse_move(mv)):
            push = True
        pos.push_move(mv)
        if pos.passes():
            blocked = True
    deadlock = pos.outcome is not None and pos.outcome.reason == "deadlock"
    return {"push": push, "blocked": blocked, "deadlock": deadlock}


def rating(kind: str, n: int, legal: int, accepted: int, sumo: bool) -> int:
    """The initial rating (difficulty) of a puzzle."""
    base = {"win_in": 1000 + 150 * (n - 1), "only_win": 1100 + 150 * (n - 1),
            "sumo_push": 1150 + 150 * (n - 1) if n else 1500, "deadlock": 1250 + 150 * (n - 1),
            "only_defence": 1450, "fill": 1600}[kind]
    wrong = max(0, legal - accepted)
    value = base + 12 * min(wrong, 20) - 60 * (accepted - 1) + (80 if sumo else 0)
    return int(max(600, min(2600, value)))


def themes_of(kind: str, pos: Position, n: int, accepted: int, facts: dict[str, bool]) -> list[str]:
    """The themes of a puzzle (short words the API filters on)."""
    out: list[str] = []
    if n == 1:
        out.append("short")
    elif n >= 5:
        out.append("long")
    if any(pos.rings):
        out.append("sumo")
    if facts.get("push"):
        out.append("push")
    if facts.get("blocked"):
        out.append("blocked")
    if facts.get("deadlock"):
        out.append("deadlock")
    if accepted == 1 and kind != "fill":
        out.append("one_move")
    elif accepted > 1:
        out.append("several_wins")
    if pos.target > 1:
        out.append("match")
    if kind == "only_defence":
        out.append("defence")
    if kind == "fill":
        out.append("fill")
    return out


def analyse_win(pos: Position, n: int) -> dict[str, Any] | None:
    """A win-in-``n`` candidate proven move by move, or ``None``."""
    side = pos.turn
    accepted: list[str] = []
    others: list[Position] = []
    for move in list(pos.legal_moves):
        pos.push(move)
        try:
            ok = win_within(pos, side, n - 1)
            if ok is None:
                return None
            if ok:
                accepted.append(str(move))
            else:
                others.append(pos.copy(stack=False))
        finally:
            pos.pop()
    legal = len(accepted) + len(others)
    if not accepted or len(others) < 2 or len(accepted) > 3:
        return None
    kpn = pos.kpn()
    line = solution_line(kpn)
    if len(line) != n or line[0] not in accepted:
        return None
    facts = line_facts(kpn, line)
    if facts["deadlock"] or facts["blocked"]:
        kind = "deadlock"
    elif facts["push"]:
        kind = "sumo_push"
    elif len(accepted) == 1 and all(proven_winner(o, MOVE_NODES) == side ^ 1 for o in others):
        kind = "only_win"
    else:
        kind = "win_in"
    sumo = any(pos.rings)
    return {"kind": kind, "kpn": kpn, "side": SIDE_LETTERS[side], "win_in": n,
            "accepted": sorted(accepted), "solution": line,
            "themes": themes_of(kind, pos, n, len(accepted), facts),
            "rating": rating(kind, n, legal, len(accepted), sumo), "legal": legal}


def analyse_defence(pos: Position) -> dict[str, Any] | None:
    """The only move that does not lose (the others lose within 6), or ``None``."""
    side = pos.turn
    moves = list(pos.legal_moves)
    if len(moves) < 3:
        return None
    saving: list[str] = []
    for move in moves:
        pos.push(move)
        try:
            lost = win_within(pos, side ^ 1, 6, SCREEN_NODES)
        finally:
            pos.pop()
        if not lost:
            saving.append(str(move))
            if len(saving) > 1:
                return None
    if len(saving) != 1:
        return None
    pos.push_move(saving[0])
    try:
        wins = proven_winner(pos) == side
    finally:
        pos.pop()
    if not wins:
        return None
    kpn = pos.kpn()
    facts = line_facts(kpn, saving)
    return {"kind": "only_defence", "kpn": kpn, "side": SIDE_LETTERS[side], "win_in": None,
            "accepted": saving, "solution": saving,
            "themes": themes_of("only_defence", pos, 0, 1, facts),
            "rating": rating("only_defence", 0, len(moves), 1, any(pos.rings)),
            "legal": len(moves)}


def analyse_fill(match: Match) -> dict[str, Any] | None:
    """A fill that wins the next round where the other loses it, or ``None``."""
    chooser = match.current_winner()
    winners: dict[str, int | None] = {}
    starts: dict[str, str] = {}
    for direction in ("left", "right"):
        start = match.next_round_start(direction)
        starts[direction] = start.kpn()
        winners[direction] = proven_winner(start, FILL_NODES)
    good = [d for d in ("left", "right") if winners[d] == chooser]
    bad = [d for d in ("left", "right") if winners[d] == chooser ^ 1]
    if len(good) != 1 or len(bad) != 1:
        # short of a whole round proven: the opponent wins quickly after one fill only
        quick = {d: win_within(Position(starts[d]), chooser ^ 1, FILL_BOUND, MOVE_NODES)
                 for d in ("left", "right")}
        good = [d for d in quick if quick[d] is False]
        bad = [d for d in quick if quick[d] is True]
        if len(good) != 1 or len(bad) != 1:
            return None
    end = match.position
    return {"kind": "fill", "kpn": end.kpn(), "side": SIDE_LETTERS[chooser], "win_in": None,
            "accepted": good, "solution": good, "fill": starts,
            "themes": themes_of("fill", end, 0, 1, {}),
            "rating": rating("fill", 0, 2, 1, any(end.rings)), "legal": 2}


def analyse_push(pos: Position) -> dict[str, Any] | None:
    """A Sumo push that wins where most moves lose: a position where a push is
    legal, one or two moves win (a push among them) and at least one loses,
    every move proven either way (the whole round); or ``None``."""
    side = pos.turn
    moves = list(pos.legal_moves)
    if len(moves) < 2 or not any(pos.is_push(m) for m in moves):
        return None
    wins: list[str] = []
    losses = 0
    for move in moves:
        pos.push(move)
        try:
            winner = proven_winner(pos, MOVE_NODES)
        finally:
            pos.pop()
        if winner is None:
            return None
        if winner == side:
            wins.append(str(move))
        else:
            losses += 1
    pushes = [m for m in wins if pos.is_push(pos.parse_move(m))]
    if not pushes or len(wins) > 2 or losses < 1:
        return None
    kpn = pos.kpn()
    facts = line_facts(kpn, pushes[:1])
    return {"kind": "sumo_push", "kpn": kpn, "side": SIDE_LETTERS[side], "win_in": None,
            "accepted": sorted(wins), "solution": pushes[:1],
            "themes": themes_of("sumo_push", pos, 0, len(wins), facts),
            "rating": rating("sumo_push", 0, len(moves), len(wins), True), "legal": len(moves)}


Source = tuple[str, str, int]
"""(origin, game, ply): where a position comes from."""


def record_games() -> Iterator[tuple[Source, Match, Position | None]]:
    """The positions of the real games: the stored games, the rulebook's figures."""
    con = sqlite3.connect(f"file:{RECORDS}?mode=ro", uri=True)
    try:
        rows = con.execute("SELECT id, target, start_kpn FROM games ORDER BY id").fetchall()
        for gid, target, _start in rows:
            match = Match(int(target))
            tokens = [t for (t,) in con.execute(
                "SELECT token FROM actions WHERE game_id = ? ORDER BY seq", (gid,))]
            for ply, token in enumerate(tokens, 1):
                if match.state == "over":
                    break
                yield ("record", f"{RECORDS.name} game {gid}", ply), match, (
                    match.position.copy(stack=False) if match.state == "playing" else None)
                try:
                    match.apply(token)
                except Exception:  # noqa: BLE001 - a token the rules refuse ends that game
                    break
    finally:
        con.close()
    book = json.loads(RULEBOOK.read_text(encoding="utf-8"))
    for name, fig in book.items():
        if name.startswith("_") or not isinstance(fig, dict):
            continue
        for i, kpn in enumerate(_kpns(fig)):
            try:
                pos = Position(kpn)
            except Exception:  # noqa: BLE001 - not every string there is a position
                continue
            if pos.outcome is None:
                yield ("rulebook", f"rulebook {name}", i), Match(1), pos


def _kpns(value: Any) -> Iterator[str]:
    if isinstance(value, str) and value.count("/") == 7:
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _kpns(v)
    elif isinstance(value, list):
        for v in value:
            yield from _kpns(v)


def seeded_games(seed: int, max_games: int,
                 targets: tuple[int, ...] = TARGETS) -> Iterator[tuple[Source, Match, Position | None]]:
    """Every position (and every fill) of a seeded run of the built-in levels'
    games (only those of the match types ``targets``; the others are
    skipped, the same games keeping the same numbers and seeds)."""
    rng = random.Random(seed)
    for game in range(1, max_games + 1):
        target = TARGETS[(game - 1) % len(TARGETS)]
        levels = (rng.choice(LEVELS), rng.choice(LEVELS))
        seeds = (rng.randrange(1 << 30), rng.randrange(1 << 30))
        if target not in targets:
            continue
        players = [player(levels[0], seeds[0]), player(levels[1], seeds[1])]
        match = Match(target)
        name = (f"seed {seed} game {game}: {MATCH_NAMES[target]}, {levels[0]} (Black, seed"
                f" {seeds[0]}) v {levels[1]} (Gold, seed {seeds[1]})")
        ply = 0
        while match.state != "over" and ply < MAX_PLIES:
            ply += 1
            if match.state == "fill":
                yield ("self-play", name, ply), match, None
                match.choose_fill(players[match.current_winner()].choose_fill(match))
                continue
            pos = match.position
            yield ("self-play", name, ply), match, pos.copy(stack=False)
            match.push_move(players[pos.turn].choose_move(pos))


def old_puzzles() -> list[dict[str, Any]]:
    """The 40 puzzles of puzzles.json, proven again, with their ids."""
    out = []
    for p in json.loads(OLD.read_text(encoding="utf-8"))["puzzles"]:
        pos = Position(p["kpn"])
        found = analyse_win(pos, int(p["win_in"]))
        if found is None:  # keep it as it was: its stored line is proven
            found = {"kind": "win_in", "kpn": p["kpn"], "side": p["side"],
                     "win_in": p["win_in"], "accepted": [p["solution"][0]],
                     "solution": p["solution"], "legal": len(list(pos.legal_moves))}
            found["themes"] = themes_of("win_in", pos, p["win_in"], 1, {})
            found["rating"] = rating("win_in", p["win_in"], found["legal"], 1, any(pos.rings))
        found["id"] = p["id"]
        found["source"] = {"origin": "self-play", "game": p["source"], "ply": 0}
        out.append(found)
    return out


def make(seed: int, count: int, max_games: int, log: bool,
         partial: Path | None = None) -> list[dict[str, Any]]:
    """The whole set: the old puzzles, then new ones until ``count`` or the games run out."""
    started = time.monotonic()
    puzzles = old_puzzles()
    have = {k: 0 for k in QUOTA}
    for p in puzzles:
        have[p["kind"]] += 1
    seen = {" ".join(p["kpn"].split()[:3]) for p in puzzles}
    screened = 0
    last = ""

    def sources() -> Iterator[tuple[Source, Match, Position | None]]:
        yield from record_games()
        yield from seeded_games(seed, max_games)

    for (origin, game, ply), match, pos in sources():
        if len(puzzles) >= count:
            break
        if game != last:
            last = game
            if log:
                print(f"[{time.monotonic() - started:6.0f}s] {len(puzzles)} puzzles"
                      f" {have} screened {screened}; {game}", file=sys.stderr, flush=True)
        found: dict[str, Any] | None = None
        if pos is None:
            if have["fill"] >= QUOTA["fill"]:
                continue
            key = " ".join(match.position.kpn().split()[:3]) + " fill"
            if key in seen:
                continue
            seen.add(key)
            found = analyse_fill(match)
        else:
            key = " ".join(pos.kpn().split()[:3])
            if key in seen or len(list(pos.legal_moves)) < 3:
                continue
            seen.add(key)
            screened += 1
            r = _solve(pos, node_limit=SCREEN_NODES, max_depth=7)
            if r.winner == pos.turn and r.distance in WIN_IN:
                found = analyse_win(pos, int(r.distance))
            elif r.winner is None and r.nodes < SCREEN_NODES and have["only_defence"] < QUOTA["only_defence"]:
                found = analyse_defence(pos)
        if found is None:
            continue
        kind = found["kind"]
        if have[kind] >= QUOTA[kind]:
            continue
        have[kind] += 1
        found["id"] = f"s{len(puzzles) + 1:04d}-{kind.replace('_', '')}"
        found["source"] = {"origin": origin, "game": game, "ply": ply}
        puzzles.append(found)
        if log:
            print(f"  + {found['id']} {found['rating']} {found['themes']}", file=sys.stderr,
                  flush=True)
        if partial is not None and len(puzzles) % 25 == 0:  # what came so far, should time run out
            partial.write_text(json.dumps({"puzzles": puzzles}) + "\n", encoding="utf-8")
    push_pass(puzzles, seed, max_games, log)
    for p in puzzles:
        p.pop("legal", None)
    return puzzles


def push_pass(puzzles: list[dict[str, Any]], seed: int, max_games: int, log: bool) -> None:
    """The second pass: Sumo pushes (rare: a push is legal in about one
    position of a hundred), from the Long and Marathon matches of the same
    seeded games, until :data:`PUSH_COUNT` more or the games run out.  Its
    boards seen start from the puzzles' (so ``--resume`` repeats it exactly)."""
    seen = {" ".join(p["kpn"].split()[:3]) for p in puzzles}
    found_n = 0
    last = ""
    for (origin, game, ply), _match, pos in seeded_games(seed, max_games, (7, 15)):
        if found_n >= PUSH_COUNT:
            break
        if log and game != last:
            last = game
            print(f"push pass: {found_n} pushes; {game}", file=sys.stderr, flush=True)
        if pos is None or not any(pos.is_push(m) for m in pos.legal_moves):
            continue
        key = " ".join(pos.kpn().split()[:3])
        if key in seen:
            continue
        seen.add(key)
        found = analyse_push(pos)
        if found is None:
            continue
        found_n += 1
        found["id"] = f"s{len(puzzles) + 1:04d}-sumopush"
        found["source"] = {"origin": origin, "game": game, "ply": ply}
        found.pop("legal", None)
        puzzles.append(found)
        if log:
            print(f"  + {found['id']} {found['rating']} {found['themes']}", file=sys.stderr,
                  flush=True)


def validate(path: Path, sample: int) -> int:
    """Re-prove ``sample`` puzzles of each kind in ``path``: exit 1 on a wrong one."""
    puzzles = json.loads(path.read_text(encoding="utf-8"))["puzzles"]
    bad = 0
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for p in puzzles:
        by_kind.setdefault(p["kind"], []).append(p)
    for kind, group in sorted(by_kind.items()):
        for p in group[:sample]:
            ok = check_puzzle(p)
            bad += not ok
            print(f"{p['id']} {kind}: {'ok' if ok else 'WRONG'}")
    return 1 if bad else 0


def check_puzzle(p: dict[str, Any]) -> bool:
    """Whether a puzzle's accepted moves are right and the others wrong, per the solver."""
    pos = Position(p["kpn"])
    side = pos.turn
    if p["kind"] == "fill":
        chooser = 0 if p["side"] == "b" else 1
        (good,) = p["accepted"]
        bad = "right" if good == "left" else "left"
        good_pos, bad_pos = Position(p["fill"][good]), Position(p["fill"][bad])
        if (proven_winner(good_pos, FILL_NODES) == chooser
                and proven_winner(bad_pos, FILL_NODES) == chooser ^ 1):
            return True  # the whole next round proven both ways
        return (win_within(bad_pos, chooser ^ 1, FILL_BOUND, MOVE_NODES) is True
                and win_within(good_pos, chooser ^ 1, FILL_BOUND, MOVE_NODES) is False)
    for move in list(pos.legal_moves):
        pos.push(move)
        try:
            if p["win_in"] is not None:
                right = win_within(pos, side, int(p["win_in"]) - 1)
            else:
                right = proven_winner(pos) == side
        finally:
            pos.pop()
        if right is None or right != (str(move) in p["accepted"]):
            return False
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="tools/make_puzzle_set.py",
                                 description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=2027, help="seed of the games (default 2027)")
    ap.add_argument("--count", type=int, default=505, help="puzzles to make at most (default 505)")
    ap.add_argument("--max-games", type=int, default=300, help="stop after this many games")
    mode = generated.add_options(ap, "kamisado/data/puzzle_set.json")
    mode.add_argument("--out", type=Path, help="write the puzzles to this file instead")
    mode.add_argument("--validate", type=Path, help="re-prove a few puzzles of this file")
    ap.add_argument("--resume", type=Path, help="a first pass's file (--out): only redo the"
                    " push pass on it")
    ap.add_argument("--sample", type=int, default=5, help="puzzles of each kind --validate proves")
    ap.add_argument("--quiet", action="store_true", help="no progress on standard error")
    args = ap.parse_args(argv)
    if args.validate is not None:
        return validate(args.validate, args.sample)
    started = time.monotonic()
    partial = None if args.out is None else args.out.with_suffix(".partial.json")
    if args.resume is not None:  # the first pass's puzzles as written: only the push pass
        puzzles = json.loads(args.resume.read_text(encoding="utf-8"))["puzzles"]
        puzzles = [p for p in puzzles if not (p["kind"] == "sumo_push" and p["win_in"] is None)]
        push_pass(puzzles, args.seed, args.max_games, not args.quiet)
    else:
        puzzles = make(args.seed, args.count, args.max_games, not args.quiet, partial)
    kinds: dict[str, int] = {}
    for p in puzzles:
        kinds[p["kind"]] = kinds.get(p["kind"], 0) + 1
    doc = {
        "_about": "The puzzle trainer's set: the 40 puzzles of puzzles.json and puzzles the"
        " solver proved in real and self-play games; written by: python"
        f" tools/make_puzzle_set.py --seed {args.seed} --count {args.count}"
        f" --max-games {args.max_games} --write",
        "seed": args.seed,
        "kinds": kinds,
        "puzzles": puzzles,
    }
    made = (json.dumps(doc, indent=0) + "\n").encode()
    print(f"made {len(puzzles)} puzzles {kinds} in {time.monotonic() - started:.0f} s")
    if args.out is not None:
        args.out.write_bytes(made)
        print(f"wrote {args.out}")
        return 0
    return generated.settle({DEFAULT_OUT: made}, write=args.write, script="make_puzzle_set.py")


if __name__ == "__main__":
    raise SystemExit(main())
