"""Recurring tournaments: ``kamisado web --tournaments hourly`` or
``--tournaments FILE`` (docs/web-tournaments.md, "The schedule").

A schedule is lines of ``KIND EVERY CLOCK TARGET LENGTH [casual] [bots]
NAME``: ``KIND`` ``arena`` or ``swiss``; ``EVERY`` ``hourly`` (on the
hour), ``hourly@:MM`` or ``daily@HH:MM`` (UTC); ``CLOCK`` ``M+S`` (minutes
and an increment in seconds) or ``Nd`` (days a move); ``TARGET`` the
points of the match (1, 3, 7, 15); ``LENGTH`` ``Nm`` (an Arena's minutes)
or ``Nr`` (a Swiss's rounds); ``casual`` makes it unrated, ``bots`` lets
bots join; the rest of the line is its name.  ``#`` starts a comment.

Each process's pass loop makes the events starting within
:data:`AHEAD_MS` (each one once over every process: its ``schedule`` key,
the line and its start, is unique in the database).

>>> [e.name for e in HOURLY]
['Hourly 3+2 Arena', 'Daily Standard Swiss']
>>> [s for _, s in due(HOURLY[:1], now=3_600_000 * 10 + 120_000)]
[39600000]
>>> parse_schedule("arena weekly 3+2 1 30m X")
Traceback (most recent call last):
...
ValueError: line 1: EVERY: expected hourly, hourly@:MM or daily@HH:MM, found 'weekly'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kamisado.web.community.tournaments import TournamentError, new_event

__all__ = ["AHEAD_MS", "HOURLY", "Recurring", "due", "load_schedule", "parse_schedule"]

#: Events are made this long before they start (ms): listed as upcoming.
AHEAD_MS = 3_600_000
HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS

_EVERY = re.compile(r"hourly(?:@:(\d\d))?$|daily@(\d\d):(\d\d)$")
_CLOCK = re.compile(r"(\d+)\+(\d+)$|(\d+)d$")
_LENGTH = re.compile(r"(\d+)([mr])$")


@dataclass(frozen=True)
class Recurring:
    """One line of a schedule: an event made every ``period`` ms at ``offset`` ms into it."""

    line: str
    period: int
    offset: int
    body: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.body["name"])


def parse_schedule(text: str) -> list[Recurring]:
    """A schedule's lines (blank lines and ``#`` comments skipped); a
    :class:`ValueError` names the first bad line and what is wrong."""
    out = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        try:
            out.append(_parse_line(line, words))
        except (ValueError, TournamentError) as exc:
            raise ValueError(f"line {number}: {exc}") from None
    return out


def _parse_line(line: str, words: list[str]) -> Recurring:
    if len(words) < 6:
        raise ValueError("expected KIND EVERY CLOCK TARGET LENGTH [casual] [bots] NAME")
    kind, every, clock, target, length, *rest = words
    m = _EVERY.match(every)
    if m is None:
        raise ValueError(f"EVERY: expected hourly, hourly@:MM or daily@HH:MM, found {every!r}")
    if m.group(2) is not None:
        period, offset = DAY_MS, int(m.group(2)) * HOUR_MS + int(m.group(3)) * 60_000
    else:
        period, offset = HOUR_MS, int(m.group(1) or 0) * 60_000
    if offset >= period:
        raise ValueError(f"EVERY: no such time of {'day' if period == DAY_MS else 'hour'}: {every!r}")
    c = _CLOCK.match(clock)
    if c is None:
        raise ValueError(f"CLOCK: expected M+S or Nd, found {clock!r}")
    control = {"days": int(c.group(3))} if c.group(3) else {"initial": int(c.group(1)) * 60,
                                                             "increment": int(c.group(2))}
    n = _LENGTH.match(length)
    if n is None or not target.isdigit():
        raise ValueError(f"TARGET LENGTH: expected points and Nm or Nr, found {target!r} {length!r}")
    flags = {"rated": True, "bots": False}
    while rest and rest[0] in ("casual", "bots"):
        flags["rated" if rest[0] == "casual" else "bots"] = rest[0] == "bots"
        rest.pop(0)
    body = {"kind": kind, "name": " ".join(rest), "clock": control, "target": int(target),
            ("minutes" if n.group(2) == "m" else "rounds"): int(n.group(1)), "starts_in": 0, **flags}
    new_event(body, None, 0)  # checked now, not at the first event
    return Recurring(line, period, offset, body)


#: ``--tournaments hourly``: an hourly 3+2 Arena of 57 minutes and a
#: daily Swiss of Standard matches (3 points) at 10+5, 5 rounds, 18:00 UTC.
HOURLY = parse_schedule("""
arena hourly     3+2  1 57m Hourly 3+2 Arena
swiss daily@18:00 10+5 3 5r Daily Standard Swiss
""")


def load_schedule(spec: str) -> list[Recurring]:
    """``--tournaments``'s value: ``hourly`` or a schedule file's path."""
    if spec == "hourly":
        return list(HOURLY)
    return parse_schedule(Path(spec).read_text(encoding="utf-8"))


def due(schedule: list[Recurring], now: int) -> list[tuple[Recurring, int]]:
    """The events of ``schedule`` starting after ``now`` and within
    :data:`AHEAD_MS` of it: each line and a start (ms)."""
    out = []
    for item in schedule:
        start = (now - item.offset) // item.period * item.period + item.offset
        while start <= now + AHEAD_MS:
            if start > now:
                out.append((item, start))
            start += item.period
    return out


def event_rows(schedule: list[Recurring], now: int) -> list[dict[str, Any]]:
    """The rows of the events due (:func:`due`), each keyed for the database."""
    rows = []
    for item, start in due(schedule, now):
        row = new_event(item.body, None, start, schedule=f"{item.line[:60]}@{start}")
        rows.append({**row, "created": now})
    return rows
