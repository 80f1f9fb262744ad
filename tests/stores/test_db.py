"""The database helper: migrations once, in order, on a fresh and an existing database, also when 8 processes
open a fresh one at once; the same Chinese errors on SQLite and PostgreSQL."""

from __future__ import annotations

import multiprocessing
import sqlite3

import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table, insert, select, text

from core.errors import StoreError
from core.stores.db import Database, Migration, Schema, create_tables
from tests.db_race import open_every_store

meta = MetaData()
notes = Table("notes", meta, Column("id", Integer, primary_key=True), Column("body", String(50)))


def _schema(*extra: Migration) -> Schema:
    return Schema("notes", (Migration(1, "create notes", create_tables(notes)), *extra))


def _add_column(conn) -> None:
    conn.execute(text("ALTER TABLE notes ADD COLUMN author VARCHAR(50)"))


def test_database_migrates_a_fresh_file(database_url):
    db = Database(database_url)
    db.migrate(_schema())
    assert db.applied("notes") == [1]
    db.dispose()


def test_database_applies_only_new_migrations_to_an_existing_file(database_url):
    url = database_url
    first = Database(url)
    first.migrate(_schema())
    with first.transaction() as conn:
        conn.execute(insert(notes).values(body="保留"))
    first.dispose()
    second = Database(url)
    second.migrate(_schema(Migration(2, "add author", _add_column)))
    assert second.applied("notes") == [1, 2]
    with second.read() as conn:
        assert conn.execute(select(notes.c.body)).scalar_one() == "保留"
    second.dispose()


def test_database_uses_wal_mode(tmp_path):
    db = Database(f"sqlite:///{tmp_path / 'x.sqlite3'}")
    with db.read() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar_one().lower() == "wal"


def test_database_transaction_rolls_back_on_error(database_url):
    db = Database(database_url)
    db.migrate(_schema())
    with pytest.raises(RuntimeError):
        with db.transaction() as conn:
            conn.execute(insert(notes).values(body="半条"))
            raise RuntimeError("crash mid-write")
    with db.read() as conn:
        assert conn.execute(select(notes)).all() == []


def test_database_locked_file_gives_chinese_store_error(tmp_path):
    path = tmp_path / "x.sqlite3"
    db = Database(f"sqlite:///{path}", busy_timeout_ms=100)
    db.migrate(_schema())
    blocker = sqlite3.connect(path)
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreError, match="占用"):
            with db.transaction("保存") as conn:
                conn.execute(insert(notes).values(body="x"))
    finally:
        blocker.rollback()
        blocker.close()


def test_database_blocked_write_reads_the_same_on_both_engines(database_url, database_engine, tmp_path):
    db = Database(database_url, busy_timeout_ms=100)
    db.migrate(_schema())
    if database_engine == "sqlite":
        blocker = sqlite3.connect(tmp_path / "xiaoe.sqlite3")
        blocker.execute("BEGIN EXCLUSIVE")
    else:
        blocker = Database(database_url).engine.connect()
        blocker.execute(text("LOCK TABLE notes IN ACCESS EXCLUSIVE MODE"))
    try:
        with pytest.raises(StoreError) as caught, db.transaction("保存") as conn:
            conn.execute(insert(notes).values(body="x"))
    finally:
        blocker.rollback()
        blocker.close()
    assert str(caught.value) == ("保存失败：数据库正被其他程序占用（database is locked），请稍等几秒再试；"
                                 "若持续出现，请关闭其他正在写入该数据库的程序。")
    db.dispose()


def test_database_unreadable_file_gives_chinese_store_error(tmp_path):
    path = tmp_path / "broken.sqlite3"
    path.write_bytes(b"this is not a database file at all" * 100)
    with pytest.raises(StoreError, match="无法打开或无法写入"):
        Database(f"sqlite:///{path}")


