"""A database's whole content as plain values, on SQLite and PostgreSQL alike: every table of the schema the URL
reaches, every row, in a stable order. Tests compare two dumps to show that something wrote nothing."""

from __future__ import annotations

from sqlalchemy import MetaData, create_engine, select
from sqlalchemy.pool import NullPool


def dump(url: str) -> dict[str, list[tuple]]:
    """table name → its rows (as tuples of values, sorted by their text)."""
    engine = create_engine(url, poolclass=NullPool)
    try:
        metadata = MetaData()
        metadata.reflect(engine)
        with engine.connect() as conn:
            return {name: sorted((tuple(row) for row in conn.execute(select(table))), key=repr)
                    for name, table in sorted(metadata.tables.items())}
    finally:
        engine.dispose()
