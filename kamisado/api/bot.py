"""``kamisado bot``: a KEI engine online as a bot account (docs/bots.md).

The bot reads its event stream (:meth:`kamisado.api.client.Bots.stream_incoming_events`),
accepts the challenges its :class:`Filters` allow and declines the rest,
and plays each game in a thread of its own with an engine process of its
own: for each state where it is to act, ``position`` and ``go btime ...
gtime ... binc ... ginc ...`` from the game's clock (``fill`` for a fill),
then the answer over HTTP.  A dropped stream (the network, a server
restart) is opened again after a backoff: the server then sends the whole
state again, so games go on where they were.  The first SIGTERM (or
Ctrl-C) stops accepting and lets the games finish; a second resigns them
and ends the command (status 130).

Time is injected (``sleep``), so tests never wait for a backoff:

>>> Backoff(first=1.0, most=8.0).delays(6)
[1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
"""

from __future__ import annotations

import argparse
import contextlib
import math
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from types import FrameType
from typing import Any, Protocol, cast

from kamisado.api.client import ApiError, Client
from kamisado.api.types import Challenge, Event, GameEvent, GameState
from kamisado.args import Parser, die, duration, int_between, take_early_signals
from kamisado.engine.limits import Limit
from kamisado.protocol.client import Clock, EngineError, SimpleEngine
from kamisado.rules.board import KamisadoError
from kamisado.rules.match import Match

__all__ = ["Backoff", "Bot", "Filters", "main", "match_of", "parse_args"]

#: Seconds between the main thread's looks for a signal another thread took.
SIGNAL_POLL_S = 0.2
#: Exit status after a second stop (resigned), as ``kamisado tournament``'s.
STOPPED_AT_ONCE = 130
TARGETS = (1, 3, 7, 15)
MATCH_NAMES = {1: "Single", 3: "Standard", 7: "Long", 15: "Marathon"}


@dataclass
class Backoff:
    """Seconds to wait before reconnecting: doubling from ``first`` to
    ``most``, back to ``first`` once a stream works again."""

    first: float = 1.0
    most: float = 60.0
    _next: float = field(default=0.0, repr=False)

    def next(self) -> float:
        """The next wait (and double the one after)."""
        wait = self._next or self.first
        self._next = min(wait * 2, self.most)
        return wait

    def reset(self) -> None:
        """The connection works: the next wait is ``first`` again."""
        self._next = 0.0

    def delays(self, n: int) -> list[float]:
        """The next ``n`` waits (for the docs)."""
        return [self.next() for _ in range(n)]


@dataclass(frozen=True)
class Filters:
    """Which challenges the bot accepts; :meth:`refusal` says why not.

    >>> f = Filters(modes=frozenset({"casual"}), targets=frozenset({1, 3}), max_initial=300)
    >>> c = {"rated": False, "target": 3, "series": False, "clock": {"initial": 180, "increment": 2}}
    >>> f.refusal(c) is None
    True
    >>> f.refusal({**c, "rated": True})
    'rated games are not accepted (--accept casual)'
    >>> f.refusal({**c, "clock": {"initial": 600, "increment": 0}})
    'the clock 600+0 is outside --min-initial 0 --max-initial 300'
    """

    modes: frozenset[str] = frozenset({"casual", "rated"})
    targets: frozenset[int] = frozenset(TARGETS)
    series: bool = True
    min_initial: float = 0.0
    max_initial: float = math.inf
    max_increment: float = math.inf
    untimed: bool = True
    max_games: int = 1

    def refusal(self, challenge: Challenge | dict[str, Any]) -> str | None:
        """Why this bot declines ``challenge`` (``None``: it may accept)."""
        mode = "rated" if challenge.get("rated") else "casual"
        if mode not in self.modes:
            return f"{mode} games are not accepted (--accept {','.join(sorted(self.modes))})"
        target = challenge.get("target")
        if target not in self.targets:
            return f"matches to {target} are not accepted (--target {','.join(map(str, sorted(self.targets)))})"
        if challenge.get("series") and not self.series:
            return "series are not accepted (--no-series)"
        clock = challenge.get("clock")
        if not clock or "initial" not in clock:
            return None if self.untimed else "games without a clock are not accepted (--timed-only)"
        initial, increment = clock["initial"], clock.get("increment", 0)
        if not self.min_initial <= initial <= self.max_initial:
            return (f"the clock {initial:g}+{increment:g} is outside --min-initial {self.min_initial:g}"
                    f" --max-initial {self.max_initial:g}")
        if increment > self.max_increment:
            return f"the increment {increment:g} is above --max-increment {self.max_increment:g}"
        return None


