"""``kamisado play``, the Textual app, driven through Textual's pilot.

Each test's async body runs with ``asyncio.run`` in a fresh thread, so it
never meets another event loop of the same pytest session (Playwright's).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import multiprocessing
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from textual import events
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input

from kamisado.engine.levels import Player
from kamisado.rules.board import Move, parse_square
from kamisado.rules.match import Match
from kamisado.rules.position import Position
from kamisado.rules.record import Record, load, read, save, write
from kamisado.tui import Options, main, parse_args, think_move
from kamisado.tui.app import (
    BoardView,
    FillScreen,
    HelpScreen,
    KamisadoApp,
    ResultScreen,
    SetupError,
    TooSmallScreen,
    build_app,
)
from kamisado.tui.moves import MoveList, move_list_lines
from tests.conftest import cpu_seconds
from tests.waiting import until_async

SIZE = (130, 40)
#: Figure 7(a) of the rulebook: Gold wins the round with f6-a1.
FIG7A = "2b3n1/4U3/5u1B/3o4/1pN2Or1/4y1P1/g7/1G1R3Y g u 3 0 0"
#: Figure 7(d): the next round's start after Gold fills left.
FIG7D = "u+gyprobn/8/8/8/8/8/8/GRYPNOBU b - 3 0 1"


@pytest.fixture(autouse=True)
def data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test's own data folder (unfinished games are kept there), never the user's."""
    folder = tmp_path / "data"
    monkeypatch.setenv("XDG_DATA_HOME", str(folder))
    return folder / "kamisado" / "unfinished"


def run(body: Callable[[], Awaitable[None]]) -> None:
    """Run an async test body with ``asyncio.run`` in a thread of its own."""
    errors: list[BaseException] = []

    def target() -> None:
        try:
            asyncio.run(body())  # type: ignore[arg-type]
        except BaseException as e:  # handed to the test's thread
            errors.append(e)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(timeout=120)
    assert not thread.is_alive(), "the app did not finish in time"
    if errors:
        raise errors[0]


def app_for(*argv: str) -> KamisadoApp:
    return build_app(parse_args(["--delay", "0", *argv]))


async def type_move(pilot: Pilot[int], text: str, keys: bool = False) -> None:
    """Write a move into the (emptied) entry, key by key with ``keys``, and press Enter."""
    entry = pilot.app.query_one("#entry", Input)
    entry.value = ""
    entry.focus()
    await pilot.pause()
    if keys:
        await pilot.press(*text)
    else:
        entry.value = text
    await pilot.press("enter")
    await pilot.pause()


async def wait_for(
    pilot: Pilot[int], done: Callable[[], bool], seconds: float = 30
) -> None:
    for _ in range(int(seconds / 0.05)):
        if done():
            return
        await pilot.pause(0.05)
    raise AssertionError("timed out waiting")


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


async def play_until_over(pilot: Pilot[int], app: KamisadoApp, side: int) -> None:
    """The person (``side``) plays the move that goes furthest forward until the match ends."""
    for _ in range(400):
        await wait_for(pilot, lambda: app.thinking is None)
        if app.match.state != "playing":
            return
        pos = app.match.position
        if pos.turn != side:
            await pilot.pause(0.05)
            continue
        move = max(
            pos.legal_moves,
            key=lambda m: ((m.to_square >> 3) * (1 if side == 0 else -1), m.to_square),
        )
        await type_move(pilot, str(move))
    raise AssertionError("the match did not end")


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


def test_save_key_and_resume(tmp_path: Path) -> None:
    path = tmp_path / "game.kmr"

    async def first() -> None:
        app = app_for("--match", "standard", "--save", str(path))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await type_move(pilot, "c1-c5")
            # saved after every move
            assert load(path).match.position.move_stack == app.match.position.move_stack
            await type_move(pilot, "b8-b3")
            path.unlink()
            app.board.focus()
            await pilot.press("s")
            await pilot.pause()
            assert "Saved" in app.messages[-1]
            assert path.read_text() == write(Record(app.files.headers, app.match))

    run(first)
    rec = load(path)
    assert rec.match.name == "Standard" and len(rec.match.position.move_stack) == 2

    async def second() -> None:
        app = build_app(Options(resume=str(path), delay=0))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert app.match.position.kpn() == rec.match.position.kpn()
            assert "Blue Forward 5 Yellow" in str(app.query_one("#moves").render())
            await type_move(pilot, "yR3")
        assert [str(m) for m in load(path).match.position.move_stack] == [
            "c1-c5",
            "b8-b3",
            "d1-g4",
        ]

    run(second)


