"""Held answers reach the student exactly once, over real HTTP on SQLite and PostgreSQL: a consultant's decision
writes one outbox row; the App reads it by cursor, or its webhook receives it signed, with retries, and with the same
delivery_id when an instance dies between sending and marking it sent."""

from __future__ import annotations

import hashlib
import hmac
import threading
import time

import pytest

from core.errors import ConflictError
from core.exchanges.release import decide_and_send
from core.settings import HOLD_ACK_TEXT, Settings
from core.stores.conversations import ConversationStore
from core.stores.db import Database
from core.stores.review import ReviewStore
from tests.service.harness import ask, make_key

QUESTION = "口语课一共有几级？"
PARAPHRASE = "你们口语课一共有几级呀"


def _held_item(database_url: str, message_id: str) -> tuple[Database, int, int]:
    db = Database(database_url)
    exchange = ConversationStore(db).exchange(message_id)
    item = ReviewStore(db).get(exchange.item_id)
    assert item.origin == "held" and item.status == "pending"
    assert item.reasons[0].code == "held" and "放行策略" in item.reasons[0].message  # why it waits, on the item
    return db, item.id, item.version


def _send(db: Database, item_id: int, version: int, who: str, **options):
    return decide_and_send(ReviewStore(db), Settings(), item_id, action=options.pop("action", "approve"),
                           reviewer=who, expected_version=version, **options)


def test_held_answer_shows_the_acknowledgement_then_the_app_reads_the_release_once_by_cursor(services, database_url):
    secret = make_key(database_url, release="all")[0]
    with services().client(secret) as client:
        held = ask(client, "s1", "m1", QUESTION).json()
        assert held["status"] == "held" and held["answer"] == HOLD_ACK_TEXT and held["citations"] == []
        path = f"/v1/conversations/{held['conversation_id']}/messages"
        assert client.get(path, params={"user": "s1"}).json() == {"data": [], "has_more": False, "next_cursor": None}
        db, item_id, version = _held_item(database_url, held["message_id"])
        _send(db, item_id, version, "顾问甲")
        page = client.get(path, params={"user": "s1"}).json()
        again = client.get(path, params={"user": "s1", "after": page["next_cursor"]}).json()
        other = client.get(path, params={"user": "s2"})
        reused = ask(client, "s2", "m1", PARAPHRASE).json()
    assert len(page["data"]) == 1
    released = page["data"][0]
    assert released["reply_to"] == held["message_id"] and released["status"] == "answered"
    assert "四级" in released["answer"] and released["citations"][0]["file"] == "01-口语课分级说明.md"
    assert again["data"] == [] and again["next_cursor"] == page["next_cursor"]
    assert other.status_code == 404
    # the sent draft became an approved answer: another student's paraphrase is answered at once from it
    assert reused["status"] == "answered" and reused["reused"] is True
    db.dispose()


