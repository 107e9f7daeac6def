"""The command line's edges: a missing optional dependency is one line naming
the extra to install; a closed standard output ends a command quietly, as
for any Unix tool; ``kamisado web`` prints no migration log lines when it
starts."""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kamisado.args import SIGPIPE_STATUS
from kamisado.rules.board import START_KPN

DATA = Path(__file__).parent / "data"
MISSING = "sys.modules[{name!r}] = None  # as if it were not installed"


def kamisado(*args: str, before: str = "") -> subprocess.CompletedProcess[str]:
    """``kamisado ARGS`` in a fresh Python, after the code ``before``."""
    code = f"import sys\n{before}\nfrom kamisado.cli import main\nraise SystemExit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *args],
                          capture_output=True, text=True, timeout=60)


def one_line(result: subprocess.CompletedProcess[str], line: str) -> None:
    """Exit 2, exactly ``line`` on standard error, nothing on standard output."""
    assert (result.returncode, result.stdout, result.stderr) == (2, "", line + "\n")


# -- optional dependencies ---------------------------------------------------------


@pytest.mark.parametrize("module", ["arq", "redis"])
def test_web_queue_without_the_queue_extra(tmp_path: Path, module: str) -> None:
    result = kamisado("web", "--no-browser", "--port", "0", "--db", str(tmp_path / "g.db"),
                      "--queue", "redis://127.0.0.1:1/0", before=MISSING.format(name=module))
    one_line(result, "kamisado web: --queue needs the 'queue' extra:"
             " in the kamisado clone, .venv/bin/pip install -e '.[queue]'")


@pytest.mark.parametrize("module", ["arq", "redis"])
def test_worker_without_the_queue_extra(module: str) -> None:
    result = kamisado("worker", "--queue", "redis://127.0.0.1:1/0",
                      before=MISSING.format(name=module))
    one_line(result, "kamisado worker: --queue needs the 'queue' extra:"
             " in the kamisado clone, .venv/bin/pip install -e '.[queue]'")


def test_web_on_postgresql_without_the_postgres_extra(tmp_path: Path) -> None:
    result = kamisado("web", "--no-browser", "--port", "0",
                      "--db", "postgresql://nobody@127.0.0.1:1/none",
                      before=MISSING.format(name="psycopg"))
    one_line(result, "kamisado web: a PostgreSQL --db needs the 'postgres' extra:"
             " in the kamisado clone, .venv/bin/pip install -e '.[postgres]'")


def test_only_the_extras_own_modules_count_as_the_extra_missing() -> None:
    from kamisado.web.work.jobs import queue_missing

    assert queue_missing(ModuleNotFoundError(name="arq.connections"))
    assert queue_missing(ModuleNotFoundError(name="redis"))
    assert not queue_missing(ModuleNotFoundError(name="arqueology"))
    assert not queue_missing(ImportError("cannot import name 'x'"))


# -- a closed pipe -----------------------------------------------------------------


