"""``kamisado play``, the screen: what is visible at the sizes the app
supports, letters mode, the fill window, the marks, notices, the title and
the move entry.

Each test's async body runs with ``asyncio.run`` in a fresh thread, so it
never meets another event loop of the same pytest session (Playwright's).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input

from kamisado.rules.match import Match
from kamisado.rules.record import Record, save
from kamisado.tui import Options
from kamisado.tui.app import (
    BoardView,
    FillScreen,
    HelpScreen,
    KamisadoApp,
    TooSmallScreen,
    build_app,
)
from kamisado.tui.moves import MoveList
from tests.tui_kit import (  # noqa: F401 (data_folder: the autouse fixture)
    FIG7A,
    SIZE,
    app_for,
    data_folder,
    run,
    screen_lines,
    type_move,
    wait_for,
    words,
)


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


def region_lines(app: KamisadoApp, widget: Widget) -> list[str]:
    """The text on the terminal inside ``widget``'s region (what it shows)."""
    r = widget.region
    return [line[r.x : r.right] for line in screen_lines(app)[r.y : r.bottom]]


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
