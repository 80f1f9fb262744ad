"""The WeChat channel against the scripted WeCom server, on both engines: WeCom's limits (48-hour window, 5 messages,
2,048 bytes, the session's state) hold and are shown, held answers leave through the outbox, handoff works both ways,
what 小E cannot read is answered and recorded, history is never answered, and a message is answered once however
often it is announced or pulled. The channel runs in the test's process with the server's clock, so no test waits
for hours."""

from __future__ import annotations

import pytest
from sqlalchemy import update

from core.exchanges.release import decide_and_send
from core.exchanges.wecom_text import byte_length, split_text
from core.stores.wecom_schema import wecom_cursors
from core.values.wecom import ACK, EXPIRED, HELD, HUMAN, PENDING, RELEASE, SENT, SKIPPED, UNCERTAIN
from tests.service.harness import make_key
from tests.service.wecom_rig import KFID, Rig, rig_for

HOUR = 3600.0
QUESTION = "口语课一共有几级？"


def _exchange(rig: Rig, user: str, position: int = -1):
    conversation = rig.inbox.conversation(KFID, user)
    return rig.desk.conversations.thread(conversation)[position]


def _decide(rig: Rig, user: str, action: str, corrected: str | None = None, position: int = -1):
    exchange = _exchange(rig, user, position)
    item = rig.review.get(exchange.item_id)
    return decide_and_send(rig.review, rig.settings, item.id, action=action, reviewer="顾问甲",
                           expected_version=item.version, corrected=corrected, confirmed=True,
                           note="改发标准回复" if action == "reject" else None)


def _long_text(sentences: int) -> str:
    return "".join(f"第{n}条说明：这是顾问补充给学员的话，请学员按学校资料办理。" for n in range(1, sentences + 1))


def _states(rig: Rig, user: str) -> list[tuple[str, str]]:
    exchange = _exchange(rig, user)
    return [(s.part.kind, s.state) for s in rig.outbox.deliveries([exchange.message_id]).get(exchange.message_id, ())]


def test_wecom_first_start_takes_the_cursor_without_answering_history(rigs, wecom):
    wecom.say(KFID, "old", "上周问过的问题：退费怎么算？", ago=2 * HOUR)
    rig = rigs()
    rig.turn()
    assert wecom.sent == []
    assert [r.state for r in rig.inbox.messages()] == ["history"]
    rig.say("new", QUESTION)
    assert len(wecom.texts("new")) == 1 and wecom.texts("old") == []


def test_wecom_duplicate_callbacks_and_a_replayed_page_answer_once(rigs, wecom):
    rig = rigs()
    rig.turn()
    wecom.say(KFID, "u1", QUESTION)
    for _ in range(3):
        rig.notify()
    rig.turn()
    with rig.db.transaction() as conn:  # the cursor goes back: the same page comes again
        conn.execute(update(wecom_cursors).values(cursor=""))
    rig.notify()
    rig.turn()
    assert len(wecom.texts("u1")) == 1
    assert len(rig.desk.conversations.thread(rig.inbox.conversation(KFID, "u1"))) == 1


def test_wecom_text_over_2048_bytes_goes_out_in_parts_cut_after_sentences(rigs, wecom):
    rig = rigs(release="all")
    rig.turn()
    rig.say("u1", QUESTION)
    correction = _long_text(40)
    _decide(rig, "u1", "approve", corrected=correction)
    rig.turn()
    parts = wecom.texts("u1")[1:]  # after the acknowledgement
    assert len(parts) >= 2 and all(byte_length(p) <= 2048 for p in parts)
    assert all(p.endswith("办理。") for p in parts[:-1])  # each cut after a sentence
    assert "".join(parts) == correction
    assert rig.outbox.window(KFID, "u1").used == 1 + len(parts)  # every part counts


