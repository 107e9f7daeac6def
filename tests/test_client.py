"""The KEI client against scripted engines (conforming, crashing, hanging, cheating)
and against ``kamisado engine`` end to end."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
import time
from pathlib import Path

import pytest

from kamisado.protocol.client import (
    DEFAULT_TIMEOUT,
    Clock,
    EngineError,
    EngineTerminatedError,
    EngineTimeoutError,
    Info,
    KeiEngine,
    Limit,
    Score,
    SimpleEngine,
    go_command,
    parse_info,
)
from kamisado.rules.board import Move
from kamisado.rules.match import Match
from kamisado.rules.position import Position
from tests.conftest import cpu_seconds
from tests.waiting import until

pytestmark = pytest.mark.timeout(60)

ENGINES = Path(__file__).parent / "engines"
#: A wait cut short by a timeout of 0.5 s ends well within this many seconds
#: however loaded the machine is, and far sooner than the waits it stands
#: for (the default timeout, 60 s; the handshake's, 20 s).
CUT_SHORT = 10.0
KAMISADO = [sys.executable, "-m", "kamisado.protocol.kei"]
FIG7 = "2b3n1/4U3/5u1B/3o4/1pN2Or1/4y1P1/g7/1G1R3Y g u 3 0 0"


def mock(name: str, *args: str) -> list[str]:
    return [sys.executable, str(ENGINES / f"{name}.py"), *args]


def after_c1c5() -> Position:
    pos = Position()
    pos.push_move("c1-c5")
    return pos


# -- a conforming engine -------------------------------------------------------


def test_handshake_options_and_play_against_the_conforming_mock() -> None:
    async def main() -> None:
        engine = await KeiEngine.popen(mock("conforming"))
        try:
            assert engine.name == "Mock" and engine.id["author"] == "tests"
            assert engine.options["Style"].vars == ("calm", "wild")
            depth = engine.options["Depth"]
            assert (depth.type, depth.default, depth.min, depth.max) == ("spin", "1", 1, 9)
            await engine.configure({"style": "wild", "Depth": 3})
            with pytest.raises(
                ValueError, match="expected one of calm, wild, found 'loud'"
            ):
                await engine.configure({"Style": "loud"})
            with pytest.raises(ValueError, match=r"expected 1..9, found 10"):
                await engine.configure({"Depth": 10})
            with pytest.raises(ValueError, match="has no option 'Hash'"):
                await engine.configure({"Hash": 1})
            await engine.newgame()
            await engine.ping()
            pos = after_c1c5()
            seen: list[Info] = []
            result = await engine.play(pos, Limit(time=0.5), on_info=seen.append)
            lowest = min(pos.legal_moves, key=str)
            assert result.move == lowest
            assert result.info.score == Score("cp", 7) and result.info.pv == [lowest]
            assert seen == result.infos and len(seen) == 1
            assert pos.move_stack == [Move.from_str("c1-c5")]  # not changed
            m = Match(3, start=FIG7)
            m.push_move("f6-a1")
            assert await engine.fill(m) == "left"
        finally:
            await engine.quit()
        assert engine.returncode == 0

    asyncio.run(main())


def test_bad_requests_are_refused_before_sending() -> None:
    with SimpleEngine.popen(mock("conforming")) as engine:
        finished = Match(3, start=FIG7)
        finished.push_move("f6-a1")
        with pytest.raises(ValueError, match="not in a round in progress"):
            engine.play(finished)
        with pytest.raises(ValueError, match="a fill is asked only after"):
            engine.fill(Match(3))
        with pytest.raises(ValueError, match="an infinite search needs stop_after"):
            engine.play(Position(), Limit(infinite=True))
        engine.ping()  # still in step
    with pytest.raises(ValueError, match="Limit.depth must be a whole number"):
        Limit(depth=0)
    with pytest.raises(ValueError, match="Limit.time must be positive"):
        Limit(time=-1)


# -- engines that misbehave ----------------------------------------------------


def test_a_crash_raises_engine_terminated() -> None:
    with SimpleEngine.popen(
        mock("crashing", "--after", "1"), stderr=asyncio.subprocess.DEVNULL
    ) as engine:
        pos = Position()
        first = engine.play(pos).move  # the first go is answered
        pos.push(first)
        with pytest.raises(EngineTerminatedError, match=r"terminated \(exit status 3\)"):
            engine.play(pos)
        with pytest.raises(EngineTerminatedError, match="no longer usable"):
            engine.ping()


def test_a_crash_during_the_handshake_and_a_missing_program() -> None:
    with pytest.raises(EngineTerminatedError, match="while we waited for 'keiok'"):
        SimpleEngine.popen(
            mock("conforming", "--crash-at", "handshake"), stderr=asyncio.subprocess.DEVNULL
        )
    with pytest.raises(EngineTerminatedError, match="could not start"):
        SimpleEngine.popen(["/nonexistent/engine"])


def test_a_hang_raises_engine_timeout_and_the_engine_is_killed() -> None:
    async def main() -> None:
        engine = await KeiEngine.popen(mock("hanging"))
        t = time.monotonic()
        with pytest.raises(EngineTimeoutError, match="did not answer 'bestmove' in time"):
            await engine.play(Position(), timeout=0.5)
        assert time.monotonic() - t < CUT_SHORT < DEFAULT_TIMEOUT  # not the default wait
        assert engine.returncode is not None  # killed
        with pytest.raises(EngineTerminatedError):
            await engine.ping()
        await engine.quit()  # harmless

    asyncio.run(main())


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_a_hang_behind_a_wrapper_script_kills_the_whole_process_group() -> None:
    # ``#!/bin/sh`` then ``python3 hanging.py`` without exec: the engine is a
    # grandchild that holds the pipes
    async def main() -> None:
        wrapper = [str(ENGINES / "wrapper.sh"), *mock("hanging")]
        engine = await KeiEngine.popen(wrapper)
        grandchildren = _children(engine.process.pid)
        assert grandchildren
        t = time.monotonic()
        with pytest.raises(EngineTimeoutError, match="did not answer 'bestmove' in time"):
            await engine.play(Position(), timeout=0.5)
        assert time.monotonic() - t < CUT_SHORT < DEFAULT_TIMEOUT
        assert engine.returncode is not None
        until(lambda: not [pid for pid in grandchildren if _alive(pid)], "the wrapper's engine ends", timeout=10)

    asyncio.run(asyncio.wait_for(main(), 20))


def test_a_hang_in_the_handshake_times_out() -> None:
    t = time.monotonic()
    with pytest.raises(EngineTimeoutError, match="'keiok'"):
        SimpleEngine.popen(mock("conforming", "--hang-at", "handshake"), setup_timeout=0.5)
    assert time.monotonic() - t < CUT_SHORT  # not the handshake's default 20 s


def test_a_hang_on_isready_times_out() -> None:
    engine = SimpleEngine.popen(mock("conforming", "--hang-at", "isready"))
    with pytest.raises(EngineTimeoutError, match="'readyok'"):
        engine.ping(timeout=0.3)
    engine.quit()


def test_a_cheat_raises_engine_error_naming_the_move_and_position() -> None:
    with SimpleEngine.popen(mock("cheating")) as engine:
        pos = after_c1c5()
        with pytest.raises(EngineError) as err:
            engine.play(pos)
        text = str(err.value)
        assert "sent an illegal move a1-a2" in text
        assert pos.kpn() in text
        assert "Gold is to move" in text  # the rules' reason
        assert not isinstance(err.value, EngineTerminatedError)


@pytest.mark.parametrize(
    "cheat, message",
    [
        ("malformed", "sent a malformed move 'z9-c5'"),
        ("none", "gave no move in position"),
    ],
)
def test_other_bad_moves(cheat: str, message: str) -> None:
    engine = SimpleEngine.popen(mock("conforming", "--cheat", cheat))
    with pytest.raises(EngineError, match=message):
        engine.play(Position())
    engine.quit()


def test_a_bad_fill_choice() -> None:
    with SimpleEngine.popen(mock("conforming", "--cheat", "fill")) as engine:
        m = Match(3, start=FIG7)
        m.push_move("f6-a1")
        with pytest.raises(EngineError, match="invalid fill choice 'up'"):
            engine.fill(m)


def test_info_lines_are_parsed_leniently() -> None:
    info = parse_info("info depth x seldepth 3 score mate 2 nodes 9 frobs 3 pv c1-c5 q")
    assert (info.depth, info.seldepth, info.score, info.nodes) == (None, 3, None, 9)
    assert info.pv == []  # a malformed pv is dropped whole
    assert parse_info("info score loss 4").score == Score("loss", 4)


# -- the built-in engine, end to end -----------------------------------------------


def test_kamisado_engine_plays_a_standard_match_through_the_client() -> None:
    """Two built-in engines play a whole Standard match, fills included."""
    black = SimpleEngine.popen([*KAMISADO, "--level", "beginner", "--seed", "1"])
    gold = SimpleEngine.popen([*KAMISADO, "--level", "beginner", "--seed", "2"])
    try:
        assert black.options["Level"].default == "beginner"
        m = Match(3)
        fills = 0
        while m.state != "over":
            if m.state == "fill":
                side = black if m.current_winner() == 0 else gold
                m.choose_fill(side.fill(m))
                fills += 1
                continue
            side = black if m.position.turn == 0 else gold
            m.push_move(side.play(m).move)
        assert max(m.points) >= 3 and fills == len(m.rounds) - 1
    finally:
        black.quit()
        gold.quit()


def test_kamisado_engine_search_limits_and_stop() -> None:
    async def main() -> None:
        async with await KeiEngine.popen(KAMISADO) as engine:
            assert "Level" in engine.options and "Seed" in engine.options
            await engine.configure({"Level": "club", "Seed": 7})
            r = await engine.play(Position(), Limit(depth=4))
            assert [i.depth for i in r.infos] == [1, 2, 3, 4]
            assert r.move == r.info.pv[0] and r.info.score is not None
            t, cpu = time.monotonic(), cpu_seconds(engine.process.pid)
            r = await engine.play(after_c1c5(), Limit(infinite=True), stop_after=0.4)
            # stopped after 0.4 s (the wall clock), then at once: the CPU time
            # the engine used, which a loaded machine does not lengthen
            assert time.monotonic() - t > 0.3 and cpu_seconds(engine.process.pid) - cpu < 3
            assert r.move in after_c1c5().legal_moves and r.infos
            r = await engine.play(
                "1pyrgn2/o3u3/7b/8/2R1N3/8/6G1/3YPUBO b b 1 0 0", Limit(time=0.3)
            )
            assert r.info.score is not None and r.info.score.kind == "win"

    asyncio.run(main())


def test_two_engines_at_once_on_one_event_loop() -> None:
    async def main() -> list[Move]:
        engines = await asyncio.gather(*(KeiEngine.popen(KAMISADO) for _ in range(2)))
        try:
            results = await asyncio.gather(
                *(e.play(Position(), Limit(depth=3)) for e in engines)
            )
            return [r.move for r in results]
        finally:
            await asyncio.gather(*(e.quit() for e in engines))

    moves = asyncio.run(main())
    assert moves[0] == moves[1]  # same engine, same seed, same position


def test_simple_engine_quits_twice_and_refuses_afterwards() -> None:
    engine = SimpleEngine.popen(KAMISADO)
    engine.quit()
    engine.quit()
    with pytest.raises(EngineTerminatedError, match="has been closed"):
        engine.play(Position())


def test_the_documented_minimal_engine_plays_a_match(tmp_path: Path) -> None:
    """The engine in docs/protocol.md ("Writing an engine") conforms."""
    doc = (Path(__file__).parent.parent / "docs" / "protocol.md").read_text()
    section = doc[doc.index("## Writing an engine") :]
    start = section.index("\n", section.index("```python file=first.py")) + 1
    code = section[start : section.index("\n```", start)]
    script = tmp_path / "first.py"
    script.write_text(code)
    first = SimpleEngine.popen([sys.executable, str(script)])
    other = SimpleEngine.popen([*KAMISADO, "--level", "beginner"])
    try:
        assert first.name == "First"
        m = Match(3)
        while m.state != "over":
            if m.state == "fill":
                winner = first if m.current_winner() == 0 else other
                m.choose_fill(winner.fill(m))
            else:
                side = first if m.position.turn == 0 else other
                move = side.play(m).move
                if side is first:
                    assert str(move) == min(str(x) for x in m.legal_moves())
                m.push_move(move)
    finally:
        first.quit()
        other.quit()


def test_option_lines() -> None:
    from kamisado.protocol.client.messages import Option, parse_option

    assert parse_option(
        "option name Move Overhead type spin default 10 min 0 max 5000"
    ) == (Option("Move Overhead", "spin", "10", 0, 5000))
    combo = parse_option("option name Style type combo default a b var a b var c")
    assert combo is not None and combo.vars == ("a b", "c") and combo.default == "a b"
    assert parse_option("option name Broken") is None
    check = Option("Ponder", "check")
    assert check.check(True) == "true"
    with pytest.raises(ValueError, match="expected true or false"):
        check.check("maybe")


def test_limit_and_score_are_the_engines_and_need_no_core() -> None:
    import subprocess
    import sys

    from kamisado import engine
    from kamisado.engine import limits

    assert Limit is limits.Limit is engine.Limit and Score is limits.Score is engine.Score
    code = (
        "import sys, kamisado.protocol.client; "
        "print(sorted(m for m in sys.modules if m.startswith('kamisado._')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert parse_info("info depth 3 score win 5").score == limits.Score.from_raw(
        limits.WIN_BASE + 256 * 15 - 5
    )


def test_a_clock_goes_with_go_and_trace_sees_every_line(tmp_path: Path) -> None:
    log = tmp_path / "in.log"
    seen: list[tuple[str, str]] = []

    async def main() -> None:
        engine = await KeiEngine.popen(
            mock("clocked", "--delay", "0", "--log", str(log)),
            trace=lambda d, line: seen.append((d, line)),
        )
        try:
            clock = Clock(900, 1200, 50, 60, movestogo=7)
            result = await engine.play(after_c1c5(), Limit(depth=3), clock=clock)
            assert result.move in after_c1c5().legal_moves
            await engine.play(Position(), clock=Clock(100, 100))
        finally:
            await engine.quit()

    asyncio.run(main())
    gos = [x for x in log.read_text().splitlines() if x.startswith("go")]
    assert gos == [
        "go btime 900 gtime 1200 binc 50 ginc 60 movestogo 7 depth 3",
        "go btime 100 gtime 100 binc 0 ginc 0",
    ]
    assert seen[0] == (">", "kei") and ("<", "keiok") in seen
    assert (">", gos[0]) in seen and any(d == "<" and x.startswith("bestmove") for d, x in seen)
    assert go_command(Limit(time=0.25)) == "go movetime 250"
    for bad in [{"btime": -1, "gtime": 0}, {"btime": 1, "gtime": 1, "movestogo": 0}]:
        with pytest.raises(ValueError, match="Clock"):
            Clock(**bad)  # type: ignore[arg-type]


def test_a_clocked_play_still_takes_a_timeout() -> None:
    async def main() -> None:
        engine = await KeiEngine.popen(mock("clocked", "--delay", "3000"))
        try:
            t = time.monotonic()
            with pytest.raises(EngineTimeoutError):
                # without timeout= the wait would be the mover's clock plus 5 s
                # (and the engine's answer, 3 s on, would come first)
                await engine.play(Position(), clock=Clock(200, 60000), timeout=0.5)
            assert time.monotonic() - t < CUT_SHORT
        finally:
            await engine.quit()

    asyncio.run(main())


def test_a_cancel_that_comes_with_a_line_is_not_lost() -> None:
    # CPython gh-86296: on 3.11 ``asyncio.wait_for(reader.readline(), t)``
    # returns the line and drops a cancel that arrives in the same turn of the
    # loop; a tournament stopped at that moment played on.  The client's reads
    # must raise CancelledError instead.
    class Process:
        returncode = None
        pid = 0

        def __init__(self) -> None:
            self.stdout = asyncio.StreamReader()

    async def race() -> str:
        process = Process()
        engine = KeiEngine(process, ["fake"], 5.0)  # type: ignore[arg-type]
        loop = asyncio.get_running_loop()
        task = asyncio.ensure_future(engine._readline(loop.time() + 60, "'bestmove'"))
        await asyncio.sleep(0)
        await asyncio.sleep(0)  # the task waits for a line now
        process.stdout.feed_data(b"bestmove c1-c5\n")
        task.cancel()  # ... and the stop comes in the same turn
        try:
            return await task
        except asyncio.CancelledError:
            return "cancelled"

    assert asyncio.run(race()) == "cancelled"


def _descendants_of(pid: int) -> set[int]:
    """Every process below ``pid`` (children, grandchildren...)."""
    found: set[int] = set()
    frontier = [pid]
    while frontier:
        children = _children(frontier.pop())
        frontier += [c for c in children if c not in found]
        found.update(children)
    return found


def _gone_within(pids: set[int], seconds: float) -> bool:
    """Whether every process in ``pids`` has ended (or is a zombie), polled until ``seconds``."""
    deadline = time.monotonic() + seconds
    while [pid for pid in pids if _alive(pid)]:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_a_start_cancelled_midway_leaves_no_process_behind_a_wrapper_script() -> None:
    # a stop while asyncio connects a wrapper script's pipes: asyncio alone
    # would kill the shell and wait for its pipes, which the engine under it
    # holds (for ever); the start instead finishes and its group is killed
    async def main() -> set[int]:
        before = _descendants_of(os.getpid())
        task = asyncio.ensure_future(
            KeiEngine.popen([str(ENGINES / "wrapper.sh"), *mock("hanging")])
        )
        deadline = time.monotonic() + 20
        while not _descendants_of(os.getpid()) - before:  # until the shell is there
            assert time.monotonic() < deadline
            await asyncio.sleep(0)
        # the loop held (the pipes not yet connected) until the engine under
        # the shell runs: then the stop
        while len(_descendants_of(os.getpid()) - before) < 2:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        started = _descendants_of(os.getpid()) - before
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return started

    started = asyncio.run(asyncio.wait_for(main(), 20))
    assert len(started) >= 2  # the shell and the engine under it
    assert _gone_within(started, 20), [p for p in started if _alive(p)]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_no_unknown_child_process_line_when_an_engine_is_killed_twice(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # asyncio's child watcher logs "Unknown child process pid N, will report
    # returncode 255" when someone else reaped its child first: a stop kills
    # the group, and the release after it killed the engine again through
    # Process.kill(), whose poll reaps a dead engine the watcher (its thread
    # slow to run on a busy machine) has not reaped yet.  Here the watcher is
    # held until the engine is dead and killed the second time.
    real_waitpid = os.waitpid
    released = threading.Event()

    def held_waitpid(pid: int, options: int) -> tuple[int, int]:
        if options == 0:  # the watcher's thread (Popen's polls bound the real one)
            deadline = time.monotonic() + 30
            while (not released.is_set() or _alive(pid)) and time.monotonic() < deadline:
                time.sleep(0.005)
        return real_waitpid(pid, options)

    monkeypatch.setattr(os, "waitpid", held_waitpid)

    async def main() -> int | None:
        engine = await KeiEngine.popen(mock("hanging"))
        engine.kill_group()  # the stop
        deadline = time.monotonic() + 20
        while _alive(engine.process.pid):  # dead: a zombie (or reaped by someone)
            assert time.monotonic() < deadline
            await asyncio.sleep(0.005)
        engine.kill_group()  # the release after it
        released.set()
        await engine._kill()
        return engine.returncode

    with caplog.at_level(logging.DEBUG, logger="asyncio"):
        code = asyncio.run(asyncio.wait_for(main(), 60))
    assert "Unknown child process" not in caplog.text
    assert code == -9  # the real status, not the watcher's 255 for a lost child
