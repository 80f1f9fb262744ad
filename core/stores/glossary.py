"""The glossary consultants maintain, in the database: entries plus an append-only change log.

Schema component "glossary". Migration 3 loads the starter glossary (core/data/glossary_starter.csv, and the
school's own pairs shipped beside the documents, corpus/glossary.csv) into a fresh database exactly once, so deleting every entry later does not bring it back.
Every write (add, remove, import) changes entries and the log in one transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Column, Connection, DateTime, Integer, MetaData, String, Table, UniqueConstraint, func
from sqlalchemy import select as sa_select

from core.answerability.glossary import (
    MAX_WORD_CHARS,
    STARTER_PATH,
    Glossary,
    GlossaryEntry,
    check_entry,
    read_csv,
    starter_pairs,
    write_csv,
)
from core.clock import utcnow
from core.errors import InvalidGlossary
from core.language.text import normalize
from core.settings import Settings
from core.stores.db import Database, Migration, Schema, append_only, create_tables, open_database
from core.stores.roles import Authorize, checked

MAX_WHO_CHARS = 100
STARTER_WHO = "初始词表"
ACTION_LABELS = {"add": "添加", "remove": "删除", "import": "导入", "starter": "初始词表"}

metadata = MetaData()
glossary_entries = Table(
    "glossary_entries", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("term", String(MAX_WORD_CHARS), nullable=False),
    Column("synonym", String(MAX_WORD_CHARS), nullable=False),
    Column("who", String(MAX_WHO_CHARS), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("term", "synonym", name="uq_glossary_pair"),
)
glossary_changes = Table(
    "glossary_changes", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("who", String(MAX_WHO_CHARS), nullable=False),
    Column("action", String(16), nullable=False),
    Column("term", String(MAX_WORD_CHARS), nullable=False),
    Column("synonym", String(MAX_WORD_CHARS), nullable=False),
)


def _load_starter(conn: Connection) -> None:
    now = utcnow()
    pairs = starter_pairs(STARTER_PATH)
    if pairs:
        conn.execute(glossary_entries.insert(), [
            {"term": t, "synonym": s, "who": STARTER_WHO, "at": now} for t, s in pairs])
        conn.execute(glossary_changes.insert(), [
            {"at": now, "who": STARTER_WHO, "action": "starter", "term": t, "synonym": s} for t, s in pairs])


def _sync_starter(conn: Connection) -> None:
    """The starter pairs a database opened before they were shipped lacks (家常, 唠, 算钱 …), added as the first load
    adds them; a pair the audit trail already names — loaded, added or removed by staff — is left as it is, so a pair
    an admin removed does not come back. A database created with these pairs finds nothing to add."""
    now = utcnow()
    named = {(t, s) for t, s in conn.execute(sa_select(glossary_changes.c.term, glossary_changes.c.synonym))}
    named |= {(t, s) for t, s in conn.execute(sa_select(glossary_entries.c.term, glossary_entries.c.synonym))}
    pairs = [pair for pair in starter_pairs(STARTER_PATH) if pair not in named]
    if pairs:
        conn.execute(glossary_entries.insert(), [
            {"term": t, "synonym": s, "who": STARTER_WHO, "at": now} for t, s in pairs])
        conn.execute(glossary_changes.insert(), [
            {"at": now, "who": STARTER_WHO, "action": "starter", "term": t, "synonym": s} for t, s in pairs])


GLOSSARY_SCHEMA = Schema("glossary", (
    Migration(1, "glossary entries and change log", create_tables(glossary_entries, glossary_changes)),
    Migration(2, "append-only glossary change log", append_only("glossary_changes")),
    Migration(3, "starter glossary from core/data/glossary_starter.csv", _load_starter),
    Migration(4, "append-only also against replacing inserts and TRUNCATE", append_only("glossary_changes")),
    Migration(5, "starter pairs shipped since (round 15), unless staff removed them", _sync_starter),
    Migration(6, "starter pairs shipped in round 17, unless staff removed them", _sync_starter),
    Migration(7, "starter pairs shipped in round 18, unless staff removed them", _sync_starter),
    Migration(8, "starter pairs shipped in round 19, unless staff removed them", _sync_starter),
))


@dataclass(frozen=True)
class GlossaryChange:
    """One line of the audit trail: who did what to which pair, when."""

    id: int
    at: datetime
    who: str
    action: str
    term: str
    synonym: str

    @property
    def summary(self) -> str:
        return f"{self.who} {ACTION_LABELS.get(self.action, self.action)}了“{self.synonym} → {self.term}”"


# The glossary's stamp, read on every page rerun (`GlossaryStore.load`): built once.
_STAMP = sa_select(sa_select(func.max(glossary_changes.c.id)).scalar_subquery(),
                   sa_select(func.count()).select_from(glossary_entries).scalar_subquery(),
                   sa_select(func.max(glossary_entries.c.id)).scalar_subquery())


class GlossaryStore:
    """The glossary on a `Database`; opening it brings the schema (and the starter set) up to date."""

    def __init__(self, db: Database, *, clock: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self._clock = clock
        self._loaded: tuple[tuple, Glossary] | None = None  # (stamp, glossary) of the last load
        db.migrate(GLOSSARY_SCHEMA)

    @classmethod
    def open(cls, settings: Settings) -> GlossaryStore:
        return cls(open_database(settings.db_url))

    def load(self) -> Glossary:
        """The current glossary as an immutable value (cache it on `glossary.fingerprint`).

        Every page rerun loads it, so one small statement reads a stamp first — the newest line of the append-only
        change log (every write adds one in its transaction) and the entries' count and newest id — and while the
        stamp is unchanged the glossary built last time is returned instead of reading and normalising every pair.
        """
        with self.db.read("读取同义词表") as conn:
            stamp = tuple(conn.execute(_STAMP).one())
            loaded = self._loaded
            if loaded is not None and loaded[0] == stamp:
                return loaded[1]
            rows = conn.execute(sa_select(glossary_entries).order_by(glossary_entries.c.id)).all()
        glossary = Glossary(tuple(GlossaryEntry(r.term, r.synonym, r.who, _stamp(r.at)) for r in rows))
        self._loaded = (stamp, glossary)
        return glossary

    def add(self, term: str, synonym: str, *, who: str, authorize: Authorize | None = None) -> GlossaryEntry:
        """Add “synonym → term”; InvalidGlossary if the pair is bad or already there."""
        term, synonym = check_entry(term, synonym)
        who = _check_who(who)
        now = self._clock()
        with self.db.transaction("添加同义词", immediate=authorize is not None) as conn:
            checked(conn, authorize, "edit_glossary")
            if _existing(conn, term, synonym):
                raise InvalidGlossary(f"“{synonym} → {term}”已经在同义词表里了。")
            conn.execute(glossary_entries.insert().values(term=term, synonym=synonym, who=who, at=now))
            conn.execute(glossary_changes.insert().values(at=now, who=who, action="add", term=term, synonym=synonym))
        return GlossaryEntry(term, synonym, who, _stamp(now))

    def remove(self, term: str, synonym: str, *, who: str, authorize: Authorize | None = None) -> None:
        """Remove “synonym → term”; InvalidGlossary if it is not in the glossary."""
        term, synonym = (term or "").strip(), (synonym or "").strip()
        who = _check_who(who)
        with self.db.transaction("删除同义词", immediate=authorize is not None) as conn:
            checked(conn, authorize, "edit_glossary")
            found = _existing(conn, term, synonym)
            if found is None:
                raise InvalidGlossary(f"同义词表里没有“{synonym} → {term}”，可能已被别人删除，请刷新后再看。")
            conn.execute(glossary_entries.delete().where(glossary_entries.c.id == found))
            conn.execute(glossary_changes.insert().values(at=self._clock(), who=who, action="remove",
                                                          term=term, synonym=synonym))

    def replace(self, old: tuple[str, str], new: tuple[str, str], *, who: str, authorize: Authorize | None = None) -> GlossaryEntry:
        """Edit one entry: remove `old` (term, synonym) and add `new` in one transaction."""
        term, synonym = check_entry(*new)
        who = _check_who(who)
        now = self._clock()
        with self.db.transaction("修改同义词", immediate=authorize is not None) as conn:
            checked(conn, authorize, "edit_glossary")
            found = _existing(conn, *old)
            if found is None:
                raise InvalidGlossary(f"同义词表里没有“{old[1]} → {old[0]}”，可能已被别人删除，请刷新后再看。")
            conn.execute(glossary_entries.delete().where(glossary_entries.c.id == found))
            if _existing(conn, term, synonym):
                raise InvalidGlossary(f"“{synonym} → {term}”已经在同义词表里了。")
            conn.execute(glossary_entries.insert().values(term=term, synonym=synonym, who=who, at=now))
            conn.execute(glossary_changes.insert(), [
                {"at": now, "who": who, "action": "remove", "term": old[0], "synonym": old[1]},
                {"at": now, "who": who, "action": "add", "term": term, "synonym": synonym}])
        return GlossaryEntry(term, synonym, who, _stamp(now))

    def changes(self, *, limit: int = 200) -> tuple[GlossaryChange, ...]:
        """The change log, newest first."""
        with self.db.read("读取同义词修改记录") as conn:
            rows = conn.execute(sa_select(glossary_changes).order_by(glossary_changes.c.id.desc()).limit(limit)).all()
        return tuple(GlossaryChange(r.id, r.at, r.who, r.action, r.term, r.synonym) for r in rows)

    def export_csv(self) -> bytes:
        """Every entry as UTF-8-with-BOM CSV: 标准词,同义词,添加人,添加时间."""
        return write_csv(self.load().entries)

    def import_csv(self, data: bytes | str, *, who: str, authorize: Authorize | None = None) -> int:
        """Add the file's pairs that are not there yet; the number added (see `import_report`)."""
        return self.import_report(data, who=who, authorize=authorize).added

    def import_report(self, data: bytes | str, *, who: str, authorize: Authorize | None = None) -> ImportReport:
        """Add the file's pairs that are not there yet; how many were added and which were skipped as already
        there. All rows are checked first and any bad row fails the whole import with its row number;
        nothing is half-saved."""
        who = _check_who(who)
        pairs = read_csv(data)
        now = self._clock()
        with self.db.transaction("导入同义词表", immediate=authorize is not None) as conn:
            checked(conn, authorize, "edit_glossary")
            have = {(normalize(r.term), normalize(r.synonym))
                    for r in conn.execute(sa_select(glossary_entries.c.term, glossary_entries.c.synonym))}
            new = [(t, s) for t, s in pairs if (normalize(t), normalize(s)) not in have]
            if new:
                conn.execute(glossary_entries.insert(), [
                    {"term": t, "synonym": s, "who": who, "at": now} for t, s in new])
                conn.execute(glossary_changes.insert(), [
                    {"at": now, "who": who, "action": "import", "term": t, "synonym": s} for t, s in new])
        skipped = tuple(f"{s} → {t}" for t, s in pairs if (t, s) not in new)
        return ImportReport(added=len(new), skipped=skipped)


