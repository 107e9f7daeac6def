"""``kamisado web`` refuses to start with one clear line: exit 2, nothing on
standard output, no traceback; and the real server's request limits."""

from __future__ import annotations

import os
import re
import select
import socket
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from kamisado.web.site.pages import MAX_JSON_BODY, MAX_RECORD_BODY
from kamisado.web.store.storage import database_url


def web(
    *args: str, env: dict[str, str] | None = None, before: str = ""
) -> subprocess.CompletedProcess[str]:
    """Run ``kamisado web --no-browser ARGS`` (after the Python code ``before``)."""
    code = f"import sys\n{before}\nfrom kamisado.cli import main\nraise SystemExit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, "web", "--no-browser", *args],
        capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=60,
    )


def refused(result: subprocess.CompletedProcess[str], *needles: str) -> str:
    """Exit 2, one line on standard error holding every needle, nothing else."""
    assert result.returncode == 2, result
    assert result.stdout == "", result
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("kamisado web: "), result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def test_a_data_folder_that_cannot_be_made_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    # (tests run as root, for whom no folder is unwritable: a file in the path is)
    env = {"HOME": str(blocker), "XDG_DATA_HOME": str(blocker / "data")}
    line = refused(web("--port", "0", env=env), "cannot create the data folder", "--db")
    assert str(blocker) in line


def test_a_port_in_use_is_named_with_the_way_out(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        refused(web("--port", str(port), "--db", str(tmp_path / "g.db")),
                f"port {port}", "in use", "--port")


def test_a_missing_postgresql_driver_names_the_extra() -> None:
    result = web("--db", "postgresql://nobody@127.0.0.1:1/none",
                 before="sys.modules['psycopg'] = None  # as if it were not installed")
    refused(result, "in the kamisado clone, .venv/bin/pip install -e '.[postgres]'")


def test_database_errors_are_one_line_without_the_password(tmp_path: Path) -> None:
    refused(web("--db", str(tmp_path / "no-folder" / "g.db")), "cannot open database",
            "does its folder exist")
    line = refused(web("--db", "postgresql://me:sesame@127.0.0.1:1/none"), "cannot open database")
    assert "sesame" not in line
    refused(web("--port", "70000"), "port 0-65535")
    refused(web("--frobnicate"), "unrecognized arguments")


def test_sqlite_paths_and_urls() -> None:
    # a plain path is made absolute; in a URL three slashes are relative, four absolute
    assert database_url("games.db") == "sqlite:///" + str(Path("games.db").absolute())
    assert database_url("~/g.db") == "sqlite:///" + str(Path.home() / "g.db")
    assert database_url("sqlite:///games.db") == "sqlite:///games.db"
    assert database_url("sqlite:////var/games.db") == "sqlite:////var/games.db"


def start(args: list[str], cwd: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "kamisado.cli", "web", "--port", "0", "--no-browser",
         "--workers", "1", *args],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=cwd,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        found = re.search(r"serving on http://([\d.]+):(\d+)/", line)
        if found:
            return proc, found.group(2)
    proc.kill()
    raise AssertionError(f"the server did not start: {proc.wait()}")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[int, int]]:
    """A real server on a relative SQLite URL: (its port, its process id)."""
    proc, port = start(["--db", "sqlite:///games.db"], tmp_path)
    try:
        assert (tmp_path / "games.db").exists()  # relative to the server's folder
        yield int(port), proc.pid
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def post(port: int, path: str, headers: dict[str, str], body: Iterable[bytes]) -> tuple[int, bytes]:
    """POST ``body`` piece by piece, stopping as soon as an answer comes; returns
    the bytes sent and the answer's first line."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: test\r\n{head}\r\n".encode())
        sent = 0
        for piece in body:
            if select.select([sock], [], [], 0)[0]:
                break
            try:
                sock.sendall(piece)
            except OSError:
                break
            sent += len(piece)
        answer = b""
        try:
            while b"\r\n" not in answer:
                more = sock.recv(4096)
                if not more:
                    break
                answer += more
        except OSError:
            pass
    return sent, answer.split(b"\r\n")[0]


def chunked(size: int, n: int) -> Iterator[bytes]:
    for _ in range(n):
        yield b"%x\r\n%s\r\n" % (size, b" " * size)
    yield b"0\r\n\r\n"


def rss(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    found = re.search(r"VmRSS:\s+(\d+) kB", status)
    assert found
    return int(found.group(1)) * 1024


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_the_server_refuses_large_bodies_while_they_arrive(server: tuple[int, int]) -> None:
    port, pid = server
    before = rss(pid)
    # a 300 MB Content-Length is refused before any of the body is read
    sent, status = post(port, "/api/records", {"Content-Length": str(300 << 20)},
                        [b" " * 65536] * 4800)
    assert status.startswith(b"HTTP/1.1 413") and sent < 64 << 20
    # a chunked body (no Content-Length) is refused once past the limit, not at its end
    total = 64 << 20
    for path, limit in (("/api/records", MAX_RECORD_BODY), ("/api/games", MAX_JSON_BODY)):
        sent, status = post(port, path, {"Transfer-Encoding": "chunked"},
                            chunked(65536, total // 65536))
        assert status.startswith(b"HTTP/1.1 413"), status
        assert limit < sent < total // 2
    assert rss(pid) - before < 40 << 20  # the server never held a whole body


def test_a_second_process_on_the_same_sqlite_file_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    proc, _ = start(["--db", str(db)], tmp_path)
    try:
        line = refused(web("--port", "0", "--db", str(db)), "in use by another kamisado web",
                       f"process {proc.pid}", "PostgreSQL")
        assert str(db) in line
        # another file is not refused
        other, _ = start(["--db", str(tmp_path / "other.db")], tmp_path)
        other.terminate()
        other.wait(timeout=10)
    finally:
        proc.kill()  # even a killed server lets go of the file
        proc.wait(timeout=10)
    again, _ = start(["--db", str(db)], tmp_path)
    again.terminate()
    again.wait(timeout=10)


def test_session_days_reach_the_app_and_bad_ones_are_one_line(tmp_path: Path) -> None:
    for bad in ("0", "-1", "nan", "inf"):
        refused(web("--port", "0", "--db", str(tmp_path / "g.db"), "--session-days", bad), "--session-days")
    # the app is made with the lifetime in seconds (it stops right there)
    spy = ("import kamisado.web.site.server as server\n"
           "server.create_app = lambda *a, **k: (print('idle', k['session_idle']), sys.exit(0))")
    done = web("--port", "0", "--db", str(tmp_path / "g.db"), "--session-days", "1.5", before=spy)
    assert done.returncode == 0 and "idle 129600.0" in done.stdout, done
