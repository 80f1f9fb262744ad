"""The student desk: one student message in, one reply out — claimed once, answered by the one Assistant, held or
sent by the key's release policy, recorded with its queue item in one transaction.

`StudentDesk.message` is the single call the service's route makes. A replay (the same key, student and
client_msg_id) returns the stored reply without running the gate again; two identical requests at the same instant
make one exchange; a conversation a consultant took over is not answered by 小E (the student is told a person will
reply, and the message joins the conversation's 转人工 item).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from core.assistant import Assistant
from core.errors import AuthError, XiaoEError
from core.exchanges.policy import decide
from core.settings import Settings
from core.stores.api_keys import KeyStore
from core.stores.conversations import ConversationStore
from core.stores.db import Database
from core.stores.exchange_schema import MAX_CLIENT_ID_CHARS, MAX_PUBLIC_ID_CHARS, MAX_USER_CHARS
from core.stores.exchanges import Claim, ExchangeStore, Finished
from core.stores.feedback import FeedbackStore
from core.stores.rate_limits import Limit
from core.values import Problem
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

    @classmethod
    def open(cls, settings: Settings, db: Database, assistant: Callable[[], Assistant]) -> StudentDesk:
        return cls(settings, assistant, KeyStore(db), ExchangeStore(db), ConversationStore(db), FeedbackStore(db))

    def authenticate(self, secret: str | None, scope: str) -> ApiKey:
        """The key a bearer secret names, allowed `scope`; AuthError (401) or Forbidden (403)."""
        key = self.keys.authenticate(secret)
        if scope not in key.scopes:
            raise Forbidden(f"密钥「{key.name}」没有「{scope}」权限（它有：{'、'.join(key.scopes)}）：请管理员新建一个带 "
                            f"{scope} 权限的密钥。")
        return key

    def message(self, key: ApiKey, request: ChatRequest) -> ChatReply:
        """Answer one student message exactly once (see the module doc)."""
        claim = self.exchanges.claim(key, request, limits=self._limits(key, request.user),
                                     lease=timedelta(seconds=self.settings.service_lease_s))
        if claim.replay is not None:
            return claim.replay
        if claim.waiting_on:
            return self.exchanges.wait(claim.waiting_on, timeout_s=self.settings.service_lease_s)
        try:
            if claim.handed_off:
                return self._handed_off(claim, request)
            assistant = self.assistant()
            outcome = assistant.respond(request.query)
            return self.exchanges.finish(claim, self._finished(key, outcome, assistant.facts), outcome)
        except BaseException:
            self.exchanges.abandon(claim)  # a retry takes it over at once instead of waiting for the lease
            raise

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

    def _handed_off(self, claim: Claim, request: ChatRequest) -> ChatReply:
        def file(conn) -> int:
            join = self.exchanges.pending_handoff_item(conn, claim.conversation_row)
            return self.exchanges.review.file_in(
                conn, request.query, origin="handoff", join=join,
                reason=Problem("handoff", "会话已转人工：学员的新消息等顾问在「对话」页回复，小E 不作答"))
        finished = Finished(HANDED_OFF, self.settings.handoff_text, (), None, "",
                            (("handoff", "会话已转人工，小E 不作答"),), held=False)
        return self.exchanges.finish(claim, finished, None, handoff_item=file)

    def messages(self, key: ApiKey, conversation_id: str, user: str, *, after: str | None,
                 limit: int) -> tuple[tuple[Released, ...], bool]:
        return self.conversations.messages(key, conversation_id, _identifier(user, "user", MAX_USER_CHARS),
                                           after=after, limit=limit)

    def give_feedback(self, key: ApiKey, message_id: str, user: object, rating: str | None,
                      reasons: list[str], content: str | None) -> Feedback:
        return self.feedback.give(key, message_id, _identifier(user, "user", MAX_USER_CHARS), rating, reasons, content)


def citations_of(outcome: Outcome) -> tuple[Citation, ...]:
    """The answer's [n] as the student sees them: number, file and section (the checks' resolved references)."""
    report = outcome.answer.citations if outcome.answer is not None else None
    refs = report.refs if report is not None else ()
    return tuple(Citation(r.number, r.source, r.heading) for r in refs)

