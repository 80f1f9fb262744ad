"""Who may change the glossary: admins edit it; consultants' additions wait as proposals for an admin.

The role is checked here, in the core, for every change, so a page that forgets to hide a
button still cannot let a 顾问 change what the gate reads. A proposal lives in its own table
and never reaches `Glossary` (what retrieval and the gate use) until an admin approves it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Column, Connection, DateTime, Integer, MetaData, String, Table, select

from core.answerability.glossary import MAX_WORD_CHARS, Glossary, GlossaryEntry, check_entry
from core.clock import utcnow
from core.errors import InvalidGlossary, ProposalDecided
from core.language.text import normalize
from core.stores.db import Database, Migration, Schema, changed, create_tables, insert_ignoring_duplicates, inserted_id
from core.stores.glossary import GlossaryStore, glossary_changes, glossary_entries
from core.stores.roles import Authorize, User, checked, require

STATUS_LABELS = {"pending": "待批准", "approved": "已批准", "rejected": "已驳回"}

metadata = MetaData()
glossary_proposals = Table(
    "glossary_proposals", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("term", String(MAX_WORD_CHARS), nullable=False),
    Column("synonym", String(MAX_WORD_CHARS), nullable=False),
    Column("who", String(100), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("status", String(16), nullable=False),
    Column("decided_by", String(100)),
    Column("decided_at", DateTime(timezone=True)),
)
PROPOSALS_SCHEMA = Schema("glossary_proposals", (
    Migration(1, "synonyms proposed by consultants", create_tables(glossary_proposals)),
))




@dataclass(frozen=True)
class Proposal:
    """A synonym a consultant suggested, waiting for (or decided by) an admin."""

    id: int
    term: str
    synonym: str
    who: str
    at: datetime
    status: str
    decided_by: str | None = None

    @property
    def status_label(self) -> str:
        return STATUS_LABELS.get(self.status, self.status)


@dataclass(frozen=True)
class Submitted:
    """What `submit` did: added at once (an admin) or queued as proposal #`proposal_id` (a consultant)."""

    term: str
    synonym: str
    proposal_id: int | None = None

    @property
    def message(self) -> str:
        if self.proposal_id is None:
            return f"已加入同义词：“{self.synonym}”视为“{self.term}”。"
        return (f"已提交同义词提议 #{self.proposal_id}：“{self.synonym}”视为“{self.term}”。"
                "管理员批准之前，检索和判定都不会使用它。")


