"""What a tournament plays: players, time controls, openings, its configuration, its schedule.

Players are built-in levels (``level:club``) or any external engine command
(``cmd:python my_engine.py``), optionally named (``Bob=cmd:./bob``) and
followed by their options (``option.Hash=64``): :func:`parse_players`.
Time controls (``--tc 10+0.1``, ``40/60+0.5``, ``1m+100ms``) are read by :func:`parse_tc`,
openings (KPN lines, a match record or a folder of them) by
:func:`load_openings`.  A :class:`Config` holds everything that decides which
games are played and how (it is kept in ``state.json``), and :func:`schedule`
lists the games in playing order.  :mod:`kamisado.protocol.tournament` plays
them; ``kamisado tournament`` (:mod:`kamisado.protocol.tournament_cli`) reads
them from its command line.
"""

from __future__ import annotations

import math
import random
import re
import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from kamisado.args import DURATION_UNITS, read_duration
from kamisado.engine.levels import LEVELS, SEED_MAX
from kamisado.engine.limits import Limit
from kamisado.rules.board import KamisadoError
from kamisado.rules.match import PLAYING, Match
from kamisado.rules.position import Position
from kamisado.rules.record import TITLE, Record, load, read, start_kpn

__all__ = [
    "ADJUDICATE_MAX_MS",
    "DEFAULT_MARGIN",
    "DEFAULT_TC",
    "FORMATS",
    "OPENINGS_ORDERS",
    "SWISS_PAIRING_STEPS",
    "MATCH_TYPES",
    "OPTION_PREFIX",
    "Config",
    "Standing",
    "Game",
    "PlayerSpec",
    "TimeControl",
    "load_openings",
    "opening_match",
    "parse_match_type",
    "parse_player",
    "parse_players",
    "parse_tc",
    "cut_opening",
    "game_openings",
    "schedule",
    "standings",
    "swiss_bye",
    "swiss_games_per_round",
    "swiss_pairs",
    "swiss_round",
    "swiss_rounds",
]

#: Match types by name; ``series:N`` is a series of single rounds to N wins.
MATCH_TYPES = {"single": 1, "standard": 3, "long": 7, "marathon": 15}
#: The time control when no limit at all is given (KEI engines always get one).
DEFAULT_TC = "60+1"
#: Milliseconds an answer may come after its time (process and pipe overhead).
DEFAULT_MARGIN = 100
#: The prefix of a per-engine option after a player (``option.Hash=64``).
OPTION_PREFIX = "option."
#: The pairings: every player meets every other, the first meets each
#: other one, or Swiss rounds (players with like scores meet).
FORMATS = ("roundrobin", "gauntlet", "swiss")
#: The orders openings are played in (``--openings-order``).
OPENINGS_ORDERS = ("sequential", "random")
#: The most milliseconds ``--adjudicate-proven`` may give the solver before a move
#: (a stop ends a solve in progress at once).
ADJUDICATE_MAX_MS = 10000


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
_TIME = rf"{_NUMBER}\s*(?:{'|'.join(DURATION_UNITS)})?"
_TC_RE = re.compile(rf"(?:(\d+)/)?({_TIME})(?:\+({_TIME}))?")
_TC_FORM = (
    "expected BASE+INC in seconds (10+0.1) or MOVES/BASE+INC (40/60+0.5), each time a"
    " bare number of seconds or with a unit (1m+100ms)"
)


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


def _tc_ms(part: str) -> int:
    """One time of a ``--tc`` in whole milliseconds: bare seconds (read as
    before units came: ``float(part) * 1000``, rounded) or with a unit."""
    if part[-1].isalpha():
        return round(read_duration(part, "ms"))
    return round(float(part) * 1000)


