"""#29 item 4: approving and rejecting one glossary proposal at once both reported success (PostgreSQL 7/8), once
leaving it 「已驳回」 with its synonym live; two admins demoting each other at once left no admin (SQLite 6/15,
PostgreSQL 11/15) when no session was passed.

Both are now one locked, conditional change: the proposal row is locked and closed only `WHERE status='pending'`,
the usable admins' rows are locked before anything is counted (BEGIN IMMEDIATE on SQLite), and the loser gets a
Chinese conflict message. Each race makes the two threads meet just before their writes (tests/db_race.py), on
the session-guarded path (the pages) and the unguarded one (CLI, API), on both engines.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from core.answerability.glossary import InvalidGlossary
from core.errors import ConflictError, XiaoEError
from core.stores.accounts import AccountStore
from core.stores.db import Database, utcnow
from core.stores.glossary import glossary_entries
from core.stores.glossary_admin import GlossaryAdmin, glossary_proposals
from core.stores.roles import User
from core.stores.sessions import SessionStore
from tests.auth_helpers import FAST_HASHER, PASSWORD
from tests.db_race import MeetBefore, race

PATHS = ("unguarded", "guarded")


@pytest.fixture
def db(database_url):
    db = Database(database_url, busy_timeout_ms=20_000)
    yield db
    db.dispose()


def successes(outcomes) -> list[object]:
    return [o for o in outcomes if not isinstance(o, BaseException)]


@pytest.mark.parametrize("path", PATHS)
def test_29_04_approve_and_reject_of_one_proposal_one_wins(db, path):
    accounts = AccountStore(db, hasher=FAST_HASHER)
    for name in ("boss", "chief"):
        accounts.add(name, PASSWORD, actor="test", role="admin")
    glossary = GlossaryAdmin(db)
    proposal = glossary.propose(User("amy", "顾问 Amy", "consultant"), "退费", "退钱呀").proposal_id
    boss, chief = User("boss", "boss", "admin"), User("chief", "chief", "admin")
    signer = SessionStore(accounts)
    guards = ([signer.guard(signer.sign_in(n, PASSWORD).token) for n in ("boss", "chief")]
              if path == "guarded" else [None, None])

    with MeetBefore(db.engine, r"^\s*UPDATE glossary_proposals"):
        outcomes = race(lambda: glossary.approve(boss, proposal, authorize=guards[0]),
                        lambda: glossary.reject(chief, proposal, authorize=guards[1]))

    assert len(successes(outcomes)) == 1, outcomes
    (loser,) = [o for o in outcomes if isinstance(o, BaseException)]
    assert isinstance(loser, ConflictError) and isinstance(loser, InvalidGlossary), repr(loser)
    assert "没有保存" in str(loser)
    (status,) = [p.status for p in glossary.proposals(status=None) if p.id == proposal]
    with db.read() as conn:
        live = conn.execute(select(glossary_entries.c.id).where(glossary_entries.c.synonym == "退钱呀")).first()
    assert (status, live is not None) in {("approved", True), ("rejected", False)}


@pytest.mark.parametrize("path", PATHS)
def test_29_04_two_proposals_of_one_pair_approved_at_once_add_it_once(db, path):
    accounts = AccountStore(db, hasher=FAST_HASHER)
    for name in ("boss", "chief"):
        accounts.add(name, PASSWORD, actor="test", role="admin")
    glossary = GlossaryAdmin(db)
    first = glossary.propose(User("amy", "amy", "consultant"), "退费", "退钱呀").proposal_id
    with db.transaction() as conn:  # a second proposal of the same pair (`propose` merges them; older rows may not be)
        second = conn.execute(glossary_proposals.insert().values(term="退费", synonym="退钱呀", who="bob", at=utcnow(),
                                                                 status="pending")).inserted_primary_key[0]
    signer = SessionStore(accounts)
    guards = ([signer.guard(signer.sign_in(n, PASSWORD).token) for n in ("boss", "chief")]
              if path == "guarded" else [None, None])
    with MeetBefore(db.engine, r"^\s*INSERT INTO glossary_entries"):
        outcomes = race(lambda: glossary.approve(User("boss", "boss", "admin"), first, authorize=guards[0]),
                        lambda: glossary.approve(User("chief", "chief", "admin"), second, authorize=guards[1]))
    assert len(successes(outcomes)) == 2, outcomes
    assert [e.synonym for e in glossary.load().entries].count("退钱呀") == 1


@pytest.mark.parametrize("path", PATHS)
def test_29_04_two_admins_demoting_each_other_leave_one_admin(db, path):
    accounts = AccountStore(db, hasher=FAST_HASHER)
    for name in ("ann", "ben"):
        accounts.add(name, PASSWORD, actor="test", role="admin")
    accounts.add("amy", PASSWORD, actor="test")
    signer = SessionStore(accounts)
    guards = ([signer.guard(signer.sign_in(n, PASSWORD).token) for n in ("ann", "ben")]
              if path == "guarded" else [None, None])

    with MeetBefore(db.engine, r"^\s*UPDATE accounts SET role"):
        outcomes = race(lambda: accounts.set_role("ben", "consultant", actor="ann", authorize=guards[0]),
                        lambda: accounts.set_role("ann", "consultant", actor="ben", authorize=guards[1]))

    admins = [a.username for a in accounts.list() if a.role == "admin" and not a.disabled]
    assert len(admins) == 1, (admins, outcomes)
    assert len(successes(outcomes)) == 1
    (loser,) = [o for o in outcomes if isinstance(o, BaseException)]
    assert isinstance(loser, XiaoEError) and any(word in str(loser) for word in ("最后一个", "登录已失效", "停用"))
    (loser,) = [o for o in outcomes if isinstance(o, BaseException)]
    assert isinstance(loser, XiaoEError) and any(word in str(loser) for word in ("最后一个", "登录已失效", "不能管理账号"))


@pytest.mark.parametrize("path", PATHS)
def test_29_04_two_admins_disabling_each_other_leave_one_admin(db, path):
    accounts = AccountStore(db, hasher=FAST_HASHER)
    for name in ("ann", "ben"):
        accounts.add(name, PASSWORD, actor="test", role="admin")
    signer = SessionStore(accounts)
    guards = ([signer.guard(signer.sign_in(n, PASSWORD).token) for n in ("ann", "ben")]
              if path == "guarded" else [None, None])

    with MeetBefore(db.engine, r"^\s*UPDATE accounts SET disabled"):
        outcomes = race(lambda: accounts.set_disabled("ben", True, actor="ann", authorize=guards[0]),
                        lambda: accounts.set_disabled("ann", True, actor="ben", authorize=guards[1]))

    admins = [a.username for a in accounts.list() if a.role == "admin" and not a.disabled]
    assert len(admins) == 1, (admins, outcomes)
    assert len(successes(outcomes)) == 1
    (loser,) = [o for o in outcomes if isinstance(o, BaseException)]
    assert isinstance(loser, XiaoEError) and any(word in str(loser) for word in ("最后一个", "登录已失效", "停用"))
