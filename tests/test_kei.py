"""KEI conformance of ``kamisado engine``, spoken to line by line over pipes."""

from __future__ import annotations

import contextlib
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kamisado.engine.levels import LEVELS
from kamisado.protocol.kei_go import (
    SAFETY_MS,
    Go,
    Limits,
    parse_go,
    parse_go_command,
    time_budget,
)
from kamisado.rules.board import Move
from kamisado.rules.position import Position
from tests.conftest import cpu_seconds

pytestmark = pytest.mark.timeout(60)

STANDARD = "obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 3 0 0"
# figure 7(a): Gold wins the round with f6-a1
FIG7 = "2b3n1/4U3/5u1B/3o4/1pN2Or1/4y1P1/g7/1G1R3Y g u 3 0 0"
# a single round the solver settles quickly (Black to move wins)
WON = "1pyrgn2/o3u3/7b/8/2R1N3/8/6G1/3YPUBO b b 1 0 0"


class Pipe:
    """A running engine: send lines, read lines with timeouts."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, *lines: str) -> None:
        assert self.proc.stdin is not None
        for line in lines:
            self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read(self, timeout: float = 20.0) -> str:
        line = self.lines.get(timeout=timeout)
        assert line is not None, "the engine closed its output"
        return line

    def until(self, done: Callable[[str], bool], timeout: float = 20.0) -> list[str]:
        """Lines up to and including the first that ``done`` accepts."""
        out = []
        deadline = time.monotonic() + timeout
        while True:
            line = self.read(max(0.01, deadline - time.monotonic()))
            out.append(line)
            if done(line):
                return out

    def ask(self, *lines: str, answer: str = "bestmove") -> list[str]:
        self.send(*lines)
        return self.until(lambda s: s.split()[:1] == [answer])

    def cpu(self) -> float:
        """The CPU seconds the engine has used so far (see :func:`cpu_seconds`)."""
        return cpu_seconds(self.proc.pid)

    def quiet(self, seconds: float = 0.3) -> list[str]:
        """Whatever arrives within ``seconds``."""
        out = []
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                break
            out.append(line)
        return out

    def close(self) -> int:
        if self.proc.poll() is None:
            with contextlib.suppress(BrokenPipeError, OSError):
                self.send("quit")
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()
        return self.proc.returncode


@pytest.fixture
def engine() -> Iterator[Pipe]:
    pipe = Pipe([sys.executable, "-m", "kamisado.protocol.kei", "--level", "novice"])
    yield pipe
    pipe.close()


def bestmove(lines: list[str]) -> str:
    assert lines[-1].startswith("bestmove ")
    return lines[-1].split()[1]


def infos(lines: list[str]) -> list[list[str]]:
    return [
        s.split()
        for s in lines
        if s.startswith("info ") and not s.startswith("info string")
    ]


def field(words: list[str], key: str) -> str:
    return words[words.index(key) + 1]


def test_handshake(engine: Pipe) -> None:
    lines = engine.ask("kei", answer="keiok")
    assert lines[0].startswith("id name Kamisado novice")
    assert lines[1] == "id author the kamisado project"
    level = next(s for s in lines if s.startswith("option name Level "))
    assert level.split()[3:6] == ["type", "combo", "default"]
    assert level.split()[6] == "novice"
    assert [
        w for i, w in enumerate(level.split()) if level.split()[i - 1] == "var"
    ] == list(LEVELS)
    assert "option name Seed type spin default 0 min 0 max 2147483647" in lines
    assert "option name MultiPV type spin default 1 min 1 max 256" in lines
    assert "option name LimitStrength type check default false" in lines
    assert "option name Ponder type check default false" in lines
    assert lines[-1] == "keiok"
    assert engine.ask("isready", answer="readyok") == ["readyok"]


def test_go_depth_reports_every_depth_and_plays_its_pv(engine: Pipe) -> None:
    lines = engine.ask("position kpn " + STANDARD + " moves c1-c5", "go depth 5")
    found = infos(lines)
    assert [int(field(w, "depth")) for w in found] == [1, 2, 3, 4, 5]
    for w in found:
        assert field(w, "score") == "cp"
        int(field(w, "nodes")), int(field(w, "nps")), int(field(w, "time"))
    nodes = [int(field(w, "nodes")) for w in found]
    assert nodes == sorted(nodes)
    last = found[-1]
    pv = last[last.index("pv") + 1 :]
    assert len(pv) == 5 and bestmove(lines) == pv[0]
    pos = Position(STANDARD)
    pos.push_move("c1-c5")
    for m in pv:  # the whole principal variation is legal
        pos.push_move(Move.from_str(m))


def test_go_movetime_and_nodes_keep_their_limits(engine: Pipe) -> None:
    engine.send("position startpos")
    t, cpu = time.monotonic(), engine.cpu()
    lines = engine.ask("go movetime 300")
    spent, used = time.monotonic() - t, engine.cpu() - cpu
    # it thinks for the time (the wall clock), and no longer (the CPU time
    # its search took: a loaded machine slows the answer, not the search)
    assert spent >= 0.2 and used < 3.0, (spent, used)
    assert Move.from_str(bestmove(lines)) in Position().legal_moves
    lines = engine.ask("go nodes 3000")
    assert int(field(infos(lines)[-1], "nodes")) <= 3000 + 2000  # one depth may overshoot
    assert int(field(infos(lines)[0], "depth")) == 1


def test_infinite_waits_for_stop_and_isready_answers_meanwhile(engine: Pipe) -> None:
    engine.send("position startpos moves d1-d5", "go infinite")
    time.sleep(0.3)
    engine.send("isready")
    # answered while the search runs: an infinite search answers nothing before stop
    lines = engine.until(lambda s: s == "readyok")
    assert not any(s.startswith("bestmove") for s in lines)
    time.sleep(0.2)
    cpu = engine.cpu()
    lines = engine.ask("stop")
    assert engine.cpu() - cpu < 2.0  # at once, not after the depth it was in
    move = Move.from_str(bestmove(lines))
    pos = Position()
    pos.push_move("d1-d5")
    assert move in pos.legal_moves
    # the engine goes on working after a stop that killed its worker
    lines = engine.ask("go depth 2")
    assert [int(field(w, "depth")) for w in infos(lines)] == [1, 2]


def test_infinite_holds_a_proven_answer_until_stop(engine: Pipe) -> None:
    engine.send(f"position kpn {WON}", "go infinite")
    # the proof comes when it comes (later on a loaded machine); then no answer until stop
    early = engine.until(lambda s: " score win " in s, timeout=50)
    early += engine.quiet(0.2)
    assert not any(s.startswith("bestmove") for s in early)
    lines = early + engine.ask("stop")
    scores = [w for w in infos(lines) if field(w, "score") == "win"]
    assert scores, lines
    assert Move.from_str(bestmove(lines)) in Position(WON).legal_moves


def test_stop_when_idle_does_nothing(engine: Pipe) -> None:
    engine.send("stop")
    assert engine.ask("isready", answer="readyok") == ["readyok"]


def test_proven_win_is_reported(engine: Pipe) -> None:
    lines = engine.ask(f"position kpn {WON}", "go depth 40")
    last = infos(lines)[-1]
    assert field(last, "score") == "win"
    n = int(last[last.index("score") + 2])
    pv = last[last.index("pv") + 1 :]
    pos = Position(WON)
    for m in pv:
        pos.push_move(m)
    assert pos.outcome is not None and pos.outcome.winner == 0
    assert len(pv) == n


def test_plain_go_plays_the_level_and_the_seed_replays(engine: Pipe) -> None:
    def moves(seed: int) -> list[str]:
        engine.send(f"setoption name Seed value {seed}", "newgame")
        out = []
        pos = Position()
        for _ in range(4):
            tokens = " ".join(str(m) for m in pos.move_stack)
            line = "position startpos" + (f" moves {tokens}" if tokens else "")
            m = bestmove(engine.ask(line, "go"))
            out.append(m)
            pos.push_move(m)
        return out

    engine.send("setoption name Level value beginner")
    first = moves(1)
    assert moves(1) == first
    assert any(moves(s) != first for s in (2, 3, 4))


def test_fill_question_after_a_won_round(engine: Pipe) -> None:
    lines = engine.ask(f"position kpn {FIG7} moves f6-a1", "go")
    assert lines == ["info string error: go: the round is over (ask fill)", "bestmove none"]
    lines = engine.ask("fill", answer="fillchoice")
    assert lines[-1] in ("fillchoice left", "fillchoice right")
    # the fill can be given in the moves list; the next round is then playable
    engine.send(f"position kpn {FIG7} moves f6-a1 left", "show")
    shown = engine.until(lambda s: s.startswith("info string state"))
    assert shown[0] == "info string position kpn u+gyprobn/8/8/8/8/8/8/GRYPNOBU b - 3 0 1"
    assert shown[1] == "info string state playing points 0 1"
    lines = engine.ask("go depth 1")
    assert (
        Move.from_str(bestmove(lines))
        in Position("u+gyprobn/8/8/8/8/8/8/GRYPNOBU b - 3 0 1").legal_moves
    )
    lines = engine.ask("fill", answer="fillchoice")
    assert lines == [
        "info string error: fill: no round of an unfinished match has just ended",
        "fillchoice none",
    ]


def test_errors_change_nothing(engine: Pipe) -> None:
    engine.send("position startpos moves c1-c5")
    cases = {
        "bogus 1 2": "info string error: unknown command 'bogus'",
        "position kpn foo": "info string error: position: a KPN has",
        "position startpos moves c1-c5 a1-a2": "info string error: position: move 'a1-a2'",
        "position sideways": "info string error: position: expected 'startpos' or 'kpn'",
        "setoption name Level value grandmaster": "info string error: setoption Level",
        "setoption name Contempt value 16": (
            "info string error: setoption: unknown option 'contempt'"
        ),
        "setoption name Hash value 0": "info string error: setoption Hash: expected",
        "setoption Level": "info string error: setoption: expected",
    }
    for command, start in cases.items():
        engine.send(command)
        assert engine.read().startswith(start), command
    engine.send("show")
    assert (
        engine.read()
        == "info string position kpn obupyrgn/8/8/2R5/8/8/8/NG1YPUBO g b 1 0 0"
    )
    engine.read()
    for command in ("go depth 0", "go depth", "go wtime 100", "go depth 101"):
        lines = engine.ask(command)
        assert lines[0].startswith("info string error: go"), command
        assert lines[1] == "bestmove none"
    assert engine.ask("isready", answer="readyok") == ["readyok"]


def test_commands_while_thinking_are_refused(engine: Pipe) -> None:
    engine.send("position startpos", "go infinite")
    for command in ("position startpos moves c1-c5", "go depth 1", "newgame", "fill"):
        engine.send(command)
        reply = engine.read()
        while not reply.startswith("info string"):  # the search's own info lines go on
            assert reply.startswith("info "), (command, reply)
            reply = engine.read()
        assert reply.endswith("still thinking; send stop first"), command
    lines = engine.ask("stop")
    assert Move.from_str(bestmove(lines)) in Position().legal_moves


def test_quit_and_end_of_input_exit_cleanly() -> None:
    pipe = Pipe([sys.executable, "-m", "kamisado.protocol.kei"])
    pipe.send("position startpos", "go infinite")
    time.sleep(0.2)
    assert pipe.close() == 0
    pipe = Pipe([sys.executable, "-m", "kamisado.protocol.kei"])
    assert pipe.proc.stdin is not None
    pipe.proc.stdin.close()
    assert pipe.proc.wait(10) == 0
    pipe.close()


def test_the_cli_plugin_speaks_kei() -> None:
    pipe = Pipe([sys.executable, "-m", "kamisado.cli", "engine", "--level", "casual"])
    try:
        lines = pipe.ask("kei", answer="keiok")
        assert lines[0].startswith("id name Kamisado casual")
    finally:
        pipe.close()
    bad = subprocess.run(
        [sys.executable, "-m", "kamisado.cli", "engine", "--level", "godlike"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert bad.returncode == 2 and "invalid choice: 'godlike'" in bad.stderr


def test_parse_go() -> None:
    assert parse_go([]) == Limits() and not Limits().any
    assert parse_go(["infinite"]).any
    assert parse_go(["nodes", "5", "movetime", "9"]) == Limits(movetime=9, nodes=5)
    with pytest.raises(ValueError, match="unknown limit 'wtime'"):
        parse_go(["wtime", "5"])
    with pytest.raises(ValueError, match="expected a number after it"):
        parse_go(["movetime"])


def test_go_reports_the_engines_own_iterations(engine: Pipe) -> None:
    """One iterative deepening loop: the info lines are the search's iterations."""
    from kamisado.engine import search
    from kamisado.engine.limits import Score
    from kamisado.protocol.kei import position_seed

    pos = Position(STANDARD)
    pos.push_move("c1-c5")
    lines = engine.ask("position kpn " + STANDARD + " moves c1-c5", "go depth 6")
    seen: list[tuple[int, int, str, str]] = []
    r = search(
        pos,
        depth=6,
        seed=position_seed(0, pos),
        on_iteration=lambda it: seen.append(
            (it.depth, it.nodes, str(it.value), " ".join(str(m) for m in it.pv))
        ),
    )
    found = [
        (
            int(field(w, "depth")),
            int(field(w, "nodes")),
            f"{field(w, 'score')} {w[w.index('score') + 2]}",
            " ".join(w[w.index("pv") + 1 :]),
        )
        for w in infos(lines)
    ]
    assert found == seen and bestmove(lines) == str(r.best_move)
    assert str(Score("cp", -3)) == "cp -3"