def test_resume_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.kmr"
    bad.write_text("Kamisado match record\nMatch: Huge\n")
    with pytest.raises(SetupError, match="bad.kmr"):
        build_app(Options(resume=str(bad)))
    assert main(["--resume", str(tmp_path / "missing.kmr")]) == 2
    assert "cannot read" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        parse_args(["--level", "grandmaster"])
    assert e.value.code == 2
    with pytest.raises(SystemExit):
        parse_args(["--match", "standard", "--series", "3"])
    with pytest.raises(SystemExit):
        parse_args(["--series", "0"])


def test_letters_mode() -> None:
    async def body() -> None:
        app = app_for("--plain")
        async with app.run_test(size=(140, 40)) as pilot:
            await pilot.pause()
            text = app.board.board_text()
            lines = text.plain.splitlines()
            assert lines[0].startswith("8    o:o      b:b")
            assert lines[7].startswith("1  [ n:N   ]  g:G")  # the cursor on a1
            assert all(
                span.style in ("", None) or "reverse" in str(span.style)
                for span in text.spans
            )
            await type_move(pilot, "c1-c5")
            lines = app.board.board_text().plain.splitlines()
            # Gold's blue tower must move (>), its destinations are starred
            assert ">b:b" in lines[0] and "*o:." in lines[1]
            assert "b:R" in lines[3]
            # the l key switches to colours and back
            app.board.focus()
            await pilot.press("l")
            assert not app.board.plain and ":" not in app.board.board_text().plain
            await pilot.press("l")
            assert app.board.plain
            # a narrow terminal: shorter cells, the cursor in reverse video
            await pilot.resize_terminal(80, 24)
            await pilot.pause()
            text = app.board.board_text()
            lines = text.plain.splitlines()
            assert lines[0].startswith("8   oo   >bb    uu")  # square colour, then tower
            assert max(len(line) for line in lines) <= app.board.size.width
            cursor = [
                text.plain[s.start : s.end] for s in text.spans if "reverse" in str(s.style)
            ]
            assert cursor == [">bb   "]

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


def test_help_screen() -> None:
    async def body() -> None:
        app = app_for()
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            assert "Red Forward 4" in str(app.screen.query_one("#help-text").render())
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, HelpScreen)

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


def test_save_key_without_a_file_names_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)

    async def body() -> None:
        app = app_for("--match", "long")
        async with app.run_test(size=SIZE) as pilot:
            await type_move(pilot, "c1-c5")
            app.board.focus()
            await pilot.press("s")
            await pilot.pause()
            saved = list(tmp_path.glob("kamisado-*.kmr"))
            assert len(saved) == 1 and str(saved[0].name) in app.messages[-1]
            rec = load(saved[0])
            assert rec.match.name == "Long" and rec.headers["Black"] == "person"
            # from now on every move is saved there too
            await type_move(pilot, "b8-b3")
            assert len(load(saved[0]).match.position.move_stack) == 2

    run(body)


def test_command_line_help() -> None:
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "kamisado.cli", "play", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0
    assert "usage: kamisado play" in out.stdout and "--resume [FILE]" in out.stdout


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


# ---------------------------------------------------------------------------
# What is visible on the screen at the sizes the app supports
# ---------------------------------------------------------------------------

#: Five moves of each side (no round ends): the move list's rows 1 to 5.
TEN_PLIES = ["h1-c6", "a8-a4", "d1-d7", "g8-g3", "e1-f2", "d8-g5", "c1-d2", "b8-b2",
             "a1-a2", "c8-a6"]
#: Their entries in the rulebook's form, (Black's, Gold's) per move.
TEN_ENTRIES = [
    ("Orange Left 5 Orange", "Orange Forward 4 Yellow"),
    ("Yellow Forward 6 Green", "Green Forward 5 Pink"),
    ("Pink Right 1 Pink", "Pink Left 3 Red"),
    ("Red Right 1 Blue", "Blue Forward 6 Brown"),
    ("Brown Forward 1 Purple", "Purple Right 2 Green"),
]


def screen_lines(app: KamisadoApp) -> list[str]:
    """The text on the terminal, line by line, as the compositor draws it."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def region_lines(app: KamisadoApp, widget: Widget) -> list[str]:
    """The text on the terminal inside ``widget``'s region (what it shows)."""
    r = widget.region
    return [line[r.x : r.right] for line in screen_lines(app)[r.y : r.bottom]]


