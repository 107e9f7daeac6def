"""What the tests of ``kamisado play`` share: each test's own data folder,
running an app through Textual's pilot in a thread of its own, typing and
clicking moves, and reading the screen."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from kamisado.tui import parse_args
from kamisado.tui.app import KamisadoApp, build_app

SIZE = (130, 40)
#: Figure 7(a) of the rulebook: Gold wins the round with f6-a1.
FIG7A = "2b3n1/4U3/5u1B/3o4/1pN2Or1/4y1P1/g7/1G1R3Y g u 3 0 0"


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


def screen_lines(app: KamisadoApp) -> list[str]:
    """The text on the terminal, line by line, as the compositor draws it."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def words(lines: list[str]) -> str:
    return " ".join(" ".join(lines).split())

