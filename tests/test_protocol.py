"""KEI conformance of ``kamisado engine``, spoken to line by line over pipes."""

from __future__ import annotations

import contextlib
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from kamisado.core import Move, Position
from kamisado.players import LEVELS
from kamisado.protocol import Limits, parse_go

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
    pipe = Pipe([sys.executable, "-m", "kamisado.protocol", "--level", "novice"])
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
    t = time.monotonic()
    lines = engine.ask("go movetime 300")
    spent = time.monotonic() - t
    assert 0.2 <= spent < 3.0
    assert Move.from_str(bestmove(lines)) in Position().legal_moves
    lines = engine.ask("go nodes 3000")
    assert int(field(infos(lines)[-1], "nodes")) <= 3000 + 2000  # one depth may overshoot
    assert int(field(infos(lines)[0], "depth")) == 1


def test_infinite_waits_for_stop_and_isready_answers_meanwhile(engine: Pipe) -> None:
    engine.send("position startpos moves d1-d5", "go infinite")
    time.sleep(0.3)
    t = time.monotonic()
    engine.send("isready")
    lines = engine.until(lambda s: s == "readyok", timeout=5)
    assert time.monotonic() - t < 2.0
    assert not any(s.startswith("bestmove") for s in lines)
    time.sleep(0.2)
    t = time.monotonic()
    lines = engine.ask("stop")
    assert time.monotonic() - t < 2.0
    move = Move.from_str(bestmove(lines))
    pos = Position()
    pos.push_move("d1-d5")
    assert move in pos.legal_moves
    # the engine goes on working after a stop that killed its worker
    lines = engine.ask("go depth 2")
    assert [int(field(w, "depth")) for w in infos(lines)] == [1, 2]


def test_infinite_holds_a_proven_answer_until_stop(engine: Pipe) -> None:
    engine.send(f"position kpn {WON}", "go infinite")
    time.sleep(1.0)
    early = engine.quiet(0.2)
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
        "setoption name Hash value 16": "info string error: setoption: unknown option 'hash'",
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
    pipe = Pipe([sys.executable, "-m", "kamisado.protocol"])
    pipe.send("position startpos", "go infinite")
    time.sleep(0.2)
    assert pipe.close() == 0
    pipe = Pipe([sys.executable, "-m", "kamisado.protocol"])
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
    with pytest.raises(ValueError, match="unknown limit 'ponder'"):
        parse_go(["ponder"])
    with pytest.raises(ValueError, match="expected a number after it"):
        parse_go(["movetime"])


def test_go_reports_the_engines_own_iterations(engine: Pipe) -> None:
    """One iterative deepening loop: the info lines are the search's iterations."""
    from kamisado.engine import search
    from kamisado.limits import Score
    from kamisado.protocol import position_seed

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
    from kamisado.client import Limit as ClientLimit
    from kamisado.limits import Limit

    assert parse_go(["movetime", "250", "depth", "7"]) == Limit(time=0.25, depth=7)
    assert Limits(movetime=250).movetime == 250 and Limit is ClientLimit
    assert parse_go(["movetime", "250"]).go_command() == "go movetime 250"
