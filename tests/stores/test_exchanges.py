"""The exchange record on both engines, with real concurrent sessions: one exchange per (key, student,
client_msg_id) written in one transaction, one release per student message, limits counted once, and a message an
older version left half-claimed finished by the next retry."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from core.stores.api_keys import KeyStore
from core.stores.db import Database
from core.stores.exchange_schema import conversations, exchanges, outbox
from core.stores.exchanges import ExchangeStore, Finished, IdempotencyConflict, NotFound, RateLimited, query_hash
from core.stores.outbox import Send, release_in
from core.stores.rate_limits import Limit, count_in
from core.stores.review_schema import review_items
from core.values.exchanges import ChatRequest
from tests.db_race import MeetBefore
from tests.outcomes import outcome_of
from tests.stores.test_api_keys import ADMIN


@pytest.fixture
def db(database_url):
    database = Database(database_url)
    yield database
    database.dispose()


def _request(msg: str = "m1", query: str = "每节课多长时间", user: str = "s1", conversation: str | None = None):
    return ChatRequest(user=user, conversation_id=conversation, client_msg_id=msg, query=query)


def _outcome(text: str = "每课时 45 分钟[1]。", *, refused: bool = False):
    from core.values import RAGAnswer

    answer = RAGAnswer(question="每节课多长时间", text=text, hits=(), candidates=(), threshold=0, k=3, refused=refused,
                       model_called=not refused, reason="资料里没有写" if refused else "")
    return outcome_of(answer)


def _answer(store: ExchangeStore, key, request=None, *, limits=(), text: str = "每课时 45 分钟[1]。", refused=False):
    """What the desk does: look (reads only), then record in one write."""
    request = request or _request()
    look = store.look(key, request, limits=limits)
    if look.replay is not None:
        return look.replay
    status = "refused" if refused else "answered"
    return store.record(key, request, look, Finished(status, text, (), None, "", (), held=False),
                        _outcome(text, refused=refused), limits=limits)


def _racing(count: int, call) -> list[object]:
    gate = threading.Barrier(count)
    results: list[object] = [None] * count

    def run(position: int) -> None:
        gate.wait()
        try:
            results[position] = call(position)
        except Exception as error:  # noqa: BLE001 - the test inspects what each racer got
            results[position] = error

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def _count(db: Database, table) -> int:
    with db.read() as conn:
        return conn.execute(select(func.count()).select_from(table)).scalar_one()


def test_exchanges_concurrent_duplicates_make_one_exchange_one_item_and_one_reply(db):
    """Six sessions answer the same message at once (every look saw nothing): the first insert stands, the other
    five roll back everything they wrote (their queue item, their new conversation) and return its reply."""
    key = KeyStore(db).add(ADMIN, "app").key
    stores = [ExchangeStore(Database(db.url)) for _ in range(6)]  # separate engines: separate sessions
    looks = [store.look(key, _request()) for store in stores]
    assert all(look.replay is None for look in looks)
    finished = Finished("refused", "这件事资料里没写", (), None, "", (), held=False)
    replies = _racing(6, lambda i: stores[i].record(key, _request(), looks[i], finished, _outcome(refused=True)))
    assert all(not isinstance(r, Exception) for r in replies), replies
    assert len({r.message_id for r in replies}) == 1 and len({r.conversation_id for r in replies}) == 1
    assert sum(r.replay for r in replies) == 5
    assert _count(db, exchanges) == 1 and _count(db, conversations) == 1 and _count(db, review_items) == 1
    for store in stores:
        store.db.dispose()


def test_exchanges_a_duplicate_meeting_the_first_inside_its_write_makes_no_second_exchange(db):
    """Two sessions meet just before each inserts the exchange (both past every read): the unique key decides."""
    key = KeyStore(db).add(ADMIN, "app").key
    one, two = ExchangeStore(db), ExchangeStore(Database(db.url))
    looks = [store.look(key, _request()) for store in (one, two)]
    finished = Finished("answered", "每课时 45 分钟[1]。", (), None, "", (), held=False)
    with MeetBefore(db.engine, r"INSERT INTO exchanges"), MeetBefore(two.db.engine, r"INSERT INTO exchanges"):
        replies = _racing(2, lambda i: (one, two)[i].record(key, _request(), looks[i], finished, _outcome()))
    assert len({r.message_id for r in replies}) == 1 and sorted(r.replay for r in replies) == [False, True]
    assert _count(db, exchanges) == 1
    two.db.dispose()


def test_exchanges_replay_returns_the_stored_reply_and_another_query_conflicts(db):
    store = ExchangeStore(db)
    key = KeyStore(db).add(ADMIN, "app").key
    reply = _answer(store, key)
    again = store.look(key, _request())
    assert again.replay is not None and again.replay.message_id == reply.message_id and again.replay.replay
    with pytest.raises(IdempotencyConflict):
        store.look(key, _request(query="二级学费多少"))


def test_exchanges_a_conversation_of_another_student_is_not_found(db):
    store = ExchangeStore(db)
    key = KeyStore(db).add(ADMIN, "app").key
    reply = _answer(store, key)
    with pytest.raises(NotFound):
        store.look(key, _request("m2", user="s2", conversation=reply.conversation_id))
    other = KeyStore(db).add(ADMIN, "other").key
    with pytest.raises(NotFound):
        store.look(other, _request("m3", conversation=reply.conversation_id))
    follow = _answer(store, key, _request("m4", conversation=reply.conversation_id))
    assert follow.conversation_id == reply.conversation_id and _count(db, conversations) == 1


def test_exchanges_a_message_an_older_version_left_processing_is_finished_by_the_retry(db):
    """Older versions claimed a message (state processing) before answering; one that died left the row behind.
    The retry answers it and finishes that row, keeping its message id: still one exchange."""
    store = ExchangeStore(db)
    key = KeyStore(db).add(ADMIN, "app").key
    now = datetime(2026, 12, 6, 10, 0, tzinfo=UTC)
    with db.transaction() as conn:
        conv = conn.execute(conversations.insert().values(public_id="conv_old", key_id=key.id, user="s1",
                                                          created_at=now, last_at=now, handed_off_by="")
                            .returning(conversations.c.id)).scalar_one()
        conn.execute(exchanges.insert().values(
            message_id="msg_old", key_id=key.id, user="s1", conversation_id=conv, client_msg_id="m1",
            query="每节课多长时间", query_hash=query_hash("每节课多长时间"),
            state="processing", lease_until=now + timedelta(seconds=60), status="", answer="", draft="",
            reasons="[]", policy="all", response="", gate_runs=0, created_at=now))
    reply = _answer(store, key)
    assert reply.message_id == "msg_old" and reply.conversation_id == "conv_old" and not reply.replay
    assert store.look(key, _request()).replay.message_id == "msg_old"
    assert _count(db, exchanges) == 1


def test_exchanges_rate_limit_counts_every_concurrent_request_once(db):
    ExchangeStore(db)  # the tables
    limit = (Limit("user:1:s1", 5, "这位学员的消息"),)
    now = datetime(2026, 12, 6, 10, 0, 30, tzinfo=UTC)

    def one(_position: int):
        other = Database(db.url)
        try:
            with other.transaction(immediate=True) as conn:
                return count_in(conn, limit, now)
        finally:
            other.dispose()

    results = _racing(8, one)
    exceeded = [r for r in results if r is not None]
    assert sum(r is None for r in results) == 5 and len(exceeded) == 3, results
    assert all(e.retry_after == 30 for e in exceeded)


def test_exchanges_rate_limit_refuses_a_new_message_but_not_a_replay(db):
    store = ExchangeStore(db)
    key = KeyStore(db).add(ADMIN, "app").key
    limits = (Limit(f"user:{key.id}:s1", 1, "这位学员的消息"),)
    _answer(store, key, limits=limits)
    assert store.look(key, _request(), limits=limits).replay is not None
    with pytest.raises(RateLimited) as refused:
        store.look(key, _request("m2"), limits=limits)
    assert refused.value.retry_after >= 1 and "每分钟最多 1 条" in str(refused.value)


def test_exchanges_the_write_counts_the_limit_so_two_answered_at_once_cannot_both_pass(db):
    """Both messages passed the read-only look (the window was empty); the write counts, and the second write over
    the limit rolls back whole: 429, no exchange, no conversation, no item."""
    store = ExchangeStore(db)
    key = KeyStore(db).add(ADMIN, "app").key
    limits = (Limit(f"user:{key.id}:s1", 1, "这位学员的消息"),)
    first, second = _request("m1"), _request("m2")
    looks = [store.look(key, first, limits=limits), store.look(key, second, limits=limits)]
    finished = Finished("refused", "这件事资料里没写", (), None, "", (), held=False)
    store.record(key, first, looks[0], finished, _outcome(refused=True), limits=limits)
    with pytest.raises(RateLimited):
        store.record(key, second, looks[1], finished, _outcome("另一个", refused=True), limits=limits)
    assert _count(db, exchanges) == 1 and _count(db, conversations) == 1 and _count(db, review_items) == 1


def test_exchanges_one_release_per_student_message_whatever_the_decisions(db):
    store = ExchangeStore(db)
    key = KeyStore(db).add(ADMIN, "app").key
    reply = _answer(store, key)
    with db.transaction() as conn:
        conn.execute(exchanges.update().where(exchanges.c.message_id == reply.message_id)
                     .values(item_id=42, status="held"))
    ids = iter(["msg_a", "msg_b"])
    for _ in range(2):
        with db.transaction() as conn:
            release_in(conn, 42, Send("每课时 45 分钟[1]。", ()), actor="顾问", now=datetime.now(UTC),
                       message_id=lambda: next(ids))
    with db.read() as conn:
        assert conn.execute(select(func.count()).select_from(outbox)).scalar_one() == 1