def test_limits_is_the_one_limit() -> None:
    from kamisado.engine.limits import Limit
    from kamisado.protocol.client import Limit as ClientLimit

    assert parse_go(["movetime", "250", "depth", "7"]) == Limit(time=0.25, depth=7)
    assert Limits(movetime=250).movetime == 250 and Limit is ClientLimit
    assert parse_go(["movetime", "250"]).go_command() == "go movetime 250"


# ---------------------------------------------------------------------------
# Time controls, ponder, MultiPV, searchmoves
# ---------------------------------------------------------------------------


def split(text: str) -> list[str]:
    return text.split()


def test_time_budget_is_a_share_of_the_clock_plus_the_increment() -> None:
    assert time_budget(60_000) == 3000  # a twentieth
    assert time_budget(60_000, inc=1000) == 3800  # and most of the increment
    assert time_budget(60_000, movestogo=10) == 6000
    assert time_budget(60_000, movestogo=1) == 60_000 - SAFETY_MS - 10
    # never more than the clock holds, however large the increment
    assert time_budget(500, inc=10_000) == 500 - SAFETY_MS - 10
    assert time_budget(0) == time_budget(5) == 1
    budgets = [time_budget(30_000, movestogo=n) for n in (1, 2, 5, 40)]
    assert budgets == sorted(budgets, reverse=True)
    # the mover's clock counts: Black's btime/binc, Gold's gtime/ginc
    go = parse_go_command(split("btime 20000 gtime 4000 binc 100 ginc 2000"))
    assert go.budget(0) == time_budget(20_000, 100) == 1080
    assert go.budget(1) == time_budget(4000, 2000) == 1800
    assert go.hard_limit(1) == 4000 - SAFETY_MS
    assert Go().budget(0) is None and Go().bare and not Go().clocks


