"""#16 "also": with the database locked by another program, a failed sign-in said 「记录登录失败失败」."""

from __future__ import annotations

import sqlite3

import pytest

from core.errors import StoreError
from core.stores.accounts import AccountStore
from core.stores.db import Database
from core.stores.sessions import SessionStore
from tests.auth_helpers import FAST_HASHER, add_staff


def test_locked_database_message_reads_once(tmp_path):
    path = tmp_path / "xiaoe.sqlite3"
    store = AccountStore(Database(f"sqlite:///{path}", busy_timeout_ms=50), hasher=FAST_HASHER)
    add_staff(store)
    signer = SessionStore(store)  # tables created before the other program takes the lock
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another program holds the write lock
    try:
        with pytest.raises(StoreError) as error:
            signer.sign_in("amy", "wrong password 1")
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert "数据库正被其他程序占用" in str(error.value) and "失败失败" not in str(error.value)
