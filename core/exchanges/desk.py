"""The student desk: one student message in, one reply out — masked at the door, read in its conversation,
answered by the one Assistant, held or sent by the key's release policy, recorded with its queue item and its turn
in one write transaction.

`StudentDesk.message` is the single call every channel makes (the App's route, the WeCom channel). In order: the
student's personal data is masked (core.privacy.mask, placeholders stable within the conversation) before anything
is stored; reads only before the answer (ExchangeStore.look): a replay (the same key, student and client_msg_id)
returns the stored reply without running the gate again, a conversation of another student is 404, a used-up rate
limit is 429; everything the record needs is computed before its one write (ExchangeStore.record), where two
identical requests at the same instant make one exchange (the later one returns the first reply); a conversation a
consultant took over is not
answered by 小E (the student is told a person will reply, and the message joins the conversation's 转人工 item); a
message holding a 敏感词 gets the configured reply with no retrieval and no model call (lane 敏感内容); 「人工」
「转人工」 hands the conversation to a person (lane 转人工, outside the service hours the student is told when a
person will answer); any other message is read in its conversation (core.conversations: the standalone question),
and that standalone question is what the gate, reuse, the checks, the answer, the queue item and the record use.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from core.assistant import Assistant
from core.case import case_facts
from core.clock import utcnow
from core.conversations.handoff import asks_for_person, handoff_reply
from core.errors import AuthError, XiaoEError
from core.exchanges.policy import decide
from core.privacy.mask import mask, masked_kinds
from core.settings import Settings
from core.stores.api_keys import KeyStore
from core.stores.conversations import ConversationStore
from core.stores.db import Database
from core.stores.exchange_schema import MAX_CLIENT_ID_CHARS, MAX_PUBLIC_ID_CHARS, MAX_USER_CHARS
from core.stores.exchanges import ExchangeStore, Finished, Look, Written
from core.stores.feedback import FeedbackStore
from core.stores.rate_limits import Limit
from core.stores.sensitive_words import SensitiveStore
from core.stores.turns import MaskState, TurnStore
from core.values import Problem
from core.values.conversations import Standalone
from core.values.exchanges import (
    ANSWERED,
    HANDED_OFF,
    HELD,
    REFUSED,
    ApiKey,
    ChatReply,
    ChatRequest,
    Citation,
    Feedback,
    Released,
)
from core.values.facts import SchoolFacts
from core.values.outcomes import Outcome


class Forbidden(AuthError):
    """The key is valid but its scopes do not allow this (HTTP 403)."""


class InvalidRequest(XiaoEError):
    """A field of the request cannot be accepted (HTTP 422); the message names the field and what to send."""


def _identifier(value: object, field: str, limit: int) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidRequest(f"{field} 必须是非空的字符串。")
    value = value.strip()
    if len(value) > limit:
        raise InvalidRequest(f"{field} 最长 {limit} 个字符，现在有 {len(value)} 个，请缩短。")
    if any(unicodedata.category(c) in ("Cc", "Cs", "Cf") for c in value):
        raise InvalidRequest(f"{field} 里有控制字符或无法保存的字符，请只用可见字符。")
    return value


def chat_request(user: object, conversation_id: object, client_msg_id: object, query: object, *,
                 max_chars: int) -> ChatRequest:
    """The request's fields checked into a value, or InvalidRequest naming the first bad field."""
    if not isinstance(query, str):
        raise InvalidRequest("query 必须是字符串（学员的原话）。")
    text = query.strip()
    if not text:
        raise InvalidRequest("query 是空的：请把学员发来的文字放进 query。")
    if len(text) > max_chars:
        raise InvalidRequest(f"query 有 {len(text)} 个字，超过了 {max_chars} 字的上限：请让学员分几条发。")
    if any("\ud800" <= c <= "\udfff" or c == "\x00" for c in text):
        raise InvalidRequest("query 里有无法保存的字符（单独的代理字符或 NUL），请检查 App 的编码。")
    return ChatRequest(user=_identifier(user, "user", MAX_USER_CHARS),
                       conversation_id=None if conversation_id is None else _identifier(
                           conversation_id, "conversation_id", MAX_PUBLIC_ID_CHARS),
                       client_msg_id=_identifier(client_msg_id, "client_msg_id", MAX_CLIENT_ID_CHARS), query=text)


