"""Alembic's environment: migrations run on the connection the server hands
over (``config.attributes["connection"]``), never from an ini file."""

from __future__ import annotations

from alembic import context


def run() -> None:
    """Run the migrations Alembic asked for, on the connection given."""
    connection = context.config.attributes.get("connection")
    if connection is None:
        raise RuntimeError("run migrations through kamisado.web.store.migrations.upgrade(engine)")
    context.configure(connection=connection, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


try:
    context.config  # noqa: B018  (only there while Alembic runs this file)
except AttributeError:  # imported by something else (a doctest run): nothing to do
    pass
else:
    run()
