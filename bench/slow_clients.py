"""Hold thousands of slow request heads against ``kamisado web`` and time
``/healthz`` meanwhile (issue 40, item 1).

Starts one ``kamisado web`` (a subprocess, the code on ``PYTHONPATH``, a
SQLite database of its own; its file-descriptor limit is this process's,
``ulimit -n``), then holder processes that open ``--sockets`` connections
from ``--addresses`` loopback addresses (127.1.x.y), each sending
``GET / HTTP/1.1\\r\\nHost: x\\r\\nX-a: b`` and nothing more, and keep them
for ``--seconds``. Meanwhile a request for ``/healthz`` goes from another
address (127.0.0.250) every quarter second. Prints how many sockets
opened, how the server closed them and when (503 refused, 408 for a slow
head, closed without a word, reset), ``/healthz``'s latency and failures,
and the server's RSS and open file descriptors::

    python bench/slow_clients.py                      # 20,000 sockets from 100 addresses
    python bench/slow_clients.py --addresses 1        # all from one address
    python bench/slow_clients.py --server-args "--header-timeout 5"
"""

from __future__ import annotations

import argparse
import errno
import multiprocessing
import os
import re
import resource
import select
import shlex
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from typing import Any

HEAD = b"GET / HTTP/1.1\r\nHost: x\r\nX-a: b"
#: the address /healthz is asked from ("from elsewhere")
PROBE_ADDRESS = "127.0.0.250"
CONNECT_TIMEOUT_S = 5.0


def raise_fd_limit() -> int:
    """This process's soft limit on file descriptors raised to its hard one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def source(index: int) -> str:
    """The ``index``-th loopback address of the holders."""
    return f"127.1.{index // 250}.{index % 250 + 1}"


def hold(port: int, indexes: range, addresses: int, seconds: float, t0: float, out: Connection) -> None:
    """Open a slow head on a socket for each of ``indexes`` (non-blocking),
    watch them until ``t0 + seconds``; send back what happened to each:
    a list of (kind, seconds after t0)."""
    raise_fd_limit()
    poll = select.epoll()
    socks: dict[int, tuple[socket.socket, float, bool]] = {}  # fd: (socket, opened at, connected)
    events: list[tuple[str, float]] = []

    def end(fd: int, kind: str) -> None:
        sock = socks.pop(fd)[0]
        poll.unregister(fd)
        sock.close()
        events.append((kind, time.monotonic() - t0))

    def watch(timeout: float) -> None:
        for fd, mask in poll.poll(timeout):
            if fd not in socks:
                continue
            sock, _, connected = socks[fd]
            if not connected:
                error = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if error:
                    end(fd, "connect failed: " + errno.errorcode.get(error, str(error)))
                    continue
                if mask & select.EPOLLOUT:
                    try:
                        sock.send(HEAD)
                    except OSError as exc:
                        end(fd, "send failed: " + type(exc).__name__)
                        continue
                    socks[fd] = (sock, socks[fd][1], True)
                    poll.modify(fd, select.EPOLLIN | select.EPOLLRDHUP)
                    events.append(("open", time.monotonic() - t0))
                    continue
            try:
                data = sock.recv(4096)
            except ConnectionResetError:
                end(fd, "reset")
                continue
            except BlockingIOError:
                continue
            status = re.match(rb"HTTP/1\.1 (\d+)", data)
            end(fd, f"answered {status.group(1).decode()}" if status else "closed without a word")

    for i in indexes:
        sock = socket.socket()
        sock.setblocking(False)
        try:
            sock.bind((source(i % addresses), 0))
            sock.connect_ex(("127.0.0.1", port))
        except OSError as exc:
            sock.close()
            events.append(("connect failed: " + type(exc).__name__, time.monotonic() - t0))
            continue
        socks[sock.fileno()] = (sock, time.monotonic(), False)
        poll.register(sock.fileno(), select.EPOLLOUT | select.EPOLLIN | select.EPOLLRDHUP)
        if i % 200 == 0:
            watch(0)
    deadline = t0 + seconds
    while (now := time.monotonic()) < deadline:
        watch(min(0.2, deadline - now))
        for fd, (_, since, connected) in list(socks.items()):
            if not connected and now - since > CONNECT_TIMEOUT_S:
                end(fd, "connect timed out")
    held = len(socks)
    for sock, _, _ in socks.values():
        sock.close()
    out.send((events, held))
    out.close()


def healthz(port: int) -> float | str:
    """One ``GET /healthz`` on a new connection: its latency (s) or why it failed."""
    start = time.monotonic()
    try:
        with socket.socket() as sock:
            sock.settimeout(10)
            sock.bind((PROBE_ADDRESS, 0))
            sock.connect(("127.0.0.1", port))
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
    except OSError as exc:
        return type(exc).__name__
    if not data.startswith(b"HTTP/1.1 200"):
        return repr(data[:40])
    return time.monotonic() - start


def server_figures(pid: int) -> tuple[float, int]:
    """The server's RSS (MB) and open file descriptors."""
    try:
        with open(f"/proc/{pid}/status") as status:
            rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024
        return rss, len(os.listdir(f"/proc/{pid}/fd"))
    except (OSError, StopIteration):
        return 0.0, 0


