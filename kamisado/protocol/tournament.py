"""Tournaments between KEI engines, with Elo ratings (``kamisado tournament``).

Players are built-in levels (``level:club``) or any external engine command
(``cmd:python my_engine.py``), optionally named (``Bob=cmd:./bob``) and
followed by their options (``option.Hash=64``).  Every engine, built-in ones
included, runs as its own KEI subprocess (:mod:`kamisado.protocol.kei`), started
afresh for every game and driven by :mod:`kamisado.protocol.client`, so a crash, a
hang, an illegal move or a flag fall loses that game and harms nothing else.

A round robin pairs every player with every other; a gauntlet pairs the
first player with each of the others.  Each pairing plays ``--games`` games
with colours alternating (with ``--openings``, each opening once with each
colour).  Every move is asked with limits, never a bare ``go``: clocks
(``--tc 10+0.1``: ``go btime .. gtime .. binc .. ginc ..``), ``--movetime``,
``--depth`` or ``--nodes``; an answer later than the clock (or the movetime)
plus ``--margin`` loses on time.  Every game has its own seed (given to each
engine as its ``Seed`` option when it has one) and is written as a match
record (:mod:`kamisado.rules.record`, with how it ended) into the output
directory, with ``state.json`` listing the finished games and
``results.tsv`` one line per game.  ``--resume`` reads the finished games
back from their records and plays only the rest.  At the end (or on Ctrl-C)
a cross table with Elo ratings and 95% error bars (:mod:`kamisado.protocol.elo`) is
printed.  ``docs/tournament.md`` has the whole story.

::

    $ kamisado tournament level:beginner level:novice --games 4 --tc 2+0.05 --seed 1 --out runs/t1
    tournament: beginner, novice; roundrobin, 4 game(s) a pairing, 4 games, ...
    game 1/4: beginner (Black) - novice (Gold) 0-1, goal, 0-1 in 1 round(s), 8 moves, ...
    ...
      # player     elo    +/-  games  score     %  novice  beginner
      1 novice    +223    288      4    4.0 100.0       .     4.0/4
      2 beginner  -223    288      4    0.0   0.0   0.0/4         .
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import json
import os
import random
import re
import shlex
import signal
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

from kamisado.engine.levels import LEVELS, SEED_MAX
from kamisado.engine.limits import Limit
from kamisado.protocol.client import (
    Clock,
    EngineError,
    EngineTerminatedError,
    EngineTimeoutError,
    KeiEngine,
)
from kamisado.protocol.elo import elo_table, format_table
from kamisado.rules.board import SIDE_NAMES, KamisadoError
from kamisado.rules.match import FILL, OVER, PLAYING, Match
from kamisado.rules.position import Position
from kamisado.rules.record import TITLE, GameEnd, Record, load, read, start_kpn, write

__all__ = [
    "DEFAULT_MARGIN",
    "DEFAULT_TC",
    "HANDSHAKE_TIMEOUT",
    "MATCH_TYPES",
    "RESULTS_COLUMNS",
    "BrokenPlayerError",
    "Config",
    "Game",
    "GameResult",
    "PlayerSpec",
    "TimeControl",
    "Tournament",
    "load_openings",
    "main",
    "opening_match",
    "parse_match_type",
    "parse_player",
    "parse_players",
    "parse_tc",
    "schedule",
]

STATE_FILE = "state.json"
STATE_VERSION = 1
RESULTS_FILE = "results.tsv"
#: The Elo chart written at the end of a run (:func:`kamisado.pictures.graph.elo_svg`).
ELO_CHART = "elo.svg"
DEBUG_FILE = "debug.log"
#: The columns of ``results.tsv`` (its first line), one line per finished game.
RESULTS_COLUMNS = (
    "game", "black", "gold", "winner", "score", "reason", "detail", "moves",
    "rounds", "points", "seconds", "seed", "opening", "file",
)
#: Match types by name; ``series:N`` is a series of single rounds to N wins.
MATCH_TYPES = {"single": 1, "standard": 3, "long": 7, "marathon": 15}
#: The time control when no limit at all is given (KEI engines always get one).
DEFAULT_TC = "60+1"
#: Milliseconds an answer may come after its time (process and pipe overhead).
DEFAULT_MARGIN = 100
#: Seconds an engine has to start and finish the handshake (``kei`` .. ``keiok``).
HANDSHAKE_TIMEOUT = 20.0
#: Seconds to wait for answers without a time limit of their own, unless ``--timeout``.
DEFAULT_TIMEOUT = 60.0
#: The prefix of a per-engine option after a player (``option.Hash=64``).
OPTION_PREFIX = "option."


# -- players -------------------------------------------------------------------


@dataclass(frozen=True)
class PlayerSpec:
    """A player: its name, the command that starts its engine and its options."""

    name: str
    spec: str
    """As given: ``level:NAME`` or ``cmd:COMMAND`` (without the ``NAME=`` prefix)."""
    options: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    """``(NAME, VALUE)`` pairs sent as ``setoption`` after the handshake, in order."""

    def command(self) -> list[str]:
        """The engine's command line."""
        kind, _, rest = self.spec.partition(":")
        if kind == "level":
            # -P: the current folder cannot shadow the package (one holding a
            # ``kamisado`` folder, like the home folder of a clone)
            return [sys.executable, "-P", "-m", "kamisado.protocol.kei", "--level", rest]
        return shlex.split(rest)

    def option_words(self) -> list[str]:
        """The options as given on the command line (``option.NAME=VALUE``)."""
        return [f"{OPTION_PREFIX}{k}={v}" for k, v in self.options]


