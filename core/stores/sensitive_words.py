"""The 敏感词 list an admin manages: words with their categories and the education whitelist, imported and exported
as CSV (through core.cells' one formula-safe writer), every change in the audit log.

Its own component (`sensitive_words`). `matcher()` gives the automaton (core.privacy.sensitive) for the list as it
is now, built once per version: every change bumps one version row, so every instance rebuilds after any change.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from sqlalchemy import Column, DateTime, Integer, MetaData, String, Table, select

from core.cells import restore, write_table
from core.clock import as_utc, utcnow
from core.errors import StoreError
from core.privacy.sensitive import WHITELIST, WORD, Matcher, Word
from core.stores import audit
from core.stores.db import Database, Migration, Schema, create_tables, insert_ignoring_duplicates
from core.stores.roles import User, require

MAX_WORD_CHARS = 50
MAX_CATEGORY_CHARS = 20
KIND_LABELS = {WORD: "敏感词", WHITELIST: "白名单"}
CSV_HEADER = ("word", "category", "kind")

metadata = MetaData()
sensitive_words = Table(
    "sensitive_words", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("word", String(MAX_WORD_CHARS), nullable=False, unique=True),
    Column("category", String(MAX_CATEGORY_CHARS), nullable=False, default=""),
    Column("kind", String(16), nullable=False),  # word | whitelist
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("created_by", String(200), nullable=False),
)
sensitive_version = Table(
    "sensitive_version", metadata,
    Column("id", Integer, primary_key=True),
    Column("version", Integer, nullable=False),
)
SENSITIVE_SCHEMA = Schema("sensitive_words", (
    Migration(1, "the 敏感词 list and its whitelist, with a version row", create_tables(sensitive_words, sensitive_version)),
))


@dataclass(frozen=True)
class Entry:
    word: str
    category: str
    kind: str
    created_at: datetime
    created_by: str


@dataclass(frozen=True)
class Imported:
    added: int
    updated: int
    skipped: tuple[str, ...]  # rows not taken, each with why


def _checked(word: str, category: str, kind: str) -> tuple[str, str, str]:
    word, category, kind = (word or "").strip(), (category or "").strip(), (kind or WORD).strip() or WORD
    if kind in KIND_LABELS.values():
        kind = next(k for k, v in KIND_LABELS.items() if v == kind)
    if not word:
        raise StoreError("词是空的：请写上要加的敏感词。")
    if len(word) > MAX_WORD_CHARS:
        raise StoreError(f"「{word[:20]}…」有 {len(word)} 个字，超过 {MAX_WORD_CHARS} 字的上限。")
    if len(category) > MAX_CATEGORY_CHARS:
        raise StoreError(f"分类「{category[:20]}」超过 {MAX_CATEGORY_CHARS} 字的上限。")
    if kind not in KIND_LABELS:
        raise StoreError(f"类型「{kind}」不认识：只能是 word（敏感词）或 whitelist（白名单）。")
    return word, category, kind


# Read before every student message: built once (core/stores/exchanges.py says why).
_VERSION = select(sensitive_version.c.version).where(sensitive_version.c.id == 1)


class SensitiveStore:
    """The list on a `Database`; opening it brings the schema up to date."""

    def __init__(self, db: Database, *, clock: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self._clock = clock
        db.migrate(SENSITIVE_SCHEMA)
        audit.ensure(db)
        self._built: tuple[int, Matcher] | None = None

    kinds = KIND_LABELS  # what an entry can be, with its Chinese label

    @staticmethod
    def starter() -> bytes:
        """The shipped starter list as a CSV import reads it."""
        return starter_bytes()

    def version(self) -> int:
        with self.db.read("读取敏感词") as conn:
            return conn.execute(_VERSION).scalar_one_or_none() or 0

    def entries(self) -> tuple[Entry, ...]:
        with self.db.read("读取敏感词") as conn:
            rows = conn.execute(select(sensitive_words).order_by(sensitive_words.c.kind, sensitive_words.c.category,
                                                                 sensitive_words.c.word)).all()
        return tuple(Entry(r.word, r.category, r.kind, as_utc(r.created_at), r.created_by) for r in rows)

    def matcher(self) -> Matcher:
        """The automaton for the list as it is now (rebuilt only after a change)."""
        version = self.version()
        if self._built is None or self._built[0] != version:
            self._built = (version, Matcher(Word(e.word, e.category, e.kind) for e in self.entries()))
        return self._built[1]

    def _bump(self, conn) -> None:
        if not insert_ignoring_duplicates(conn, sensitive_version, {"id": 1, "version": 1}):
            conn.execute(sensitive_version.update().where(sensitive_version.c.id == 1)
                         .values(version=sensitive_version.c.version + 1))

    def _put(self, conn, actor: str, word: str, category: str, kind: str) -> str:
        """Insert or update one entry; "added", "updated" or "same"."""
        now = self._clock()
        found = conn.execute(select(sensitive_words).where(sensitive_words.c.word == word)).first()
        if found is None:
            conn.execute(sensitive_words.insert().values(word=word, category=category, kind=kind, created_at=now,
                                                         created_by=actor))
            audit.record(self.db, actor, "sensitive_add", word, f"{KIND_LABELS[kind]}，分类：{category or '无'}",
                         conn=conn, now=self._clock)
            return "added"
        if (found.category, found.kind) == (category, kind):
            return "same"
        conn.execute(sensitive_words.update().where(sensitive_words.c.id == found.id)
                     .values(category=category, kind=kind))
        audit.record(self.db, actor, "sensitive_change", word,
                     f"{KIND_LABELS.get(found.kind, found.kind)}（{found.category or '无'}）→ "
                     f"{KIND_LABELS[kind]}（{category or '无'}）", conn=conn, now=self._clock)
        return "updated"

    def add(self, user: User | None, word: str, category: str = "", kind: str = WORD) -> None:
        """Add a word (or whitelist a phrase), or change an existing one's category or kind."""
        user = require(user, "manage_sensitive")
        word, category, kind = _checked(word, category, kind)
        with self.db.transaction("保存敏感词", immediate=True) as conn:
            if self._put(conn, user.label, word, category, kind) != "same":
                self._bump(conn)

    def remove(self, user: User | None, word: str) -> None:
        user = require(user, "manage_sensitive")
        with self.db.transaction("删除敏感词", immediate=True) as conn:
            found = conn.execute(select(sensitive_words).where(sensitive_words.c.word == (word or "").strip())).first()
            if found is None:
                raise StoreError(f"词表里没有「{(word or '')[:20]}」，请刷新后再看。")
            conn.execute(sensitive_words.delete().where(sensitive_words.c.id == found.id))
            audit.record(self.db, user.label, "sensitive_remove", found.word,
                         f"{KIND_LABELS.get(found.kind, found.kind)}，分类：{found.category or '无'}",
                         conn=conn, now=self._clock)
            self._bump(conn)

    def import_csv(self, user: User | None, data: bytes) -> Imported:
        """Rows word,category,kind (a header row is optional; kind word/whitelist or 敏感词/白名单, default word), all
        in one transaction; a bad row is skipped and named, the others are kept."""
        user = require(user, "manage_sensitive")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise StoreError("文件不是 UTF-8 编码的 CSV：请在表格软件里另存为「CSV UTF-8」再上传。") from None
        rows = list(csv.reader(io.StringIO(text)))
        if rows and [c.strip().lower() for c in rows[0][:3]] == list(CSV_HEADER[:len(rows[0][:3])]):
            rows = rows[1:]
        added = updated = 0
        skipped: list[str] = []
        with self.db.transaction("导入敏感词", immediate=True) as conn:
            for number, row in enumerate(rows, start=2):
                if not any(cell.strip() for cell in row):
                    continue
                cells = [restore(c) for c in row] + ["", "", ""]
                try:
                    word, category, kind = _checked(cells[0], cells[1], cells[2])
                except StoreError as error:
                    skipped.append(f"第 {number} 行：{error}")
                    continue
                done = self._put(conn, user.label, word, category, kind)
                added += done == "added"
                updated += done == "updated"
            if added or updated:
                self._bump(conn)
        return Imported(added, updated, tuple(skipped))

    def export_csv(self) -> bytes:
        """The list as CSV (UTF-8 with BOM), through the one formula-safe writer."""
        handle = io.StringIO()
        write_table(CSV_HEADER, ((e.word, e.category, e.kind) for e in self.entries()), handle)
        return handle.getvalue().encode("utf-8")


STARTER = Path(__file__).resolve().parents[1] / "data" / "sensitive_starter.csv"


def starter_bytes() -> bytes:
    """The starter list shipped with the product (core/data/sensitive_starter.csv): a few words per category and an
    education whitelist, for an admin to import and then edit."""
    return STARTER.read_bytes()


def words_of(entries: Iterable[Entry]) -> tuple[Word, ...]:
    return tuple(Word(e.word, e.category, e.kind) for e in entries)