def test_wecom_budget_of_five_holds_the_rest_until_the_student_writes_again(rigs, wecom):
    rig = rigs(release="all")
    rig.turn()
    rig.say("u1", QUESTION)
    correction = _long_text(150)
    parts = len(split_text(correction))
    assert 5 < parts <= 8  # more than the budget leaves, less than two budgets
    _decide(rig, "u1", "approve", corrected=correction)
    rig.turn()
    assert len(wecom.texts("u1")) == 5  # the acknowledgement and four parts
    assert not [r for r in wecom.refused if r["errcode"] == 95001]  # the budget was kept, not learned from WeCom
    waiting = [s for s in rig.outbox.due(KFID)]
    assert waiting and all("额度已用完" in s.reason for s in waiting)
    assert rig.outbox.window(KFID, "u1").remaining == 0
    wecom.advance(2)  # WeCom's send_time is in whole seconds: a later second, after the sends
    rig.say("u1", "好的，谢谢")  # a new message opens a new budget
    assert len(wecom.texts("u1")) == 5 + (parts - 4) + 1  # the rest of the parts, then the new answer


def test_wecom_acknowledgement_is_skipped_when_the_budget_is_low(rigs, wecom):
    rig = rigs(release="all")
    rig.turn()
    rig.say("u1", QUESTION)
    correction = _long_text(220)
    assert len(split_text(correction)) >= 9  # four go now, five or more stay owed
    _decide(rig, "u1", "approve", corrected=correction)
    rig.turn()
    sent = len(wecom.texts("u1"))
    wecom.advance(2)
    rig.say("u1", "入门级学费多少钱？")  # a new question (not a follow-up); the earlier parts still owed take the new budget
    assert dict(_states(rig, "u1"))[ACK] == SKIPPED
    assert rig.settings.hold_ack_text not in wecom.texts("u1")[sent:]
    skipped = rig.outbox.deliveries([_exchange(rig, "u1").message_id])[_exchange(rig, "u1").message_id][0]
    assert "没有发确认语" in skipped.reason


def test_wecom_session_with_a_person_gets_nothing_and_the_item_says_so(rigs, wecom):
    rig = rigs()
    rig.turn()
    wecom.say(KFID, "u1", QUESTION)
    wecom.take(KFID, "u1", "zhangsan")
    rig.notify()
    rig.turn()
    assert wecom.texts("u1") == []
    assert [r for r in wecom.refused if r["path"].endswith("send_msg")] == []  # the state was read, not tried
    assert _states(rig, "u1") == [("reply", HUMAN)]
    conversation = rig.desk.conversations.get(rig.inbox.conversation(KFID, "u1"))
    assert conversation.handed_off


def test_wecom_a_person_ending_the_session_hands_it_back_to_xiaoe(rigs, wecom):
    rig = rigs()
    rig.turn()
    rig.say("u1", QUESTION)
    wecom.take(KFID, "u1", "zhangsan")
    rig.notify()
    rig.turn()
    wecom.end(KFID, "u1")
    rig.notify()
    rig.turn()
    wecom.advance(2)
    assert not rig.desk.conversations.get(rig.inbox.conversation(KFID, "u1")).handed_off
    rig.say("u1", "那流利级是第几级？")
    assert len(wecom.texts("u1")) == 2


def test_wecom_consultant_handoff_sends_the_notice_then_gives_the_session_to_a_person(rigs, wecom):
    rig = rigs(release="all")
    rig.turn()
    rig.say("u1", QUESTION)
    _decide(rig, "u1", "handoff")
    rig.turn()
    assert wecom.texts("u1")[-1] == rig.settings.handoff_text
    assert wecom.session(KFID, "u1").state == 2  # the 待接入池: no 接待人员 configured
    rig.say("u1", "还在吗？")
    assert wecom.texts("u1")[-1] == rig.settings.handoff_text  # 小E does not answer a handed-off session


def test_wecom_student_asking_for_a_person_is_told_and_the_session_goes_to_a_person(rigs, wecom):
    # 「转人工」 typed by the student (#43) in WeChat: the handoff reply is sent and the WeCom session moves to the pool
    # (it was neither: the channel sent nothing for a handed-off reply and never asked WeCom to transfer)
    rig = rigs()
    rig.turn()
    rig.say("u1", QUESTION)
    answered = len(wecom.texts("u1"))
    rig.say("u1", "转人工")
    rig.turn()
    assert len(wecom.texts("u1")) == answered + 1
    assert wecom.texts("u1")[-1].startswith(rig.settings.handoff_text)
    assert wecom.session(KFID, "u1").state == 2  # the 待接入池: no 接待人员 configured
    assert rig.desk.conversations.get(rig.inbox.conversation(KFID, "u1")).handed_off


