"""Computer moves and analysis on a job queue: arq on Redis.

``kamisado web --queue redis://HOST:PORT/DB`` runs no process pool: its hub
(:class:`kamisado.web.play.games.Hub`) hands the engine's work to a
:class:`QueueRunner`, which puts each job on the Redis list of its queue and
waits for the result.  ``kamisado worker --queue redis://HOST:PORT/DB``
processes, on any machine, take the jobs and run them in their own process
pools (:func:`main`).  See ``docs/deploy.md``.

Two queues, so that analysis never starves the computer opponents:
``kamisado:moves`` (computer moves) and ``kamisado:analysis`` (/api/analyse,
/api/reply, the evaluation graph, the slices of game reports).  A worker serves both or one
(``--queues``); a site gives the moves their own workers.

Only the functions of :mod:`kamisado.web.work.worker` are jobs
(:data:`JOBS`); jobs and results cross Redis as JSON (never pickle: a
worker runs nothing that is not named here).

A worker killed while thinking: the job stays in Redis until it is done;
its in-progress lease (:data:`LEASE_S`, renewed while the job runs) runs
out and another worker takes it, up to :attr:`QueuePolicy.max_tries` times.
A move job only suggests the computer's action: the web process stores it
under the game's sequence number, so a job run twice is played once.

>>> sorted(JOBS)
['analyse', 'computer_action', 'evaluation_svg', 'report_looks', 'review', 'solver_reply']
>>> job_name(worker.analyse)
'analyse'
>>> job_name(print)
Traceback (most recent call last):
...
ValueError: print is not a job the workers run (they run analyse, computer_action, evaluation_svg, report_looks, review, solver_reply)
>>> redis_settings("redis://cache.local:6380/2").port
6380
>>> redis_settings("http://x")
Traceback (most recent call last):
...
ValueError: expected a Redis URL redis://HOST[:PORT][/DB], found 'http://x'
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from kamisado.web.work import worker

__all__ = [
    "JOBS",
    "LEASE_S",
    "POLICIES",
    "RECONNECT_S",
    "QUEUES",
    "JobError",
    "QueuePolicy",
    "QueueRunner",
    "connect",
    "disconnect",
    "job_name",
    "main",
    "queue_missing",
    "redis_settings",
]

log = logging.getLogger("kamisado.worker")

#: The functions a worker runs, by the name a job carries.
JOBS: dict[str, Callable[..., Any]] = {
    "computer_action": worker.computer_action,
    "analyse": worker.analyse,
    "solver_reply": worker.solver_reply,
    "evaluation_svg": worker.evaluation_svg,
    "review": worker.review,
    "report_looks": worker.report_looks,
}

#: The hub's queue names and their Redis keys.
QUEUES: dict[str, str] = {"moves": "kamisado:moves", "analysis": "kamisado:analysis"}


@dataclass(frozen=True)
class QueuePolicy:
    """How long a job of a queue may run on a worker (``timeout_s``), how
    many workers may try it (``max_tries``: a try ends with its worker's
    death too), and how long the web process waits for its result
    (``wait_s``) before it gives up with a :class:`JobError` (the job
    then expires unstarted)."""

    timeout_s: float
    max_tries: int
    wait_s: float


#: Per queue: every level thinks well under a second; analysis is bounded
#: by its time limit (at most 3 s) and the graph by its node budget.
POLICIES: dict[str, QueuePolicy] = {
    "moves": QueuePolicy(timeout_s=60.0, max_tries=3, wait_s=120.0),
    "analysis": QueuePolicy(timeout_s=30.0, max_tries=2, wait_s=60.0),
}

#: How long a worker's claim on a job lasts unless renewed (every third of
#: it while the job runs): a killed worker's job is taken again this soon.
LEASE_S = 3.0
#: How often the web process looks for a result, and a worker for jobs.
POLL_S = 0.02
#: How long a result stays in Redis (the web process reads it at once).
KEEP_RESULT_S = 60.0


class JobError(Exception):
    """The queue could not run a job: one line saying why."""


def job_name(fn: Callable[..., Any]) -> str:
    """The job name of ``fn``; ``ValueError`` unless it is one of :data:`JOBS`."""
    for name, job in JOBS.items():
        if job is fn:
            return name
    raise ValueError(
        f"{getattr(fn, '__qualname__', fn)} is not a job the workers run"
        f" (they run {', '.join(sorted(JOBS))})"
    )


def queue_missing(exc: ImportError) -> bool:
    """Whether ``exc`` says that the ``queue`` extra (arq, and the redis it
    brings) is not installed."""
    return (exc.name or "").partition(".")[0] in ("arq", "redis")


def redis_settings(url: str) -> Any:
    """arq's ``RedisSettings`` for ``redis://HOST[:PORT][/DB]`` (or
    ``rediss://``); ``ValueError`` for anything else.  One try to connect,
    two seconds at most: a Redis that is down is reported at once."""
    from arq.connections import RedisSettings

    parts = urlsplit(url)
    if parts.scheme not in ("redis", "rediss") or not parts.hostname:
        raise ValueError(f"expected a Redis URL redis://HOST[:PORT][/DB], found {url!r}")
    try:
        settings = RedisSettings.from_dsn(url)
    except ValueError:
        raise ValueError(f"expected a Redis URL redis://HOST[:PORT][/DB], found {url!r}") from None
    settings.conn_timeout = 2
    settings.conn_retries = 0
    return settings


def shown(url: str) -> str:
    """``url`` without its password."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return url.replace(f":{parts.password}@", ":***@", 1)


