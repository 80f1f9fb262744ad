"""账号管理: the new-account form keeps what was typed after a validation error; the audit view summarises logins."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from core import audit
from core.db import Database
from tests.app.test_auth_app import auth_on, sign_in, staff  # noqa: F401  (fixtures)

PAGE = "app_pages/accounts.py"


def test_accounts_form_keeps_fields_after_a_validation_error(staff):  # noqa: F811
    at = sign_in("boss")
    at.switch_page(PAGE).run()
    at.text_input(key="new_username").set_value("zhang.laoshi")
    at.text_input(key="new_display").set_value("张老师")
    at.text_input(key="new_password").set_value("short")
    at.button(key="account_add_submit").click().run()
    assert not at.exception and at.error
    assert (at.text_input(key="new_username").value, at.text_input(key="new_display").value) == ("zhang.laoshi", "张老师")
    assert staff.find("zhang.laoshi") is None


def test_audit_login_summary_is_one_line_per_person(tmp_path):
    db = Database(f"sqlite:///{tmp_path / 'a.sqlite3'}")
    t0 = datetime(2025, 3, 1, 8, tzinfo=UTC)
    for minutes, who in [(0, "amy"), (5, "boss"), (10, "amy"), (20, "amy")]:
        audit.record(db, who, "login", who, "密码登录", now=lambda m=minutes: t0 + timedelta(minutes=m))
    audit.record(db, "boss", "account_add", "bob", "新建", now=lambda: t0)
    summary = {s.actor: (s.count, s.first, s.last) for s in audit.login_summary(db)}
    assert summary == {"amy": (3, t0, t0 + timedelta(minutes=20)), "boss": (1, t0 + timedelta(minutes=5),
                                                                            t0 + timedelta(minutes=5))}
    assert [e.action for e in audit.recent(db, exclude=("login",))] == ["account_add"]