def test_parse_go_command_reads_clocks_ponder_and_searchmoves() -> None:
    go = parse_go_command(
        split("ponder btime 1 gtime 2 binc 3 ginc 4 movestogo 5 searchmoves c1-c5 d1-d4 depth 6")
    )
    assert (go.btime, go.gtime, go.binc, go.ginc, go.movestogo) == (1, 2, 3, 4, 5)
    assert go.ponder and go.searchmoves == ("c1-c5", "d1-d4")
    assert go.limit == Limits(depth=6) and not go.bare
    assert parse_go_command(["btime", "0"]).btime == 0
    for words, message in [
        (["btime"], "go btime: expected a number after it, found nothing"),
        (["gtime", "1.5"], "go gtime: expected a whole number from 0, found '1.5'"),
        (["binc", "-3"], "go binc: expected a whole number from 0, found '-3'"),
        (["movestogo", "0"], "go movestogo: expected a whole number from 1, found '0'"),
        (["searchmoves"], "go searchmoves: expected moves after it, found nothing"),
        (["searchmoves", "c1c5"], "go searchmoves: expected a move like c1-c5, found 'c1c5'"),
    ]:
        with pytest.raises(ValueError) as e:
            parse_go_command(words)
        assert str(e.value) == message, words


def test_go_with_clocks_answers_within_the_budget(engine: Pipe) -> None:
    engine.send("position kpn " + STANDARD + " moves c1-c5")

    def go(command: str) -> tuple[list[str], float, float]:
        """The answer, the wall-clock seconds it took, the CPU seconds the
        engine used meanwhile.  A loaded machine lengthens the first, never
        the second: the search stops at its budget on the wall clock and
        uses at most that much CPU time; a lower bound is on the wall clock."""
        t, cpu = time.monotonic(), engine.cpu()
        lines = engine.ask(command)
        return lines, time.monotonic() - t, engine.cpu() - cpu

    # a twentieth of 1000 ms: 50 ms of search
    lines, _, used = go("go btime 1000 gtime 1000")
    assert used < 0.5, used
    assert Move.from_str(bestmove(lines)) in Position("obupyrgn/8/8/2R5/8/8/8/NG1YPUBO g b 3 0 0").legal_moves
    # one move to go: nearly all of it (940 ms), yet never past the clock
    _, spent_all, used_all = go("go btime 1000 gtime 1000 movestogo 1")
    assert spent_all > 0.5 and used_all < 1.0, (spent_all, used_all)
    # an increment adds to the budget (450 ms): longer than the plain search
    # used, shorter than one move to go took
    _, spent_inc, used_inc = go("go btime 1000 gtime 1000 ginc 500")
    assert used < spent_inc and used_inc < spent_all, (used, spent_inc, used_inc, spent_all)


