"""Clocks derived from stored state, driven by an injected time source
(issue 11, item 4): increments, correspondence days, a flag decided with no
message, and a restart in the middle of a move that keeps the time."""

from __future__ import annotations

import pytest

from kamisado.web.clocks import DAY_MS, ClockState, TimeControl, parse_control


def test_increment_is_added_after_each_move_and_only_the_running_side_loses_time() -> None:
    c = ClockState.start(TimeControl(180, 2)).begin("b", now=0)
    c = c.switch("g", now=5_000)  # Black took 5 s
    assert (c.left("b", now=10_000), c.left("g", now=10_000)) == (177_000, 175_000)
    c = c.switch("b", now=20_000)  # Gold took 15 s
    assert (c.b, c.g, c.running) == (177_000, 167_000, "b")
    c = c.stop(now=30_000)  # no increment for the move never made
    assert (c.b, c.g, c.running, c.deadline()) == (167_000, 167_000, None, None)


def test_a_flag_falls_at_the_deadline_with_no_message() -> None:
    c = ClockState.start(TimeControl(60, 0)).begin("b", now=1_000)
    assert c.deadline() == 61_000
    assert c.flagged(now=61_000) is None
    assert c.flagged(now=61_001) == "b"
    assert c.left("b", now=90_000) == 0  # never below zero


def test_a_restart_mid_move_keeps_the_time() -> None:
    """The state is stored as (left as of the last action, since): a server
    that stops and starts again works the same time out from it."""
    c = ClockState.start(TimeControl(300, 3)).begin("b", now=0).switch("g", now=4_000)
    stored = (c.b, c.g, c.running, c.since)
    # ... the server is down from 10 s to 70 s; a new process loads the row
    again = ClockState(TimeControl(300, 3), *stored)
    assert again.left("g", now=70_000) == c.left("g", now=70_000) == 300_000 - 66_000
    assert again.deadline() == c.deadline() == 4_000 + 300_000


def test_correspondence_gives_each_move_its_full_allowance() -> None:
    c = ClockState.start(TimeControl(days=2)).begin("b", now=0)
    c = c.switch("g", now=DAY_MS)  # Black used a day
    assert c.left("g", now=DAY_MS) == 2 * DAY_MS
    c = c.switch("b", now=DAY_MS + 10)
    assert c.left("b", now=DAY_MS + 10) == 2 * DAY_MS  # nothing banked, nothing lost
    assert c.deadline() == DAY_MS + 10 + 2 * DAY_MS


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"initial": 5, "increment": 0}, "initial time of 15 s to 3 h"),
        ({"initial": 60, "increment": -1}, "increment of 0 to 180 s"),
        ({"days": 4}, "1, 2, 3 or 7 days"),
        ({"days": True}, "whole number of days"),
        ({"initial": 60, "bonus": 2}, "initial and increment"),
        ([60, 2], "expected an object"),
    ],
)
def test_bad_controls_are_refused_clearly(given: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_control(given)


def test_the_frame_view_and_names() -> None:
    tc = parse_control({"initial": 600, "increment": 5})
    assert tc is not None and tc.name == "10+5"
    c = ClockState.start(tc).begin("g", now=0)
    assert c.view(now=1_500) == {
        "b": 600_000, "g": 598_500, "running": "g", "control": {"initial": 600.0, "increment": 5.0}
    }
