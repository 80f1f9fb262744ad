"""The dual-engine store fixture: `database_url` gives each test a fresh, empty database on SQLite and on PostgreSQL.

Test ids name the engine (`[sqlite]`, `[postgresql]`), so `-k postgresql` runs exactly the
PostgreSQL half. PostgreSQL comes from XIAOE_TEST_DATABASE_URL (any server you may create
schemas on); each test gets its own schema, reached through the URL's `search_path`, dropped
afterwards. Without that variable the PostgreSQL cases are skipped with a line saying how to
run them; with CI=true they fail instead, so CI can never pass without PostgreSQL.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import NullPool

ENV = "XIAOE_TEST_DATABASE_URL"
ENGINES = ("sqlite", "postgresql")
HOW_TO_RUN = f"未设置 {ENV}，PostgreSQL 用例跳过（运行方法见 docs/postgresql.md）"
HOW_TO_RUN_LONG = (f"PostgreSQL 用例跳过了 {{count}} 个：没有设置 {ENV}。启动一个 PostgreSQL（见 docs/postgresql.md）后运行 "
                   f"{ENV}=postgresql+psycopg://用户@127.0.0.1:端口/库名 python -m pytest -k postgresql")


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def skip_postgresql_when_unset(items: list[pytest.Item]) -> None:
    """Mark the PostgreSQL cases skipped when no server is named (outside CI); `-ra` lists them by file."""
    if os.environ.get(ENV, "").strip() or in_ci():
        return
    for item in items:
        if engine_of(item) == "postgresql":
            item.add_marker(pytest.mark.skip(reason=HOW_TO_RUN))


def engine_of(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    return callspec.params.get("database_url") if callspec is not None else None


def _engine_in(nodeid: str) -> str | None:
    params = nodeid.rpartition("[")[2].rstrip("]").split("-") if nodeid.endswith("]") else []
    return next((engine for engine in ENGINES if engine in params), None)


def summary_line(terminalreporter) -> None:
    """At the end of the run: how many store tests passed on each engine, and how to run the skipped
    PostgreSQL half."""
    counts = {(engine, outcome): 0 for engine in ENGINES for outcome in ("passed", "failed", "skipped")}
    for outcome in ("passed", "failed", "error", "skipped"):
        for report in terminalreporter.stats.get(outcome, []):
            engine = _engine_in(getattr(report, "nodeid", ""))
            if engine and getattr(report, "when", "call") in ("call", "setup"):
                if outcome == "passed" and report.when != "call":
                    continue
                counts[engine, "failed" if outcome == "error" else outcome] += 1
    if not any(counts.values()):
        return
    terminalreporter.write_line("存储测试（两种数据库）：" + "；".join(
        f"{engine} 通过 {counts[engine, 'passed']}、失败 {counts[engine, 'failed']}、跳过 {counts[engine, 'skipped']}"
        for engine in ENGINES))
    if counts["postgresql", "skipped"] and not os.environ.get(ENV, "").strip():
        terminalreporter.write_line(HOW_TO_RUN_LONG.format(count=counts["postgresql", "skipped"]), yellow=True)


@pytest.fixture(scope="session")
def postgresql_server() -> Iterator[Engine]:
    """An engine on the server named by XIAOE_TEST_DATABASE_URL, for creating and dropping test schemas."""
    base = os.environ.get(ENV, "").strip()
    if not base:
        if in_ci():
            pytest.fail(f"CI=true 但没有设置 {ENV}：CI 必须在 PostgreSQL 上跑完存储测试（.ci/run 会自己启动一个）。")
        pytest.skip(HOW_TO_RUN)
    shown = make_url(base).render_as_string(hide_password=True)
    engine = create_engine(base, poolclass=NullPool, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except SQLAlchemyError as error:
        pytest.fail(f"{ENV}（{shown}）连不上：{type(error).__name__}。请确认 PostgreSQL 已启动、地址和权限正确。")
    yield engine
    engine.dispose()


def _postgresql_url(server: Engine) -> Iterator[str]:
    schema = f"xt_{uuid.uuid4().hex[:16]}"
    with server.connect() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    # application_name marks this test's connections so teardown can close the ones a test left open
    url = server.url.update_query_dict({"options": f"-csearch_path={schema}", "application_name": schema})
    rendered = url.render_as_string(hide_password=False)
    try:
        yield rendered
    finally:
        from core.stores import db as core_db

        cached = core_db._databases.pop(rendered, None)
        if cached is not None:
            cached.dispose()
        with server.connect() as conn:
            conn.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                              "WHERE application_name = :name AND pid <> pg_backend_pid()"), {"name": schema})
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))


@pytest.fixture(params=ENGINES)
def database_url(request, tmp_path) -> Iterator[str]:
    """A URL of a fresh, empty database: an SQLite file in tmp_path, or a new PostgreSQL schema."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'xiaoe.sqlite3'}"
        return
    yield from _postgresql_url(request.getfixturevalue("postgresql_server"))


@pytest.fixture
def postgresql_database_url(postgresql_server) -> Iterator[str]:
    """A fresh PostgreSQL schema only, for what SQLite has no counterpart of (roles and grants)."""
    yield from _postgresql_url(postgresql_server)


@pytest.fixture
def database_engine(database_url) -> str:
    """The engine name of `database_url`: "sqlite" or "postgresql"."""
    return make_url(database_url).get_backend_name()
