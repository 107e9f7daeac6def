"""The weight tuner (tools/tune_weights.py) and the ladder's tuned levels (bench/ladder.py)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from kamisado import engine
from kamisado.engine import DEFAULT_WEIGHTS, Weights
from kamisado.rules.position import Position

ROOT = Path(__file__).resolve().parent.parent


def _load(name: str, rel: str) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / rel)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # the ladder's worker processes unpickle by module name
    spec.loader.exec_module(mod)
    return mod


tune = _load("tune_weights", "tools/tune_weights.py")
ladder = _load("ladder", "bench/ladder.py")

TINY = ["--positions", "24", "--solve-nodes", "20000", "--per-round", "2", "--levels", "casual",
        "--quiet"]


def test_tuner_is_reproducible_from_its_seed(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    runs = []
    for i in range(2):
        out = tmp_path / f"w{i}.json"
        cache = tmp_path / f"p{i}.jsonl"
        assert tune.main([*TINY, "--seed", "5", "--out", str(out), "--data", str(cache)]) == 0
        summary = json.loads(out.read_text())
        summary.pop("seconds")
        runs.append((summary, cache.read_text()))
    assert runs[0] == runs[1]
    summary, data = runs[0]
    assert summary["positions"] == 24 and len(data.splitlines()) == 24
    assert set(summary["weights"]) == set(tune.NAMES)
    assert all(-1000 <= v <= 1000 for v in summary["weights"].values())
    text = capsys.readouterr().out
    assert "tuned:" in text and summary["weights_text"] in text
    # every label is the solver's verdict for the side to move
    kpn, label = json.loads(data.splitlines()[0])
    r = engine.solve(kpn, node_limit=20000, pv=False)
    assert r.winner is not None and label == int(r.winner == Position(kpn).turn)


def test_fit_never_worse_than_the_default_weights() -> None:
    samples = tune.generate(30, seed=2, solve_nodes=20000, per_round=2, levels=["casual"])
    data = [(tune.features(kpn), y) for kpn, y in samples]
    default = list(DEFAULT_WEIGHTS.as_tuple()[:6])
    k = tune.fit_k(default, data)
    w, fitted = tune.fit_weights(default, data, k)
    assert fitted <= tune.loss(default, data, k)
    assert fitted == pytest.approx(tune.loss(w, data, k))
    # the features reproduce the C evaluation
    kpn = samples[0][0]
    assert tune.value(default, tune.features(kpn)) == engine.evaluate(kpn)
    assert tune.value(w, tune.features(kpn)) == engine.evaluate(kpn, tune.as_weights(w))


def test_ladder_weights_option(tmp_path: Path) -> None:
    w = ladder.parse_weights("threat=20, advance=25")
    assert w == Weights(threat=20, advance=25)
    f = tmp_path / "tuned.json"
    f.write_text(json.dumps({"K": 100, "weights": {"safe": 5, "tempo": -3}}))
    assert ladder.parse_weights(str(f)) == Weights(safe=5, tempo=-3)
    with pytest.raises(ValueError, match="unknown weights"):
        ladder.parse_weights("speed=3")
    with pytest.raises(SystemExit):
        ladder.main(["--levels", "club", "--pairs", "tuned"])  # no --weights


def test_tuned_level_searches_with_its_weights(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Weights | None] = []
    search = engine.search

    def spy(*args: Any, weights: Weights | None = None, **kwargs: Any) -> engine.SearchResult:
        seen.append(weights)
        kwargs["weights"] = weights
        return search(*args, **kwargs)

    monkeypatch.setattr(engine, "search", spy)
    tuned = Weights(threat=7, safe=1, no_safe=300, mobility=0, advance=9, tempo=-4)
    pos = Position()
    assert ladder.make_player("casual+tuned", 1, tuned).choose_move(pos) in pos.legal_moves
    assert seen == [Weights(threat=7, safe=1, no_safe=300, mobility=0, advance=9, tempo=-4,
                            noise=40)]  # the level's noise is kept
    assert engine.search is spy  # put back
    seen.clear()
    ladder.make_player("club", 1, tuned).choose_move(pos)
    assert seen == [None]


def test_ladder_plays_tuned_pairs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "l.jsonl"
    assert ladder.main(["--levels", "novice", "--pairs", "tuned", "--weights", "advance=30",
                        "--types", "single", "--games", "2", "--jobs", "1",
                        "--out", str(out)]) == 0
    recs = [json.loads(line) for line in out.read_text().splitlines()]
    assert {(r["black"], r["gold"]) for r in recs} == {("novice+tuned", "novice"),
                                                       ("novice", "novice+tuned")}
    assert all(r["weights"] == list(Weights(advance=30).as_tuple()) for r in recs)
    assert "novice+tuned vs novice" in capsys.readouterr().out


def test_spsa_is_reproducible_from_its_seed() -> None:
    start = list(DEFAULT_WEIGHTS.as_tuple()[:6])
    a = tune.spsa(start, iterations=4, seed=3, depth=2, lr=1.0)
    b = tune.spsa(start, iterations=4, seed=3, depth=2, lr=1.0)
    assert a == b and set(a["weights"]) == set(tune.NAMES)
    # a game at a fixed depth is replayable from its seed
    w = tune.as_weights(start)
    assert tune.play(w, w, 2, 3, seed=9, opening=2) == tune.play(w, w, 2, 3, seed=9, opening=2)
