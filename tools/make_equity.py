"""Measure the match-equity model from self-play: ``kamisado/data/equity.json``.

Plays self-play matches of Standard (3), Long (7) and Marathon (15) with one
level against itself (``strong`` by default; fills chosen by the level, as
``bench/ladder.py`` drives a match), and records at every round start the
target, the points, each side's total rings and the opener, then who won the
round, with a tower of how many rings, and who won the match.  From the rounds
it fits the model of :mod:`kamisado.engine.equity`:

* the chance that the opener wins a round, by the ring difference (a
  logistic fit, ``opener_win``);
* the rings of the winning tower by the winner's total rings (counts with a
  small prior, ``win_rings``);

and checks the model against the matches: the log loss and Brier score of
:func:`kamisado.engine.equity.match_equity` at every round start against the match's
winner (and of a coin, 0.5, for comparison), and its calibration by bucket.
Every match is replayable from ``--seed`` (match ``i`` of a type is played
from seed ``seed * 1_000_003 + i`` with the type's target mixed in).

    python tools/make_equity.py --write               # the shipped table (about 10 minutes on 2 cores)
    python tools/make_equity.py                       # the same, compared with it; exit 1 when stale
    python tools/make_equity.py --matches 2,1,1 --level club --out /tmp/eq.json
    python tools/make_equity.py --rounds-out rounds.jsonl   # keep the raw rounds too
    python tools/make_equity.py --from-rounds rounds.jsonl  # refit them, no play
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # tools/generated.py, however this is loaded

import generated  # noqa: E402

from kamisado.engine.equity import (
    MAX_RING_DIFF,
    MAX_RINGS,
    EquityModel,
    match_equity,
    rings_of,
    temper,
)
from kamisado.engine.levels import LEVELS, player
from kamisado.rules.match import Match

TARGETS = (3, 7, 15)
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "kamisado" / "data" / "equity.json"
#: Weight (in rounds) of the prior row in each ``win_rings`` row.
PRIOR_ROUNDS = 4.0


def play_match(target: int, seed: int, level: str, random_plies: int) -> list[dict[str, int]]:
    """One self-play match; a record per round (its start and how it ended).

    Each record: ``target``, ``pb``/``pg`` (points), ``rb``/``rg`` (total
    rings), ``opener``, ``winner`` (of the round), ``k`` (rings of the
    winning tower), ``match`` (the match's winner).
    """
    rng = random.Random(seed)
    players = {0: player(level, seed * 2 + 1), 1: player(level, seed * 2 + 2)}
    m = Match(target)
    rounds: list[dict[str, int]] = []
    plies = 0
    while m.state != "over":
        if m.state == "fill":
            outcome = m.current.outcome
            assert outcome is not None
            m.choose_fill(players[outcome.winner].choose_fill(m))
            continue
        if not m.current.moves:  # a round starts
            start = m.current.start
            rb, rg = rings_of(start.rings)
            rounds.append({"target": target, "pb": m.points[0], "pg": m.points[1],
                           "rb": rb, "rg": rg, "opener": start.turn})
        pos = m.position
        if len(m.rounds) == 1 and plies < random_plies:
            move = rng.choice(list(pos.legal_moves))
        else:
            move = players[pos.turn].choose_move(pos)
        m.push_move(move)
        plies += 1
        if m.position.outcome is not None:
            o = m.position.outcome
            rounds[-1].update(winner=o.winner, k=o.rings)
    assert m.winner is not None
    for r in rounds:
        r["match"] = m.winner
    return rounds


def _job(args: tuple[int, int, str, int]) -> list[dict[str, int]]:
    return play_match(*args)


def fit_logistic(xs: Sequence[int], ys: Sequence[int], ridge: float = 1.0) -> tuple[float, float]:
    """Intercept and slope of a logistic fit of ``ys`` (0/1) on ``xs`` (Newton's
    method, with a small ridge on the slope)."""
    a = b = 0.0
    for _ in range(50):
        ga = gb = haa = hab = hbb = 0.0
        for x, y in zip(xs, ys, strict=True):
            p = 1 / (1 + math.exp(-(a + b * x)))
            w = p * (1 - p)
            ga += y - p
            gb += (y - p) * x
            haa += w
            hab += w * x
            hbb += w * x * x
        gb -= ridge * b
        hbb += ridge
        haa += 1e-9
        det = haa * hbb - hab * hab
        if det <= 0:
            break
        da = (hbb * ga - hab * gb) / det
        db = (haa * gb - hab * ga) / det
        a, b = a + da, b + db
        if abs(da) + abs(db) < 1e-10:
            break
    return a, b


def fit(rounds: Sequence[dict[str, int]]) -> tuple[EquityModel, dict[str, object]]:
    """The model from the rounds, and the figures behind it."""
    xs: list[int] = []
    ys: list[int] = []
    first = [0, 0]  # the first rounds: opener's wins, rounds
    for r in rounds:
        o = r["opener"]
        if r["pb"] == 0 and r["pg"] == 0:
            # a match's first round (every later one starts with points): the
            # standard start after random moves, not a regrouped start that
            # its winner chose against the opener; the model is of the latter
            first[0] += r["winner"] == o
            first[1] += 1
            continue
        ro, rx = (r["rb"], r["rg"]) if o == 0 else (r["rg"], r["rb"])
        xs.append(max(-MAX_RING_DIFF, min(MAX_RING_DIFF, ro - rx)))
        ys.append(1 if r["winner"] == o else 0)
    a, b = fit_logistic(xs, ys)
    opener = tuple(
        round(1 / (1 + math.exp(-(a + b * d))), 4)
        for d in range(-MAX_RING_DIFF, MAX_RING_DIFF + 1)
    )
    prior = EquityModel.provisional()
    counts = [[0] * 4 for _ in range(MAX_RINGS + 1)]
    for r in rounds:
        winner_rings = r["rb"] if r["winner"] == 0 else r["rg"]
        counts[min(MAX_RINGS, winner_rings)][r["k"]] += 1
    rows = []
    for rr, row in enumerate(counts):
        n = sum(row)
        pri = prior.win_rings[rr]
        rows.append(tuple(
            round((row[k] + PRIOR_ROUNDS * pri[k]) / (n + PRIOR_ROUNDS), 4) for k in range(4)
        ))
    by_diff: dict[int, list[int]] = {}
    for x, y in zip(xs, ys, strict=True):
        by_diff.setdefault(x, [0, 0])
        by_diff[x][0] += y
        by_diff[x][1] += 1
    figures: dict[str, object] = {
        "opener_logistic": [round(a, 4), round(b, 4)],
        "opener_observed": {str(d): by_diff[d] for d in sorted(by_diff)},
        "opener_first_rounds": first,
        "win_rings_counts": counts,
    }
    model = EquityModel(opener, tuple(rows), "measured")  # type: ignore[arg-type]
    factor = fit_temper(model, rounds)
    figures["temper"] = factor
    return replace(model, temper=factor), figures


def _starts(model: EquityModel, rounds: Iterable[dict[str, int]]) -> list[tuple[float, int]]:
    """The untempered equity at every round start, and whether Black won the match."""
    raw = replace(model, temper=1.0)
    return [
        (match_equity((r["pb"], r["pg"]), r["target"], (r["rb"], r["rg"]), r["opener"], raw),
         1 if r["match"] == 0 else 0)
        for r in rounds
    ]


def _log_loss(pairs: Sequence[tuple[float, int]]) -> float:
    total = 0.0
    for p, y in pairs:
        q = min(1 - 1e-6, max(1e-6, p))
        total -= math.log(q) if y else math.log(1 - q)
    return total / max(1, len(pairs))


def fit_temper(model: EquityModel, rounds: Sequence[dict[str, int]]) -> float:
    """The factor (0.50 to 1.50, in steps of 0.01) on the logit of the
    model's match equity that best predicts the matches' winners."""
    pairs = _starts(model, rounds)
    best = min(
        range(50, 151),
        key=lambda t: (_log_loss([(temper(p, t / 100), y) for p, y in pairs]), abs(t - 100)),
    )
    return best / 100


def matches_of(rounds: Sequence[dict[str, int]]) -> list[list[dict[str, int]]]:
    """The rounds grouped by match (a match's first round is the one at 0-0)."""
    out: list[list[dict[str, int]]] = []
    for r in rounds:
        if r["pb"] == 0 and r["pg"] == 0 or not out:
            out.append([])
        out[-1].append(r)
    return out


def held_out(rounds: Sequence[dict[str, int]]) -> dict[str, object]:
    """Two-fold check by match: fit on the even matches, check on the odd, and
    the other way round; the log loss over all round starts."""
    groups = matches_of(rounds)
    folds = [[r for g in groups[i::2] for r in g] for i in (0, 1)]
    pairs: list[tuple[float, int]] = []
    for train, test in ((folds[0], folds[1]), (folds[1], folds[0])):
        if not train or not test:
            return {}
        model, _ = fit(train)
        pairs += [(temper(p, model.temper), y) for p, y in _starts(model, test)]
    return {"log_loss": round(_log_loss(pairs), 4),
            "brier": round(sum((p - y) ** 2 for p, y in pairs) / len(pairs), 4)}


def check(model: EquityModel, rounds: Iterable[dict[str, int]]) -> dict[str, object]:
    """How well the model's match equity at each round start predicts the match winner."""
    ll = brier = ll_coin = 0.0
    n = 0
    buckets = [[0.0, 0, 0] for _ in range(10)]  # sum of predictions, Black's wins, rounds
    for r in rounds:
        p = match_equity((r["pb"], r["pg"]), r["target"], (r["rb"], r["rg"]), r["opener"], model)
        y = 1 if r["match"] == 0 else 0
        q = min(1 - 1e-6, max(1e-6, p))
        ll -= math.log(q) if y else math.log(1 - q)
        brier += (p - y) ** 2
        ll_coin += math.log(2)
        b = buckets[min(9, int(p * 10))]
        b[0] += p
        b[1] += y
        b[2] += 1
        n += 1
    return {
        "round_starts": n,
        "log_loss": round(ll / n, 4) if n else None,
        "log_loss_coin": round(ll_coin / n, 4) if n else None,
        "brier": round(brier / n, 4) if n else None,
        "calibration": [
            {"bucket": f"{i / 10:.1f}-{(i + 1) / 10:.1f}", "predicted": round(b[0] / b[2], 3),
             "observed": round(b[1] / b[2], 3), "n": b[2]}
            for i, b in enumerate(buckets) if b[2]
        ],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="tools/make_equity.py",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--matches", default="200,150,100",
                    help="self-play matches of Standard, Long and Marathon (default 200,150,100)")
    ap.add_argument("--level", default="strong", choices=list(LEVELS))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--random-plies", type=int, default=2,
                    help="random moves that open each match (default 2), so games differ")
    ap.add_argument("--jobs", type=int, default=2, help="matches played at once (processes)")
    mode = generated.add_options(ap, "kamisado/data/equity.json")
    mode.add_argument("--out", type=Path, help="write the table to this file instead")
    ap.add_argument("--rounds-out", type=Path, help="also write the raw rounds (JSON lines)")
    ap.add_argument("--from-rounds", type=Path,
                    help="fit from the raw rounds of an earlier run (--rounds-out) instead of"
                    " playing; give that run's --matches, --level and --seed for the record")
    args = ap.parse_args(argv)
    counts = [int(x) for x in args.matches.split(",")]
    if len(counts) != len(TARGETS):
        ap.error("--matches takes three numbers: Standard, Long, Marathon")
    jobs = [
        (target, (args.seed * 1_000_003 + i) * 16 + target, args.level, args.random_plies)
        for target, count in zip(TARGETS, counts, strict=True)
        for i in range(count)
    ]
    t0 = time.perf_counter()
    results: list[list[dict[str, int]]] = []
    if args.from_rounds:
        with args.from_rounds.open() as f:
            results.append([json.loads(line) for line in f if line.strip()])
        jobs = []
    elif args.jobs > 1 and len(jobs) > 1:
        with ProcessPoolExecutor(args.jobs) as ex:
            for i, res in enumerate(ex.map(_job, jobs, chunksize=1)):
                results.append(res)
                if (i + 1) % 10 == 0 or i + 1 == len(jobs):
                    print(f"{i + 1}/{len(jobs)} matches, {time.perf_counter() - t0:.0f} s",
                          file=sys.stderr, flush=True)
    else:
        for i, job in enumerate(jobs):
            results.append(_job(job))
            if (i + 1) % 10 == 0 or i + 1 == len(jobs):
                print(f"{i + 1}/{len(jobs)} matches, {time.perf_counter() - t0:.0f} s",
                      file=sys.stderr, flush=True)
    rounds = [r for res in results for r in res]
    if args.rounds_out:
        with args.rounds_out.open("w") as f:
            for r in rounds:
                f.write(json.dumps(r, sort_keys=True) + "\n")
    model, figures = fit(rounds)
    quality = check(model, rounds)
    quality["held_out"] = held_out(rounds)
    data = {
        "source": "measured",
        "about": "kamisado.engine.equity's round model, from tools/make_equity.py",
        "level": args.level,
        "seed": args.seed,
        "random_plies": args.random_plies,
        "matches": dict(zip(("3", "7", "15"), counts, strict=True)),
        "rounds": len(rounds),
        "temper": model.temper,
        "opener_win": list(model.opener_win),
        "win_rings": [list(row) for row in model.win_rings],
        "fit": figures,
        "check": quality,
    }
    print(f"{sum(counts)} matches, {len(rounds)} rounds")
    print(f"opener wins: {figures['opener_logistic']} (logistic in the ring difference)")
    print(f"tempered by {model.temper}; match equity at round starts: log loss"
          f" {quality['log_loss']} (coin {quality['log_loss_coin']}), Brier {quality['brier']};"
          f" held out (two folds by match): {quality['held_out']}")
    for b in quality["calibration"]:  # type: ignore[attr-defined]
        print(f"  {b['bucket']}: predicted {b['predicted']:.3f}"
              f" observed {b['observed']:.3f} ({b['n']})")
    made = (json.dumps(data, indent=1) + "\n").encode()
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_bytes(made)
        print(f"wrote {args.out}")
        return 0
    return generated.settle({DEFAULT_OUT: made}, write=args.write, script="make_equity.py")


if __name__ == "__main__":
    raise SystemExit(main())
