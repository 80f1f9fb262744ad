"""Conversations over real HTTP on SQLite and PostgreSQL: a follow-up answered as its standalone question, personal
data masked before it is stored, a 敏感词 answered by the configured reply, and 「转人工」 during and outside the
service hours (the service's clock set by XIAOE_NOW, never by sleeping), with release by a consultant."""

from __future__ import annotations

from datetime import UTC

from sqlalchemy import select

from core.settings import Settings
from core.stores.conversations import ConversationStore
from core.stores.db import Database
from core.stores.exchange_schema import exchanges
from core.stores.review import ReviewStore
from core.stores.sensitive_words import SensitiveStore
from core.stores.turns import TurnStore, conversation_turns
from tests.service.harness import ADMIN, ask, make_key

DAYTIME = "2026-03-02T10:30:00+08:00"
NIGHT = "2026-03-02T22:15:00+08:00"


def test_follow_up_is_answered_as_its_standalone_question(services, database_url):
    secret = make_key(database_url, release="auto")[0]
    with services().client(secret) as client:
        first = ask(client, "s1", "m1", "二级学费多少？").json()
        second = ask(client, "s1", "m2", "那三级呢？", conversation_id=first["conversation_id"]).json()
    assert first["status"] == second["status"] == "answered"
    assert "4200" in first["answer"] and "4800" in second["answer"] and "4200" not in second["answer"]
    db = Database(database_url)
    thread = ConversationStore(db).thread(first["conversation_id"])
    assert [e.query for e in thread] == ["二级学费多少？", "那三级呢？"]  # the student's words, as written
    assert [(e.standalone, e.derived_from) for e in thread] == [("二级学费多少？", ""),
                                                                 ("三级学费多少？", first["message_id"])]
    db.dispose()


def test_a_thing_the_answer_brought_in_is_asked_in_the_previous_subject(services, database_url):
    """The turn keeps the documents' words of the answer the student was sent; 「是原路退吗」 after the refund's
    timeline is that refund's question. A held answer (release="all") was not read: nothing of it is kept."""
    sent, held = make_key(database_url, release="auto")[0], make_key(database_url, "app2", release="all")[0]
    with services().client(sent) as client:
        first = ask(client, "s1", "m1", "退款多久能到账").json()
        second = ask(client, "s1", "m2", "是原路退吗", conversation_id=first["conversation_id"]).json()
    with services().client(held) as client:
        kept = ask(client, "s2", "m1", "退款多久能到账").json()
        after = ask(client, "s2", "m2", "是原路退吗", conversation_id=kept["conversation_id"]).json()
    db = Database(database_url)
    store = ConversationStore(db)
    with db.read() as conn:
        words = dict(conn.execute(select(exchanges.c.message_id, conversation_turns.c.answer_words).join(
            exchanges, exchanges.c.id == conversation_turns.c.exchange_id)).all())
    assert (first["status"], kept["status"]) == ("answered", "held")
    assert [e.standalone for e in store.thread(first["conversation_id"])] == ["退款多久能到账", "退款，是原路退吗"]
    assert "原路退回" in words[first["message_id"]] and words[kept["message_id"]] == "[]"
    assert [e.standalone for e in store.thread(kept["conversation_id"])] == ["退款多久能到账", "是原路退吗"]
    assert second["status"] == "answered" and after["status"] == "held"
    db.dispose()


def test_turns_made_before_the_answer_words_column_read_with_none(database_url):
    """A database made before migration 2 of conversation_context gains the column on open; its turns have no
    answer words."""
    from datetime import datetime, timedelta

    from sqlalchemy import Column, MetaData, Table

    from core.stores.db import Migration, Schema, create_tables
    from core.stores.exchange_schema import EXCHANGES_SCHEMA, conversations
    from core.stores.turns import conversation_mask_keys, conversation_masks

    old = MetaData()
    turns_v1 = Table("conversation_turns", old, *(Column(c.name, c.type, primary_key=c.primary_key,
                                                         nullable=c.nullable, default=c.default)
                                                  for c in conversation_turns.columns if c.name != "answer_words"))
    db = Database(database_url)
    db.migrate(EXCHANGES_SCHEMA)
    db.migrate(Schema("conversation_context", (Migration(1, "v1", create_tables(turns_v1, conversation_masks, conversation_mask_keys)),)))
    now = datetime(2026, 3, 2, 2, 0, tzinfo=UTC)
    with db.transaction() as conn:
        conv = conn.execute(conversations.insert().values(public_id="conv_old", key_id=1, user="u", created_at=now,
                                                          last_at=now, handed_off_by="")).inserted_primary_key[0]
        conn.execute(turns_v1.insert().values(conversation_id=conv, exchange_id=1, standalone="退款多久能到账",
                                              kind="first", rules="[]", derived_from="", decision="answered",
                                              refused=0, case_figures="[]", created_at=now))
    assert db.applied("conversation_context") == [1]
    db.dispose()
    db = Database(database_url)  # opened again, as the service does after an upgrade
    turns = TurnStore(db)
    assert db.applied("conversation_context") == [1, 2]
    assert [(t.standalone, t.answer_words) for t in turns.context(conv, idle=timedelta.max, limit=3)] == [
        ("退款多久能到账", ())]
    db.dispose()


