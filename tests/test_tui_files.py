"""``kamisado play``, its files and leaving: saving, resuming, the unfinished
games kept in the data folder, the command line, ``q`` and its question.

Each test's async body runs with ``asyncio.run`` in a fresh thread, so it
never meets another event loop of the same pytest session (Playwright's).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events
from textual.widgets import Input

from kamisado.rules.record import Record, load, write
from kamisado.tui import Options, main, parse_args
from kamisado.tui.app import KamisadoApp, SetupError, build_app
from kamisado.tui.files import RecordFiles
from tests.tui_kit import (  # noqa: F401 (data_folder: the autouse fixture)
    SIZE,
    app_for,
    data_folder,
    play_until_over,
    run,
    screen_lines,
    type_move,
    wait_for,
    words,
)


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


def test_q_asks_before_leaving_a_game_that_is_not_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data_folder: Path  # noqa: F811
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
    data_folder: Path, capsys: pytest.CaptureFixture[str]  # noqa: F811
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


def test_the_next_matchs_files_number_the_save_and_keep_a_hotseat_seed(tmp_path: Path) -> None:
    files = RecordFiles(
        {"Black": "person", "Gold": "person", "Seed": "5"},
        save_path=str(tmp_path / "a.kmr"),
        keep_path=str(tmp_path / "kept.kmr"),
    )
    before = files.headers
    files.renew(2, None)  # a record with a seed, played by two people: no computer's seed
    assert files.headers["Seed"] == "5" and "Date" in files.headers and "Date" not in before
    assert files.save_path == str(tmp_path / "a-3.kmr") and files.keep_path is None
    files.renew(3, 8)
    assert files.headers["Seed"] == "8" and files.save_path == str(tmp_path / "a-3-4.kmr")
