"""``kamisado play``, playing: moves by keys, text and mouse, the computer,
fills, rounds, passes, deadlocks, Sumo pushes, taking back.

Each test's async body runs with ``asyncio.run`` in a fresh thread, so it
never meets another event loop of the same pytest session (Playwright's).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import multiprocessing
from pathlib import Path

import pytest
from textual.widgets import Input

from kamisado.engine.levels import Player
from kamisado.rules.board import Move, parse_square
from kamisado.rules.match import Match
from kamisado.rules.position import Position
from kamisado.rules.record import Record, read, save, write
from kamisado.tui import Options, parse_args, think_move
from kamisado.tui.app import (
    BoardView,
    FillScreen,
    KamisadoApp,
    ResultScreen,
    build_app,
)
from kamisado.tui.moves import move_list_lines
from tests.conftest import cpu_seconds
from tests.tui_kit import (  # noqa: F401 (data_folder: the autouse fixture)
    FIG7A,
    SIZE,
    app_for,
    data_folder,
    play_until_over,
    run,
    type_move,
    wait_for,
)
from tests.waiting import until_async

#: Figure 7(d): the next round's start after Gold fills left.
FIG7D = "u+gyprobn/8/8/8/8/8/8/GRYPNOBU b - 3 0 1"


def centre(board: BoardView, square: str) -> tuple[int, int]:
    """Offset of a square's centre in the board widget."""
    w, h = board.cell_size()
    sq = parse_square(square)
    files = list(range(7, -1, -1)) if board.flipped else list(range(8))
    ranks = list(board.ranks)[:: -1 if board.flipped else 1]
    col, row = files.index(sq & 7), ranks.index(sq >> 3)
    return 3 + col * w + w // 2, row * h + h // 2


def test_hotseat_moves_by_keys() -> None:
    async def body() -> None:
        app = app_for()
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            board = app.board
            assert board.cursor == 0  # a1, Black's first tower that can move
            await pilot.press("right", "right", "enter")  # c1: pick the red tower
            assert app.selected == 2  # c1
            assert 34 in board.destinations and 58 not in board.destinations
            await pilot.press("up", "up", "up", "up", "enter")  # c5
            assert app.match.position.kpn() == "obupyrgn/8/8/2R5/8/8/8/NG1YPUBO g b 1 0 0"
            # Gold's blue tower must move: it is marked, its destinations too
            assert app.selected == 57 and 17 in board.destinations
            assert board.cursor == 57  # the cursor went to it
            await pilot.press("down", "down", "down", "down", "down", "enter")  # b3
            assert app.match.position.kpn() == "o1upyrgn/8/8/2R5/8/1b6/8/NG1YPUBO b y 1 0 0"
            moves = str(app.query_one("#moves").render())
            assert "1. Red Forward 4 Blue       Blue Forward 5 Yellow" in moves
            assert "the yellow tower must move" in str(app.query_one("#turn").render())

    run(body)


def test_hotseat_moves_by_text_in_every_form() -> None:
    async def body() -> None:
        app = app_for()
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await type_move(pilot, "c1-c5", keys=True)
            await type_move(pilot, "Blue Forward 5", keys=True)
            await type_move(pilot, "yR3", keys=True)
            # the destination form: one legal move goes there
            await type_move(pilot, "d7", keys=True)
            assert [str(m) for m in app.match.position.move_stack] == [
                "c1-c5",
                "b8-b3",
                "d1-g4",
                "c8-d7",
            ]
            # typing on the board opens the entry with the first character
            app.board.focus()
            await pilot.pause()
            await pilot.press(*"b1-e4", "enter")
            await pilot.pause()
            assert str(app.match.position.move_stack[-1]) == "b1-e4"
            assert app.query_one("#entry", Input).value == ""

    run(body)


