"""Reading the record of students' conversations (the 对话 page, `xiaoe conversations`, the App's message list) and
the console's actions on a conversation: hand it back to 小E, or write to the student after a handoff.

Everything a student wrote or was shown is here as it was, with the decision, the queue item, the deliveries and
the feedback; the page renders it as text, never as Markdown.
"""

from __future__ import annotations

import builtins
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, Row, func, or_, select

from core.clock import as_utc, utcnow
from core.errors import InvalidReview, StoreError
from core.stores.api_keys import KEYS_SCHEMA, api_keys
from core.stores.db import Database, changed
from core.stores.exchange_schema import EXCHANGES_SCHEMA, conversations, exchanges, feedbacks, outbox, public_id
from core.stores.exchanges import NotFound
from core.stores.outbox import messages_after, post_in, released_for
from core.stores.review_schema import MAX_CORRECTED_CHARS
from core.stores.roles import Authorize, User, require
from core.stores.turns import CONTEXT_SCHEMA, conversation_turns
from core.values.exchanges import HELD, ApiKey, Conversation, Exchange, Feedback, Released

MAX_PAGE = 200


class ConversationStore:
    """Conversations and their exchanges on a `Database`."""

    def __init__(self, db: Database, *, clock: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self._clock = clock
        db.migrate(KEYS_SCHEMA)
        db.migrate(EXCHANGES_SCHEMA)
        db.migrate(CONTEXT_SCHEMA)

    # --- the App's view ------------------------------------------------------------------------------

    def messages(self, key: ApiKey, conversation_id: str, user: str, *, after: str | None = None,
                 limit: int = 50) -> tuple[tuple[Released, ...], bool]:
        """Released messages of a conversation the key and student own, after the cursor; (messages, has_more)."""
        cursor = _cursor(after)
        limit = max(1, min(limit, MAX_PAGE))
        with self.db.read("读取会话消息") as conn:
            conv = self._owned(conn, key, conversation_id, user)
            found = messages_after(conn, conv.id, cursor, limit + 1)
        return found[:limit], len(found) > limit

    @staticmethod
    def _owned(conn: Connection, key: ApiKey, conversation_id: str, user: str) -> Row:
        conv = conn.execute(select(conversations).where(conversations.c.public_id == conversation_id)).first()
        if conv is None or conv.key_id != key.id or conv.user != user:
            raise NotFound(f"会话「{conversation_id[:64]}」不存在，或不属于这位学员（user）：请检查 conversation_id 和 "
                           "user 是否配对。")
        return conv

    # --- the console's view ---------------------------------------------------------------------------

    def list(self, *, search: str = "", key_name: str = "", handed_off: bool | None = None,
             since: datetime | None = None, limit: int = MAX_PAGE) -> tuple[Conversation, ...]:
        """Conversations, newest activity first: by student (`search` matches the student's id or any message's
        text), by key, handed off or not, active since."""
        query = select(conversations, api_keys.c.name.label("key_name")).join(
            api_keys, api_keys.c.id == conversations.c.key_id)
        term = search.strip()
        if term:
            said = select(exchanges.c.conversation_id).where(or_(
                exchanges.c.query.contains(term, autoescape=True), exchanges.c.answer.contains(term, autoescape=True),
                exchanges.c.message_id == term))
            query = query.where(or_(conversations.c.user.contains(term, autoescape=True),
                                    conversations.c.public_id == term, conversations.c.id.in_(said)))
        if key_name:
            query = query.where(api_keys.c.name == key_name)
        if handed_off is not None:
            query = query.where(conversations.c.handed_off_at.isnot(None) if handed_off
                                else conversations.c.handed_off_at.is_(None))
        if since is not None:
            query = query.where(conversations.c.last_at >= since)
        query = query.order_by(conversations.c.last_at.desc(), conversations.c.id.desc()).limit(limit)
        with self.db.read("读取对话") as conn:
            rows = conn.execute(query).all()
            counts = self._counts(conn, [r.id for r in rows])
        return tuple(Conversation(id=r.public_id, key_name=r.key_name, user=r.user, created_at=as_utc(r.created_at),
                                  last_at=as_utc(r.last_at), messages=counts.get(r.id, (0, 0))[0],
                                  handed_off=r.handed_off_at is not None, waiting=counts.get(r.id, (0, 0))[1])
                     for r in rows)

    @staticmethod
    def _counts(conn: Connection, ids: Sequence[int]) -> dict[int, tuple[int, int]]:
        """conversation row → (messages, held messages with nothing released yet)."""
        if not ids:
            return {}
        totals: dict[int, int] = dict(conn.execute(select(exchanges.c.conversation_id, func.count()).where(
            exchanges.c.conversation_id.in_(ids)).group_by(exchanges.c.conversation_id)).all())
        released = select(outbox.c.exchange_id).where(outbox.c.exchange_id.isnot(None))
        waiting: dict[int, int] = dict(conn.execute(select(exchanges.c.conversation_id, func.count()).where(
            exchanges.c.conversation_id.in_(ids), exchanges.c.status == HELD,
            exchanges.c.id.notin_(released)).group_by(exchanges.c.conversation_id)).all())
        return {i: (totals.get(i, 0), waiting.get(i, 0)) for i in ids}

    def get(self, conversation_id: str) -> Conversation:
        found = [c for c in self.list(search=conversation_id, limit=5) if c.id == conversation_id]
        if not found:
            raise StoreError(f"没有找到会话「{conversation_id[:64]}」，请刷新后再试。")
        return found[0]

    def thread(self, conversation_id: str) -> tuple[Exchange, ...]:
        """Every exchange of a conversation, oldest first, with what was released for it and its feedback; a
        consultant's own messages (after a handoff) are attached to the exchange they follow."""
        with self.db.read("读取对话") as conn:
            conv = conn.execute(select(conversations).where(conversations.c.public_id == conversation_id)).first()
            if conv is None:
                raise StoreError(f"没有找到会话「{conversation_id[:64]}」，请刷新后再试。")
            rows = conn.execute(select(exchanges, api_keys.c.name.label("key_name"))
                                .join(api_keys, api_keys.c.id == exchanges.c.key_id)
                                .where(exchanges.c.conversation_id == conv.id).order_by(exchanges.c.id)).all()
            return self._exchanges(conn, rows, conv)

    def exchange(self, message_id: str) -> Exchange:
        with self.db.read("读取学员消息") as conn:
            row = conn.execute(select(exchanges, api_keys.c.name.label("key_name"))
                               .join(api_keys, api_keys.c.id == exchanges.c.key_id)
                               .where(exchanges.c.message_id == message_id)).first()
            if row is None:
                raise StoreError(f"没有找到消息「{message_id[:64]}」。")
            conv = conn.execute(select(conversations).where(conversations.c.id == row.conversation_id)).one()
            return self._exchanges(conn, [row], conv)[0]

    def for_item(self, item_id: int) -> tuple[Exchange, ...]:
        """The exchanges a queue item answers (held: one; a merged refusal: every student who asked)."""
        with self.db.read("读取学员消息") as conn:
            rows = conn.execute(select(exchanges, api_keys.c.name.label("key_name"))
                                .join(api_keys, api_keys.c.id == exchanges.c.key_id)
                                .where(or_(exchanges.c.item_id == item_id,
                                           exchanges.c.id.in_(select(feedbacks.c.exchange_id)
                                                              .where(feedbacks.c.item_id == item_id))))
                                .order_by(exchanges.c.id)).all()
            out: builtins.list[Exchange] = []
            for row in rows:
                conv = conn.execute(select(conversations).where(conversations.c.id == row.conversation_id)).one()
                out.extend(self._exchanges(conn, [row], conv))
        return tuple(out)

    def _exchanges(self, conn: Connection, rows: Sequence[Row], conv: Row) -> tuple[Exchange, ...]:
        released = released_for(conn, [r.id for r in rows])
        own = conn.execute(select(outbox.c.id).where(outbox.c.conversation_id == conv.id,
                                                     outbox.c.exchange_id.is_(None))).scalars().all()
        own_msgs = messages_after(conn, conv.id, 0, 10_000) if own else ()
        feedback: dict[int, builtins.list[Feedback]] = {}
        for f in conn.execute(select(feedbacks).where(feedbacks.c.exchange_id.in_([r.id for r in rows]))
                              .order_by(feedbacks.c.id)):
            feedback.setdefault(f.exchange_id, []).append(
                Feedback(f.message_id, f.user, f.rating, tuple(json.loads(f.reasons)), f.content,
                         as_utc(f.updated_at), f.item_id))
        turns = {t.exchange_id: t for t in conn.execute(select(conversation_turns).where(
            conversation_turns.c.exchange_id.in_([r.id for r in rows])))} if rows else {}
        out: builtins.list[Exchange] = []
        for position, r in enumerate(rows):
            turn = turns.get(r.id)
            nxt = rows[position + 1].created_at if position + 1 < len(rows) else None
            extra = tuple(m for m in own_msgs if m.seq in own and m.released_at >= as_utc(r.created_at)
                          and (nxt is None or m.released_at < as_utc(nxt)))
            out.append(Exchange(
                id=r.id, message_id=r.message_id, key_name=r.key_name, user=r.user, conversation_id=conv.public_id,
                client_msg_id=r.client_msg_id, query=r.query, status=r.status, answer=r.answer, draft=r.draft,
                reasons=tuple(tuple(x) for x in json.loads(r.reasons or "[]")), reused_id=r.reused_id,
                item_id=r.item_id, policy=r.policy, created_at=as_utc(r.created_at), state=r.state,
                gate_runs=r.gate_runs, released=tuple(released.get(r.id, ())) + extra,
                feedback=tuple(feedback.get(r.id, ())),
                standalone=turn.standalone if turn is not None else r.query, read_as=turn.kind if turn is not None else "",
                rules=tuple(json.loads(turn.rules)) if turn is not None else (),
                derived_from=turn.derived_from if turn is not None else ""))
        return tuple(out)

    def iter_exchanges(self, *, search: str = "", since: datetime | None = None, batch: int = 1000
                       ) -> Iterator[Exchange]:
        """Every exchange of the conversations `list` would show (the export), oldest conversation first."""
        for conversation in reversed(self.list(search=search, since=since, limit=100_000)):
            yield from self.thread(conversation.id)

    def today(self, key_id: int) -> int:
        """How many messages the key brought in since local midnight."""
        start = datetime.now().astimezone().replace(hour=0, minute=0, second=0, microsecond=0)
        with self.db.read("统计消息") as conn:
            return conn.execute(select(func.count()).where(exchanges.c.key_id == key_id,
                                                           exchanges.c.created_at >= start)).scalar_one()

    # --- a consultant acting on a conversation --------------------------------------------------------

    def post(self, user: User | None, conversation_id: str, text: str, *,
             authorize: Authorize | None = None) -> Released:
        """A consultant writes to the student in a conversation they took over; delivered like a released answer."""
        require(user, "review")
        text = (text or "").strip()
        if not text:
            raise InvalidReview("消息是空的：请写好要发给学员的话再发送。")
        if len(text) > MAX_CORRECTED_CHARS:
            raise InvalidReview(f"消息有 {len(text)} 个字，超过了 {MAX_CORRECTED_CHARS} 字的上限，请删减。")
        message_id = public_id("msg")
        with self.db.transaction("发送消息", immediate=True) as conn:
            actor = authorize(conn, "review").label if authorize is not None else require(user, "review").label
            conv = conn.execute(select(conversations).where(conversations.c.public_id == conversation_id)).first()
            if conv is None:
                raise StoreError(f"没有找到会话「{conversation_id[:64]}」，请刷新后再试。")
            if conv.handed_off_at is None:
                raise InvalidReview("这个会话还由小E 回答：请先在待发送的条目上点「转人工」接手，再直接给学员发消息。")
            last = conn.execute(select(exchanges.c.message_id).where(exchanges.c.conversation_id == conv.id)
                                .order_by(exchanges.c.id.desc()).limit(1)).scalar_one_or_none()
            post_in(conn, conv.id, text, actor=actor, now=self._clock(), message_id=message_id, reply_to=last or "")
        with self.db.read("读取消息") as conn:
            return next(m for m in messages_after(conn, conv.id, 0, 10_000) if m.message_id == message_id)

    def hand_back(self, user: User | None, conversation_id: str, *, authorize: Authorize | None = None) -> None:
        """Give a handed-off conversation back to 小E: its next message is answered again."""
        require(user, "review")
        with self.db.transaction("交还小E", immediate=True) as conn:
            if authorize is not None:
                authorize(conn, "review")
            if changed(conn, conversations.update().where(conversations.c.public_id == conversation_id,
                                                          conversations.c.handed_off_at.isnot(None))
                       .values(handed_off_at=None, handed_off_by="")) != 1:
                raise InvalidReview("这个会话没有转人工，或已经交还小E 了；请刷新后再看。")


@dataclass(frozen=True)
class Purged:
    """What a purge removed: conversations and their rows, table by table (the audit log keeps its rows)."""

    before: datetime
    conversations: int
    rows: tuple[tuple[str, int], ...]  # (table, rows removed)


def purge(db: Database, before: datetime, *, actor: str, retention_days: int, dry_run: bool = False) -> Purged:
    """Remove every conversation whose last activity is older than `before`, with its exchanges, released messages,
    feedback, turns and masked values' keys, in one transaction; one audit row says what was removed. Queue items
    and the audit log stay (they are the school's review record, not the conversation's)."""
    from core.stores import audit
    from core.stores.turns import conversation_mask_keys, conversation_masks

    audit.ensure(db)
    with db.transaction("清除过期对话记录", immediate=True) as conn:
        old = [r for r in conn.execute(select(conversations.c.id, conversations.c.last_at)).all()
               if as_utc(r.last_at) < before]
        ids = [r.id for r in old]
        removed: list[tuple[str, int]] = []
        if ids:
            exchange_ids = conn.execute(select(exchanges.c.id).where(exchanges.c.conversation_id.in_(ids))).scalars().all()
            steps = ((feedbacks, feedbacks.c.exchange_id.in_(exchange_ids)),
                     (outbox, outbox.c.conversation_id.in_(ids)),
                     (conversation_turns, conversation_turns.c.conversation_id.in_(ids)),
                     (conversation_masks, conversation_masks.c.conversation_id.in_(ids)),
                     (conversation_mask_keys, conversation_mask_keys.c.conversation_id.in_(ids)),
                     (exchanges, exchanges.c.conversation_id.in_(ids)),
                     (conversations, conversations.c.id.in_(ids)))
            for table, where in steps:
                count = len(conn.execute(select(table).where(where)).all())
                if not dry_run and count:
                    conn.execute(table.delete().where(where))
                removed.append((table.name, count))
        if not dry_run:
            audit.record(db, actor, "conversations_purge", f"{len(ids)} 个会话",
                         f"保存期 {retention_days} 天，清除最后活动早于 {before.isoformat()} 的会话："
                         + "，".join(f"{name} {count} 行" for name, count in removed), conn=conn)
    return Purged(before, len(ids), tuple(removed))


def _cursor(after: str | None) -> int:
    if after in (None, ""):
        return 0
    try:
        value = int(after)
    except (TypeError, ValueError):
        raise InvalidReview(f"after 参数「{str(after)[:40]}」不是有效的游标：请原样传回上次结果里的 next_cursor。") from None
    if not 0 <= value < 2**62:
        raise InvalidReview(f"after 参数「{after}」不是有效的游标：请原样传回上次结果里的 next_cursor。")
    return value