def closed_early(args: list[str], lines: int, stdin: Path | None = None) -> tuple[int, str]:
    """Run ``kamisado ARGS`` into a real pipe, read ``lines`` lines, close the
    pipe; returns the exit status and standard error."""
    with open(stdin or os.devnull, "rb") as source:
        proc = subprocess.Popen([sys.executable, "-m", "kamisado.cli", *args], stdin=source,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert proc.stdout is not None and proc.stderr is not None
        for _ in range(lines):
            assert proc.stdout.readline()
        proc.stdout.close()  # the reader goes, as head does
        err = proc.stderr.read().decode()
        return proc.wait(timeout=120), err


def test_a_closed_pipe_ends_a_long_output_quietly(tmp_path: Path) -> None:
    # 100,000 lines of moves (some 30 MB): far more than a pipe holds, so
    # the command is writing when the reader goes
    source = tmp_path / "positions.txt"
    source.write_text(f"{START_KPN}\n" * 100_000)
    status, err = closed_early(["moves", "-"], 3, stdin=source)
    assert (status, err) == (SIGPIPE_STATUS, "")


def test_a_review_piped_into_head_ends_quietly(tmp_path: Path) -> None:
    # the kamisado analyse --review game.kmr | head -5: a review
    # prints as it goes, so it is normally still running when head leaves
    from kamisado.engine.levels import player
    from kamisado.rules import record
    from kamisado.rules.match import FILL, Match

    match = Match(3)
    players = [player("beginner", seed=1), player("novice", seed=2)]
    while match.state != "over":
        if match.state == FILL:
            match.choose_fill("left")
        else:
            match.push_move(players[match.position.turn].choose_move(match.position))
    path = tmp_path / "game.kmr"
    record.save(record.Record({}, match), path)
    status, err = closed_early(["analyse", "--review", str(path)], 5)
    assert err == ""
    assert status in (SIGPIPE_STATUS, 0)  # 0 only if it had finished writing first


def test_the_engine_protocol_ends_quietly_when_its_reader_goes(tmp_path: Path) -> None:
    # python -m kamisado.protocol.kei, as tournament engines are started
    source = tmp_path / "commands.txt"
    source.write_text("kei\n" * 20_000)
    proc = subprocess.Popen([sys.executable, "-m", "kamisado.protocol.kei"],
                            stdin=source.open("rb"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) in (0, SIGPIPE_STATUS)
    assert err == ""


def test_a_broken_pipe_that_is_not_standard_outputs_is_still_an_error() -> None:
    from kamisado.args import quiet_pipe

    def other_pipe() -> int:
        raise BrokenPipeError("an engine's stdin")

    if not hasattr(__import__("select"), "poll"):  # pragma: no cover - Windows
        pytest.skip("tells standard output's pipe by poll")
    # pytest's captured stdout is a file, never a gone reader
    with pytest.raises(BrokenPipeError, match="an engine's stdin"):
        quiet_pipe(other_pipe)


# -- quiet migrations --------------------------------------------------------------


def start_web(db: str, cwd: Path) -> list[str]:
    """Start ``kamisado web`` on ``db``; every line it prints up to and with
    its 'serving on' line (standard error too), then stop it."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "kamisado.cli", "web", "--port", "0", "--no-browser",
         "--workers", "1", "--db", db],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=cwd,
    )
    assert proc.stdout is not None
    lines: list[str] = []
    try:
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            if "serving on" in line:
                return lines
        raise AssertionError(f"the server did not start: {lines}")
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        proc.stdout.close()


def test_web_starts_without_migration_lines(tmp_path: Path) -> None:
    fresh = start_web(str(tmp_path / "new.db"), tmp_path)  # the whole schema made
    assert len(fresh) == 1 and re.match(r"kamisado web: serving on http://", fresh[0]), fresh
    again = start_web(str(tmp_path / "new.db"), tmp_path)  # already at the head
    assert len(again) == 1, again
    old = tmp_path / "old.db"  # from before migrations: stamped, then every step run
    shutil.copy(DATA / "games-before-migrations.sqlite3", old)
    upgraded = start_web(str(old), tmp_path)
    assert len(upgraded) == 1, upgraded


def test_migrations_log_nothing_below_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import sqlalchemy as sa

    from kamisado.web.store import migrations

    alembic_log = logging.getLogger("alembic")
    before = alembic_log.level
    shutil.copy(DATA / "games-before-migrations.sqlite3", tmp_path / "old.db")
    with caplog.at_level(logging.DEBUG):
        for name in ("new.db", "old.db"):
            engine = sa.create_engine(f"sqlite:///{tmp_path / name}")
            migrations.upgrade(engine)
            assert migrations.current(engine) == migrations.head()
            engine.dispose()
    assert [r for r in caplog.records if r.name.startswith("alembic")] == []
    assert alembic_log.level == before  # warnings and errors, and anyone's own setting, kept