def test_illegal_input_is_refused_and_changes_nothing() -> None:
    async def body() -> None:
        app = app_for()
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await type_move(pilot, "c5")  # several towers can go there
            assert "c5" in app.messages[-1] and app.match.position.move_stack == []
            await type_move(pilot, "c1-c5")
            before = app.match.position.kpn()
            app.query_one("#entry", Input).value = ""
            await type_move(pilot, "a8-a7")
            status = str(app.query_one("#status").render())
            assert "blue tower must move" in status
            assert app.query_one("#status").has_class("error")
            assert app.query_one("#entry", Input).value == "a8-a7"  # kept to be corrected
            app.query_one("#entry", Input).value = ""
            await type_move(pilot, "Mauve Forward 2")
            assert "expected" in app.messages[-1] or "Mauve" in app.messages[-1]
            # a square that is no destination of the tower that must move
            app.board.focus()
            app.board.cursor = 8  # a2
            await pilot.press("enter")
            assert "not a legal destination" in app.messages[-1]
            assert app.match.position.kpn() == before

    run(body)


def test_mouse_picks_a_tower_and_a_destination() -> None:
    async def body() -> None:
        app = app_for()
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            board = app.board
            assert await pilot.click(BoardView, offset=centre(board, "d1"))
            assert app.selected == 3
            assert await pilot.click(BoardView, offset=centre(board, "g4"))
            assert [str(m) for m in app.match.position.move_stack] == ["d1-g4"]
            # Gold: the tower on the square's colour is picked already; an
            # empty square that is not a destination is refused
            assert await pilot.click(BoardView, offset=centre(board, "e5"))
            assert "not a legal destination" in app.messages[-1]
            assert len(app.match.position.move_stack) == 1

    run(body)


def test_game_against_beginner_to_the_end_of_a_round() -> None:
    async def body() -> None:
        app = app_for("--level", "beginner", "--seed", "7")
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert app.players[0] is None and app.players[1] is not None
            await play_until_over(pilot, app, 0)
            await wait_for(pilot, lambda: isinstance(app.screen, ResultScreen))
            m = app.match
            assert m.state == "over" and m.winner is not None
            assert len(m.current.moves) >= 3
            assert any(msg.startswith("Gold:") for msg in app.messages)
            text = str(app.screen.query_one("#result-text").render())
            assert "wins" in text and "Round 1:" in text
            # n starts a new match against the same level
            await pilot.press("n")
            await pilot.pause()
            assert not isinstance(app.screen, ResultScreen)
            assert app.match is not m and app.match.state == "playing"
            assert app.match.position.move_stack == []

    run(body)


def test_standard_match_round_end_with_fill_choice(tmp_path: Path) -> None:
    path = tmp_path / "fig7.kmr"
    save(Record.new(Match(3, start=FIG7A), black="Johan", gold="Alain"), path)

    async def body() -> None:
        app = build_app(Options(resume=str(path), delay=0))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await type_move(pilot, "f6-a1")
            await wait_for(pilot, lambda: isinstance(app.screen, FillScreen))
            screen = app.screen
            assert app.match.state == "fill"
            for fill in ("left", "right"):
                shown = screen.query_one(f"#lineup-{fill}", BoardView).position
                assert shown.kpn() == app.match.next_round_start(fill).kpn()
            assert "Gold chooses" in str(screen.query_one("#fill-title").render())
            # a move now is refused: the fill comes first
            await pilot.press("left")
            await pilot.pause()
            assert not isinstance(app.screen, FillScreen)
            assert app.match.position.kpn() == FIG7D
            assert app.match.rounds[1].fill == "left"
            assert "Gold fills left" in app.messages[-1]
            assert "Round 2 (Gold fills left)" in str(app.query_one("#moves").render())
        # saved after the fill (the resumed file is saved again)
        assert read(path.read_text()).match.position.kpn() == FIG7D

    run(body)


def test_computer_wins_a_round_and_chooses_the_fill(tmp_path: Path) -> None:
    path = tmp_path / "fig7.kmr"
    rec = Record.new(Match(3, start=FIG7A), black="person", gold="kamisado beginner")
    save(rec, path)

    async def body() -> None:
        # the computer (Gold, from the record's headers) wins at once and fills
        app = build_app(Options(resume=str(path), delay=0))
        async with app.run_test(size=SIZE) as pilot:
            assert app.players[1] is not None and app.players[1].level == "beginner"
            await wait_for(pilot, lambda: len(app.match.rounds) == 2 and not app.thinking)
            assert app.match.rounds[1].fill in ("left", "right")
            assert app.match.position.turn == 0  # the loser is the Challenger
            assert any("(computer) fills" in m or "fills" in m for m in app.messages)
            assert not isinstance(app.screen, FillScreen)

    run(body)


