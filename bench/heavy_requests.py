"""Heavy requests beside ``/healthz`` (issue 40, item 2): does the event loop
stay free while records are parsed?

Starts one ``kamisado web`` process (a subprocess, the code on
``PYTHONPATH``) on a fresh SQLite file, believing ``X-Forwarded-For`` from
127.0.0.1 (``--forwarded-allow-ips``), then posts ``--records`` records of
``--size`` bytes to ``POST /api/records`` at once, each from another address
(``X-Forwarded-For: 198.51.100.N``), while a probe asks ``/healthz`` every
``--every`` seconds on a fresh connection.  Prints the probe's latency
(p50, p99, max) while the records were under way, and the records' answers
(counts by status, the slowest answer):

    python bench/heavy_requests.py
    python bench/heavy_requests.py --kind long --records 40
    PYTHONPATH=/path/to/old/checkout python bench/heavy_requests.py   # before
    python bench/heavy_requests.py --games 20   # 20 games beside one address posting in a loop

``--kind newlines`` (the probe of the issue) posts a megabyte of newlines
(refused, 400, after the parser read every line); ``--kind long`` posts a
long valid match padded with blank lines to ``--size`` (stored: 200).
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def start(db: str, extra: list[str], log_path: str, env: dict[str, str] | None = None
          ) -> tuple[subprocess.Popen[bytes], int]:
    """``kamisado web`` on ``db``: the process and its port."""
    log = open(log_path, "wb")  # noqa: SIM115  (the server's whole output, read afterwards)
    proc = subprocess.Popen(
        [sys.executable, "-m", "kamisado.cli", "web", "--port", "0", "--no-browser",
         "--forwarded-allow-ips", "127.0.0.1", "--db", db, *extra],
        stdout=subprocess.PIPE, stderr=log, cwd=tempfile.gettempdir(),  # the code on PYTHONPATH
        env={**os.environ, **(env or {})},
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        found = re.search(rb"serving on http://[\d.]+:(\d+)/", line)
        if found:
            return proc, int(found.group(1))
    raise SystemExit(f"the server did not start: {proc.wait()}; see {log_path}")


def request(port: int, method: str, path: str, body: bytes | None = None,
            headers: dict[str, str] | None = None, timeout: float = 60.0) -> int:
    """One request on its own connection: its status (0: no answer in ``timeout``)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            head = {"Host": f"127.0.0.1:{port}", "Connection": "close", **(headers or {})}
            if body is not None:
                head["Content-Length"] = str(len(body))
            sock.sendall((f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in head.items())
                          + "\r\n").encode() + (body or b""))
            data = b""
            while b"\r\n" not in data and (chunk := sock.recv(65536)):
                data += chunk
            while sock.recv(65536):
                pass
    except OSError:
        return 0
    return int(data.split(b" ", 2)[1]) if data else 0


