"""The KEI engine keeps its time: set-up before ``readyok``, extra steps
within what the ``go`` has left, and a measured reserve (an injected clock,
no wall-clock budgets)."""

from __future__ import annotations

from typing import Any

import pytest

from kamisado.engine.limits import Limit
from kamisado.protocol import kei_jobs
from kamisado.protocol.kei import Engine
from kamisado.protocol.kei_go import MOVE_OVERHEAD_MS, SAFETY_MS, Overrun, time_budget
from kamisado.protocol.kei_jobs import PV_SOLVE_MAX, Deadline, _complete_pv, _search_job
from kamisado.rules.board import Move
from kamisado.rules.position import Position

#: Gold to move wins at once.
FIG7 = "2b3n1/4U3/5u1B/3o4/1pN2Or1/4y1P1/g7/1G1R3Y g u 3 0 0"
#: Black wins in 3; the search's depths 2 and 3 report lines of 2 moves (cut
#: short by the table), which the solver finishes.
SHORT = "1b1pyrgn/3u3O/2o5/8/8/8/6B1/NGRYPU2 b g 1 0 0"


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def _planned(monkeypatch: pytest.MonkeyPatch, engine: Engine, line: str) -> tuple[Any, ...]:
    """The job ``line`` would start (the engine's set-up done first), not run."""
    engine.ready()
    started: list[tuple[Any, ...]] = []
    monkeypatch.setattr(engine, "_start", started.append)
    engine.handle(line)
    assert len(started) == 1, engine
    return started[0]


