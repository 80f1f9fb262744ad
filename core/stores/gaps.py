"""The 资料缺口 board's topics: who owns each, its status, its questions, and the gate re-checks after a fix.

Topics are grouped offline (core.gaps.grouping) every time the board is built; this store keeps what must
outlive a regrouping. `sync` matches each fresh group to the open topic that shares most of its questions
(by `core.stores.review_marks.question_hash`), so an owner and a status stay with their questions; a closed
topic (every question passed the gate after a fix, or an admin merged it into another) is frozen and never
matched again. Owner and status changes and tidying (merge, move, a new topic: core.stores.gap_tidying) are admin
actions (`edit_corpus`), each appended to `gap_events`, which the database keeps append-only. The tables are in
core.stores.gap_schema.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import cast

from sqlalchemy import select

from core.clock import as_utc, utcnow
from core.errors import InvalidReview, StoreError
from core.stores import gap_tidying as tidying
from core.stores.db import Database, changed, inserted_id
from core.stores.gap_schema import (  # noqa: F401 - the board's vocabulary, re-exported
    DECLINED,
    EVENT_LABELS,
    GAPS_SCHEMA,
    OPEN,
    STATUS_LABELS,
    SUPPLIED,
    gap_checks,
    gap_events,
    gap_members,
    gap_pins,
    gap_topics,
)
from core.stores.review_input import person_name
from core.stores.review_marks import MARKS_SCHEMA
from core.stores.review_schema import REVIEW_SCHEMA
from core.stores.roles import SYSTEM_ACTOR, Authorize


@dataclass(frozen=True)
class QuestionCheck:
    """One question re-run through the gate after a fix: does it pass now, and the gate's reason."""

    question: str
    answerable: bool
    reason: str


@dataclass(frozen=True)
class GapCheck:
    """A re-check of a topic's questions on one corpus version."""

    at: datetime
    fingerprint: str
    version_note: str
    results: tuple[QuestionCheck, ...]

    @property
    def passed(self) -> int:
        return sum(r.answerable for r in self.results)

    @property
    def line(self) -> str:
        """「3/5 题现在可答」"""
        return f"{self.passed}/{len(self.results)} 题现在可答"


@dataclass(frozen=True)
class TopicDraft:
    """A group as the grouping found it, before it meets the stored topics."""

    label: str
    terms: tuple[str, ...]
    keys: tuple[str, ...]  # question_hash of each question, in the group's order
    questions: tuple[str, ...]  # the same questions as asked


@dataclass(frozen=True)
class GapTopic:
    """A stored topic with its members and its latest re-check."""

    id: int
    label: str
    terms: tuple[str, ...]
    owner: str | None
    status: str
    created_at: datetime
    closed_at: datetime | None
    fixed_by: str | None
    keys: tuple[str, ...]
    questions: tuple[str, ...]
    check: GapCheck | None = None
    merged_into: int | None = None  # closed by a merge into this topic
    named_by: str | None = None  # made and named by this admin: a regrouping keeps the name

    @property
    def status_label(self) -> str:
        return STATUS_LABELS.get(self.status, self.status)

    @property
    def closed(self) -> bool:
        return self.closed_at is not None


@dataclass(frozen=True)
class GapEvent:
    at: datetime
    actor: str
    action: str
    detail: str

    @property
    def action_label(self) -> str:
        return EVENT_LABELS.get(self.action, self.action)