def test_wecom_held_answer_approved_after_48_hours_is_marked_and_never_sent(rigs, wecom):
    rig = rigs(release="all")
    rig.turn()
    rig.say("u1", QUESTION)
    assert wecom.texts("u1") == [rig.settings.hold_ack_text]
    wecom.advance(49 * HOUR)
    rig.turn()
    exchange = _exchange(rig, "u1")
    item = rig.review.get(exchange.item_id)
    assert "wecom_window" in [r.code for r in item.reasons]
    assert rig.outbox.held_state(exchange.message_id) == EXPIRED
    _decide(rig, "u1", "approve")
    rig.turn()
    assert wecom.texts("u1") == [rig.settings.hold_ack_text]
    assert [r for r in wecom.refused if r["path"].endswith("send_msg")] == []  # not even tried
    released = [s for s in rig.outbox.deliveries([exchange.message_id])[exchange.message_id] if s.part.kind == RELEASE]
    assert released and {s.state for s in released} == {EXPIRED} and "48 小时" in released[0].label


def test_wecom_message_pulled_after_its_window_closed_is_recorded_and_not_sent(rigs, wecom):
    rig = rigs()
    rig.turn()
    rig.say("u1", QUESTION, ago=50 * HOUR)  # within sync_msg's three days, past the 48 hours
    assert wecom.texts("u1") == []
    assert _states(rig, "u1") == [("reply", EXPIRED)]


def test_wecom_pull_reaches_back_three_days_only(rigs, wecom):
    rig = rigs()
    rig.turn()
    wecom.say(KFID, "u1", "四天前的问题", ago=4 * 24 * HOUR)
    rig.notify()
    rig.turn()
    assert rig.inbox.messages(user="u1") == ()


def test_wecom_non_text_message_gets_the_configured_reply_and_is_recorded(rigs, wecom):
    rig = rigs()
    rig.turn()
    wecom.say(KFID, "u1", msgtype="image")
    rig.notify()
    rig.turn()
    assert wecom.texts("u1") == [rig.settings.wecom_nontext_reply]
    (recorded,) = rig.inbox.messages(user="u1")
    assert recorded.message.msgtype == "image" and recorded.state == "done" and "image" in recorded.outcome


def test_wecom_event_is_recorded_never_dropped(rigs, wecom):
    rig = rigs()
    rig.turn()
    wecom.event(KFID, {"event_type": "enter_session", "external_userid": "u1", "scene": "web"})
    rig.notify()
    rig.turn()
    (recorded,) = rig.inbox.messages()
    assert recorded.message.msgtype == "event" and recorded.state == "done" and recorded.outcome == "学员打开了会话"


def test_wecom_expired_token_is_refreshed_once_and_the_call_retried(rigs, wecom):
    rig = rigs()
    rig.turn()
    assert wecom.gettoken_calls == 1
    wecom.expire_tokens()
    rig.say("u1", QUESTION)
    assert wecom.gettoken_calls == 2
    assert len(wecom.texts("u1")) == 1
    assert [r["errcode"] for r in wecom.refused] == [42001]


def test_wecom_token_is_refreshed_before_it_expires(rigs, wecom):
    wecom.token_life = 7200
    rig = rigs()
    rig.turn()
    wecom.advance(7200 - 200)  # inside the 300-second margin
    rig.say("u1", QUESTION)
    assert wecom.gettoken_calls == 2 and wecom.refused == []


