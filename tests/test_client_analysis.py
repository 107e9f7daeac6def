"""python-chess's analysis calls on the KEI client: ``analyse`` with MultiPV,
``analysis`` as an iterator that can be stopped, and the fields ``Info`` keeps."""

from __future__ import annotations

import asyncio
import sys

import pytest

from kamisado.protocol.client import (
    AnalysisComplete,
    KeiEngine,
    Limit,
    Score,
    SimpleEngine,
    parse_info,
)
from kamisado.rules.board import Move
from kamisado.rules.position import Position

pytestmark = pytest.mark.timeout(60)

KAMISADO = [sys.executable, "-m", "kamisado.protocol.kei"]


def after_c1c5() -> Position:
    pos = Position()
    pos.push_move("c1-c5")
    return pos


def test_info_keeps_multipv_hashfull_bounds_and_currmove() -> None:
    i = parse_info("info depth 7 seldepth 9 multipv 2 score cp -31 upperbound nodes 900"
                   " nps 30000 hashfull 17 time 30 pv c1-c5 b8-b3")
    assert (i.depth, i.seldepth, i.multipv, i.hashfull, i.nodes, i.nps, i.time) == (
        7, 9, 2, 17, 900, 30000, 30
    )
    assert i.score == Score("cp", -31) and i.bound == "upper"
    assert i.upperbound and not i.lowerbound
    d = i.as_dict()
    assert d["upperbound"] is True and "lowerbound" not in d
    assert d["time"] == 0.03 and d["multipv"] == 2 and d["hashfull"] == 17
    assert [str(m) for m in d["pv"]] == ["c1-c5", "b8-b3"]
    low = parse_info("info depth 3 multipv 1 score win 5 lowerbound pv c1-c5")
    assert low.lowerbound and low.as_dict()["lowerbound"] is True
    progress = parse_info("info depth 4 currmove d1-d5 currmovenumber 3")
    assert progress.currmove == Move.from_str("d1-d5") and progress.currmovenumber == 3
    assert parse_info("info depth 2 score cp 5").as_dict() == {
        "depth": 2, "score": Score("cp", 5)
    }


def test_analyse_gives_one_dict_or_multipv_dicts_best_first() -> None:
    pos = after_c1c5()
    with SimpleEngine.popen(KAMISADO) as engine:
        info = engine.analyse(pos, Limit(depth=4))
        assert isinstance(info, dict)
        assert info["depth"] == 4 and info["nodes"] > 0
        assert isinstance(info["score"], Score) and info["pv"][0] in pos.legal_moves
        assert "multipv" not in info  # MultiPV 1: the plain search
        lines = engine.analyse(pos, Limit(depth=3), multipv=3)
        assert isinstance(lines, list)
        assert [d["multipv"] for d in lines] == [1, 2, 3]
        assert all(d["depth"] == 3 for d in lines)
        values = [d["score"].value for d in lines]
        assert values == sorted(values, reverse=True)
        assert len({d["pv"][0] for d in lines}) == 3
        # the option was for that search only: the next one is the plain search again
        again = engine.analyse(pos, Limit(depth=4))
        assert isinstance(again, dict)
        assert (again["pv"], again["score"], again["nodes"]) == (
            info["pv"], info["score"], info["nodes"]
        )
        # more lines than moves: as many as there are
        few = engine.analyse("2b3n1/4U3/5u1B/3o4/1pN2Or1/4y1P1/g7/1G1R3Y g u 3 0 0",
                             Limit(depth=2), multipv=50)
        assert isinstance(few, list) and 1 <= len(few) < 50
        with pytest.raises(ValueError, match="multipv: expected a whole number from 1"):
            engine.analyse(pos, Limit(depth=2), multipv=0)
        with pytest.raises(ValueError, match="analyse needs a finite limit"):
            engine.analyse(pos, Limit())
        # root moves: searchmoves
        only = engine.analyse(pos, Limit(depth=3), root_moves=["b8-b5"])
        assert isinstance(only, dict) and str(only["pv"][0]) == "b8-b5"


def test_analysis_is_an_iterator_that_can_be_stopped() -> None:
    pos = after_c1c5()
    with SimpleEngine.popen(KAMISADO) as engine:
        depths = []
        with engine.analysis(pos) as analysis:  # no limit: until stopped
            for info in analysis:
                depths.append(info.get("depth"))
                if info.get("depth", 0) >= 3:
                    analysis.stop()
            result = analysis.wait()
        assert depths[:3] == [1, 2, 3]
        assert result is not None and result.move in pos.legal_moves
        assert analysis.info["pv"][0] == result.move
        assert analysis.next() is None  # the analysis is over
        with pytest.raises(AnalysisComplete):
            analysis.get()
        # leaving the block stops it too; the engine then answers the next question
        with engine.analysis(pos, multipv=2) as analysis:
            first = analysis.get()
            assert first["multipv"] == 1 and first["depth"] == 1
        assert analysis.wait() is not None
        assert len(analysis.multipv) == 2
        assert engine.play(pos, Limit(depth=2)).move in pos.legal_moves


def test_the_async_analysis() -> None:
    async def main() -> None:
        engine = await KeiEngine.popen(KAMISADO)
        try:
            analysis = await engine.analysis(after_c1c5(), Limit(depth=3), multipv=2)
            seen = [info async for info in analysis]
            assert [(d["depth"], d["multipv"]) for d in seen if "pv" in d][:4] == [
                (1, 1), (1, 2), (2, 1), (2, 2)
            ]
            result = await analysis.wait()
            assert result is not None and result.move == analysis.info["pv"][0]
            assert [d["multipv"] for d in analysis.multipv] == [1, 2]
        finally:
            await engine.quit()

    asyncio.run(main())


def test_analyse_with_a_win_limit() -> None:
    won = "1pyrgn2/o3u3/7b/8/2R1N3/8/6G1/3YPUBO b b 1 0 0"
    with SimpleEngine.popen(KAMISADO) as engine:
        info = engine.analyse(won, Limit(win=20))
        assert isinstance(info, dict)
        assert info["score"].kind == "win" and info["score"].value <= 20
        assert len(info["pv"]) == info["score"].value


def test_an_engine_that_ignores_stop_is_killed_after_its_timeout() -> None:
    """``stop`` with no ``bestmove`` within the engine's timeout (0.5 s here):
    the engine is ended and ``wait`` says so (10 s: a bound far above 0.5 s)."""
    from pathlib import Path

    from kamisado.protocol.client import EngineTerminatedError

    hanging = [sys.executable, str(Path(__file__).parent / "engines" / "hanging.py")]

    async def main() -> None:
        engine = await KeiEngine.popen(hanging, timeout=0.5)
        try:
            analysis = await engine.analysis(Position())
            analysis.stop()
            with pytest.raises(EngineTerminatedError, match="terminated"):
                await asyncio.wait_for(analysis.wait(), 10.0)
            assert engine.returncode is not None
        finally:
            await engine.quit()

    asyncio.run(main())