def test_malformed_clocks_get_an_error_and_bestmove_none(engine: Pipe) -> None:
    engine.send("position startpos moves c1-c5")  # Gold to move
    for command, message in [
        ("go btime 1000", "go: Gold is to move but no gtime was given"),
        ("go gtime soon", "go gtime: expected a whole number from 0, found 'soon'"),
        ("go gtime 100 ginc", "go ginc: expected a number after it, found nothing"),
        ("go gtime 100 movestogo 0", "go movestogo: expected a whole number from 1"),
        ("go searchmoves c1-c6", "go searchmoves: c1-c6: not legal in this position"),
    ]:
        lines = engine.ask(command)
        assert lines[0].startswith("info string error: " + message), (command, lines)
        assert lines[1:] == ["bestmove none"]


def test_ponderhit_switches_to_the_clock_and_stop_ends_a_ponder(engine: Pipe) -> None:
    engine.send("position kpn " + STANDARD + " moves c1-c5", "go ponder btime 2000 gtime 2000")
    early = engine.quiet(0.5)
    assert not any(s.startswith("bestmove") for s in early)  # no answer while pondering
    cpu = engine.cpu()
    lines = engine.ask("ponderhit")  # 100 ms of the clock from now
    assert engine.cpu() - cpu < 1.0  # the clock's 100 ms, not a ponder that goes on
    Move.from_str(bestmove(lines))
    # stop during a ponder answers at once with the best move so far
    engine.send("go ponder gtime 60000 btime 60000")
    time.sleep(0.3)
    cpu = engine.cpu()
    lines = engine.ask("stop")
    assert engine.cpu() - cpu < 1.0
    assert infos(early + lines)
    Move.from_str(bestmove(lines))
    assert engine.ask("ponderhit", "isready", answer="readyok") == [
        "info string error: ponderhit: not pondering",
        "readyok",
    ]


