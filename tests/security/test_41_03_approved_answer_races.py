"""#41 finding 3: approved answers were select-then-write with no lock and no unique key. On PostgreSQL two items of
one question approved at once left two active approved answers (2/6 on the page path, 5/6 in core); two retires of
one answer both succeeded with two history rows (also on SQLite without a session, whose leading SELECT ran
outside any transaction); a retire and 「这是同一个问题」 at once linked a wording to a retired answer.

Now one answer in use per question is a partial unique index (migration 4 of `approved_answers`, both engines) and
the insert goes through it; retire and link lock the answer's row (FOR UPDATE; BEGIN IMMEDIATE on SQLite) and the
retire's UPDATE carries the state as a condition. Each race makes two real sessions meet inside their transactions
(tests/db_race.py), on the session-guarded path (the pages) and the unguarded one (core, CLI), on both engines.
"""

from __future__ import annotations

import re
import threading
from datetime import UTC, datetime

import pytest
from sqlalchemy import event, func, select

from core.errors import InvalidReview, StoreError
from core.stores import db as core_db
from core.stores.accounts import AccountStore
from core.stores.approved import APPROVED_SCHEMA, ApprovedStore, approved_answers, approved_history
from core.stores.db import Database, Schema
from core.stores.review import ReviewStore
from core.stores.roles import User
from core.stores.sessions import SessionStore
from tests.auth_helpers import FAST_HASHER, PASSWORD
from tests.db_race import MeetBefore, race
from tests.stores.test_approved import answer

ADMIN, CHIEF, CONSULTANT = User("boss", "王校长", "admin"), User("chief", "李主任", "admin"), User("amy", "李老师",
                                                                                             "consultant")
PATHS = ("unguarded", "guarded")


@pytest.fixture
def db(database_url):
    db = Database(database_url, busy_timeout_ms=20_000)
    yield db
    db.dispose()


def guards(db: Database, path: str, *names: str) -> list:
    if path == "unguarded":
        return [None] * len(names)
    accounts = AccountStore(db, hasher=FAST_HASHER)
    signer = SessionStore(accounts)
    out = []
    for name in names:
        if accounts.find(name) is None:
            accounts.add(name, PASSWORD, actor="test", role="admin")
        out.append(signer.guard(signer.sign_in(name, PASSWORD).token))
    return out


def live_answers(db: Database) -> int:
    with db.read() as conn:
        return conn.execute(select(func.count()).select_from(approved_answers)
                            .where(approved_answers.c.status != "retired")).scalar_one()


def one_answer(db: Database) -> int:
    review = ReviewStore(db)
    item = review.enqueue(answer("三级学费多少", "三级学费 4800 元[1]。"), origin="manual", flagged_by="李老师",
                          fingerprint="fp")
    review.decide(item, action="approve", reviewer="李老师", expected_version=1)
    (found,) = ApprovedStore(db).list()
    return found.id


@pytest.mark.parametrize("path", PATHS)
def test_41_03_two_items_of_one_question_approved_at_once_leave_one_answer(db, path):
    review, approved = ReviewStore(db), ApprovedStore(db)
    items = [review.enqueue(answer(q, "三级学费 4800 元[1]。"), origin="manual", flagged_by="李老师", fingerprint="fp")
             for q in ("三级学费多少", "三级学费多少？")]  # two manual flags: never merged into one item
    first, second = guards(db, path, "boss", "chief")

    with MeetBefore(db.engine, r"^\s*INSERT INTO approved_answers"):
        outcomes = race(
            lambda: review.decide(items[0], action="approve", reviewer="李老师", expected_version=1, authorize=first),
            lambda: review.decide(items[1], action="approve", reviewer="张老师", expected_version=1, authorize=second))

    assert not [o for o in outcomes if isinstance(o, BaseException)], outcomes
    assert live_answers(db) == 1
    (found,) = approved.list()
    assert found.version == 2 and [h["action"] for h in approved.history(found.id)] == ["approve", "approve"]


def test_41_03_the_database_refuses_a_second_answer_in_use_for_one_question(db):
    answer_id = one_answer(db)
    with db.read() as conn:
        row = conn.execute(select(approved_answers).where(approved_answers.c.id == answer_id)).one()
    copy = {k: v for k, v in row._mapping.items() if k != "id"}
    with pytest.raises(StoreError):
        with db.transaction() as conn:
            conn.execute(approved_answers.insert().values(**copy))
    with db.transaction() as conn:  # a retired one may share the question: answers are never deleted
        conn.execute(approved_answers.insert().values(**{**copy, "status": "retired"}))
    assert live_answers(db) == 1