@dataclass(frozen=True)
class ImportReport:
    """What an import did: how many pairs were added, and the pairs skipped because they were already there."""

    added: int
    skipped: tuple[str, ...] = ()


def _existing(conn: Connection, term: str, synonym: str) -> int | None:
    """The id of the entry equal to (term, synonym) after normalisation, if any."""
    # Compared in Python after normalize() so that 「ＡＰＰ」 and 「app」 are the same pair; the
    # glossary is a few hundred rows, read inside the caller's transaction.
    rows = conn.execute(sa_select(glossary_entries.c.id, glossary_entries.c.term, glossary_entries.c.synonym)).all()
    key = (normalize(term), normalize(synonym))
    return next((r.id for r in rows if (normalize(r.term), normalize(r.synonym)) == key), None)


def _check_who(who: str) -> str:
    who = (who or "").strip()
    if not who:
        raise InvalidGlossary("请先填写操作人姓名，再修改同义词表（每次修改都会记录是谁改的）。")
    if len(who) > MAX_WHO_CHARS:
        raise InvalidGlossary(f"操作人姓名有 {len(who)} 个字，超过了 {MAX_WHO_CHARS} 字的上限。")
    return who


def _stamp(at: datetime) -> str:
    return at.isoformat(timespec="seconds") if at else ""