def start_server(db: str, extra: list[str], log_path: str) -> tuple[subprocess.Popen[bytes], int]:
    log = open(log_path, "wb")  # noqa: SIM115  (the server's whole output, read afterwards)
    proc = subprocess.Popen(
        [sys.executable, "-m", "kamisado.cli", "web", "--port", "0", "--no-browser", "--workers", "1",
         "--db", db, *extra],
        stdout=subprocess.PIPE, stderr=log, cwd=tempfile.gettempdir(),
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        found = re.search(rb"serving on http://[\d.]+:(\d+)/", line)
        if found:
            return proc, int(found.group(1))
    raise SystemExit(f"the server did not start: {proc.wait()}; see {log_path}")


def summary(name: str, times: list[float]) -> str:
    times = sorted(times)
    return (f"{name}: {len(times)} (first at {times[0]:.1f} s, median {statistics.median(times):.1f} s,"
            f" last {times[-1]:.1f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sockets", type=int, default=20_000, help="slow heads to hold (default 20000)")
    parser.add_argument("--addresses", type=int, default=100,
                        help="loopback addresses they come from (default 100)")
    parser.add_argument("--holders", type=int, default=2, help="processes holding them (default 2)")
    parser.add_argument("--seconds", type=float, default=40.0, help="how long to hold them (default 40)")
    parser.add_argument("--server-args", default="", help="more options for kamisado web")
    args = parser.parse_args()
    limit = raise_fd_limit()
    print(f"file-descriptor limit: {limit} (each holder and the server: {limit})")
    with tempfile.TemporaryDirectory() as tmp:
        log_path = os.path.join(tmp, "server.log")
        proc, port = start_server(os.path.join(tmp, "games.sqlite3"), shlex.split(args.server_args), log_path)
        try:
            run(args, proc.pid, port)
        finally:
            proc.terminate()
            proc.wait(30)
            with open(log_path, errors="replace") as log:
                lines = log.read().splitlines()
            print(f"server log: {len(lines)} lines; the last 5:")
            for line in lines[-5:]:
                print("   ", line[:200])


def run(args: argparse.Namespace, pid: int, port: int) -> None:
    rss0, fds0 = server_figures(pid)
    latencies: list[float] = []
    failures: dict[str, int] = {}
    peak_rss, peak_fds = rss0, fds0
    t0 = time.monotonic()
    pipes, holders = [], []
    share = -(-args.sockets // args.holders)
    for h in range(args.holders):
        mine, theirs = multiprocessing.Pipe(duplex=False)
        indexes = range(h * share, min(args.sockets, (h + 1) * share))
        holder = multiprocessing.Process(target=hold, args=(port, indexes, args.addresses, args.seconds, t0, theirs))
        holder.start()
        pipes.append(mine)
        holders.append(holder)
    slowest: tuple[float, float] = (0.0, 0.0)
    while time.monotonic() - t0 < args.seconds:
        answer = healthz(port)
        if isinstance(answer, float):
            latencies.append(answer)
            slowest = max(slowest, (answer, time.monotonic() - t0))
        else:
            failures[answer] = failures.get(answer, 0) + 1
        rss, fds = server_figures(pid)
        peak_rss, peak_fds = max(peak_rss, rss), max(peak_fds, fds)
        time.sleep(0.25)
    events: list[tuple[str, float]] = []
    held = 0
    for pipe, holder in zip(pipes, holders, strict=True):
        got: Any = pipe.recv()
        events += got[0]
        held += got[1]
        holder.join()
    rss_end, fds_end = server_figures(pid)
    kinds: dict[str, list[float]] = {}
    for kind, at in events:
        kinds.setdefault(kind, []).append(at)
    print(f"{args.sockets} slow heads from {args.addresses} addresses in {args.holders} processes,"
          f" held {args.seconds:g} s")
    for kind in sorted(kinds):
        print("  " + summary(kind, kinds[kind]))
    print(f"  still open at the end: {held}")
    if latencies:
        latencies.sort()
        p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
        print(f"/healthz from {PROBE_ADDRESS}: {len(latencies)} answered, p50 {statistics.median(latencies) * 1000:.1f} ms,"
              f" p99 {p99 * 1000:.1f} ms, max {slowest[0] * 1000:.1f} ms (at {slowest[1]:.1f} s)")
    else:
        print(f"/healthz from {PROBE_ADDRESS}: none answered")
    print(f"/healthz failures: {sum(failures.values())} {failures or ''}")
    print(f"server RSS: {rss0:.0f} MB before, {peak_rss:.0f} MB at most, {rss_end:.0f} MB after;"
          f" open file descriptors: {fds0} before, {peak_fds} at most, {fds_end} after")


if __name__ == "__main__":
    main()
