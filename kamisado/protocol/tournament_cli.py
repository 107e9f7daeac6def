"""Tournaments between KEI engines, with Elo ratings (``kamisado tournament``).

Players are built-in levels (``level:club``) or any external engine command
(``cmd:python my_engine.py``), optionally named (``Bob=cmd:./bob``) and
followed by their options (``option.Hash=64``).  Every engine, built-in ones
included, runs as its own KEI subprocess (:mod:`kamisado.protocol.kei`), driven
by :mod:`kamisado.protocol.client` and kept from one game to the next
(``--restart auto|on|off``: by default a new one only after a crash, a timeout
or a protocol error), so a crash, a hang, an illegal move or a flag fall loses
that game and harms nothing else.  Ctrl-C or SIGTERM stops the run at once.

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

This module is the command line; the settings are read by
:mod:`kamisado.protocol.tournament_config`, the games are played by
:class:`kamisado.protocol.tournament.Tournament`, and the results and files
are :mod:`kamisado.protocol.tournament_results`.

::

    $ kamisado tournament level:beginner level:novice --games 4 --tc 2+0.05 --seed 1 --out runs/t1
    tournament: beginner, novice; roundrobin, 4 game(s) a pairing, 4 games, ...
    game 1/4: beginner (Black) - novice (Gold) 0-1, goal, 0-1 in 1 round(s), 8 moves, ...
    ...
      # player     elo    +/-  games  score     %  los%  novice  beginner
      1 novice    +223    288      4    4.0 100.0  93.6       .     4.0/4
      2 beginner  -223    288      4    0.0   0.0     -   0.0/4         .
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import random
import shlex
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from kamisado.args import take_early_signals
from kamisado.engine.levels import LEVELS, SEED_MAX
from kamisado.protocol.elo import elo_table
from kamisado.protocol.tournament import STOP_WITHIN, Tournament
from kamisado.protocol.tournament_config import (
    ADJUDICATE_MAX_MS,
    DEFAULT_MARGIN,
    DEFAULT_TC,
    OPENINGS_ORDERS,
    Config,
    load_openings,
    parse_players,
    swiss_rounds,
)
from kamisado.protocol.tournament_engines import (
    DEFAULT_TIMEOUT,
    RESTARTS,
    BrokenPlayerError,
    OptionsError,
)
from kamisado.protocol.tournament_results import (
    DEBUG_FILE,
    ELO_CHART,
    STATE_FILE,
    _atomic_write,
)

__all__ = ["main"]


async def _run_stoppable(tournament: Tournament, signals: _Signals) -> None:
    """Run; Ctrl-C (SIGINT) and SIGTERM stop the tournament (:meth:`Tournament.request_stop`).

    The stop has a deadline: :data:`~kamisado.protocol.tournament.STOP_WITHIN`
    seconds after it, whatever still runs is abandoned (every engine's
    process group killed again, their pipes no longer waited for).
    """
    loop = asyncio.get_running_loop()
    asked = loop.create_future()

    def stop() -> None:
        tournament.request_stop()
        if not asked.done():
            asked.set_result(None)

    signals.target = (loop, stop)
    signals.tournament = tournament
    run = asyncio.ensure_future(tournament.run())
    if signals.came:  # came while the loop started
        stop()
    try:
        await asyncio.wait([run, asked], return_when=asyncio.FIRST_COMPLETED)
        if not run.done():
            await asyncio.wait([run], timeout=STOP_WITHIN)
        if not run.done():
            tournament.abandon()
            run.cancel()
            await asyncio.wait([run], timeout=STOP_WITHIN / 4)
        if run.done() and not run.cancelled():
            run.result()  # its error, if any
    finally:
        signals.target = None
        if not run.done():
            run.cancel()


def _run_loop(tournament: Tournament, signals: _Signals) -> None:
    """:func:`asyncio.run` of :func:`_run_stoppable`, except that the tasks
    left after a stop are given a quarter of :data:`STOP_WITHIN` to end, not
    waited for without end (one may wait on a pipe that no one closes)."""
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(_run_stoppable(tournament, signals))
    finally:
        try:
            left = asyncio.all_tasks(loop)
            for task in left:
                task.cancel()
            if left:
                loop.run_until_complete(asyncio.wait(left, timeout=STOP_WITHIN / 4))
            loop.run_until_complete(loop.shutdown_asyncgens())
            # the adjudicator's solver thread (--adjudicate-proven) is stopped
            # with the run (Tournament.request_stop); waited for as asyncio.run does
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            loop.close()


class _Signals:
    """SIGINT and SIGTERM, from the command's start to the last line printed, stop the run.

    Each is noted in ``came`` (with those :func:`kamisado.args.note_early_signals` noted
    before the tournament's modules were loaded); while a tournament runs
    (``target`` is its loop and :meth:`Tournament.request_stop`) the first
    also stops it, through the loop.  A second one ends the command at once,
    with status 130: every engine's process group is killed (the finished
    games are kept: ``state.json`` is always written whole).  A plain
    handler, not ``loop.add_signal_handler``: that one is taken away when
    the loop closes, and a signal then would end the command with a
    traceback.  Outside the main thread it does nothing.
    """

    NUMBERS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.came: list[int] = []
        self.old: dict[int, Any] = {}
        self.target: tuple[asyncio.AbstractEventLoop, Callable[[], None]] | None = None
        #: The tournament whose engines a second signal kills.
        self.tournament: Tournament | None = None

    def _note(self, number: int, frame: object) -> None:
        self.came.append(number)
        if len(self.came) > 1:
            self._end_now()
        if self.target is not None:
            loop, stop = self.target
            with contextlib.suppress(RuntimeError):  # the loop just closed
                loop.call_soon_threadsafe(stop)

    def _end_now(self) -> None:
        """The second signal: kill the engines and exit 130 now."""
        if self.tournament is not None:
            self.tournament.kill_engines()
        with contextlib.suppress(OSError):
            os.write(2, b"kamisado tournament: stopped at once (a second signal); the"
                        b" finished games are kept: go on with --resume\n")
        os._exit(130)

    def install(self) -> None:
        """Note the signals from now on (and those noted since the command started)."""
        if threading.current_thread() is not threading.main_thread():
            return
        for number in self.NUMBERS:
            self.old[number] = signal.signal(number, self._note)
        self.came += take_early_signals()
        if len(self.came) > 1:
            self._end_now()

    def restore(self) -> None:
        """Put back the handlers :meth:`install` found."""
        for number, handler in self.old.items():
            signal.signal(number, handler)
        self.old.clear()


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


def _join_sprt(argv: Sequence[str]) -> list[str]:
    """``--sprt``'s settings as one word, given as one (quoted) or as several.

    cutechess-cli's form, ``--sprt elo0=0 elo1=5 alpha=0.05 beta=0.05``, has
    them as separate words: the ``KEY=VALUE`` words after ``--sprt`` are its
    (a player, ``NAME=level:..`` or ``NAME=cmd:..``, and a player's
    ``option.NAME=VALUE`` are not), so that a misspelt key is reported by
    ``--sprt`` itself.

    >>> _join_sprt(["a", "--sprt", "elo0=0", "elo1=5", "alpha=0.05", "b", "-j", "2"])
    ['a', '--sprt', 'elo0=0 elo1=5 alpha=0.05', 'b', '-j', '2']
    >>> _join_sprt(["--sprt", "elo0=0 elo1=5", "beta=0.1", "X=level:club"])
    ['--sprt', 'elo0=0 elo1=5 beta=0.1', 'X=level:club']
    >>> _join_sprt(["--sprt=elo0=0", "elo1=5"])
    ['--sprt', 'elo0=0 elo1=5']
    """
    words = list(argv)
    out: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word == "--":
            out += words[i - 1 :]
            break
        if word != "--sprt" and not word.startswith("--sprt="):
            out.append(word)
            continue
        parts = [word.partition("=")[2]] if "=" in word else []
        if not parts and i < len(words) and not words[i].startswith("-"):
            parts.append(words[i])  # the first: whatever it is (a quoted whole)
            i += 1
        while i < len(words) and _sprt_word(words[i]):
            parts.append(words[i])
            i += 1
        out += ["--sprt", " ".join(parts)] if parts else [word]
    return out


def _sprt_word(word: str) -> bool:
    """Whether ``word`` is one of ``--sprt``'s ``KEY=VALUE`` settings (see :func:`_join_sprt`)."""
    key, sep, value = word.partition("=")
    return bool(
        sep and key and not key.startswith(("-", "option."))
        and not value.startswith(("level:", "cmd:"))
    )