def _dumps(data: dict[str, Any]) -> bytes:
    return json.dumps(data, separators=(",", ":")).encode()


def _loads(raw: bytes) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(raw)
    return data


def _reason(exc: BaseException) -> str:
    return " ".join((str(exc) or type(exc).__name__).split())


async def connect(url: str) -> Any:
    """An arq Redis connection to ``url``, checked with a ping; :class:`JobError`
    (one line) when it cannot be reached."""
    from arq.connections import create_pool
    from redis.exceptions import RedisError

    settings = redis_settings(url)
    try:
        redis = await create_pool(settings, job_serializer=_dumps, job_deserializer=_loads,
                                  retry=0)
        await redis.ping()
    except (RedisError, OSError) as exc:
        raise JobError(f"cannot reach Redis at {shown(url)}: {_reason(exc)}") from None
    return redis


async def disconnect(redis: Any) -> None:
    """Close a connection of :func:`connect` (``aclose`` from redis-py 5 on)."""
    close = getattr(redis, "aclose", None) or redis.close
    await close()


# -- the web process's side ----------------------------------------------------------


class QueueRunner:
    """The hub's :class:`kamisado.web.play.computer.JobRunner` on arq: ``run`` puts a
    job on its queue and returns its result; a job that fails, that no
    worker finishes in the queue's ``wait_s``, or a Redis that fails raises
    :class:`JobError` (the hub logs it, as for a failed pool job)."""

    def __init__(self, url: str) -> None:
        redis_settings(url)  # a bad URL fails here
        self.url = url
        self._redis: Any = None

    async def open(self) -> None:
        """Connect (:class:`JobError` when Redis cannot be reached)."""
        if self._redis is None:
            self._redis = await connect(self.url)

    async def run(self, queue: str, fn: Callable[..., Any], *args: Any) -> Any:
        from redis.exceptions import RedisError

        name = job_name(fn)
        if queue not in QUEUES:
            raise ValueError(f"expected a queue ({', '.join(QUEUES)}), found {queue!r}")
        policy = POLICIES[queue]
        try:
            await self.open()
            job = await self._redis.enqueue_job(
                name, *args, _queue_name=QUEUES[queue], _expires=policy.wait_s
            )
            assert job is not None  # a fresh id each time
            result: dict[str, Any] = await job.result(timeout=policy.wait_s, poll_delay=POLL_S)
        except TimeoutError:
            raise JobError(
                f"no worker finished the {name} job on {QUEUES[queue]} within"
                f" {policy.wait_s:g} s (is a kamisado worker serving that queue?)"
            ) from None
        except (RedisError, OSError) as exc:
            raise JobError(f"the job queue at {shown(self.url)} failed: {_reason(exc)}") from None
        except Exception as exc:  # arq's own: the job failed or its result is unreadable
            raise JobError(f"the {name} job failed: {_reason(exc)}") from None
        if "error" in result:
            raise JobError(f"the {name} job failed on the worker: {result['error']}")
        return result["ok"]

    async def depths(self) -> dict[str, float]:
        """The jobs on each queue, waiting or running (arq keeps a job in
        its queue's sorted set until it is done); NaN where Redis does not
        answer."""
        out: dict[str, float] = {}
        for queue, key in QUEUES.items():
            try:
                await self.open()
                out[queue] = float(await self._redis.zcard(key))
            except Exception:
                out[queue] = float("nan")
        return out

    async def ping(self) -> None:
        """Return once Redis answers a ping; :class:`JobError` when it does not."""
        from redis.exceptions import RedisError

        try:
            await self.open()
            await self._redis.ping()
        except (RedisError, OSError) as exc:
            raise JobError(f"the job queue at {shown(self.url)} failed: {_reason(exc)}") from None

    async def close(self) -> None:
        if self._redis is not None:
            redis, self._redis = self._redis, None
            with contextlib.suppress(Exception):
                await disconnect(redis)


