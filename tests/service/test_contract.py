"""The student service's contract over real HTTP, on SQLite and PostgreSQL: answers with citations, replays, and
every error as JSON {code, message} in Chinese."""

from __future__ import annotations

from sqlalchemy import func, select

from core.stores.api_keys import KeyStore
from core.stores.db import Database
from core.stores.exchange_schema import exchanges
from tests.service.harness import ADMIN, ask, make_key, within_one_window


def _count(database_url: str, **where) -> int:
    db = Database(database_url)
    try:
        with db.read() as conn:
            query = select(func.count()).select_from(exchanges)
            for column, value in where.items():
                query = query.where(exchanges.c[column] == value)
            return conn.execute(query).scalar_one()
    finally:
        db.dispose()


def _key_id(database_url: str, secret: str) -> int:
    db = Database(database_url)
    try:
        return KeyStore(db).authenticate(secret).id
    finally:
        db.dispose()


def _gate_runs(database_url: str, message_id: str) -> int:
    db = Database(database_url)
    try:
        with db.read() as conn:
            return conn.execute(select(exchanges.c.gate_runs).where(exchanges.c.message_id == message_id)).scalar_one()
    finally:
        db.dispose()


def test_service_answers_with_citations_that_map_to_files_and_sections(shared, shared_key):
    with shared.client(shared_key) as client:
        reply = ask(client, "s1", "m1", "口语课一共有几级？")
    assert reply.status_code == 200
    body = reply.json()
    assert body["status"] == "answered" and "四级" in body["answer"]
    assert body["message_id"].startswith("msg_") and body["conversation_id"].startswith("conv_")
    assert body["citations"] and body["citations"][0]["file"] == "01-口语课分级说明.md"
    assert {c["n"] for c in body["citations"]} == {int(n) for n in __import__("re").findall(r"\[(\d+)\]", body["answer"])}
    assert body["reused"] is False


def test_service_refuses_without_a_model_and_says_the_refusal_sentence(shared, shared_key):
    with shared.client(shared_key) as client:
        body = ask(client, "s1", "m1", "你们的雅思保过班多少钱？").json()
    assert body["status"] == "refused"
    assert body["answer"] == "这件事资料里没写，我不能替你们编，请转人工。"
    assert body["citations"] == []


def test_service_replay_returns_the_identical_reply_with_one_record_and_one_gate_run(shared, shared_key, shared_url):
    with shared.client(shared_key) as client:
        first = ask(client, "s1", "m1", "每节课多长时间")
        again = ask(client, "s1", "m1", "每节课多长时间")
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    assert again.headers.get("Idempotent-Replay") == "true" and "Idempotent-Replay" not in first.headers
    assert _count(shared_url, message_id=first.json()["message_id"]) == 1
    assert _count(shared_url, user="s1", client_msg_id="m1", key_id=_key_id(shared_url, shared_key)) == 1
    assert _gate_runs(shared_url, first.json()["message_id"]) == 1


def test_service_same_client_msg_id_with_another_query_is_422_and_keeps_the_first(shared, shared_key, shared_url):
    with shared.client(shared_key) as client:
        first = ask(client, "s1", "m1", "每节课多长时间")
        other = ask(client, "s1", "m1", "二级学费多少")
    assert other.status_code == 422
    assert other.json()["code"] == "idempotency_conflict" and "client_msg_id" in other.json()["message"]
    assert _count(shared_url, user="s1", client_msg_id="m1", key_id=_key_id(shared_url, shared_key)) == 1
    assert first.json()["status"] == "answered"


def test_service_the_same_client_msg_id_of_another_student_is_another_message(shared, shared_key, shared_url):
    with shared.client(shared_key) as client:
        one = ask(client, "s1", "m1", "每节课多长时间").json()
        two = ask(client, "s2", "m1", "每节课多长时间").json()
    assert one["message_id"] != two["message_id"]
    assert _count(shared_url, client_msg_id="m1", key_id=_key_id(shared_url, shared_key)) == 2


def test_service_conversation_continues_and_another_students_conversation_is_404(shared, shared_key):
    with shared.client(shared_key) as client:
        first = ask(client, "s1", "m1", "每节课多长时间").json()
        second = ask(client, "s1", "m2", "二级学费多少", conversation_id=first["conversation_id"]).json()
        stolen = ask(client, "s2", "m3", "二级学费多少", conversation_id=first["conversation_id"])
        unknown = ask(client, "s1", "m4", "二级学费多少", conversation_id="conv_nope")
    assert second["conversation_id"] == first["conversation_id"]
    assert stolen.status_code == 404 and stolen.json()["code"] == "not_found"
    assert "不属于这位学员" in stolen.json()["message"]
    assert unknown.status_code == 404