class Engine(Protocol):
    """What the bot asks of an engine (:class:`SimpleEngine` does it)."""

    def newgame(self) -> None: ...
    def play(self, game: Match, limit: Limit | None = None, **kwargs: Any) -> Any: ...
    def fill(self, match: Match, **kwargs: Any) -> str: ...
    def quit(self) -> None: ...


def match_of(game: GameEvent, state: GameState) -> Match:
    """The match of a game's stream as the engine is told it: the round's
    start and its moves (so ``position kpn START moves ...``).

    >>> from kamisado.rules.match import start_kpn
    >>> m = match_of({"target": 3, "series": False}, {"start": start_kpn(3), "moves": ["c1-c5"]})
    >>> m.target, [str(x) for x in m.current.moves]
    (3, ['c1-c5'])
    """
    match = Match(game["target"], series=bool(game.get("series")), start=state["start"])
    for move in state["moves"]:
        match.push_move(move)
    return match


def clock_of(state: GameState) -> Clock | None:
    """The engine's clocks from a state (``None`` in an untimed game).

    >>> clock_of({"btime": 9500, "gtime": -3, "binc": 100, "ginc": None}).go_words()
    ['btime', '9500', 'gtime', '0', 'binc', '100', 'ginc', '0']
    """
    if state.get("btime") is None or state.get("gtime") is None:
        return None
    return Clock(max(0, int(state["btime"] or 0)), max(0, int(state["gtime"] or 0)),
                 max(0, int(state.get("binc") or 0)), max(0, int(state.get("ginc") or 0)))


def clock_text(clock: dict[str, Any] | None) -> str:
    """A challenge's or game's clock in words: ``180+2``, ``3 days``, ``untimed``."""
    if not clock:
        return "untimed"
    if "days" in clock:
        return f"{clock['days']} days"
    return f"{clock['initial']:g}+{clock.get('increment', 0):g}"


