"""账号管理's audit view: logins summarised one line per person (the form is checked in tests/e2e/test_accounts_form_e2e.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from core.stores import audit
from core.stores.db import Database


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
