"""The schema's migrations (issue 11, item 9): a database written before
migrations existed upgrades on start with every game kept; the tables the
code queries are exactly the tables the migrations make."""

from __future__ import annotations

import shutil
from pathlib import Path

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from kamisado.web import migrations
from kamisado.web.storage import Store, metadata

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
    from kamisado.web.storage import database_url

    engine = sa.create_engine(database_url(pg_url))
    with engine.begin() as conn:
        conn.execute(sa.text("DROP TABLE IF EXISTS actions, games, alembic_version CASCADE"))
    engine.dispose()
    store = Store(pg_url)
    try:
        assert migrations.current(store.engine) == migrations.head()
        assert _schema_diff(store.engine) == []
    finally:
        store.close()
