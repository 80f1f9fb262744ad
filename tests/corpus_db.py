"""Database URLs for the corpus tests: SQLite always, PostgreSQL when XIAOE_TEST_DATABASE_URL names one.

Each PostgreSQL test gets a fresh schema (search_path in the URL), so tests never see each
other's rows; without the variable the PostgreSQL case is skipped with a line saying how to run it.
"""

from __future__ import annotations

import os
import uuid

import pytest

SKIP_PG = ("PostgreSQL 未配置：设置 XIAOE_TEST_DATABASE_URL=postgresql+psycopg://… 后运行（见 /work/shared/testing.md 的临时集群步骤）")


def database_urls() -> list[object]:
    return [pytest.param("sqlite", id="sqlite"), pytest.param("postgresql", id="postgresql")]


def resolve(kind: str, tmp_path) -> str:
    """A fresh database URL of `kind` for one test."""
    if kind == "sqlite":
        return f"sqlite:///{tmp_path / 'xiaoe.sqlite3'}"
    base = os.environ.get("XIAOE_TEST_DATABASE_URL", "")
    if not base.startswith("postgresql"):
        pytest.skip(SKIP_PG)
    from sqlalchemy import create_engine, text

    schema = f"t_{uuid.uuid4().hex[:12]}"
    engine = create_engine(base)
    with engine.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    engine.dispose()
    separator = "&" if "?" in base else "?"
    return f"{base}{separator}options=-csearch_path%3D{schema}"