# -- the worker's side ------------------------------------------------------------------


def _warm() -> int:
    """Run once in each pool process: the engine loaded before the first job."""
    import kamisado.engine.levels  # noqa: F401

    return os.getpid()


class _Pool:
    """A worker's process pool for one queue, renewed when one of its
    processes dies (the job then runs again in the new one)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.executor = self._start()

    def _start(self) -> Executor:
        pool = ProcessPoolExecutor(
            self.size,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=worker.start_worker,  # gone with this worker, even on kill -9
            initargs=(os.getpid(),),
        )
        for _ in range(self.size):
            pool.submit(_warm)
        return pool

    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        for attempt in (1, 2):
            pool = self.executor
            try:
                return await loop.run_in_executor(pool, fn, *args)
            except BrokenExecutor:
                if pool is self.executor:
                    log.warning("kamisado worker: a pool process died: starting a new pool")
                    pool.shutdown(wait=False, cancel_futures=True)
                    self.executor = self._start()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)


def _job(name: str, fn: Callable[..., Any], queue: str, pool: _Pool) -> Any:
    """The arq job function ``name``: ``fn`` run in ``pool``; its result is
    ``{"ok": value}`` or ``{"error": "why"}`` (a failure of the engine is
    not tried again: it would fail the same way)."""
    from arq.worker import func

    async def job(ctx: dict[str, Any], *args: Any) -> dict[str, Any]:
        log.info("kamisado worker: %s job %s started (try %d)", queue, ctx["job_id"], ctx["job_try"])
        try:
            value = await pool.run(fn, *args)
        except BrokenExecutor as exc:
            return {"error": f"the worker's process pool broke: {_reason(exc)}"}
        except Exception as exc:
            return {"error": f"{type(exc).__name__}: {_reason(exc)}"}
        log.info("kamisado worker: %s job %s done", queue, ctx["job_id"])
        return {"ok": value}

    policy = POLICIES[queue]
    return func(job, name=name, timeout=policy.timeout_s, max_tries=policy.max_tries,
                keep_result=KEEP_RESULT_S)


def _worker_class() -> type[Any]:
    from arq.constants import in_progress_key_prefix
    from arq.worker import Worker
    from redis.exceptions import RedisError

    class LeasedWorker(Worker):
        """An arq worker whose claim on a running job is short and renewed
        while the job runs (arq's own lasts the job's timeout plus 10 s),
        so a killed worker's job is taken again within :data:`LEASE_S`."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.in_progress_timeout_s = LEASE_S

        async def main(self) -> None:
            renew = asyncio.get_running_loop().create_task(self._renew())
            try:
                await super().main()
            finally:
                renew.cancel()

        async def _renew(self) -> None:
            while True:
                await asyncio.sleep(LEASE_S / 3)
                running = [job_id for job_id, t in self.tasks.items() if not t.done()]
                if not running or self._pool is None:
                    continue
                try:
                    async with self.pool.pipeline(transaction=False) as pipe:
                        for job_id in running:
                            pipe.pexpire(in_progress_key_prefix + job_id, int(LEASE_S * 1000))
                        await pipe.execute()
                except (RedisError, OSError) as exc:
                    log.warning("kamisado worker: could not renew the jobs' leases: %s", _reason(exc))

    return LeasedWorker


async def serve(url: str, queues: list[str], jobs: int) -> None:
    """Take jobs from ``queues`` on the Redis at ``url`` until SIGTERM or
    SIGINT; ``jobs`` processes per queue (the analysis pool is one smaller
    when this worker serves the moves too, so their CPUs stay free).  A
    Redis that goes away is waited for :data:`RECONNECT_S` seconds."""
    from redis.exceptions import RedisError

    redis = await connect(url)
    await disconnect(redis)
    pools = {
        queue: _Pool(max(1, jobs - 1) if queue == "analysis" and "moves" in queues else jobs)
        for queue in queues
    }
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):  # Windows
            loop.add_signal_handler(sig, stop.set)
    served = ", ".join(
        f"{QUEUES[q]} ({pools[q].size} process{'es' if pools[q].size > 1 else ''})" for q in queues
    )
    print(f"kamisado worker: serving {served} on {shown(url)}", flush=True)
    try:
        while not stop.is_set():
            failure = await _take_jobs(url, pools, stop)
            if failure is None:
                break
            if not isinstance(failure, (RedisError, OSError)):
                raise JobError(f"the queue failed: {_reason(failure)}")
            log.warning("kamisado worker: lost Redis at %s (%s): waiting for it", shown(url),
                        _reason(failure))
            if not await _reconnect(url, stop):
                raise JobError(f"Redis at {shown(url)} went away and did not come back within"
                               f" {RECONNECT_S:g} s: {_reason(failure)}")
            log.warning("kamisado worker: Redis is back")
    finally:
        for pool in pools.values():
            pool.close()


