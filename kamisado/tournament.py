"""Tournaments between KEI engines, with Elo ratings (``kamisado tournament``).

Players are built-in levels (``level:club``) or any external engine command
(``cmd:python my_engine.py``), optionally named (``Bob=cmd:./bob``).  Every
engine, built-in ones included, runs as its own KEI subprocess
(:mod:`kamisado.protocol`) driven by :mod:`kamisado.client`, so a crash, a
hang or an illegal move loses that game by forfeit and harms nothing else.

A round robin pairs every player with every other; a gauntlet pairs the
first player with each of the others.  Each pairing plays ``--games`` games
with colours alternating; every game has its own seed (given to each engine
as its ``Seed`` option when it has one) and is written as a match record
(:mod:`kamisado.record`) into the output directory, with ``state.json``
listing the finished games.  ``--resume`` reads the finished games back from
their records and plays only the rest.  At the end (or on Ctrl-C) a cross
table with Elo ratings and 95% error bars (:mod:`kamisado.elo`) is printed.

::

    $ kamisado tournament level:beginner level:novice --games 4 --seed 1 --out runs/t1
    tournament: beginner, novice; roundrobin, 4 game(s) a pairing, 4 games, ...
    game 1/4: beginner (Black) - novice (Gold) 0-1, 0-1 in 1 round(s), 8 moves, ...
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
import shlex
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TextIO

from kamisado.client import EngineError, KeiEngine
from kamisado.core import SIDE_NAMES, KamisadoError
from kamisado.elo import format_table
from kamisado.limits import Limit
from kamisado.match import FILL, OVER, Match
from kamisado.players import LEVELS, SEED_MAX
from kamisado.record import Record, load, write

__all__ = [
    "MATCH_TYPES",
    "BrokenPlayerError",
    "Config",
    "Game",
    "GameResult",
    "PlayerSpec",
    "Tournament",
    "main",
    "parse_match_type",
    "parse_player",
    "schedule",
]

STATE_FILE = "state.json"
STATE_VERSION = 1
#: Match types by name; ``series:N`` is a series of single rounds to N wins.
MATCH_TYPES = {"single": 1, "standard": 3, "long": 7, "marathon": 15}


@dataclass(frozen=True)
class PlayerSpec:
    """A player: its name and the command that starts its engine."""

    name: str
    spec: str
    """As given: ``level:NAME`` or ``cmd:COMMAND`` (without the ``NAME=`` prefix)."""

    def command(self) -> list[str]:
        """The engine's command line."""
        kind, _, rest = self.spec.partition(":")
        if kind == "level":
            # -P: the current folder cannot shadow the package (one holding a
            # ``kamisado`` folder, like the home folder of a clone)
            return [sys.executable, "-P", "-m", "kamisado.protocol", "--level", rest]
        return shlex.split(rest)


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

    def limit(self) -> Limit:
        """The limit of every move (none: engines play at their own level)."""
        return Limit(
            time=None if self.movetime is None else self.movetime / 1000,
            depth=self.depth,
            nodes=self.nodes,
        )

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["players"] = [{"name": p.name, "spec": p.spec} for p in self.players]
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Config:
        d = dict(d)
        d["players"] = [PlayerSpec(p["name"], p["spec"]) for p in d["players"]]
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
        parse_match_type(self.match)
        for key in ("movetime", "depth", "nodes"):
            value = getattr(self, key)
            if value is not None and value < 1:
                raise ValueError(f"--{key}: expected at least 1, found {value}")
        if not 0 <= self.seed <= SEED_MAX:
            raise ValueError(f"--seed: expected 0..{SEED_MAX}, found {self.seed}")


#: In a forfeit's reason: the player could not start (or finish the handshake).
NOT_STARTED = "could not start: "


class BrokenPlayerError(RuntimeError):
    """A player's engine could not start or finish the handshake (the run stops)."""

    def __init__(self, player: str, reason: str) -> None:
        super().__init__(f"player {player!r} {NOT_STARTED}{reason}")
        self.player = player