def words(lines: list[str]) -> str:
    return " ".join(" ".join(lines).split())


def assert_board_visible(app: KamisadoApp, board: BoardView, ranks: str) -> None:
    """Every rank label, every file letter and every cell of ``board`` is on screen."""
    screen = app.screen.region
    assert screen.contains_region(board.region), (board.region, screen)
    w, _ = board.cell_size()
    assert board.region.width >= 3 + 8 * w
    lines = [ln for ln in region_lines(app, board) if ln.strip()]
    assert [ln[0] for ln in lines if ln[:1].isdigit()] == list(ranks)
    assert lines[-1].split() == list("abcdefgh")


async def play_ten(pilot: Pilot[int]) -> None:
    for move in TEN_PLIES:
        await type_move(pilot, move)
    pilot.app.board.focus()  # type: ignore[attr-defined]
    await pilot.pause()


@pytest.mark.parametrize("plain", [False, True], ids=["colour", "letters"])
@pytest.mark.parametrize("size", [(80, 24), (60, 20)], ids=["80x24", "60x20"])
def test_board_panel_and_moves_are_visible(size: tuple[int, int], plain: bool) -> None:
    async def body() -> None:
        app = app_for("--match", "standard", *(["--plain"] if plain else []))
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await play_ten(pilot)
            # the board whole: ranks 8 to 1, files a to h, every cell
            assert_board_visible(app, app.board, "87654321")
            # the panel whole, no word broken ('Standar' / 'd')
            side = words(region_lines(app, app.query_one("#side")))
            assert "Round 1 · Black 0 – Gold 0 · Standard (to 3)" in side
            assert "Black to move: the green tower must move." in side
            # the move list: at least the last three moves, each as a row
            # (N. Black's Gold's) or on two lines, Gold's entry under Black's
            box = app.query_one("#moves-box", MoveList)
            shown = [ln.rstrip() for ln in region_lines(app, box)]
            for n in (3, 4, 5):
                black, gold = TEN_ENTRIES[n - 1]
                row = next(i for i, ln in enumerate(shown) if f"{n}. {black}" in ln)
                col = shown[row].index(black)
                same_row = shown[row][col + len(black) :].strip() == gold
                next_row = row + 1 < len(shown) and shown[row + 1][col:] == gold
                assert same_row or (next_row and not shown[row + 1][:col].strip()), shown
            # no row of the list wider than the list
            assert all(len(ln) <= box.content_region.width for ln in box.lines)

    run(body)


def fill_window_lines(app: KamisadoApp) -> str:
    return "\n".join(screen_lines(app))


@pytest.mark.parametrize("plain", [False, True], ids=["colour", "letters"])
@pytest.mark.parametrize("size", [(80, 24), (60, 20)], ids=["80x24", "60x20"])
def test_fill_window_fits_and_answers_its_keys(
    tmp_path: Path, size: tuple[int, int], plain: bool
) -> None:
    path = tmp_path / "fig7.kmr"
    save(Record.new(Match(3, start=FIG7A)), path)

    async def body() -> None:
        app = build_app(Options(resume=str(path), delay=0, plain=plain))
        async with app.run_test(size=size) as pilot:
            await type_move(pilot, "f6-a1")
            await wait_for(pilot, lambda: isinstance(app.screen, FillScreen))
            screen = app.screen
            text = words(screen_lines(app))
            # the heading and both line-ups, all eight files, fully on screen
            assert "Round 1: Gold's purple tower reached the home row" in text
            assert "Gold chooses how both players refill their home rows:" in text
            assert "Fill left (l or the left arrow):" in text
            assert "Fill right (r or the right arrow):" in text
            for fill in ("left", "right"):
                assert_board_visible(app, screen.query_one(f"#lineup-{fill}", BoardView), "81")
            # Esc: a look at the round's final board; f brings the window back
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, FillScreen)
            assert_board_visible(app, app.board, "87654321")
            assert app.board.position.outcome is not None  # the final board
            assert "f (or Enter) chooses the fill" in words(screen_lines(app))
            await pilot.press("f")
            await pilot.pause()
            assert isinstance(app.screen, FillScreen)
            # b looks too; Enter on the board brings it back
            await pilot.press("b")
            await pilot.pause()
            assert not isinstance(app.screen, FillScreen)
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, FillScreen)
            # ? shows the help over it; Esc closes the help only
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            assert "Move one of your towers" in words(screen_lines(app))
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, FillScreen)
            assert app.match.state == "fill"
            # q quits (as on the board: no question asked)
            await pilot.press("q")
            await pilot.pause()
            assert app.return_code == 0 and app.match.state == "fill"

    run(body)


