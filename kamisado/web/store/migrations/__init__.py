"""The schema's history, as Alembic migrations, run by :func:`upgrade` when
the server starts: a database written by any earlier version is brought up
to date with every game kept.

A database made before migrations existed (tables, but no
``alembic_version``) is the first revision's schema: it is stamped as such
and upgraded from there.

>>> import sqlalchemy as sa
>>> engine = sa.create_engine("sqlite://")
>>> upgrade(engine)
>>> current(engine) == head()
True
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Engine

__all__ = ["current", "head", "revisions", "upgrade"]

HERE = Path(__file__).resolve().parent
#: The first revision: the schema as it was before migrations.
BASELINE = "0001"


def _config(conn: sa.Connection | None = None) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(HERE))
    if conn is not None:
        cfg.attributes["connection"] = conn
    return cfg


@contextmanager
def _quiet() -> Iterator[None]:
    """Alembic's progress lines (``Context impl SQLiteImpl.``, ``Will assume
    non-transactional DDL.``, ``Running upgrade ...``, logged at INFO) kept
    off the server's log while it starts; its warnings and errors still go
    through."""
    alembic_log = logging.getLogger("alembic")
    before = alembic_log.level
    if alembic_log.getEffectiveLevel() < logging.WARNING:
        alembic_log.setLevel(logging.WARNING)
    try:
        yield
    finally:
        alembic_log.setLevel(before)


def head() -> str:
    """The newest revision."""
    rev = ScriptDirectory.from_config(_config()).get_current_head()
    assert rev is not None
    return rev


def revisions() -> set[str]:
    """Every revision this version knows (a database at any other was
    written by a newer one).

    >>> {"0001", head()} <= revisions()
    True
    """
    return {rev.revision for rev in ScriptDirectory.from_config(_config()).walk_revisions()}


def current(engine: Engine) -> str | None:
    """The revision a database is at (``None``: none recorded)."""
    with _quiet(), engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(engine: Engine) -> None:
    """Bring a database's schema up to the newest revision, in one
    transaction per step; an empty database gets the whole schema.
    Quiet: Alembic logs nothing below a warning."""
    with _quiet():
        with engine.begin() as conn:
            known = MigrationContext.configure(conn).get_current_revision()
            if known is None and sa.inspect(conn).has_table("games"):
                # written before migrations existed: the baseline's tables
                command.stamp(_config(conn), BASELINE)
        with engine.begin() as conn:
            command.upgrade(_config(conn), "head")
