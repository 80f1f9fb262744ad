"""The values of the student service: an API key, a student's message and what came of it, a released message,
a student's feedback. Stores return them; the service turns them into JSON."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

# What one student message ends as, in the service's response (`status`).
ANSWERED, HELD, REFUSED, HANDED_OFF = "answered", "held", "refused", "handed_off"
STATUSES = (ANSWERED, HELD, REFUSED, HANDED_OFF)
# Release policies of a key (core.exchanges.policy): every answer held, flagged ones held, failed checks held.
POLICY_ALL, POLICY_FLAGGED, POLICY_AUTO = "all", "flagged", "auto"
POLICIES = (POLICY_ALL, POLICY_FLAGGED, POLICY_AUTO)
POLICY_LABELS = {POLICY_ALL: "全部先审（all）", POLICY_FLAGGED: "有疑点才审（flagged）", POLICY_AUTO: "检查不通过才审（auto）"}
SCOPES = ("chat", "feedback")
SCOPE_LABELS = {"chat": "提问", "feedback": "反馈"}
FEEDBACK_REASONS = ("答非所问", "信息不对", "信息不全", "和我的情况不符", "看不懂", "资料过期", "其他")
RATINGS = ("like", "dislike")


@dataclass(frozen=True)
class ApiKey:
    """A key the school's App (its backend) calls the service with; the secret itself is never stored."""

    id: int
    name: str
    prefix: str  # the first characters of the secret, to tell keys apart on the page
    scopes: tuple[str, ...]
    release: str  # the release policy as stored; `policy` is what it means
    webhook_url: str
    created_at: datetime
    created_by: str
    revoked_at: datetime | None = None
    revoked_by: str = ""
    last_used_at: datetime | None = None
    webhook_secret: str = field(default="", repr=False)

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None

    @property
    def policy(self) -> str:
        """The safe default wins: a missing or unknown stored value reads as `all` (every answer held)."""
        return self.release if self.release in POLICIES else POLICY_ALL


@dataclass(frozen=True)
class NewKey:
    """A key just made: the only moment its secret (and its webhook signing secret) can be shown."""

    key: ApiKey
    secret: str
    webhook_secret: str


@dataclass(frozen=True)
class Citation:
    """One [n] of an answer as the student sees it: the number and the file and section it maps back to."""

    n: int
    file: str
    section: str

    def to_dict(self) -> dict:
        return {"n": self.n, "file": self.file, "section": self.section}


@dataclass(frozen=True)
class ChatRequest:
    """A student's message as the App sent it, validated."""

    user: str
    conversation_id: str | None
    client_msg_id: str
    query: str


@dataclass(frozen=True)
class ChatReply:
    """What the service answers a student's message with; a replay returns the identical reply."""

    message_id: str
    conversation_id: str
    status: str
    answer: str
    citations: tuple[Citation, ...] = ()
    reused: bool = False
    replay: bool = False

    def to_dict(self) -> dict:
        return {"message_id": self.message_id, "conversation_id": self.conversation_id, "status": self.status,
                "answer": self.answer, "citations": [c.to_dict() for c in self.citations], "reused": self.reused}


@dataclass(frozen=True)
class Released:
    """A message released to the student after it was held (or written by a consultant): one outbox row."""

    seq: int  # the cursor the App pages with
    message_id: str
    reply_to: str  # the student's message it answers ("" for a consultant's message after a handoff)
    conversation_id: str
    user: str
    status: str
    answer: str
    citations: tuple[Citation, ...]
    released_at: datetime
    released_by: str

    @property
    def delivery_id(self) -> str:
        """The one id every webhook attempt of this message carries, so the App can drop a repeat."""
        return f"dlv_{self.message_id}"

    def to_dict(self) -> dict:
        return {"message_id": self.message_id, "reply_to": self.reply_to or None, "status": self.status,
                "answer": self.answer, "citations": [c.to_dict() for c in self.citations],
                "released_at": self.released_at.isoformat()}


@dataclass(frozen=True)
class Exchange:
    """One student message and everything that came of it, as the record keeps it."""

    id: int
    message_id: str
    key_name: str
    user: str
    conversation_id: str
    client_msg_id: str
    query: str
    status: str
    answer: str  # what the student was shown at once (the answer, the refusal, or the acknowledgement)
    draft: str  # the assistant's answer when it was held ("" otherwise)
    reasons: tuple[tuple[str, str], ...]  # (code, Chinese message) of the decision and the checks
    reused_id: int | None
    item_id: int | None
    policy: str
    created_at: datetime
    state: str  # "processing" while the assistant runs, "done" after
    gate_runs: int
    released: tuple[Released, ...] = ()
    feedback: tuple[Feedback, ...] = ()
    # How the message was read in its conversation (core.conversations): the standalone question the gate and the
    # answer used, how it was read (core.values.conversations kinds), its rules, and the turn it was derived from.
    standalone: str = ""
    read_as: str = ""
    rules: tuple[str, ...] = ()
    derived_from: str = ""

    @property
    def waiting(self) -> bool:
        """Held and nothing released yet: the student waits for a consultant."""
        return self.status == HELD and not any(r.reply_to == self.message_id for r in self.released)


@dataclass(frozen=True)
class Feedback:
    """A student's rating of one message they were shown; the last write wins, a null rating revokes."""

    message_id: str
    user: str
    rating: str | None
    reasons: tuple[str, ...]
    content: str
    updated_at: datetime
    item_id: int | None = None

    def to_dict(self) -> dict:
        return {"message_id": self.message_id, "user": self.user, "rating": self.rating,
                "reasons": list(self.reasons), "content": self.content, "updated_at": self.updated_at.isoformat()}


@dataclass(frozen=True)
class Conversation:
    """One conversation of one student through one key, as the 对话 page lists it."""

    id: str
    key_name: str
    user: str
    created_at: datetime
    last_at: datetime
    messages: int
    handed_off: bool
    waiting: int  # held messages not yet released
