"""Fixtures of the security regression tests: a database URL per engine, and a hasher that counts checks.

`db_url` is an SQLite file under tmp_path, plus, when XIAOE_TEST_DATABASE_URL names a PostgreSQL
database, a fresh schema in it (dropped afterwards), so the store tests run on both engines.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from tests.app.conftest import app_env, open_app  # noqa: F401 - the page fixtures, shared with tests/app

PG_URL = os.environ.get("XIAOE_TEST_DATABASE_URL", "")
ENGINES = ["sqlite"] + (["postgresql"] if PG_URL else [])


@pytest.fixture(params=ENGINES)
def db_url(request, tmp_path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'xiaoe.sqlite3'}"
        return
    schema = f"t_{secrets.token_hex(6)}"
    admin = create_engine(PG_URL)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    url = make_url(PG_URL).update_query_dict({"options": f"-csearch_path={schema}"})
    yield url.render_as_string(hide_password=False)
    with admin.begin() as conn:
        conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
    admin.dispose()
