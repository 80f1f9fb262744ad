"""PostgreSQL application role (docs/postgresql.md): the console works with INSERT/SELECT only on the
append-only tables, and the server refuses that role UPDATE, DELETE and TRUNCATE there, with a Chinese message."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import Column, Integer, MetaData, Table, create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from core.errors import StoreError
from core.stores import audit
from core.stores.db import Database, Migration, Schema, create_tables
from core.stores.review import ReviewStore
from core.stores.schemas import SCHEMAS
from tests.stores.test_review import answer

APPEND_ONLY = ("audit_log", "review_events", "corpus_versions", "glossary_changes", "default_changes")


def grants(role: str, schema: str) -> list[str]:
    """The statements docs/postgresql.md gives for the application role (schema instead of public)."""
    tables = ", ".join(f"{schema}.{table}" for table in APPEND_ONLY)
    return [
        f"GRANT USAGE ON SCHEMA {schema} TO {role}",
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {schema} TO {role}",
        f"REVOKE UPDATE, DELETE ON {tables} FROM {role}",
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {schema} TO {role}",
    ]


@pytest.fixture
def app_url(postgresql_database_url):
    owner = Database(postgresql_database_url)
    for schema in SCHEMAS:  # `python -m core db upgrade`, run as the owner
        owner.migrate(schema)
    url = make_url(postgresql_database_url)
    schema = url.query["options"].split("=", 1)[1]
    role = f"xr_{uuid.uuid4().hex[:12]}"
    admin = create_engine(url.set(query={}), poolclass=NullPool, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"CREATE ROLE {role} NOLOGIN"))
        for statement in grants(role, schema):
            conn.execute(text(statement))
    owner.dispose()
    # the owner's connection, switched to the application role for the whole session
    yield url.update_query_dict({"options": f"-csearch_path={schema} -crole={role}"}).render_as_string(
        hide_password=False)
    with admin.connect() as conn:
        conn.execute(text(f"DROP OWNED BY {role}"))
        conn.execute(text(f"DROP ROLE {role}"))
    admin.dispose()


def test_postgresql_app_role_runs_the_stores(app_url):
    db = Database(app_url)
    store = ReviewStore(db)
    item_id = store.enqueue(answer(), fingerprint="f")
    store.decide(item_id, action="approve", reviewer="王老师", expected_version=1)
    audit.record(db, "boss", "account_add", "amy")
    with db.read() as conn:
        assert conn.execute(text("SELECT current_user")).scalar_one().startswith("xr_")
    assert store.get(item_id).status == "approved" and len(audit.recent(db)) == 1
    db.dispose()


@pytest.mark.parametrize("table", APPEND_ONLY)
def test_postgresql_app_role_may_not_rewrite_history(app_url, table):
    db = Database(app_url)
    for statement in (f"UPDATE {table} SET id = id", f"DELETE FROM {table}", f"TRUNCATE {table}"):
        with pytest.raises(StoreError, match="没有这项操作的权限"), db.transaction() as conn:
            conn.execute(text(statement))
    db.dispose()


def test_postgresql_app_role_pending_migration_says_to_upgrade_as_owner(app_url):
    later = Table("later_table", MetaData(), Column("id", Integer, primary_key=True))
    db = Database(app_url)
    with pytest.raises(StoreError, match="python -m core db upgrade"):
        db.migrate(Schema("later", (Migration(1, "a table added by a later release", create_tables(later)),)))
    db.dispose()