@dataclass(frozen=True)
class StudentDesk:
    """The student service's core: settings, the Assistant in force (a callable, so a live index can swap under it)
    and the stores. Build with `StudentDesk.open`."""

    settings: Settings
    assistant: Callable[[], Assistant]
    keys: KeyStore
    exchanges: ExchangeStore
    conversations: ConversationStore
    feedback: FeedbackStore
    turns: TurnStore
    sensitive: SensitiveStore
    clock: Callable[[], datetime] = field(default=utcnow)  # the service hours are checked at this moment

    @classmethod
    def open(cls, settings: Settings, db: Database, assistant: Callable[[], Assistant]) -> StudentDesk:
        masked_kinds(settings.masking)  # a bad XIAOE_MASKING stops the service at start-up, named
        fixed = settings.clock_now
        return cls(settings, assistant, KeyStore(db), ExchangeStore(db), ConversationStore(db), FeedbackStore(db),
                   TurnStore(db), SensitiveStore(db), clock=(lambda: fixed) if fixed is not None else utcnow)

    def authenticate(self, secret: str | None, scope: str) -> ApiKey:
        """The key a bearer secret names, allowed `scope`; AuthError (401) or Forbidden (403)."""
        key = self.keys.authenticate(secret)
        if scope not in key.scopes:
            raise Forbidden(f"密钥「{key.name}」没有「{scope}」权限（它有：{'、'.join(key.scopes)}）：请管理员新建一个带 "
                            f"{scope} 权限的密钥。")
        return key

    def message(self, key: ApiKey, request: ChatRequest) -> ChatReply:
        """Answer one student message exactly once (see the module doc)."""
        state = self.turns.masks(request.conversation_id)
        masked = mask(request.query, state.entries, key=state.key, kinds=masked_kinds(self.settings.masking))
        request = replace(request, query=masked.text)  # from here on, only the masked text exists
        limits = self._limits(key, request.user)
        look = self.exchanges.look(key, request, limits=limits)
        if look.replay is not None:
            return look.replay
        door = _Door(self, key, request, look, limits, state, masked.new)
        if look.handed_off:
            return self._handed_off(door)
        hits = self.sensitive.matcher().find(request.query)
        if hits:
            return self._sensitive(door, hits)
        if asks_for_person(request.query):
            return self._student_hand_off(door)
        assistant = self.assistant()
        context = self.turns.context(look.conversation_row,
                                     idle=timedelta(minutes=self.settings.conversation_idle_minutes),
                                     limit=self.settings.conversation_turns) if look.conversation_row else ()
        standalone = assistant.in_context(request.query, context[-1] if context else None)
        outcome = assistant.respond(standalone.question)
        finished = self._finished(key, outcome, assistant.facts)
        case = tuple((kind, "、".join(sorted(map(str, values))))
                     for kind, values in case_facts(standalone.question, assistant.facts).items())
        # the answer's words only when the student was sent it: a held draft is not read before a consultant acts
        said = assistant.answer_words(outcome) if finished.status == ANSWERED else ()
        return door.record(finished, outcome, standalone, refused=outcome.refused or outcome.failure is not None,
                           case=case, answer_words=said)

    def _limits(self, key: ApiKey, user: str) -> tuple[Limit, ...]:
        return (Limit(f"user:{key.id}:{user}", self.settings.rate_user_per_minute, "这位学员的消息"),
                Limit(f"key:{key.id}", self.settings.rate_key_per_minute, f"密钥「{key.name}」的请求"))

    def _finished(self, key: ApiKey, outcome: Outcome, facts: SchoolFacts) -> Finished:
        verdict = decide(key.policy, outcome, facts)
        problems = tuple((p.code, p.message) for p in outcome.problems)
        reused = outcome.reused.id if outcome.reused is not None else None
        if verdict.held:
            draft = outcome.answer.text if outcome.answer is not None else ""
            failure = ((outcome.failure.kind, outcome.failure.message),) if outcome.failure is not None else ()
            return Finished(HELD, self.settings.hold_ack_text, (), reused, draft,
                            (("held", verdict.reason), *failure, *problems), held=True)
        answer = outcome.answer
        assert answer is not None  # only a failure has no answer, and a failure is always held
        if outcome.refused:
            return Finished(REFUSED, answer.text, (), None, "", (("refused", answer.reason or verdict.reason),),
                            held=False)
        return Finished(ANSWERED, answer.text, citations_of(outcome), reused, "",
                        (("sent", verdict.reason), *problems), held=False)

    def _handed_off(self, door: _Door) -> ChatReply:
        request = door.request
        reason = Problem("handoff", "会话已转人工：学员的新消息等顾问在「对话」页回复，小E 不作答")

        def file(at: Written) -> int:
            join = self.exchanges.pending_handoff_item(at.conn, at.conversation_row)
            return self.exchanges.review.file_in(at.conn, request.query, origin="handoff", join=join, reason=reason)
        finished = Finished(HANDED_OFF, self.settings.handoff_text, (), None, "",
                            (("handoff", "会话已转人工，小E 不作答"),), held=False)
        return door.record(finished, None, Standalone(request.query, request.query), refused=True, item=file)

    def _sensitive(self, door: _Door, hits) -> ChatReply:
        """A 敏感词: the configured reply, no retrieval and no model call; the message goes to lane 敏感内容."""
        request = door.request
        found = "、".join(dict.fromkeys(f"「{h.word}」" + (f"（{h.category}）" if h.category else "") for h in hits))
        why = f"学员消息里有敏感词：{found}；小E 回复了设置的固定回复，没有检索、没有调用模型"

        def file(at: Written) -> int:
            return self.exchanges.review.file_in(at.conn, request.query, origin="sensitive",
                                                 reason=Problem("sensitive", why), answer=self.settings.sensitive_reply)
        finished = Finished(REFUSED, self.settings.sensitive_reply, (), None, "", (("sensitive", why),), held=False)
        return door.record(finished, None, Standalone(request.query, request.query), refused=True, item=file)

    def _student_hand_off(self, door: _Door) -> ChatReply:
        """「人工」「转人工」: the conversation goes to a person (lane 转人工 with the thread); 小E stops answering it until
        a consultant hands it back. Outside the service hours the reply says when a person will answer."""
        request = door.request
        text = handoff_reply(self.settings, self.assistant().facts, self.clock())
        reason = Problem("student_handoff", "学员要求转人工：请在「对话」页接手回复，处理完点「交还小E」")

        def file(at: Written) -> int:
            self.exchanges.hand_off_in(at.conn, at.conversation_row, f"学员（{request.user}）")
            join = self.exchanges.pending_handoff_item(at.conn, at.conversation_row)
            thread = self.exchanges.thread_text(at.conn, at.conversation_row, latest=request.query)
            return self.exchanges.review.file_in(at.conn, request.query, origin="handoff", join=join, answer=thread,
                                                 reason=reason)
        finished = Finished(HANDED_OFF, text, (), None, "", (("student_handoff", "学员要求转人工"),), held=False)
        return door.record(finished, None, Standalone(request.query, request.query), refused=True, item=file)

    def messages(self, key: ApiKey, conversation_id: str, user: str, *, after: str | None,
                 limit: int) -> tuple[tuple[Released, ...], bool]:
        return self.conversations.messages(key, conversation_id, _identifier(user, "user", MAX_USER_CHARS),
                                           after=after, limit=limit)

    def give_feedback(self, key: ApiKey, message_id: str, user: object, rating: str | None,
                      reasons: list[str], content: str | None) -> Feedback:
        user = _identifier(user, "user", MAX_USER_CHARS)
        if isinstance(content, str):  # a student's own words: masked before they are stored, like a message
            content = mask(content, kinds=masked_kinds(self.settings.masking)).text
        return self.feedback.give(key, message_id, user, rating, reasons, content)


