"""A tournament's engines: :class:`EnginePool` starts each player's engine
process, checks its options, keeps it from one game to the next and ends it.

Every engine, built-in ones included, runs as its own KEI subprocess
(:mod:`kamisado.protocol.kei`) driven by :mod:`kamisado.protocol.client`, in
a session of its own, so that a Ctrl-C reaches only the tournament, which
then ends the engines itself.  Engines are kept as the restart policy says
(:data:`RESTARTS`); :class:`~kamisado.protocol.tournament.Tournament` decides
when, through :meth:`EnginePool.release`.

>>> " ".join(RESTARTS), one_line("engine 'x'\\n  exited")
('auto on off', "engine 'x' exited")
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
from collections.abc import Callable, Mapping
from typing import TextIO

from kamisado.protocol.client import EngineError, KeiEngine
from kamisado.protocol.tournament_config import PlayerSpec

__all__ = [
    "DEFAULT_TIMEOUT",
    "HANDSHAKE_TIMEOUT",
    "NOT_STARTED",
    "RESTARTS",
    "BrokenPlayerError",
    "EnginePool",
    "OptionsError",
    "Stopped",
    "one_line",
]

#: Seconds an engine has to start and finish the handshake (``kei`` .. ``keiok``).
HANDSHAKE_TIMEOUT = 20.0
#: Seconds to wait for answers without a time limit of their own, unless ``--timeout``.
DEFAULT_TIMEOUT = 60.0

#: In a forfeit's detail: the player could not start (or finish the handshake).
NOT_STARTED = "could not start: "

#: The restart policies (``--restart``), as in cutechess-cli: ``auto`` keeps an
#: engine for the next game unless it crashed, timed out or broke the
#: protocol in this one; ``on`` starts both engines afresh for every game;
#: ``off`` keeps every engine that is still running.
RESTARTS = ("auto", "on", "off")


class BrokenPlayerError(RuntimeError):
    """A player's engine could not start or finish the handshake (the run stops)."""

    def __init__(self, player: str, reason: str) -> None:
        super().__init__(f"player {player!r} {NOT_STARTED}{reason}")
        self.player = player


class OptionsError(ValueError):
    """A player's option is not one its engine declared, or its value does not fit."""


class Stopped(Exception):
    """The tournament is stopping: the game in progress is dropped."""


def one_line(text: str) -> str:
    """``text`` with its runs of white space (line breaks included) made one space."""
    return " ".join(text.split())


async def close(engine: KeiEngine) -> None:
    """Quit ``engine`` (killed after 2 s); a cancel kills it at once."""
    try:
        await engine.quit(timeout=2.0)
    except asyncio.CancelledError:
        engine.kill_group()
        raise