def long_record(size: int) -> bytes:
    """A valid record of a long match (a Marathon of random moves), padded
    to ``size`` bytes with blank lines at its end."""
    import random

    from kamisado.rules import record
    from kamisado.rules.match import FILL, OVER, Match

    rng = random.Random(1)
    match = Match(15)
    while match.state != OVER:
        match.apply(rng.choice(["left", "right"]) if match.state == FILL
                    else str(rng.choice(list(match.position.legal_moves))))
    text = record.write(record.Record.new(match, "Ann", "Bob")).encode()
    return text + b"\n" * max(0, size - len(text))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def games_beside_a_poster(args: argparse.Namespace, body: bytes) -> None:
    """``--games N``: the server without rate limits (load.py opens every
    game from one address), N games played by ``bench/load.py --url``, and
    one address posting ``body`` to ``/api/records`` in a loop meanwhile."""
    with tempfile.TemporaryDirectory() as tmp:
        log_path = os.path.join(tmp, "server.log")
        proc, port = start(os.path.join(tmp, "g.db"), args.server_args.split(), log_path,
                           {"KAMISADO_WEB_LIMITS": "off"})
        stop = threading.Event()
        answers: Counter[int] = Counter()

        def poster() -> None:
            while not stop.is_set():
                answers[request(port, "POST", "/api/records", body,
                                {"X-Forwarded-For": "198.51.100.1", "Content-Type": "text/plain"})] += 1

        thread = threading.Thread(target=poster)
        try:
            if not args.quiet:
                thread.start()
            load = subprocess.run(
                [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "load.py"),
                 "--url", f"http://127.0.0.1:{port}/", "--games", str(args.games), "--think", "1",
                 "--seconds", "20"], capture_output=True, text=True, check=False)
        finally:
            stop.set()
            if thread.is_alive():
                thread.join()
            proc.terminate()
            proc.wait(30)
    print(f"load average at the end: {os.getloadavg()[0]:.1f} (CPUs: {os.cpu_count()})")
    print(f"{args.games} games beside " + ("no records" if args.quiet else
          f"one address posting {len(body)}-byte records ({args.kind}) in a loop:"
          f" answers {dict(sorted(answers.items()))}"))
    print(load.stdout.strip() or load.stderr.strip()[-2000:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=40, help="records posted at once (default 40)")
    parser.add_argument("--size", type=int, default=1 << 20, help="bytes each (default 1 MiB, the cap)")
    parser.add_argument("--kind", choices=["newlines", "long"], default="newlines")
    parser.add_argument("--every", type=float, default=0.05, help="seconds between /healthz probes")
    parser.add_argument("--server-args", default="", help="more arguments for kamisado web")
    parser.add_argument("--games", type=int, default=0,
                        help="instead: hold this many games with bench/load.py (--think 1, 20 s) while one"
                             " address posts records one after another, and print load.py's figures")
    parser.add_argument("--quiet", action="store_true", help="with --games: no records posted (the baseline)")
    args = parser.parse_args()
    body = b"\n" * args.size if args.kind == "newlines" else long_record(args.size)
    if args.games:
        games_beside_a_poster(args, body)
        return
    with tempfile.TemporaryDirectory() as tmp:
        log_path = os.path.join(tmp, "server.log")
        proc, port = start(os.path.join(tmp, "g.db"), args.server_args.split(), log_path)
        try:
            for _ in range(3):
                request(port, "GET", "/healthz")  # warm
            answers: list[tuple[int, float]] = []
            lock = threading.Lock()

            def post(i: int) -> None:
                t0 = time.perf_counter()
                status = request(port, "POST", "/api/records", body,
                                 {"X-Forwarded-For": f"198.51.100.{i + 1}", "Content-Type": "text/plain"})
                with lock:
                    answers.append((status, time.perf_counter() - t0))

            posts = [threading.Thread(target=post, args=(i,)) for i in range(args.records)]
            t_start = time.perf_counter()
            for t in posts:
                t.start()
            probes: list[float] = []
            failed = 0
            while any(t.is_alive() for t in posts):
                t0 = time.perf_counter()
                if request(port, "GET", "/healthz", timeout=30) != 200:
                    failed += 1
                probes.append((time.perf_counter() - t0) * 1000)
                time.sleep(args.every)
            for t in posts:
                t.join()
            took = time.perf_counter() - t_start
        finally:
            proc.terminate()
            proc.wait(30)
    statuses = Counter(status for status, _ in answers)
    print(f"load average at the end: {os.getloadavg()[0]:.1f} (CPUs: {os.cpu_count()})")
    print(f"{args.records} records of {len(body)} bytes ({args.kind}) posted at once from"
          f" {args.records} addresses; all answered in {took:.2f} s")
    print(f"  answers by status: {dict(sorted(statuses.items()))};"
          f" slowest {max(t for _, t in answers):.2f} s")
    print(f"/healthz meanwhile: {len(probes)} probes, {failed} not 200;"
          f" p50 {statistics.median(probes):.1f} ms, p99 {percentile(probes, 0.99):.1f} ms,"
          f" max {max(probes):.1f} ms")


if __name__ == "__main__":
    main()