def test_the_reserve_is_the_measured_overrun(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock()
    out: list[str] = []
    engine = Engine(out.append, clock=clock)
    assert engine.overrun.ms == MOVE_OVERHEAD_MS  # nothing measured yet: the floor
    _, _, plan, *_ = _planned(monkeypatch, engine, "go movetime 100")
    assert plan.limit.time == pytest.approx((100 - MOVE_OVERHEAD_MS) / 1000)
    assert plan.deadline.at == pytest.approx(clock.now + plan.limit.time)
    assert engine.job is not None and engine.job.deadline == plan.deadline.at
    # the answer comes 40 ms after it was planned (a starved thread)
    clock.now = plan.deadline.at + 0.040
    engine._message("bestmove", "c1-c5")
    assert out[-1] == "bestmove c1-c5"
    assert engine.overrun.ms == pytest.approx(40)
    # the next go keeps those 40 ms back, for the search and for the clock
    _, _, plan, *_ = _planned(monkeypatch, engine, "go movetime 100")
    assert plan.limit.time == pytest.approx(0.060)
    engine._message("bestmove", "c1-c5")  # on time (the clock did not move)
    assert engine.overrun.ms < 40  # it decays with answers on time
    reserve = engine.overrun.ms
    _, _, plan, *_ = _planned(monkeypatch, engine, "go btime 1000 gtime 1000 movestogo 1")
    assert plan.limit.time == pytest.approx(time_budget(1000, 0, 1, reserve) / 1000)
    assert plan.limit.time * 1000 == int(1000 - SAFETY_MS - reserve)


def test_untimed_answers_and_early_ones_do_not_raise_the_reserve(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = FakeClock()
    engine = Engine(lambda line: None, clock=clock)
    _, _, plan, *_ = _planned(monkeypatch, engine, "go depth 3")
    assert plan.deadline.at is None
    clock.now += 5.0  # a depth-limited search may take as long as it needs
    engine._message("bestmove", "c1-c5")
    _, _, plan, *_ = _planned(monkeypatch, engine, "go movetime 200")
    clock.now = plan.deadline.at - 0.050
    engine._message("bestmove", "c1-c5")
    assert engine.overrun.ms == MOVE_OVERHEAD_MS


def test_overrun_decays_to_its_floor_and_caps_a_stall() -> None:
    o = Overrun(floor=5, decay=0.5, most=100)
    o.observe(45)
    assert o.ms == 45
    for expected in (25, 15, 10):
        o.observe(0)
        assert o.ms == expected
    o.observe(5_000)
    assert o.ms == 100 and o.reserve(60) == 45 and o.seen == 5
    with pytest.raises(ValueError, match="decay"):
        Overrun(decay=1.0)


def test_readyok_comes_after_the_set_up_and_the_first_go_makes_no_table() -> None:
    out: list[str] = []
    engine = Engine(out.append)
    searcher = engine.runner.searcher
    assert searcher.allocations == 0 and engine.prepared == 0
    engine.prepare()  # as run() does at the start, while the handshake comes
    engine.handle("isready")
    assert out == ["readyok"]
    assert engine.prepared == 1
    made = searcher.allocations
    assert made == 3  # the search's table, the solver's two
    for line in ("position kpn " + FIG7, "go movetime 300"):
        engine.handle(line)
    assert engine.runner.wait(30)
    engine.on_worker()
    assert out[-1].startswith("bestmove ")
    assert searcher.allocations == made  # the go made none (the solver's used too)
    # a new Hash: the new table is made before the next readyok, not in the go
    engine.handle("setoption name Hash value 2")
    engine.handle("isready")
    assert out[-1] == "readyok" and searcher.allocations == made + 1
    assert engine.prepared == 2
    engine.handle("go depth 4")
    assert engine.runner.wait(30)
    engine.on_worker()
    assert out[-1].startswith("bestmove ") and searcher.allocations == made + 1


def test_a_go_without_isready_waits_for_the_set_up() -> None:
    out: list[str] = []
    engine = Engine(out.append)
    engine.prepare()
    engine.handle("go depth 2")  # the set-up ends first, then the search runs
    assert engine.prepared == 1
    assert engine.runner.wait(30)
    engine.on_worker()
    assert out[-1].startswith("bestmove ")
    assert engine.runner.searcher.allocations == 3


def test_stop_during_the_set_up_does_not_cut_it_short() -> None:
    out: list[str] = []
    engine = Engine(out.append)
    engine.prepare()
    engine.handle("stop")  # nothing to stop: no bestmove, the set-up goes on
    engine.handle("isready")
    assert out == ["readyok"] and engine.prepared == 1
    assert engine.runner.searcher.allocations == 3


def _solves(monkeypatch: pytest.MonkeyPatch) -> list[Limit]:
    """Record the limits of each solve (the real solver still answers)."""
    import kamisado.engine as engine_api

    real = engine_api.solve
    seen: list[Limit] = []

    def spy(pos: Any, *args: Any, limit: Limit | None = None, **kwargs: Any) -> Any:
        assert limit is not None
        seen.append(limit)
        return real(pos, *args, limit=limit, **kwargs)

    monkeypatch.setattr(engine_api, "solve", spy)
    return seen


def test_pv_completion_takes_at_most_half_of_what_is_left(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen = _solves(monkeypatch)
    pos = Position(FIG7)
    pv = [next(iter(pos.legal_moves))]
    assert _complete_pv(pos, pv, 0.001) == pv and seen == []  # no time: as it is
    assert _complete_pv(pos, pv, -0.5) == pv and seen == []  # late already
    _complete_pv(pos, pv, 0.040)
    assert [x.time for x in seen] == [pytest.approx(0.020)]
    _complete_pv(pos, pv, 30.0)
    _complete_pv(pos, pv, None)
    assert [x.time for x in seen[1:]] == [PV_SOLVE_MAX, PV_SOLVE_MAX]


@pytest.mark.parametrize("left", [-0.01, 0.003, 0.05])
def test_a_search_finishes_proven_lines_only_within_the_go(
    monkeypatch: pytest.MonkeyPatch, left: float
) -> None:
    """A proven line short of its end is finished by the solver, each time
    within half of what the deadline leaves (none when nothing is left)."""
    seen = _solves(monkeypatch)
    sent: list[tuple[str, str]] = []

    class Sender:
        stopped = False

        def send(self, message: tuple[str, str]) -> None:
            sent.append(message)

    clock = FakeClock()
    due = Deadline(clock, clock.now + left)
    pos = Position(SHORT)
    move = _search_job(Sender(), pos, Limit(depth=3), 1, deadline=due)  # type: ignore[arg-type]
    assert move is not None and Move.from_str(move) in pos.legal_moves
    assert any(" score win 3 " in text for _, text in sent)  # proven lines were reported
    pvs = [text.split(" pv ")[1].split() for _, text in sent if " score win 3 " in text]
    if left / 2 < kei_jobs.PV_SOLVE_MIN:
        assert seen == []
        assert [len(pv) for pv in pvs if len(pv) < 3]  # left as the table gave them
    else:
        assert [len(pv) for pv in pvs] == [3] * len(pvs)  # finished
        assert seen and all(x.time is not None and x.time <= left / 2 for x in seen)


def test_the_search_time_is_cut_to_the_deadline() -> None:
    clock = FakeClock()
    late = kei_jobs._within(Limit(time=0.090, depth=5), Deadline(clock, clock.now + 0.030))
    assert late.time == pytest.approx(0.030) and late.depth == 5
    gone = kei_jobs._within(Limit(time=0.090), Deadline(clock, clock.now - 1))
    assert gone.time == 0.001
    assert kei_jobs._within(Limit(depth=5), Deadline(clock, clock.now)) == Limit(depth=5)


def test_the_first_reserve_is_measured_before_readyok(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before its first readyok the engine times a few short searches in its
    thread: each ends 40 ms after it was planned (a busy machine, on the
    injected clock), so the first go keeps 35 ms back, not the floor."""
    from kamisado.protocol.kei import OVERRUN_PROBE_MS, OVERRUN_SAMPLES

    clock = FakeClock()
    out: list[str] = []
    engine = Engine(out.append, clock=clock)
    engine.prepare()
    engine.runner.wait()
    real_wait = engine.runner.wait
    probes: list[float] = []

    def slow_wait(timeout: float | None = None) -> bool:
        done = real_wait(timeout)
        probes.append(clock.now)
        clock.now += 0.040
        return done

    monkeypatch.setattr(engine.runner, "wait", slow_wait)
    engine.handle("isready")
    assert out == ["readyok"]
    assert engine.overrun.seen == OVERRUN_SAMPLES
    assert engine.overrun.ms == pytest.approx(40 - OVERRUN_PROBE_MS)
    monkeypatch.setattr(engine.runner, "wait", real_wait)
    _, _, plan, *_ = _planned(monkeypatch, engine, "go movetime 100")
    assert plan.limit.time == pytest.approx((100 - 40 + OVERRUN_PROBE_MS) / 1000)