def test_pass_and_end_of_match_are_announced() -> None:
    # the record example's round 3: Black's brown tower is blocked and passes
    m = Match(3, start="p+bgr+nyou/8/8/8/8/8/8/NOBUYPGR b - 3 0 2")
    for token in ["Yellow Left 3", "Red Forward 4", "Brown Forward 6"]:
        m.push_move(token)

    async def body() -> None:
        app = KamisadoApp(m, (None, None), {"Black": "a", "Gold": "b"}, delay=0)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await type_move(pilot, "Red Right 2")
            assert (
                "brown tower is blocked on a red square: Black passes" in app.messages[-1]
            )
            assert app.match.position.turn == 1
            await type_move(pilot, "rR1")
            await wait_for(pilot, lambda: isinstance(app.screen, ResultScreen))
            text = str(app.screen.query_one("#result-text").render())
            assert "Gold wins" in text and "Black 0, Gold 4" in text
            assert "+2 points" in text
            await pilot.press("escape")
            await pilot.pause()
            await type_move(pilot, "a1-a2")
            assert "match is over" in app.messages[-1]

    run(body)


def test_series_and_board_turned_for_gold() -> None:
    async def body() -> None:
        app = app_for(
            "--series", "2", "--level", "beginner", "--colour", "gold", "--seed", "3"
        )
        async with app.run_test(size=SIZE) as pilot:
            assert app.match.series and app.match.target == 2
            assert app.board.flipped  # Gold's home row at the bottom
            lines = app.board.board_text().plain.splitlines()
            assert [line[0] for line in lines if line[:1].isdigit()] == list("12345678")
            assert lines[-1].split() == list("hgfedcba")
            # the computer (Black) opens the round
            await wait_for(pilot, lambda: len(app.match.position.move_stack) == 1)
            assert app.match.position.turn == 1 and app.thinking is None
            await play_until_over(pilot, app, 1)
            await wait_for(pilot, lambda: isinstance(app.screen, ResultScreen))
            m = app.match
            assert max(m.points) == 2 and len(m.rounds) >= 2
            # the first move alternates: Gold opens round 2
            assert m.rounds[1].start.turn == 1 and m.rounds[1].fill is None
            assert any("Round 2 begins: Gold moves first" in msg for msg in app.messages)
            text = str(app.screen.query_one("#result-text").render())
            assert "wins the series (first to 2 rounds)" in text

    run(body)


def test_computer_in_a_thread_keeps_the_screen_alive() -> None:
    async def body() -> None:
        # the computer's answer is held (its gate) until the typed move has arrived,
        # however fast or loaded the machine
        app = app_for("--level", "expert", "--colour", "gold")
        gate = app.computer_gate = asyncio.Event()
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.thinking is not None)
            assert app.thinking == "move"
            assert "thinking" in str(app.query_one("#status").render())
            # the screen answers while the computer thinks
            app.board.focus()
            await pilot.press("up")
            await type_move(pilot, "c1-c5")
            assert "Wait" in app.messages[-1]
            assert app.match.position.move_stack == []
            gate.set()
            await wait_for(pilot, lambda: len(app.match.position.move_stack) == 1, 60)
            assert app.thinking is None and app.match.position.turn == 1
            assert multiprocessing.active_children() == []  # no process of its own
        assert not app._thinker.running  # the computer's thread is done

    run(body)


