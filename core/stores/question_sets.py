"""Versioned storage of labelled question sets: every save is a new version row, old ones are kept.

The packaged default set (corpus/default_questions.csv, beside the documents it is about, the same file as
bench/data/calibration.csv, on which DEFAULT_MIN_SCORE was calibrated) is version 0 of
「默认题集」 until somebody saves an edited version. Parsing and validation live in
core.sets.format and are re-exported here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path

from sqlalchemy import Column, DateTime, Integer, MetaData, Row, String, Table, Text, UniqueConstraint, func, select

from core.clock import utcnow
from core.errors import ConflictError, QuestionSetError
from core.retrieval.index import SearchIndex
from core.sets.format import (
    COLUMNS,
    MAX_SET_BYTES,
    REFUSE,
    LabelledQuestion,
    QuestionSet,
    check_size,
    parse_question_set,
    questions_from_rows,
    read_question_file,
)
from core.stores.db import Database, Migration, Schema, create_tables
from core.stores.roles import Authorize, User, checked, require

__all__ = ["COLUMNS", "DEFAULT_SET_NAME", "DEFAULT_SET_PATH", "MAX_SET_BYTES", "QUESTION_SETS_SCHEMA", "REFUSE",
           "LabelledQuestion", "QuestionSet", "QuestionSetError", "QuestionSetStore", "SetVersion", "StoredSet",
           "check_size", "corpus_catalog", "load_default_set", "parse_question_set", "questions_from_rows",
           "read_question_file"]

DEFAULT_SET_NAME = "默认题集"
# About the school's documents, so shipped beside them (no school fact in core's data files).
DEFAULT_SET_PATH = Path(__file__).resolve().parents[2] / "corpus" / "default_questions.csv"
FACTORY_AUTHOR = "出厂设置"
MAX_NAME_CHARS = 100
MAX_NOTE_CHARS = 500

metadata = MetaData()
question_set_versions = Table(
    "question_set_versions", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(MAX_NAME_CHARS), nullable=False),
    Column("version", Integer, nullable=False),
    Column("content", Text, nullable=False),  # canonical CSV, see QuestionSet.to_csv
    Column("content_hash", String(64), nullable=False),
    Column("question_count", Integer, nullable=False),
    Column("author", String(MAX_NAME_CHARS), nullable=False),
    Column("note", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("name", "version", name="uq_question_set_versions_name_version"),
)

QUESTION_SETS_SCHEMA = Schema("question_sets", (
    Migration(1, "question set versions", create_tables(question_set_versions)),
))


@dataclass(frozen=True)
class SetVersion:
    """Who saved which version of a set, when, and how many questions it has (no content)."""

    name: str
    version: int
    author: str
    created_at: datetime | None
    question_count: int
    content_hash: str
    note: str = ""
    unchanged: bool = False  # returned by `save` for a set identical to the newest version: nothing was stored


@dataclass(frozen=True)
class StoredSet:
    """One version of a set with its questions."""

    info: SetVersion
    questions: QuestionSet


@lru_cache(maxsize=1)
def load_default_set() -> QuestionSet:
    """The packaged default set (the labelled set DEFAULT_MIN_SCORE was calibrated on)."""
    return read_question_file(DEFAULT_SET_PATH)


def corpus_catalog(index: SearchIndex) -> tuple[frozenset[str], dict[str, tuple[str, ...]]]:
    """File names and, per file, its section headings in order: what a set may refer to."""
    sections: dict[str, list[str]] = {}
    for chunk in index.chunks:
        headings = sections.setdefault(chunk.metadata.get("source", ""), [])
        heading = chunk.metadata.get("heading", "")
        if heading and heading not in headings:
            headings.append(heading)
    return frozenset(sections), {name: tuple(h) for name, h in sections.items()}


class QuestionSetStore:
    """Question sets on a `Database`; opening it brings the schema up to date."""

    def __init__(self, db: Database, *, clock: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self._clock = clock
        db.migrate(QUESTION_SETS_SCHEMA)

    def names(self) -> tuple[str, ...]:
        """The default set first, then every saved set by name."""
        with self.db.read("读取题集列表") as conn:
            saved = conn.execute(select(question_set_versions.c.name).distinct()
                                 .order_by(question_set_versions.c.name)).scalars().all()
        return (DEFAULT_SET_NAME, *(n for n in saved if n != DEFAULT_SET_NAME))

    def versions(self, name: str) -> tuple[SetVersion, ...]:
        """Newest first; the default set ends with its packaged version 0."""
        with self.db.read("读取题集版本") as conn:
            rows = conn.execute(select(*_INFO_COLUMNS).where(question_set_versions.c.name == name)
                                .order_by(question_set_versions.c.version.desc())).all()
        found = tuple(_info(row) for row in rows)
        return found + ((_factory_info(),) if name == DEFAULT_SET_NAME else ())

    def load(self, name: str = DEFAULT_SET_NAME, version: int | None = None) -> StoredSet:
        """One version (default: the newest) of a set; QuestionSetError if it does not exist."""
        if name == DEFAULT_SET_NAME and version == 0:
            return StoredSet(_factory_info(), load_default_set())
        query = select(*_INFO_COLUMNS, question_set_versions.c.content).where(question_set_versions.c.name == name)
        query = query.where(question_set_versions.c.version == version) if version is not None else query
        with self.db.read("读取题集") as conn:
            row = conn.execute(query.order_by(question_set_versions.c.version.desc()).limit(1)).first()
        if row is None:
            if name == DEFAULT_SET_NAME and version is None:
                return StoredSet(_factory_info(), load_default_set())
            which = f"第 {version} 版" if version is not None else "任何版本"
            raise QuestionSetError(f"题集「{name}」没有{which}，请刷新页面后重新选择。")
        # Stored content was validated when saved; corpus files may have changed since, which
        # the evaluation shows as unmatched expectations rather than refusing to load.
        questions = parse_question_set(row.content.encode("utf-8"), filename="stored.csv")
        return StoredSet(_info(row), questions)

    def save(self, name: str, questions: QuestionSet, *, author: str, note: str = "",
             base_version: int | None = None, actor: User | None = None,
             authorize: Authorize | None = None) -> SetVersion:
        """Store `questions` as the next version of `name`, in one transaction; admins only.

        The role is checked twice: `actor` (the user the page or a bulk action acts for) must have
        `edit_question_sets` (AuthError otherwise), and `authorize` re-checks the live session's role inside
        the transaction. A set identical to the newest version (same content hash) is not stored again: the
        newest version comes back with `unchanged=True`. With `base_version`, the save is refused
        (ConflictError) when somebody else saved a newer version since the editor loaded `base_version`;
        the old versions are never changed.
        """
        if actor is not None:
            require(actor, "edit_question_sets")
        name, author, note = _checked(name, "题集名称"), _checked(author, "操作人"), (note or "").strip()
        if len(note) > MAX_NOTE_CHARS:
            raise QuestionSetError(f"备注有 {len(note)} 个字，超过了 {MAX_NOTE_CHARS} 字的上限。")
        if not len(questions):
            raise QuestionSetError("题集里没有任何题目，不能保存空题集。")
        now = self._clock()
        with self.db.transaction("保存题集", immediate=authorize is not None) as conn:
            checked(conn, authorize, "edit_question_sets")  # labelled sets calibrate the gate: admins only
            latest = conn.execute(select(func.max(question_set_versions.c.version))
                                  .where(question_set_versions.c.name == name)).scalar() or 0
            newest = conn.execute(select(*_INFO_COLUMNS).where(question_set_versions.c.name == name,
                                                               question_set_versions.c.version == latest)).first()
            if base_version is not None and latest > base_version:
                who = conn.execute(select(question_set_versions.c.author).where(
                    question_set_versions.c.name == name, question_set_versions.c.version == latest)).scalar()
                raise ConflictError(f"题集「{name}」已被「{who}」保存为第 {latest} 版，你编辑的是第 {base_version} 版。"
                                    "为避免覆盖别人的修改，本次没有保存；请下载你的版本备份，刷新后再合并修改。")
            if newest is not None and newest.content_hash == questions.content_hash:
                return replace(_info(newest), unchanged=True)
            if newest is None and name == DEFAULT_SET_NAME and _factory_info().content_hash == questions.content_hash:
                return replace(_factory_info(), unchanged=True)
            row = {"name": name, "version": latest + 1, "content": questions.to_csv(),
                   "content_hash": questions.content_hash, "question_count": len(questions),
                   "author": author, "note": note, "created_at": now}
            conn.execute(question_set_versions.insert().values(**row))
        return SetVersion(name=name, version=latest + 1, author=author, created_at=now,
                          question_count=len(questions), content_hash=questions.content_hash, note=note)


_INFO_COLUMNS = (question_set_versions.c.name, question_set_versions.c.version, question_set_versions.c.author,
                 question_set_versions.c.created_at, question_set_versions.c.question_count,
                 question_set_versions.c.content_hash, question_set_versions.c.note)


def _info(row: Row) -> SetVersion:
    return SetVersion(name=row.name, version=row.version, author=row.author,
                      created_at=_utc(row.created_at),
                      question_count=row.question_count, content_hash=row.content_hash, note=row.note)


def _factory_info() -> SetVersion:
    default = load_default_set()
    return SetVersion(name=DEFAULT_SET_NAME, version=0, author=FACTORY_AUTHOR, created_at=None,
                      question_count=len(default), content_hash=default.content_hash,
                      note="随程序发布的标注题集，默认阈值就是用它校准的")


def _checked(value: str, label: str, *, limit: int = MAX_NAME_CHARS) -> str:
    text = (value or "").strip()
    if not text:
        raise QuestionSetError(f"请先填写{label}，再保存题集。")
    if len(text) > limit:
        raise QuestionSetError(f"{label}有 {len(text)} 个字，超过了 {limit} 字的上限。")
    return text



def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)  # SQLite drops the zone