class GlossaryAdmin:
    """Role-checked glossary changes on a `Database`."""

    def __init__(self, db: Database, *, clock: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self._clock = clock
        self.store = GlossaryStore(db, clock=clock)
        db.migrate(PROPOSALS_SCHEMA)

    def load(self) -> Glossary:
        return self.store.load()

    def search(self, text: str = "") -> tuple[GlossaryEntry, ...]:
        """Entries whose term, synonym or author contains `text` (width and case ignored)."""
        key = normalize(text or "")
        entries = self.store.load().entries
        if not key:
            return entries
        return tuple(e for e in entries if key in normalize(e.term) or key in normalize(e.synonym)
                     or key in normalize(e.who))

    def submit(self, user: User | None, term: str, synonym: str, *, authorize: Authorize | None = None) -> Submitted:
        """The Ask/tuning pages' 「加入同义词」: an admin adds, anyone else proposes."""
        if user is not None and user.can("edit_glossary"):
            entry = self.add(user, term, synonym, authorize=authorize)
            return Submitted(entry.term, entry.synonym)
        return self.propose(user, term, synonym, authorize=authorize)

    def add(self, user: User | None, term: str, synonym: str, *, authorize: Authorize | None = None) -> GlossaryEntry:
        return self.store.add(term, synonym, who=require(user, "edit_glossary").label, authorize=authorize)

    def edit(self, user: User | None, old: tuple[str, str], new: tuple[str, str], *,
             authorize: Authorize | None = None) -> GlossaryEntry:
        return self.store.replace(old, new, who=require(user, "edit_glossary").label, authorize=authorize)

    def remove(self, user: User | None, term: str, synonym: str, *, authorize: Authorize | None = None) -> None:
        self.store.remove(term, synonym, who=require(user, "edit_glossary").label, authorize=authorize)

    def import_csv(self, user: User | None, data: bytes | str, *, authorize: Authorize | None = None) -> int:
        return self.import_report(user, data, authorize=authorize).added

    def import_report(self, user: User | None, data: bytes | str, *, authorize: Authorize | None = None):
        """The import with the pairs it skipped as already there (core.stores.glossary.ImportReport)."""
        return self.store.import_report(data, who=require(user, "edit_glossary").label, authorize=authorize)

    def propose(self, user: User | None, term: str, synonym: str, *,
                authorize: Authorize | None = None) -> Submitted:
        who = require(user, "propose_synonym").label
        term, synonym = check_entry(term, synonym)
        with self.db.transaction("提交同义词提议", immediate=authorize is not None) as conn:
            checked(conn, authorize, "propose_synonym")
            pending = conn.execute(select(glossary_proposals.c.id, glossary_proposals.c.term,
                                          glossary_proposals.c.synonym)
                                   .where(glossary_proposals.c.status == "pending")).all()
            key = (normalize(term), normalize(synonym))
            same = next((r.id for r in pending if (normalize(r.term), normalize(r.synonym)) == key), None)
            if same is not None:
                return Submitted(term, synonym, same)
            proposal_id = inserted_id(conn.execute(glossary_proposals.insert().values(
                term=term, synonym=synonym, who=who, at=self._clock(), status="pending")))
        return Submitted(term, synonym, proposal_id)

    def proposals(self, status: str | None = "pending") -> tuple[Proposal, ...]:
        query = select(glossary_proposals).order_by(glossary_proposals.c.id.desc())
        if status:
            query = query.where(glossary_proposals.c.status == status)
        with self.db.read("读取同义词提议") as conn:
            rows = conn.execute(query).all()
        return tuple(Proposal(r.id, r.term, r.synonym, r.who, r.at, r.status, r.decided_by) for r in rows)

    def approve(self, user: User | None, proposal_id: int, *, authorize: Authorize | None = None) -> GlossaryEntry:
        """Add the proposed pair and close the proposal, in one transaction.

        The proposal's row is locked and closed only while still pending (`_close`), so of an
        approval and a rejection (or two approvals) at the same moment exactly one is saved and
        the other gets ProposalDecided; the pair itself goes in at most once.
        """
        who = require(user, "edit_glossary").label
        now = self._clock()
        with self.db.transaction("批准同义词提议", immediate=True) as conn:
            checked(conn, authorize, "edit_glossary")
            row = self._pending(conn, proposal_id, "批准")
            self._close(conn, proposal_id, "approved", who, now, "批准")
            have = {(normalize(r.term), normalize(r.synonym))
                    for r in conn.execute(select(glossary_entries.c.term, glossary_entries.c.synonym))}
            if (normalize(row.term), normalize(row.synonym)) not in have:
                added = insert_ignoring_duplicates(conn, glossary_entries, {
                    "term": row.term, "synonym": row.synonym, "who": f"{row.who}（{who} 批准）"[:100], "at": now})
                if added:
                    conn.execute(glossary_changes.insert().values(at=now, who=who, action="add", term=row.term,
                                                                  synonym=row.synonym))
        return GlossaryEntry(row.term, row.synonym, row.who, now.isoformat(timespec="seconds"))

    def reject(self, user: User | None, proposal_id: int, *, authorize: Authorize | None = None) -> None:
        who = require(user, "edit_glossary").label
        with self.db.transaction("驳回同义词提议", immediate=True) as conn:
            checked(conn, authorize, "edit_glossary")
            self._pending(conn, proposal_id, "驳回")
            self._close(conn, proposal_id, "rejected", who, self._clock(), "驳回")

    @staticmethod
    def _pending(conn: Connection, proposal_id: int, doing: str):
        """The proposal's row, locked (FOR UPDATE; SQLite's BEGIN IMMEDIATE), if it is still pending."""
        row = conn.execute(select(glossary_proposals).where(glossary_proposals.c.id == proposal_id)
                           .with_for_update()).first()
        if row is None:
            raise InvalidGlossary(f"没有找到同义词提议 #{proposal_id}，请刷新后再看。")
        if row.status != "pending":
            raise ProposalDecided(_decided(proposal_id, row.status, row.decided_by, doing))
        return row

    @staticmethod
    def _close(conn: Connection, proposal_id: int, status: str, who: str, now: datetime, doing: str) -> None:
        """Close the proposal only if it is still pending; else ProposalDecided and the transaction rolls back."""
        closed = changed(conn, glossary_proposals.update()
                         .where(glossary_proposals.c.id == proposal_id, glossary_proposals.c.status == "pending")
                         .values(status=status, decided_by=who, decided_at=now))
        if closed != 1:
            row = conn.execute(select(glossary_proposals.c.status, glossary_proposals.c.decided_by)
                               .where(glossary_proposals.c.id == proposal_id)).first()
            raise ProposalDecided(_decided(proposal_id, row.status if row else "", row.decided_by if row else None,
                                           doing))


def _decided(proposal_id: int, status: str, by: str | None, doing: str) -> str:
    done = STATUS_LABELS.get(status, "处理").removeprefix("已")
    return (f"同义词提议 #{proposal_id} 已经被{by or '其他管理员'}{done}了，你的{doing}没有保存；"
            "请刷新后再看，不用再处理。")
