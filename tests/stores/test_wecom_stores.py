"""The WeChat channel's record on both engines, with real concurrent sessions: one instance holds an account's lease,
a page is stored with its cursor only under the lease, a msgid is stored once, a part is planned once and claimed
by one worker, and the budget counts what went out since the student's last message."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from core.stores.db import Database
from core.stores.wecom_inbox import LeaseLost, WeComInbox
from core.stores.wecom_outbox import WeComOutbox
from core.values.wecom import SENT, Inbound, Part
from tests.db_race import MeetBefore, race

START = datetime(2026, 3, 5, 12, 0, tzinfo=UTC)
TTL = timedelta(seconds=30)


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def dbs(database_url):
    made = [Database(database_url), Database(database_url)]
    yield made
    for db in made:
        db.dispose()


def _message(msgid: str, user: str = "u1", at: datetime = START) -> Inbound:
    return Inbound(msgid=msgid, open_kfid="wk1", external_userid=user, origin=3, msgtype="text", send_time=at,
                   content="每节课多长时间？")


def _part(source: str, n: int = 1, user: str = "u1") -> Part:
    return Part("wk1", user, "reply", source, n, 2, f"xer{source}-{n}", f"第 {n} 段")


def test_lease_asked_for_at_once_goes_to_one_instance(dbs):
    clock = Clock()
    first, second = WeComInbox(dbs[0], clock=clock), WeComInbox(dbs[1], clock=clock)
    assert first.take("pull:wk1", "old", TTL)
    clock.now += TTL * 2  # the old holder died: its lease has run out
    with MeetBefore(dbs[0].engine, r"^\s*UPDATE wecom_leases"), MeetBefore(dbs[1].engine, r"^\s*UPDATE wecom_leases"):
        outcomes = race(lambda: first.take("pull:wk1", "a", TTL), lambda: second.take("pull:wk1", "b", TTL))
    assert sorted(outcomes) == [False, True]


def test_lease_is_renewed_by_its_holder_and_taken_only_after_it_runs_out(dbs):
    clock = Clock()
    inbox = WeComInbox(dbs[0], clock=clock)
    assert inbox.take("pull:wk1", "a", TTL) and not inbox.take("pull:wk1", "b", TTL)
    clock.now += TTL / 2
    assert inbox.take("pull:wk1", "a", TTL)  # renewed: another 30 seconds from now
    clock.now += TTL * 0.9
    assert not inbox.take("pull:wk1", "b", TTL)
    clock.now += TTL
    assert inbox.take("pull:wk1", "b", TTL)


def test_page_is_stored_with_its_cursor_only_under_the_lease(dbs):
    clock = Clock()
    inbox = WeComInbox(dbs[0], clock=clock)
    inbox.take("pull:wk1", "a", TTL)
    assert inbox.save_page("wk1", [_message("m1"), _message("m2")], "c2", lease=("pull:wk1", "a"), ttl=TTL) == 2
    clock.now += TTL * 2
    inbox.take("pull:wk1", "b", TTL)  # another instance took over
    with pytest.raises(LeaseLost):
        inbox.save_page("wk1", [_message("m3")], "c3", lease=("pull:wk1", "a"), ttl=TTL)
    assert inbox.cursor("wk1")[0] == "c2"
    assert [p.message.msgid for p in inbox.pending("wk1")] == ["m1", "m2"]


def test_a_replayed_page_stores_nothing_twice(dbs):
    inbox = WeComInbox(dbs[0])
    inbox.take("pull:wk1", "a", TTL)
    page = [_message("m1"), _message("m2")]
    assert inbox.save_page("wk1", page, "c2", lease=("pull:wk1", "a"), ttl=TTL) == 2
    assert inbox.save_page("wk1", [*page, _message("m3")], "c3", lease=("pull:wk1", "a"), ttl=TTL) == 1
    assert len(inbox.pending("wk1")) == 3


def test_a_part_is_planned_once_and_claimed_by_one_worker(dbs):
    first, second = WeComOutbox(dbs[0]), WeComOutbox(dbs[1])
    assert first.plan([_part("s1", 1), _part("s1", 2)]) == 2
    assert second.plan([_part("s1", 1), _part("s1", 2)]) == 0
    due = first.due("wk1")
    assert [s.part.part for s in due] == [1, 2]
    with MeetBefore(dbs[0].engine, r"^\s*UPDATE wecom_sends"), MeetBefore(dbs[1].engine, r"^\s*UPDATE wecom_sends"):
        outcomes = race(lambda: first.claim(due[0].id, TTL), lambda: second.claim(due[0].id, TTL))
    assert sorted(outcomes, key=str) == [1, None]


def test_budget_counts_parts_sent_since_the_students_last_message(dbs):
    clock = Clock()
    inbox, outbox = WeComInbox(dbs[0], clock=clock), WeComOutbox(dbs[0], clock=clock)
    inbox.student_wrote("wk1", "u1", START)
    outbox.plan([_part("s1", n) for n in (1, 2)])
    for send in outbox.due("wk1"):
        clock.now += timedelta(minutes=1)
        outbox.claim(send.id, TTL)
        outbox.finish(send.id, SENT)
    window = outbox.window("wk1", "u1")
    assert (window.used, window.remaining, window.closes_at) == (2, 3, START + timedelta(hours=48))
    inbox.student_wrote("wk1", "u1", clock.now + timedelta(minutes=1))  # a new message: a new window and budget
    clock.now += timedelta(minutes=2)
    assert outbox.window("wk1", "u1").remaining == 5
    clock.now += timedelta(hours=48)
    assert not outbox.window("wk1", "u1").open and outbox.window("wk1", "u1").remaining == 0


def test_an_older_message_does_not_move_the_window_back(dbs):
    inbox, outbox = WeComInbox(dbs[0]), WeComOutbox(dbs[0])
    inbox.student_wrote("wk1", "u1", START)
    inbox.student_wrote("wk1", "u1", START - timedelta(hours=1))
    assert outbox.window("wk1", "u1").last_student_at == START


def test_a_refused_token_is_dropped_only_if_it_is_still_the_current_one(dbs):
    clock = Clock()
    inbox = WeComInbox(dbs[0], clock=clock)
    inbox.save_token("ww1", "old", START + timedelta(hours=2))
    inbox.save_token("ww1", "new", START + timedelta(hours=2))  # another instance refreshed already
    inbox.drop_token("ww1", "old")
    assert inbox.token("ww1") == ("new", START + timedelta(hours=2))
    inbox.drop_token("ww1", "new")
    assert inbox.token("ww1")[1] < START