def test_fast_typing_and_paste_keep_their_spaces() -> None:
    async def body() -> None:
        app = app_for()
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            board = app.board
            assert app.focused is board
            # a burst of keys: all arrive before the entry can take the focus
            for ch in "Orange Forward 2":
                key = "space" if ch == " " else ch
                app.post_message(events.Key(key, ch))
            app.post_message(events.Key("enter", "\r"))
            await wait_for(pilot, lambda: len(app.match.position.move_stack) > 0)
            await pilot.pause()
            assert [str(m) for m in app.match.position.move_stack] == ["h1-h3"]
            box = app.query_one("#moves-box", MoveList)
            assert "1. Orange Forward 2 Green" in words(region_lines(app, box))
            assert app.query_one("#entry", Input).value == ""
            # a bracketed paste on the board goes to the entry, spaces and all
            board.focus()
            await pilot.pause()
            app.post_message(events.Paste("Green Forward 2\n"))
            await pilot.pause()
            entry = app.query_one("#entry", Input)
            assert entry.value == "Green Forward 2" and app.focused is entry
            assert "Green Forward 2" in words(region_lines(app, entry))
            await pilot.press("enter")
            await pilot.pause()
            assert [str(m) for m in app.match.position.move_stack] == ["h1-h3", "g8-g6"]

    run(body)


@pytest.mark.parametrize("size", [(80, 24), (60, 20)], ids=["80x24", "60x20"])
def test_last_move_origin_destination_and_pushed_tower_are_marked(
    size: tuple[int, int],
) -> None:
    # the record example's round 2: Gold's red Sumo pushes Black's orange tower
    m = Match(3, start="pygnuobr+/8/8/8/8/8/8/RPGYBNUO b - 3 0 1")
    for token in [
        "Yellow Left 2", "Yellow Forward 2", "Pink Right 4", "Green Forward 6",
        "Yellow Forward 1", "Red Forward 5", "Green Right 5", "Blue Right 6",
        "Purple Forward 2", "Pink Left 5", "Orange Forward 1",
    ]:  # fmt: skip
        m.push_move(token)

    async def body() -> None:
        app = KamisadoApp(m, (None, None), {}, delay=0, plain=True)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            app.board.focus()
            await pilot.pause()

            def cells() -> dict[str, str]:
                """Each square's cell as shown: '~' + square colour + tower."""
                out = {}
                for ln in region_lines(app, app.board):
                    if ln[:1].isdigit():
                        cols = ln[3:]
                        w = len(cols) // 8
                        for f in range(8):
                            out[f"{'abcdefgh'[f]}{ln[0]}"] = cols[f * w : (f + 1) * w]
                return out

            def marked() -> set[str]:
                return {sq for sq, cell in cells().items() if "~" in cell}

            # Black's Orange Forward 1: where it came from and where it went
            last = str(app.match.position.move_stack[-1])
            assert marked() == set(last.split("-")), (last, cells())
            # Gold's Sumo push: the pusher's two squares and the pushed tower's new one
            await type_move(pilot, "Red Forward 1")
            assert app.match.position.peek().pushed == 1
            frm, to = str(app.match.position.move_stack[-1]).split("-")
            beyond = f"{to[0]}{int(to[1]) - 1}"
            assert marked() == {frm, to, beyond}
            assert "O" in cells()[beyond]  # Black's orange tower, pushed back
            assert "r+" in cells()[to]  # Gold's red Sumo
            # in colour: a dot on the square left, dots beside the towers moved
            await pilot.press("l")
            await pilot.pause()
            text = app.board.board_text().plain
            assert text.count("·") == 1 and text.count("•") == 4

    run(body)


