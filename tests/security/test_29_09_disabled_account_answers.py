"""#29 item 9: a disabled account answered 「该账号已被停用」 for the right password and 「用户名或密码不正确」 for a wrong
one, so an attacker could tell when a guess was right. Issue #30: the failures before a lock said nothing about it.

A disabled account now answers exactly like a wrong password (same message, counted as a failure, so the lock
comes at the same attempt) and the audit log records each attempt; every wrong password says how many tries are
left before a lock, the same for a name that exists and one that does not.
"""

from __future__ import annotations

import pytest

from core.errors import AccountLocked, AuthError
from core.stores import audit
from core.stores.sessions import BAD_CREDENTIALS, SessionStore
from tests.auth_helpers import PASSWORD, Clock, add_staff, make_accounts

HERE = "198.51.100.7"


@pytest.fixture
def signer(database_url):
    accounts = make_accounts(database_url, Clock())
    add_staff(accounts)
    yield SessionStore(accounts, now=Clock())
    accounts.db.dispose()


def refusal(signer, username: str, password: str, source: str | None = HERE) -> AuthError:
    with pytest.raises(AuthError) as error:
        signer.sign_in(username, password, source=source)
    return error.value


def test_29_09_disabled_account_right_and_wrong_password_answer_the_same(signer):
    signer.accounts.set_disabled("amy", True, actor="boss")
    right = refusal(signer, "amy", PASSWORD)
    wrong = refusal(signer, "amy", "wrong password", source="192.0.2.1")  # another source: same count left
    assert type(right) is type(wrong) is AuthError
    assert str(right) == str(wrong)
    assert str(right).startswith(BAD_CREDENTIALS) and "停用" not in str(right)


def test_29_09_disabled_account_right_password_counts_toward_the_lock(signer):
    signer.accounts.set_disabled("amy", True, actor="boss")
    for _ in range(5):
        refusal(signer, "amy", PASSWORD)
    assert isinstance(refusal(signer, "amy", PASSWORD), AccountLocked)


def test_29_09_disabled_account_attempts_are_audited(signer):
    signer.accounts.set_disabled("amy", True, actor="boss")
    refusal(signer, "amy", PASSWORD)
    refusal(signer, "amy", "wrong password")
    details = [e.detail for e in audit.recent(signer.db, action="login_disabled", target="amy")]
    assert len(details) == 2 and any("密码正确" in d for d in details) and any("密码错误" in d for d in details)


def test_29_09_each_failure_says_how_many_tries_are_left(signer):
    said = [str(refusal(signer, "boss", f"wrong password {n}")) for n in range(5)]
    assert all(s.startswith(BAD_CREDENTIALS) for s in said)
    assert [n for n in (4, 3, 2, 1) if f"再输错 {n} 次" in said[4 - n]] == [4, 3, 2, 1]
    assert "锁定 10 分钟" in said[4]


def test_29_09_tries_left_do_not_tell_whether_the_name_exists(signer):
    for n in range(5):
        known = str(refusal(signer, "boss", f"wrong password {n}"))
        unknown = str(refusal(signer, "no.such.person", f"wrong password {n}"))
        assert known == unknown


def test_29_09_unknown_source_says_when_the_waits_begin(signer):
    said = [str(refusal(signer, "boss", f"wrong password {n}", source=None)) for n in range(5)]
    assert "再输错 4 次后" in said[0] and "等" in said[4]
