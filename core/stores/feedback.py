"""Students' feedback on what they were shown: one row per (message, student), the last write wins, a null rating
revokes. A dislike opens or joins an item in the 学生反馈 lane holding the answer exactly as the student saw it
(one item per approved answer when the answer was reused, else per message); likes are counted per approved answer.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime

from sqlalchemy import Connection, func, select

from core.clock import utcnow
from core.errors import InvalidReview
from core.stores.db import Database, insert_ignoring_duplicates
from core.stores.exchange_schema import EXCHANGES_SCHEMA, exchanges, feedbacks, outbox
from core.stores.exchanges import NotFound
from core.stores.review import ReviewStore
from core.stores.review_schema import review_items
from core.values import Problem
from core.values.exchanges import FEEDBACK_REASONS, RATINGS, ApiKey, Feedback

MAX_CONTENT_CHARS = 1000


def checked_feedback(rating: str | None, reasons: list[str] | tuple[str, ...], content: str | None
                     ) -> tuple[str | None, tuple[str, ...], str]:
    """The feedback's values, or InvalidReview naming what to change."""
    if rating is not None and rating not in RATINGS:
        raise InvalidReview(f"rating「{str(rating)[:20]}」不认识：只能是 like、dislike 或 null（撤回）。")
    unknown = [r for r in reasons if r not in FEEDBACK_REASONS]
    if unknown:
        raise InvalidReview(f"reasons 里的「{'、'.join(str(u)[:20] for u in unknown)}」不在可选范围内；可选："
                            f"{'、'.join(FEEDBACK_REASONS)}。")
    content = (content or "").strip()
    if len(content) > MAX_CONTENT_CHARS:
        raise InvalidReview(f"content 有 {len(content)} 个字，超过了 {MAX_CONTENT_CHARS} 字的上限，请删减。")
    return rating, tuple(dict.fromkeys(reasons)), content


class FeedbackStore:
    """Feedback on a `Database`."""

    def __init__(self, db: Database, *, clock: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self._clock = clock
        db.migrate(EXCHANGES_SCHEMA)
        self.review = ReviewStore(db, clock=clock)

    def give(self, key: ApiKey, message_id: str, user: str, rating: str | None, reasons: list[str] | tuple[str, ...],
             content: str | None) -> Feedback:
        """Record a student's feedback on a message they were shown (their exchange's answer, or a message released
        to them later); NotFound when the message is not theirs through this key."""
        rating, reasons, content = checked_feedback(rating, reasons, content)
        now = self._clock()
        with self.db.transaction("记录学员反馈", immediate=True) as conn:
            exchange_id, shown, reused_id = self._target(conn, key, message_id, user)
            inserted = insert_ignoring_duplicates(conn, feedbacks, {
                "message_id": message_id, "exchange_id": exchange_id, "key_id": key.id, "user": user,
                "rating": rating, "reasons": json.dumps(list(reasons), ensure_ascii=False), "content": content,
                "shown": shown, "reused_id": reused_id, "item_id": None, "writes": 1, "created_at": now,
                "updated_at": now})
            if not inserted:
                conn.execute(feedbacks.update().where(feedbacks.c.message_id == message_id, feedbacks.c.user == user)
                             .values(rating=rating, reasons=json.dumps(list(reasons), ensure_ascii=False),
                                     content=content, updated_at=now, writes=feedbacks.c.writes + 1))
            row = conn.execute(select(feedbacks).where(feedbacks.c.message_id == message_id,
                                                       feedbacks.c.user == user)).one()
            item_id = row.item_id
            if rating == "dislike" and item_id is None:
                item_id = self._file(conn, row, reasons, content)
                conn.execute(feedbacks.update().where(feedbacks.c.id == row.id).values(item_id=item_id))
        return Feedback(message_id, user, rating, reasons, content, now, item_id)

    @staticmethod
    def _target(conn: Connection, key: ApiKey, message_id: str, user: str) -> tuple[int, str, int | None]:
        """(exchange id, the text the student was shown, the approved answer it reused) of a message."""
        found = conn.execute(select(exchanges.c.id, exchanges.c.answer, exchanges.c.reused_id).where(
            exchanges.c.message_id == message_id, exchanges.c.key_id == key.id, exchanges.c.user == user)).first()
        if found is not None:
            return found.id, found.answer, found.reused_id
        released = conn.execute(select(outbox.c.exchange_id, outbox.c.answer, outbox.c.conversation_id).where(
            outbox.c.message_id == message_id, outbox.c.key_id == key.id, outbox.c.user == user)).first()
        if released is None:
            raise NotFound(f"消息「{message_id[:64]}」不存在，或不是发给这位学员（user）的：请检查 message_id 和 user。")
        exchange_id = released.exchange_id
        if exchange_id is None:  # a consultant's own message: feedback goes with the conversation's last exchange
            exchange_id = conn.execute(select(func.max(exchanges.c.id)).where(
                exchanges.c.conversation_id == released.conversation_id)).scalar_one()
        return exchange_id, released.answer, None

    def _file(self, conn: Connection, row, reasons: tuple[str, ...], content: str) -> int:
        """The 学生反馈 item this dislike joins (the same approved answer's, or the same message's) or opens."""
        join = None
        if row.reused_id is not None:
            join = conn.execute(select(func.max(feedbacks.c.item_id))
                                .join(review_items, review_items.c.id == feedbacks.c.item_id)
                                .where(feedbacks.c.reused_id == row.reused_id, review_items.c.status == "pending",
                                       review_items.c.origin == "feedback")).scalar_one_or_none()
        question = conn.execute(select(exchanges.c.query).where(exchanges.c.id == row.exchange_id)).scalar_one()
        said = "、".join(reasons) or "没有选原因"
        detail = f"学员点了“没帮助”（{said}）" + (f"：{content}" if content else "") + f"。学员看到的回答：{row.shown}"
        return self.review.file_in(conn, question, origin="feedback", reason=Problem("student_dislike", detail),
                                   join=join, answer=row.shown)

    def likes(self, reused_ids: list[int]) -> dict[int, tuple[int, int]]:
        """approved answer id → (likes, dislikes) from students who were served it."""
        if not reused_ids:
            return {}
        with self.db.read("统计学员反馈") as conn:
            rows = conn.execute(select(feedbacks.c.reused_id, feedbacks.c.rating, func.count())
                                .where(feedbacks.c.reused_id.in_(reused_ids), feedbacks.c.rating.isnot(None))
                                .group_by(feedbacks.c.reused_id, feedbacks.c.rating)).all()
        out: dict[int, tuple[int, int]] = {}
        for reused_id, rating, count in rows:
            like, dislike = out.get(reused_id, (0, 0))
            out[reused_id] = (like + count, dislike) if rating == "like" else (like, dislike + count)
        return out
