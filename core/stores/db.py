"""The one database of 小E (SQLite file by default) behind SQLAlchemy Core, with numbered migrations.

Each store module owns a `Schema`: a name plus numbered migrations. `Database.migrate(schema)`
applies the ones not yet recorded in `schema_migrations`, each in its own transaction, so
opening a store on a fresh or an existing file brings it up to date. Migrations hold the
database's migration lock (BEGIN IMMEDIATE on SQLite, an advisory lock on PostgreSQL) and check
again under it, so several processes opening one fresh database at once apply each step once.
Database failures become `StoreError` with the same Chinese message on both engines; the URL's
password never appears in one.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import (
    Column,
    Connection,
    CursorResult,
    DateTime,
    Engine,
    Integer,
    MetaData,
    String,
    Table,
    create_engine,
    event,
    text,
)
from sqlalchemy import inspect as sa_inspect
from sqlalchemy import select as sa_select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DatabaseError, NoSuchModuleError, OperationalError, SQLAlchemyError

from core.clock import as_utc, utcnow  # noqa: F401 - re-exported for the stores
from core.errors import StoreError
from core.os_errors import os_reason

if TYPE_CHECKING:
    from sqlalchemy.dialects.postgresql import Insert as PgInsert
    from sqlalchemy.dialects.sqlite import Insert as SqliteInsert

MigrationStep = Callable[[Connection], None]

_meta = MetaData()
schema_migrations = Table(
    "schema_migrations", _meta,
    Column("component", String(64), primary_key=True),
    Column("version", Integer, primary_key=True),
    Column("name", String(200), nullable=False),
    Column("applied_at", DateTime(timezone=True), nullable=False),
)


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    apply: MigrationStep


@dataclass(frozen=True)
class Schema:
    component: str
    migrations: tuple[Migration, ...]






# One advisory lock number for every migration of a PostgreSQL database ("xiaoe" in ASCII).
MIGRATION_LOCK_KEY = 0x7869616F65
# PostgreSQL SQLSTATEs that mean "someone else holds it, try again", as SQLite's "database is locked" does:
# lock_not_available, serialization_failure, deadlock_detected, query_canceled (lock_timeout/statement_timeout).
_BUSY_SQLSTATES = {"55P03", "40001", "40P01", "57014"}
# could not connect / connection lost / server shutting down / too many connections
_UNREACHABLE_SQLSTATES = {"08000", "08001", "08003", "08004", "08006", "57P01", "57P02", "57P03", "53300"}


def explain(error: SQLAlchemyError, action: str) -> StoreError:
    """A Chinese message for a database failure, saying what to do; the same failure reads the same on
    SQLite and PostgreSQL."""
    orig = getattr(error, "orig", error)
    text = str(orig).lower()
    sqlstate = getattr(orig, "sqlstate", None) or ""
    if "append-only" in text:
        return StoreError(f"{action}失败：这类记录只能追加，不能修改、覆盖或删除（数据库拒绝了这次改动）。"
                          "如需更正，请新增一条记录说明。")
    if (isinstance(error, OperationalError) and "locked" in text) or sqlstate in _BUSY_SQLSTATES:
        return StoreError(f"{action}失败：数据库正被其他程序占用（database is locked），请稍等几秒再试；"
                          "若持续出现，请关闭其他正在写入该数据库的程序。")
    if sqlstate == "42501":  # insufficient_privilege: an application role without DDL or UPDATE rights
        return StoreError(f"{action}失败：数据库账号没有这项操作的权限。若要升级表结构，请用数据库所有者账号运行 "
                          "python -m core db upgrade；审计、复核事件和资料版本只能追加，本就不允许修改或删除。")
    if sqlstate in _UNREACHABLE_SQLSTATES or (isinstance(error, OperationalError) and (
            "connection refused" in text or "could not connect" in text or "connection failed" in text)):
        return StoreError(f"{action}失败：连不上数据库服务器，请确认 PostgreSQL 已启动，"
                          "并检查 XIAOE_DATABASE_URL 里的主机、端口、用户名和密码。")
    if isinstance(error, OperationalError) and ("could not translate host name" in text
                                                  or "name or service not known" in text
                                                  or "nodename nor servname" in text):
        return StoreError(f"{action}失败：找不到数据库服务器的主机名，请检查 XIAOE_DATABASE_URL 里 @ 后面的主机名是否拼错。")
    if isinstance(error, OperationalError) and "password authentication failed" in text:
        return StoreError(f"{action}失败：数据库拒绝了用户名或密码，请检查 XIAOE_DATABASE_URL 里的用户名和密码。")
    if isinstance(error, OperationalError) and "database" in text and "does not exist" in text:
        return StoreError(f"{action}失败：数据库服务器上没有这个库，请检查 XIAOE_DATABASE_URL 最后的库名，"
                          "或先用 createdb 建好它。")
    if isinstance(error, DatabaseError) and ("unable to open" in text or "readonly" in text
                                                 or "read-only" in text or "not a database" in text
                                                 or "disk i/o" in text):
        return StoreError(f"{action}失败：数据库文件无法打开或无法写入，请检查 XIAOE_DATA_DIR 所指文件夹的权限，"
                          "或确认该文件没有损坏。")
    if isinstance(error, OperationalError):  # any other trouble reaching or opening the database
        return StoreError(f"{action}失败：连不上或打不开数据库（{type(error).__name__}），请检查 XIAOE_DATABASE_URL"
                          "（主机、端口、用户名、密码、库名）或 XIAOE_DATA_DIR，确认数据库服务已启动后重试。")
    return StoreError(f"{action}失败：数据库出错（{type(error).__name__}），请稍后重试并联系维护人员。")


BAD_URL = ("XIAOE_DATABASE_URL 的格式不对（这里不显示它的内容，以免泄露密码）。应为 "
           "sqlite:///路径 或 postgresql+psycopg://用户:密码@主机:端口/库名；密码里的 @ : / 要写成 %40 %3A %2F。")


def _parse_url(url: str):
    """The parsed URL, or StoreError that never echoes the URL (it may hold a password)."""
    try:
        parsed = make_url(url)
        parsed.get_backend_name()
        _ = parsed.port  # a non-numeric port fails here rather than inside the driver
    except (ArgumentError, ValueError, TypeError):
        raise StoreError(BAD_URL) from None
    if "@" in (parsed.host or ""):  # a password's unescaped "@" split the URL: the host is "Pw9@127.0.0.1"
        raise StoreError(BAD_URL)
    return parsed


class Database:
    """An SQLAlchemy engine plus the migration runner. SQLite gets WAL and a busy timeout; PostgreSQL the same
    wait as its lock_timeout, so a write blocked by another writer fails the same way on both."""

    def __init__(self, url: str, *, busy_timeout_ms: int = 5000) -> None:
        self.url = url
        parsed = _parse_url(url)
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        if self.is_sqlite and parsed.database and parsed.database != ":memory:":
            try:
                Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise StoreError(f"无法创建数据文件夹「{Path(parsed.database).parent}」（{os_reason(error)}），"
                                 "请检查 XIAOE_DATA_DIR 设置和文件夹权限。") from None
        options = {"connect_args": {"timeout": busy_timeout_ms / 1000}} if self.is_sqlite else {}
        try:
            self.engine: Engine = create_engine(url, future=True, **options)
        except (ImportError, NoSuchModuleError) as error:
            raise StoreError(f"数据库驱动没有安装（{parsed.get_backend_name()}：{error}），"
                             "请安装对应的驱动（如 PostgreSQL 用 psycopg），或改回默认的 SQLite。") from None
        except (ArgumentError, ValueError):
            raise StoreError(BAD_URL) from None
        if self.is_sqlite:
            event.listen(self.engine, "connect", _sqlite_pragmas)
        elif parsed.get_backend_name() == "postgresql":
            event.listen(self.engine, "connect", _postgresql_lock_timeout(busy_timeout_ms))
        # Reads run without a transaction of their own, as pysqlite already runs SELECTs on SQLite: under READ
        # COMMITTED a read-only transaction adds nothing but a BEGIN and a ROLLBACK round trip per read, and a
        # page rerun or a student's message makes several reads (writes, and reads that lock, use `transaction`).
        self._reader: Engine = self.engine if self.is_sqlite else self.engine.execution_options(
            isolation_level="AUTOCOMMIT")
        self._migrated: set[str] = set()
        with self.read("初始化数据库") as conn:
            ready = sa_inspect(conn).has_table("schema_migrations")
        if not ready:
            with self.migration_lock("初始化数据库") as conn:
                _meta.create_all(conn, tables=[schema_migrations])  # checks again, now under the lock

    @contextmanager
    def transaction(self, action: str = "数据库操作", *, immediate: bool = False) -> Iterator[Connection]:
        """One transaction: commit on success, roll back on any error; DB errors become StoreError.

        `immediate=True` takes SQLite's write lock before the first statement (BEGIN IMMEDIATE), so
        what the transaction reads cannot change before it writes; the pysqlite driver would
        otherwise run leading SELECTs outside any transaction. On PostgreSQL callers lock the rows
        they read (SELECT … FOR UPDATE / FOR SHARE) instead.
        """
        try:
            with self.engine.begin() as conn:
                if immediate and self.is_sqlite:
                    conn.exec_driver_sql("BEGIN IMMEDIATE")
                yield conn
        except SQLAlchemyError as error:
            raise explain(error, action) from None

    @contextmanager
    def read(self, action: str = "读取数据") -> Iterator[Connection]:
        """A connection for reading: each statement sees what was committed when it ran (no transaction is
        opened for it, so nothing written here would be rolled back: write in `transaction`)."""
        try:
            with self._reader.connect() as conn:
                yield conn
        except SQLAlchemyError as error:
            raise explain(error, action) from None

    @contextmanager
    def migration_lock(self, action: str) -> Iterator[Connection]:
        """One transaction holding the database-wide migration lock until it ends: BEGIN IMMEDIATE on
        SQLite (the write lock, waiting up to the busy timeout), pg_advisory_xact_lock on PostgreSQL."""
        try:
            if self.is_sqlite:
                # pysqlite would open a deferred transaction itself; in AUTOCOMMIT we say BEGIN IMMEDIATE.
                with self.engine.connect() as raw:
                    conn = raw.execution_options(isolation_level="AUTOCOMMIT")
                    conn.exec_driver_sql("BEGIN IMMEDIATE")
                    try:
                        yield conn
                    except BaseException:
                        conn.exec_driver_sql("ROLLBACK")
                        raise
                    conn.exec_driver_sql("COMMIT")
            else:
                with self.engine.begin() as conn:
                    if conn.dialect.name == "postgresql":
                        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
                    yield conn
        except SQLAlchemyError as error:
            raise explain(error, action) from None

    def migrate(self, schema: Schema) -> None:
        """Apply the schema's migrations that are not recorded yet, each in one transaction under the
        migration lock; a step another process applied meanwhile is seen under the lock and skipped."""
        if schema.component in self._migrated:
            return
        with self.read("检查数据库版本") as conn:
            done = set(conn.execute(self._versions(schema.component)).scalars())
        for migration in sorted(schema.migrations, key=lambda m: m.version):
            if migration.version in done:
                continue
            with self.migration_lock(f"升级数据库（{schema.component} #{migration.version}）") as conn:
                if migration.version in set(conn.execute(self._versions(schema.component)).scalars()):
                    continue
                migration.apply(conn)
                conn.execute(schema_migrations.insert().values(
                    component=schema.component, version=migration.version,
                    name=migration.name, applied_at=utcnow()))
        self._migrated.add(schema.component)

    @staticmethod
    def _versions(component: str):
        return sa_select(schema_migrations.c.version).where(schema_migrations.c.component == component)

    def applied(self, component: str) -> list[int]:
        with self.read() as conn:
            return sorted(conn.execute(self._versions(component)).scalars())

    def dispose(self) -> None:
        self.engine.dispose()


WAL_SWITCH_TRIES = 20  # about 10 s of waiting in all, twice the busy timeout


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    # Switching a fresh file to WAL needs an exclusive lock and SQLite answers "database is locked" at
    # once, without waiting on the busy timeout, when several processes open the file together: retry.
    for attempt in range(WAL_SWITCH_TRIES):
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            break
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or attempt == WAL_SWITCH_TRIES - 1:
                raise
            time.sleep(0.05 * (attempt + 1))
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _postgresql_lock_timeout(milliseconds: int):
    def on_connect(dbapi_connection, _record) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute(f"SET lock_timeout = {int(milliseconds)}")
        cursor.close()
        dbapi_connection.commit()  # psycopg opened a transaction for the SET; the setting lasts the session
    return on_connect


def create_tables(*tables: Table) -> MigrationStep:
    """A migration step that creates the given tables (and their indexes)."""
    def step(conn: Connection) -> None:
        tables[0].metadata.create_all(conn, tables=list(tables))
    return step


def append_only(table: str, *, keys: tuple[tuple[str, ...], ...] = (("id",),)) -> MigrationStep:
    """A migration step that makes the database itself refuse to change or remove rows of `table`:
    UPDATE, DELETE, an insert that would replace a row (SQLite `INSERT OR REPLACE`, PostgreSQL
    `ON CONFLICT … DO UPDATE`, which fires the UPDATE trigger) and, on PostgreSQL, TRUNCATE.
    `keys` lists the table's unique keys (the replaced row is found through them). Idempotent, so
    it can be rerun over the older UPDATE/DELETE-only triggers. `table` and `keys` are code constants."""
    refusal = f"{table} is append-only"

    def step(conn: Connection) -> None:
        if conn.dialect.name == "sqlite":
            for verb in ("UPDATE", "DELETE"):
                conn.execute(text(
                    f"CREATE TRIGGER IF NOT EXISTS {table}_no_{verb.lower()} BEFORE {verb} ON {table} "
                    f"BEGIN SELECT RAISE(ABORT, '{refusal}'); END"))
            # INSERT OR REPLACE deletes the old row without firing DELETE triggers: refuse the insert itself.
            clash = " OR ".join(
                f"EXISTS (SELECT 1 FROM {table} WHERE " + " AND ".join(f"{c} = NEW.{c}" for c in key) + ")"
                for key in keys)
            conn.execute(text(
                f"CREATE TRIGGER IF NOT EXISTS {table}_no_replace BEFORE INSERT ON {table} WHEN {clash} "
                f"BEGIN SELECT RAISE(ABORT, '{refusal}'); END"))
        elif conn.dialect.name == "postgresql":
            conn.execute(text(
                f"CREATE OR REPLACE FUNCTION {table}_append_only() RETURNS trigger LANGUAGE plpgsql AS "
                f"$$ BEGIN RAISE EXCEPTION '{refusal}'; END $$"))
            for name, when in ((f"{table}_append_only", "BEFORE UPDATE OR DELETE ON {t} FOR EACH ROW"),
                               (f"{table}_no_truncate", "BEFORE TRUNCATE ON {t} FOR EACH STATEMENT")):
                conn.execute(text(f"DROP TRIGGER IF EXISTS {name} ON {table}"))
                conn.execute(text(f"CREATE TRIGGER {name} {when.format(t=table)} "
                                  f"EXECUTE FUNCTION {table}_append_only()"))
    return step


def insert_ignoring_duplicates(conn: Connection, table: Table, values: dict) -> bool:
    """INSERT … ON CONFLICT DO NOTHING on either engine; True if the row went in. Unlike catching
    IntegrityError, it leaves a PostgreSQL transaction usable when another transaction inserted it first.

    Whether the row went in is read from the row the insert returns (RETURNING), never from the driver's
    `rowcount`: psycopg reports -1 for an INSERT … ON CONFLICT, which read as "not inserted" and skipped the
    glossary's audit row on PostgreSQL."""
    statement = dialect_insert(conn, table).on_conflict_do_nothing().values(**values)
    return conn.execute(statement.returning(*_key_columns(table))).first() is not None