#: How long a running worker waits for a Redis that went away before it exits.
RECONNECT_S = 60.0


async def _take_jobs(url: str, pools: dict[str, _Pool], stop: asyncio.Event) -> BaseException | None:
    """Run an arq worker per queue until ``stop`` (``None``) or one fails
    (its exception); the jobs running go back on their queue."""
    cls = _worker_class()
    loop = asyncio.get_running_loop()
    workers = []
    for queue, pool in pools.items():
        functions = [_job(name, fn, queue, pool) for name, fn in JOBS.items()]
        workers.append(cls(
            functions,
            queue_name=QUEUES[queue],
            redis_settings=redis_settings(url),
            handle_signals=False,
            max_jobs=pool.size,
            poll_delay=POLL_S,
            max_tries=POLICIES[queue].max_tries,
            job_serializer=_dumps,
            job_deserializer=_loads,
            log_results=False,
        ))
    runs = [loop.create_task(w.async_run()) for w in workers]
    waiter = loop.create_task(stop.wait())
    try:
        done, _ = await asyncio.wait([*runs, waiter], return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            failure = None if task is waiter else task.exception()
            if failure is not None:
                return failure
        return None
    finally:
        waiter.cancel()
        for w in workers:
            w.allow_pick_jobs = False
        for w in workers:  # the jobs running go back on their queue for another worker
            with contextlib.suppress(Exception):
                await w.close()
        for task in runs:
            task.cancel()


async def _reconnect(url: str, stop: asyncio.Event) -> bool:
    """Whether Redis answers again within :data:`RECONNECT_S` (or ``stop`` came)."""
    deadline = asyncio.get_running_loop().time() + RECONNECT_S
    while not stop.is_set():
        try:
            redis = await connect(url)
        except JobError:
            if asyncio.get_running_loop().time() > deadline:
                return False
            await asyncio.sleep(0.5)
        else:
            await disconnect(redis)
            return True
    return True


def main(argv: list[str] | None = None) -> int:
    """Run a worker (``kamisado worker --help``).  Every error is one line
    on standard error, exit status 2."""
    from kamisado.args import Parser, needs_extra

    parser = Parser(
        prog="kamisado worker",
        description="Take computer moves and analysis from the job queue of kamisado web --queue.",
    )
    parser.add_argument("--queue", required=True, metavar="URL",
                        help="the Redis of the job queue: redis://HOST[:PORT][/DB]")
    parser.add_argument("--queues", default="moves,analysis", metavar="NAMES",
                        help="the queues to serve: moves, analysis or both (default moves,analysis)")
    parser.add_argument("--jobs", type=int, default=None, metavar="N",
                        help="jobs at once on each queue, one process each (default: CPUs)")
    parser.add_argument("--proof-store", default=None, metavar="PATH_OR_URL",
                        help="a match proof store: perfect plays from it, the review says 'proven'")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.proof_store is not None:
        try:
            worker.use_proof_store(args.proof_store)
        except ValueError as exc:
            parser.error(f"--proof-store: {exc}")
    queues = [q.strip() for q in args.queues.split(",") if q.strip()]
    unknown = [q for q in queues if q not in QUEUES]
    if not queues or unknown:
        parser.error(f"--queues: expected moves, analysis or both, found {args.queues!r}")
    if args.jobs is not None and args.jobs < 1:
        parser.error(f"--jobs: expected at least 1, found {args.jobs}")
    try:
        redis_settings(args.queue)
    except ImportError as exc:
        if not queue_missing(exc):
            raise
        parser.exit(2, f"kamisado worker: {needs_extra('--queue', 'queue')}\n")
    except ValueError as exc:
        parser.error(f"--queue: {exc}")
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    logging.getLogger("arq").setLevel(logging.WARNING)
    try:
        asyncio.run(serve(args.queue, list(dict.fromkeys(queues)), args.jobs or os.cpu_count() or 1))
    except JobError as exc:
        print(f"kamisado worker: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        pass
    return 0
