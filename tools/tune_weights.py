"""Tune the search's evaluation weights (``kamisado.engine.Weights``) on solved positions.

Texel-style: fast self-play games (``casual`` and ``club`` players, a few
random moves at the start, single rounds and Standard matches, so Sumo
rings and fill choices appear) give positions; each sampled position is
labelled by the exact solver (``engine.solve`` within ``--solve-nodes``
nodes; unproven ones are dropped) with 1 when the side to move wins the
round, else 0.  Positions where the side to move can win at once are left
out, as the search never evaluates them.

The evaluation predicts the label as ``sigmoid(eval / K)``.  The static
evaluation is linear in the weights, so each position is reduced to its
six features (the evaluation with one unit weight at a time); with
``--depth D`` (1 or 2) the evaluation is instead that of the leaf of a
``D``-move search's principal variation (quiescence-like: positions the
search proves are dropped), and the leaves are searched again after each
fit (``--rounds``).  ``K`` is fitted first for the default weights, then
the integer weights (``threat, safe, no_safe, mobility, advance, tempo``;
``noise`` stays 0; each in -1000..1000) by a pattern search on the mean
log loss, which never ends worse than the default weights.

``--method spsa`` tunes by self-play instead (SPSA): at each of
``--iterations`` steps every weight is nudged by ``+-c`` at random, the
two weight sets play a pair of games at a fixed depth (``--depth``, 5 as
the ``club`` level; a single round or a Standard match, the same random
opening with colours swapped), and the weights move towards the winner.
The answer is the mean of the second half of the path, rounded.  It needs
no solver, but its games are noisy: thousands of pairs are needed.

Everything follows from ``--seed``: the same seed and options give the
same positions and the same weights.

    python tools/tune_weights.py --positions 6000 --out /tmp/tuned.json
    python tools/tune_weights.py --positions 6000 --data /tmp/pos.jsonl  # keep/reuse positions
    python tools/tune_weights.py --positions 6000 --depth 1 --out /tmp/tuned-d1.json
    python tools/tune_weights.py --method spsa --iterations 3000 --out /tmp/spsa.json

Progress goes to stderr; stdout gets the summary: positions (and how
many the solver proved), K, the loss and the share of labels predicted
right (eval > 0 for a win) with the default and with the tuned weights,
and the tuned weights as ``threat=..,safe=..,...`` (the form
``bench/ladder.py --weights`` takes).  ``--out`` writes the same as JSON.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from kamisado import engine
from kamisado.engine import DEFAULT_WEIGHTS, Weights
from kamisado.engine.levels import player
from kamisado.engine.limits import WIN_BASE, Limit
from kamisado.rules.match import FILLS, Match
from kamisado.rules.position import Position

#: The tuned weights, in the C evaluation's order (``noise`` stays 0).
NAMES = ("threat", "safe", "no_safe", "mobility", "advance", "tempo")
WEIGHT_MAX = 1000
EVAL_MAX = 10000
#: The unit weights that read one feature each off the evaluation.
UNITS = tuple(Weights(**{n: int(n == name) for n in (*NAMES, "noise")}) for name in NAMES)

Sample = tuple[str, int]
"""A position's KPN and its label: 1 when the side to move wins the round."""
Features = tuple[int, ...]


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _wins_at_once(pos: Position) -> bool:
    me = pos.turn
    for m in list(pos.legal_moves):
        pos.push(m)
        won = pos.outcome is not None and pos.outcome.winner == me
        pos.pop()
        if won:
            return True
    return False


