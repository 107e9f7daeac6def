"""``kamisado admin``: moderation from the command line (docs/cli.md,
docs/web-moderation.md).

Each subcommand opens ``kamisado web``'s database (``--db``, as ``kamisado
backup``: an SQLite path or a database URL, PostgreSQL too; by default the
one in the user's data folder), acts through
:class:`kamisado.web.accounts.moderation.Moderation` and writes its row of
the audit log as ``cli:USER`` (the operating system's user).  A server
running on the database sees the change at its next request: the truth is
in the database.  Exit status 2 with one line on standard error for a bad
account, report or database.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kamisado.web.accounts.moderation import (
    MUTE_MOST_HOURS,
    ROLES,
    Actor,
    Moderation,
    ModerationError,
    when,
)
from kamisado.web.store.storage import Store

__all__ = ["main"]

DB_HELP = ("kamisado web's database: an SQLite file path or a database URL (default: games.sqlite3"
           " in the user's data folder, as kamisado web)")


class _Failure(Exception):
    """A refusal, said on one line."""


def _open(arg: str | None) -> Store:
    import sqlalchemy as sa

    from kamisado.web.store.storage import database_url, default_database_url

    try:
        url = database_url(arg) if arg else default_database_url()
    except OSError as exc:
        raise _Failure(f"no database: cannot reach the user's data folder ({exc.strerror or exc})") from None
    if url.startswith("sqlite"):
        path = sa.engine.make_url(url).database
        if not path or path == ":memory:" or not Path(path).is_file():
            raise _Failure(f"no database at {path or url}: give kamisado web's with --db")
    try:
        return Store(url)
    except Exception as exc:
        raise _Failure(f"cannot open the database: {str(exc).splitlines()[0] if str(exc) else exc!r}") from None


def _parser() -> argparse.ArgumentParser:
    from kamisado.args import Parser, duration

    parser = Parser(prog="kamisado admin",
                    description="Moderate kamisado web: roles, reports, mutes and closed accounts.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, text: str) -> argparse.ArgumentParser:
        s: argparse.ArgumentParser = sub.add_parser(name, help=text, description=text)
        s.add_argument("--db", default=None, metavar="PATH_OR_URL", help=DB_HELP)
        return s

    for name, text in (("grant", "give an account a role"), ("revoke", "take a role from an account")):
        s = command(name, text)
        s.add_argument("account", metavar="ACCOUNT", help="the account's name")
        s.add_argument("role", metavar="ROLE", choices=ROLES, help=f"the role: {', '.join(ROLES)}")
    s = command("reports", "print the open reports of players")
    s.add_argument("--resolved", action="store_true", help="the resolved ones instead")
    s = command("resolve", "resolve an open report")
    s.add_argument("report", metavar="ID", type=int, help="the report's number (kamisado admin reports)")
    s.add_argument("--note", default=None, help="what was done")
    s = command("mute", "mute an account's chat for some hours")
    s.add_argument("account", metavar="ACCOUNT", help="the account's name")
    s.add_argument("--hours", required=True, type=duration("h", most=MUTE_MOST_HOURS),
                   help=f"how long: hours (at most {MUTE_MOST_HOURS:g}), or with a unit: 30m, 2d")
    s.add_argument("--reason", default=None, help="why (in the audit log)")
    for name, text in (("unmute", "end an account's mute"),
                       ("close", "close an account: no sign-in, its sessions end, off the leaderboards"),
                       ("reopen", "open a closed account again")):
        s = command(name, text)
        s.add_argument("account", metavar="ACCOUNT", help="the account's name")
        s.add_argument("--reason", default=None, help="why (in the audit log)")
    s = command("audit", "print the audit log of moderators' actions, the newest first")
    s.add_argument("--limit", type=int, default=100, help="how many rows (default 100)")
    return parser


def _stamp(at: float | None) -> str:
    return "-" if at is None else datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d %H:%M:%S")


def _print_reports(rows: list[dict[str, Any]]) -> None:
    if not rows:
        print("no open reports")
        return
    for row in rows:
        on = row["reported"]
        who = f"{on['name'] or '-'} ({on['account'] or 'anonymous'}, {on['player']})"
        state = []
        if on.get("closed") is not None:
            state.append("closed")
        if on.get("muted_until"):
            state.append(f"muted until {when(on['muted_until'])}")
        print(f"#{row['id']} {_stamp(row['created'])} {row['reason']}: {who}"
              + (f" [{', '.join(state)}]" if state else ""))
        print(f"  by {row['reporter']['name'] or '-'} ({row['reporter']['player']})"
              + (f" about game {row['game']}" if row["game"] else ""))
        for line in (row["text"] or "").splitlines():
            print(f"  | {line}")
        for line in row["chat"][:5]:
            said = line["text"] if line["text"] is not None else f"<{line['canned']}>"
            print(f"  chat {_stamp(line['at'])} in {line['game']}: {said}")


def _run(args: argparse.Namespace, store: Store) -> str:
    mod = Moderation(store)
    actor = Actor.cli()
    if args.command == "reports":
        if args.resolved:
            for row in store.complaints("resolved", 100):
                print(f"#{row['id']} {row['reason']}: {row['reported_name']} ({row['reported']})"
                      f" resolved by {row['resolved_by']} {_stamp(row['resolved_at'])}: {row['note'] or ''}")
        else:
            _print_reports(mod.open_reports())
        return ""
    if args.command == "audit":
        for row in store.audit_log(max(1, args.limit)):
            target = f"{row['target_account'] or row['target_name'] or ''} ({row['target']})" if row["target"] else ""
            print(" ".join(part for part in (_stamp(row["at"]), row["actor"], row["action"], target,
                                             row["detail"] or "", f"- {row['reason']}" if row["reason"] else "")
                           if part))
        return ""
    if args.command == "resolve":
        mod.resolve(actor, args.report, args.note)
        return f"report {args.report} resolved"
    player = mod.account(args.account)["id"]
    if args.command in ("grant", "revoke"):
        getattr(mod, args.command)(actor, player, args.role)
        return f"{args.account}: {args.role} {'granted' if args.command == 'grant' else 'revoked'}"
    if args.command == "mute":
        until = mod.mute(actor, player, args.hours, args.reason)
        return f"{args.account}: muted until {when(until)}"
    if args.command == "unmute":
        mod.unmute(actor, player, args.reason)
        return f"{args.account}: unmuted"
    if args.command == "close":
        ended = mod.close(actor, player, args.reason)
        from kamisado.web.store.database import StoreErrors

        with contextlib.suppress(*StoreErrors):  # (else the servers' watch closes them within 30 s)
            store.tell_lobby("sessions")  # the servers close those sessions' websockets now
        return f"{args.account}: closed ({ended} sessions ended)"
    mod.reopen(actor, player, args.reason)
    return f"{args.account}: reopened"


def main(argv: list[str] | None = None) -> int:
    """``kamisado admin COMMAND ... [--db PATH_OR_URL]``; the exit status."""
    args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    try:
        store = _open(args.db)
    except _Failure as exc:
        print(f"kamisado admin: {exc}", file=sys.stderr)
        return 2
    try:
        said = _run(args, store)
    except ModerationError as exc:
        print(f"kamisado admin: {exc}", file=sys.stderr)
        return 2
    finally:
        store.close()
    if said:
        print(f"kamisado admin: {said}")
    return 0