class Bot:
    """The bot: ``client`` speaks to the site, ``open_engine()`` starts one
    engine for a game, ``filters`` decides challenges, ``log`` takes each
    line the bot says and ``sleep`` waits between reconnections.

    :meth:`run` returns the exit status once the bot stopped; :meth:`stop`
    is what a SIGTERM does (see :meth:`install_signals`).
    """

    def __init__(self, client: Client, open_engine: Callable[[], Engine], filters: Filters | None = None,
                 *, log: Callable[[str], None] = print, sleep: Callable[[float], None] | None = None,
                 movetime_ms: int | None = None, backoff: Callable[[], Backoff] = Backoff) -> None:
        self.client = client
        self.open_engine = open_engine
        self.filters = filters or Filters()
        self.log = log
        self.movetime_ms = movetime_ms
        self._backoff = backoff
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._sleep = sleep or self._done.wait
        self.me: str | None = None
        self.games: dict[str, threading.Thread] = {}
        self.engines: dict[str, Engine] = {}
        self.stops = 0
        self.results: dict[str, dict[str, Any]] = {}

    def __repr__(self) -> str:
        return (f"<Bot {self.me or '?'} on {self.client.url}: {len(self.games)} games,"
                f" {'stopping' if self.stops else 'accepting'}>")

    @property
    def stopping(self) -> bool:
        """Whether a stop came: no challenge is accepted any more."""
        return self.stops > 0

    # -- the whole run ----------------------------------------------------------

    def run(self) -> int:
        """Play until stopped: 0 after the games finished, 130 after a second stop."""
        if self.me is None:
            self.me = str(self.client.account.get()["id"])
        events = threading.Thread(target=self._events, name="kamisado-bot-events", daemon=True)
        events.start()
        # a signal sent to the process may be taken by any of its threads; the
        # main thread runs the handler at its next instruction, so it must not
        # block for good (a bare wait here missed the second SIGTERM in 3 runs of 8)
        while not self._done.wait(SIGNAL_POLL_S):
            pass
        if self.stops > 1:
            self._resign_all()
            return STOPPED_AT_ONCE
        return 0

    def stop(self) -> None:
        """The first stop: accept nothing more, finish the games (and end once
        none is left); the second: end now, resigning them."""
        with self._lock:
            self.stops += 1
            left = len(self.games)
        if self.stops == 1:
            self.log(f"stopping: no new games; finishing {left} (a second stop resigns them)")
            if not left:
                self._done.set()
        else:
            self._done.set()

    def install_signals(self) -> Callable[[], None]:
        """Make SIGTERM and SIGINT call :meth:`stop` (a signal that came while
        the command started counts); answers how to put the old handlers back."""
        old = {n: signal.getsignal(n) for n in (signal.SIGTERM, signal.SIGINT)}

        def on_signal(number: int, frame: FrameType | None) -> None:
            self.stop()

        for number in old:
            signal.signal(number, on_signal)
        for _ in take_early_signals():
            self.stop()

        def restore() -> None:
            for number, handler in old.items():
                signal.signal(number, handler)

        return restore

    def _resign_all(self) -> None:
        with self._lock:
            games = list(self.games)
            engines = list(self.engines.values())
        for game_id in games:
            try:
                self.client.bots.resign_game(game_id)
                self.log(f"game {game_id}: resigned (a second stop)")
            except ApiError as e:
                self.log(f"game {game_id}: could not resign: {e}")
        for engine in engines:
            _quit(engine)

    # -- the event stream ---------------------------------------------------------

    def _events(self) -> None:
        backoff = self._backoff()
        while not self._done.is_set():
            try:
                events = self.client.bots.stream_incoming_events()
                self.log("the event stream is open: waiting for challenges")
                for event in events:
                    backoff.reset()
                    self.on_event(event)
                    if self._done.is_set():
                        return
                why = "the event stream ended"
            except ApiError as e:
                if not e.network and e.status in (401, 403):
                    self.log(f"the site refuses this bot: {e}")
                    with self._lock:
                        self.stops = max(self.stops, 1)
                        if not self.games:
                            self._done.set()
                    return
                why = f"the event stream broke: {e}"
            wait = backoff.next()
            self.log(f"{why}; reconnecting in {wait:g} s")
            self._sleep(wait)

    def on_event(self, event: Event) -> None:
        """Handle one line of the event stream."""
        kind = event.get("type")
        if kind == "challenge":
            self.on_challenge(event["challenge"])
        elif kind == "gameStart":
            self._start_game(str(event["game"]["id"]))

    def decide(self, challenge: Challenge) -> str | None:
        """Why ``challenge`` to this bot is declined now (``None``: accept it)."""
        if self.stopping:
            return "the bot is stopping"
        refusal = self.filters.refusal(challenge)
        if refusal is not None:
            return refusal
        with self._lock:
            playing = len(self.games)
        if playing >= self.filters.max_games:
            return f"already playing {playing} games (--max-games {self.filters.max_games})"
        return None

    def on_challenge(self, challenge: Challenge) -> None:
        """Accept or decline a challenge to this bot (others are left alone)."""
        if challenge.get("status") != "created" or challenge["destUser"]["id"] != self.me:
            return
        who = challenge["challenger"]["name"]
        refusal = self.decide(challenge)
        try:
            if refusal is not None:
                self.client.challenges.decline(challenge["id"])
                self.log(f"challenge {challenge['id']} from {who}: declined: {refusal}")
                return
            game_id = self.client.challenges.accept(challenge["id"])
        except ApiError as e:
            self.log(f"challenge {challenge['id']} from {who}: {e}")
            return
        self._start_game(game_id)

    # -- games ------------------------------------------------------------------

    def _start_game(self, game_id: str) -> None:
        with self._lock:
            if game_id in self.games or self._done.is_set():
                return
            thread = threading.Thread(target=self._game, args=(game_id,), name=f"kamisado-bot-{game_id}",
                                      daemon=True)
            self.games[game_id] = thread
        thread.start()

    def _game(self, game_id: str) -> None:
        try:
            self.play_game(game_id)
        finally:
            with self._lock:
                self.games.pop(game_id, None)
                engine = self.engines.pop(game_id, None)
                if self.stopping and not self.games:
                    self._done.set()
            if engine is not None:
                _quit(engine)

    def play_game(self, game_id: str) -> None:
        """Play one game to its end, reopening its stream after each drop."""
        backoff = self._backoff()
        game: GameEvent | None = None
        acted = -1
        while not self._done.is_set():
            try:
                for line in self.client.bots.stream_game_state(game_id):
                    backoff.reset()
                    if line.get("type") == "gameFull":
                        if game is None:
                            self._log_start(line)
                        game, state = line, line["state"]
                    elif line.get("type") == "gameState" and game is not None:
                        state = line
                    else:
                        continue
                    if state.get("status") == "finished":
                        self._log_end(game, state)
                        return
                    if self._done.is_set():
                        return
                    mine = bool(game.get("seat")) and state.get("to_act") == game["seat"]
                    if mine and state["seq"] != acted and self._act(game_id, game, state):
                        acted = state["seq"]
                why = "its stream ended"
            except ApiError as e:
                if not e.network:
                    self.log(f"game {game_id}: left: {e}")
                    return
                why = f"its stream broke: {e}"
            wait = backoff.next()
            self.log(f"game {game_id}: {why}; reconnecting in {wait:g} s")
            self._sleep(wait)

    def _engine(self, game_id: str) -> Engine:
        with self._lock:
            engine = self.engines.get(game_id)
        if engine is None:
            engine = self.open_engine()
            engine.newgame()
            with self._lock:
                self.engines[game_id] = engine
        return engine

    def _act(self, game_id: str, game: GameEvent, state: GameState) -> bool:
        """Ask the engine and answer; whether this state is done with (a
        network error is not: the state comes again on reconnecting)."""
        try:
            engine = self._engine(game_id)
            match = match_of(game, state)
            if state.get("awaiting") == "fill":
                self.client.bots.fill(game_id, engine.fill(match), seq=state["seq"])
            else:
                clock = clock_of(state)
                limit = Limit(time=self.movetime_ms / 1000) if clock is None and self.movetime_ms else None
                move = str(engine.play(match, limit, clock=clock).move)
                self.client.bots.make_move(game_id, move, seq=state["seq"])
            return True
        except (EngineError, KamisadoError, ValueError) as e:
            self.log(f"game {game_id}: the engine failed ({e}); resigning")
            try:
                self.client.bots.resign_game(game_id)
            except ApiError as err:
                self.log(f"game {game_id}: could not resign: {err}")
            return True
        except ApiError as e:
            if e.network:
                raise
            self.log(f"game {game_id}: the move was refused: {e}")
            return True

    def _log_start(self, game: GameEvent) -> None:
        seat = game.get("seat")
        mine, theirs = ("black", "gold") if seat == "b" else ("gold", "black")
        me, opponent = cast(dict[str, Any], game.get(mine) or {}), cast(dict[str, Any], game.get(theirs) or {})
        kind = MATCH_NAMES.get(game.get("target", 0), f"to {game.get('target')}")
        self.log(f"game {game['id']}: started: {me.get('name')} ({mine}) against {opponent.get('name')},"
                 f" {kind}, {clock_text(dict(game.get('clock') or {}))},"
                 f" {'rated' if game.get('rated') else 'casual'}")

    def _log_end(self, game: GameEvent | None, state: GameState) -> None:
        seat = game.get("seat") if game else None
        winner = state.get("winner")
        result = "drawn" if winner is None else ("won" if winner == seat else "lost")
        points = state.get("points") or []
        game_id = game["id"] if game else "?"
        self.results[game_id] = {"winner": winner, "reason": state.get("reason"), "points": points}
        self.log(f"game {game_id}: {result} {'-'.join(map(str, points))} ({state.get('reason')})")


