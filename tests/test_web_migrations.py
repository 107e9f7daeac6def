"""The schema's migrations (issue 11, item 9): a database written before
migrations existed upgrades on start with every game kept; the tables the
code queries are exactly the tables the migrations make."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from kamisado.web.store import migrations
from kamisado.web.store.storage import Store, metadata

DATA = Path(__file__).parent / "data"


def test_a_database_from_before_migrations_upgrades_with_its_games(tmp_path: Path) -> None:
    # written by the version before migrations: games and actions, no alembic_version
    db = tmp_path / "games.sqlite3"
    shutil.copy(DATA / "games-before-migrations.sqlite3", db)
    engine = sa.create_engine(f"sqlite:///{db}")
    assert migrations.current(engine) is None
    engine.dispose()
    store = Store(str(db))
    try:
        assert migrations.current(store.engine) == migrations.head()
        loaded = store.load("oldgame1")
        assert loaded is not None
        row, tokens = loaded
        assert tokens == ["c1-c5", "b8-b5"]
        assert (row.target, row.gold, row.black_name, row.black_token, row.seed) == (3, "club", "Ann", "tok-b", 7)
        assert {r.id for r in store.list()} == {"oldgame1", "oldgame2"}
        # and it goes on: the next action is stored after the old ones
        store.append("oldgame1", 2, "a1-a2", state="playing", points=(0, 0))
        again = store.load("oldgame1")
        assert again is not None and again[1][-1] == "a1-a2"
    finally:
        store.close()
    # opening it again changes nothing
    store = Store(str(db))
    try:
        assert migrations.current(store.engine) == migrations.head()
    finally:
        store.close()


def _schema_diff(engine: sa.Engine) -> list[object]:
    with engine.connect() as conn:
        diff: list[object] = compare_metadata(MigrationContext.configure(conn), metadata)
        return diff


def test_migrations_make_exactly_the_tables_the_code_uses(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "fresh.sqlite3"))
    try:
        assert _schema_diff(store.engine) == []
    finally:
        store.close()


def test_migrations_on_postgresql(pg_url: str) -> None:
    from kamisado.web.store.storage import database_url

    engine = sa.create_engine(database_url(pg_url))
    with engine.begin() as conn:  # every table there, whichever revision made it
        names = sa.inspect(conn).get_table_names()
        if names:
            conn.execute(sa.text(f"DROP TABLE IF EXISTS {', '.join(names)} CASCADE"))
    engine.dispose()
    store = Store(pg_url)
    try:
        assert migrations.current(store.engine) == migrations.head()
        assert _schema_diff(store.engine) == []
    finally:
        store.close()


def test_a_database_at_revision_0002_gets_players_with_its_games_kept(tmp_path: Path) -> None:
    # revision 0003 adds players, the seats' players and to_act: the games of
    # a database written at 0002 stay as they were, every seat unclaimed
    from alembic import command

    db = tmp_path / "at-0002.sqlite3"
    engine = sa.create_engine(f"sqlite:///{db}")
    with engine.begin() as conn:
        command.upgrade(migrations._config(conn), "0002")
    with engine.begin() as conn:
        conn.execute(sa.text(
            "INSERT INTO games (id, created, updated, target, series, start_kpn, black, gold,"
            " black_name, gold_name, black_token, gold_token, online, seed, delay, state,"
            " black_points, gold_points, actions, clock_days, black_ms, gold_ms)"
            " VALUES ('g0002', 1, 2, 3, 0, 'ignored', 'human', 'human', 'Ann', '', 'tb', 'tg',"
            " 1, 7, 0, 'playing', 0, 0, 1, 3, 1000, 2000)"
        ))
        conn.execute(sa.text("INSERT INTO actions VALUES ('g0002', 0, 'c1-c5', 2)"))
    assert migrations.current(engine) == "0002"
    engine.dispose()
    store = Store(str(db))
    try:
        assert migrations.current(store.engine) == migrations.head() == "0020"
        assert _schema_diff(store.engine) == []
        loaded = store.load("g0002")
        assert loaded is not None
        row, tokens = loaded
        assert tokens == ["c1-c5"]
        assert (row.black_name, row.black_token, row.gold_token, row.online) == ("Ann", "tb", "tg", True)
        assert (row.clock_days, row.black_ms, row.gold_ms) == (3, 1000, 2000)
        assert (row.black_player, row.gold_player, row.to_act) == (None, None, None)
        # the invite still claims its seat, once
        assert store.claim("g0002", 1, "p1", "Bo") == "p1"
        assert store.claim("g0002", 1, "p2") == "p1"
        again = store.load("g0002")
        assert again is not None and (again[0].gold_player, again[0].gold_name) == ("p1", "Bo")
    finally:
        store.close()


def test_a_database_at_revision_0003_gets_ratings_with_its_games_kept(tmp_path: Path) -> None:
    # revision 0004 adds rated/offer/rematch and the rating tables: a game of
    # a database written at 0003 keeps every action (a table copy on SQLite
    # would have deleted them through the actions' ON DELETE CASCADE)
    from alembic import command

    db = tmp_path / "at-0003.sqlite3"
    engine = sa.create_engine(f"sqlite:///{db}")
    with engine.begin() as conn:
        conn.exec_driver_sql("PRAGMA foreign_keys=ON")
        command.upgrade(migrations._config(conn), "0003")
    with engine.begin() as conn:
        conn.execute(sa.text(
            "INSERT INTO games (id, created, updated, target, series, start_kpn, black, gold,"
            " black_name, gold_name, black_token, gold_token, online, seed, delay, state,"
            " black_points, gold_points, actions, black_player, to_act)"
            " VALUES ('g0003', 1, 2, 3, 0, 'ignored', 'human', 'club', 'Ann', '', 'tb', NULL,"
            " 0, 7, 0, 'playing', 0, 0, 2, 'p1', 'b')"
        ))
        conn.execute(sa.text("INSERT INTO actions VALUES ('g0003', 0, 'c1-c5', 2)"))
        conn.execute(sa.text("INSERT INTO actions VALUES ('g0003', 1, 'b8-b5', 2)"))
    engine.dispose()
    store = Store(str(db))
    try:
        assert migrations.current(store.engine) == migrations.head()
        assert _schema_diff(store.engine) == []
        loaded = store.load("g0003")
        assert loaded is not None
        row, tokens = loaded
        assert tokens == ["c1-c5", "b8-b5"]
        assert (row.rated, row.offer, row.rematch, row.black_player) == (False, None, None, "p1")
        assert store.player_ratings("p1") == {}
    finally:
        store.close()


def test_a_downgrade_keeps_the_actions(tmp_path: Path) -> None:
    # the later revisions change the games table in place: a table copy on
    # SQLite would delete every action through ON DELETE CASCADE
    from alembic import command

    from kamisado.web.store.storage import GameRow

    db = tmp_path / "down.sqlite3"
    store = Store(str(db))
    store.create(GameRow.new("gdown", target=3), ["c1-c5", "b8-b5"])
    store.close()
    engine = sa.create_engine(f"sqlite:///{db}")
    with engine.begin() as conn:
        conn.exec_driver_sql("PRAGMA foreign_keys=ON")
        command.downgrade(migrations._config(conn), "0003")
    assert migrations.current(engine) == "0003"
    with engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT token FROM actions ORDER BY seq").scalars().all() == ["c1-c5", "b8-b5"]
    engine.dispose()
    store = Store(str(db))  # and up again
    try:
        loaded = store.load("gdown")
        assert loaded is not None and loaded[1] == ["c1-c5", "b8-b5"]
    finally:
        store.close()


def test_revision_0015_keeps_one_rated_attempt_of_a_player_at_a_puzzle(tmp_path: Path) -> None:
    # the race revision 0015 closes left two rated attempts of one player at
    # one puzzle: the first stays rated, the later one becomes unrated
    from alembic import command

    db = tmp_path / "at-0014.sqlite3"
    engine = sa.create_engine(f"sqlite:///{db}")
    with engine.begin() as conn:
        command.upgrade(migrations._config(conn), "0014")
    with engine.begin() as conn:
        puzzle = conn.exec_driver_sql("SELECT id FROM puzzles ORDER BY id LIMIT 1").scalar()
        for aid, player, rated in ((1, "p1", 1), (2, "p1", 1), (3, "p1", 0), (4, "p2", 1)):
            conn.execute(sa.text(
                "INSERT INTO puzzle_attempts (id, puzzle, player, started, state, moves, rated)"
                " VALUES (:id, :puzzle, :player, 1, 'failed', '', :rated)"
            ), {"id": aid, "puzzle": puzzle, "player": player, "rated": rated})
    engine.dispose()
    store = Store(str(db))
    try:
        assert migrations.current(store.engine) == migrations.head() == "0020"
        with store.engine.connect() as conn:
            rated = conn.exec_driver_sql("SELECT id FROM puzzle_attempts WHERE rated ORDER BY id").scalars().all()
            assert rated == [1, 4]
            with pytest.raises(sa.exc.IntegrityError):  # and never again
                conn.execute(sa.text(
                    "INSERT INTO puzzle_attempts (puzzle, player, started, state, moves, rated)"
                    " VALUES (:puzzle, 'p2', 2, 'playing', '', 1)"), {"puzzle": puzzle})
    finally:
        store.close()