def generate(n: int, seed: int, solve_nodes: int = 200_000, per_round: int = 3,
             levels: Sequence[str] = ("casual", "club"), progress: bool = False) -> list[Sample]:
    """``n`` positions from seeded self-play, labelled by the solver (proven ones only)."""
    rng = random.Random(f"tune:{seed}")
    engine.clear_tables()  # the solver keeps its table: start from the same state
    out: list[Sample] = []
    tried = games = 0
    t0 = time.perf_counter()
    while len(out) < n:
        target = 1 if games % 2 == 0 else 3
        players = {s: player(rng.choice(list(levels)), rng.randrange(1 << 30)) for s in (0, 1)}
        m = Match(target)
        opening = rng.randrange(0, 9)
        moves = 0
        seen: list[Position] = []
        while m.state != "over":
            if m.state == "fill":
                winner = m.current_winner()
                m.choose_fill(players[winner].choose_fill(m))
                pool = [p for p in seen if not _wins_at_once(p)]
                for p in rng.sample(pool, min(per_round, len(pool))):
                    tried += 1
                    r = engine.solve(p, limit=Limit(nodes=solve_nodes), pv=False)
                    if r.winner is not None:
                        out.append((p.kpn(), int(r.winner == p.turn)))
                seen = []
                continue
            pos = m.position
            seen.append(pos.copy(stack=False))
            if (len(m.rounds) == 1 and moves < opening) or rng.random() < 0.03:
                move = rng.choice(list(pos.legal_moves))
            else:
                move = players[pos.turn].choose_move(pos)
            m.push_move(move)
            moves += 1
        pool = [p for p in seen if not _wins_at_once(p)]
        for p in rng.sample(pool, min(per_round, len(pool))):
            tried += 1
            r = engine.solve(p, limit=Limit(nodes=solve_nodes), pv=False)
            if r.winner is not None:
                out.append((p.kpn(), int(r.winner == p.turn)))
        games += 1
        if progress and games % 50 == 0:
            log(f"  {games} games, {len(out)}/{n} positions ({tried} tried)"
                f" in {time.perf_counter() - t0:.0f} s")
    if progress:
        log(f"positions: {n} proven of {tried} tried, {games} games,"
            f" {time.perf_counter() - t0:.0f} s")
    return out[:n]


def features(pos: Position | str) -> Features:
    """The static evaluation's features: its value with each unit weight."""
    cp = engine.to_cposition(pos)
    from kamisado.engine import _ckamisado as _c

    return tuple(int(_c.evaluate(cp, u.as_tuple())) for u in UNITS)


def leaf_features(kpn: str, weights: Weights, depth: int) -> Features | None:
    """The features of the leaf of a ``depth``-move search, from the root's side.

    ``None`` when the search proves a result (no evaluation decides it).
    """
    pos = Position(kpn)
    r = engine.search(pos, limit=Limit(depth=depth), weights=weights)
    if abs(r.score) >= WIN_BASE - 512:
        return None
    leaf = pos.copy(stack=False)
    for mv in r.pv:
        leaf.push(mv)
    if leaf.outcome is not None:
        return None
    f = features(leaf)
    return f if leaf.turn == pos.turn else tuple(-x for x in f)


def value(w: Sequence[int], f: Features) -> int:
    v = sum(a * b for a, b in zip(w, f, strict=True))
    return max(-EVAL_MAX, min(EVAL_MAX, v))


def loss(w: Sequence[int], data: Sequence[tuple[Features, int]], k: float) -> float:
    """Mean log loss of ``sigmoid(eval / k)`` against the labels."""
    total = 0.0
    for f, y in data:
        z = value(w, f) / k
        # log(1 + exp(-z)) for a win, log(1 + exp(z)) for a loss, without overflow
        s = -z if y else z
        total += s + math.log1p(math.exp(-s)) if s > 0 else math.log1p(math.exp(s))
    return total / len(data)


def accuracy(w: Sequence[int], data: Sequence[tuple[Features, int]]) -> float:
    """The share of labels the sign of the evaluation gets right (0 counts half)."""
    right = 0.0
    for f, y in data:
        v = value(w, f)
        right += 0.5 if v == 0 else float((v > 0) == bool(y))
    return right / len(data)