def test_multipv_gives_n_lines_best_first(engine: Pipe) -> None:
    engine.send("setoption name MultiPV value 3", "position startpos moves c1-c5")
    lines = engine.ask("go depth 3")
    full = [w for w in infos(lines) if "pv" in w]
    assert [(int(field(w, "depth")), int(field(w, "multipv"))) for w in full] == [
        (d, k) for d in (1, 2, 3) for k in (1, 2, 3)
    ] + [(3, 1)]  # the best line again: the last info before bestmove
    last = full[-4:-1]
    values = [int(field(w, "cp")) for w in last]
    assert values == sorted(values, reverse=True)
    assert len({w[w.index("pv") + 1] for w in last}) == 3
    assert bestmove(lines) == field(last[0], "pv")
    for w in infos(lines):
        if "currmove" in w:
            assert int(field(w, "currmovenumber")) >= 1
            Move.from_str(field(w, "currmove"))
        else:
            assert 0 <= int(field(w, "hashfull")) <= 1000
    engine.send("setoption name MultiPV value 0")
    assert engine.read().startswith("info string error: setoption MultiPV")


def test_searchmoves_restricts_the_root(engine: Pipe) -> None:
    engine.send("position startpos moves c1-c5")
    lines = engine.ask("go depth 3 searchmoves b8-h2 b8-b5")
    assert bestmove(lines) in ("b8-h2", "b8-b5")
    assert {field(w, "pv") for w in infos(lines) if "pv" in w} <= {"b8-h2", "b8-b5"}
    # one line per finished depth, scored as the better of the two moves
    # searched each on its own
    from kamisado.engine.review import search_root_move

    pos = Position()
    pos.push_move("c1-c5")
    for w in (w for w in infos(lines) if "pv" in w):
        depth = int(field(w, "depth"))
        best = max(
            search_root_move(pos, m, child, depth).raw
            for m in (Move.from_str("b8-h2"), Move.from_str("b8-b5"))
            for child in [pos.copy(stack=False)]
            if child.push(m) is None
        )
        assert int(field(w, "cp")) == best
    assert [field(w, "depth") for w in infos(lines)] == ["1", "2", "3"]
    lines = engine.ask("go depth 2 searchmoves b8-b7")
    assert bestmove(lines) == "b8-b7"
    # a move that ends the round is scored as the search scores it
    engine.send(f"position kpn {FIG7}")
    lines = engine.ask("go depth 2 searchmoves f6-b2 f6-a1")
    assert bestmove(lines) == "f6-a1"
    plain = engine.ask("go depth 1")

    def score(words: list[str]) -> list[str]:
        return words[words.index("score") : words.index("score") + 3]

    assert score(infos(lines)[-1]) == score(infos(plain)[-1]) == ["score", "win", "1"]


