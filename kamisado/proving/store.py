"""The store of proven round starts: one table, SQLite by default,
PostgreSQL when given a URL (SQLAlchemy Core, the same schema for both).

A row is a proven round start: its KPN (the key), the match's target, the
side that wins the match from it, its proof (the plan of
:func:`kamisado.proving.rounds.prove_start`, as JSON) and the child starts
the proof relies on, and what proving it cost.  Rows are only ever added,
each in its own transaction, so a stop (SIGINT, a crash) keeps every start
proven before it, and a later run goes on from them.

>>> s = ProofStore(":memory:")
>>> s.count(3)
0
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager

import sqlalchemy as sa

from kamisado.proving.rounds import Entry, StartResult

__all__ = ["ProofStore", "Proven", "store_url"]

_meta = sa.MetaData()
#: One proven round start per row.
starts = sa.Table(
    "match_round_starts",
    _meta,
    sa.Column("start", sa.String(200), primary_key=True),
    sa.Column("target", sa.Integer, nullable=False, index=True),
    sa.Column("winner", sa.Integer, nullable=False),
    sa.Column("plan", sa.Text, nullable=False),
    sa.Column("needs", sa.Text, nullable=False),
    sa.Column("positions", sa.Integer, nullable=False),
    sa.Column("nodes", sa.BigInteger, nullable=False),
    sa.Column("seconds", sa.Float, nullable=False),
)


def store_url(where: str) -> str:
    """The SQLAlchemy URL of ``where``: a URL as it is, a path as SQLite.

    >>> store_url("proof.sqlite"), store_url("postgresql://u@h/db")
    ('sqlite:///proof.sqlite', 'postgresql+psycopg://u@h/db')
    """
    if "://" not in where:
        return f"sqlite:///{where}"
    if where.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + where.split("://", 1)[1]
    return where


class Proven:
    """A proven round start as the store holds it."""

    __slots__ = ("needs", "plan", "start", "winner")

    def __init__(self, start: str, winner: int, plan: dict[str, Entry], needs: list[str]) -> None:
        self.start = start
        self.winner = winner
        self.plan = plan
        self.needs = needs


class ProofStore:
    """Proven round starts at ``where`` (a file path, ``:memory:``, or a
    ``sqlite://`` / ``postgresql://`` URL); the table is made when missing,
    unless ``create`` is false: then a store that is not there (no file, no
    table, no database) raises ``ValueError`` and nothing is made."""

    def __init__(self, where: str, create: bool = True) -> None:
        self.url = store_url(where)
        if not create and "://" not in where and not os.path.isfile(where):
            raise ValueError(f"no match proof store at {where}: no such file")
        try:
            self.engine = sa.create_engine(self.url)
            if create:
                _meta.create_all(self.engine)
            elif not sa.inspect(self.engine).has_table(starts.name):
                self.engine.dispose()
                raise ValueError(f"no match proof store at {where}: no {starts.name} table")
        except (sa.exc.SQLAlchemyError, ImportError) as err:
            raise ValueError(f"cannot open the match proof store {where}: {str(err).splitlines()[0]}") from None

    @contextmanager
    def _tx(self) -> Iterator[sa.Connection]:
        with self.engine.begin() as c:
            yield c

    def load(self, target: int) -> dict[str, int]:
        """``{start: winner}`` of every proven start of matches to ``target``."""
        with self._tx() as c:
            rows = c.execute(sa.select(starts.c.start, starts.c.winner).where(starts.c.target == target))
            return {r.start: int(r.winner) for r in rows}

    def count(self, target: int) -> int:
        """How many starts of matches to ``target`` are proven."""
        with self._tx() as c:
            n = c.execute(sa.select(sa.func.count()).where(starts.c.target == target)).scalar()
            return int(n or 0)

    def put(self, r: StartResult, target: int) -> bool:
        """Keep the proven start ``r``; ``False`` when it was there already."""
        if r.winner is None:
            raise ValueError(f"not proven: {r.start}")
        row = {
            "start": r.start,
            "target": target,
            "winner": r.winner,
            "plan": json.dumps(r.plan, separators=(",", ":")),
            "needs": json.dumps(r.needs),
            "positions": r.positions,
            "nodes": r.nodes,
            "seconds": r.seconds,
        }
        with self._tx() as c:
            if c.execute(sa.select(starts.c.start).where(starts.c.start == r.start)).first():
                return False
            c.execute(starts.insert().values(**row))
        return True

    def get(self, start: str) -> Proven | None:
        """The proven start ``start``, or ``None``."""
        with self._tx() as c:
            r = c.execute(sa.select(starts).where(starts.c.start == start)).first()
        if r is None:
            return None
        return Proven(r.start, int(r.winner), json.loads(r.plan), json.loads(r.needs))

    def proofs(self, target: int) -> Iterator[Proven]:
        """Every proven start of matches to ``target``, with its plan."""
        with self._tx() as c:
            rows = c.execute(sa.select(starts).where(starts.c.target == target)).all()
        for r in rows:
            yield Proven(r.start, int(r.winner), json.loads(r.plan), json.loads(r.needs))

    def size(self, target: int) -> tuple[int, int]:
        """The proven starts of matches to ``target`` and the bytes of their
        rows' text (key, plan, needs): the store's size, without the
        database's own overhead."""
        with self._tx() as c:
            row = c.execute(
                sa.select(
                    sa.func.count(),
                    sa.func.coalesce(
                        sa.func.sum(
                            sa.func.length(starts.c.start)
                            + sa.func.length(starts.c.plan)
                            + sa.func.length(starts.c.needs)
                        ),
                        0,
                    ),
                ).where(starts.c.target == target)
            ).one()
        return int(row[0]), int(row[1])

    def close(self) -> None:
        """Let go of the database."""
        self.engine.dispose()