def dialect_insert(conn: Connection, table: Table) -> PgInsert | SqliteInsert:
    """The engine's own INSERT for `table`, the one that has ON CONFLICT (PostgreSQL's or SQLite's)."""
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert
        return pg_insert(table)
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert
    return sqlite_insert(table)


def inserted_id(result: CursorResult) -> int:
    """The primary key the one row of an INSERT got. (SQLAlchemy types `inserted_primary_key` as optional because
    other statements have none; after an INSERT it is always there.)"""
    key = result.inserted_primary_key
    assert key is not None, "inserted_id needs the result of an INSERT"
    return key[0]


def changed(conn: Connection, statement) -> int:
    """How many rows an UPDATE or DELETE changed, counted from the rows it returns (RETURNING on both engines),
    never from the driver's `rowcount`, which a driver may report as -1. A write that must know whether it
    happened (a conditional state change, the audit line that goes with it) asks this."""
    return len(conn.execute(statement.returning(*_key_columns(statement.table))).all())


def _key_columns(table: Table) -> list[Column]:
    return list(table.primary_key.columns) or list(table.columns)[:1]


_databases: dict[str, Database] = {}


def open_database(url: str) -> Database:
    """One shared Database per URL in this process (engines pool their connections)."""
    if url not in _databases:
        _databases[url] = Database(url)
    return _databases[url]