def test_personal_data_is_masked_before_it_is_stored(services, database_url):
    secret = make_key(database_url, release="auto")[0]
    with services().client(secret) as client:
        first = ask(client, "s1", "m1", "我手机13812345678，二级学费多少？").json()
        second = ask(client, "s1", "m2", "换个号 13900001111 吧，刚才的 138 1234 5678 不用了",
                     conversation_id=first["conversation_id"]).json()
        rated = client.post(f"/v1/messages/{first['message_id']}/feedbacks",
                            json={"user": "s1", "rating": "dislike", "reasons": ["其他"],
                                  "content": "请打我电话 13700002222 说"})
    db = Database(database_url)
    with db.read() as conn:
        stored = conn.execute(select(exchanges.c.query).order_by(exchanges.c.id)).scalars().all()
        turns = conn.execute(select(conversation_turns.c.standalone)).scalars().all()
    assert stored == ["我手机〔手机号1〕，二级学费多少？", "换个号 〔手机号2〕 吧，刚才的 〔手机号1〕 不用了"]
    assert not any("138" in t or "139" in t for t in [*stored, *turns])
    assert rated.status_code == 200 and rated.json()["feedback"]["content"] == "请打我电话 〔手机号1〕 说"
    assert first["status"] and second["status"]
    db.dispose()


def test_sensitive_word_gets_the_configured_reply_without_retrieval(services, database_url):
    secret = make_key(database_url, release="auto")[0]
    db = Database(database_url)
    SensitiveStore(db).add(ADMIN, "代考", "作弊")
    with services().client(secret) as client:
        reply = ask(client, "s1", "m1", "能帮我找人代考分级测试吗").json()
    exchange = ConversationStore(db).exchange(reply["message_id"])
    item = ReviewStore(db).get(exchange.item_id)
    assert (reply["status"], reply["answer"]) == ("refused", Settings().sensitive_reply)
    assert exchange.gate_runs == 0 and item.origin == "sensitive" and "代考" in item.reasons[0].message
    db.dispose()


def test_student_hand_off_during_hours_then_release_by_a_consultant(services, database_url):
    secret = make_key(database_url, release="auto")[0]
    with services({"XIAOE_NOW": DAYTIME}).client(secret) as client:
        first = ask(client, "s1", "m1", "二级学费多少？").json()
        conv = first["conversation_id"]
        handed = ask(client, "s1", "m2", "转人工", conversation_id=conv).json()
        meanwhile = ask(client, "s1", "m3", "三级学费多少？", conversation_id=conv).json()
        db = Database(database_url)
        store = ConversationStore(db)
        item = ReviewStore(db).get(store.exchange(handed["message_id"]).item_id)
        store.hand_back(ADMIN, conv)
        after = ask(client, "s1", "m4", "三级学费多少？", conversation_id=conv).json()
    assert (handed["status"], handed["answer"]) == ("handed_off", Settings().handoff_text)  # within the hours
    assert item.origin == "handoff" and "学员：二级学费多少？" in item.answer and "4200" in item.answer  # the thread
    assert (meanwhile["status"], meanwhile["answer"]) == ("handed_off", Settings().handoff_text)  # 小E stays quiet
    assert after["status"] == "answered" and "4800" in after["answer"]
    assert store.get(conv).handed_off is False
    db.dispose()


def test_student_hand_off_outside_hours_says_when_a_person_answers(services, database_url):
    secret = make_key(database_url, release="auto")[0]
    with services({"XIAOE_NOW": NIGHT}).client(secret) as client:
        handed = ask(client, "s1", "m1", "我要人工！").json()
    assert handed["status"] == "handed_off"
    assert handed["answer"].startswith(Settings().handoff_text)
    assert "每天 9:00–21:00" in handed["answer"] and "明天（3 月 3 日）9:00 以后" in handed["answer"]


def test_hours_setting_overrides_the_documents(services, database_url):
    secret = make_key(database_url, release="auto")[0]
    with services({"XIAOE_NOW": DAYTIME, "XIAOE_SERVICE_HOURS": "13:00-17:00"}).client(secret) as client:
        handed = ask(client, "s1", "m1", "人工").json()
    assert "每天 13:00–17:00" in handed["answer"] and "今天（3 月 2 日）13:00 以后" in handed["answer"]


def test_context_is_forgotten_after_the_idle_timeout(database_url):
    """The store's clock, not a sleep: a turn older than the timeout is no context."""
    from datetime import datetime, timedelta

    from core.values.conversations import Standalone
    db = Database(database_url)
    now = [datetime(2026, 3, 2, 2, 0, tzinfo=UTC)]
    turns = TurnStore(db, clock=lambda: now[0])
    from core.stores.exchange_schema import conversations
    with db.transaction() as conn:
        conv = conn.execute(conversations.insert().values(public_id="conv_x", key_id=1, user="u", created_at=now[0],
                                                          last_at=now[0], handed_off_by="")).inserted_primary_key[0]
        turns.record_in(conn, conversation_row=conv, exchange_id=1, standalone=Standalone("二级学费多少", "二级学费多少"),
                        decision="answered", refused=False)
    assert len(turns.context(conv, idle=timedelta(minutes=30), limit=3)) == 1
    now[0] += timedelta(minutes=31)
    assert turns.context(conv, idle=timedelta(minutes=30), limit=3) == ()
    db.dispose()