class GapStore:
    """The topics of the 资料缺口 board on a `Database`; opening it brings the schema up to date."""

    def __init__(self, db: Database, *, clock: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self._clock = clock
        db.migrate(REVIEW_SCHEMA)  # a question moved must be one of the queue's (core.stores.gap_tidying)
        db.migrate(MARKS_SCHEMA)
        db.migrate(GAPS_SCHEMA)

    # --- reading -----------------------------------------------------------------------------

    def topics(self) -> tuple[GapTopic, ...]:
        """Every topic with members, oldest first."""
        with self.db.read("读取资料缺口话题") as conn:
            rows = conn.execute(select(gap_topics).order_by(gap_topics.c.id)).all()
            members: dict[int, list[tuple[str, str]]] = {r.id: [] for r in rows}
            for m in conn.execute(select(gap_members).order_by(gap_members.c.topic_id)):
                members[m.topic_id].append((m.key, m.question))
            checks: dict[int, GapCheck] = {}
            for c in conn.execute(select(gap_checks).order_by(gap_checks.c.id)):
                checks[c.topic_id] = _check(c)
        return tuple(_topic(r, members[r.id], checks.get(r.id)) for r in rows if members[r.id])

    def get(self, topic_id: int) -> GapTopic:
        for topic in self.topics():
            if topic.id == topic_id:
                return topic
        raise StoreError(f"没有找到编号为 {topic_id} 的资料缺口话题，请刷新页面后再试。")

    def pins(self) -> dict[str, int]:
        """Where an admin placed each question (its `question_hash` → topic id), for open topics only."""
        with self.db.read("读取话题整理记录") as conn:
            rows = conn.execute(select(gap_pins.c.key, gap_pins.c.topic_id).join(
                gap_topics, gap_topics.c.id == gap_pins.c.topic_id).where(gap_topics.c.closed_at.is_(None))).all()
        return {r.key: r.topic_id for r in rows}

    def events(self, topic_id: int) -> tuple[GapEvent, ...]:
        with self.db.read("读取话题记录") as conn:
            rows = conn.execute(select(gap_events).where(gap_events.c.topic_id == topic_id)
                                .order_by(gap_events.c.id)).all()
        return tuple(GapEvent(at=as_utc(r.at), actor=r.actor, action=r.action, detail=r.detail) for r in rows)

    # --- grouping ----------------------------------------------------------------------------

    def sync(self, drafts: Sequence[TopicDraft]) -> tuple[int, ...]:
        """Store a fresh grouping; returns the topic id of each draft, in order.

        Largest draft first, each takes the open topic sharing most of its keys (ties: the older topic);
        a draft sharing none opens a new topic. Open topics then hold exactly their draft's questions (a
        topic no draft took is left without members and drops off the board). Closed topics stay as they are.
        """
        now = self._clock()
        order = sorted(range(len(drafts)), key=lambda i: (-len(drafts[i].keys), i))
        ids: list[int | None] = [None] * len(drafts)
        with self.db.transaction("保存资料缺口话题", immediate=True) as conn:
            open_rows = tidying.lock_open(conn)  # as every tidying action does: one after the other, in id order
            open_ids = set(open_rows)
            owner_of = {m.key: m.topic_id for m in conn.execute(select(gap_members)) if m.topic_id in open_ids}
            taken: set[int] = set()
            for i in order:
                overlap: dict[int, int] = {}
                for key in drafts[i].keys:
                    if owner_of.get(key) is not None and owner_of[key] not in taken:
                        overlap[owner_of[key]] = overlap.get(owner_of[key], 0) + 1
                if overlap:
                    topic_id = min(overlap, key=lambda t: (-overlap[t], t))
                    ids[i] = topic_id
                    taken.add(topic_id)
            if _unchanged(drafts, ids, open_rows, owner_of):  # the usual page view: nothing to write
                return tuple(cast(list[int], ids))  # _unchanged: every draft found its topic
            if open_ids:
                conn.execute(gap_members.delete().where(gap_members.c.topic_id.in_(open_ids)))
            saved: list[int] = []
            for found, draft in zip(ids, drafts):
                if found is None:
                    topic_id = inserted_id(conn.execute(gap_topics.insert().values(
                        label=draft.label, terms=" ".join(draft.terms), status=OPEN, created_at=now)))
                    conn.execute(gap_events.insert().values(topic_id=topic_id, at=now, actor=SYSTEM_ACTOR,
                                                            action="create", detail=draft.label))
                else:
                    topic_id = found
                    named = open_rows[topic_id].named_by is not None  # an admin's name stays
                    conn.execute(gap_topics.update().where(gap_topics.c.id == topic_id).values(
                        terms=" ".join(draft.terms), **({} if named else {"label": draft.label})))
                saved.append(topic_id)
                seen: set[str] = set()
                rows = []
                for key, question in zip(draft.keys, draft.questions):
                    if key not in seen:
                        seen.add(key)
                        rows.append({"topic_id": topic_id, "key": key, "question": question})
                if rows:
                    conn.execute(gap_members.insert(), rows)
        return tuple(saved)

    # --- admin actions -----------------------------------------------------------------------

    def assign(self, topic_id: int, owner: str | None, *, actor: str, authorize: Authorize | None = None) -> GapTopic:
        """Give a topic an owner (None or "" clears it)."""
        name = person_name(owner, "负责人")
        self._change(topic_id, {"owner": name}, "assign", name or "（无）", actor, authorize)
        return self.get(topic_id)

    def set_status(self, topic_id: int, status: str, *, actor: str, authorize: Authorize | None = None) -> GapTopic:
        """待补充 / 已补充 / 不补充，保持拒答. A declined topic's questions are kept out of the queue by the
        board (core.gaps.board marks its refusals 预期拒答)."""
        if status not in STATUS_LABELS:
            raise InvalidReview(f"状态「{status}」不存在，可选：{'、'.join(STATUS_LABELS.values())}。")
        self._change(topic_id, {"status": status}, "status", STATUS_LABELS[status], actor, authorize)
        return self.get(topic_id)

    def merge(self, topic_id: int, into: int, *, actor: str, authorize: Authorize | None = None) -> GapTopic:
        """Merge topic `topic_id` into `into` (both open): every question of both is pinned to `into`, so a regrouping
        keeps them together and tomorrow's like questions join them (core.gaps.grouping's seed). The merged topic is
        closed: it drops off the board and refuses new questions; its owner and status are not carried over.
        Returns the topic merged into."""
        topic_id, into = tidying.topic_id(topic_id), tidying.topic_id(into)
        now = self._clock()
        with self.db.transaction("合并资料缺口话题", immediate=True) as conn:
            tidying.merge(conn, topic_id, into, who=_who(conn, authorize, actor), now=now)
        return self.get(into)

    def move(self, question: str, into: int, *, actor: str, authorize: Authorize | None = None) -> GapTopic:
        """Move one question on the board (every asking of it: the same `question_hash`) into open topic `into`, from
        its topic or from the questions that fit none. The question and the topic's other questions are pinned there."""
        question, into = tidying.question_text(question), tidying.topic_id(into)
        now = self._clock()
        with self.db.transaction("移动资料缺口问题", immediate=True) as conn:
            tidying.move(conn, question, into, who=_who(conn, authorize, actor), now=now)
        return self.get(into)

    def create(self, name: str, questions: Sequence[str], *, actor: str,
               authorize: Authorize | None = None) -> GapTopic:
        """A new topic called `name` holding these questions of the board (from their topics or from those that fit
        none), pinned there; it keeps its name and its questions across regroupings, like a merged topic."""
        name = tidying.topic_name(name)
        if isinstance(questions, str):
            questions = (questions,)
        texts = [tidying.question_text(q) for q in questions]
        now = self._clock()
        with self.db.transaction("新建资料缺口话题", immediate=True) as conn:
            topic = tidying.create(conn, name, texts, who=_who(conn, authorize, actor), now=now)
        return self.get(topic)

    def record_check(self, topic_id: int, results: Sequence[QuestionCheck], *, fingerprint: str, version_note: str,
                     actor: str, authorize: Authorize | None = None) -> GapTopic:
        """Store a re-check of the topic's questions; when every question the topic holds now passed, the topic is
        closed (status 已补充, `fixed_by` = `version_note`) and frozen. The topic's row is locked first, so a question
        moved in while the check ran keeps it open until a check covers that question too."""
        topic_id = tidying.topic_id(topic_id)
        now = self._clock()
        passed = sum(r.answerable for r in results)
        with self.db.transaction("保存重新核对结果", immediate=True) as conn:
            who = _who(conn, authorize, actor)
            row = conn.execute(select(gap_topics.c.closed_at).where(gap_topics.c.id == topic_id).with_for_update()).first()
            if row is None:
                raise StoreError(f"没有找到编号为 {topic_id} 的资料缺口话题，请刷新页面后再试。")
            conn.execute(gap_checks.insert().values(
                topic_id=topic_id, at=now, fingerprint=fingerprint, version_note=version_note,
                results=json.dumps([r.__dict__ for r in results], ensure_ascii=False)))
            line = f"{passed}/{len(results)} 题现在可答（{version_note}）"
            conn.execute(gap_events.insert().values(topic_id=topic_id, at=now, actor=who, action="check", detail=line))
            held = set(conn.execute(select(gap_members.c.question).where(gap_members.c.topic_id == topic_id)).scalars())
            if row.closed_at is None and results and passed == len(results) and held <= {r.question for r in results}:
                conn.execute(gap_topics.update().where(gap_topics.c.id == topic_id)
                             .values(status=SUPPLIED, closed_at=now, fixed_by=version_note))
                conn.execute(gap_events.insert().values(topic_id=topic_id, at=now, actor=who, action="close",
                                                        detail=version_note))
        return self.get(topic_id)

    def _change(self, topic_id: int, values: dict, action: str, detail: str, actor: str,
                authorize: Authorize | None) -> None:
        now = self._clock()
        with self.db.transaction("修改资料缺口话题", immediate=authorize is not None) as conn:
            who = _who(conn, authorize, actor)
            if not changed(conn, gap_topics.update().where(gap_topics.c.id == topic_id).values(**values)):
                raise StoreError(f"没有找到编号为 {topic_id} 的资料缺口话题，请刷新页面后再试。")
            conn.execute(gap_events.insert().values(topic_id=topic_id, at=now, actor=who, action=action, detail=detail))


def _unchanged(drafts: Sequence[TopicDraft], ids: list[int | None], open_rows: dict, owner_of: dict[str, int]) -> bool:
    """True when every draft found its topic and each topic already holds exactly that draft's questions and label."""
    found = [i for i in ids if i is not None]
    if len(found) < len(ids):
        return False
    held: dict[int, set[str]] = {}
    for key, topic_id in owner_of.items():
        held.setdefault(topic_id, set()).add(key)
    if set(held) != set(found):
        return False
    return all(held[i] == set(d.keys) and open_rows[i].terms == " ".join(d.terms)
               and (open_rows[i].label == d.label or open_rows[i].named_by is not None) for i, d in zip(found, drafts))


def _who(conn, authorize: Authorize | None, actor: str) -> str:
    """Who acts: the signed-in admin (their live session re-checked in this transaction), else `actor`."""
    if authorize is not None:
        return authorize(conn, "edit_corpus").label
    who = person_name(actor, "操作人")
    if not who:
        raise InvalidReview("请先填写操作人姓名。")
    return who


def _check(row) -> GapCheck:
    results = tuple(QuestionCheck(**r) for r in json.loads(row.results))
    return GapCheck(at=as_utc(row.at), fingerprint=row.fingerprint, version_note=row.version_note, results=results)


def _topic(row, members: list[tuple[str, str]], check: GapCheck | None) -> GapTopic:
    return GapTopic(id=row.id, label=row.label, terms=tuple(row.terms.split()), owner=row.owner, status=row.status,
                    created_at=as_utc(row.created_at), closed_at=as_utc(row.closed_at) if row.closed_at else None,
                    fixed_by=row.fixed_by, keys=tuple(k for k, _ in members), questions=tuple(q for _, q in members),
                    check=check, merged_into=row.merged_into, named_by=row.named_by)
