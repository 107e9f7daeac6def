"""``kamisado admin`` against an SQLite file (docs/cli.md, docs/web-moderation.md):
roles, reports, mutes, closing and reopening, each one row of the audit
log as ``cli:USER``; a bad account, report, value or database is exit 2
with one line, and changes nothing."""

from __future__ import annotations

import getpass
import time
from pathlib import Path

import pytest

from kamisado.cli import main as kamisado
from kamisado.web.accounts.players import PasswordHasher, Players
from kamisado.web.store.storage import Store


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A database with the accounts ann and bob, and Ann's report of Bob."""
    path = tmp_path / "games.sqlite3"
    store = Store(str(path))
    book = Players(store.engine, PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))
    ann, bob = book.new(), book.new()
    book.sign_up(ann.id, "ann", "a long password", "Ann")
    book.sign_up(bob.id, "bob", "a long password", "Bob")
    book.sessions.start(bob.id, "Firefox")
    store.add_complaint(ann.id, bob.id, "abuse", "rude in the chat\ntwice", None, time.time())
    store.close()
    return path


def state(db: Path, account: str) -> dict[str, object]:
    store = Store(str(db))
    try:
        found = store.player_by_account(account)
        assert found is not None
        return found
    finally:
        store.close()


def audit(db: Path) -> list[tuple[str, str, str | None, str | None]]:
    store = Store(str(db))
    try:
        return [(r["actor"], r["action"], r["reason"], r["detail"]) for r in store.audit_log()][::-1]
    finally:
        store.close()


def test_roles_mutes_closing_and_the_audit_log(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    me = f"cli:{getpass.getuser()}"
    assert kamisado(["admin", "grant", "ANN", "moderator", "--db", str(db)]) == 0
    assert "ANN: moderator granted" in capsys.readouterr().out
    assert state(db, "ann")["roles"] == "moderator"
    assert kamisado(["admin", "revoke", "ann", "moderator", "--db", str(db)]) == 0
    assert state(db, "ann")["roles"] is None
    before = time.time()
    assert kamisado(["admin", "mute", "bob", "--hours", "2", "--reason", "spam", "--db", str(db)]) == 0
    assert "bob: muted until" in capsys.readouterr().out
    muted = state(db, "bob")["muted_until"]
    assert isinstance(muted, float) and before + 7200 <= muted <= time.time() + 7200
    assert kamisado(["admin", "unmute", "bob", "--db", str(db)]) == 0
    assert state(db, "bob")["muted_until"] is None
    assert kamisado(["admin", "close", "bob", "--reason", "cheating", "--db", str(db)]) == 0
    assert "bob: closed (1 sessions ended)" in capsys.readouterr().out
    assert state(db, "bob")["closed"] is not None
    assert kamisado(["admin", "reopen", "bob", "--db", str(db)]) == 0
    assert state(db, "bob")["closed"] is None
    assert audit(db) == [(me, "grant", None, "moderator"), (me, "revoke", None, "moderator"),
                         (me, "mute", "spam", "2 h"), (me, "unmute", None, None),
                         (me, "close", "cheating", "1 sessions ended"), (me, "reopen", None, None)]
    capsys.readouterr()
    assert kamisado(["admin", "audit", "--db", str(db)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 6 and f"{me} reopen bob" in lines[0] and lines[-1].endswith("moderator")
    assert "close bob" in lines[1] and lines[1].endswith("1 sessions ended - cheating")


def test_reports_are_printed_and_resolved(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert kamisado(["admin", "reports", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "#1 " in out and "abuse: Bob (bob," in out and "  | rude in the chat\n  | twice" in out
    assert kamisado(["admin", "resolve", "1", "--note", "warned", "--db", str(db)]) == 0
    assert "report 1 resolved" in capsys.readouterr().out
    assert kamisado(["admin", "reports", "--db", str(db)]) == 0
    assert capsys.readouterr().out == "no open reports\n"
    assert kamisado(["admin", "reports", "--resolved", "--db", str(db)]) == 0
    assert "warned" in capsys.readouterr().out
    assert kamisado(["admin", "resolve", "1", "--db", str(db)]) == 2
    assert capsys.readouterr().err == "kamisado admin: report 1 is resolved already\n"


@pytest.mark.parametrize(("args", "said"), [
    (["grant", "nobody", "moderator"], "kamisado admin: no account 'nobody'\n"),
    (["reopen", "bob"], "kamisado admin: that account is not closed\n"),
    (["resolve", "7"], "kamisado admin: no report 7\n"),
    (["close", "bob", "--reason", "a\u202eb"], "kamisado admin: reason: no bidi controls (U+202E found)\n"),
])
def test_a_bad_request_is_exit_2_with_one_line_and_changes_nothing(
        db: Path, capsys: pytest.CaptureFixture[str], args: list[str], said: str) -> None:
    assert kamisado(["admin", *args, "--db", str(db)]) == 2
    assert capsys.readouterr().err == said
    assert state(db, "bob")["closed"] is None and audit(db) == []


def test_bad_values_and_a_missing_database(tmp_path: Path, db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        kamisado(["admin", "mute", "bob", "--hours", "0", "--db", str(db)])
    assert exit_.value.code == 2 and "--hours: expected a positive duration" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        kamisado(["admin", "grant", "ann", "admin", "--db", str(db)])
    assert "invalid choice: 'admin'" in capsys.readouterr().err
    missing = tmp_path / "none.sqlite3"
    assert kamisado(["admin", "reports", "--db", str(missing)]) == 2
    assert capsys.readouterr().err == f"kamisado admin: no database at {missing}: give kamisado web's with --db\n"
    assert not missing.exists()
    assert audit(db) == []
