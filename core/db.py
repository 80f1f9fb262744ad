"""The one database of 小E (SQLite file by default) behind SQLAlchemy Core, with numbered migrations.

Each store module owns a `Schema`: a name plus numbered migrations. `Database.migrate(schema)`
applies the ones not yet recorded in `schema_migrations`, each in its own transaction, so
opening a store on a fresh or an existing file brings it up to date. Database failures become
`StoreError` with a Chinese message; the URL's password never appears in one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import (
    Column,
    Connection,
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
from sqlalchemy import select as sa_select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DatabaseError, NoSuchModuleError, OperationalError, SQLAlchemyError

from core.errors import StoreError
from core.os_errors import os_reason

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


def utcnow() -> datetime:
    return datetime.now(UTC)


def explain(error: SQLAlchemyError, action: str) -> StoreError:
    """A Chinese message for a database failure, saying what to do."""
    text = str(getattr(error, "orig", error)).lower()
    if isinstance(error, OperationalError) and "locked" in text:
        return StoreError(f"{action}失败：数据库正被其他程序占用（database is locked），请稍等几秒再试；"
                          "若持续出现，请关闭其他正在写入该数据库的程序。")
    if isinstance(error, DatabaseError) and ("unable to open" in text or "readonly" in text
                                                 or "read-only" in text or "not a database" in text
                                                 or "disk i/o" in text):
        return StoreError(f"{action}失败：数据库文件无法打开或无法写入，请检查 XIAOE_DATA_DIR 所指文件夹的权限，"
                          "或确认该文件没有损坏。")
    return StoreError(f"{action}失败：数据库出错（{type(error).__name__}），请稍后重试并联系维护人员。")


BAD_URL = ("XIAOE_DATABASE_URL 的格式不对（这里不显示它的内容，以免泄露密码）。应为 "
           "sqlite:///路径 或 postgresql+psycopg://用户:密码@主机:端口/库名；密码里的 @ : / 要写成 %40 %3A %2F。")


def _parse_url(url: str):
    """The parsed URL, or StoreError that never echoes the URL (it may hold a password)."""
    try:
        parsed = make_url(url)
        parsed.get_backend_name()
        _ = parsed.port  # a non-numeric port fails here rather than inside the driver
    except (ArgumentError, ValueError):
        raise StoreError(BAD_URL) from None
    return parsed


class Database:
    """An SQLAlchemy engine plus the migration runner; SQLite gets WAL and a busy timeout."""

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
        self._migrated: set[str] = set()
        with self.transaction("初始化数据库") as conn:
            _meta.create_all(conn, tables=[schema_migrations])

    @contextmanager
    def transaction(self, action: str = "数据库操作") -> Iterator[Connection]:
        """One transaction: commit on success, roll back on any error; DB errors become StoreError."""
        try:
            with self.engine.begin() as conn:
                yield conn
        except SQLAlchemyError as error:
            raise explain(error, action) from None

    @contextmanager
    def read(self, action: str = "读取数据") -> Iterator[Connection]:
        try:
            with self.engine.connect() as conn:
                yield conn
        except SQLAlchemyError as error:
            raise explain(error, action) from None

    def migrate(self, schema: Schema) -> None:
        """Apply the schema's migrations that are not recorded yet, each in one transaction."""
        if schema.component in self._migrated:
            return
        with self.read("检查数据库版本") as conn:
            done = set(conn.execute(sa_select(schema_migrations.c.version).where(
                schema_migrations.c.component == schema.component)).scalars())
        for migration in sorted(schema.migrations, key=lambda m: m.version):
            if migration.version in done:
                continue
            with self.transaction(f"升级数据库（{schema.component} #{migration.version}）") as conn:
                migration.apply(conn)
                conn.execute(schema_migrations.insert().values(
                    component=schema.component, version=migration.version,
                    name=migration.name, applied_at=utcnow()))
        self._migrated.add(schema.component)

    def applied(self, component: str) -> list[int]:
        with self.read() as conn:
            return sorted(conn.execute(sa_select(schema_migrations.c.version).where(
                schema_migrations.c.component == component)).scalars())

    def dispose(self) -> None:
        self.engine.dispose()


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def create_tables(*tables: Table) -> MigrationStep:
    """A migration step that creates the given tables (and their indexes)."""
    def step(conn: Connection) -> None:
        tables[0].metadata.create_all(conn, tables=list(tables))
    return step


def append_only(table: str) -> MigrationStep:
    """A migration step that makes UPDATE and DELETE on `table` fail inside the database itself,
    so an audit trail stays append-only whatever code touches it. `table` is a code constant."""
    def step(conn: Connection) -> None:
        if conn.dialect.name == "sqlite":
            for verb in ("UPDATE", "DELETE"):
                conn.execute(text(
                    f"CREATE TRIGGER {table}_no_{verb.lower()} BEFORE {verb} ON {table} "
                    f"BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END"))
        elif conn.dialect.name == "postgresql":  # not exercised here: the test machine has no PostgreSQL
            conn.execute(text(
                f"CREATE FUNCTION {table}_append_only() RETURNS trigger LANGUAGE plpgsql AS "
                f"$$ BEGIN RAISE EXCEPTION '{table} is append-only'; END $$"))
            conn.execute(text(
                f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                f"FOR EACH ROW EXECUTE FUNCTION {table}_append_only()"))
    return step


_databases: dict[str, Database] = {}


def open_database(url: str) -> Database:
    """One shared Database per URL in this process (engines pool their connections)."""
    if url not in _databases:
        _databases[url] = Database(url)
    return _databases[url]
