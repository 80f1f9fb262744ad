"""#29 item 2: a password reset did not end the account's sessions (a stolen cookie outlived the fix), sessions had
no absolute lifetime (one used every 7 hours lived 210 hours), and the sessions table was never cleaned.

A reset, a lower role and a disable now end every session of the account in the same transaction; a session
ends after XIAOE_SESSION_MAX_HOURS (default 7 days) however active; rows ended more than a day ago are deleted.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from core.cli import main
from core.errors import ConfigError, SessionExpired
from core.settings import Settings
from core.stores.sessions import SessionStore, sessions
from tests.auth_helpers import PASSWORD, Clock, add_staff, make_accounts

NEW_PASSWORD = "another secret 7"


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def signer(database_url, clock):
    accounts = make_accounts(database_url, clock)
    add_staff(accounts)
    yield SessionStore(accounts, now=clock)
    accounts.db.dispose()


def live_sessions(signer, username: str) -> int:
    with signer.db.read() as conn:
        return conn.execute(select(func.count()).select_from(sessions).where(
            sessions.c.username == username, sessions.c.ended_at.is_(None))).scalar_one()


def test_29_02_password_reset_ends_every_session_of_the_account(signer):
    first, second = signer.sign_in("amy", PASSWORD), signer.sign_in("amy", PASSWORD)
    other = signer.sign_in("boss", PASSWORD)
    signer.accounts.set_password("amy", NEW_PASSWORD, actor="boss")
    assert live_sessions(signer, "amy") == 0
    for session in (first, second):
        with pytest.raises(SessionExpired, match="密码已被重设"):
            signer.resume(session.token)
    assert signer.resume(other.token).user.username == "boss"


def test_29_02_password_reset_refuses_the_old_session_inside_a_change(signer):
    session = signer.sign_in("boss", PASSWORD)
    guard = signer.guard(session.token)
    signer.accounts.set_password("boss", NEW_PASSWORD, actor="命令行")
    with signer.db.transaction() as conn, pytest.raises(SessionExpired):
        guard(conn, "manage_accounts")


def test_29_02_cli_passwd_ends_the_sessions(signer, database_url, monkeypatch):
    session = signer.sign_in("amy", PASSWORD)
    monkeypatch.setenv("XIAOE_DATABASE_URL", database_url)
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO(NEW_PASSWORD + "\n"))
    assert main(["users", "passwd", "amy", "--password-stdin"]) == 0
    with pytest.raises(SessionExpired):
        signer.resume(session.token)


def test_29_02_a_lower_role_ends_the_sessions_a_higher_one_does_not(signer):
    signer.accounts.add("chief", PASSWORD, actor="test", role="admin")
    chief, amy = signer.sign_in("chief", PASSWORD), signer.sign_in("amy", PASSWORD)
    signer.accounts.set_role("amy", "admin", actor="boss")
    assert signer.resume(amy.token).user.role == "admin"
    signer.accounts.set_role("chief", "consultant", actor="boss")
    assert live_sessions(signer, "chief") == 0
    with pytest.raises(SessionExpired, match="角色"):
        signer.resume(chief.token)


def test_29_02_disable_ends_the_sessions_at_once(signer):
    signer.sign_in("amy", PASSWORD)
    signer.accounts.set_disabled("amy", True, actor="boss")
    assert live_sessions(signer, "amy") == 0  # ended in the disable itself, not at the next resume


def test_29_02_an_active_session_ends_after_its_absolute_lifetime(signer, clock):
    session = signer.sign_in("amy", PASSWORD)
    for _ in range(23):  # used every 7 hours: never idle, 161 hours old
        clock.advance(hours=7)
        assert signer.resume(session.token).user.username == "amy"
    clock.advance(hours=7, seconds=1)  # 168 hours and a second
    with pytest.raises(SessionExpired, match="7 天"):
        signer.resume(session.token)
    with pytest.raises(SessionExpired):
        signer.resume(session.token)


def test_29_02_the_guard_refuses_a_session_past_its_lifetime(signer, clock):
    session = signer.sign_in("boss", PASSWORD)
    clock.advance(days=7, seconds=1)
    with signer.db.transaction() as conn:  # kept active all along: not idle, only old
        conn.execute(sessions.update().values(last_seen=clock.now))
    with signer.db.transaction() as conn, pytest.raises(SessionExpired, match="没有保存"):
        signer.guard(session.token)(conn, "manage_accounts")


def test_29_02_the_lifetime_is_a_setting(signer, clock):
    short = SessionStore(signer.accounts, now=clock, absolute_limit=timedelta(hours=2))
    session = short.sign_in("amy", PASSWORD)
    clock.advance(hours=2, seconds=1)
    with pytest.raises(SessionExpired, match="2 小时"):
        short.resume(session.token)
    assert Settings.from_env({}).session_max_hours == 168
    assert Settings.from_env({"XIAOE_SESSION_MAX_HOURS": "12"}).session_max_hours == 12
    with pytest.raises(ConfigError, match="XIAOE_SESSION_MAX_HOURS"):
        Settings.from_env({"XIAOE_SESSION_MAX_HOURS": "0"})


def test_29_02_old_rows_are_deleted(signer, clock):
    signer.sign_out(signer.sign_in("amy", PASSWORD).token)
    signer.sign_in("amy", PASSWORD)  # left open: idle from now on
    clock.advance(days=2)
    fresh = SessionStore(signer.accounts, now=clock)  # another process: its first sign-in purges
    kept = fresh.sign_in("boss", PASSWORD)
    with signer.db.read() as conn:
        left = conn.execute(select(sessions.c.username)).scalars().all()
    assert left == ["boss"]
    assert fresh.resume(kept.token).user.username == "boss"
