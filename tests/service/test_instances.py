"""Several requests and several instances behave as one service, on SQLite and PostgreSQL: identical requests at
the same instant make one exchange, a per-student limit is counted once across instances, and a key revoked
through one instance's database is refused by every instance at its next request."""

from __future__ import annotations

import threading

import httpx
from sqlalchemy import func, select

from core.stores.api_keys import KeyStore
from core.stores.db import Database
from core.stores.exchange_schema import exchanges
from tests.service.harness import ADMIN, make_key, within_one_window

BODY = {"user": "s1", "conversation_id": None, "client_msg_id": "same", "query": "每节课多长时间"}


def _fire(urls: list[str], secret: str, body: dict, copies: int) -> list[httpx.Response]:
    """`copies` identical requests released at one instant, spread over `urls`."""
    gate = threading.Barrier(copies)
    out: list[httpx.Response] = [None] * copies  # type: ignore[list-item]

    def one(position: int) -> None:
        with httpx.Client(base_url=urls[position % len(urls)], trust_env=False, timeout=60,
                          headers={"Authorization": f"Bearer {secret}"}) as client:
            gate.wait()
            out[position] = client.post("/v1/chat-messages", json=body)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(copies)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def _rows(database_url: str) -> int:
    db = Database(database_url)
    try:
        with db.read() as conn:
            return conn.execute(select(func.count()).select_from(exchanges)
                                .where(exchanges.c.client_msg_id == "same")).scalar_one()
    finally:
        db.dispose()


def test_identical_requests_at_the_same_instant_on_two_instances_make_one_exchange(services, database_url):
    secret = make_key(database_url, release="auto")[0]
    one, two = services(), services()
    answers = _fire([one.url, two.url], secret, BODY, 8)
    assert [a.status_code for a in answers] == [200] * 8
    assert len({a.json()["message_id"] for a in answers}) == 1
    assert sum(a.headers.get("Idempotent-Replay") == "true" for a in answers) == 7
    assert _rows(database_url) == 1


def test_per_student_limit_is_shared_by_two_instances(services, database_url):
    secret = make_key(database_url, release="auto")[0]
    limited = {"XIAOE_RATE_USER_PER_MINUTE": "3"}
    one, two = services(limited), services(limited)
    within_one_window()  # the six counted requests fall in one fixed window
    codes = []
    for n in range(6):
        with (one if n % 2 == 0 else two).client(secret) as client:
            codes.append(client.post("/v1/chat-messages", json={**BODY, "client_msg_id": f"m{n}"}).status_code)
    assert codes.count(200) == 3 and codes.count(429) == 3  # one window of 3, counted in the database


def test_a_revoked_key_is_refused_by_every_instance_at_once(services, database_url):
    secret = make_key(database_url, "school-app", release="auto")[0]
    one, two = services(), services()
    for service in (one, two):
        with service.client(secret) as client:
            assert client.post("/v1/chat-messages", json={**BODY, "client_msg_id": service.url}).status_code == 200
    db = Database(database_url)
    KeyStore(db).revoke(ADMIN, "school-app")
    db.dispose()
    for service in (one, two):
        with service.client(secret) as client:
            refused = client.post("/v1/chat-messages", json={**BODY, "client_msg_id": "after-" + service.url})
        assert refused.status_code == 401 and refused.json()["code"] == "unauthorized"