def main(argv: Sequence[str] | None = None) -> int:
    """``kamisado tournament``: see ``--help``."""
    from kamisado.args import Parser, duration, duration_help, int_between

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
    pairing = p.add_mutually_exclusive_group()
    pairing.add_argument(
        "--gauntlet", action="store_true", help="the first player meets each other one"
    )
    pairing.add_argument(
        "--swiss", action="store_true",
        help="Swiss rounds: players with like scores meet, never twice while that can be"
        " helped (default: round robin)",
    )
    p.add_argument(
        "--rounds", type=int, metavar="N",
        help="the rounds of a Swiss tournament (default: log2 of the players, rounded up)",
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
        help="clocks, e.g. 10+0.1, 1m+100ms or 40/60+0.5; each time in"
        f" {duration_help('s')} (default {DEFAULT_TC} when no --movetime, --depth or"
        " --nodes)",
    )
    p.add_argument("--movetime", type=duration("ms", -math.inf, whole=True),
                   metavar="TIME", help=f"time per move (go movetime), in {duration_help('ms')}")
    p.add_argument("--depth", type=int, help="search depth per move (go depth)")
    p.add_argument("--nodes", type=int, help="nodes per move (go nodes)")
    p.add_argument(
        "--margin", type=duration("ms", -math.inf, whole=True), metavar="TIME",
        help=f"how late an answer may be before it loses on time, in {duration_help('ms')}"
        f" (default {DEFAULT_MARGIN} ms)",
    )
    p.add_argument("--timeout", type=duration("s"), metavar="TIME",
                   help="how long an engine may take to answer what has no time limit, in"
                   f" {duration_help('s')} (default {DEFAULT_TIMEOUT:g} s)")
    p.add_argument(
        "--openings", metavar="FILE",
        help="KPN lines (KPN [moves ...]), a match record or a folder of records;"
        " each opening is played with both colours",
    )
    p.add_argument(
        "--openings-order", choices=OPENINGS_ORDERS,
        help="sequential (default: the file's order) or random (shuffled by the seed)",
    )
    p.add_argument(
        "--openings-start", type=int, metavar="N",
        help="begin with the Nth opening (from 1; the list wraps around)",
    )
    p.add_argument(
        "--openings-plies", type=int, metavar="N",
        help="play at most N of each opening's moves",
    )
    p.add_argument(
        "--sprt", metavar="elo0=E0 elo1=E1 [alpha=A beta=B]",
        help="two players: stop once the test accepts H0 (the first player is at most E0"
        " stronger) or H1 (at least E1); alpha and beta default to 0.05; as separate"
        " words (cutechess-cli's form) or one quoted",
    )
    p.add_argument(
        "--rating-interval", type=int_between(0, 1_000_000), default=0, metavar="N",
        help="print the table every N games (default 0: at the end only)",
    )
    p.add_argument(
        "--adjudicate-proven", type=duration("ms", 1, ADJUDICATE_MAX_MS, whole=True),
        metavar="TIME",
        help="before each move, give the solver this long: a proven round that decides the"
        f" match ends the game (adjudication); in {duration_help('ms')}"
        f" (1ms..{ADJUDICATE_MAX_MS // 1000}s)",
    )
    p.add_argument(
        "--resign-score", type=int_between(1, 1_000_000), metavar="N",
        help="with --resign-moves: a game ends (adjudication) when one engine's score was"
        " -N or lower and the other's +N or higher for M moves each",
    )
    p.add_argument("--resign-moves", type=int_between(1, 10_000), metavar="M",
                   help="see --resign-score")
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
    p.add_argument(
        "--restart", choices=RESTARTS, default="auto",
        help="when engines are started afresh: auto (default) only after a crash, a"
        " timeout or a protocol error; on: before every game; off: only when dead",
    )
    args = p.parse_args(_join_sprt(sys.argv[1:] if argv is None else argv))
    signals = _Signals()
    signals.install()
    try:
        return _run(args, signals)
    finally:
        signals.restore()