def test_two_consultants_sending_at_once_release_once(services, database_url, receiver):
    secret = make_key(database_url, release="all", webhook=receiver.url)[0]
    with services().client(secret) as client:
        held = ask(client, "s1", "m1", QUESTION).json()
    db, item_id, version = _held_item(database_url, held["message_id"])
    outcomes: list[object] = []
    start = threading.Barrier(2)

    def consultant(name: str) -> None:
        start.wait()
        try:
            outcomes.append(_send(db, item_id, version, name))
        except ConflictError as error:
            outcomes.append(error)

    threads = [threading.Thread(target=consultant, args=(n,)) for n in ("顾问甲", "顾问乙")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(isinstance(o, ConflictError) for o in outcomes) == 1
    receiver.wait_for(1)
    time.sleep(1.5)  # a second POST, were there one, would arrive within the worker's next rounds
    assert len(receiver.posts) == 1
    db.dispose()


def test_webhook_is_signed_with_the_keys_secret_and_names_the_delivery(services, database_url, receiver):
    secret, signing = make_key(database_url, release="all", webhook=receiver.url)
    with services().client(secret) as client:
        held = ask(client, "s1", "m1", QUESTION).json()
    db, item_id, version = _held_item(database_url, held["message_id"])
    _send(db, item_id, version, "顾问甲", corrected="口语课一共四级[1]。")
    post = receiver.wait_for(1)[0]
    expected = "sha256=" + hmac.new(signing.encode(), post["raw"], hashlib.sha256).hexdigest()
    assert hmac.compare_digest(post["signature"], expected)
    body = post["body"]
    assert post["delivery"] == body["delivery_id"] and body["event"] == "message.released"
    assert body["message"]["reply_to"] == held["message_id"] and body["message"]["answer"] == "口语课一共四级[1]。"
    assert body["user"] == "s1" and body["conversation_id"] == held["conversation_id"]
    db.dispose()


def test_receiver_down_then_back_gets_the_message_once_after_retries(services, database_url, receiver):
    secret = make_key(database_url, release="all", webhook=receiver.url)[0]
    receiver.up = False
    with services().client(secret) as client:
        held = ask(client, "s1", "m1", QUESTION).json()
    db, item_id, version = _held_item(database_url, held["message_id"])
    _send(db, item_id, version, "顾问甲")
    deadline = time.monotonic() + 30
    while len(receiver.posts) < 2 and time.monotonic() < deadline:  # two refused attempts (1 s back-off between)
        time.sleep(0.05)
    receiver.up = True
    receiver.wait_for(1, timeout=30)
    time.sleep(1.5)
    delivered = [p for p in receiver.posts if p["status"] == 200]
    assert len(delivered) == 1 and len(receiver.posts) >= 3
    assert len({p["body"]["delivery_id"] for p in receiver.posts}) == 1  # every attempt names the same delivery
    db.dispose()


def test_instance_killed_between_sending_and_marking_sent_resends_the_same_delivery(services, database_url, receiver):
    secret = make_key(database_url, release="all", webhook=receiver.url)[0]
    first = services({"XIAOE_WEBHOOK_LEASE_S": "1"})
    with first.client(secret) as client:
        held = ask(client, "s1", "m1", QUESTION).json()
    receiver.on_post = lambda _raw: first.kill() if not receiver.posts else None  # kill -9 before it hears 200
    db, item_id, version = _held_item(database_url, held["message_id"])
    _send(db, item_id, version, "顾问甲")
    receiver.wait_for(1)
    assert first.process.poll() is not None  # it died before it could mark the row sent
    services({"XIAOE_WEBHOOK_LEASE_S": "1"})
    receiver.wait_for(2)
    time.sleep(1.5)
    ids = [p["body"]["delivery_id"] for p in receiver.posts]
    assert len(ids) == 2 and len(set(ids)) == 1  # the repeat carries the same delivery_id: the App drops it
    db.dispose()


@pytest.mark.parametrize("action", ["reject", "handoff"])
def test_held_answer_rejected_or_handed_off_still_answers_the_student(services, database_url, action):
    secret = make_key(database_url, release="all")[0]
    with services().client(secret) as client:
        held = ask(client, "s1", "m1", QUESTION).json()
        db, item_id, version = _held_item(database_url, held["message_id"])
        _send(db, item_id, version, "顾问甲", action=action, note="草稿不够清楚" if action == "reject" else None)
        page = client.get(f"/v1/conversations/{held['conversation_id']}/messages", params={"user": "s1"}).json()
        later = ask(client, "s1", "m2", "二级学费多少", conversation_id=held["conversation_id"]).json()
    settings = Settings()
    assert len(page["data"]) == 1
    if action == "reject":
        assert page["data"][0]["answer"] == settings.standard_replies[0] and later["status"] == "held"
    else:
        assert page["data"][0]["status"] == "handed_off" and page["data"][0]["answer"] == settings.handoff_text
        assert later["status"] == "handed_off" and later["answer"] == settings.handoff_text  # 小E no longer answers
    db.dispose()