def test_deadlock_is_announced() -> None:
    # after c4-b5 Gold's purple and Black's pink towers are both blocked
    m = Match(1, start="8/2u2y2/obYp4/5Rrg/2P3n1/3U1O2/GN3B2/8 b p 1 0 0")

    async def body() -> None:
        app = KamisadoApp(m, (None, None), {"Black": "a", "Gold": "b"}, delay=0)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await type_move(pilot, "c4-b5")
            news = app.messages[-1]
            assert "Gold's purple tower is blocked" in news
            assert "Black's pink tower is blocked" in news
            assert "deadlock: Black's move blocked every tower and loses" in news
            await wait_for(pilot, lambda: isinstance(app.screen, ResultScreen))
            assert app.match.winner == 1
            assert "Gold wins" in str(app.screen.query_one("#result-text").render())

    run(body)


def test_sumo_push_is_announced() -> None:
    # the record example's round 2: Gold's red Sumo pushes Black's orange tower
    m = Match(3, start="pygnuobr+/8/8/8/8/8/8/RPGYBNUO b - 3 0 1")
    for token in [
        "Yellow Left 2",
        "Yellow Forward 2",
        "Pink Right 4",
        "Green Forward 6",
        "Yellow Forward 1",
        "Red Forward 5",
        "Green Right 5",
        "Blue Right 6",
        "Purple Forward 2",
        "Pink Left 5",
        "Orange Forward 1",
    ]:
        m.push_move(token)

    async def body() -> None:
        app = KamisadoApp(m, (None, None), {"Black": "a", "Gold": "b"}, delay=0)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await type_move(pilot, "Red Forward 1")
            assert (
                "Sumo push: Black's orange tower is pushed back; Gold moves again"
                in (app.messages[-1])
            )
            assert app.match.position.turn == 1
            moves = str(app.query_one("#moves").render())
            assert "Orange Back 1 Orange" in moves

    run(body)


def test_click_on_a_lineup_chooses_it(tmp_path: Path) -> None:
    path = tmp_path / "fig7.kmr"
    save(Record.new(Match(3, start=FIG7A)), path)

    async def body() -> None:
        app = build_app(Options(resume=str(path), delay=0))
        async with app.run_test(size=SIZE) as pilot:
            await type_move(pilot, "f6-a1")
            await wait_for(pilot, lambda: isinstance(app.screen, FillScreen))
            assert await pilot.click("#lineup-right", offset=(10, 1))
            await pilot.pause()
            assert app.match.rounds[1].fill == "right"
            assert app.match.position == app.match.rounds[1].start

    run(body)


def test_a_failing_computer_is_reported_and_tried_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import kamisado.tui.app as tui_app

    calls: list[str] = []
    real = think_move

    def flaky(player: Player, pos: Position) -> tuple[Move, Player]:
        calls.append(pos.kpn())
        if len(calls) == 1:
            raise RuntimeError("engine crashed")
        return real(player, pos)

    monkeypatch.setattr(tui_app, "think_move", flaky)

    async def body() -> None:
        app = app_for("--level", "beginner", "--colour", "gold")
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: bool(calls) and app.thinking is None)
            assert "The computer failed" in app.messages[-1]
            assert "engine crashed" in app.messages[-1]
            assert app.match.position.move_stack == []
            app.board.focus()
            await pilot.press("enter")
            await wait_for(pilot, lambda: len(app.match.position.move_stack) == 1)
            assert len(calls) == 2 and app.match.position.turn == 1

    run(body)


def test_spinner_runs_only_while_the_computer_thinks() -> None:
    async def body() -> None:
        # the computer (Black) thinks until its gate opens
        app = app_for("--level", "beginner", "--colour", "gold", "--seed", "1")
        gate = app.computer_gate = asyncio.Event()
        async with app.run_test(size=SIZE) as pilot:
            # it starts once the app has mounted (later on a loaded machine)
            await wait_for(pilot, lambda: app.thinking is not None)
            assert app.thinking == "move" and app._spinner is not None

            def status() -> str:
                return str(app.query_one("#status").render())

            first = status()
            assert first.startswith(("|", "/", "-", "\\")) and "thinking" in first
            await wait_for(pilot, lambda: status() != first, 1.5)  # it turns
            gate.set()
            await wait_for(pilot, lambda: len(app.match.position.move_stack) == 1)
            assert app.thinking is None and app._spinner is None
            gate.clear()
            await type_move(pilot, str(next(iter(app.match.position.legal_moves))))
            assert app.thinking == "move" and app._spinner is not None
            gate.set()
            await wait_for(
                pilot,
                lambda: len(app.match.position.move_stack) >= 3 and app.thinking is None,
            )
            assert app._spinner is None

    run(body)


