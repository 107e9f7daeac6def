"""An engine's process and its pipes: started in a process group of its
own, and ended by killing that whole group, so that an engine started
through a wrapper script leaves nothing behind.

Only :mod:`kamisado.protocol.client.engine` uses these.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal

__all__ = ["abandon_pipes", "end_started", "kill_group"]


def kill_group(process: asyncio.subprocess.Process) -> None:
    """SIGKILL ``process``'s process group (the engine's own, see
    :meth:`~kamisado.protocol.client.engine.KeiEngine.popen`).

    Only through ``killpg``: the process itself is signalled only when its
    group cannot be (``Process.kill`` first polls the process, and a poll
    that reaps it before asyncio's child watcher does makes the watcher log
    "Unknown child process pid N, will report returncode 255").
    """
    try:
        os.killpg(process.pid, signal.SIGKILL)
        return
    except ProcessLookupError:  # the group is gone: so is its leader
        return
    except PermissionError:  # not its group (it made a new one): the leader alone
        pass
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):  # raced with its exit
            process.kill()


async def end_started(starting: asyncio.Future[asyncio.subprocess.Process]) -> None:
    """A stop came while an engine started: let the start finish (a few turns
    of the loop; further cancels wait for it too), then kill the engine's
    whole group and wait for the leader (its pipes abandoned after 2 s)."""
    while not starting.done():
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait([starting])
    if starting.cancelled() or starting.exception() is not None:
        return
    process = starting.result()
    kill_group(process)
    for _ in range(2):
        try:
            async with asyncio.timeout(2.0):
                await asyncio.shield(process.wait())
            return
        except (TimeoutError, asyncio.CancelledError):
            abandon_pipes(process)


def abandon_pipes(process: asyncio.subprocess.Process) -> None:
    """Close this side of ``process``'s pipes, so that waiting for its exit no
    longer waits for a process that holds them open.

    The pipes only: closing the whole transport would poll the process,
    reaping it under asyncio's child watcher (see :func:`kill_group`).
    """
    transport = getattr(process, "_transport", None)
    if transport is None:
        return
    for fd in (0, 1, 2):
        pipe = transport.get_pipe_transport(fd)
        if pipe is not None:
            pipe.close()