def parse_player(text: str) -> PlayerSpec:
    """Read ``[NAME=]level:LEVEL`` or ``[NAME=]cmd:COMMAND``.

    >>> parse_player("level:club")
    PlayerSpec(name='club', spec='level:club')
    >>> parse_player("Bob=cmd:python bob.py --fast")
    PlayerSpec(name='Bob', spec='cmd:python bob.py --fast')
    >>> parse_player("cmd:./engines/alpha -q").name
    'alpha'
    >>> parse_player("level:grandmaster")
    Traceback (most recent call last):
    ...
    ValueError: player 'level:grandmaster': expected a level (beginner, novice, casual, club, strong, expert, perfect), found 'grandmaster'
    """
    name = ""
    spec = text.strip()
    head, sep, tail = spec.partition("=")
    if sep and not head.startswith(("level:", "cmd:")):
        name, spec = head.strip(), tail.strip()
        if not name:
            raise ValueError(f"player {text!r}: the name before '=' is empty")
    kind, sep, rest = spec.partition(":")
    rest = rest.strip()
    if kind == "level" and sep:
        if rest not in LEVELS:
            raise ValueError(
                f"player {text!r}: expected a level ({', '.join(LEVELS)}), found {rest!r}"
            )
        return PlayerSpec(name or rest, f"level:{rest}")
    if kind == "cmd" and sep:
        try:
            argv = shlex.split(rest)
        except ValueError as e:
            raise ValueError(f"player {text!r}: {e}") from None
        if not argv:
            raise ValueError(
                f"player {text!r}: expected a command after 'cmd:', found nothing"
            )
        return PlayerSpec(name or _command_name(argv), f"cmd:{rest}")
    raise ValueError(
        f"player {text!r}: expected 'level:LEVEL' or 'cmd:COMMAND' (optionally 'NAME=' first)"
    )


def parse_players(words: Sequence[str]) -> list[PlayerSpec]:
    """Players, each followed by its options (``option.NAME=VALUE``).

    >>> ps = parse_players(["Bob=cmd:./bob", "option.Hash=64", "option.Style=wild", "level:club"])
    >>> [(p.name, p.options) for p in ps]
    [('Bob', (('Hash', '64'), ('Style', 'wild'))), ('club', ())]
    >>> parse_players(["option.Hash=64", "level:club"])
    Traceback (most recent call last):
    ...
    ValueError: 'option.Hash=64': an option follows the player it is for (PLAYER option.NAME=VALUE)
    """
    players: list[PlayerSpec] = []
    for word in words:
        if word.startswith(OPTION_PREFIX):
            name, sep, value = word[len(OPTION_PREFIX) :].partition("=")
            name, value = name.strip(), value.strip()
            if not players:
                raise ValueError(
                    f"{word!r}: an option follows the player it is for"
                    " (PLAYER option.NAME=VALUE)"
                )
            if not sep or not name or not value:
                raise ValueError(
                    f"{word!r}: expected option.NAME=VALUE (after player"
                    f" {players[-1].name!r})"
                )
            p = players[-1]
            if name.lower() in (k.lower() for k, _ in p.options):
                raise ValueError(f"player {p.name!r}: option {name!r} is given twice")
            players[-1] = PlayerSpec(p.name, p.spec, (*p.options, (name, value)))
        else:
            players.append(parse_player(word))
    return players


def _command_name(argv: list[str]) -> str:
    """A short name for a command: its script's or program's file name.

    >>> _command_name(["python3", "-u", "bots/alpha.py", "--fast"])
    'alpha'
    """
    scripts = [w for w in argv[1:] if not w.startswith("-") and ("/" in w or "." in w)]
    if Path(argv[0]).name.startswith("python") and scripts:
        return Path(scripts[0]).stem
    return Path(argv[0]).stem or argv[0]


def parse_match_type(text: str) -> tuple[int, bool]:
    """``single``, ``standard``, ``long``, ``marathon`` or ``series:N`` -> (target, series).

    >>> parse_match_type("standard"), parse_match_type("series:3")
    ((3, False), (3, True))
    """
    if text in MATCH_TYPES:
        return MATCH_TYPES[text], False
    kind, _, n = text.partition(":")
    if kind == "series" and n.isdigit() and int(n) >= 1:
        return int(n), True
    raise ValueError(
        f"expected a match type (single, standard, long, marathon or series:N), found {text!r}"
    )


# -- time controls -----------------------------------------------------------------

_NUMBER = r"(?:\d+(?:\.\d*)?|\.\d+)"
_TC_RE = re.compile(rf"(?:(\d+)/)?({_NUMBER})(?:\+({_NUMBER}))?")


@dataclass(frozen=True)
class TimeControl:
    """A clock for each player: ``base`` milliseconds, ``inc`` more after each
    move; with ``moves``, ``base`` more after every ``moves`` moves (a period).

    >>> parse_tc("10+0.1"), str(parse_tc("40/60+0.5"))
    (TimeControl(base=10000, inc=100, moves=None), '40/60+0.5')
    """

    base: int
    inc: int = 0
    moves: int | None = None

    def __str__(self) -> str:
        text = f"{_seconds(self.base)}+{_seconds(self.inc)}"
        return f"{self.moves}/{text}" if self.moves else text

    def movestogo(self, made: int) -> int | None:
        """Moves left in the current period after ``made`` moves (``None``: no periods)."""
        return None if self.moves is None else self.moves - made % self.moves


def _seconds(ms: int) -> str:
    return f"{ms / 1000:g}"


def parse_tc(text: str) -> TimeControl:
    """``BASE+INC`` or ``MOVES/BASE+INC``, in seconds (``+INC`` may be left out).

    >>> parse_tc("40/60"), parse_tc("0.5+.05")
    (TimeControl(base=60000, inc=0, moves=40), TimeControl(base=500, inc=50, moves=None))
    >>> parse_tc("10+-1")
    Traceback (most recent call last):
    ...
    ValueError: --tc: expected BASE+INC in seconds (10+0.1) or MOVES/BASE+INC (40/60+0.5), found '10+-1'
    >>> parse_tc("0+1")
    Traceback (most recent call last):
    ...
    ValueError: --tc '0+1': the base time must be at least 1 ms
    """
    m = _TC_RE.fullmatch(text.strip())
    if m is None:
        raise ValueError(
            "--tc: expected BASE+INC in seconds (10+0.1) or MOVES/BASE+INC (40/60+0.5),"
            f" found {text!r}"
        )
    moves, base, inc = m.group(1), m.group(2), m.group(3)
    tc = TimeControl(
        round(float(base) * 1000),
        round(float(inc or 0) * 1000),
        None if moves is None else int(moves),
    )
    if tc.base < 1:
        raise ValueError(f"--tc {text!r}: the base time must be at least 1 ms")
    if tc.moves is not None and tc.moves < 1:
        raise ValueError(f"--tc {text!r}: the moves of a period must be at least 1")
    return tc