def test_wecom_two_clients_finding_the_token_expired_at_once_refresh_it_once(rigs, wecom):
    import threading

    first, second = rigs(), rigs(owner="other")
    first.turn()
    wecom.say(KFID, "u1", QUESTION)
    wecom.expire_tokens()
    wecom.gettoken_delay = 0.5  # the first refresh is still under way when the second client finds the token stale
    gate = threading.Barrier(2)
    errors: list[Exception] = []

    def read(rig: Rig) -> None:
        gate.wait()
        try:
            rig.channel.client.service_state(KFID, "u1")
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=read, args=(r,)) for r in (first, second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and wecom.gettoken_calls == 2


def test_wecom_resend_after_a_crash_is_recognised_as_a_duplicate(rigs, wecom):
    """The part went out, but the instance died before marking it: after the claim runs out the same msgid goes
    again, and WeCom's refusal of the repeat marks it sent."""
    rig = rigs()
    rig.turn()
    send = rig.channel.client.send_text

    def send_then_die(*args) -> None:
        send(*args)
        raise SystemExit("the instance dies here")

    rig.channel.client.send_text = send_then_die
    wecom.say(KFID, "u1", QUESTION)
    rig.notify()
    with pytest.raises(SystemExit):
        rig.turn(1)
    rig.channel.client.send_text = send
    assert _states(rig, "u1") == [("reply", PENDING)]
    wecom.advance(rig.settings.wecom_lease_s + 1)  # the claim runs out
    rig.turn()
    assert len(wecom.sent_msgids()) == 1 and [r["errcode"] for r in wecom.refused] == [40058]
    assert _states(rig, "u1") == [("reply", SENT)]


def test_wecom_resend_refused_with_an_unknown_code_is_shown_as_maybe_sent(rigs, wecom):
    rig = rigs(wecom_duplicate_errcodes="")
    rig.turn()
    send = rig.channel.client.send_text

    def send_then_die(*args) -> None:
        send(*args)
        raise SystemExit("the instance dies here")

    rig.channel.client.send_text = send_then_die
    wecom.say(KFID, "u1", QUESTION)
    rig.notify()
    with pytest.raises(SystemExit):
        rig.turn(1)
    rig.channel.client.send_text = send
    wecom.advance(rig.settings.wecom_lease_s + 1)
    rig.turn()
    assert len(wecom.sent_msgids()) == 1
    assert _states(rig, "u1") == [("reply", UNCERTAIN)]


def test_wecom_held_answer_goes_out_when_approved(rigs, wecom):
    rig = rigs(release="all")
    rig.turn()
    rig.say("u1", QUESTION)
    exchange = _exchange(rig, "u1")
    assert rig.outbox.held_state(exchange.message_id) == "waiting"
    _decide(rig, "u1", "approve")
    rig.turn()
    assert len(wecom.texts("u1")) == 2 and wecom.texts("u1")[1].startswith(exchange.draft.strip()[:10])
    assert {s.part.kind: s.state for s in rig.outbox.deliveries([exchange.message_id])[exchange.message_id]} == {
        ACK: SENT, HELD: "released", RELEASE: SENT}


def test_states_are_named_for_the_console():
    from core.values.wecom import SEND_LABELS

    assert SEND_LABELS[EXPIRED] == "无法发送（已超过 48 小时）" and SEND_LABELS[HUMAN] == "已由人工接待"
    assert {PENDING, UNCERTAIN} <= set(SEND_LABELS)


def test_wecom_channel_moved_to_another_key_starts_a_new_conversation(rigs, wecom):
    rig = rigs()
    rig.turn()
    rig.say("u1", QUESTION)
    make_key(rig.settings.database_url, "wecom2", release="auto")
    moved = rig_for(wecom, rig.settings.with_(wecom_key="wecom2"), owner="rig")
    try:
        wecom.advance(2)
        wecom.say(KFID, "u1", "每节课多长时间？")
        moved.notify()
        moved.turn()
        assert len(wecom.texts("u1")) == 2  # answered, not stuck on the old key's conversation
        assert [r.state for r in moved.inbox.messages(user="u1")] == ["done", "done"]
    finally:
        moved.close()


def test_wecom_pull_follows_has_more_across_pages(rigs, wecom):
    rig = rigs()
    rig.turn()
    wecom.page_size = 2
    for n in range(5):
        wecom.say(KFID, f"p{n}", QUESTION)
    rig.notify()
    rig.turn()
    assert sorted(s["touser"] for s in wecom.sent) == [f"p{n}" for n in range(5)]
    assert len([c for c in wecom.calls if c.endswith("sync_msg")]) >= 3  # three pages: 2 + 2 + 1


def test_wecom_callback_token_wecom_refuses_is_dropped_and_the_pull_goes_on(rigs, wecom):
    rig = rigs()
    rig.turn()
    wecom.say(KFID, "u1", QUESTION)
    rig.inbox.record_event(KFID, "ENCnotissuedbywecom")  # a token WeCom does not know (or no longer honours)
    rig.turn()
    assert len(wecom.texts("u1")) == 1
    assert [r["errcode"] for r in wecom.refused] == [95007]
