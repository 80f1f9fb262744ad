"""Approved answers: what consultants approved (the correction, when there is one), with the chunks it cites.

An approved answer is created inside the transaction that approves (or rejects with a correction) a review
item (`approve_in`, called by core.stores.review.ReviewStore.decide), so the item's status and its approved
answer never disagree. Approving the same question again (the same item, or another item with the same
`question_key`) makes a new version of the same approved answer, never a second record; every version is
kept in `approved_history`, which the database refuses to change. Answers are never deleted: an admin
retires one, and one the documents no longer back is suspended (its item goes back to 资料已更新) until a
consultant approves it again or the content it rests on comes back (core.stores.answer_refresh resumes it).
Several instances share the table, so a suspension is seen everywhere at once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from sqlalchemy import (
    Column,
    Connection,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    Row,
    Select,
    String,
    Table,
    Text,
    UniqueConstraint,
    bindparam,
    func,
    literal_column,
    or_,
    select,
    tuple_,
)

from core.clock import as_utc, utcnow
from core.errors import InvalidReview, StoreError
from core.language.text import question_key
from core.reuse.case import differences
from core.stores.corpus_versions import CORPUS_SCHEMA, generation_column
from core.stores.db import (
    Database,
    Migration,
    Schema,
    append_only,
    create_tables,
    dialect_insert,
    insert_ignoring_duplicates,
)
from core.stores.roles import SYSTEM_ACTOR, Authorize, User, require
from core.values import ApprovedAnswer, Citation
from core.values.facts import NO_FACTS, SchoolFacts
from core.values.reuse import ACTIVE, RETIRED, SUSPENDED

MAX_NAME_CHARS = 100
metadata = MetaData()

approved_answers = Table(
    "approved_answers", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("item_id", Integer),  # the review item it was approved from (review_items.id)
    Column("question", Text, nullable=False),
    Column("question_key", String(64), nullable=False),  # sha256 of core.language.text.question_key
    Column("text", Text, nullable=False),
    Column("status", String(16), nullable=False),
    Column("version", Integer, nullable=False),
    Column("approver", String(MAX_NAME_CHARS), nullable=False),
    Column("approved_at", DateTime(timezone=True), nullable=False),
    Column("fingerprint", String(128), nullable=False),
    Column("override", Text, nullable=False),  # the checks' problems approved over ("" when it passed them)
    Column("uses", Integer, nullable=False),
    Column("last_used_at", DateTime(timezone=True)),
)
Index("ix_approved_answers_key", approved_answers.c.question_key)
Index("ix_approved_answers_item", approved_answers.c.item_id)
# One answer in use (active or suspended) per question, kept by the database itself: two approvals of one question
# at once cannot leave two. The predicate is a literal so PostgreSQL can match ON CONFLICT … WHERE against it.
_LIVE = approved_answers.c.status != literal_column(f"'{RETIRED}'")
live_key = Index("uq_approved_answers_live_key", approved_answers.c.question_key, unique=True,
                 sqlite_where=_LIVE, postgresql_where=_LIVE)

approved_citations = Table(
    "approved_citations", metadata,
    Column("answer_id", Integer, ForeignKey("approved_answers.id"), primary_key=True),
    Column("number", Integer, primary_key=True),
    Column("source", String(500), nullable=False),
    Column("heading", Text, nullable=False),
    Column("chunk", Integer, nullable=False),
    Column("sha256", String(64), nullable=False),
)
# The reuse step looks approved answers up by the (file, section) of the new question's candidates.
Index("ix_approved_citations_place", approved_citations.c.source, approved_citations.c.heading)

# Other wordings of an approved question: a consultant saw a near miss stopped only because the words differ and
# said it is the same question (core.reuse.guards then matches a new question against every wording).
approved_questions = Table(
    "approved_questions", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("answer_id", Integer, ForeignKey("approved_answers.id"), nullable=False),
    Column("question", Text, nullable=False),
    Column("question_key", String(64), nullable=False),
    Column("actor", String(MAX_NAME_CHARS), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("answer_id", "question_key", name="uq_approved_questions_key"),
)
Index("ix_approved_questions_answer", approved_questions.c.answer_id)

approved_history = Table(
    "approved_history", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("answer_id", Integer, ForeignKey("approved_answers.id"), nullable=False),
    Column("version", Integer, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("actor", String(MAX_NAME_CHARS), nullable=False),
    Column("action", String(16), nullable=False),  # approve, suspend, retire
    Column("status", String(16), nullable=False),
    Column("text", Text, nullable=False),
    Column("citations", Text, nullable=False),  # "1:file#chunk:sha;2:…", what the version cited
    Column("note", Text, nullable=False),
    Column("item_id", Integer),
)
Index("ix_approved_history_answer", approved_history.c.answer_id, approved_history.c.id)

APPROVED_SCHEMA = Schema("approved_answers", (
    Migration(1, "approved answers, their citations and history",
              create_tables(approved_answers, approved_citations, approved_history)),
    Migration(2, "approved-answer history is append-only", append_only("approved_history")),
    Migration(3, "other wordings linked to an approved question", create_tables(approved_questions)),
    Migration(4, "one approved answer in use per question (a partial unique index)", lambda conn: _one_live_per_key(conn)),
))
DUPLICATE_NOTE = "同一个问题有两条在用的已审答案（并发通过留下的），保留最近通过的一条，这条自动停用"
ACTION_LABELS = {"approve": "通过", "suspend": "暂停", "resume": "恢复使用", "retire": "停用", "link": "加入问法"}


def key_of(question: str) -> str:
    """The indexed form of `core.language.text.question_key`."""
    return hashlib.sha256(question_key(question).encode("utf-8", "surrogatepass")).hexdigest()


def _one_live_per_key(conn: Connection) -> None:
    """Migration 4: retire all but the most recently approved of the answers in use that share a question (races
    before this migration could leave two), each with a history line, then create the partial unique index."""
    rows = conn.execute(select(approved_answers.c.id, approved_answers.c.question_key, approved_answers.c.version,
                               approved_answers.c.text, approved_answers.c.item_id)
                        .where(approved_answers.c.status != RETIRED)
                        .order_by(approved_answers.c.question_key, approved_answers.c.approved_at.desc(),
                                  approved_answers.c.id.desc())).all()
    kept: set[str] = set()
    for r in rows:
        if r.question_key not in kept:
            kept.add(r.question_key)
            continue
        conn.execute(approved_answers.update().where(approved_answers.c.id == r.id).values(status=RETIRED))
        _history(conn, r.id, r.version, utcnow(), SYSTEM_ACTOR, "retire", RETIRED, r.text, (), DUPLICATE_NOTE,
                 r.item_id)
    live_key.create(conn, checkfirst=True)


def approve_in(conn: Connection, *, question: str, text: str, citations: Sequence[Citation], approver: str,
               item_id: int | None, fingerprint: str, override: str, now: datetime) -> int:
    """Create or version the approved answer for this question inside the caller's transaction; its id.

    The answer in use is read FOR UPDATE (the decision's UPDATE already holds SQLite's write lock), so two approvals
    of it queue up and each makes its own version. When there is none, the insert goes through the partial unique
    index (ON CONFLICT DO NOTHING): of two items of one question approved at once, the second waits for the first,
    finds its answer and versions it, so one answer is left, never two."""
    key = key_of(question)
    mine = (or_(approved_answers.c.item_id == item_id, approved_answers.c.question_key == key)
            if item_id is not None else approved_answers.c.question_key == key)
    row = _live(conn, mine)
    values = {"question": question, "question_key": key, "text": text, "status": ACTIVE,
              "approver": approver, "approved_at": now, "fingerprint": fingerprint, "override": override,
              "item_id": item_id}
    if row is None:
        inserted = conn.execute(_insert_live(conn).values(**values, version=1, uses=0)
                                .returning(approved_answers.c.id)).first()
        if inserted is None:  # another transaction made this question's answer a moment ago: version it
            row = _live(conn, approved_answers.c.question_key == key)
        else:
            answer_id, version = inserted.id, 1
    if row is not None:
        answer_id, version = row.id, row.version + 1
        conn.execute(approved_answers.update().where(approved_answers.c.id == answer_id)
                     .values(**values, version=version))
        conn.execute(approved_citations.delete().where(approved_citations.c.answer_id == answer_id))
    if citations:
        conn.execute(approved_citations.insert(), [
            {"answer_id": answer_id, "number": c.number, "source": c.source, "heading": c.heading, "chunk": c.chunk,
             "sha256": c.sha256} for c in citations])
    _history(conn, answer_id, version, now, approver, "approve", ACTIVE, text, citations, override, item_id)
    return answer_id


def _live(conn: Connection, where) -> Row | None:
    """The first answer in use matching `where`, its row locked for this transaction (FOR UPDATE)."""
    return conn.execute(select(approved_answers.c.id, approved_answers.c.version)
                        .where(where, approved_answers.c.status != RETIRED)
                        .order_by(approved_answers.c.id).limit(1).with_for_update()).first()


def _insert_live(conn: Connection):
    """INSERT … ON CONFLICT (question_key) WHERE status <> 'retired' DO NOTHING, on either engine."""
    return dialect_insert(conn, approved_answers).on_conflict_do_nothing(
        index_elements=[approved_answers.c.question_key], index_where=_LIVE)


def _acting_on(conn: Connection, user: User, answer_id: int, permission: str,
               authorize: Authorize | None) -> tuple[str, Row]:
    """Inside a staff action's transaction: who acts (the session re-checked for `permission` when there is one) and
    the approved answer's row, locked until the transaction ends (FOR UPDATE; SQLite's BEGIN IMMEDIATE), so a
    retire and a link on one answer queue up and the second sees what the first did; or a message to refresh when
    it is gone."""
    actor = authorize(conn, permission).label if authorize is not None else user.label
    row = conn.execute(select(approved_answers).where(approved_answers.c.id == answer_id).with_for_update()).first()
    if row is None:
        raise StoreError(f"没有找到编号为 {answer_id} 的已审答案，请刷新后再试。")
    return actor, row


def _history(conn: Connection, answer_id: int, version: int, at: datetime, actor: str, action: str, status: str,
             text: str, citations: Sequence[Citation], note: str, item_id: int | None) -> None:
    conn.execute(approved_history.insert().values(
        answer_id=answer_id, version=version, at=at, actor=actor, action=action, status=status, text=text,
        citations=";".join(f"{c.number}:{c.source}#{c.chunk}:{c.sha256[:12]}" for c in citations), note=note,
        item_id=item_id))


def count_use_in(conn: Connection, answer_id: int, now: datetime) -> None:
    """One more use of an approved answer (a student was served it), inside the caller's transaction."""
    conn.execute(approved_answers.update().where(approved_answers.c.id == answer_id)
                 .values(uses=approved_answers.c.uses + 1, last_used_at=now))


