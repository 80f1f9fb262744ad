"""Sessions: one message for bad credentials, lockout after 5 failures in 10 minutes (from a known source), 8-hour idle
expiry, SSO. Unknown sources (the CLI, localhost) slow down instead: see tests/security/test_29_01_unknown_source_lockout.py."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import text

from core.errors import AccountLocked, AuthError, SessionExpired
from core.stores import audit
from core.stores.sessions import BAD_CREDENTIALS, SessionStore
from tests.auth_helpers import PASSWORD, Clock, add_staff, make_accounts


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def sessions(database_url, clock):
    accounts = make_accounts(database_url, clock)
    add_staff(accounts)
    yield SessionStore(accounts, now=clock)
    accounts.db.dispose()


HERE = "198.51.100.7"  # a client address Streamlit reported: its failures lock, an unknown source's only slow down


def fail(sessions, username="amy", times=1):
    for _ in range(times):
        with pytest.raises(AuthError):
            sessions.sign_in(username, "wrong password", source=HERE)


def test_sessions_sign_in_returns_user_with_role(sessions):
    session = sessions.sign_in("Amy", PASSWORD)
    assert (session.user.username, session.user.role, session.user.display_name) == ("amy", "consultant", "顾问 Amy")


def test_sessions_wrong_password_and_unknown_user_same_message(sessions):
    with pytest.raises(AuthError) as wrong:
        sessions.sign_in("amy", "wrong password")
    with pytest.raises(AuthError) as unknown:
        sessions.sign_in("nobody", "wrong password")
    assert str(wrong.value) == str(unknown.value)
    assert str(wrong.value).startswith(BAD_CREDENTIALS)


def test_sessions_four_failures_do_not_lock(sessions):
    fail(sessions, times=4)
    assert sessions.sign_in("amy", PASSWORD, source=HERE).user.username == "amy"


def test_sessions_five_failures_lock_even_the_right_password(sessions, clock):
    fail(sessions, times=5)
    with pytest.raises(AccountLocked, match="锁定 10 分钟"):
        sessions.sign_in("amy", PASSWORD, source=HERE)
    assert sessions.locked_until("amy", source=HERE) == clock.now + timedelta(minutes=10)


def test_sessions_lock_lifts_after_ten_minutes(sessions, clock):
    fail(sessions, times=5)
    clock.advance(minutes=9, seconds=59)
    with pytest.raises(AccountLocked):
        sessions.sign_in("amy", PASSWORD, source=HERE)
    clock.advance(seconds=1)
    assert sessions.sign_in("amy", PASSWORD, source=HERE).user.username == "amy"


def test_sessions_failures_older_than_ten_minutes_do_not_count(sessions, clock):
    fail(sessions, times=4)
    clock.advance(minutes=10, seconds=1)
    fail(sessions, times=4)
    assert sessions.sign_in("amy", PASSWORD, source=HERE).user.username == "amy"


def test_sessions_success_resets_the_failure_count(sessions):
    fail(sessions, times=4)
    sessions.sign_in("amy", PASSWORD, source=HERE)
    fail(sessions, times=4)
    assert sessions.sign_in("amy", PASSWORD, source=HERE).user.username == "amy"


def test_sessions_lock_is_stored_in_the_database(sessions, database_url, clock):
    fail(sessions, times=5)
    again = SessionStore(make_accounts(database_url, clock), now=clock)  # a restarted server
    with pytest.raises(AccountLocked):
        again.sign_in("amy", PASSWORD, source=HERE)
    again.accounts.db.dispose()


def test_sessions_lock_is_per_user_name(sessions):
    fail(sessions, "amy", times=5)
    assert sessions.sign_in("boss", PASSWORD, source=HERE).user.username == "boss"


def test_sessions_unknown_names_lock_too_so_locks_do_not_reveal_accounts(sessions):
    fail(sessions, "nobody", times=5)
    with pytest.raises(AccountLocked):
        sessions.sign_in("nobody", "wrong password", source=HERE)


def test_sessions_lock_is_audited_for_the_account(sessions):
    fail(sessions, times=5)
    (entry,) = audit.recent(sessions.db, action="login_locked")
    assert (entry.actor, entry.target) == ("小E", "amy")


def test_sessions_unlock_lifts_the_lock(sessions):
    fail(sessions, times=5)
    sessions.unlock("amy", actor="boss")
    assert sessions.sign_in("amy", PASSWORD, source=HERE).user.username == "amy"


def test_sessions_disabled_account_cannot_sign_in_and_says_only_wrong_password(sessions):
    sessions.accounts.set_disabled("amy", True, actor="boss")
    with pytest.raises(AuthError, match=BAD_CREDENTIALS):
        sessions.sign_in("amy", PASSWORD)


def test_sessions_disabled_account_with_wrong_password_gets_the_generic_message(sessions):
    sessions.accounts.set_disabled("amy", True, actor="boss")
    with pytest.raises(AuthError, match=BAD_CREDENTIALS):
        sessions.sign_in("amy", "wrong password")


def test_sessions_resume_within_idle_limit(sessions, clock):
    session = sessions.sign_in("amy", PASSWORD)
    clock.advance(hours=7, minutes=59)
    assert sessions.resume(session.token).user.username == "amy"


def test_sessions_expire_after_eight_hours_idle(sessions, clock):
    session = sessions.sign_in("amy", PASSWORD)
    clock.advance(hours=8, seconds=1)
    with pytest.raises(SessionExpired, match="8 小时"):
        sessions.resume(session.token)
    clock.advance(seconds=1)
    with pytest.raises(SessionExpired):  # an ended session stays ended
        sessions.resume(session.token)


def test_sessions_activity_extends_the_idle_limit(sessions, clock):
    session = sessions.sign_in("amy", PASSWORD)
    for _ in range(3):
        clock.advance(hours=5)
        sessions.resume(session.token)
    assert sessions.resume(session.token).user.username == "amy"


def test_sessions_sign_out_ends_the_session(sessions):
    session = sessions.sign_in("amy", PASSWORD)
    sessions.sign_out(session.token)
    with pytest.raises(SessionExpired):
        sessions.resume(session.token)


def test_sessions_disabling_an_account_ends_its_sessions(sessions):
    session = sessions.sign_in("amy", PASSWORD)
    sessions.accounts.set_disabled("amy", True, actor="boss")
    with pytest.raises(SessionExpired, match="停用"):
        sessions.resume(session.token)


def test_sessions_role_change_applies_at_next_rerun(sessions):
    session = sessions.sign_in("amy", PASSWORD)
    sessions.accounts.set_role("amy", "admin", actor="boss")
    assert sessions.resume(session.token).user.role == "admin"


def test_sessions_forged_token_is_refused(sessions):
    sessions.sign_in("amy", PASSWORD)
    with pytest.raises(SessionExpired):
        sessions.resume("not-a-token")


def test_sessions_token_is_stored_only_as_a_hash(sessions):
    session = sessions.sign_in("amy", PASSWORD)
    with sessions.accounts.db.read() as conn:
        rows = list(conn.execute(text("SELECT token_hash FROM sessions")).scalars())
    assert rows and all(session.token not in h for h in rows)
    assert session.token not in repr(session)


def test_sessions_sign_in_updates_last_login(sessions, clock):
    sessions.sign_in("amy", PASSWORD)
    assert sessions.accounts.get("amy").last_login_at == clock.now


@pytest.mark.parametrize("email", ["boss@qiming.example", "BOSS@Qiming.Example"])
def test_sessions_sso_maps_email_to_account(sessions, email):
    assert sessions.sign_in_sso(email, email_verified=True).user.username == "boss"


def test_sessions_sso_unknown_email_denied_with_clear_message(sessions):
    with pytest.raises(AuthError, match="没有对应的账号"):
        sessions.sign_in_sso("stranger@qiming.example")


def test_sessions_sso_unverified_email_denied(sessions):
    with pytest.raises(AuthError, match="尚未验证"):
        sessions.sign_in_sso("boss@qiming.example", email_verified=False)


def test_sessions_sso_disabled_account_denied(sessions):
    sessions.accounts.set_role("amy", "admin", actor="test")
    sessions.accounts.set_disabled("boss", True, actor="amy")
    with pytest.raises(AuthError, match="停用"):
        sessions.sign_in_sso("boss@qiming.example")
