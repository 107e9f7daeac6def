"""Probe ``kamisado web`` across a PostgreSQL restart (issue 40, item 6):
two processes on one database, each asked ``GET /readyz``, ``GET /api/me``
and ``GET /api/games`` before and after ``pg_ctl restart -m fast`` (every
connection the processes keep is ended by the server meanwhile).

Starts two ``kamisado web`` processes (subprocesses, the code on
``PYTHONPATH``) on a PostgreSQL cluster of its own (the tests'
:class:`tests.conftest.Cluster`) and prints what each answered:

    python bench/probe_store_faults.py

Runs as root (the cluster runs as ``postgres``) or as the cluster's owner.
"""

from __future__ import annotations

import glob
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench.probe_edges import request, start, tracebacks  # noqa: E402
from tests.conftest import Cluster  # noqa: E402  (the tests' throwaway PostgreSQL)

PATHS = ("/readyz", "/api/me", "/api/games")


def ask(port: int, cookie: str) -> list[str]:
    """Each of :data:`PATHS` once, in order: ``path status body``."""
    out = []
    for path in PATHS:
        status, _, body = request(port, "GET", path, headers={"Cookie": cookie} if cookie else None)
        text = body.decode(errors="replace")
        out.append(f"{path} {status} {text[:70] if status != 200 else ''}".rstrip())
    return out


def main() -> None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]))
    cluster = Cluster(found[-1])
    cluster.create()
    logs = [tempfile.mktemp(prefix=f"kamisado-probe-store-{i}-", suffix=".log") for i in (1, 2)]
    procs = []
    try:
        for log in logs:
            procs.append(start(cluster.url, [], log))
        cookies = []
        for _, port in procs:
            _, head, _ = request(port, "GET", "/api/me")
            cookies.append(head.get("set-cookie", "").split(";")[0])
        for i, (_, port) in enumerate(procs, 1):
            for line in ask(port, cookies[i - 1]):
                print(f"before, process {i}: {line}")
        cluster.stop("fast")  # pg_ctl restart -m fast
        cluster.start()
        for i, (_, port) in enumerate(procs, 1):
            for line in ask(port, cookies[i - 1]):
                print(f"after the restart, process {i}: {line}")
        for i, log in enumerate(logs, 1):
            print(f"process {i}: {tracebacks(log)} tracebacks in its log ({log})")
    finally:
        for proc, _ in procs:
            proc.terminate()
            proc.wait(timeout=20)
        cluster.remove()


if __name__ == "__main__":
    main()
