"""``kamisado backup`` and ``kamisado restore`` (``kamisado/web/store/backup.py``):
backups taken while a real server plays are consistent snapshots, a backup
restored into a fresh server plays on, and what cannot be done is refused
in one line with nothing changed."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import connect

from kamisado.cli import main
from kamisado.web.play.state import GameState
from kamisado.web.store import migrations
from kamisado.web.store.storage import Store
from tests.conftest import stop_process

pytestmark = pytest.mark.timeout(300)


def kamisado(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kamisado.cli", *args],
                          capture_output=True, text=True, timeout=120)


def start_server(db: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "kamisado.cli", "web", "--port", "0", "--no-browser", "--db", str(db),
         "--workers", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env={**os.environ, "KAMISADO_WEB_LIMITS": "off"})  # four players from one address
    assert proc.stdout is not None
    for line in proc.stdout:
        found = re.search(r"serving on http://([\d.]+:\d+)/", line)
        if found:
            return proc, found.group(1)
    stop_process(proc)
    raise AssertionError("the server did not start")


def new_game(addr: str) -> dict[str, Any]:
    req = urllib.request.Request(f"http://{addr}/api/games", data=b'{"target": 3}',
                                 headers={"Content-Type": "application/json"}, method="POST")
    game: dict[str, Any] = json.loads(urllib.request.urlopen(req, timeout=10).read())
    return game


def recv_state(ws: Any) -> dict[str, Any]:
    while True:
        msg: dict[str, Any] = json.loads(ws.recv(timeout=20))
        if msg["type"] == "state":
            return msg
        raise AssertionError(msg)


def act(ws: Any, st: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Play a random legal action for the side to act; its acknowledgement."""
    if st["state"] == "fill":
        ws.send(json.dumps({"type": "fill", "direction": rng.choice(["left", "right"]), "seq": st["seq"]}))
    else:
        frm = rng.choice(sorted(st["legal"]))
        ws.send(json.dumps({"type": "move", "move": f"{frm}-{rng.choice(st['legal'][frm])}",
                            "seq": st["seq"]}))
    got = recv_state(ws)
    assert got["seq"] == st["seq"] + 1
    return got


