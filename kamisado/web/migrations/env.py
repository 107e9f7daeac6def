"""Alembic's environment: migrations run on the connection the server hands
over (``config.attributes["connection"]``), never from an ini file."""

from __future__ import annotations

from alembic import context

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - only ever run through kamisado.web.migrations
    raise RuntimeError("run migrations through kamisado.web.migrations.upgrade(engine)")
context.configure(connection=connection, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