def test_too_small_terminal_shows_a_notice_and_recovers() -> None:
    async def body() -> None:
        app = app_for()
        async with app.run_test(size=(60, 20)) as pilot:
            await pilot.pause()
            assert_board_visible(app, app.board, "87654321")
            await pilot.resize_terminal(40, 15)
            await pilot.pause()
            assert isinstance(app.screen, TooSmallScreen)
            text = words(screen_lines(app))
            assert "The terminal is too small for Kamisado: 40 x 15." in text
            assert "It needs at least 60 x 20 (columns x lines)." in text
            assert not any(ln.startswith("8 ") for ln in screen_lines(app))
            await pilot.resize_terminal(59, 30)  # one column short
            await pilot.pause()
            assert "too small for Kamisado: 59 x 30" in words(screen_lines(app))
            await pilot.resize_terminal(80, 24)
            await pilot.pause()
            assert not isinstance(app.screen, TooSmallScreen)
            assert_board_visible(app, app.board, "87654321")
            await type_move(pilot, "c1-c5")  # the game goes on
            assert len(app.match.position.move_stack) == 1

    run(body)


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


# -- issue 28: the entry, notices, the title, leaving, keeping, taking back --------------


def test_a_rejected_typed_move_is_selected_for_correction() -> None:
    # typed on the board: d1-d9 Enter (no such square), then d1-d2 Enter
    # once held 'd1-d9d1-d2', and every later move was refused
    async def body() -> None:
        app = app_for()
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            app.board.focus()
            await pilot.press(*"d1-d9", "enter")
            entry = app.query_one("#entry", Input)
            assert app.query_one("#status").has_class("error")
            assert entry.value == "d1-d9" and entry.selected_text == "d1-d9"
            await pilot.press(*"d1-d2", "enter")
            await pilot.pause()
            assert [str(m) for m in app.match.position.move_stack] == ["d1-d2"]
            assert entry.value == ""
            # typed in the entry itself: the same
            entry.focus()
            await pilot.press(*"zz", "enter")
            assert entry.selected_text == "zz"
            reply = str(min(app.match.position.legal_moves, key=str))
            await pilot.press(*reply, "enter")
            await pilot.pause()
            assert [str(m) for m in app.match.position.move_stack] == ["d1-d2", reply]

    run(body)


def test_notices_never_cover_a_window(tmp_path: Path) -> None:
    # at 80x24 the round's result notice covered the fill window's last line
    path = tmp_path / "fig7.kmr"
    save(Record.new(Match(3, start=FIG7A)), path)

    async def body() -> None:
        app = build_app(Options(resume=str(path), delay=0))
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await pilot.pause()
            app.notify("an old notice", title="Kamisado", timeout=30)
            await pilot.pause()
            assert "an old notice" in words(screen_lines(app))
            await type_move(pilot, "f6-a1")
            await wait_for(pilot, lambda: isinstance(app.screen, FillScreen))
            await wait_for(
                pilot, lambda: any("b/Esc: see the board" in ln for ln in screen_lines(app))
            )
            lines = screen_lines(app)
            assert any(
                "b/Esc: see the board first · ? help · q quit" in ln for ln in lines
            ), lines
            assert "an old notice" not in words(lines)
            # the round's result is in the window, not in a notice over it
            assert not app.screen.query("Toast")
            # the help over the board: no notice over it either
            await pilot.press("escape")
            await pilot.pause()
            app._notice("news over the board")
            await pilot.press("question_mark")
            await pilot.pause(0.2)
            assert "news over the board" not in words(screen_lines(app))
            app._notice("news while a window is open")
            await pilot.pause(0.2)
            assert "news while a window is open" not in words(screen_lines(app))

    run(body)


@pytest.mark.parametrize(
    "argv",
    [
        ["--level", "beginner", "--match", "standard"],
        ["--match", "marathon"],
        ["--level", "expert", "--series", "3", "--colour", "gold"],
        ["--level", "perfect", "--match", "long"],
    ],
)
def test_the_title_fits_80_columns(argv: list[str]) -> None:
    async def body() -> None:
        app = app_for(*argv)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            top = screen_lines(app)[0]
            assert f"Kamisado — {app.sub_title}" in top, top
            assert "…" not in top and not app.sub_title.rstrip().endswith("·")
            assert "Black:" in app.sub_title and "Gold:" in app.sub_title
        # wide enough, the long form
        app = app_for(*argv)
        async with app.run_test(size=(160, 40)) as pilot:
            await pilot.pause()
            assert app.sub_title.count(" · ") == 2
            assert f"Kamisado — {app.sub_title}" in screen_lines(app)[0]

    run(body)