def test_database_missing_driver_gives_chinese_store_error():
    with pytest.raises(StoreError, match="驱动") as caught:
        Database("postgresql+pg8000://xiaoe:secret@127.0.0.1:1/xiaoe")  # pg8000 is not a dependency
    assert "secret" not in str(caught.value)


def test_database_unreachable_server_gives_chinese_store_error_without_the_password():
    with pytest.raises(StoreError, match="连不上数据库服务器") as caught:
        Database("postgresql+psycopg://xiaoe:secret@127.0.0.1:1/xiaoe")  # nothing listens on port 1
    assert "secret" not in str(caught.value)


def _open_every_store(url: str, barrier, results) -> None:
    """One process of the race: wait for the others, then open every store on the fresh database."""
    barrier.wait(timeout=60)
    results.put(open_every_store(url))


def test_database_fresh_database_opened_by_8_processes_at_once(database_url):
    # fork: the children start with the stores already imported, so they reach the barrier together
    context = multiprocessing.get_context("fork")
    barrier, results = context.Barrier(8), context.Queue()
    workers = [context.Process(target=_open_every_store, args=(database_url, barrier, results)) for _ in range(8)]
    for worker in workers:
        worker.start()
    outcomes = [results.get(timeout=120) for _ in workers]
    for worker in workers:
        worker.join(timeout=30)
    assert [o for o in outcomes if o != "ok"] == []
    db = Database(database_url)
    with db.read() as conn:
        rows = conn.execute(text("SELECT component, version, count(*) FROM schema_migrations "
                                 "GROUP BY component, version HAVING count(*) > 1")).all()
    assert rows == []
    assert db.applied("review") == [1, 2, 3, 4] and db.applied("audit") == [1, 2, 3]
    db.dispose()


def test_database_unknown_host_says_to_check_the_host_name():
    with pytest.raises(StoreError, match="找不到数据库服务器的主机名") as caught:
        Database("postgresql+psycopg://xiaoe:secret@no-such-host.invalid:5432/xiaoe")
    assert "secret" not in str(caught.value) and "XIAOE_DATABASE_URL" in str(caught.value)


@pytest.mark.parametrize(("message", "expected"), [
    ('FATAL:  database "xiaoe_x" does not exist', "没有这个库"),
    ('FATAL:  password authentication failed for user "xiaoe"', "用户名或密码"),
    ("server closed the connection unexpectedly", "XIAOE_DATABASE_URL"),
])
def test_database_bad_url_messages_say_what_to_check(message, expected):
    from sqlalchemy.exc import OperationalError

    from core.stores.db import explain

    error = explain(OperationalError("connect", {}, Exception(message)), "打开数据库")
    assert expected in str(error) and "OperationalError）" not in str(error).replace("（OperationalError）", "")


def test_database_reads_open_no_transaction_and_writes_still_do(database_url, database_engine):
    """A read costs one round trip per statement: on PostgreSQL no BEGIN/ROLLBACK around it (each statement is its
    own transaction, so two statements a moment apart see different transaction start times), as pysqlite already
    reads on SQLite; a transaction still is one (its statements share one start time, an error rolls all back)."""
    db = Database(database_url)
    try:
        db.migrate(_schema())
        if database_engine == "postgresql":
            with db.read() as conn:
                first = conn.execute(text("SELECT now()")).scalar_one()
                conn.execute(text("SELECT pg_sleep(0.02)"))
                second = conn.execute(text("SELECT now()")).scalar_one()
            assert second > first
            with db.transaction() as conn:
                first = conn.execute(text("SELECT now()")).scalar_one()
                conn.execute(text("SELECT pg_sleep(0.02)"))
                assert conn.execute(text("SELECT now()")).scalar_one() == first
        with db.transaction() as conn:
            conn.execute(insert(notes).values(id=1, body="写入"))
        with db.read() as conn:
            assert conn.execute(select(notes.c.body)).scalars().all() == ["写入"]
    finally:
        db.dispose()