def _quit(engine: Engine) -> None:
    with contextlib.suppress(EngineError, RuntimeError, OSError):
        engine.quit()


# -- the command line ------------------------------------------------------------


def _names(allowed: Iterable[str], what: str) -> Callable[[str], frozenset[str]]:
    known = sorted(allowed)

    def read(text: str) -> frozenset[str]:
        words = frozenset(w.strip() for w in text.split(",") if w.strip())
        bad = sorted(words - set(known))
        if not words or bad:
            raise argparse.ArgumentTypeError(f"expected {what} from {','.join(known)}, found {text!r}")
        return words

    return read


def _option(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, found {text!r}")
    return name.strip(), value


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """``kamisado bot``'s options (see docs/bots.md)."""
    p = Parser(prog="kamisado bot", description="Put a KEI engine online as a bot account.")
    p.add_argument("--server", required=True, help="the site, e.g. https://kamisado.example")
    p.add_argument("--token", required=True, help="the bot account's personal token (scopes read, play, challenge, bot)")
    p.add_argument("--engine", required=True, help='the engine command, split as a shell does: "kamisado engine"')
    p.add_argument("--option", action="append", type=_option, default=[], metavar="NAME=VALUE",
                   help="setoption for the engine (repeat): --option Level=strong")
    p.add_argument("--accept", type=_names({"casual", "rated"}, "modes"), default=frozenset({"casual", "rated"}),
                   help="casual, rated or casual,rated (default)")
    p.add_argument("--target", type=_names(map(str, TARGETS), "targets"), default=frozenset(map(str, TARGETS)),
                   help="the match targets accepted (default 1,3,7,15)")
    p.add_argument("--no-series", action="store_true", help="decline series")
    p.add_argument("--timed-only", action="store_true", help="decline games without a clock")
    p.add_argument("--min-initial", type=duration("s", least=0), default=0.0, metavar="TIME",
                   help="the least initial clock accepted (seconds, or 2m)")
    p.add_argument("--max-initial", type=duration("s", least=0), default=math.inf, metavar="TIME",
                   help="the most initial clock accepted")
    p.add_argument("--max-increment", type=duration("s", least=0), default=math.inf, metavar="TIME",
                   help="the most increment accepted")
    p.add_argument("--max-games", type=int_between(1, 64), default=1, help="games at once (default 1)")
    p.add_argument("--max-backoff", type=duration("s", least=0.1), default=60.0, metavar="TIME",
                   help="the longest wait before reconnecting a dropped stream (default 60 s; from 1 s, doubling)")
    p.add_argument("--movetime", type=duration("ms", whole=True), default=None, metavar="TIME",
                   help="go movetime for games without a clock (default: a plain go)")
    args = p.parse_args(list(argv))
    if args.min_initial > args.max_initial:
        p.error(f"--min-initial {args.min_initial:g} is above --max-initial {args.max_initial:g}")
    return args


def filters_of(args: argparse.Namespace) -> Filters:
    """The :class:`Filters` of the command line's options."""
    return Filters(modes=args.accept, targets=frozenset(int(t) for t in args.target), series=not args.no_series,
                   min_initial=args.min_initial, max_initial=args.max_initial,
                   max_increment=args.max_increment, untimed=not args.timed_only, max_games=args.max_games)


def engine_opener(command: str, options: Sequence[tuple[str, str]]) -> Callable[[], Engine]:
    """Start ``command`` (split as cutechess splits ``cmd=``) with the options set."""
    argv = shlex.split(command)

    def open_engine() -> Engine:
        engine = SimpleEngine.popen(argv, stderr=subprocess.DEVNULL, setpgrp=True)
        try:
            if options:
                engine.configure(dict(options))
        except BaseException:
            engine.quit()
            raise
        return engine

    return open_engine


def _stamp_log(line: str) -> None:
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {line}", file=sys.stderr, flush=True)


def main(argv: Sequence[str]) -> int:
    """``kamisado bot``: play on the site until stopped."""
    args = parse_args(argv)
    if not shlex.split(args.engine):
        return die("bot: --engine: expected a command, found nothing")
    open_engine = engine_opener(args.engine, args.option)
    try:  # the engine is checked once before going online: a bad command ends here
        open_engine().quit()
    except (EngineError, ValueError, OSError) as e:
        return die(f"bot: --engine {args.engine!r}: {e}")
    with Client(args.server, args.token) as client:
        most = float(args.max_backoff)
        bot = Bot(client, open_engine, filters_of(args), log=_stamp_log, movetime_ms=args.movetime,
                  backoff=lambda: Backoff(first=min(1.0, most), most=most))
        restore = bot.install_signals()
        try:
            try:
                me = client.account.get()
                bot.me = str(me["id"])
            except ApiError as e:
                return die(f"bot: {args.server}: {e}")
            _stamp_log(f"online as {me.get('name') or me.get('account')} on {args.server}"
                       f" with {args.engine!r}; stop with SIGTERM or Ctrl-C")
            return bot.run()
        finally:
            restore()
