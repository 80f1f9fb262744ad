"""#41 finding 7: on SQLite an anonymous sign-in held the database's write lock while argon2 ran (the lock check, the
password check and the failure count were one BEGIN IMMEDIATE transaction), so 4 anonymous loops made 2 of 9 staff
writes fail with 「数据库正被其他程序占用」.

A sign-in is now two short transactions around the password check (core/stores/sessions.py, login_throttle.Guard.admit
/ settle): while argon2 runs, no transaction of the sign-in is open, no row of it is locked, and staff writes go on.
"""

from __future__ import annotations

import random
import sqlite3
import threading

from argon2 import PasswordHasher
from sqlalchemy import create_engine, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from core.errors import AuthError, StoreError
from core.stores.accounts import AccountStore
from core.stores.db import Database
from core.stores.login_throttle import login_guards
from core.stores.review import ReviewStore
from core.stores.sessions import SessionStore
from tests.auth_helpers import PASSWORD, add_staff
from tests.security.helpers import flagged_answer


class ProbingHasher(PasswordHasher):
    """Real argon2id; while it verifies a password, another connection tries to write where the sign-in would
    hold a lock, without waiting: the result of each try is recorded."""

    def __init__(self, url: str) -> None:
        super().__init__(time_cost=1, memory_cost=8, parallelism=1)
        self.url, self.tries = url, []

    def verify(self, hash, password) -> bool:  # noqa: A002 - argon2's parameter name
        self.tries.append(self._write_now())
        return super().verify(hash, password)

    def _write_now(self) -> str:
        parsed = make_url(self.url)
        if parsed.get_backend_name() == "sqlite":
            conn = sqlite3.connect(parsed.database, timeout=0)
            try:
                conn.execute("BEGIN IMMEDIATE")
                conn.execute("ROLLBACK")
                return "wrote"
            except sqlite3.OperationalError as error:
                return str(error)
            finally:
                conn.close()
        engine = create_engine(self.url, poolclass=NullPool)
        try:
            with engine.begin() as conn:
                conn.execute(text("SET LOCAL lock_timeout = '1ms'"))
                conn.execute(select(login_guards).with_for_update())
            return "wrote"
        except Exception as error:  # noqa: BLE001 - the refusal is the finding
            return type(error).__name__
        finally:
            engine.dispose()


def test_41_07_no_lock_is_held_while_argon2_runs(database_url):
    hasher = ProbingHasher(database_url)
    accounts = AccountStore(Database(database_url), hasher=hasher)
    add_staff(accounts)
    signer = SessionStore(accounts)
    for name, password in (("amy", "wrong password 1"), ("nobody", "wrong password 2"), ("amy", PASSWORD)):
        try:
            signer.sign_in(name, password)
        except AuthError:
            pass
    accounts.db.dispose()
    assert hasher.tries == ["wrote"] * 3


def test_41_07_anonymous_sign_in_loops_never_make_staff_writes_fail(database_url):
    hasher = PasswordHasher(time_cost=2, memory_cost=32 * 1024, parallelism=1)  # a real cost: ~tens of ms a check
    signing = Database(database_url, busy_timeout_ms=60_000)
    accounts = AccountStore(signing, hasher=hasher)
    add_staff(accounts)
    signer = SessionStore(accounts)
    staff = ReviewStore(Database(database_url, busy_timeout_ms=1_000))  # a consultant's process: a short wait
    stop, started = threading.Event(), threading.Barrier(5)
    attempts = [0] * 4

    progress = threading.Condition()

    def anonymous(n: int) -> None:
        rng = random.Random(n)
        started.wait()
        while not stop.is_set():
            try:
                signer.sign_in(rng.choice(["boss", "amy", f"guess{rng.randrange(10**6)}"]), f"wrong {rng.random()}")
            except AuthError:
                pass
            with progress:
                attempts[n] += 1
                progress.notify_all()

    loops = [threading.Thread(target=anonymous, args=(n,)) for n in range(4)]
    for loop in loops:
        loop.start()
    started.wait()
    failures = []
    for n in range(9):
        with progress:  # each write lands after one more attempt, while the loops keep signing in
            seen = sum(attempts)
            progress.wait_for(lambda: sum(attempts) > seen, timeout=120)
        try:
            staff.enqueue(flagged_answer(question=f"第 {n} 个问题：退费怎么算？"), origin="manual",
                          flagged_by="李老师", fingerprint="fp")
        except StoreError as error:
            failures.append(str(error))
    stop.set()
    for loop in loops:
        loop.join(timeout=60)
    staff.db.dispose()
    signing.dispose()
    assert sum(attempts) >= 9  # the loops really ran beside the writes
    assert failures == []