def test_limit_strength_plays_the_level_under_a_clock(engine: Pipe) -> None:
    engine.send("setoption name Seed value 3", "position startpos")
    level_move = bestmove(engine.ask("go"))
    engine.send("setoption name LimitStrength value true")
    assert bestmove(engine.ask("go btime 60000 gtime 60000")) == level_move
    lines = engine.ask("go btime 60000 gtime 60000 depth 2")  # a limit: a search
    assert [int(field(w, "depth")) for w in infos(lines)] == [1, 2]


# ---------------------------------------------------------------------------
# Bounds: a MultiPV/searchmoves depth cut short
# ---------------------------------------------------------------------------


def test_a_multipv_depth_cut_short_reports_its_lead_as_a_lowerbound(engine: Pipe) -> None:
    """3000 nodes end depth 6 of MultiPV 2 after b8-b3 scored cp 30 there,
    more than depth 5's best (cp -54): the depth's best is at least that."""
    from kamisado.engine.review import search_root_move
    from kamisado.protocol.client import parse_info

    engine.send("setoption name MultiPV value 2", "position startpos moves c1-c5")
    lines = engine.ask("go nodes 3000")
    bounds = [s for s in lines if "lowerbound" in s.split() or "upperbound" in s.split()]
    assert len(bounds) == 1 and lines[-2] == bounds[0]  # the last info before bestmove
    info = parse_info(bounds[0])
    assert (info.depth, info.multipv, info.bound) == (6, 1, "lower")
    finished = [parse_info(s) for s in lines if s.startswith("info ") and s != bounds[0]]
    assert [i.depth for i in finished] == [d for d in range(1, 6) for _ in (1, 2)]
    assert info.score is not None and finished[-2].score is not None
    assert info.score.value > finished[-2].score.value  # beats depth 5's best
    # the bound is the move's exact score at depth 6, searched on its own
    pos = Position()
    pos.push_move("c1-c5")
    child = pos.copy(stack=False)
    child.push(info.pv[0])
    assert search_root_move(pos, info.pv[0], child, 6).raw == info.score.value
    assert bestmove(lines) == str(info.pv[0])