class EnginePool:
    """The engine processes of one tournament: every one it holds, and those
    kept between games by player.

    ``stopping()`` tells whether the run is stopping: then no engine starts
    and none is kept.  ``debug`` receives every line to and from the engines.
    """

    def __init__(
        self,
        players: Mapping[str, PlayerSpec],
        *,
        timeout: float | None,
        stopping: Callable[[], bool],
        stderr: TextIO | None = None,
        debug: TextIO | None = None,
        restart: str = "auto",
    ) -> None:
        self.players = players
        self.timeout = timeout or DEFAULT_TIMEOUT
        self.stderr = stderr
        self.debug = debug
        self.restart = restart
        self._stopping = stopping
        #: How many engine processes were started (handshake done).
        self.starts = 0
        #: Every engine process held.
        self.running: set[KeiEngine] = set()
        #: Those kept for the next game, by player.
        self.idle: dict[str, list[KeiEngine]] = {}

    # -- killing ----------------------------------------------------------------

    def kill_all(self) -> None:
        """SIGKILL every engine's process group now (plain system calls: safe in
        a signal handler)."""
        for engine in list(self.running):
            engine.kill_group()

    def kill_busy(self) -> None:
        """SIGKILL the group of every engine in a game (the kept ones are left)."""
        idle = {id(e) for engines in self.idle.values() for e in engines}
        for engine in list(self.running):
            if id(engine) not in idle:
                engine.kill_group()

    def abandon_pipes(self) -> None:
        """Stop waiting for every engine's pipes (a process that left its group may hold them)."""
        for engine in list(self.running):
            engine.abandon_pipes()

    # -- starting and keeping -----------------------------------------------------

    def _tracer(self, label: str) -> Callable[[str, str], None] | None:
        debug = self.debug
        if debug is None:
            return None

        def trace(direction: str, line: str) -> None:
            stamp = datetime.datetime.now().isoformat(timespec="milliseconds")
            debug.write(f"{stamp} {label} {direction} {line}\n")
            debug.flush()

        return trace

    async def popen(self, name: str, label: str) -> KeiEngine:
        """Start ``name``'s engine (handshake done), :class:`Stopped` when stopping."""
        spec = self.players[name]
        if self._stopping():
            raise Stopped
        engine = await KeiEngine.popen(
            spec.command(),
            timeout=self.timeout,
            setup_timeout=HANDSHAKE_TIMEOUT,
            setpgrp=True,  # a Ctrl-C stops the tournament, which ends its engines
            stderr=self.stderr if self.stderr is not None else asyncio.subprocess.DEVNULL,
            trace=self._tracer(label),
        )
        self.running.add(engine)
        self.starts += 1
        if self._stopping():  # asked while it started
            engine.kill_group()
            self.running.discard(engine)
            raise Stopped
        return engine

    async def acquire(self, name: str, seed: int, label: str) -> KeiEngine:
        """An engine for ``name``'s next game: a kept one (seeded, ``newgame``) or a new one."""
        idle = self.idle.get(name, [])
        while idle:
            engine = idle.pop()
            if engine.returncode is not None:  # it died while kept
                await close(engine)
                self.running.discard(engine)
                continue
            engine.trace = self._tracer(label)
            try:
                await self.configure(engine, name, self.seed_option(engine, name, seed))
                await engine.newgame()
            except EngineError:  # it broke while kept: start a new one
                await self.release(engine, keep=False)
                continue
            return engine
        return await self._start(name, seed, label)

    async def release(self, engine: KeiEngine, name: str = "", keep: bool = True) -> None:
        """After a game: keep ``engine`` for ``name``'s next game, or end it."""
        if keep and name and not self._stopping() and engine.returncode is None:
            self.idle.setdefault(name, []).append(engine)
            return
        self.running.discard(engine)
        if self._stopping():
            engine.kill_group()
            with contextlib.suppress(EngineError):
                await engine._kill()
        else:
            await close(engine)

    async def close_idle(self, at_once: bool) -> None:
        """End every kept engine (at the end of the run): killed ``at_once``
        (Ctrl-C), else asked to quit."""
        idle = [e for engines in self.idle.values() for e in engines]
        self.idle.clear()
        for engine in idle:
            if at_once:
                await self.release(engine, keep=False)
            else:
                self.running.discard(engine)
                await close(engine)

    def seed_option(self, engine: KeiEngine, name: str, seed: int) -> dict[str, object]:
        """``{"Seed": seed}`` when the engine declared a Seed the player does not set."""
        given = {k.lower() for k, _ in self.players[name].options}
        option = {k.lower(): v for k, v in engine.options.items()}.get("seed")
        if option is None or "seed" in given:
            return {}
        try:
            return {option.name: option.check(seed)}
        except ValueError:  # a seed the engine cannot take: its own default
            return {}

    def player_options(self, engine: KeiEngine, name: str) -> dict[str, object]:
        """The player's options (and LimitStrength for a built-in level)."""
        spec = self.players[name]
        options: dict[str, object] = dict(spec.options)
        given = {k.lower() for k in options}
        strength = {k.lower(): v for k, v in engine.options.items()}.get("limitstrength")
        if spec.spec.startswith("level:") and strength is not None and (
            "limitstrength" not in given
        ):
            # a built-in level plays at its level, within the clocks
            options[strength.name] = "true"
        return options

    async def configure(self, engine: KeiEngine, name: str, options: dict[str, object]) -> None:
        """Set ``options`` on ``name``'s engine; one that does not fit is :class:`OptionsError`."""
        if options:
            try:
                await engine.configure(options)
            except ValueError as e:
                raise OptionsError(f"player {name!r}: {e}") from None

    async def _start(self, name: str, seed: int, label: str) -> KeiEngine:
        engine = await self.popen(name, label)
        try:
            options = self.player_options(engine, name)
            options.update(self.seed_option(engine, name, seed))
            await self.configure(engine, name, options)
            await engine.newgame()
        except BaseException:
            await self.release(engine, keep=False)
            raise
        return engine

    async def check_options(self, forfeit_broken: bool) -> None:
        """Start each player with options once and check them against its declared options.

        An option the engine did not declare, or a value that does not fit,
        raises :class:`OptionsError`; an engine that cannot start raises
        :class:`BrokenPlayerError` (nothing, with ``forfeit_broken``).
        """
        for spec in self.players.values():
            if not spec.options:
                continue
            try:
                engine = await self.popen(spec.name, f"check {spec.name}")
            except EngineError as e:
                if self._stopping():
                    raise Stopped from e
                if forfeit_broken:
                    continue
                raise BrokenPlayerError(spec.name, one_line(str(e))) from e
            kept = False
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
                if self.restart != "on":  # set up, and kept for its first game
                    await self.configure(
                        engine, spec.name, self.player_options(engine, spec.name)
                    )
                    kept = True
            finally:
                await self.release(engine, spec.name, keep=kept)
