"""The values of the WeChat channel (微信客服 through WeCom): WeCom's sending limits, one message pulled from WeCom,
one planned send, and a student's reply window with what is left of its budget.

The limits are WeCom's, not the school's: after a student's message, at most 5 messages within 48 hours, each text
at most 2,048 bytes; a session a person has taken over cannot be sent to through the API at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

WINDOW = timedelta(hours=48)  # how long after the student's last message the API may still answer
BUDGET = 5  # how many messages the API may send in that window
MAX_TEXT_BYTES = 2048  # send_msg's text.content, in UTF-8 bytes
PULL_REACH = timedelta(days=3)  # sync_msg returns only the last three days

# Where a message from sync_msg comes from (its `origin`).
ORIGIN_STUDENT, ORIGIN_EVENT, ORIGIN_SERVICER = 3, 4, 5
# WeCom's session states (kf/service_state/get): the API may send in the first two only.
STATE_NEW, STATE_BOT, STATE_POOL, STATE_PERSON, STATE_ENDED = 0, 1, 2, 3, 4
BOT_STATES = (STATE_NEW, STATE_BOT)
STATE_LABELS = {STATE_NEW: "未处理", STATE_BOT: "由小E 接待", STATE_POOL: "待接入池排队中", STATE_PERSON: "由人工接待",
                STATE_ENDED: "会话已结束"}

# What became of a planned send (one part of one message).
PENDING, SENT, EXPIRED, HUMAN, ENDED, SKIPPED, FAILED, UNCERTAIN = (
    "pending", "sent", "expired", "human", "ended", "skipped", "failed", "uncertain")
WAITING, RELEASED = "waiting", "released"  # a held answer's marker: still with a consultant, or released
SEND_LABELS = {PENDING: "待发送", SENT: "已发送", EXPIRED: "无法发送（已超过 48 小时）", HUMAN: "已由人工接待",
               ENDED: "会话已结束，没有发送", SKIPPED: "未发送", FAILED: "发送失败", UNCERTAIN: "可能已发出",
               WAITING: "等顾问放行", RELEASED: "顾问已放行"}
FINAL = frozenset({SENT, EXPIRED, HUMAN, ENDED, SKIPPED, FAILED, UNCERTAIN})

# What a send is (`kind`): 小E's reply, the acknowledgement of a held answer, what a consultant released, the reply
# to a message 小E cannot read, a held answer's marker.
REPLY, ACK, RELEASE, NOTICE, HELD = "reply", "ack", "release", "notice", "held"
KIND_LABELS = {REPLY: "小E 的回答", ACK: "确认语", RELEASE: "顾问放行的回答", NOTICE: "非文字消息的回复",
               HELD: "待发送的回答"}


@dataclass(frozen=True)
class Inbound:
    """One message or event as kf/sync_msg returned it (`raw` is its JSON, kept as received)."""

    msgid: str
    open_kfid: str
    external_userid: str
    origin: int
    msgtype: str
    send_time: datetime
    content: str = ""  # a text message's words
    event_type: str = ""
    raw: str = "{}"


@dataclass(frozen=True)
class Pulled:
    """One stored message waiting to be answered (or already answered): its row and what it was."""

    id: int
    message: Inbound
    attempts: int


@dataclass(frozen=True)
class Recorded:
    """A pulled message as the record keeps it: what it was, whether it is done, what was done with it."""

    message: Inbound
    state: str  # pending, done, history (before the account's first start: never answered)
    outcome: str
    exchange: str = ""  # the exchange a text became (its message_id)


@dataclass(frozen=True)
class Part:
    """One message to send to a student: `part` of `parts` of what `kind` `source_id` sends."""

    open_kfid: str
    external_userid: str
    kind: str
    source_id: str
    part: int
    parts: int
    msgid: str
    text: str
    exchange: str = ""  # the student message (exchange message_id) this answers, "" when none
    state: str = PENDING
    reason: str = ""


@dataclass(frozen=True)
class Send:
    """A planned part as stored: its row, state and history."""

    id: int
    part: Part
    state: str
    reason: str
    attempts: int
    created_at: datetime
    sent_at: datetime | None
    last_error: str = ""

    @property
    def label(self) -> str:
        return SEND_LABELS.get(self.state, self.state)


@dataclass(frozen=True)
class Window:
    """A student's reply window: until when the API may answer and how many messages are left (None: the student has
    not written through WeChat)."""

    last_student_at: datetime | None
    used: int
    now: datetime
    service_state: int | None = None

    @property
    def closes_at(self) -> datetime | None:
        return self.last_student_at + WINDOW if self.last_student_at is not None else None

    @property
    def open(self) -> bool:
        return self.closes_at is not None and self.now < self.closes_at

    @property
    def remaining(self) -> int:
        return max(0, BUDGET - self.used) if self.open else 0

    @property
    def with_person(self) -> bool:
        """WeCom says a person has (or is about to take) the session: the API may not send."""
        return self.service_state in (STATE_POOL, STATE_PERSON)