def test_service_401_for_a_missing_a_wrong_and_a_revoked_key_even_with_a_bad_body(shared, shared_url):
    secret = make_key(shared_url, "gone")[0]
    service = shared
    with service.client() as anonymous:
        missing = anonymous.post("/v1/chat-messages", content=b"{bad json", headers={"Content-Type": "application/json"})
    with service.client("xiaoe_not-a-key") as wrong:
        bad = ask(wrong, "s1", "m1", "每节课多长时间")
    db = Database(shared_url)
    KeyStore(db).revoke(ADMIN, "gone")
    db.dispose()
    with service.client(secret) as revoked:
        refused = ask(revoked, "s1", "m1", "每节课多长时间")
    for response, words in ((missing, "缺少接口密钥"), (bad, "接口密钥不对"), (refused, "已经停用")):
        assert response.status_code == 401, response.text
        assert response.json()["code"] == "unauthorized" and words in response.json()["message"]
        assert response.headers["WWW-Authenticate"] == "Bearer"


def test_service_403_when_the_key_lacks_the_scope(shared, shared_url):
    secret = make_key(shared_url, "chat-only", scopes="chat")[0]
    with shared.client(secret) as client:
        answered = ask(client, "s1", "m1", "每节课多长时间").json()
        denied = client.post(f"/v1/messages/{answered['message_id']}/feedbacks", json={"user": "s1", "rating": "like"})
    assert denied.status_code == 403
    assert denied.json()["code"] == "forbidden" and "feedback" in denied.json()["message"]


def test_service_422_bodies_name_the_field_in_chinese(shared, shared_key):
    with shared.client(shared_key) as client:
        cases = {
            "empty": ask(client, "s1", "m1", "   "),
            "long": ask(client, "s1", "m2", "学费" * 1500),
            "bad_json": client.post("/v1/chat-messages", content=b"{'user': 1}",
                                    headers={"Content-Type": "application/json"}),
            "number_query": client.post("/v1/chat-messages", json={"user": "s1", "client_msg_id": "m3", "query": 5}),
            "no_msg_id": client.post("/v1/chat-messages", json={"user": "s1", "query": "二级学费"}),
            "array": client.post("/v1/chat-messages", json=[1, 2]),
            "control_user": ask(client, "s\x07", "m4", "二级学费"),
        }
    for name, response in cases.items():
        assert response.status_code == 422, (name, response.text)
        body = response.json()
        assert set(body) == {"code", "message"} and body["code"] == "invalid_request", name
        assert any("\u4e00" <= c <= "\u9fff" for c in body["message"]) and "Traceback" not in body["message"], name
    assert "query" in cases["empty"].json()["message"] and "client_msg_id" in cases["no_msg_id"].json()["message"]
    assert "上限" in cases["long"].json()["message"]


def test_service_429_with_retry_after_per_student_and_other_students_go_on(services, database_url):
    secret = make_key(database_url, release="auto")[0]
    with services({"XIAOE_RATE_USER_PER_MINUTE": "2"}).client(secret) as client:
        within_one_window()  # the three counted requests fall in one fixed window, not across a minute's turn
        codes = [ask(client, "s1", f"m{i}", "每节课多长时间").status_code for i in range(3)]
        limited = ask(client, "s1", "m9", "每节课多长时间")
        replay = ask(client, "s1", "m0", "每节课多长时间")
        other = ask(client, "s2", "m0", "每节课多长时间")
    assert codes == [200, 200, 429]
    assert limited.status_code == 429 and limited.json()["code"] == "rate_limited"
    assert 1 <= int(limited.headers["Retry-After"]) <= 60 and "秒后再试" in limited.json()["message"]
    assert replay.status_code == 200 and replay.headers.get("Idempotent-Replay") == "true"  # a replay is never limited
    assert other.status_code == 200


def test_service_a_body_over_64_kb_is_413_in_chinese_before_the_route(shared, shared_key):
    with shared.client(shared_key) as client:
        huge = client.post("/v1/chat-messages", content=b"{" + b" " * (65 * 1024) + b"}",
                           headers={"Content-Type": "application/json"})
        fine = ask(client, "s1", "m-413", "每节课多长时间")
    assert huge.status_code == 413 and huge.json()["code"] == "too_large" and "64 KB" in huge.json()["message"]
    assert fine.status_code == 200


def test_service_unknown_route_and_method_are_json_in_chinese(shared, shared_key):
    with shared.client(shared_key) as client:
        missing = client.get("/v1/nothing-here")
        wrong_method = client.get("/v1/chat-messages")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    assert wrong_method.status_code == 405 and "请求方法" in wrong_method.json()["message"]


def test_service_health_and_openapi_docs(shared):
    service = shared
    with service.client() as client:
        health = client.get("/v1/health").json()
        docs = client.get("/docs")
        spec = client.get("/openapi.json").json()
    assert health["status"] == "ok" and health["database"] == "ok" and health["corpus"]
    assert docs.status_code == 200
    assert {"/v1/chat-messages", "/v1/conversations/{conversation_id}/messages",
            "/v1/messages/{message_id}/feedbacks", "/v1/health"} <= set(spec["paths"])