def test_move_list_is_the_records_rounds() -> None:
    # the rounds as write() puts them, without the Start: lines
    for seed in range(4):
        m = Match(3, series=seed % 2 == 1)
        pl = Player("beginner", seed)
        while m.state != "over":
            if m.state == "fill":
                m.choose_fill("left" if seed % 2 else "right")
            else:
                m.push_move(pl.choose_move(m.position))
            rounds = write(Record({}, m)).split("\n\n")[1:]
            text = "\n\n".join(rounds).splitlines()
            assert move_list_lines(m) == [ln for ln in text if not ln.startswith("Start:")]


def test_the_computer_stops_on_a_flag_when_its_answer_is_not_wanted() -> None:
    """Cancelled (a new match, the app closing), the computer's search is
    stopped through its flag: its thread ends at once, nothing is killed."""
    from kamisado import engine
    from kamisado.rules.position import Position
    from kamisado.tui.computer import Thinker

    async def body() -> None:
        thinker = Thinker()
        long = functools.partial(engine.search, time_ms=60_000)
        task = asyncio.ensure_future(thinker.run(long, Position()))
        await until_async(lambda: thinker.running, "the computer's thread thinks")
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        start = cpu_seconds()  # CPU time: a loaded machine does not lengthen it
        assert thinker.runner.wait(10) and not thinker.running
        assert cpu_seconds() - start < 5
        result = thinker.runner.result()
        assert result.best_move in Position().legal_moves
        # the next question is answered in full
        r = await thinker.run(functools.partial(engine.search, depth=3), Position())
        assert r.depth == 3
        thinker.close()

    asyncio.run(body())


def test_takeback_against_the_computer() -> None:
    async def body() -> None:
        app = build_app(parse_args(["--level", "beginner", "--seed", "2", "--delay", "0"]))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            app.board.focus()
            await pilot.press("t")
            assert "Nothing to take back" in app.messages[-1]
            await type_move(pilot, "c1-c5")
            await wait_for(pilot, lambda: len(app.match.position.move_stack) == 2)
            await wait_for(pilot, lambda: not app.thinking)
            app.board.focus()
            await pilot.press("t")  # the person's move and the computer's answer
            await pilot.pause()
            assert app.match.position.move_stack == []
            assert app.match.position.turn == 0 and "Took back 2 moves" in app.messages[-1]
            assert app.match.key() == Match(1).key()
        # taken back while the computer still thinks: its answer is dropped
        app = build_app(parse_args(["--level", "beginner", "--seed", "2", "--delay", "0"]))
        gate = app.computer_gate = asyncio.Event()
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await type_move(pilot, "c1-c5")
            assert app.thinking == "move"
            app.board.focus()
            await pilot.press("t")
            await pilot.pause()
            assert app.match.position.move_stack == [] and not app.thinking
            await type_move(pilot, "d1-d5")
            assert app.thinking == "move"
            gate.set()  # the dropped answer and the new one go on together
            await wait_for(pilot, lambda: len(app.match.position.move_stack) == 2)
            await wait_for(pilot, lambda: not app.thinking)
            for _ in range(5):  # the dropped answer was let through: nothing more
                await pilot.pause(0.05)
            assert str(app.match.position.move_stack[0]) == "d1-d5"
            assert len(app.match.position.move_stack) == 2

    run(body)


def test_takeback_in_hotseat_takes_one_move() -> None:
    async def body() -> None:
        app = app_for()
        async with app.run_test(size=(80, 24)) as pilot:
            await type_move(pilot, "c1-c5")
            await type_move(pilot, "b8-b3")
            app.board.focus()
            await pilot.press("t")
            await pilot.pause()
            assert [str(m) for m in app.match.position.move_stack] == ["c1-c5"]
            assert app.match.position.turn == 1

    run(body)
