"""Tidying the 资料缺口 board by hand, one transaction each: merge a topic into another, move a question into a
topic, make a new topic of chosen questions (core.stores.gaps.GapStore opens the transaction and calls these).

Each action first locks every open topic, in id order (`lock_open`: SELECT … FOR UPDATE on PostgreSQL; SQLite's
BEGIN IMMEDIATE holds the writer lock already), and only then reads where a question is: two admins moving one
question at once are served one after the other, and the question ends in exactly one topic. One order for every
action means no deadlock. A merged topic is closed (`closed_at`, `merged_into`) and refuses new questions, so a page
still offering it cannot bring it back. Inputs are checked before the transaction (`topic_id`, `question_text`,
`topic_name`); a question must be on the board (a topic's, or a gap item of the queue) to be moved.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Connection, Row, select

from core.errors import InvalidReview, StoreError
from core.stores.db import inserted_id
from core.stores.gap_schema import OPEN, gap_events, gap_members, gap_pins, gap_topics
from core.stores.review_input import UNSTORABLE
from core.stores.review_marks import gap_condition, question_hash
from core.stores.review_schema import MAX_TOPIC_CHARS, review_items

MAX_TOPIC_ID = 2**31 - 1  # the id column is a 32-bit integer on PostgreSQL
MAX_QUESTION_CHARS = 2_000  # XIAOE_MAX_QUESTION_CHARS allows no more: a longer one was never asked


# --- inputs ------------------------------------------------------------------------------------------

def topic_id(value: object) -> int:
    """A topic id as given, or InvalidReview saying what is wrong with it (not an integer, out of range)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidReview(f"话题编号 {_shown(value)} 不是整数，请在页面上重新选择话题。")
    if not 1 <= value <= MAX_TOPIC_ID:
        raise InvalidReview(f"没有编号为 {value} 的话题（编号是 1 到 {MAX_TOPIC_ID} 之间的整数），请刷新页面后重新选择话题。")
    return value


def question_text(value: object) -> str:
    """A question to move, stripped; InvalidReview when it is empty, not text, or holds what no database stores."""
    if not isinstance(value, str):
        raise InvalidReview(f"要移动的问题应是文字，收到的是 {_shown(value)}，请在页面上重新选择问题。")
    question = value.strip()
    if not question:
        raise InvalidReview("没有选择问题：请先选一个要移动的问题。")
    if UNSTORABLE.search(question):
        raise InvalidReview("问题里有无法保存的字符（单独的代理字符或 NUL），学员不会这样问，请从页面上的问题里选择。")
    if len(question) > MAX_QUESTION_CHARS:
        raise InvalidReview(f"问题有 {len(question)} 个字，超过了 {MAX_QUESTION_CHARS} 字，学员不会这样问，请从页面上的问题里选择。")
    return question


def topic_name(value: object) -> str:
    """The name an admin gives a new topic, its whitespace folded."""
    if not isinstance(value, str):
        raise InvalidReview(f"话题名称应是文字，收到的是 {_shown(value)}，请重新填写。")
    name = " ".join(value.split())
    if not name:
        raise InvalidReview("请填写新话题的名称，例如「付款方式」。")
    if UNSTORABLE.search(name):
        raise InvalidReview("话题名称里有无法保存的字符（单独的代理字符或 NUL），请重新输入。")
    if len(name) > MAX_TOPIC_CHARS:
        raise InvalidReview(f"话题名称有 {len(name)} 个字，超过了 {MAX_TOPIC_CHARS} 字的上限，请改短一些。")
    return name


def _shown(value: object) -> str:
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:39] + "…"


# --- the actions -------------------------------------------------------------------------------------

def merge(conn: Connection, source: int, into: int, *, who: str, now: datetime) -> int:
    """Merge open topic `source` into open topic `into`: every question of both is pinned to `into`; `source` closes
    (merged_into), keeps its events and refuses new questions. Returns how many questions moved."""
    if source == into:
        raise InvalidReview("不能把话题并入它自己，请选另一个话题。")
    open_rows = lock_open(conn)
    for wanted in (source, into):
        if wanted not in open_rows:
            raise _not_open(conn, wanted, doing="并入或移入问题")
    keys = _member_keys(conn, source)
    conn.execute(gap_members.delete().where(gap_members.c.topic_id == source))
    conn.execute(gap_topics.update().where(gap_topics.c.id == source).values(closed_at=now, merged_into=into))
    _place(conn, into, keys)
    _pin_members(conn, into, who, now)
    conn.execute(gap_events.insert(), [
        {"topic_id": source, "at": now, "actor": who, "action": "merge",
         "detail": f"并入 #{into} {open_rows[into].label}"},
        {"topic_id": into, "at": now, "actor": who, "action": "merge",
         "detail": f"并入了 #{source} {open_rows[source].label}（{len(keys)} 个问题）"}])
    return len(keys)


def move(conn: Connection, question: str, into: int, *, who: str, now: datetime) -> None:
    """Move one question (every asking of it: the same `question_hash`) into open topic `into`, out of whichever open
    topics hold it, or out of the questions that fit none; the question and the topic's others are pinned there."""
    open_rows = lock_open(conn)
    if into not in open_rows:
        raise _not_open(conn, into, doing="移入问题")
    key = question_hash(question)
    if missing := _unknown(conn, {key: question}):
        raise _refuse_unknown(missing)
    _take_out(conn, {key: question}, set(open_rows) - {into}, f"移到 #{into}", who, now)
    _place(conn, into, {key: question})
    _pin_members(conn, into, who, now)
    conn.execute(gap_events.insert().values(topic_id=into, at=now, actor=who, action="move",
                                            detail=f"「{question}」移进这个话题"))