def _near() -> Select:
    """Each approved answer citing one of the `places` (file, section) with its use count, its newest history
    row and the database's corpus generation (core.stores.corpus_versions). Built once: `near_at` runs for every
    question (core/stores/exchanges.py says why)."""
    cited = select(approved_citations.c.answer_id).where(
        tuple_(approved_citations.c.source, approved_citations.c.heading).in_(bindparam("places", expanding=True)))
    newest = (select(approved_history.c.answer_id, func.max(approved_history.c.id).label("mark"))
              .where(approved_history.c.answer_id.in_(cited)).group_by(approved_history.c.answer_id).subquery())
    return (select(approved_answers.c.id, approved_answers.c.uses, approved_answers.c.last_used_at, newest.c.mark,
                   generation_column().label("corpus"))
            .join(newest, newest.c.answer_id == approved_answers.c.id).order_by(approved_answers.c.id))


_NEAR = _near()


class ApprovedStore:
    """Approved answers on a `Database`; opening it brings the schema up to date."""

    def __init__(self, db: Database, *, clock: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self._clock = clock
        self._kept: dict[int, tuple[int, ApprovedAnswer]] = {}  # id → (its newest history row, the answer read then)
        db.migrate(APPROVED_SCHEMA)

    def near_at(self, places: Collection[tuple[str, str]]) -> tuple[tuple[ApprovedAnswer, ...], int]:
        """Every approved answer (any status) citing one of these (file, section) places — what the reuse step checks
        for a question whose candidates are there — and the database's corpus generation
        (`core.stores.corpus_versions.generation`; 0 when nothing is found), which the reuse step checks the answers
        against.

        Asked for every question, so one statement reads each answer's newest history row (every change — a new
        version, a suspension, a resumption, a retirement, a linked wording — adds one, in its transaction, in any
        instance), its use count and the generation, and only answers changed since this store last read them are
        read in full."""
        if not places:
            return (), 0
        self.db.migrate(CORPUS_SCHEMA)
        with self.db.read("读取已审答案") as conn:
            rows = conn.execute(_NEAR, {"places": list(places)}).all()
            stale = [r.id for r in rows if r.id not in self._kept or self._kept[r.id][0] != r.mark]
            if stale:
                marks = {r.id: r.mark for r in rows}
                for answer in self._load(conn, stale):
                    self._kept[answer.id] = (marks[answer.id], answer)
        found = tuple(self._counted(self._kept[r.id][1], r.uses, as_utc(r.last_used_at))
                      for r in rows if r.id in self._kept)
        return found, (int(rows[0].corpus) if rows else 0)

    def _counted(self, answer: ApprovedAnswer, uses: int, last_used_at: datetime | None) -> ApprovedAnswer:
        """`answer` with the use count read now; kept as the one copy until a use changes it (most answers near a
        question were not used since the last question: no copy for each)."""
        if answer.uses == uses and answer.last_used_at == last_used_at:
            return answer
        counted = replace(answer, uses=uses, last_used_at=last_used_at)
        mark = self._kept[answer.id][0]
        self._kept[answer.id] = (mark, counted)
        return counted

    def get(self, answer_id: int) -> ApprovedAnswer:
        with self.db.read("读取已审答案") as conn:
            found = self._load(conn, [answer_id])
        if not found:
            raise StoreError(f"没有找到编号为 {answer_id} 的已审答案，请刷新后再试。")
        return found[0]

    def for_item(self, item_id: int) -> ApprovedAnswer | None:
        with self.db.read("读取已审答案") as conn:
            ids = conn.execute(select(approved_answers.c.id).where(approved_answers.c.item_id == item_id)).scalars()
            found = self._load(conn, list(ids))
        return found[0] if found else None

    def list(self, *, search: str = "", status: str | None = None, unused_days: int | None = None,
             limit: int = 200) -> tuple[ApprovedAnswer, ...]:
        """Approved answers, most used first: matching `search` (question, a linked wording or text), in `status`, or not used
        for `unused_days` days."""
        query = select(approved_answers.c.id)
        if search.strip():
            term = search.strip()
            linked = select(approved_questions.c.answer_id).where(
                approved_questions.c.question.contains(term, autoescape=True))
            query = query.where(or_(approved_answers.c.question.contains(term, autoescape=True),
                                    approved_answers.c.text.contains(term, autoescape=True),
                                    approved_answers.c.id.in_(linked)))
        if status:
            query = query.where(approved_answers.c.status == status)
        if unused_days is not None:
            since = self._clock() - timedelta(days=unused_days)
            query = query.where(or_(approved_answers.c.last_used_at.is_(None), approved_answers.c.last_used_at < since))
        query = query.order_by(approved_answers.c.uses.desc(), approved_answers.c.id.desc()).limit(limit)
        with self.db.read("读取已审答案") as conn:
            return self._load(conn, list(conn.execute(query).scalars()))

    def history(self, answer_id: int) -> tuple[dict, ...]:
        with self.db.read("读取已审答案记录") as conn:
            rows = conn.execute(select(approved_history).where(approved_history.c.answer_id == answer_id)
                                .order_by(approved_history.c.id)).all()
        return tuple({"version": r.version, "at": as_utc(r.at), "actor": r.actor, "action": r.action,
                      "action_label": ACTION_LABELS.get(r.action, r.action), "status": r.status, "text": r.text,
                      "note": r.note, "item_id": r.item_id} for r in rows)

    def counts(self) -> dict[str, int]:
        with self.db.read("统计已审答案") as conn:
            return dict(conn.execute(select(approved_answers.c.status, func.count())
                                     .group_by(approved_answers.c.status)).all())

    def suspend(self, answer_id: int, *, reason: str, actor: str, expected_version: int | None = None) -> bool:
        """Stop serving an approved answer whose cited chunk changed; True if it was in use until now."""
        now = self._clock()
        with self.db.transaction("暂停已审答案") as conn:
            where = [approved_answers.c.id == answer_id, approved_answers.c.status == ACTIVE]
            if expected_version is not None:
                where.append(approved_answers.c.version == expected_version)
            row = conn.execute(approved_answers.update().where(*where).values(status=SUSPENDED).returning(
                approved_answers.c.version, approved_answers.c.text, approved_answers.c.item_id)).first()
            if row is None:
                return False
            _history(conn, answer_id, row.version, now, actor, "suspend", SUSPENDED, row.text, (), reason, row.item_id)
        return True

    def resume(self, answer_id: int, *, reason: str, actor: str, expected_version: int) -> bool:
        """Serve a suspended answer again: the content it rests on is back (a version restored, or an edit undone);
        True if this call resumed it (another instance may have done it first, or a consultant acted)."""
        now = self._clock()
        with self.db.transaction("恢复使用已审答案") as conn:
            row = conn.execute(approved_answers.update().where(
                approved_answers.c.id == answer_id, approved_answers.c.status == SUSPENDED,
                approved_answers.c.version == expected_version).values(status=ACTIVE).returning(
                approved_answers.c.version, approved_answers.c.text, approved_answers.c.item_id)).first()
            if row is None:
                return False
            _history(conn, answer_id, row.version, now, actor, "resume", ACTIVE, row.text, (), reason, row.item_id)
        return True

    def in_force(self) -> tuple[ApprovedAnswer, ...]:
        """Every answer in use or suspended: what a change of the documents may suspend or resume."""
        with self.db.read("读取已审答案") as conn:
            ids = conn.execute(select(approved_answers.c.id).where(
                approved_answers.c.status.in_((ACTIVE, SUSPENDED))).order_by(approved_answers.c.id)).scalars().all()
            return self._load(conn, ids)

    def retire(self, user: User | None, answer_id: int, *, note: str = "", authorize: Authorize | None = None,
               ) -> ApprovedAnswer:
        """An admin stops an approved answer for good (it stays, with its history, never deleted)."""
        user = require(user, "retire_answer")
        now = self._clock()
        with self.db.transaction("停用已审答案", immediate=True) as conn:
            actor, row = _acting_on(conn, user, answer_id, "retire_answer", authorize)
            # The state is a condition of the write too: of two retires at once exactly one changes the row.
            done = conn.execute(approved_answers.update().where(approved_answers.c.id == answer_id,
                                                                approved_answers.c.status != RETIRED)
                                .values(status=RETIRED).returning(approved_answers.c.version)).first()
            if row.status == RETIRED or done is None:
                raise InvalidReview(f"已审答案 #{answer_id} 已经停用了。")
            _history(conn, answer_id, done.version, now, actor, "retire", RETIRED, row.text, (), note.strip(),
                     row.item_id)
        return self.get(answer_id)

    def link_question(self, user: User | None, answer_id: int, question: str, *,
                      authorize: Authorize | None = None, facts: SchoolFacts | None = None) -> ApprovedAnswer:
        """A consultant says `question` (a near miss stopped by the words only) asks what approved answer `answer_id`
        answers: it becomes one more wording the reuse step matches against. Refused when the answer is not in use,
        when the student's case differs (core.reuse.case, read with the school's `facts`: other figures, a discount, a
        rough amount or what the amount includes are never the same question), or when the wording is already there.
        The link is in the answer's history."""
        user = require(user, "link_question")
        question = (question or "").strip()
        if not question:
            raise InvalidReview("问题是空的，没有可以加入的问法。")
        now = self._clock()
        with self.db.transaction("加入已审答案的问法", immediate=True) as conn:
            actor, row = _acting_on(conn, user, answer_id, "link_question", authorize)
            if row.status != ACTIVE:
                raise InvalidReview(f"已审答案 #{answer_id} 已停用或暂停，不能再加入问法；请先重新通过它。")
            differ = differences(question, row.question, facts or NO_FACTS)
            if differ:
                raise InvalidReview(f"学员的情况不同（{'；'.join(differ)}），不是同一个问题，不能加入已审答案 #{answer_id}。")
            key = key_of(question)
            if key == row.question_key or not insert_ignoring_duplicates(conn, approved_questions, {
                    "answer_id": answer_id, "question": question, "question_key": key, "actor": actor, "at": now}):
                raise InvalidReview(f"这个问法已经在已审答案 #{answer_id} 里了。")
            _history(conn, answer_id, row.version, now, actor, "link", row.status, row.text, (), question,
                     row.item_id)
        return self.get(answer_id)

    @staticmethod
    def _load(conn: Connection, ids: Sequence[int]) -> tuple[ApprovedAnswer, ...]:
        if not ids:
            return ()
        rows = conn.execute(select(approved_answers).where(approved_answers.c.id.in_(list(ids)))
                            .order_by(approved_answers.c.id)).all()
        cites: dict[int, list[Citation]] = {r.id: [] for r in rows}
        for c in conn.execute(select(approved_citations).where(approved_citations.c.answer_id.in_(list(ids)))
                              .order_by(approved_citations.c.answer_id, approved_citations.c.number)):
            cites[c.answer_id].append(Citation(c.number, c.source, c.heading, c.chunk, c.sha256))
        wordings: dict[int, list[str]] = {r.id: [] for r in rows}
        for q in conn.execute(select(approved_questions.c.answer_id, approved_questions.c.question)
                              .where(approved_questions.c.answer_id.in_(list(ids))).order_by(approved_questions.c.id)):
            wordings[q.answer_id].append(q.question)
        why: dict[int, str] = {}  # a suspended answer's newest suspension note (history is append-only: the last one)
        suspended = [r.id for r in rows if r.status == SUSPENDED]
        if suspended:
            for h in conn.execute(select(approved_history.c.answer_id, approved_history.c.note)
                                  .where(approved_history.c.answer_id.in_(suspended),
                                         approved_history.c.action == "suspend").order_by(approved_history.c.id)):
                why[h.answer_id] = h.note
        return tuple(ApprovedAnswer(id=r.id, question=r.question, text=r.text, citations=tuple(cites[r.id]),
                                    status=r.status, version=r.version, approver=r.approver,
                                    approved_at=as_utc(r.approved_at), item_id=r.item_id, fingerprint=r.fingerprint,
                                    uses=r.uses, last_used_at=as_utc(r.last_used_at), override=r.override,
                                    questions=tuple(wordings[r.id]), suspended_because=why.get(r.id, ""))
                     for r in rows)