@dataclass(frozen=True)
class Game:
    """One scheduled game: its number (from 1), the two players and its seed."""

    number: int
    black: str
    gold: str
    seed: int

    @property
    def filename(self) -> str:
        """The record's file name in the output directory."""
        return f"game-{self.number:04d}.txt"


def schedule(config: Config) -> list[Game]:
    """Every game of the tournament, in playing order.

    Pairings take turns, so a stopped tournament is still balanced; within a
    pairing the colours alternate.

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
        for a, b in pairs:
            black, gold = (a, b) if k % 2 == 0 else (b, a)
            games.append(Game(len(games) + 1, black, gold, rng.randrange(SEED_MAX)))
    return games


@dataclass
class GameResult:
    """A finished game: the score of Black (1, 0.5 or 0) and how it ended."""

    game: Game
    black_score: float
    points: tuple[int, int]
    forfeit: str | None = None
    """``'Black: reason'`` or ``'Gold: reason'`` when an engine failed."""
    seconds: float = 0.0
    moves: int = 0
    rounds: int = 0

    def summary(self, total: int) -> str:
        g = self.game
        score = {1.0: "1-0", 0.0: "0-1"}.get(self.black_score, "1/2-1/2")
        how = (
            f"forfeit ({self.forfeit})"
            if self.forfeit
            else f"{self.points[0]}-{self.points[1]} in {self.rounds} round(s), {self.moves} moves"
        )
        return (
            f"game {g.number}/{total}: {g.black} (Black) - {g.gold} (Gold) {score},"
            f" {how}, {self.seconds:.1f} s, seed {g.seed}, {g.filename}"
        )


def result_of_record(game: Game, rec: Record) -> GameResult:
    """Read a finished game's result back from its record."""
    m = rec.match
    moves = sum(len(r.moves) for r in m.rounds)
    forfeit = rec.headers.get("Forfeit")
    if m.state == OVER and m.winner is not None:
        score = 1.0 if m.winner == 0 else 0.0
    elif forfeit and forfeit.split(":", 1)[0] in SIDE_NAMES:
        score = 0.0 if forfeit.startswith(SIDE_NAMES[0]) else 1.0
    else:
        raise KamisadoError(f"{game.filename}: the record has no result")
    if (rec.headers.get("Black"), rec.headers.get("Gold")) != (game.black, game.gold):
        raise KamisadoError(
            f"{game.filename}: the record's players are not {game.black} and {game.gold}"
        )
    return GameResult(
        game, score, (m.points[0], m.points[1]), forfeit, 0.0, moves, len(m.rounds)
    )


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8", newline="\n")
    os.replace(tmp, path)


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

    # -- state ------------------------------------------------------------

    def save_state(self) -> None:
        """Write ``state.json``: the configuration and the finished games."""
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
                    "forfeit": r.forfeit,
                }
                for n, r in sorted(self.results.items())
            },
        }
        _atomic_write(self.out / STATE_FILE, json.dumps(state, indent=2) + "\n")

    @staticmethod
    def read_config(out: Path) -> tuple[Config, list[int]]:
        """The configuration and the finished game numbers saved in ``out``."""
        path = out / STATE_FILE
        try:
            state = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ValueError(f"nothing to resume: {path} does not exist") from None
        except (OSError, json.JSONDecodeError) as e:
            raise ValueError(f"{path}: cannot read the tournament state: {e}") from None
        if state.get("version") != STATE_VERSION:
            raise ValueError(f"{path}: unknown state version {state.get('version')!r}")
        return Config.from_json(state["config"]), [int(n) for n in state["finished"]]

    def load_finished(self, numbers: Sequence[int]) -> None:
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
            self.results[n] = result

    # -- playing ---------------------------------------------------------------

    async def _start(self, name: str, seed: int) -> KeiEngine:
        spec = self.players[name]
        engine = await KeiEngine.popen(
            spec.command(),
            timeout=self.config.timeout or 60.0,
            setpgrp=True,  # a Ctrl-C stops the tournament, which ends its engines
            stderr=self.engine_stderr
            if self.engine_stderr is not None
            else asyncio.subprocess.DEVNULL,
        )
        try:
            option = {k.lower(): v for k, v in engine.options.items()}.get("seed")
            if option is not None:
                try:
                    value = option.check(seed)
                except ValueError:  # a seed the engine cannot take: its own default
                    value = None
                if value is not None:
                    await engine.configure({option.name: value})
            await engine.newgame()
        except BaseException:
            await _close(engine)
            raise
        return engine

    async def play_game(self, game: Game) -> GameResult:
        """Play one game to the end (or a forfeit) and write its record."""
        target, series = parse_match_type(self.config.match)
        match = Match(target, series=series)
        limit = self.config.limit()
        timeout = self.config.timeout
        engines: list[KeiEngine | None] = [None, None]
        forfeit: str | None = None
        t0 = time.monotonic()
        side = 0
        try:
            for side, name, seed in (
                (0, game.black, 2 * game.seed),
                (1, game.gold, 2 * game.seed + 1),
            ):
                try:
                    engines[side] = await self._start(name, seed % (SEED_MAX + 1))
                except EngineError as e:
                    if not self.forfeit_broken:
                        raise BrokenPlayerError(name, _one_line(str(e))) from e
                    raise EngineError(NOT_STARTED + str(e)) from e
            while match.state != OVER:
                if match.state == FILL:
                    side = match.current_winner()
                    engine = engines[side]
                    assert engine is not None
                    match.choose_fill(await engine.fill(match, timeout=timeout))
                else:
                    side = match.position.turn
                    engine = engines[side]
                    assert engine is not None
                    answer = await engine.play(match, limit, timeout=timeout)
                    match.push_move(answer.move)
        except EngineError as e:
            forfeit = f"{SIDE_NAMES[side]}: {_one_line(str(e))}"
        finally:
            for engine in engines:
                if engine is not None:
                    await _close(engine)
        extra = {
            "Event": f"kamisado tournament, {self.config.format}",
            "Game": str(game.number),
            "Seed": str(game.seed),
            "Time control": self._time_control(),
            "Black engine": self.players[game.black].spec,
            "Gold engine": self.players[game.gold].spec,
        }
        if forfeit:
            extra["Forfeit"] = forfeit
        rec = Record.new(
            match,
            black=game.black,
            gold=game.gold,
            date=datetime.date.today().isoformat(),
            **extra,
        )
        _atomic_write(self.out / game.filename, write(rec))
        result = result_of_record(game, rec)
        result.seconds = time.monotonic() - t0
        return result

    def _time_control(self) -> str:
        c = self.config
        parts = []
        if c.movetime:
            parts.append(f"movetime {c.movetime}")
        if c.depth:
            parts.append(f"depth {c.depth}")
        if c.nodes:
            parts.append(f"nodes {c.nodes}")
        return " ".join(parts) or "each engine's own level"

    async def run(self) -> None:
        """Play every game not finished yet, ``concurrency`` at a time."""
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
            side, _, reason = (r.forfeit or "").partition(": ")
            if reason.startswith(NOT_STARTED) and side in SIDE_NAMES:
                names.add(r.game.black if side == SIDE_NAMES[0] else r.game.gold)
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