def test_q_asks_before_leaving_a_game_that_is_not_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data_folder: Path
) -> None:
    monkeypatch.chdir(tmp_path)

    async def body() -> None:
        # no move yet: q leaves at once
        app = app_for("--match", "standard")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("q")
            await pilot.pause()
            assert app.return_code == 0
        app = app_for("--match", "standard")
        async with app.run_test(size=(80, 24)) as pilot:
            await type_move(pilot, "c1-c5")
            app.board.focus()
            await pilot.press("q")
            await pilot.pause()
            from kamisado.tui.app import QuitScreen

            assert isinstance(app.screen, QuitScreen)
            text = words(screen_lines(app))
            assert "Leave this match? It is not saved to a file." in text
            assert "kamisado play --resume goes on with it." in text
            await pilot.press("n")  # stay
            await pilot.pause()
            assert not isinstance(app.screen, QuitScreen) and app.return_code is None
            await type_move(pilot, "b8-b3")
            app.board.focus()
            await pilot.press("q")
            await pilot.pause()
            await pilot.press("s")  # save, then leave
            await pilot.pause()
            assert app.return_code == 0
            saved = list(tmp_path.glob("kamisado-*.kmr"))
            assert len(saved) == 1 and len(load(saved[0]).match.position.move_stack) == 2
        # saved to a file: q leaves at once
        app = app_for("--save", str(tmp_path / "mine.kmr"))
        async with app.run_test(size=(80, 24)) as pilot:
            await type_move(pilot, "c1-c5")
            app.board.focus()
            await pilot.press("q")
            await pilot.pause()
            assert app.return_code == 0

    run(body)


def test_unfinished_games_are_kept_and_resume_goes_on_with_the_last(
    data_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--resume"]) == 2
    assert "no unfinished game to go on with in" in capsys.readouterr().err

    async def leave(moves: list[str]) -> KamisadoApp:
        app = app_for("--level", "beginner", "--seed", "3")
        async with app.run_test(size=(80, 24)) as pilot:
            for move in moves:
                await type_move(pilot, move)
                await wait_for(pilot, lambda: app.match.position.turn == 0 and not app.thinking)
            app.board.focus()
            await pilot.press("q")
            await pilot.pause()
            await pilot.press("y")
            await pilot.pause()
        return app

    first: list[KamisadoApp] = []
    last: list[KamisadoApp] = []

    async def body() -> None:
        first.append(await leave(["c1-c5"]))
        last.append(await leave(["d1-d5"]))

    run(body)
    kept = sorted(data_folder.glob("*.kmr"))
    assert len(kept) == 2
    assert load(kept[-1]).match.key() == last[0].match.key()
    assert load(kept[0]).match.key() == first[0].match.key()

    async def again() -> None:
        app = build_app(parse_args(["--resume", "--delay", "0"]))
        assert app.files.keep_path == str(kept[-1]) and app.files.save_path is None
        assert app.players[1] is not None and app.players[1].level == "beginner"
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert app.match.key() == last[0].match.key()
            # played on to its end, it is forgotten
            await play_until_over(pilot, app, 0)
            await wait_for(pilot, lambda: app.match.state == "over")
            await pilot.pause()
        assert not kept[-1].exists() and kept[0].exists()

    run(again)


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


def _burst(app: KamisadoApp, keys: str) -> None:
    """Send ``keys`` as a terminal delivers keys typed at once: every one
    queued before the app handles the first (the pilot's ``press`` waits for
    the app between keys)."""
    driver = app._driver
    assert driver is not None
    for key in keys:
        event = events.Key(key, key)
        event.set_sender(app)
        driver.send_message(event)


@pytest.mark.parametrize(("keys", "left"), [("qy", True), ("qq", True), ("qn", False)])
def test_quit_and_its_answer_typed_in_one_burst(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keys: str, left: bool
) -> None:
    # ``q`` then ``y`` at once: the ``y`` answers the question ``q`` opens,
    # even though the question is not on the screen yet when it comes
    monkeypatch.chdir(tmp_path)

    async def body() -> None:
        from kamisado.tui.app import QuitScreen

        app = app_for("--match", "standard")
        async with app.run_test(size=(80, 24)) as pilot:
            await type_move(pilot, "c1-c5")
            app.board.focus()
            await pilot.pause()
            _burst(app, keys)
            await pilot.pause()
            await pilot.pause()
            if left:
                await wait_for(pilot, lambda: app.return_code is not None, seconds=5)
                assert app.return_code == 0
            else:
                assert app.return_code is None and not isinstance(app.screen, QuitScreen)
                assert app.query_one("#entry", Input).value == ""  # the n answered, not typed
                assert app.match.position.kpn() == "obupyrgn/8/8/2R5/8/8/8/NG1YPUBO g b 3 0 0"

    run(body)