@dataclass(frozen=True)
class _Door:
    """One message past the door: its key, masked request, what `look` found, its limits, and the masking state to
    keep with it."""

    desk: StudentDesk
    key: ApiKey
    request: ChatRequest
    look: Look
    limits: tuple[Limit, ...]
    state: MaskState
    new_masks: tuple

    def record(self, finished: Finished, outcome: Outcome | None, standalone: Standalone, *, refused: bool,
               case: tuple = (), answer_words: tuple[tuple[str, ...], ...] = (),
               item: Callable[[Written], int | None] | None = None) -> ChatReply:
        """The one write: the exchange with its item, and beside it the placeholders and the turn of the
        conversation's context."""
        turns = self.desk.turns

        def also(at: Written) -> None:
            turns.keep_masks_in(at.conn, at.conversation_row, self.state, self.new_masks)
            turns.record_in(at.conn, conversation_row=at.conversation_row, exchange_id=at.exchange_id,
                            standalone=standalone, decision=finished.status, refused=refused, case=case,
                            answer_words=answer_words)
        return self.desk.exchanges.record(self.key, self.request, self.look, finished, outcome, limits=self.limits,
                                          item=item, also=also)


def citations_of(outcome: Outcome) -> tuple[Citation, ...]:
    """The answer's [n] as the student sees them: number, file and section (the checks' resolved references)."""
    report = outcome.answer.citations if outcome.answer is not None else None
    refs = report.refs if report is not None else ()
    return tuple(Citation(r.number, r.source, r.heading) for r in refs)