def test_a_multipv_depth_cut_short_with_no_lead_plays_the_last_finished_depth(
    engine: Pipe,
) -> None:
    """2000 nodes end depth 5 where no move searched beats depth 4's best:
    nothing is claimed, depth 4's move is played, its line comes last."""
    engine.send("setoption name MultiPV value 2", "position startpos moves c1-c5")
    lines = engine.ask("go nodes 2000")
    assert not any("bound" in s for s in lines)
    full = [w for w in infos(lines) if "pv" in w]
    deepest = max(int(field(w, "depth")) for w in full)
    assert [field(w, "multipv") for w in full if int(field(w, "depth")) == deepest] == [
        "1", "2", "1"  # the best line again: the last info before bestmove
    ]
    assert lines[-2].split() == [w for w in full if field(w, "multipv") == "1"][-1]
    assert bestmove(lines) == field(lines[-2].split(), "pv")
    # the same search, not cut: it goes deeper than the one cut short
    lines = engine.ask("go depth " + str(deepest + 1))
    assert field(infos(lines)[-1], "depth") == str(deepest + 1)


def test_a_finished_search_never_writes_bounds(engine: Pipe) -> None:
    engine.send("position startpos moves c1-c5")
    lines = engine.ask("go depth 3")  # the plain search
    lines += engine.ask("go depth 3 searchmoves b8-b3 b8-b5 b8-h2")
    engine.send("setoption name MultiPV value 3")
    lines += engine.ask("go depth 3")
    assert len(infos(lines)) > 10
    assert not any("lowerbound" in s or "upperbound" in s for s in lines)


def test_a_stop_the_job_does_not_answer_plays_the_best_so_far() -> None:
    """The engine's side: a job that gives no answer after ``stop`` (within
    STOP_WAIT): the best line's move, its line the last info before bestmove."""
    from kamisado.protocol.kei import Engine, _Job

    out: list[str] = []
    engine = Engine(out.append)
    done = "info depth 1 seldepth 1 multipv 1 score cp -20 nodes 0 pv b8-b2"
    lead = "info depth 2 seldepth 2 multipv 1 score cp 112 lowerbound nodes 60 pv b8-b5 f1-f6"

    def stopped(*messages: tuple[str, str]) -> list[str]:
        out.clear()
        engine.job = _Job("go", infinite=True)
        for kind, text in messages:
            engine._message(kind, text)
        engine.cmd_stop([])
        assert engine.job is None
        return out[:]

    # another line after the best (another engine's progress): the best again
    current = "info depth 2 currmove b8-b2 currmovenumber 6"
    assert stopped(("info", done), ("info", current)) == [
        done, current, done, "bestmove b8-b2",
    ]
    # a lead the job wrote: the best line now
    assert stopped(("info", done), ("info", lead)) == [done, lead, "bestmove b8-b5"]


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (field 4 of /proc/PID/stat)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                out.append(int(stat.parent.name))
    return out


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_stop_ends_a_search_in_a_thread_of_the_engine(engine: Pipe) -> None:
    """The search runs in a thread of the engine's own process (no worker
    process); ``stop`` sets its flag and the search answers its best move."""
    engine.ask("kei", answer="keiok")
    engine.send(f"position kpn {STANDARD}", "go infinite")
    engine.until(lambda s: s.startswith("info depth 2"))
    assert _children(engine.proc.pid) == []
    cpu = engine.cpu()
    lines = engine.ask("stop")
    assert engine.cpu() - cpu < 2.0  # at once, not after the depth it was in
    assert not any("error" in s for s in lines)
    assert Move.from_str(bestmove(lines)) in Position(STANDARD).legal_moves
    # the best move is the first move of the last pv written
    last_pv = [w for w in infos(lines) if "pv" in w][-1] if infos(lines) else None
    if last_pv is not None:
        assert last_pv[last_pv.index("pv") + 1] == bestmove(lines)
    lines = engine.ask("go depth 2")
    assert [int(field(w, "depth")) for w in infos(lines)] == [1, 2]