def test_41_03_migration_four_retires_the_extra_answers_races_left_behind(database_url):
    from core.stores.approved import live_key

    first = Database(database_url)
    first.migrate(Schema(APPROVED_SCHEMA.component, APPROVED_SCHEMA.migrations[:3]))  # the schema before the fix
    with first.transaction() as conn:
        live_key.drop(conn)  # migration 1 of this code creates it; the old schema had none
        base = {"question": "三级学费多少", "question_key": "k" * 64, "text": "4800 元[1]。", "status": "active",
                "approver": "李老师", "fingerprint": "fp", "override": "", "uses": 0, "item_id": None}
        for day, version in ((1, 1), (3, 2), (2, 1)):
            conn.execute(approved_answers.insert().values(**base, version=version,
                                                          approved_at=datetime(2026, 1, day, tzinfo=UTC)))
    first.dispose()
    core_db._databases.pop(database_url, None)
    db = Database(database_url)
    approved = ApprovedStore(db)  # opening applies migration 4
    kept = [a for a in approved.list() if a.status != "retired"]
    assert [(a.id, a.version) for a in kept] == [(2, 2)]  # the most recently approved one
    assert [h["actor"] for a in approved.list(status="retired") for h in approved.history(a.id)] == ["小E", "小E"]
    db.dispose()


@pytest.mark.parametrize("path", PATHS)
def test_41_03_two_retires_of_one_answer_exactly_one_succeeds(db, path):
    approved = ApprovedStore(db)
    answer_id = one_answer(db)
    first, second = guards(db, path, "boss", "chief")

    with MeetBefore(db.engine, r"^\s*UPDATE approved_answers"):
        outcomes = race(lambda: approved.retire(ADMIN, answer_id, authorize=first),
                        lambda: approved.retire(CHIEF, answer_id, authorize=second))

    losers = [o for o in outcomes if isinstance(o, BaseException)]
    assert len(losers) == 1 and isinstance(losers[0], InvalidReview), outcomes
    assert "已经停用" in str(losers[0])
    with db.read() as conn:
        actions = conn.execute(select(approved_history.c.action).where(approved_history.c.answer_id == answer_id)
                               .order_by(approved_history.c.id)).scalars().all()
    assert actions == ["approve", "retire"]


class HoldBefore:
    """Hold the first statement matching `pattern` (in any thread) until `release` is set or `timeout` passes: the
    other transaction runs to its end meanwhile, unless a lock the held one took makes it wait (the fixed code)."""

    def __init__(self, engine, pattern: str, release: threading.Event, *, timeout: float = 2.0) -> None:
        self.engine, self.pattern, self.release, self.timeout = engine, re.compile(pattern, re.I), release, timeout
        self.held = threading.Event()

    def _before(self, conn, cursor, statement, parameters, context, executemany) -> None:
        if not self.held.is_set() and self.pattern.search(statement):
            self.held.set()
            self.release.wait(self.timeout)

    def __enter__(self) -> HoldBefore:
        event.listen(self.engine, "before_cursor_execute", self._before)
        return self

    def __exit__(self, *_exc) -> None:
        event.remove(self.engine, "before_cursor_execute", self._before)


@pytest.mark.parametrize("path", PATHS)
def test_41_03_a_wording_is_never_linked_to_an_answer_retired_meanwhile(db, path):
    approved = ApprovedStore(db)
    answer_id = one_answer(db)
    admin_guard, consultant_guard = guards(db, path, "boss", "amy")
    retired, linked = threading.Event(), []

    def link() -> None:
        linked.append(_attempt(lambda: approved.link_question(CONSULTANT, answer_id, "三级课程收费标准",
                                                              authorize=consultant_guard)))

    with HoldBefore(db.engine, r"^\s*INSERT INTO approved_questions", retired) as hold:
        linking = threading.Thread(target=link)
        linking.start()
        assert hold.held.wait(30)  # the link has read the answer (in use) and is about to write its wording
        retiring = _attempt(lambda: approved.retire(ADMIN, answer_id, authorize=admin_guard))
        retired.set()
        linking.join(timeout=30)

    assert not isinstance(retiring, BaseException), retiring
    with db.read() as conn:
        actions = conn.execute(select(approved_history.c.action).where(approved_history.c.answer_id == answer_id)
                               .order_by(approved_history.c.id)).scalars().all()
    # the link holds the answer's row, so the retire waits for it: the wording went in while the answer was in use
    assert actions == ["approve", "link", "retire"], (actions, linked)
    assert approved.get(answer_id).status == "retired"


def _attempt(call):
    try:
        return call()
    except Exception as error:  # noqa: BLE001 - the test inspects it
        return error
