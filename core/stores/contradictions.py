"""Where the documents disagree with themselves: sentences a save left stating a rule it changed, until they are fixed.

A corpus save (core.stores.corpus_admin.CorpusAdmin.save, through core.stores.stale.refresh_after_save) records what
core.reuse.drift.still_stating found for it, one row per sentence. A row is *open* while its sentence is still in the
newest text of its file and the old sentence is not back in the changed file: editing the sentence, or restoring the
old rule, closes it without anyone touching the row; an admin may also dismiss one that is no contradiction
(「这句不矛盾」). Every instance reads the same rows against the database's corpus (core.stores.corpus_versions), so an
answer citing an open one is flagged wherever it is asked (core.assistant). Its own component and table: it refers to
no other store's table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Column, DateTime, Integer, MetaData, String, Table, Text, func, select

from core.clock import as_utc, utcnow
from core.corpus.files import MAX_NAME_BYTES
from core.errors import StoreError
from core.stores.corpus_versions import CORPUS_SCHEMA, generation_column, version_log
from core.stores.db import Database, Migration, Schema, changed, create_tables
from core.stores.roles import Authorize, User, require
from core.values import Contradiction

metadata = MetaData()
contradictions = Table(
    "contradictions", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("source", String(MAX_NAME_BYTES), nullable=False),  # the file still stating the old rule
    Column("heading", Text, nullable=False),
    Column("sentence", Text, nullable=False),
    Column("changed_source", String(MAX_NAME_BYTES), nullable=False),  # the file the save changed
    Column("old", Text, nullable=False),  # the sentence before the save
    Column("new", Text, nullable=False),  # after it ("" when deleted)
    Column("actor", String(200), nullable=False),  # who saved
    Column("at", DateTime(timezone=True), nullable=False),
    Column("dismissed_by", String(200)),
    Column("dismissed_at", DateTime(timezone=True)),
)
CONTRADICTIONS_SCHEMA = Schema("contradictions", (
    Migration(1, "sentences a corpus save left stating a rule it changed", create_tables(contradictions)),
))


@dataclass(frozen=True)
class Recorded:
    """One recorded contradiction with its row id (what 「这句不矛盾」 dismisses)."""

    id: int
    contradiction: Contradiction
    actor: str
    at: datetime


def still_open(found: Contradiction, texts: Mapping[str, str]) -> bool:
    """True while `found.sentence` is still in its file and the old sentence is not back in the changed one
    (`texts`: source → its newest text)."""
    return found.sentence in texts.get(found.source, "") and found.old not in texts.get(found.changed_source, "")


# What `ContradictionStore.current` reads before every answer, built once: the corpus generation, the newest row id
# and the rows dismissed — they change whenever what `open` returns may.
_STAMP = select(generation_column(), select(func.coalesce(func.max(contradictions.c.id), 0)).scalar_subquery(),
                select(func.count(contradictions.c.dismissed_at)).scalar_subquery())


class ContradictionStore:
    """Contradictions on a `Database`; opening it brings the schema up to date."""

    def __init__(self, db: Database, *, clock: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self._clock = clock
        self._memo: tuple[object, tuple[Contradiction, ...]] = (None, ())  # (state read at, what was open)
        db.migrate(CONTRADICTIONS_SCHEMA)

    def current(self) -> tuple[Contradiction, ...]:
        """The open contradictions against the database's corpus, read again only when a save (any instance's),
        a record or a dismissal may have changed them: what an answer is checked against, question after question."""
        self.db.migrate(CORPUS_SCHEMA)
        with self.db.read("读取资料前后矛盾") as conn:  # one statement: asked before every answer is shown
            key = tuple(conn.execute(_STAMP).one())
        if self._memo[0] != key:
            self._memo = (key, tuple(r.contradiction for r in self.open()))
        return self._memo[1]

    def record(self, found: Sequence[Contradiction], *, actor: str) -> int:
        """Keep what a save found; a sentence already recorded as open against the same old sentence is not
        added twice. Returns how many rows were added."""
        if not found:
            return 0
        now = self._clock()
        added = 0
        with self.db.transaction("记录资料前后矛盾") as conn:
            known = {(r.source, r.sentence, r.old) for r in conn.execute(
                select(contradictions.c.source, contradictions.c.sentence, contradictions.c.old)
                .where(contradictions.c.dismissed_at.is_(None)))}
            for c in found:
                if (c.source, c.sentence, c.old) in known:
                    continue
                known.add((c.source, c.sentence, c.old))
                conn.execute(contradictions.insert().values(
                    source=c.source, heading=c.heading, sentence=c.sentence, changed_source=c.changed_source,
                    old=c.old, new=c.new, actor=actor, at=now))
                added += 1
        return added

    def open(self, texts: Mapping[str, str] | None = None) -> tuple[Recorded, ...]:
        """The contradictions not dismissed and not fixed in `texts` (source → newest text; default: the
        database's corpus), oldest first."""
        with self.db.read("读取资料前后矛盾") as conn:
            rows = conn.execute(select(contradictions).where(contradictions.c.dismissed_at.is_(None))
                                .order_by(contradictions.c.id)).all()
        if not rows:
            return ()
        texts = version_log(self.db).newest() if texts is None else texts
        recorded = (Recorded(r.id, Contradiction(r.source, r.heading, r.sentence, r.changed_source, r.old, r.new),
                             r.actor, as_utc(r.at)) for r in rows)
        return tuple(r for r in recorded if still_open(r.contradiction, texts))

    def dismiss(self, user: User | None, contradiction_id: int, *, authorize: Authorize | None = None) -> None:
        """An admin says this sentence does not contradict the change: it is no longer listed nor flagged."""
        user = require(user, "edit_corpus")
        now = self._clock()
        with self.db.transaction("忽略资料前后矛盾", immediate=authorize is not None) as conn:
            who = authorize(conn, "edit_corpus").label if authorize is not None else user.label
            if changed(conn, contradictions.update().where(
                    contradictions.c.id == contradiction_id, contradictions.c.dismissed_at.is_(None))
                    .values(dismissed_by=who, dismissed_at=now)) != 1:
                raise StoreError(f"没有找到编号为 {contradiction_id} 的待处理矛盾（可能已被别人忽略或已改好），请刷新。")