def parse_tc(text: str) -> TimeControl:
    """``BASE+INC`` or ``MOVES/BASE+INC`` (``+INC`` may be left out), each
    time in seconds or with a unit (:func:`kamisado.args.read_duration`:
    ``500ms``, ``2s``, ``1m``), rounded to whole milliseconds.

    >>> parse_tc("40/60"), parse_tc("0.5+.05")
    (TimeControl(base=60000, inc=0, moves=40), TimeControl(base=500, inc=50, moves=None))
    >>> parse_tc("1m+100ms") == parse_tc("60+0.1"), str(parse_tc("40/2m+1s"))
    (True, '40/120+1')
    >>> parse_tc("10+-1")
    Traceback (most recent call last):
    ...
    ValueError: --tc: expected BASE+INC in seconds (10+0.1) or MOVES/BASE+INC (40/60+0.5), each time a bare number of seconds or with a unit (1m+100ms), found '10+-1'
    >>> parse_tc("0+1")
    Traceback (most recent call last):
    ...
    ValueError: --tc '0+1': the base time must be at least 1 ms
    """
    m = _TC_RE.fullmatch(text.strip())
    if m is None:
        raise ValueError(f"--tc: {_TC_FORM}, found {text!r}")
    moves, base, inc = m.group(1), m.group(2), m.group(3)
    tc = TimeControl(
        _tc_ms(base),
        _tc_ms(inc or "0"),
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
    openings_order: str = "sequential"
    """``sequential`` (the file's order) or ``random`` (shuffled by the seed)."""
    openings_start: int = 1
    """The opening the first pairing's games start with (from 1); the list wraps around."""
    openings_plies: int | None = None
    """At most this many of each opening's moves are played (``None``: all)."""
    rounds: int | None = None
    """The rounds of a Swiss tournament (``None``: :func:`swiss_rounds` of the players)."""
    sprt: str | None = None
    """``elo0=E0 elo1=E1 alpha=A beta=B`` (:class:`kamisado.protocol.elo.SPRT`): stop once decided."""
    adjudicate_proven: int | None = None
    """Milliseconds the solver has before each move to prove the round (a deciding one)."""
    resign_score: int | None = None
    """With ``resign_moves``: both engines' scores at least this far apart from 0 ..."""
    resign_moves: int | None = None
    """... for this many moves of each, and the losing side resigns."""

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
        if self.format not in FORMATS:
            raise ValueError(f"expected {', '.join(FORMATS)}, found {self.format!r}")
        if self.games < 1:
            raise ValueError(f"--games: expected at least 1, found {self.games}")
        if self.rounds is not None:
            if self.format != "swiss":
                raise ValueError("--rounds is for a Swiss tournament (--swiss)")
            if self.rounds < 1:
                raise ValueError(f"--rounds: expected at least 1, found {self.rounds}")
        if self.format == "swiss" and len(self.players) < 3:
            raise ValueError(
                "a Swiss tournament needs at least three players (two play a match: leave"
                " out --swiss)"
            )
        if self.sprt is not None:
            from kamisado.protocol.elo import SPRT

            SPRT.parse(self.sprt)
            if len(self.players) != 2:
                raise ValueError(
                    f"--sprt tests one engine against another: expected two players,"
                    f" found {len(self.players)}"
                )
        if self.adjudicate_proven is not None and not (
            1 <= self.adjudicate_proven <= ADJUDICATE_MAX_MS
        ):
            raise ValueError(
                f"--adjudicate-proven: expected 1..{ADJUDICATE_MAX_MS} milliseconds,"
                f" found {self.adjudicate_proven}"
            )
        if (self.resign_score is None) != (self.resign_moves is None):
            raise ValueError("--resign-score and --resign-moves go together: give both")
        if self.resign_score is not None and self.resign_score < 1:
            raise ValueError(f"--resign-score: expected at least 1, found {self.resign_score}")
        if self.resign_moves is not None and self.resign_moves < 1:
            raise ValueError(f"--resign-moves: expected at least 1, found {self.resign_moves}")
        if self.openings_order not in OPENINGS_ORDERS:
            raise ValueError(
                f"--openings-order: expected {' or '.join(OPENINGS_ORDERS)},"
                f" found {self.openings_order!r}"
            )
        if self.openings_start < 1 or (
            self.openings and self.openings_start > len(self.openings)
        ):
            raise ValueError(
                f"--openings-start: expected 1..{max(len(self.openings), 1)} (the openings"
                f" in the file), found {self.openings_start}"
            )
        if self.openings_plies is not None and self.openings_plies < 0:
            raise ValueError(f"--openings-plies: expected 0 or more, found {self.openings_plies}")
        if not self.openings and (
            self.openings_order != "sequential"
            or self.openings_start != 1
            or self.openings_plies is not None
        ):
            raise ValueError(
                "--openings-order, --openings-start and --openings-plies need --openings"
            )
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
                opening_match(cut_opening(opening, self.openings_plies), target, series)
            if self.games % 2:
                raise ValueError(
                    f"--games: with --openings each opening is played with both colours,"
                    f" so expected an even number, found {self.games}"
                )


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


def cut_opening(opening: str, plies: int | None) -> str:
    """``opening`` with at most ``plies`` of its moves (``None``: all of them).

    >>> cut_opening("obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0 moves c1-c5 b8-b3", 1)
    'obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0 moves c1-c5'
    >>> cut_opening("obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0 moves c1-c5", 0)
    'obupyrgn/8/8/8/8/8/8/NGRYPUBO b - 1 0 0'
    """
    if plies is None:
        return opening
    kpn, _, moves = opening.partition(" moves ")
    kept = moves.split()[:plies]
    return kpn.strip() + (f" moves {' '.join(kept)}" if kept else "")


def game_openings(config: Config) -> list[str]:
    """The openings in the order games use them: shuffled by the seed with
    ``--openings-order random``, starting at ``--openings-start`` (the list
    wraps around), each cut to ``--openings-plies``.

    >>> c = Config([parse_player("level:beginner"), parse_player("level:novice")],
    ...            openings=["a", "b", "c"], openings_start=2)
    >>> game_openings(c)
    ['b', 'c', 'a']
    """
    openings = list(config.openings)
    if config.openings_order == "random":
        random.Random(f"openings {config.seed}").shuffle(openings)
    k = config.openings_start - 1
    openings = openings[k:] + openings[:k]
    return [cut_opening(o, config.openings_plies) for o in openings]


def _pairing_games(
    config: Config, pairs: Sequence[tuple[str, str]], first: int, seeds: Callable[[], int]
) -> list[Game]:
    """The games of ``pairs`` (each ``config.games`` times, colours alternating), numbered from ``first``."""
    openings = game_openings(config)
    games: list[Game] = []
    for k in range(config.games):
        opening = openings[(k // 2) % len(openings)] if openings else None
        for a, b in pairs:
            black, gold = (a, b) if k % 2 == 0 else (b, a)
            games.append(Game(first + len(games), black, gold, seeds(), opening))
    return games


def schedule(config: Config) -> list[Game]:
    """Every game of the tournament, in playing order (a Swiss one's first round).

    Pairings take turns, so a stopped tournament is still balanced; within a
    pairing the colours alternate, and with openings the games ``2k`` and
    ``2k+1`` of a pairing share opening ``k`` (cycling through the list).
    A Swiss tournament's later rounds depend on the results:
    :func:`swiss_round`.

    >>> c = Config([parse_player("level:beginner"), parse_player("level:novice")], games=2, seed=5)
    >>> [(g.number, g.black, g.gold) for g in schedule(c)]
    [(1, 'beginner', 'novice'), (2, 'novice', 'beginner')]
    """
    names = [p.name for p in config.players]
    if config.format == "swiss":
        return swiss_round(config, 1, [])
    if config.format == "gauntlet":
        pairs = [(names[0], other) for other in names[1:]]
    else:
        pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    rng = random.Random(config.seed)
    return _pairing_games(config, pairs, 1, lambda: rng.randrange(SEED_MAX))


# -- Swiss -------------------------------------------------------------------------


def swiss_rounds(config: Config) -> int:
    """The rounds of a Swiss tournament: ``--rounds``, else ``ceil(log2(players))``.

    >>> names = ["a", "b", "c", "d", "e"]
    >>> swiss_rounds(Config([parse_player(f"{n}=level:beginner") for n in names], format="swiss"))
    3
    """
    if config.rounds is not None:
        return config.rounds
    return max(1, math.ceil(math.log2(len(config.players))))


def swiss_games_per_round(config: Config) -> int:
    """The games of each Swiss round: a pairing for every two players, ``--games`` each."""
    return len(config.players) // 2 * config.games


@dataclass
class Standing:
    """A player's place in a Swiss tournament: points (games won, byes), opponents met, byes."""

    name: str
    points: float = 0.0
    met: set[str] = field(default_factory=set)
    byes: int = 0


def standings(config: Config, results: Sequence[tuple[str, str, float]], byes: Sequence[str] = ()) -> list[Standing]:
    """Every player's standing from ``(black, gold, score of black)`` results, best first.

    A bye counts as the pairing's games all won.  Ties keep the players' order.

    >>> c = Config([parse_player(f"{n}=level:beginner") for n in "abc"], format="swiss")
    >>> [(s.name, s.points) for s in standings(c, [("b", "a", 1.0), ("a", "b", 0.0)], ["c"])]
    [('b', 2.0), ('c', 2.0), ('a', 0.0)]
    """
    table = {p.name: Standing(p.name) for p in config.players}
    for black, gold, score in results:
        table[black].points += score
        table[gold].points += 1.0 - score
        table[black].met.add(gold)
        table[gold].met.add(black)
    for name in byes:
        table[name].points += config.games
        table[name].byes += 1
    order = {p.name: i for i, p in enumerate(config.players)}
    return sorted(table.values(), key=lambda s: (-s.points, order[s.name]))


#: The most steps the search for a Swiss round without rematches may take
#: before it allows them (the search backtracks, and may find none).
SWISS_PAIRING_STEPS = 100_000


def _pair(
    players: list[Standing], rematch: bool, steps: list[int] | None = None
) -> list[tuple[str, str]] | None:
    """Pair ``players`` top down, each with the best-placed one it has not met (backtracking).

    ``None`` when no such pairing exists or :data:`SWISS_PAIRING_STEPS` ran out.
    """
    if steps is None:
        steps = [SWISS_PAIRING_STEPS]
    if not players:
        return []
    first, rest = players[0], players[1:]
    for i, other in enumerate(rest):
        if not rematch and other.name in first.met:
            continue
        steps[0] -= 1
        if steps[0] < 0:
            return None
        tail = _pair(rest[:i] + rest[i + 1 :], rematch, steps)
        if tail is not None:
            return [(first.name, other.name), *tail]
    return None


def swiss_pairs(table: list[Standing]) -> tuple[list[tuple[str, str]], str | None]:
    """A Swiss round's pairs (the better placed first) and the player with a bye.

    With an odd number of players the lowest placed one with the fewest byes
    sits out.  Players with like points meet (the standings' order, top
    down), never twice while that can be helped.

    >>> t = [Standing("a", 2, {"b"}), Standing("b", 2, {"a"}), Standing("c"), Standing("d")]
    >>> swiss_pairs(t)
    ([('a', 'c'), ('b', 'd')], None)
    """
    players = list(table)
    bye = None
    if len(players) % 2:
        fewest = min(s.byes for s in players)
        out = next(s for s in reversed(players) if s.byes == fewest)
        players.remove(out)
        bye = out.name
    pairs = _pair(players, rematch=False) or _pair(players, rematch=True) or []
    return pairs, bye


def swiss_round(
    config: Config, number: int, results: Sequence[tuple[str, str, float]], byes: Sequence[str] = ()
) -> list[Game]:
    """Round ``number`` (from 1) of a Swiss tournament, paired from the earlier rounds' results.

    Its games are numbered after the earlier rounds' (each round has
    :func:`swiss_games_per_round` games) and seeded from the seed and their
    number, so the same results pair and seed the same round again.
    """
    pairs, _ = swiss_pairs(standings(config, results, byes))
    first = (number - 1) * swiss_games_per_round(config) + 1
    counter = iter(range(first, first + len(pairs) * config.games))

    def seed() -> int:
        return random.Random(f"swiss {config.seed} {next(counter)}").randrange(SEED_MAX)

    return _pairing_games(config, pairs, first, seed)


def swiss_bye(config: Config, results: Sequence[tuple[str, str, float]], byes: Sequence[str] = ()) -> str | None:
    """The player who sits out the round paired from these results (``None``: even players)."""
    return swiss_pairs(standings(config, results, byes))[1]
