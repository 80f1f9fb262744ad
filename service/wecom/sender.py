"""Sending for the WeChat channel: each due part goes out with send_msg only while WeCom allows it, and every part that
cannot go says why.

Before a student's parts: the window (48 hours from their last message) must be open, the budget (5 messages in it,
each part counting) not spent, and WeCom's session state the bot's (0 or 1), read with kf/service_state/get. A part is
claimed before send_msg and marked after; a part whose earlier attempt ended without a result (the instance died) is
sent again with the same msgid, and WeCom's refusal of the repeat marks it sent (or 「可能已发出」 when the refusal's
errcode is not one XIAOE_WECOM_DUPLICATE_ERRCODES names). 转人工 asks WeCom to put the session with a person.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta
from itertools import groupby

from core.settings import Settings
from core.stores.wecom_inbox import WeComInbox
from core.stores.wecom_outbox import WeComOutbox
from core.values.wecom import (
    BOT_STATES,
    ENDED,
    EXPIRED,
    FAILED,
    HUMAN,
    PENDING,
    SENT,
    SKIPPED,
    STATE_PERSON,
    STATE_POOL,
    UNCERTAIN,
    Send,
)
from service.wecom.client import WeComClient, WeComError

LOG = logging.getLogger("xiaoe.wecom")

WINDOW_CLOSED = "无法发送（已超过 48 小时）：学员最后一条消息已超过 48 小时，企业微信不允许再发给他"
WITH_PERSON = "已由人工接待：企业微信里这个会话在人工手里（或在排队等人工），小E 不能再发"
SESSION_ENDED = "会话已结束：企业微信里这个会话已经结束，等学员再发消息后才能回复"
NO_BUDGET = "本轮额度已用完：企业微信只允许学员发消息后 48 小时内发 5 条，等学员再发消息后自动发出"
MAX_SEND_ATTEMPTS = 8
TRANSIENT = frozenset({-1, 45009, 45033})  # unreachable, rate limited: try again later


def backoff(attempt: int) -> timedelta:
    return timedelta(seconds=min(300, 2 ** max(0, attempt - 1)))


class Sender:
    """Sends one account's due parts and makes its session changes; `hold` renews the account's lease (LeaseLost
    when another instance has it)."""

    def __init__(self, settings: Settings, client: WeComClient, inbox: WeComInbox, outbox: WeComOutbox, *,
                 hold: Callable[[str], None], ttl: timedelta) -> None:
        self.settings = settings
        self.client = client
        self.inbox = inbox
        self.outbox = outbox
        self._hold = hold
        self.ttl = ttl

    # --- send ------------------------------------------------------------------------------------------

    def send(self, open_kfid: str) -> int:
        """Send what is due, student by student, in order: only in an open window, within the budget, while the
        session is the bot's; a part that cannot go yet stops the student's later parts."""
        sent = 0
        due = sorted(self.outbox.due(open_kfid), key=lambda s: (s.part.external_userid, s.id))
        for user, group in groupby(due, key=lambda s: s.part.external_userid):
            self._hold(open_kfid)
            sent += self._send_to(open_kfid, user, list(group))
        return sent

    def _send_to(self, open_kfid: str, user: str, sends: list[Send]) -> int:
        window = self.outbox.window(open_kfid, user)
        if not window.open:
            self.outbox.close_all(open_kfid, user, EXPIRED, WINDOW_CLOSED)
            return 0
        left = window.remaining
        if left <= 0:
            for s in sends:
                if s.reason != NO_BUDGET:
                    self.outbox.retry(s.id, timedelta(0), reason=NO_BUDGET, error=s.last_error)
            return 0
        try:
            state = self.client.service_state(open_kfid, user)
        except WeComError as error:
            LOG.warning("读取会话状态失败（%s）：%s", user, error)
            return 0
        self.inbox.set_state(open_kfid, user, state)
        if state not in BOT_STATES:
            self._not_the_bots(open_kfid, user, state)
            return 0
        sent = 0
        for s in sends:
            if left <= 0:
                self.outbox.retry(s.id, timedelta(0), reason=NO_BUDGET, error=s.last_error)
                break
            outcome = self._send_one(open_kfid, user, s)
            if outcome in (SENT, UNCERTAIN):
                sent += 1
                left -= 1
            elif outcome != SKIPPED:
                break
        return sent

    def _not_the_bots(self, open_kfid: str, user: str, state: int) -> None:
        if state in (STATE_POOL, STATE_PERSON):
            self.outbox.close_all(open_kfid, user, HUMAN, WITH_PERSON)
        else:
            self.outbox.close_all(open_kfid, user, ENDED, SESSION_ENDED)

    def _send_one(self, open_kfid: str, user: str, s: Send) -> str:
        """Send one part: SENT, UNCERTAIN (sent before, most likely), SKIPPED (another worker holds it), or the state
        that stops the student's later parts (PENDING: try again later)."""
        unknown_before = s.attempts >= 1 and not s.last_error  # an earlier attempt ended without a result: a crash
        attempt = self.outbox.claim(s.id, self.ttl)
        if attempt is None:
            return SKIPPED
        try:
            self.client.send_text(open_kfid, user, s.part.msgid, s.part.text)
        except WeComError as error:
            return self._refused(open_kfid, user, s, attempt, unknown_before, error)
        self.outbox.finish(s.id, SENT)
        return SENT

    def _refused(self, open_kfid: str, user: str, s: Send, attempt: int, unknown_before: bool,
                 error: WeComError) -> str:
        code, text = error.errcode, str(error)
        if attempt > 1 and code in self.settings.wecom_duplicate_codes:
            self.outbox.finish(s.id, SENT, reason="企业微信认出这是重发的消息：第一次已经发出", error=text)
            return SENT
        if code == 95018:
            self.outbox.close_all(open_kfid, user, HUMAN, WITH_PERSON)
            return HUMAN
        if code == 95013:
            self.outbox.close_all(open_kfid, user, ENDED, SESSION_ENDED)
            return ENDED
        if code == 95002:
            self.outbox.close_all(open_kfid, user, EXPIRED, WINDOW_CLOSED)
            return EXPIRED
        if code == 95001:
            self.outbox.retry(s.id, timedelta(seconds=self.settings.wecom_poll_s), reason=NO_BUDGET, error=text)
            return PENDING
        if code not in TRANSIENT and unknown_before:
            self.outbox.finish(s.id, UNCERTAIN, reason="可能已发出：上次发送时服务中断，重发时企业微信拒绝了同一个 msgid（"
                               f"错误 {code}），学员很可能已经收到", error=text)
            return UNCERTAIN
        if code in TRANSIENT and attempt < MAX_SEND_ATTEMPTS:
            self.outbox.retry(s.id, backoff(attempt), reason=f"暂时没发出，稍后重试：{text}", error=text)
            return PENDING
        self.outbox.finish(s.id, FAILED, reason=f"发送失败：{text}", error=text)
        return FAILED


    # --- 转人工 and closed windows ----------------------------------------------------------------------

    def hand_off(self, open_kfid: str) -> int:
        """Make the session changes consultants asked for: 转人工 puts the WeCom session with a person (the configured
        接待人员, else the 待接入池)."""
        done = 0
        for user, direction in self.inbox.handoffs(open_kfid):
            if direction != "to_person":
                self.inbox.handoff_done(open_kfid, user, direction)
                continue
            target = STATE_PERSON if self.settings.wecom_servicer else STATE_POOL
            try:
                self.client.trans(open_kfid, user, target, self.settings.wecom_servicer)
            except WeComError as error:
                if error.errcode not in (95016, 95013):  # not allowed from here (already with a person, or ended)
                    LOG.warning("转人工失败（%s）：%s", user, error)
                    continue
                target = self.client.service_state(open_kfid, user)
            self.inbox.set_state(open_kfid, user, target)
            self.inbox.handoff_done(open_kfid, user, direction)
            done += 1
        return done
