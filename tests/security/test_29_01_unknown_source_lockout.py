"""#29 item 1: behind the documented proxy (no client address) 20 wrong sign-ins under any names locked the one
shared source for 10 minutes and refused the real admin; no command lifted it.

An unknown source now never gets a source-wide lock: a user name tried from unknown sources slows down (1, 2,
4 … 60 seconds between retries) instead of locking; `users unlock --source` lifts a source lock and `users unlock
--list` lists locks. X-Forwarded-For from a trusted proxy: tests/security/test_29_01_trusted_proxy.py.
"""

from __future__ import annotations

import pytest

from core.cli import main
from core.errors import AccountLocked, AuthError
from core.stores.accounts import AccountStore
from core.stores.db import Database
from core.stores.sessions import SessionStore
from tests.auth_helpers import FAST_HASHER, PASSWORD, Clock, add_staff

ATTACKER, OWNER = "203.0.113.9", "198.51.100.7"


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def signer(database_url, clock):
    store = AccountStore(Database(database_url), hasher=FAST_HASHER, now=clock)
    add_staff(store)
    yield SessionStore(store, now=clock)
    store.db.dispose()


def test_29_01_twenty_random_names_from_an_unknown_source_do_not_block_the_admin(signer):
    for i in range(20):
        with pytest.raises(AuthError):
            signer.sign_in(f"nobody{i}", "wrong-password-x", source=None)
    assert signer.sign_in("boss", PASSWORD, source=None).user.username == "boss"


def test_29_01_many_random_names_from_an_unknown_source_never_lock_it(signer):
    for i in range(60):
        with pytest.raises(AuthError) as error:
            signer.sign_in(f"guess{i}", "wrong-password-x", source=None)
        assert not isinstance(error.value, AccountLocked)
    assert signer.sign_in("amy", PASSWORD).user.username == "amy"


def test_29_01_one_name_from_an_unknown_source_slows_down_instead_of_locking(signer, clock):
    for _ in range(5):
        with pytest.raises(AuthError):
            signer.sign_in("boss", "wrong-password-x")
    with pytest.raises(AccountLocked, match="秒后再试"):
        signer.sign_in("boss", PASSWORD)  # at once: must wait a second
    clock.advance(seconds=1)
    assert signer.sign_in("boss", PASSWORD).user.username == "boss"


def test_29_01_unknown_source_waits_double_and_are_capped(signer, clock):
    waits = []
    for _ in range(12):
        with pytest.raises(AuthError):
            signer.sign_in("boss", "wrong-password-x")
        until = signer.locked_until("boss")
        waits.append(round((until - clock.now).total_seconds()) if until else 0)
        clock.advance(seconds=waits[-1])
    assert waits == [0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 60, 60]


def test_29_01_a_known_source_still_locks_for_ten_minutes(signer, clock):
    for _ in range(5):
        with pytest.raises(AuthError):
            signer.sign_in("boss", "wrong-password-x", source=ATTACKER)
    clock.advance(minutes=9)
    with pytest.raises(AccountLocked, match="锁定 10 分钟"):
        signer.sign_in("boss", PASSWORD, source=ATTACKER)
    assert signer.sign_in("boss", PASSWORD, source=OWNER).user.username == "boss"


def test_29_01_cli_lists_and_lifts_a_source_lock(signer, database_url, monkeypatch, capsys):
    signer = SessionStore(signer.accounts)  # the real clock, as the command has
    for i in range(20):
        with pytest.raises(AuthError):
            signer.sign_in(f"guess{i}", "wrong-password-x", source=ATTACKER)
    with pytest.raises(AccountLocked, match="网络地址"):
        signer.sign_in("boss", PASSWORD, source=ATTACKER)
    monkeypatch.setenv("XIAOE_DATABASE_URL", database_url)
    assert main(["users", "unlock", "--list"]) == 0
    listing = capsys.readouterr().out
    assert ATTACKER in listing and "来源" in listing
    assert main(["users", "unlock", "--source", ATTACKER]) == 0
    assert "已解除" in capsys.readouterr().out
    assert signer.locks() == ()
    assert signer.sign_in("boss", PASSWORD, source=ATTACKER).user.username == "boss"