# -- openings ---------------------------------------------------------------------


def opening_match(opening: str, target: int, series: bool) -> Match:
    """A match of the tournament's type started from ``opening`` (``KPN [moves ...]``).

    The opening's target is set to the match's (1 for a series) when its
    points are 0-0; its moves must leave the first round unfinished.

    >>> m = opening_match("obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0 moves c1-c5", 3, False)
    >>> m.target, m.position.kpn()
    (3, 'obupyrgn/8/8/2R5/8/8/8/NG1YPUBO g b 3 0 0')
    >>> opening_match("obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0 moves c1-c9", 1, False)
    Traceback (most recent call last):
    ...
    ValueError: opening 'obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0 moves c1-c9': ...
    """
    kpn, _, moves = opening.partition(" moves ")
    want = 1 if series else target
    try:
        pos = Position(kpn.strip())
        if pos.target != want:
            if any(pos.points):
                raise ValueError(
                    f"its target is {pos.target} with points {pos.points[0]}-{pos.points[1]};"
                    f" the match's is {want}"
                )
            fields = pos.kpn().split()
            fields[3] = str(want)
            pos = Position(" ".join(fields))
        match = Match(target, series=series, start=pos)
        for token in moves.split():
            if match.state != PLAYING:
                raise ValueError(f"the first round is over before {token!r}")
            match.push_move(token)
    except (KamisadoError, ValueError) as e:
        raise ValueError(f"opening {opening!r}: {e}") from None
    if match.state != PLAYING:
        raise ValueError(f"opening {opening!r}: it ends the round (nothing left to play)")
    return match


def _record_opening(rec: Record, where: str) -> str:
    rnd = rec.match.rounds[0]
    if rnd.outcome is not None:
        raise ValueError(
            f"{where}: a record used as an opening must stop during its first round"
            " (this one's first round is over)"
        )
    moves = " ".join(str(m) for m in rnd.moves)
    return start_kpn(rnd) + (f" moves {moves}" if moves else "")


def load_openings(path: str | Path) -> list[str]:
    """The openings in ``path``, each as ``KPN [moves MOVE...]``.

    ``path`` is a text file with one opening a line (a KPN, optionally
    followed by ``moves`` and moves; blank lines and ``#`` comments are
    skipped), a match record (its first round so far), or a folder of
    match records (``*.txt``, in name order).
    """
    p = Path(path)
    if p.is_dir():
        files = sorted(f for f in p.iterdir() if f.suffix == ".txt")
        if not files:
            raise ValueError(f"--openings {p}: the folder holds no records (*.txt)")
        out = []
        for f in files:
            try:
                out.append(_record_opening(load(f), str(f)))
            except (OSError, KamisadoError) as e:
                raise ValueError(f"--openings {f}: {e}") from None
        return out
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"--openings {p}: {e}") from None
    if text.lstrip().startswith(TITLE):
        try:
            return [_record_opening(read(text), str(p))]
        except KamisadoError as e:
            raise ValueError(f"--openings {p}: {e}") from None
    out = []
    for line in text.splitlines():
        line = " ".join(line.split("#", 1)[0].split())
        if line:
            out.append(line)
    if not out:
        raise ValueError(f"--openings {p}: no openings in it")
    return out


# -- configuration -------------------------------------------------------------------


@dataclass
class Config:
    """Everything that decides which games are played and how (kept in ``state.json``)."""

    players: list[PlayerSpec]
    format: str = "roundrobin"
    games: int = 2
    match: str = "single"
    movetime: int | None = None
    depth: int | None = None
    nodes: int | None = None
    seed: int = 0
    timeout: float | None = None
    tc: str | None = None
    margin: int = DEFAULT_MARGIN
    """Milliseconds an answer may come after its time before it loses on time."""
    openings: list[str] = field(default_factory=list)
    openings_from: str | None = None

    def limit(self) -> Limit:
        """The limits of every move besides the clocks (``--movetime``, ``--depth``, ``--nodes``)."""
        return Limit(
            time=None if self.movetime is None else self.movetime / 1000,
            depth=self.depth,
            nodes=self.nodes,
        )

    def time_control(self) -> TimeControl | None:
        """The clocks: ``--tc``, else :data:`DEFAULT_TC` when no limit at all is given."""
        if self.tc is not None:
            return parse_tc(self.tc)
        if self.movetime is None and self.depth is None and self.nodes is None:
            return parse_tc(DEFAULT_TC)
        return None

    def describe(self) -> str:
        """The limits in words (the records' ``Time control`` header)."""
        parts = []
        tc = self.time_control()
        if tc is not None:
            parts.append(f"tc {tc}" + (" (the default)" if self.tc is None else ""))
        if self.movetime:
            parts.append(f"movetime {self.movetime}")
        if self.depth:
            parts.append(f"depth {self.depth}")
        if self.nodes:
            parts.append(f"nodes {self.nodes}")
        if tc is not None or self.movetime:
            parts.append(f"margin {self.margin} ms")
        return ", ".join(parts)

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["players"] = [
            {"name": p.name, "spec": p.spec, "options": [list(o) for o in p.options]}
            for p in self.players
        ]
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Config:
        d = dict(d)
        d["players"] = [
            PlayerSpec(p["name"], p["spec"], tuple((k, v) for k, v in p.get("options", ())))
            for p in d["players"]
        ]
        return cls(**d)

    def check(self) -> None:
        """Refuse a configuration that cannot run."""
        names = [p.name for p in self.players]
        if len(names) < 2:
            raise ValueError("a tournament needs at least two players")
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(
                f"player names must differ; {', '.join(dupes)} appears twice"
                " (name them: NAME=level:LEVEL)"
            )
        if self.format not in ("roundrobin", "gauntlet"):
            raise ValueError(f"expected roundrobin or gauntlet, found {self.format!r}")
        if self.games < 1:
            raise ValueError(f"--games: expected at least 1, found {self.games}")
        target, series = parse_match_type(self.match)
        for key in ("movetime", "depth", "nodes"):
            value = getattr(self, key)
            if value is not None and value < 1:
                raise ValueError(f"--{key}: expected at least 1, found {value}")
        if self.tc is not None:
            parse_tc(self.tc)
            if self.movetime is not None:
                raise ValueError("--tc and --movetime: give one of them, not both")
        if self.margin < 0:
            raise ValueError(f"--margin: expected 0 or more milliseconds, found {self.margin}")
        if not 0 <= self.seed <= SEED_MAX:
            raise ValueError(f"--seed: expected 0..{SEED_MAX}, found {self.seed}")
        if self.openings:
            for opening in self.openings:
                opening_match(opening, target, series)
            if self.games % 2:
                raise ValueError(
                    f"--games: with --openings each opening is played with both colours,"
                    f" so expected an even number, found {self.games}"
                )