def fit_k(w: Sequence[int], data: Sequence[tuple[Features, int]]) -> float:
    """The scale ``K`` that fits the weights ``w`` best (golden section on log K)."""
    lo, hi = math.log(1.0), math.log(5000.0)
    g = (math.sqrt(5) - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = loss(w, data, math.exp(a)), loss(w, data, math.exp(b))
    for _ in range(40):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = loss(w, data, math.exp(a))
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = loss(w, data, math.exp(b))
    return round(math.exp((lo + hi) / 2), 3)


def fit_weights(start: Sequence[int], data: Sequence[tuple[Features, int]], k: float,
                progress: bool = False) -> tuple[list[int], float]:
    """Integer weights near ``start`` with a lower loss (pattern search; never worse)."""
    w = list(start)
    best = loss(w, data, k)
    step = 256
    while step >= 1:
        improved = True
        while improved:
            improved = False
            for i in range(len(w)):
                for sign in (1, -1):
                    trial = w[:]
                    trial[i] = max(-WEIGHT_MAX, min(WEIGHT_MAX, w[i] + sign * step))
                    if trial[i] == w[i]:
                        continue
                    t = loss(trial, data, k)
                    if t < best - 1e-12:
                        w, best, improved = trial, t, True
                        break
        if progress:
            log(f"  step {step:3}: loss {best:.5f} {dict(zip(NAMES, w, strict=True))}")
        step //= 2
    return w, best


def as_weights(w: Sequence[int]) -> Weights:
    return replace(DEFAULT_WEIGHTS, noise=0, **dict(zip(NAMES, w, strict=True)))


def weights_text(w: Sequence[int]) -> str:
    return ",".join(f"{n}={v}" for n, v in zip(NAMES, w, strict=True))


def tune(samples: Sequence[Sample], depth: int = 0, rounds: int = 2,
         progress: bool = False) -> dict[str, object]:
    """Fit ``K`` for the default weights, then the weights; the summary as a dict."""
    default = list(DEFAULT_WEIGHTS.as_tuple()[: len(NAMES)])
    w = default[:]

    def dataset(weights: Sequence[int]) -> list[tuple[Features, int]]:
        if depth == 0:
            return [(features(kpn), y) for kpn, y in samples]
        out = []
        for kpn, y in samples:
            f = leaf_features(kpn, as_weights(weights), depth)
            if f is not None:
                out.append((f, y))
        return out

    data = dataset(default)
    k = fit_k(default, data)
    before = loss(default, data, k)
    acc_before = accuracy(default, data)
    if progress:
        log(f"{len(data)} positions evaluated; K = {k}; loss {before:.5f},"
            f" accuracy {acc_before:.3f} with the default weights")
    for r in range(rounds if depth else 1):
        w, _ = fit_weights(w, data, k, progress)
        if depth and r + 1 < rounds:
            data = dataset(w)  # new leaves under the new weights
            if progress:
                log(f"round {r + 1}: {len(data)} leaves searched again")
    # the figures on the leaves of each set of weights' own search
    final = dataset(w) if depth else data
    base = dataset(default) if depth else data
    after = loss(w, final, k)
    before = loss(default, base, k)
    return {
        "positions": len(samples),
        "evaluated": len(final),
        "depth": depth,
        "K": k,
        "loss_before": round(before, 5),
        "loss_after": round(after, 5),
        "accuracy_before": round(accuracy(default, base), 4),
        "accuracy_after": round(accuracy(w, final), 4),
        "default": dict(zip(NAMES, default, strict=True)),
        "weights": dict(zip(NAMES, w, strict=True)),
        "weights_text": weights_text(w),
    }


def play(black: Weights, gold: Weights, depth: int, target: int, seed: int,
         opening: int) -> float:
    """One match at a fixed search depth: 1 if ``black`` (Black in round 1) wins, else 0."""
    rng = random.Random(seed)
    side = {0: black, 1: gold}
    m = Match(target)
    moves = 0
    while m.state != "over":
        if m.state == "fill":
            w = side[m.current_winner()]
            scores = {f: engine.search(m.next_round_start(f), limit=Limit(depth=depth - 1),
                                       weights=w, seed=rng.randrange(1 << 30)).score
                      for f in FILLS}
            m.choose_fill(min(FILLS, key=lambda f: (scores[f], rng.random())))
            continue
        pos = m.position
        legal = list(pos.legal_moves)
        if moves < opening or len(legal) == 1:
            move = rng.choice(legal)
        else:
            r = engine.search(pos, limit=Limit(depth=depth), weights=side[pos.turn],
                              seed=rng.randrange(1 << 30))
            assert r.best_move is not None
            move = r.best_move
        m.push_move(move)
        moves += 1
    return 1.0 if m.winner == 0 else 0.0


def spsa(start: Sequence[int], iterations: int, seed: int, depth: int = 5, lr: float = 0.05,
         progress: bool = False) -> dict[str, object]:
    """SPSA by self-play from ``start``; the summary as a dict."""
    rng = random.Random(f"spsa:{seed}")
    theta = [float(v) for v in start]
    c = [max(4.0, 0.25 * abs(v)) for v in start]
    tail: list[list[float]] = []
    score = 0.0
    t0 = time.perf_counter()
    for k in range(iterations):
        delta = [rng.choice((-1, 1)) for _ in theta]

        plus, minus = (as_weights([max(-WEIGHT_MAX, min(WEIGHT_MAX, round(t + sign * ci * d)))
                                   for t, ci, d in zip(theta, c, delta, strict=True)])
                       for sign in (1, -1))
        target = 1 if k % 2 == 0 else 3
        game = rng.randrange(1 << 30)
        opening = rng.randrange(1, 5)
        # the same opening and search seeds, colours swapped
        result = play(plus, minus, depth, target, game, opening) \
            - play(minus, plus, depth, target, game, opening)
        score += result
        theta = [max(-WEIGHT_MAX, min(WEIGHT_MAX, t + lr * ci * result * d))
                 for t, ci, d in zip(theta, c, delta, strict=True)]
        if k >= iterations // 2:
            tail.append(theta)
        if progress and (k + 1) % 100 == 0:
            log(f"  {k + 1}/{iterations} pairs in {time.perf_counter() - t0:.0f} s:"
                f" {weights_text([round(t) for t in theta])}")
    mean = [round(sum(col) / len(col)) for col in zip(*tail, strict=True)] if tail \
        else [round(t) for t in theta]
    return {
        "method": "spsa",
        "iterations": iterations,
        "depth": depth,
        "lr": lr,
        "default": dict(zip(NAMES, start, strict=True)),
        "weights": dict(zip(NAMES, mean, strict=True)),
        "weights_text": weights_text(mean),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--method", choices=["texel", "spsa"], default="texel")
    ap.add_argument("--seed", type=int, default=1, help="seed of the games and sampling")
    ap.add_argument("--positions", type=int, default=6000, help="proven positions to fit on")
    ap.add_argument("--solve-nodes", type=int, default=200_000,
                    help="solver node limit per position (unproven ones are dropped)")
    ap.add_argument("--per-round", type=int, default=3, help="positions sampled per round")
    ap.add_argument("--levels", default="casual,club", help="levels that play the games")
    ap.add_argument("--depth", type=int, default=None,
                    help="texel: 0 (default) the static evaluation, 1 or 2 the leaf of a"
                    " search that deep; spsa: the games' search depth (default 5)")
    ap.add_argument("--iterations", type=int, default=2000, help="spsa: game pairs")
    ap.add_argument("--lr", type=float, default=0.05, help="spsa: step size")
    ap.add_argument("--start", default=None, metavar="FILE",
                    help="spsa: start from the weights of a JSON summary (default: the defaults)")
    ap.add_argument("--rounds", type=int, default=2, help="fit rounds with --depth")
    ap.add_argument("--data", type=Path, default=None,
                    help="JSON lines of labelled positions: read if present, else written")
    ap.add_argument("--out", type=Path, default=None, help="write the summary as JSON")
    ap.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = ap.parse_args(argv)
    progress = not args.quiet
    t0 = time.perf_counter()
    if args.method == "spsa":
        start = list(DEFAULT_WEIGHTS.as_tuple()[: len(NAMES)])
        if args.start is not None:
            values = json.loads(Path(args.start).read_text())["weights"]
            start = [int(values[n]) for n in NAMES]
        result = spsa(start, args.iterations, args.seed,
                      5 if args.depth is None else args.depth, args.lr, progress)
        result["seed"] = args.seed
        result["seconds"] = round(time.perf_counter() - t0, 1)
        print(f"spsa: {args.iterations} game pairs at depth {result['depth']}")
        print(f"start:   {weights_text(start)}")
        print(f"tuned:   {result['weights_text']}")
        if args.out is not None:
            args.out.write_text(json.dumps(result, indent=1) + "\n")
        return 0
    if args.depth is None:
        args.depth = 0
    if args.depth not in (0, 1, 2):
        ap.error("--depth: 0, 1 or 2 with --method texel")
    if args.data is not None and args.data.exists():
        samples = [tuple(json.loads(line)) for line in args.data.read_text().splitlines()
                   if line][: args.positions]
        samples = [(str(k), int(y)) for k, y in samples]
        if progress:
            log(f"{len(samples)} positions read from {args.data}")
    else:
        samples = generate(args.positions, args.seed, args.solve_nodes, args.per_round,
                           args.levels.split(","), progress)
        if args.data is not None:
            args.data.write_text("".join(json.dumps(s) + "\n" for s in samples))
    summary = tune(samples, args.depth, args.rounds, progress)
    summary["seed"] = args.seed
    summary["seconds"] = round(time.perf_counter() - t0, 1)
    print(f"positions {summary['positions']} (evaluated {summary['evaluated']}),"
          f" depth {summary['depth']}, K {summary['K']}")
    print(f"default: loss {summary['loss_before']:.5f}, accuracy {summary['accuracy_before']:.4f}"
          f"  {weights_text(list(summary['default'].values()))}")  # type: ignore[attr-defined]
    print(f"tuned:   loss {summary['loss_after']:.5f}, accuracy {summary['accuracy_after']:.4f}"
          f"  {summary['weights_text']}")
    if args.out is not None:
        args.out.write_text(json.dumps(summary, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["NAMES", "accuracy", "as_weights", "features", "fit_k", "fit_weights",
           "generate", "leaf_features", "loss", "main", "tune"]