def create(conn: Connection, name: str, questions: Sequence[str], *, who: str, now: datetime) -> int:
    """A new open topic called `name` holding `questions` (taken out of their open topics or out of noise), pinned
    there and named by `who`, so a regrouping keeps both; returns its id."""
    wanted = {question_hash(q): q for q in questions}
    if not wanted:
        raise InvalidReview("新话题至少要放进一个问题，请先勾选问题。")
    open_rows = lock_open(conn)
    same = next((r.id for r in open_rows.values() if r.label == name), None)
    if same is not None:
        raise InvalidReview(f"已经有叫「{name}」的话题（#{same}），请把问题移进那个话题，或给新话题换个名字。")
    if missing := _unknown(conn, wanted):
        raise _refuse_unknown(missing)
    topic = inserted_id(conn.execute(gap_topics.insert().values(label=name, terms="", status=OPEN, created_at=now,
                                                                named_by=who)))
    conn.execute(gap_events.insert().values(topic_id=topic, at=now, actor=who, action="create",
                                            detail=f"{name}（管理员新建，{len(wanted)} 个问题）"))
    _take_out(conn, wanted, set(open_rows), f"移到新话题 #{topic}", who, now)
    _place(conn, topic, wanted)
    _pin_members(conn, topic, who, now)
    return topic


# --- helpers ------------------------------------------------------------------------------------------

def lock_open(conn: Connection) -> dict[int, Row]:
    """Every open topic's row by id, locked in id order until the transaction ends."""
    rows = conn.execute(select(gap_topics).where(gap_topics.c.closed_at.is_(None)).order_by(gap_topics.c.id)
                        .with_for_update())
    return {r.id: r for r in rows}


def _not_open(conn: Connection, wanted: int, *, doing: str) -> StoreError | InvalidReview:
    """Why `wanted` is not an open topic: there is none, it was merged into another, or its questions were fixed."""
    row = conn.execute(select(gap_topics.c.merged_into).where(gap_topics.c.id == wanted)).first()
    if row is None:
        return StoreError(f"没有找到编号为 {wanted} 的资料缺口话题，请刷新页面后再试。")
    if row.merged_into is not None:
        return InvalidReview(f"话题 #{wanted} 已并入 #{row.merged_into}，已关闭，不能再{doing}；"
                             f"请刷新页面后改选 #{row.merged_into}。")
    return InvalidReview(f"话题 #{wanted} 已关闭（问题都已可答），不能再{doing}；请刷新页面后选一个还开着的话题。")


def _unknown(conn: Connection, wanted: dict[str, str]) -> list[str]:
    """The questions of `wanted` (key → as given) on no topic and not among the queue's gap items (refusals, rejected
    answers, items marked 资料没写, none fixed yet): what the board never showed."""
    missing = set(wanted) - set(conn.execute(select(gap_members.c.key).distinct()
                                             .where(gap_members.c.key.in_(list(wanted)))).scalars())
    if missing:  # the board offers each question as first asked: look for that text first, then for any spelling
        same = select(review_items.c.question).distinct().where(
            gap_condition(), review_items.c.question.in_([wanted[k] for k in missing]))
        missing -= {question_hash(q) for q in conn.execute(same).scalars()}
    if missing:
        asked = conn.execute(select(review_items.c.question).distinct().where(gap_condition())).scalars()
        missing -= {question_hash(q) for q in asked}
    return [question for key, question in wanted.items() if key in missing]


def _refuse_unknown(questions: list[str]) -> InvalidReview:
    shown = "、".join(f"「{q[:30]}」" for q in questions[:3]) + ("等" if len(questions) > 3 else "")
    return InvalidReview(f"{shown}不在资料缺口页上（没有人这样问过，或补充资料后已经可答），不能放进话题；"
                         "请刷新页面，从页面上的问题里选择。")


def _take_out(conn: Connection, questions: dict[str, str], topics: set[int], detail: str, who: str,
              now: datetime) -> None:
    """Remove the questions from those of `topics` (locked, open) that hold them, with an event in each."""
    rows = conn.execute(select(gap_members.c.topic_id, gap_members.c.key)
                        .where(gap_members.c.key.in_(list(questions)))).all()
    for row in rows:
        if row.topic_id in topics:
            conn.execute(gap_members.delete().where(gap_members.c.topic_id == row.topic_id,
                                                    gap_members.c.key == row.key))
            conn.execute(gap_events.insert().values(topic_id=row.topic_id, at=now, actor=who, action="move",
                                                    detail=f"「{questions[row.key]}」{detail}"))


def _member_keys(conn: Connection, topic: int) -> dict[str, str]:
    rows = conn.execute(select(gap_members.c.key, gap_members.c.question).where(gap_members.c.topic_id == topic))
    return {r.key: r.question for r in rows}


def _place(conn: Connection, topic: int, questions: dict[str, str]) -> None:
    """Make `questions` (key → as asked) members of the topic, leaving its other members as they are."""
    held = _member_keys(conn, topic)
    rows = [{"topic_id": topic, "key": k, "question": q} for k, q in questions.items() if k not in held]
    if rows:
        conn.execute(gap_members.insert(), rows)


def _pin_members(conn: Connection, topic: int, who: str, now: datetime) -> None:
    """Pin every member of the topic to it (an earlier pin of the same question elsewhere gives way)."""
    keys = list(_member_keys(conn, topic))
    if not keys:
        return
    conn.execute(gap_pins.delete().where(gap_pins.c.key.in_(keys)))
    conn.execute(gap_pins.insert(), [{"key": k, "topic_id": topic, "actor": who, "at": now} for k in keys])