def main(argv: Sequence[str] | None = None) -> int:
    """``kamisado tournament``: see ``--help``."""
    from kamisado.cli import Parser, int_between, positive_number

    p = Parser(
        prog="kamisado tournament",
        description="Play a tournament between KEI engines and rate them (Elo, 95% error bars).",
        epilog="Players: level:LEVEL (a built-in level: " + ", ".join(LEVELS) + ") or"
        " cmd:COMMAND (any KEI engine), optionally NAME=... first.  Example:"
        " kamisado tournament level:beginner level:novice --games 10 --out runs/t1",
    )
    p.add_argument(
        "players", nargs="*", metavar="PLAYER", help="level:LEVEL or cmd:COMMAND"
    )
    p.add_argument(
        "--out", "-o", required=True, help="output directory (records, state.json)"
    )
    p.add_argument(
        "--resume", action="store_true", help="go on with the tournament in --out"
    )
    p.add_argument(
        "--gauntlet", action="store_true", help="the first player meets each other one"
    )
    p.add_argument("--games", type=int, help="games per pairing (default 2)")
    p.add_argument(
        "--match", help="single, standard, long, marathon or series:N (default single)"
    )
    p.add_argument("--movetime", type=int, help="milliseconds per move (go movetime)")
    p.add_argument("--depth", type=int, help="search depth per move (go depth)")
    p.add_argument("--nodes", type=int, help="nodes per move (go nodes)")
    p.add_argument("--timeout", type=positive_number("seconds"),
                   help="seconds an engine may take to answer")
    p.add_argument("--seed", type=int_between(0, SEED_MAX),
                   help="base seed (default: random, recorded)")
    p.add_argument("--concurrency", "-j", type=int, default=1, help="games at once")
    p.add_argument("--anchor", help="rate relative to this player (default: mean 0)")
    p.add_argument("--engine-log", help="append the engines' standard error to this file")
    p.add_argument(
        "--forfeit-broken",
        action="store_true",
        help="a player that cannot start forfeits its games (unrated) instead of"
        " stopping the run",
    )
    args = p.parse_args(argv)
    out = Path(args.out)
    try:
        if args.resume:
            config, finished = Tournament.read_config(out)
            fixed = ["games", "match", "movetime", "depth", "nodes", "timeout", "seed"]
            given = [f"--{k}" for k in fixed if getattr(args, k) is not None]
            if args.players or args.gauntlet or given:
                raise ValueError(
                    "--resume goes on with the saved players and settings; give only --out,"
                    f" --concurrency, --anchor, --engine-log or --forfeit-broken (found: "
                    f"{' '.join([*args.players, *(['--gauntlet'] if args.gauntlet else []), *given])})"
                )
        else:
            if (out / STATE_FILE).exists():
                raise ValueError(
                    f"{out} already holds a tournament: add --resume to go on with it"
                )
            config = Config(
                players=[parse_player(s) for s in args.players],
                format="gauntlet" if args.gauntlet else "roundrobin",
                games=2 if args.games is None else args.games,
                match=args.match or "single",
                movetime=args.movetime,
                depth=args.depth,
                nodes=args.nodes,
                seed=random.randrange(SEED_MAX) if args.seed is None else args.seed,
                timeout=args.timeout,
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
    log_file = open(args.engine_log, "a", encoding="utf-8") if args.engine_log else None  # noqa: SIM115
    tournament = Tournament(
        config, out, args.concurrency, _print, log_file, args.forfeit_broken
    )
    tournament.load_finished(finished)
    done = len(tournament.results)
    _print(
        f"tournament: {', '.join(pl.name for pl in config.players)}; {config.format},"
        f" {config.games} game(s) a pairing, {len(tournament.games)} games, match {config.match},"
        f" {tournament._time_control()}, seed {config.seed}, out {out}"
        + (f"; resuming with {done} finished" if args.resume else "")
    )
    started = time.monotonic()
    status = 0
    try:
        asyncio.run(_run_cancellable(tournament))
    except BrokenPlayerError as e:
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
        _print(
            f"stopped after {len(tournament.results)} of {len(tournament.games)} games;"
            f" go on with: kamisado tournament --resume --out {shlex.quote(str(out))}"
        )
    finally:
        if log_file is not None:
            log_file.close()
    played = len(tournament.results) - done
    spent = time.monotonic() - started
    if played:
        _print(f"{played} game(s) played in {spent:.1f} s")
    broken = tournament.broken()
    if broken:
        _print(f"not rated (could not start): {', '.join(sorted(broken))}")
    _print("")
    _print(tournament.table(args.anchor))
    return status


def _print(line: str) -> None:
    print(line, flush=True)
