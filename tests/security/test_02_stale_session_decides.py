"""#16 failure 2: a disabled or idle-expired session could still approve an item from an open page.

The 通过 button's callback ran before the login gate re-checked the session. Decisions now take
the session and re-check it inside the decision's own transaction, so the click is refused and
the item stays as it was. Driven through the real page (AppTest, sign-in on).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from streamlit.testing.v1 import AppTest

from core.settings import Settings
from core.stores.accounts import AccountStore
from core.stores.db import open_database
from core.stores.review import ReviewStore
from core.stores.sessions import sessions
from core.values import Problem, RAGAnswer
from tests.app.conftest import ROUTER
from tests.auth_helpers import FAST_HASHER, PASSWORD, add_staff


@pytest.fixture
def signed_in_review(app_env, monkeypatch):
    """(AppTest on /review?item=N signed in as the consultant amy, staff store, queue store, N)."""
    monkeypatch.setenv("XIAOE_AUTH", "on")
    db = open_database(Settings.from_env().db_url)
    staff = AccountStore(db, hasher=FAST_HASHER)
    add_staff(staff)
    queue = ReviewStore(db)
    item = queue.enqueue(RAGAnswer(question="口语课几级？", text="一共六级 [1]", hits=(), candidates=(), threshold=0.2,
                                   k=2, refused=False, model_called=True,
                                   problems=(Problem("unsupported_number", "数字“六”在资料里找不到"),)))
    login = AppTest.from_file(ROUTER, default_timeout=30).run()
    login.text_input(key="login_username").set_value("amy")
    login.text_input(key="login_password").set_value(PASSWORD)
    login.button(key="login_submit").click().run()
    at = AppTest.from_file(ROUTER, default_timeout=30)
    at.session_state["auth_token"] = login.session_state["auth_token"]
    at.query_params["item"] = str(item)
    at.run()
    at.switch_page("app_pages/review.py").run()
    assert not at.exception
    assert at.button(key=f"approve_{item}")  # the consultant sees the open item with its 通过 button
    return at, staff, queue, item


def assert_refused_and_unchanged(at: AppTest, queue: ReviewStore, item: int, why: str) -> None:
    assert not at.exception
    assert queue.get(item).status == "pending" and queue.get(item).version == 1
    assert [e.action for e in queue.events(item)] == ["enqueue"]
    shown = [e.value for e in at.error] + [w.value for w in at.warning]
    assert any(why in text for text in shown), shown  # the page says why (then shows the login page)


def test_stale_session_disabled_account_cannot_approve(signed_in_review):
    at, staff, queue, item = signed_in_review
    staff.set_disabled("amy", True, actor="boss")  # as `python -m core users disable amy` does
    at.button(key=f"approve_{item}").click().run()
    assert_refused_and_unchanged(at, queue, item, "停用")


def test_stale_session_idle_session_cannot_approve(signed_in_review):
    at, staff, queue, item = signed_in_review
    with staff.db.transaction() as conn:  # the session was last seen nine hours ago
        conn.execute(sessions.update().values(last_seen=datetime.now(UTC) - timedelta(hours=9)))
    at.button(key=f"approve_{item}").click().run()
    assert_refused_and_unchanged(at, queue, item, "小时没有操作")


def test_stale_session_live_session_approves_under_its_own_name(signed_in_review):
    at, staff, queue, item = signed_in_review
    at.button(key=f"approve_{item}").click().run()
    assert not at.exception
    assert (queue.get(item).status, queue.get(item).reviewer) == ("approved", "顾问 Amy（amy）")


@pytest.mark.parametrize("change", ["disable", "sign_out"])
def test_stale_session_store_checks_the_session_in_the_decision_transaction(db_url, change):
    from core.errors import SessionExpired
    from core.stores.db import Database
    from core.stores.sessions import SessionStore

    db = Database(db_url)
    staff = AccountStore(db, hasher=FAST_HASHER)
    add_staff(staff)
    signer, queue = SessionStore(staff), ReviewStore(db)
    token = signer.sign_in("amy", PASSWORD).token
    item = queue.enqueue(RAGAnswer(question="口语课几级？", text="一共六级 [1]", hits=(), candidates=(), threshold=0.2,
                                   k=2, refused=False, model_called=True))
    if change == "disable":
        staff.set_disabled("amy", True, actor="boss")
    else:
        signer.sign_out(token)
    with pytest.raises(SessionExpired):
        queue.decide(item, action="approve", reviewer="顾问 Amy（amy）", expected_version=1,
                     authorize=signer.guard(token))
    assert queue.get(item).status == "pending"
    db.dispose()