class Players:
    """Hotseat games played at random on a real server, each by a thread of
    its own, a new game once one is over; ``acked``: each game's actions
    acknowledged so far."""

    def __init__(self, addr: str, count: int) -> None:
        self.addr = addr
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.acked: dict[str, int] = {}
        self.tokens: dict[str, str] = {}
        self.errors: list[BaseException] = []
        self.threads = [threading.Thread(target=self.play, args=(seed,)) for seed in range(count)]
        for thread in self.threads:
            thread.start()

    def play(self, seed: int) -> None:
        rng = random.Random(seed)
        try:
            with connect(f"ws://{self.addr}/ws") as ws:
                while not self.stop.is_set():
                    game = new_game(self.addr)
                    with self.lock:
                        self.tokens[game["id"]], self.acked[game["id"]] = game["tokens"]["b"], 0
                    ws.send(json.dumps({"type": "join", "game": game["id"], "token": game["tokens"]["b"]}))
                    st = recv_state(ws)
                    while st["state"] != "over" and not self.stop.wait(0.01):
                        st = act(ws, st, rng)
                        with self.lock:
                            self.acked[game["id"]] = st["seq"]
        except BaseException as exc:  # noqa: BLE001 (reported by the test)
            self.errors.append(exc)

    def snapshot(self) -> dict[str, int]:
        with self.lock:
            return dict(self.acked)

    def end(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(60)
        assert not self.errors, self.errors


def stored(path: Path) -> dict[str, int]:
    """Each game's action count in a database, after checking that its
    actions are exactly 0..count-1 and that they replay through the rules."""
    conn = sqlite3.connect(path)
    try:
        games = dict(conn.execute("SELECT id, actions FROM games").fetchall())
        for gid, count in games.items():
            seqs = [row[0] for row in conn.execute(
                "SELECT seq FROM actions WHERE game_id = ? ORDER BY seq", (gid,))]
            assert seqs == list(range(count)), (gid, count, seqs)
    finally:
        conn.close()
    store = Store(str(path))
    try:
        for gid, count in games.items():
            loaded = store.load(gid)
            assert loaded is not None and GameState.build(*loaded).seq == count
    finally:
        store.close()
    return games


@pytest.mark.slow  # started first (tests/conftest.py)
def test_backups_while_games_are_played_restore_into_a_fresh_server_that_plays_on(tmp_path: Path) -> None:
    live = tmp_path / "live.sqlite3"
    proc, addr = start_server(live)
    try:
        players = Players(addr, 4)
        try:
            backups = []
            for i in range(4):
                while sum(players.snapshot().values()) < 15 * (i + 1):  # play goes on meanwhile
                    assert not players.errors, players.errors
                    threading.Event().wait(0.05)
                before = players.snapshot()  # acknowledged: committed before the backup began
                out = tmp_path / f"backup-{i}.sqlite3"
                result = kamisado("backup", str(out), "--db", str(live))
                assert result.returncode == 0, result.stderr
                games = stored(out)  # a consistent snapshot: no gap, every game replays
                assert result.stdout == (f"kamisado backup: {out}: {len(games)} games,"
                                         f" {sum(games.values())} actions (schema {migrations.head()})\n")
                assert len(games) > 1
                for gid, seq in before.items():
                    assert games.get(gid, -1) >= seq, (gid, seq, games.get(gid))
                backups.append((out, games))
            assert sum(backups[-1][1].values()) > sum(backups[0][1].values())
        finally:
            players.end()
        # never under a running server, --force or not; the live database is left as it was
        live_games = stored(live)
        for force in ((), ("--force",)):
            result = kamisado("restore", str(backups[0][0]), "--db", str(live), *force)
            assert result.returncode == 2 and result.stdout == ""
            assert result.stderr.startswith("kamisado restore: the SQLite database")
            assert f"in use by another kamisado web (process {proc.pid})" in result.stderr
        assert stored(live) == live_games
    finally:
        stop_process(proc)
    last, games = backups[-1]
    fresh = tmp_path / "fresh.sqlite3"
    result = kamisado("restore", str(last), "--db", str(fresh))
    assert result.returncode == 0, result.stderr
    assert result.stdout == (f"kamisado restore: {fresh}: {len(games)} games,"
                             f" {sum(games.values())} actions (schema {migrations.head()})\n")
    assert stored(fresh) == games
    proc, addr = start_server(fresh)
    try:
        rng = random.Random(7)
        ongoing = [gid for gid in games if gid in players.tokens]
        with connect(f"ws://{addr}/ws") as ws:
            played = 0
            for gid in ongoing:
                ws.send(json.dumps({"type": "join", "game": gid, "token": players.tokens[gid]}))
                st = recv_state(ws)
                assert st["seq"] == games[gid]  # the game as the backup holds it
                if st["state"] != "over":
                    assert act(ws, st, rng)["seq"] == games[gid] + 1  # and it plays on
                    played += 1
            assert played
    finally:
        stop_process(proc)


# -- what is refused, in one line, with nothing changed ------------------------------------------


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A kamisado database with one game of two actions."""
    path = tmp_path / "games.sqlite3"
    store = Store(str(path))
    try:
        from kamisado.web.store.storage import GameRow

        store.create(GameRow.new("g1", target=1))
        store.append("g1", 0, "c1-c5", state="playing", points=(0, 0))
        store.append("g1", 1, "b8-b3", state="playing", points=(0, 0))
    finally:
        store.close()
    return path


def refused(got: tuple[int, str, str], command: str, *needles: str) -> None:
    status, out, err = got
    assert (status, out) == (2, ""), got
    assert len(err.splitlines()) == 1 and err.startswith(f"kamisado {command}: "), err
    for needle in needles:
        assert needle in err, err


def test_backup_refusals(capsys: pytest.CaptureFixture[str], db: Path, tmp_path: Path) -> None:
    refused(run(capsys, "backup", str(tmp_path / "b"), "--db", "postgresql://u:secret@db/k"),
            "backup", "PostgreSQL", "pg_dump", "pg_restore", "docs/deploy.md")
    refused(run(capsys, "backup", str(tmp_path / "b"), "--db", str(tmp_path / "none.sqlite3")),
            "backup", "no database at")
    assert not (tmp_path / "none.sqlite3").exists()  # never made
    refused(run(capsys, "backup", str(db), "--db", str(db)), "backup", "is the database itself")
    refused(run(capsys, "backup", str(tmp_path / "no" / "b"), "--db", str(db)), "backup", "no folder")
    other = tmp_path / "other.sqlite3"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    refused(run(capsys, "backup", str(tmp_path / "b"), "--db", str(other)), "backup",
            "not a kamisado web database")
    assert not (tmp_path / "b").exists() and not list(tmp_path.glob(".b.*"))  # nor a partial one


def holding_one_game(target: Path) -> None:
    """Make ``target`` a database that holds one game, ``mine``, with no actions."""
    from kamisado.web.store.storage import GameRow

    store = Store(str(target))
    try:
        store.create(GameRow.new("mine", target=3))
    finally:
        store.close()


def test_restore_refusals_and_force(capsys: pytest.CaptureFixture[str], db: Path, tmp_path: Path) -> None:
    backup = tmp_path / "backup.sqlite3"
    assert run(capsys, "backup", str(backup), "--db", str(db))[0] == 0
    refused(run(capsys, "restore", str(backup), "--db", "postgresql://u@db/k"), "restore", "pg_restore")
    refused(run(capsys, "restore", str(tmp_path / "none"), "--db", str(tmp_path / "new.sqlite3")),
            "restore", "no database at")
    garbage = tmp_path / "garbage"
    garbage.write_bytes(b"not a database at all" * 100)
    refused(run(capsys, "restore", str(garbage), "--db", str(tmp_path / "new.sqlite3")),
            "restore", "is not an SQLite database")
    newer = tmp_path / "newer.sqlite3"
    shutil.copy(backup, newer)
    conn = sqlite3.connect(newer)
    conn.execute("UPDATE alembic_version SET version_num = '9999'")
    conn.commit()
    conn.close()
    refused(run(capsys, "restore", str(newer), "--db", str(tmp_path / "new.sqlite3")),
            "restore", "newer kamisado (schema 9999)", "upgrade kamisado first")
    damaged = tmp_path / "damaged.sqlite3"
    data = bytearray(backup.read_bytes())
    page = 4096
    data[3 * page: 4 * page] = b"\xff" * page  # a page of the tables overwritten
    damaged.write_bytes(bytes(data))
    status, out, err = run(capsys, "restore", str(damaged), "--db", str(tmp_path / "new.sqlite3"))
    assert (status, out) == (2, "") and err.startswith("kamisado restore: ") and len(err.splitlines()) == 1
    assert not (tmp_path / "new.sqlite3").exists()  # nothing written for a backup refused

    # a database holding games is replaced only with --force
    target = tmp_path / "target.sqlite3"
    holding_one_game(target)
    refused(run(capsys, "restore", str(backup), "--db", str(target)), "restore", "holds 1 game;",
            "--force")
    assert stored(target) == {"mine": 0}
    status, out, err = run(capsys, "restore", str(backup), "--db", str(target), "--force")
    assert (status, err) == (0, "") and out == f"kamisado restore: {target}: 1 game, 2 actions (schema {migrations.head()})\n"
    assert stored(target) == {"g1": 2}


@pytest.mark.parametrize(("edit", "needles"), [
    ("UPDATE actions SET token = 'zz-zz' WHERE seq = 1", ("game g1 does not replay", "action 1 'zz-zz'")),
    ("UPDATE games SET start_kpn = 'garbage'", ("game g1 does not replay", "start KPN 'garbage'")),
    ("DELETE FROM actions WHERE seq = 0", ("game g1 does not replay", "action 0 missing")),
])
def test_restore_refuses_a_backup_whose_games_do_not_replay(
        capsys: pytest.CaptureFixture[str], db: Path, tmp_path: Path, edit: str,
        needles: tuple[str, ...]) -> None:
    backup = tmp_path / "backup.sqlite3"
    assert run(capsys, "backup", str(backup), "--db", str(db))[0] == 0
    conn = sqlite3.connect(backup)
    conn.execute(edit)
    conn.commit()
    conn.close()
    fresh = tmp_path / "new.sqlite3"
    refused(run(capsys, "restore", str(backup), "--db", str(fresh)), "restore", *needles)
    assert not fresh.exists()  # nothing written
    target = tmp_path / "target.sqlite3"
    holding_one_game(target)
    refused(run(capsys, "restore", str(backup), "--db", str(target), "--force"), "restore", *needles)
    assert stored(target) == {"mine": 0}  # as it was, even with --force
