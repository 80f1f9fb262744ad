"""Approved answers and their reuse: what a consultant approved, which chunks it cites, and what happened when a
new question was matched against it (served, or which guard stopped it)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

ACTIVE, SUSPENDED, RETIRED = "active", "suspended", "retired"
STATUS_LABELS = {ACTIVE: "使用中", SUSPENDED: "已暂停（资料已更新）", RETIRED: "已停用"}
SUSPENDED_NOTE = "资料已修改："  # how a suspension's note begins; the rest says what changed

# The guards, in the order they are checked; the first that fails says why an approved answer was not served.
GUARDS = ("retired", "stale", "no_passing", "chunks", "case", "match")
# A near miss worth showing a consultant beside the answer: at least this similar, stopped only by the student's
# case or by the match (core.reuse.guards).
NEAR_SIMILARITY = 0.5
GUARD_LABELS = {
    "retired": "已停用",
    "stale": "资料已修改",
    "no_passing": "没有达到阈值的片段",
    "chunks": "所引片段不在这次检索结果里",
    "case": "学员的情况不同",
    "match": "问题不够相近",
}


@dataclass(frozen=True)
class Citation:
    """One chunk an approved answer cites: where it was (file, section, chunk number) and its content hash."""

    number: int  # the [n] in the approved text
    source: str
    heading: str
    chunk: int
    sha256: str


@dataclass(frozen=True)
class ApprovedAnswer:
    """A consultant-approved answer to a question, as the store keeps it (the newest version)."""

    id: int
    question: str
    text: str
    citations: tuple[Citation, ...]
    status: str
    version: int
    approver: str
    approved_at: datetime
    item_id: int | None
    fingerprint: str  # the corpus it was approved against
    uses: int = 0
    last_used_at: datetime | None = None
    override: str = ""  # the checks' problems the approver approved over (empty when it passed them)
    questions: tuple[str, ...] = ()  # other wordings consultants linked to it as the same question, oldest first
    suspended_because: str = ""  # while suspended: what changed in the documents (the suspension's note)

    @property
    def phrasings(self) -> tuple[str, ...]:
        """The approved question, then every wording linked to it: what a new question is matched against."""
        return (self.question, *self.questions)

    @property
    def status_label(self) -> str:
        return STATUS_LABELS.get(self.status, self.status)


@dataclass(frozen=True)
class GuardResult:
    """One approved answer matched against a new question: the similarity, and the first guard that failed."""

    answer: ApprovedAnswer
    similarity: float
    failed: str = ""  # a GUARDS name; "" when every guard held
    detail: str = ""  # in Chinese: what differs (「金额：问题 4800 元，已审答案 4200 元」)
    wording: str = ""  # the closest wording when it is one a consultant linked, not the approved question

    @property
    def served(self) -> bool:
        return not self.failed

    def describe(self) -> str:
        """「情况不同：金额 4800 元 ≠ 4200 元」 or 「可复用（相似度 0.92）」."""
        if self.served:
            return f"可复用（相似度 {self.similarity:.2f}）"
        label = GUARD_LABELS.get(self.failed, self.failed)
        return f"{label}：{self.detail}" if self.detail else label


@dataclass(frozen=True)
class Reuse:
    """What the reuse step found for a question: the answer served (if any), and every approved answer checked
    with the guard that stopped it (`near` are the ones worth showing a consultant)."""

    served: GuardResult | None
    checked: tuple[GuardResult, ...] = ()
    threshold: float = 0.0

    @property
    def answer(self) -> ApprovedAnswer | None:
        return self.served.answer if self.served else None

    @property
    def near(self) -> tuple[GuardResult, ...]:
        """Approved answers stopped only by the student's case or by the match, at least NEAR_SIMILARITY similar,
        most similar first: 「相似已审答案（情况不同：……）」, never the answer."""
        return tuple(sorted((r for r in self.checked if r.failed in ("case", "match") and r.similarity >= NEAR_SIMILARITY),
                            key=lambda r: -r.similarity))

    def result_for(self, answer_id: int) -> GuardResult | None:
        return next((r for r in self.checked if r.answer.id == answer_id), None)

    def to_dict(self) -> dict:
        def guards(result: GuardResult) -> dict:
            checked = GUARDS[:GUARDS.index(result.failed)] if result.failed else GUARDS
            return {"id": result.answer.id, "similarity": round(result.similarity, 4), "passed": list(checked),
                    "failed": result.failed, "detail": result.detail, "linked_wording": result.wording or None}
        return {"threshold": self.threshold, "served": guards(self.served) if self.served else None,
                "near": [guards(r) for r in self.near]}