#: In a forfeit's detail: the player could not start (or finish the handshake).
NOT_STARTED = "could not start: "


class BrokenPlayerError(RuntimeError):
    """A player's engine could not start or finish the handshake (the run stops)."""

    def __init__(self, player: str, reason: str) -> None:
        super().__init__(f"player {player!r} {NOT_STARTED}{reason}")
        self.player = player


class OptionsError(ValueError):
    """A player's option is not one its engine declared, or its value does not fit."""


@dataclass(frozen=True)
class Game:
    """One scheduled game: its number (from 1), the two players, its seed, its opening."""

    number: int
    black: str
    gold: str
    seed: int
    opening: str | None = None

    @property
    def filename(self) -> str:
        """The record's file name in the output directory."""
        return f"game-{self.number:04d}.txt"


def schedule(config: Config) -> list[Game]:
    """Every game of the tournament, in playing order.

    Pairings take turns, so a stopped tournament is still balanced; within a
    pairing the colours alternate, and with openings the games ``2k`` and
    ``2k+1`` of a pairing share opening ``k`` (cycling through the list).

    >>> c = Config([parse_player("level:beginner"), parse_player("level:novice")], games=2, seed=5)
    >>> [(g.number, g.black, g.gold) for g in schedule(c)]
    [(1, 'beginner', 'novice'), (2, 'novice', 'beginner')]
    """
    names = [p.name for p in config.players]
    if config.format == "gauntlet":
        pairs = [(names[0], other) for other in names[1:]]
    else:
        pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    rng = random.Random(config.seed)
    games: list[Game] = []
    for k in range(config.games):
        opening = (
            config.openings[(k // 2) % len(config.openings)] if config.openings else None
        )
        for a, b in pairs:
            black, gold = (a, b) if k % 2 == 0 else (b, a)
            games.append(
                Game(len(games) + 1, black, gold, rng.randrange(SEED_MAX), opening)
            )
    return games


# -- results -------------------------------------------------------------------------


@dataclass
class GameResult:
    """A finished game: the score of Black (1 or 0) and how it ended."""

    game: Game
    black_score: float
    points: tuple[int, int]
    end: GameEnd
    seconds: float = 0.0
    moves: int = 0
    rounds: int = 0

    @property
    def forfeit(self) -> str | None:
        """``'Gold: detail'`` for an early end (``None`` for a goal or deadlock)."""
        if not self.end.early:
            return None
        return f"{SIDE_NAMES[1 - self.end.winner]}: {self.end.detail or self.end.reason}"

    @property
    def score(self) -> str:
        return {1.0: "1-0", 0.0: "0-1"}.get(self.black_score, "1/2-1/2")

    def summary(self, total: int) -> str:
        g = self.game
        e = self.end
        how = (
            f"{SIDE_NAMES[1 - e.winner]} loses by {e.reason}"
            + (f" ({e.detail})" if e.detail else "")
            if e.early
            else f"{e.reason}, {self.points[0]}-{self.points[1]} in {self.rounds} round(s),"
            f" {self.moves} moves"
        )
        return (
            f"game {g.number}/{total}: {g.black} (Black) - {g.gold} (Gold) {self.score},"
            f" {how}, {self.seconds:.1f} s, seed {g.seed}, {g.filename}"
        )

    def tsv_row(self) -> list[str]:
        """This game's line of ``results.tsv`` (see :data:`RESULTS_COLUMNS`)."""
        g = self.game
        winner = g.black if self.end.winner == 0 else g.gold
        return [
            str(g.number), g.black, g.gold, winner, self.score, self.end.reason,
            self.end.detail, str(self.moves), str(self.rounds),
            f"{self.points[0]}-{self.points[1]}", f"{self.seconds:.1f}", str(g.seed),
            g.opening or "", g.filename,
        ]


def result_of_record(game: Game, rec: Record) -> GameResult:
    """Read a finished game's result back from its record (``Forfeit:`` headers too)."""
    m = rec.match
    moves = sum(len(r.moves) for r in m.rounds)
    end = rec.end
    if end is None:
        raise KamisadoError(f"{game.filename}: the record has no result")
    if (rec.headers.get("Black"), rec.headers.get("Gold")) != (game.black, game.gold):
        raise KamisadoError(
            f"{game.filename}: the record's players are not {game.black} and {game.gold}"
        )
    score = 1.0 if end.winner == 0 else 0.0
    return GameResult(game, score, (m.points[0], m.points[1]), end, 0.0, moves, len(m.rounds))


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8", newline="\n")
    os.replace(tmp, path)


def _tsv_field(text: str) -> str:
    return " ".join(text.replace("\t", " ").split())


class _LostOnTime(Exception):
    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def _clock_text(seconds: float) -> str:
    seconds = max(seconds, 0.0)
    return f"{int(seconds // 60)}:{seconds % 60:04.1f}"


# -- the tournament ----------------------------------------------------------------------


class Tournament:
    """A tournament in an output directory: plays, records, resumes, rates."""

    def __init__(
        self,
        config: Config,
        out: Path,
        concurrency: int = 1,
        log: Callable[[str], None] = print,
        engine_stderr: TextIO | None = None,
        forfeit_broken: bool = False,
        debug: TextIO | None = None,
        progress: Callable[[int, str | None], None] | None = None,
    ) -> None:
        config.check()
        self.config = config
        self.out = out
        self.concurrency = max(1, concurrency)
        self.log = log
        self.players = {p.name: p for p in config.players}
        self.games = schedule(config)
        self.results: dict[int, GameResult] = {}
        self.engine_stderr = engine_stderr
        #: A player that cannot start forfeits its games (and is not rated)
        #: instead of stopping the run with :class:`BrokenPlayerError`.
        self.forfeit_broken = forfeit_broken
        #: Where every line to and from the engines goes (``--debug``).
        self.debug = debug
        #: ``progress(game, line)`` during a game, ``progress(game, None)`` after it.
        self.progress = progress

    # -- state ------------------------------------------------------------

    def save_state(self) -> None:
        """Write ``state.json`` (the configuration and the finished games) and ``results.tsv``."""
        state = {
            "version": STATE_VERSION,
            "config": self.config.to_json(),
            "finished": {
                str(n): {
                    "file": r.game.filename,
                    "black": r.game.black,
                    "gold": r.game.gold,
                    "seed": r.game.seed,
                    "black_score": r.black_score,
                    "reason": r.end.reason,
                    "detail": r.end.detail,
                    "forfeit": r.forfeit,
                    "seconds": r.seconds,  # unrounded: results.tsv reads the same after --resume
                }
                for n, r in sorted(self.results.items())
            },
        }
        _atomic_write(self.out / STATE_FILE, json.dumps(state, indent=2) + "\n")
        rows = ["\t".join(RESULTS_COLUMNS)] + [
            "\t".join(_tsv_field(f) for f in r.tsv_row())
            for _, r in sorted(self.results.items())
        ]
        _atomic_write(self.out / RESULTS_FILE, "\n".join(rows) + "\n")

    @staticmethod
    def read_config(out: Path) -> tuple[Config, list[int]]:
        """The configuration and the finished game numbers saved in ``out``."""
        config, finished = Tournament.read_state(out)
        return config, sorted(finished)

    @staticmethod
    def read_state(out: Path) -> tuple[Config, dict[int, dict[str, Any]]]:
        """The configuration and the finished games (by number) saved in ``out``."""
        path = out / STATE_FILE
        try:
            state = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ValueError(f"nothing to resume: {path} does not exist") from None
        except (OSError, json.JSONDecodeError) as e:
            raise ValueError(f"{path}: cannot read the tournament state: {e}") from None
        if state.get("version") != STATE_VERSION:
            raise ValueError(f"{path}: unknown state version {state.get('version')!r}")
        finished = {int(n): dict(v) for n, v in state["finished"].items()}
        return Config.from_json(state["config"]), finished

    def load_finished(
        self, numbers: Iterable[int], seconds: dict[int, float] | None = None
    ) -> None:
        """Read finished games back from their records (a missing or broken one is replayed)."""
        by_number = {g.number: g for g in self.games}
        for n in numbers:
            game = by_number.get(n)
            if game is None:
                continue
            path = self.out / game.filename
            try:
                result = result_of_record(game, load(path))
            except (OSError, KamisadoError) as e:
                self.log(f"game {n}: {e}; it will be played again")
                continue
            result.seconds = (seconds or {}).get(n, 0.0)
            self.results[n] = result

    # -- engines ---------------------------------------------------------------

    def _tracer(self, label: str) -> Callable[[str, str], None] | None:
        debug = self.debug
        if debug is None:
            return None

        def trace(direction: str, line: str) -> None:
            stamp = datetime.datetime.now().isoformat(timespec="milliseconds")
            debug.write(f"{stamp} {label} {direction} {line}\n")
            debug.flush()

        return trace

    async def _popen(self, name: str, label: str) -> KeiEngine:
        spec = self.players[name]
        return await KeiEngine.popen(
            spec.command(),
            timeout=self.config.timeout or DEFAULT_TIMEOUT,
            setup_timeout=HANDSHAKE_TIMEOUT,
            setpgrp=True,  # a Ctrl-C stops the tournament, which ends its engines
            stderr=self.engine_stderr
            if self.engine_stderr is not None
            else asyncio.subprocess.DEVNULL,
            trace=self._tracer(label),
        )

    async def _start(self, name: str, seed: int, label: str) -> KeiEngine:
        spec = self.players[name]
        engine = await self._popen(name, label)
        try:
            options: dict[str, object] = dict(spec.options)
            given = {k.lower() for k in options}
            option = {k.lower(): v for k, v in engine.options.items()}.get("seed")
            if option is not None and "seed" not in given:
                try:
                    value = option.check(seed)
                except ValueError:  # a seed the engine cannot take: its own default
                    value = None
                if value is not None:
                    options[option.name] = value
            strength = {k.lower(): v for k, v in engine.options.items()}.get("limitstrength")
            if spec.spec.startswith("level:") and strength is not None and (
                "limitstrength" not in given
            ):
                # a built-in level plays at its level, within the clocks
                options[strength.name] = "true"
            if options:
                try:
                    await engine.configure(options)
                except ValueError as e:
                    raise OptionsError(f"player {name!r}: {e}") from None
            await engine.newgame()
        except BaseException:
            await _close(engine)
            raise
        return engine

    async def check_options(self) -> None:
        """Start each player with options once and check them against its declared options.

        An option the engine did not declare, or a value that does not fit,
        raises :class:`OptionsError`; an engine that cannot start raises
        :class:`BrokenPlayerError` (nothing, with ``forfeit_broken``).
        """
        for spec in self.config.players:
            if not spec.options:
                continue
            try:
                engine = await self._popen(spec.name, f"check {spec.name}")
            except EngineError as e:
                if self.forfeit_broken:
                    continue
                raise BrokenPlayerError(spec.name, _one_line(str(e))) from e
            try:
                declared = {k.lower(): v for k, v in engine.options.items()}
                for key, value in spec.options:
                    option = declared.get(key.lower())
                    if option is None:
                        raise OptionsError(
                            f"player {spec.name!r}: its engine has no option {key!r}"
                            f" (it has: {', '.join(engine.options) or 'none'})"
                        )
                    try:
                        option.check(value)
                    except ValueError as e:
                        raise OptionsError(f"player {spec.name!r}: {e}") from None
            finally:
                await _close(engine)

    # -- playing ---------------------------------------------------------------

    def new_match(self, game: Game) -> Match:
        """The match a game starts from: the match type's start, or the game's opening."""
        target, series = parse_match_type(self.config.match)
        if game.opening:
            return opening_match(game.opening, target, series)
        return Match(target, series=series)

    async def play_game(self, game: Game) -> GameResult:
        """Play one game to the end (or an early end) and write its record."""
        match = self.new_match(game)
        config = self.config
        limit = config.limit()
        tc = config.time_control()
        margin = config.margin / 1000
        movetime = limit.time
        clocks = [tc.base / 1000, tc.base / 1000] if tc else None
        made = [0, 0]
        engines: list[KeiEngine | None] = [None, None]
        end: GameEnd | None = None
        loop = asyncio.get_running_loop()
        t0 = time.monotonic()
        side = 0
        timed = False  # whether the question in progress is under a clock or movetime
        allowed: float | None = None  # its seconds (clock or movetime), margin aside
        names = (game.black, game.gold)
        try:
            for side, name, seed in (
                (0, game.black, 2 * game.seed),
                (1, game.gold, 2 * game.seed + 1),
            ):
                label = f"game {game.number} {SIDE_NAMES[side]} {name}"
                try:
                    engines[side] = await self._start(name, seed % (SEED_MAX + 1), label)
                except EngineError as e:
                    if not self.forfeit_broken:
                        raise BrokenPlayerError(name, _one_line(str(e))) from e
                    reason = "crash" if isinstance(e, EngineTerminatedError) else "no answer"
                    end = GameEnd(1 - side, reason, _one_line(NOT_STARTED + str(e)))
                    break
            while end is None and match.state != OVER:
                if match.state == FILL:
                    side = match.current_winner()
                    engine = engines[side]
                    assert engine is not None
                    timed = clocks is not None
                    allowed = clocks[side] if clocks is not None else None
                    started = loop.time()
                    choice = await engine.fill(
                        match, timeout=config.timeout if allowed is None else allowed + margin
                    )
                    elapsed = loop.time() - started
                    if clocks is not None and allowed is not None:
                        self._charge(clocks, side, elapsed, margin, names[side], "fill")
                    match.choose_fill(choice)
                else:
                    side = match.position.turn
                    engine = engines[side]
                    assert engine is not None
                    clock = None
                    if clocks is not None and tc is not None:
                        clock = Clock(
                            round(clocks[0] * 1000),
                            round(clocks[1] * 1000),
                            tc.inc,
                            tc.inc,
                            tc.movestogo(made[side]),
                        )
                        allowed = clocks[side]
                    else:
                        allowed = movetime
                    timed = allowed is not None
                    started = loop.time()
                    answer = await engine.play(
                        match,
                        limit,
                        clock=clock,
                        timeout=config.timeout if allowed is None else allowed + margin,
                    )
                    elapsed = loop.time() - started
                    if clocks is not None and tc is not None:
                        self._charge(clocks, side, elapsed, margin, names[side], "move")
                        clocks[side] += tc.inc / 1000
                        made[side] += 1
                        if tc.moves and made[side] % tc.moves == 0:
                            clocks[side] += tc.base / 1000
                    elif movetime is not None and elapsed > movetime + margin:
                        raise _LostOnTime(
                            f"{names[side]} answered after {_ms(elapsed)}; movetime"
                            f" {_ms(movetime)} + margin {_ms(margin)}"
                        )
                    match.push_move(answer.move)
                self._show(game, match, clocks)
        except _LostOnTime as e:
            end = GameEnd(1 - side, "time", e.detail)
        except EngineTimeoutError as e:
            if timed:
                what = "on its clock" if clocks is not None else "of movetime"
                end = GameEnd(
                    1 - side,
                    "time",
                    f"{names[side]} did not answer within {_ms(allowed or 0)} {what}"
                    f" + margin {_ms(margin)}; it was killed",
                )
            else:
                end = GameEnd(1 - side, "no answer", _one_line(str(e)))
        except EngineTerminatedError as e:
            end = GameEnd(1 - side, "crash", _one_line(str(e)))
        except EngineError as e:
            end = GameEnd(1 - side, "illegal move", _one_line(str(e)))
        finally:
            if self.progress is not None:
                self.progress(game.number, None)
            for engine in engines:
                if engine is not None:
                    await _close(engine)
        extra = {
            "Event": f"kamisado tournament, {config.format}",
            "Game": str(game.number),
            "Seed": str(game.seed),
            "Time control": config.describe(),
            "Black engine": self.players[game.black].spec,
            "Gold engine": self.players[game.gold].spec,
        }
        for side_name, name in zip(SIDE_NAMES, names, strict=True):
            if self.players[name].options:
                extra[f"{side_name} options"] = " ".join(self.players[name].option_words())
        if game.opening:
            extra["Opening"] = game.opening
        rec = Record.new(
            match,
            black=game.black,
            gold=game.gold,
            date=datetime.date.today().isoformat(),
            end=end,
            **extra,
        )
        _atomic_write(self.out / game.filename, write(rec))
        result = result_of_record(game, rec)
        result.seconds = time.monotonic() - t0
        return result

    @staticmethod
    def _charge(
        clocks: list[float], side: int, elapsed: float, margin: float, name: str, what: str
    ) -> None:
        """Take ``elapsed`` off the clock: later than the clock plus the margin loses."""
        left = clocks[side] - elapsed
        if left < -margin:
            raise _LostOnTime(
                f"{name} answered its {what} after {_ms(elapsed)} with {_ms(clocks[side])}"
                f" on its clock + margin {_ms(margin)}"
            )
        clocks[side] = max(left, 0.0)

    def _show(self, game: Game, match: Match, clocks: list[float] | None) -> None:
        if self.progress is None:
            return
        moves = sum(len(r.moves) for r in match.rounds)
        text = f"game {game.number}: {moves} moves, {match.points[0]}-{match.points[1]}"
        if clocks is not None:
            text += f", {_clock_text(clocks[0])} {_clock_text(clocks[1])}"
        self.progress(game.number, text)

    async def run(self) -> None:
        """Play every game not finished yet, ``concurrency`` at a time."""
        await self.check_options()
        self.out.mkdir(parents=True, exist_ok=True)
        pending = [g for g in self.games if g.number not in self.results]
        self.save_state()
        queue: asyncio.Queue[Game] = asyncio.Queue()
        for g in pending:
            queue.put_nowait(g)
        total = len(self.games)

        async def worker() -> None:
            while True:
                try:
                    game = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                result = await self.play_game(game)
                self.results[game.number] = result
                self.save_state()
                self.log(result.summary(total))

        tasks = [
            asyncio.ensure_future(worker())
            for _ in range(min(self.concurrency, len(pending)) or 1)
        ]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        for task in tasks:
            if not task.cancelled() and task.exception() is not None:
                raise task.exception()  # type: ignore[misc]

    # -- ratings -------------------------------------------------------------------

    def broken(self) -> set[str]:
        """The players whose engine could not start in some game (never rated)."""
        names = set()
        for r in self.results.values():
            if r.end.early and r.end.detail.startswith(NOT_STARTED):
                names.add(r.game.black if r.end.winner == 1 else r.game.gold)
        return names

    def results_list(self) -> list[tuple[str, str, float]]:
        """``(black, gold, score of black)`` for every finished game between rated players."""
        broken = self.broken()
        return [
            (r.game.black, r.game.gold, r.black_score)
            for _, r in sorted(self.results.items())
            if r.game.black not in broken and r.game.gold not in broken
        ]

    def table(self, anchor: str | None = None) -> str:
        """The cross table with Elo ratings and 95% error bars."""
        broken = self.broken()
        return format_table(
            self.results_list(),
            anchor=anchor,
            players=[p.name for p in self.config.players if p.name not in broken],
        )


def _one_line(text: str) -> str:
    return " ".join(text.split())


async def _close(engine: KeiEngine) -> None:
    try:
        await engine.quit(timeout=2.0)
    except asyncio.CancelledError:
        engine.kill_group()
        raise


async def _run_cancellable(tournament: Tournament) -> None:
    """Run, turning SIGTERM into a cancellation (Ctrl-C already is one)."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    with contextlib.suppress(NotImplementedError, RuntimeError):  # not on Windows
        loop.add_signal_handler(signal.SIGTERM, task.cancel)
    try:
        await tournament.run()
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGTERM)


class _Progress:
    """One live line on a terminal for the games in progress (nothing elsewhere)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.live: dict[int, str] = {}
        self.shown = 0
        self.last = 0.0

    def update(self, game: int, text: str | None) -> None:
        if text is None:
            self.live.pop(game, None)
        else:
            self.live[game] = text
        now = time.monotonic()
        if text is None or now - self.last >= 0.1:
            self.last = now
            self.draw()

    def draw(self) -> None:
        width = 100
        with contextlib.suppress(OSError, ValueError):
            width = os.get_terminal_size(self.stream.fileno()).columns - 1
        line = " | ".join(self.live[g] for g in sorted(self.live))[:width]
        if not line:
            self.clear()
            return
        self.stream.write("\r" + line.ljust(self.shown))
        self.shown = len(line)
        self.stream.flush()

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * self.shown + "\r")
            self.shown = 0
            self.stream.flush()


def main(argv: Sequence[str] | None = None) -> int:
    """``kamisado tournament``: see ``--help``."""
    from kamisado.args import Parser, int_between, positive_number

    p = Parser(
        prog="kamisado tournament",
        description="Play a tournament between KEI engines and rate them (Elo, 95% error bars)."
        "  docs/tournament.md has the details.",
        epilog="Players: level:LEVEL (a built-in level: " + ", ".join(LEVELS) + ") or"
        " cmd:COMMAND (any KEI engine), optionally NAME=... first, each followed by its"
        " options (option.NAME=VALUE).  Example: kamisado tournament level:beginner"
        " level:novice --games 10 --tc 10+0.1 --out runs/t1",
    )
    p.add_argument(
        "players",
        nargs="*",
        metavar="PLAYER",
        help="level:LEVEL or cmd:COMMAND, then option.NAME=VALUE for it",
    )
    p.add_argument(
        "--out", "-o", required=True,
        help="output directory (records, state.json, results.tsv, elo.svg)",
    )
    p.add_argument(
        "--resume", action="store_true", help="go on with the tournament in --out"
    )
    p.add_argument(
        "--gauntlet", action="store_true", help="the first player meets each other one"
    )
    p.add_argument(
        "--games", type=int,
        help="games per pairing (default 2; with --openings twice their number)",
    )
    p.add_argument(
        "--match", help="single, standard, long, marathon or series:N (default single)"
    )
    p.add_argument(
        "--tc", metavar="[MOVES/]BASE+INC",
        help=f"clocks in seconds, e.g. 10+0.1 or 40/60+0.5 (default {DEFAULT_TC}"
        " when no --movetime, --depth or --nodes)",
    )
    p.add_argument("--movetime", type=int, help="milliseconds per move (go movetime)")
    p.add_argument("--depth", type=int, help="search depth per move (go depth)")
    p.add_argument("--nodes", type=int, help="nodes per move (go nodes)")
    p.add_argument(
        "--margin", type=int, metavar="MS",
        help=f"milliseconds an answer may be late before it loses on time"
        f" (default {DEFAULT_MARGIN})",
    )
    p.add_argument("--timeout", type=positive_number("seconds"),
                   help="seconds an engine may take to answer what has no time limit"
                   f" (default {DEFAULT_TIMEOUT:g})")
    p.add_argument(
        "--openings", metavar="FILE",
        help="KPN lines (KPN [moves ...]), a match record or a folder of records;"
        " each opening is played with both colours",
    )
    p.add_argument("--seed", type=int_between(0, SEED_MAX),
                   help="base seed (default: random, recorded)")
    p.add_argument("--concurrency", "-j", type=int, default=1, help="games at once")
    p.add_argument("--anchor", help="rate relative to this player (default: mean 0)")
    p.add_argument("--engine-log", help="append the engines' standard error to this file")
    p.add_argument(
        "--debug", action="store_true",
        help=f"log every line to and from the engines in OUT/{DEBUG_FILE}",
    )
    p.add_argument(
        "--forfeit-broken",
        action="store_true",
        help="a player that cannot start forfeits its games (unrated) instead of"
        " stopping the run",
    )
    args = p.parse_args(argv)
    out = Path(args.out)
    seconds: dict[int, float] = {}
    try:
        if args.resume:
            config, saved = Tournament.read_state(out)
            finished = sorted(saved)
            seconds = {n: float(v.get("seconds") or 0.0) for n, v in saved.items()}
            fixed = ["games", "match", "tc", "movetime", "depth", "nodes", "margin",
                     "timeout", "openings", "seed"]
            given = [f"--{k}" for k in fixed if getattr(args, k) is not None]
            if args.players or args.gauntlet or given:
                raise ValueError(
                    "--resume goes on with the saved players and settings; give only --out,"
                    " --concurrency, --anchor, --engine-log, --debug or --forfeit-broken"
                    f" (found: {' '.join([*args.players, *(['--gauntlet'] if args.gauntlet else []), *given])})"
                )
        else:
            if (out / STATE_FILE).exists():
                raise ValueError(
                    f"{out} already holds a tournament: add --resume to go on with it"
                )
            openings = load_openings(args.openings) if args.openings else []
            if args.games is not None:
                games = args.games
            else:
                games = 2 * len(openings) if openings else 2
            config = Config(
                players=parse_players(args.players),
                format="gauntlet" if args.gauntlet else "roundrobin",
                games=games,
                match=args.match or "single",
                movetime=args.movetime,
                depth=args.depth,
                nodes=args.nodes,
                seed=random.randrange(SEED_MAX) if args.seed is None else args.seed,
                timeout=args.timeout,
                tc=args.tc,
                margin=DEFAULT_MARGIN if args.margin is None else args.margin,
                openings=openings,
                openings_from=args.openings,
            )
            finished = []
        if args.concurrency < 1:
            raise ValueError(
                f"--concurrency: expected at least 1, found {args.concurrency}"
            )
        config.check()
        if args.anchor is not None and args.anchor not in [
            pl.name for pl in config.players
        ]:
            raise ValueError(f"--anchor {args.anchor!r} is not one of the players")
    except ValueError as e:
        print(f"kamisado tournament: {e}", file=sys.stderr)
        return 2
    progress = _Progress(sys.stderr) if sys.stderr.isatty() else None

    def say(line: str) -> None:
        if progress is not None:
            progress.clear()
        _print(line)
        if progress is not None and progress.live:
            progress.draw()

    log_file = open(args.engine_log, "a", encoding="utf-8") if args.engine_log else None  # noqa: SIM115
    debug_file = None
    if args.debug:
        out.mkdir(parents=True, exist_ok=True)
        debug_file = open(out / DEBUG_FILE, "a", encoding="utf-8")  # noqa: SIM115
    tournament = Tournament(
        config,
        out,
        args.concurrency,
        say,
        log_file,
        args.forfeit_broken,
        debug=debug_file,
        progress=progress.update if progress is not None else None,
    )
    tournament.load_finished(finished, seconds)
    done = len(tournament.results)
    _print(
        f"tournament: {', '.join(pl.name for pl in config.players)}; {config.format},"
        f" {config.games} game(s) a pairing, {len(tournament.games)} games, match {config.match},"
        f" {config.describe()}"
        + (f", {len(config.openings)} opening(s) from {config.openings_from}" if config.openings else "")
        + f", seed {config.seed}, out {out}"
        + (f"; resuming with {done} finished" if args.resume else "")
    )
    started = time.monotonic()
    status = 0
    try:
        asyncio.run(_run_cancellable(tournament))
    except OptionsError as e:
        print(f"kamisado tournament: {e}", file=sys.stderr)
        return 2
    except BrokenPlayerError as e:
        if progress is not None:
            progress.clear()
        print(
            f"kamisado tournament: {e}\nstopped after {len(tournament.results)} of"
            f" {len(tournament.games)} games; fix the player (or add --forfeit-broken"
            " to go on without it), then: kamisado tournament --resume --out"
            f" {shlex.quote(str(out))}",
            file=sys.stderr,
            flush=True,
        )
        status = 1
    except (KeyboardInterrupt, asyncio.CancelledError):
        status = 130
        say(
            f"stopped after {len(tournament.results)} of {len(tournament.games)} games;"
            f" go on with: kamisado tournament --resume --out {shlex.quote(str(out))}"
        )
    finally:
        if progress is not None:
            progress.clear()
        for f in (log_file, debug_file):
            if f is not None:
                f.close()
    played = len(tournament.results) - done
    spent = time.monotonic() - started
    if played:
        _print(f"{played} game(s) played in {spent:.1f} s")
    broken = tournament.broken()
    if broken:
        _print(f"not rated (could not start): {', '.join(sorted(broken))}")
    _print("")
    _print(tournament.table(args.anchor))
    if out.is_dir():  # the same ratings as a chart: OUT/elo.svg
        from kamisado.pictures.graph import elo_svg

        rated = [pl.name for pl in config.players if pl.name not in broken]
        ratings = elo_table(tournament.results_list(), anchor=args.anchor, players=rated)
        try:
            _atomic_write(out / ELO_CHART, elo_svg(ratings, title=f"Elo: {out.name}") + "\n")
        except OSError as e:
            print(f"kamisado tournament: cannot write {out / ELO_CHART}: {e}", file=sys.stderr)
    return status


def _print(line: str) -> None:
    print(line, flush=True)