def test_a_job_that_fails_mid_search_still_gets_a_legal_move(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """If the job raises (out of memory, a bug), the engine says so and
    still answers with the best move so far."""
    from kamisado.protocol import kei, kei_jobs

    def failing(conn: Any, pos: Position, limit: Any, seed: int, *rest: Any) -> str:
        conn.send(("info", "info depth 1 seldepth 1 score cp 5 nodes 10 pv c1-c5"))
        raise MemoryError("out of memory")

    monkeypatch.setattr(kei_jobs, "_search_job", failing)
    out: list[str] = []
    engine = kei.Engine(out.append)
    engine.handle("go depth 5")
    assert engine.runner.wait(10)
    engine.on_worker()
    assert "info string error: MemoryError: out of memory" in out
    assert out[-1] == "bestmove c1-c5"
    assert engine.job is None


def test_a_search_out_of_time_before_its_first_depth_still_plays_a_move() -> None:
    """A starved search thread (a loaded machine, a movetime of a few ms)
    may run out of time before depth 1 gives a move: a move all the same."""
    from kamisado.engine.limits import Limit
    from kamisado.protocol.kei_jobs import _search_job

    sent: list[tuple[str, str]] = []

    class Sender:
        def send(self, message: tuple[str, str]) -> None:
            sent.append(message)

    pos = Position(FIG7)
    move = _search_job(Sender(), pos, Limit(time=1e-9, depth=100), 1)  # type: ignore[arg-type]
    assert move is not None and Move.from_str(move) in pos.legal_moves


def test_errors_name_at_most_200_characters_of_a_bad_line(engine: Pipe) -> None:
    # a 2 MB garbage line came back whole as an ``info string error``
    junk = "x" * 2_000_000
    long_moves = " ".join(["c1-c9"] * 5000)
    for command in (
        junk,
        f"position kpn {junk}",
        f"position startpos moves {junk}",
        f"position {junk}",
        f"setoption name Seed value {junk}",
        f"setoption name {junk} value 1",
        f"fill {junk}",
    ):
        engine.send(command)
        reply = engine.read()
        assert reply.startswith("info string error: "), command[:40]
        assert "... (2000" in reply and len(reply) < 200 + 200, command[:40]
        if command.startswith("fill"):
            assert engine.read() == "fillchoice none"
    for command in (f"go depth {junk}", f"go {junk}", f"go searchmoves {long_moves}"):
        lines = engine.ask(command)
        assert lines[0].startswith("info string error: go") and len(lines[0]) < 400, command[:40]
        assert lines[1] == "bestmove none"
    assert engine.ask("isready", answer="readyok") == ["readyok"]


def test_a_limit_given_twice_is_refused(engine: Pipe) -> None:
    engine.send("position startpos")
    for command, word in [
        ("go depth 2 depth 3", "depth"),
        ("go movetime 50 nodes 10 movetime 60", "movetime"),
        ("go btime 100 gtime 100 btime 50", "btime"),
        ("go infinite infinite", "infinite"),
        ("go searchmoves c1-c5 searchmoves d1-d4", "searchmoves"),
    ]:
        lines = engine.ask(command)
        assert lines == [
            f"info string error: go: {word} is given twice (each limit at most once)",
            "bestmove none",
        ], command
    assert bestmove(engine.ask("go depth 2")) != "none"