def _run(args: argparse.Namespace, signals: _Signals) -> int:
    """The command after its arguments were read (SIGINT and SIGTERM noted by ``signals``)."""
    out = Path(args.out)
    seconds: dict[int, float] = {}
    try:
        if args.resume:
            config, saved = Tournament.read_state(out)
            finished = sorted(saved)
            seconds = {n: float(v.get("seconds") or 0.0) for n, v in saved.items()}
            fixed = ["games", "match", "tc", "movetime", "depth", "nodes", "margin",
                     "timeout", "openings", "seed", "rounds", "openings_order",
                     "openings_start", "openings_plies", "sprt", "adjudicate_proven",
                     "resign_score", "resign_moves"]
            given = [f"--{k.replace('_', '-')}" for k in fixed if getattr(args, k) is not None]
            given += [f"--{k}" for k in ("gauntlet", "swiss") if getattr(args, k)]
            if args.players or given:
                raise ValueError(
                    "--resume goes on with the saved players and settings; give only --out,"
                    " --concurrency, --anchor, --engine-log, --debug, --forfeit-broken,"
                    " --restart or --rating-interval"
                    f" (found: {' '.join([*args.players, *given])})"
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
                format="gauntlet" if args.gauntlet else "swiss" if args.swiss else "roundrobin",
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
                openings_order=args.openings_order or "sequential",
                openings_start=1 if args.openings_start is None else args.openings_start,
                openings_plies=args.openings_plies,
                rounds=args.rounds,
                sprt=args.sprt,
                adjudicate_proven=args.adjudicate_proven,
                resign_score=args.resign_score,
                resign_moves=args.resign_moves,
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
    header_shown = False

    def header() -> None:
        # printed once the first game's engines have started (or a game is
        # over, or the run stopped): when nothing can run, standard output
        # stays empty
        nonlocal header_shown
        if header_shown:
            return
        header_shown = True
        say(
            f"tournament: {', '.join(pl.name for pl in config.players)}; {config.format},"
            + (f" {swiss_rounds(config)} rounds," if config.format == "swiss" else "")
            + f" {config.games} game(s) a pairing, {tournament.total} games,"
            f" match {config.match}, {config.describe()}"
            + _openings_words(config)
            + (f", sprt {tournament.sprt}" if tournament.sprt is not None else "")
            + (
                f", adjudicate proven {config.adjudicate_proven} ms"
                if config.adjudicate_proven is not None
                else ""
            )
            + (
                f", resign {config.resign_score} for {config.resign_moves} move(s)"
                if config.resign_score is not None
                else ""
            )
            + f", seed {config.seed}, out {out}"
            + (f"; resuming with {done} finished" if args.resume else "")
        )

    def say(line: str) -> None:
        if progress is not None:
            progress.clear()
        _print(line)
        if progress is not None and progress.live:
            progress.draw()

    def log(line: str) -> None:
        header()
        say(line)

    log_file = open(args.engine_log, "a", encoding="utf-8") if args.engine_log else None  # noqa: SIM115
    debug_file = None
    if args.debug:
        out.mkdir(parents=True, exist_ok=True)
        debug_file = open(out / DEBUG_FILE, "a", encoding="utf-8")  # noqa: SIM115
    tournament = Tournament(
        config,
        out,
        args.concurrency,
        say,  # until the finished games are read back: then ``log``
        log_file,
        args.forfeit_broken,
        debug=debug_file,
        progress=progress.update if progress is not None else None,
        restart=args.restart,
        on_start=header,
        rating_interval=args.rating_interval,
        anchor=args.anchor,
    )
    signals.tournament = tournament  # a second signal kills its engines
    tournament.load_finished(finished, seconds)
    done = len(tournament.results)
    tournament.log = log
    if done == tournament.total or tournament.sprt_decided():
        header()  # nothing left to play: the table follows
    started = time.monotonic()
    status = 0
    stopped = bool(signals.came)
    try:
        if not stopped:
            _run_loop(tournament, signals)
            stopped = tournament.stopped
    except OptionsError as e:
        print(f"kamisado tournament: {e}", file=sys.stderr)
        return 2
    except BrokenPlayerError as e:
        if progress is not None:
            progress.clear()
        print(
            f"kamisado tournament: {e}\nstopped after {len(tournament.results)} of"
            f" {tournament.total} games; fix the player (or add --forfeit-broken"
            " to go on without it), then: kamisado tournament --resume --out"
            f" {shlex.quote(str(out))}",
            file=sys.stderr,
            flush=True,
        )
        status = 1
        if not header_shown:  # nothing could run: nothing on standard output
            return status
    finally:
        if progress is not None:
            progress.clear()
        for f in (log_file, debug_file):
            if f is not None:
                f.close()
    if stopped:
        status = 130
        if not (out / STATE_FILE).exists():  # stopped before the run began
            out.mkdir(parents=True, exist_ok=True)
            tournament.save_state()
        header()
        say(
            f"stopped after {len(tournament.results)} of {tournament.total} games;"
            f" go on with: kamisado tournament --resume --out {shlex.quote(str(out))}"
        )
    header()
    played = len(tournament.results) - done
    spent = time.monotonic() - started
    if played:
        _print(f"{played} game(s) played in {spent:.1f} s")
    broken = tournament.broken()
    if broken:
        _print(f"not rated (could not start): {', '.join(sorted(broken))}")
    _print("")
    _print(tournament.table(args.anchor))
    if tournament.sprt is not None:
        _print("")
        _print(tournament.sprt_line())
    if out.is_dir():  # the same ratings as a chart: OUT/elo.svg
        from kamisado.pictures.graph import elo_svg

        rated = [pl.name for pl in config.players if pl.name not in broken]
        ratings = elo_table(tournament.results_list(), anchor=args.anchor, players=rated)
        try:
            _atomic_write(out / ELO_CHART, elo_svg(ratings, title=f"Elo: {out.name}") + "\n")
        except OSError as e:
            print(f"kamisado tournament: cannot write {out / ELO_CHART}: {e}", file=sys.stderr)
    return status


def _openings_words(config: Config) -> str:
    """The header's words on the openings (empty without ``--openings``)."""
    if not config.openings:
        return ""
    how = [
        f"{config.openings_order} order",
        *([f"from opening {config.openings_start}"] if config.openings_start != 1 else []),
        *(
            [f"{config.openings_plies} plies at most"]
            if config.openings_plies is not None
            else []
        ),
    ]
    return (
        f", {len(config.openings)} opening(s) from {config.openings_from}"
        + (f" ({', '.join(how)})" if len(how) > 1 or config.openings_order != "sequential" else "")
    )


def _print(line: str) -> None:
    print(line, flush=True)
