"""#16 failure 1: parallel sign-ins could get past the lockout (39 wrong passwords were all checked).

The lock check, the password check and the failure count are now one transaction holding the
throttle rows, so however many attempts run at once, at most 5 wrong passwords are checked
before the lock, and the right password that comes after them is refused while locked.
"""

from __future__ import annotations

import threading

from sqlalchemy import func, select

from core.errors import AccountLocked, AuthError
from core.stores import audit
from core.stores.accounts import AccountStore
from core.stores.db import Database
from core.stores.sessions import MAX_FAILURES, SessionStore, sessions
from tests.auth_helpers import PASSWORD, add_staff
from tests.security.helpers import CountingHasher

ATTEMPTS = 40


def test_parallel_logins_check_at_most_five_wrong_passwords(db_url):
    hasher = CountingHasher()
    db = Database(db_url, busy_timeout_ms=60_000)
    store = AccountStore(db, hasher=hasher)
    add_staff(store)
    hasher.checked = 0
    signer = SessionStore(store)
    start = threading.Barrier(ATTEMPTS)
    outcomes: dict[int, BaseException | str] = {}

    def attempt(n: int) -> None:
        start.wait()
        right = n == ATTEMPTS - 1
        if right:  # goes in once the fifth wrong password has been checked
            hasher.reached(MAX_FAILURES).wait(timeout=60)
        try:
            signer.sign_in("amy", PASSWORD if right else f"wrong password {n}")
            outcomes[n] = "signed in"
        except AuthError as error:
            outcomes[n] = error

    threads = [threading.Thread(target=attempt, args=(n,)) for n in range(ATTEMPTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert hasher.checked <= MAX_FAILURES
    assert isinstance(outcomes[ATTEMPTS - 1], AccountLocked)
    assert all(isinstance(o, AuthError) for o in outcomes.values())  # no StoreError, nobody signed in
    with db.read() as conn:
        assert conn.execute(select(func.count()).select_from(sessions)).scalar_one() == 0
    assert len(audit.recent(db, action="login_locked", target="amy")) == 1
    db.dispose()
