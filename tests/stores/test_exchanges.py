"""The exchange record on both engines, with real concurrent sessions: one exchange per (key, student,
client_msg_id), one release per student message, limits counted once, and a dead instance's message taken over."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from core.stores.api_keys import KeyStore
from core.stores.db import Database
from core.stores.exchange_schema import exchanges, outbox
from core.stores.exchanges import Claim, ExchangeStore, Finished, IdempotencyConflict, NotFound, RateLimited
from core.stores.outbox import Send, release_in
from core.stores.rate_limits import Limit, count_in
from core.values.exchanges import ChatRequest
from tests.outcomes import outcome_of
from tests.stores.test_api_keys import ADMIN


@pytest.fixture
def db(database_url):
    database = Database(database_url)
    yield database
    database.dispose()


def _request(msg: str = "m1", query: str = "每节课多长时间", user: str = "s1", conversation: str | None = None):
    return ChatRequest(user=user, conversation_id=conversation, client_msg_id=msg, query=query)


def _finish(store: ExchangeStore, claim: Claim, text: str = "每课时 45 分钟[1]。"):
    from core.values import RAGAnswer

    answer = RAGAnswer(question="每节课多长时间", text=text, hits=(), candidates=(), threshold=0, k=3, refused=False,
                       model_called=True)
    return store.finish(claim, Finished("answered", text, (), None, "", (), held=False), outcome_of(answer))


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


def test_exchanges_concurrent_claims_of_one_message_make_one_owner(db):
    key = KeyStore(db).add(ADMIN, "app").key
    stores = [ExchangeStore(Database(db.url)) for _ in range(6)]  # separate engines: separate sessions
    claims = _racing(6, lambda i: stores[i].claim(key, _request()))
    owners = [c for c in claims if isinstance(c, Claim) and c.exchange_id]
    assert len(owners) == 1 and all(isinstance(c, Claim) for c in claims), claims
    assert all(c.waiting_on == owners[0].exchange_id for c in claims if c is not owners[0])
    with db.read() as conn:
        assert conn.execute(select(func.count()).select_from(exchanges)).scalar_one() == 1
    for store in stores:
        store.db.dispose()


def test_exchanges_replay_returns_the_stored_reply_and_another_query_conflicts(db):
    store = ExchangeStore(db)
    key = KeyStore(db).add(ADMIN, "app").key
    reply = _finish(store, store.claim(key, _request()))
    again = store.claim(key, _request())
    assert again.replay is not None and again.replay.message_id == reply.message_id and again.replay.replay
    with pytest.raises(IdempotencyConflict):
        store.claim(key, _request(query="二级学费多少"))


def test_exchanges_a_conversation_of_another_student_is_not_found(db):
    store = ExchangeStore(db)
    key = KeyStore(db).add(ADMIN, "app").key
    reply = _finish(store, store.claim(key, _request()))
    with pytest.raises(NotFound):
        store.claim(key, _request("m2", user="s2", conversation=reply.conversation_id))
    other = KeyStore(db).add(ADMIN, "other").key
    with pytest.raises(NotFound):
        store.claim(other, _request("m3", conversation=reply.conversation_id))


def test_exchanges_a_message_whose_instance_died_is_taken_over_after_its_lease(database_url):
    now = [datetime(2026, 12, 6, 10, 0, tzinfo=UTC)]
    db = Database(database_url)
    store = ExchangeStore(db, clock=lambda: now[0])
    key = KeyStore(db).add(ADMIN, "app").key
    first = store.claim(key, _request(), lease=timedelta(seconds=60))
    assert store.claim(key, _request()).waiting_on == first.exchange_id  # the first is still answering
    now[0] += timedelta(seconds=61)  # ... and died: its lease ran out
    taken = store.claim(key, _request())
    assert taken.exchange_id == first.exchange_id and taken.message_id == first.message_id
    reply = _finish(store, taken)
    assert store.claim(key, _request()).replay.message_id == reply.message_id
    db.dispose()


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
    _finish(store, store.claim(key, _request(), limits=limits))
    assert store.claim(key, _request(), limits=limits).replay is not None
    with pytest.raises(RateLimited) as refused:
        store.claim(key, _request("m2"), limits=limits)
    assert refused.value.retry_after >= 1 and "每分钟最多 1 条" in str(refused.value)


def test_exchanges_one_release_per_student_message_whatever_the_decisions(db):
    store = ExchangeStore(db)
    key = KeyStore(db).add(ADMIN, "app").key
    claim = store.claim(key, _request())
    _finish(store, claim)
    with db.transaction() as conn:
        conn.execute(exchanges.update().where(exchanges.c.id == claim.exchange_id).values(item_id=42, status="held"))
    ids = iter(["msg_a", "msg_b"])
    for _ in range(2):
        with db.transaction() as conn:
            release_in(conn, 42, Send("每课时 45 分钟[1]。", ()), actor="顾问", now=datetime.now(UTC),
                       message_id=lambda: next(ids))
    with db.read() as conn:
        assert conn.execute(select(func.count()).select_from(outbox)).scalar_one() == 1
