"""``kamisado engine``'s options Hash, Clear Hash and Threads, and ``go win N``."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from kamisado.engine import HASH_MIB_MAX, hash_entries, search, solve
from kamisado.engine.limits import Limit
from kamisado.protocol.kei_go import WIN_MAX, parse_go_command
from kamisado.rules.position import Position
from tests.test_kei import WON, Pipe, bestmove, field, infos

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def engine() -> Iterator[Pipe]:
    pipe = Pipe([sys.executable, "-m", "kamisado.protocol.kei", "--level", "novice"])
    yield pipe
    pipe.close()


def test_the_handshake_declares_hash_clear_hash_and_threads(engine: Pipe) -> None:
    lines = engine.ask("kei", answer="keiok")
    assert f"option name Hash type spin default 16 min 1 max {HASH_MIB_MAX}" in lines
    assert "option name Clear Hash type button" in lines
    assert "option name Threads type spin default 1 min 1 max 1" in lines


def test_hash_sizes_the_table_that_hashfull_reports(engine: Pipe) -> None:
    """The same search fills a 1 MiB table 64 times as much as a 64 MiB one."""
    engine.send("position startpos moves c1-c5")
    small = engine.ask("setoption name Hash value 1", "go depth 6")
    large = engine.ask("setoption name Hash value 64", "go depth 6")
    nodes = [int(field(w, "nodes")) for w in (infos(small)[-1], infos(large)[-1])]
    assert nodes[0] == nodes[1]  # the same search, whatever its table's size
    full = [int(field(w, "hashfull")) for w in (infos(small)[-1], infos(large)[-1])]
    assert full == [min(1000, n * 1000 // hash_entries(m)) for n, m in zip(nodes, (1, 64), strict=True)]
    assert full[0] > full[1]
    assert bestmove(small) == bestmove(large)


@pytest.mark.parametrize(
    ("command", "error"),
    [
        ("setoption name Hash value 0", "setoption Hash: expected a whole number of MiB"),
        (f"setoption name Hash value {HASH_MIB_MAX + 1}", "setoption Hash: expected"),
        ("setoption name Hash value lots", "setoption Hash: expected"),
        ("setoption name Threads value 2", "setoption Threads: this engine searches in one thread"),
        ("setoption name Threads value x", "setoption Threads: this engine searches in one thread"),
        ("setoption name Clear Hash value true", "setoption Clear Hash: a button takes no value"),
        ("setoption name Bogus", "setoption bogus: expected 'setoption name NAME value VALUE'"),
    ],
)
def test_bad_option_values_are_refused_and_change_nothing(
    engine: Pipe, command: str, error: str
) -> None:
    engine.send("position startpos moves c1-c5")
    before = engine.ask("go depth 4")
    lines = engine.ask(command, "isready", answer="readyok")
    assert lines[0].startswith(f"info string error: {error}") and lines[1] == "readyok"
    after = engine.ask("go depth 4")
    for key in ("depth", "score", "nodes", "hashfull"):  # Hash kept its size
        assert field(infos(after)[-1], key) == field(infos(before)[-1], key)
    assert bestmove(after) == bestmove(before)


def test_threads_1_is_accepted(engine: Pipe) -> None:
    assert engine.ask("setoption name Threads value 1", "isready", answer="readyok") == [
        "readyok"
    ]


def test_clear_hash_empties_the_solvers_table(engine: Pipe) -> None:
    """The solver keeps its table between moves: a second ``go win`` in the
    same position is proven from it at once; after Clear Hash it costs again
    what it cost the first time."""

    def nodes() -> int:
        lines = engine.ask(f"position kpn {WON}", "go win 20")
        return int(field(infos(lines)[-1], "nodes"))

    first = nodes()
    again = nodes()
    assert again < first
    engine.send("setoption name Clear Hash")
    assert nodes() == first
    # newgame forgets the tables too (UCI's ucinewgame)
    assert nodes() == again
    engine.send("newgame")
    assert nodes() == first


def test_go_win_finds_the_shortest_win_within_n() -> None:
    pipe = Pipe([sys.executable, "-m", "kamisado.protocol.kei"])
    try:
        proven = solve(WON)
        assert proven.winner == Position(WON).turn and proven.distance is not None
        d = proven.distance
        lines = pipe.ask(f"position kpn {WON}", f"go win {d}")
        last = infos(lines)[-1]
        assert last[last.index("score") : last.index("score") + 3] == ["score", "win", str(d)]
        assert field(last, "depth") == str(d)
        pv = last[last.index("pv") + 1 :]
        assert len(pv) == d and bestmove(lines) == pv[0] == str(proven.best_move)
        # one move fewer: no win that short; it says so and still plays a move
        lines = pipe.ask(f"go win {d - 1}")
        assert f"info string go win {d - 1}: no win within {d - 1} moves; searching instead" in lines
        assert bestmove(lines) in {str(m) for m in Position(WON).legal_moves}
        # the side that loses: the solver says so
        loser = Position(WON)
        loser.push(proven.best_move)
        lines = pipe.ask(f"position kpn {loser.kpn()}", f"go win {d} depth 2")
        assert f"info string go win {d}: the side to move loses in {d - 1}; searching instead" in lines
        assert [field(w, "depth") for w in infos(lines)] == ["1", "2"]
        # with searchmoves: refused, answered
        lines = pipe.ask(f"position kpn {WON}", f"go win {d} searchmoves {proven.best_move}")
        assert lines == [
            "info string error: go: win and searchmoves do not go together"
            " (the solver sees every move)",
            "bestmove none",
        ]
    finally:
        pipe.close()


def test_go_win_parses_and_is_checked() -> None:
    assert parse_go_command(["win", "5", "movetime", "100"]).limit == Limit(time=0.1, win=5)
    for words, message in (
        (["win", "0"], "go win: expected a whole number from 1, found '0'"),
        (["win", str(WIN_MAX + 1)], f"go win: at most {WIN_MAX}"),
        (["win", "3", "win", "4"], "go: win is given twice"),
    ):
        with pytest.raises(ValueError, match=message):
            parse_go_command(words)
    assert Limit(win=3).go_command() == "go win 3" and Limit(win=3).any
    with pytest.raises(ValueError, match="Limit.win must be a whole number from 1"):
        Limit(win=0)
    # the engine API says it with the solver's max_depth
    with pytest.raises(ValueError, match=r"solve\(pos, max_depth=N\)"):
        search(Position(), limit=Limit(win=3))
    with pytest.raises(ValueError, match="Limit.win is KEI's 'go win N'"):
        solve(Position(), limit=Limit(win=3, nodes=10))


def test_search_takes_a_hash_size() -> None:
    pos = Position()
    a = search(pos, depth=5, hash_mib=1)
    b = search(pos, depth=5, hash_mib=HASH_MIB_MAX // 256)
    assert (a.best_move, a.score) == (b.best_move, b.score)
    assert hash_entries(3) == hash_entries(2) == 2 * hash_entries(1)
    with pytest.raises(ValueError, match=r"hash_mib must be an integer in 1\.\."):
        search(pos, depth=2, hash_mib=0)
    with pytest.raises(TypeError, match="hash_mib must be an integer"):
        search(pos, depth=2, hash_mib="16")  # type: ignore[arg-type]
