"""One round of the WeChat channel for one 客服账号, run by the instance holding the account's lease: pull what is new,
answer each student text through StudentDesk.message (the App's path: gate, reuse, release policy, queue lanes),
plan what consultants released, send within WeCom's limits, make the session changes 转人工 asked for, and mark held
answers whose window closed.

Every step is safe to repeat: a msgid is stored once, an exchange is answered once (its client_msg_id is the WeCom
msgid), a part is planned once and always sent with the same msgid. So a second instance, a replayed page or a
crash anywhere answers each student message once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta

from core.clock import utcnow
from core.conversations.handoff import asks_for_person
from core.errors import XiaoEError
from core.exchanges.desk import InvalidRequest, StudentDesk, chat_request
from core.exchanges.wecom_text import msgid_for, split_text, with_sources
from core.settings import Settings
from core.stores.exchanges import NotFound, RateLimited
from core.stores.review import ReviewStore
from core.stores.wecom_inbox import LeaseLost, WeComInbox
from core.stores.wecom_outbox import WeComOutbox
from core.values import Problem
from core.values.exchanges import ANSWERED, HANDED_OFF, HELD, REFUSED, ApiKey, ChatReply
from core.values.wecom import (
    ACK,
    EXPIRED,
    NOTICE,
    ORIGIN_EVENT,
    ORIGIN_SERVICER,
    ORIGIN_STUDENT,
    RELEASE,
    RELEASED,
    REPLY,
    SKIPPED,
    WAITING,
    Inbound,
    Part,
)
from core.values.wecom import HELD as HELD_KIND
from service.wecom.client import WeComClient, WeComError
from service.wecom.events import handle_event, read_event
from service.wecom.sender import WINDOW_CLOSED, Sender, backoff

LOG = logging.getLogger("xiaoe.wecom")


class WeComChannel:
    """The channel's work for every account of `settings`, done by whichever instance holds each account's lease."""

    def __init__(self, settings: Settings, desk: StudentDesk, client: WeComClient, inbox: WeComInbox,
                 outbox: WeComOutbox, review: ReviewStore, *, owner: str,
                 clock: Callable[[], datetime] = utcnow) -> None:
        self.settings = settings
        self.desk = desk
        self.client = client
        self.inbox = inbox
        self.outbox = outbox
        self.review = review
        self.owner = owner
        self._clock = clock
        self.ttl = timedelta(seconds=settings.wecom_lease_s)
        self.sender = Sender(settings, client, inbox, outbox, hold=self._hold, ttl=self.ttl)
        self._warned = ""

    # --- the round -------------------------------------------------------------------------------------

    def round(self, open_kfid: str) -> bool:
        """One round for `open_kfid` if this instance holds (or takes) its lease; False when another instance has it."""
        if not self._renew(open_kfid):
            return False
        try:
            self.pull(open_kfid)
            key = self._key()
            if key is not None:
                self.answer(open_kfid, key)
            self.plan_releases(open_kfid)
            self.sender.send(open_kfid)
            self.sender.hand_off(open_kfid)
            self.sweep(open_kfid)
        except LeaseLost as lost:
            LOG.info("%s", lost)
            return False
        return True

    def _lease(self, open_kfid: str) -> str:
        return f"pull:{open_kfid}"

    def _renew(self, open_kfid: str) -> bool:
        return self.inbox.take(self._lease(open_kfid), self.owner, self.ttl)

    def _hold(self, open_kfid: str) -> None:
        if not self._renew(open_kfid):
            raise LeaseLost(f"微信客服账号 {open_kfid} 已由另一台实例接手")

    def _key(self) -> ApiKey | None:
        """The key whose policy WeChat messages follow; None (and a log line once) when it is missing or revoked."""
        try:
            key = self.desk.keys.by_name(self.settings.wecom_key)
        except XiaoEError as error:
            problem = f"微信客服用的接口密钥不可用：{error}"
        else:
            if not key.revoked:
                self._warned = ""
                return key
            problem = f"微信客服用的接口密钥「{key.name}」已停用：学员的消息先存着，新建同名密钥后自动回答"
        if problem != self._warned:
            LOG.error("%s", problem)
            self._warned = problem
        return None

    # --- pull ------------------------------------------------------------------------------------------

    def pull(self, open_kfid: str, *, force: bool = False) -> int:
        """Pull what is new (a callback came, or the poll interval passed): page by page, each page stored with the
        cursor after it. The first start walks to the current cursor and answers none of that history."""
        cursor, pulled_at = self.inbox.cursor(open_kfid)
        news, token = self.inbox.news(open_kfid)
        first = cursor is None
        due = pulled_at is None or self._clock() - pulled_at >= timedelta(seconds=self.settings.wecom_poll_s)
        if not (first or news or due or force):
            return 0
        new = 0
        while True:
            self._hold(open_kfid)
            try:
                page = self.client.sync_msg(open_kfid, cursor, token)
            except WeComError as error:
                if error.errcode == 95007 and token:  # the callback's token ran out: pull without it
                    token = ""
                    continue
                LOG.warning("拉取微信客服消息失败（%s）：%s", open_kfid, error)
                return new
            messages = tuple(m for m in (read_event(raw, open_kfid) for raw in page.messages) if m is not None)
            new += self.inbox.save_page(open_kfid, messages, page.next_cursor, lease=(self._lease(open_kfid), self.owner),
                                        ttl=self.ttl, history=first, consumed_up_to=0 if page.has_more else news)
            cursor = page.next_cursor
            if not page.has_more:
                return new

    # --- answer ----------------------------------------------------------------------------------------

    def answer(self, open_kfid: str, key: ApiKey) -> int:
        """Answer or record every stored message of the account, oldest first; how many were finished."""
        done = 0
        for pulled in self.inbox.pending(open_kfid):
            self._hold(open_kfid)
            message = pulled.message
            try:
                outcome, exchange, parts = self._handle(open_kfid, key, message)
            except RateLimited as limited:
                self.inbox.defer(pulled.id, timedelta(seconds=limited.retry_after), str(limited))
                continue
            except XiaoEError as error:
                LOG.warning("微信客服消息 %s 暂时没能处理：%s", message.msgid, error)
                self.inbox.defer(pulled.id, backoff(pulled.attempts + 1), f"暂时没能处理：{error}")
                continue
            self.inbox.finish(pulled.id, outcome, exchange=exchange, parts=parts)
            done += 1
        return done

    def _handle(self, open_kfid: str, key: ApiKey, m: Inbound) -> tuple[str, str, tuple[Part, ...]]:
        if m.origin == ORIGIN_STUDENT and m.external_userid:
            self.inbox.student_wrote(open_kfid, m.external_userid, m.send_time)
            if m.msgtype == "text" and m.content.strip():
                return self._text(open_kfid, key, m)
            reply = self._parts(open_kfid, m.external_userid, NOTICE, m.msgid, self.settings.wecom_nontext_reply)
            return f"学员发来非文字消息（{m.msgtype}），已回复固定文字", "", reply
        if m.origin == ORIGIN_EVENT:
            return handle_event(self.inbox, self.outbox, open_kfid, m), "", ()
        if m.origin == ORIGIN_SERVICER:
            return f"接待人员在企业微信里发给学员的消息（{m.msgtype}），已记录", "", ()
        return f"来源 {m.origin} 的消息（{m.msgtype}），已记录", "", ()

    def _text(self, open_kfid: str, key: ApiKey, m: Inbound) -> tuple[str, str, tuple[Part, ...]]:
        user = m.external_userid
        conversation = self.inbox.conversation(open_kfid, user)
        try:
            request = chat_request(user, conversation, m.msgid, m.content, max_chars=self.settings.max_question_chars)
        except InvalidRequest as invalid:
            reply = self._parts(open_kfid, user, NOTICE, m.msgid, self.settings.wecom_too_long_reply)
            return f"没有交给小E：{invalid}", "", reply
        try:
            reply = self.desk.message(key, request)
        except NotFound:  # the stored conversation belongs to another key (XIAOE_WECOM_KEY changed): start a new one
            reply = self.desk.message(key, replace(request, conversation_id=None))
        if reply.conversation_id != conversation:
            self.inbox.set_conversation(open_kfid, user, reply.conversation_id)
        return self._reply_parts(open_kfid, user, reply, asked_for_person=asks_for_person(request.query))

    def _reply_parts(self, open_kfid: str, user: str, reply: ChatReply, *,
                     asked_for_person: bool = False) -> tuple[str, str, tuple[Part, ...]]:
        if reply.status in (ANSWERED, REFUSED):
            parts = self._parts(open_kfid, user, REPLY, reply.message_id, with_sources(reply.answer, reply.citations),
                                exchange=reply.message_id)
            return ("已回答" if reply.status == ANSWERED else "拒答"), reply.message_id, parts
        if reply.status == HELD:
            return "等顾问放行", reply.message_id, self._held_parts(open_kfid, user, reply)
        if reply.status == HANDED_OFF and asked_for_person:  # the student typed 「人工」: told so, the session moves
            self.inbox.want_handoff(open_kfid, user, "to_person")
            parts = self._parts(open_kfid, user, REPLY, reply.message_id, reply.answer, exchange=reply.message_id)
            return "学员要求转人工：已回复并转给接待人员", reply.message_id, parts
        if reply.status == HANDED_OFF:
            return "会话已转人工：小E 不作答（学员的消息进了「转人工」）", reply.message_id, ()
        return f"状态 {reply.status}", reply.message_id, ()

    def _held_parts(self, open_kfid: str, user: str, reply: ChatReply) -> tuple[Part, ...]:
        """The acknowledgement, unless it would leave too few messages for the held answer itself (then it is
        skipped, and the item says so), and the held answer's marker."""
        draft = self.desk.conversations.exchange(reply.message_id).draft
        needed = max(1, len(split_text(draft)))
        window = self.outbox.window(open_kfid, user)
        left = window.remaining - self._unsent(open_kfid, user)
        ack = self._parts(open_kfid, user, ACK, reply.message_id, reply.answer, exchange=reply.message_id)
        if left - len(ack) < needed:
            why = f"没有发确认语：只剩 {max(0, left)} 条额度，留给顾问放行的回答（约 {needed} 条）"
            ack = tuple(replace(p, state=SKIPPED, reason=why) for p in ack)
        marker = Part(open_kfid, user, HELD_KIND, reply.message_id, 0, 0, msgid_for(HELD_KIND, reply.message_id, 0),
                      draft, exchange=reply.message_id, state=WAITING)
        return (*ack, marker)

    def _unsent(self, open_kfid: str, user: str) -> int:
        return sum(1 for s in self.outbox.due(open_kfid) if s.part.external_userid == user)

    def _parts(self, open_kfid: str, user: str, kind: str, source_id: str, text: str, *,
               exchange: str = "") -> tuple[Part, ...]:
        pieces = split_text(text)
        return tuple(Part(open_kfid, user, kind, source_id, n, len(pieces), msgid_for(kind, source_id, n), piece,
                          exchange=exchange) for n, piece in enumerate(pieces, start=1))

    # --- what consultants released ---------------------------------------------------------------------

    def plan_releases(self, open_kfid: str) -> int:
        """Plan each outbox message (a held answer approved, a standard reply, a correction, the 转人工 notice) for
        the student it goes to; a held answer whose window already closed is planned as never to be sent."""
        planned = 0
        for row in self.outbox.unplanned_releases(open_kfid):
            user = row["user"]
            parts = self._parts(open_kfid, user, RELEASE, row["message_id"],
                                with_sources(row["answer"], row["citations"]), exchange=row["reply_to"])
            if row["reply_to"] and self.outbox.held_state(row["reply_to"]) == EXPIRED:
                parts = tuple(replace(p, state=EXPIRED, reason=WINDOW_CLOSED) for p in parts)
            elif row["reply_to"]:
                self.outbox.mark_held(row["reply_to"], RELEASED)
            if row["status"] == HANDED_OFF:
                self.inbox.want_handoff(open_kfid, user, "to_person")
            planned += self.outbox.plan(parts)
        return planned

    # --- held answers whose window closed -----------------------------------------------------------

    def sweep(self, open_kfid: str) -> int:
        """Held answers whose student's window has closed: marked 无法发送（已超过 48 小时）, with the reason added to their
        queue item while it is pending."""
        marked = 0
        for exchange, _user in self.outbox.waiting_closed(open_kfid):
            if not self.outbox.mark_held(exchange, EXPIRED, WINDOW_CLOSED):
                continue
            marked += 1
            item_id = self.desk.conversations.exchange(exchange).item_id
            if item_id is not None:
                self._add_reason(item_id)
        return marked

    def _add_reason(self, item_id: int) -> None:
        for _attempt in range(3):
            item = self.review.get(item_id)
            if item.status != "pending":
                return
            try:
                self.review.add_reason(item_id, Problem("wecom_window", WINDOW_CLOSED), expected_version=item.version)
                return
            except XiaoEError:  # a consultant changed the item meanwhile: read it again
                continue
        LOG.warning("条目 #%s 没能加上「已超过 48 小时」的说明（一直有人在改它）", item_id)
