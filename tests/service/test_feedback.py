"""Students' feedback over real HTTP, on SQLite and PostgreSQL: one per message and student (the last write wins, null
revokes), reasons from the fixed list, a dislike in the 学生反馈 lane holding the answer as the student saw it, likes
counted on the approved answer that was reused."""

from __future__ import annotations

from core.exchanges.release import decide_and_send
from core.settings import Settings
from core.stores.conversations import ConversationStore
from core.stores.db import Database
from core.stores.feedback import FeedbackStore
from core.stores.review import Filters, ReviewStore
from tests.service.harness import ask, make_key


def _feedback(client, message_id: str, **body):
    return client.post(f"/v1/messages/{message_id}/feedbacks", json=body)


def test_feedback_last_write_wins_and_null_revokes(shared, shared_key, shared_url):
    with shared.client(shared_key) as client:
        answered = ask(client, "fb1", "m1", "每节课多长时间").json()
        first = _feedback(client, answered["message_id"], user="fb1", rating="like")
        second = _feedback(client, answered["message_id"], user="fb1", rating="like", reasons=[], content="清楚")
        revoked = _feedback(client, answered["message_id"], user="fb1", rating=None)
    assert first.status_code == second.status_code == revoked.status_code == 200
    assert revoked.json()["feedback"]["rating"] is None
    db = Database(shared_url)
    thread = ConversationStore(db).thread(answered["conversation_id"])
    db.dispose()
    assert len(thread[0].feedback) == 1 and thread[0].feedback[0].rating is None  # one row, last write


def test_feedback_dislike_opens_an_item_with_the_answer_as_the_student_saw_it(shared, shared_key, shared_url):
    with shared.client(shared_key) as client:
        answered = ask(client, "fb2", "m1", "每节课多长时间").json()
        given = _feedback(client, answered["message_id"], user="fb2", rating="dislike",
                          reasons=["信息不全", "看不懂"], content="=HYPERLINK(\"x\")")
    assert given.status_code == 200
    db = Database(shared_url)
    items = ReviewStore(db).list(Filters(lane="feedback"), limit=200).items
    db.dispose()
    item = next(i for i in items if i.question == "每节课多长时间")
    assert item.answer == answered["answer"]  # exactly what the student was shown
    assert "信息不全、看不懂" in item.reasons[0].message and item.reasons[0].code == "student_dislike"


def test_feedback_refuses_unknown_reasons_ratings_and_other_students_messages(shared, shared_key):
    with shared.client(shared_key) as client:
        answered = ask(client, "fb3", "m1", "每节课多长时间").json()
        bad_reason = _feedback(client, answered["message_id"], user="fb3", rating="dislike", reasons=["太贵了"])
        bad_rating = _feedback(client, answered["message_id"], user="fb3", rating="meh")
        not_theirs = _feedback(client, answered["message_id"], user="someone-else", rating="like")
        unknown = _feedback(client, "msg_nope", user="fb3", rating="like")
    assert bad_reason.status_code == 422 and "答非所问" in bad_reason.json()["message"]
    assert bad_rating.status_code == 422 and bad_rating.json()["code"] == "invalid_request"
    assert not_theirs.status_code == 404 and unknown.status_code == 404


def test_feedback_likes_are_counted_on_the_reused_approved_answer(shared, shared_url):
    secret = make_key(shared_url, "likes", release="all")[0]
    db = Database(shared_url)
    with shared.client(secret) as client:
        first = ask(client, "fb4", "m1", "退费多久能到账？").json()
        item = ReviewStore(db).get(ConversationStore(db).exchange(first["message_id"]).item_id)
        decide_and_send(ReviewStore(db), Settings(), item.id, action="approve", reviewer="顾问甲",
                        expected_version=item.version)
        reused = ask(client, "fb5", "m1", "退费多久能到账？").json()
        _feedback(client, reused["message_id"], user="fb5", rating="like")
    assert first["status"] == "held" and reused["reused"] is True
    approved = ConversationStore(db).exchange(reused["message_id"]).reused_id
    assert FeedbackStore(db).likes([approved]) == {approved: (1, 0)}
    db.dispose()
