"""The frozen values the review queue returns (items, events, counts, pages) and the filter it takes."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from core.errors import InvalidReview
from core.stores.review_dedup import Ask
from core.stores.review_marks import EXPECTED, FIXED, MISSING, Mark
from core.stores.review_schema import ACTION_LABELS, LANE_OF_CODE, LANES, STATUS_LABELS, lane_label
from core.values import Hit, Problem

SYSTEM_CODES = ("stale_corpus",)  # reasons the system adds to a decided item (core.stores.stale)
SORTS = ("-created", "created", "-id", "id", "-decided", "decided")


@dataclass(frozen=True)
class ReviewItem:
    """One queued answer with everything needed to judge it, as it was when it was queued."""

    id: int
    created_at: datetime
    origin: str
    question: str
    answer: str
    reasons: tuple[Problem, ...]
    threshold: float | None
    k: int | None
    candidates: tuple[Hit, ...]
    fingerprint: str
    status: str
    version: int
    flagged_by: str | None = None
    reviewer: str | None = None
    decided_at: datetime | None = None
    note: str | None = None
    corrected_answer: str | None = None
    ask_count: int = 1  # how many times this question was asked (re-runs with other sliders not counted)
    asks: tuple[Ask, ...] = ()  # who asked when; filled by `ReviewStore.get` only
    marks: tuple[Mark, ...] = ()  # 预期拒答 / 资料没写 / 资料已补充 (core.stores.review_marks)

    def mark(self, kind: str) -> Mark | None:
        return next((m for m in self.marks if m.kind == kind), None)

    @property
    def expected(self) -> Mark | None:
        """The 预期拒答 mark (its `detail` is the topic given), or None."""
        return self.mark(EXPECTED)

    @property
    def missing(self) -> Mark | None:
        """The 资料没写 mark (its `detail` is the note), or None."""
        return self.mark(MISSING)

    @property
    def fixed(self) -> Mark | None:
        """The 资料已补充 mark (its `detail` names the corpus version), or None."""
        return self.mark(FIXED)

    @property
    def lanes(self) -> tuple[str, ...]:
        """The origin lane first, then each reason lane once, in order of the reasons."""
        lanes = [self.origin]
        for problem in self.reasons:
            lane = LANE_OF_CODE.get(problem.code)
            if lane and lane not in lanes:
                lanes.append(lane)
        return tuple(lanes)

    @property
    def lane_labels(self) -> tuple[str, ...]:
        return tuple(lane_label(code) for code in self.lanes)

    @property
    def system_notes(self) -> tuple[str, ...]:
        """What the system wrote on the item (资料已更新), kept apart from the decision's own `note`."""
        return tuple(p.message for p in self.reasons if p.code in SYSTEM_CODES)

    @property
    def status_label(self) -> str:
        return STATUS_LABELS.get(self.status, self.status)

    def to_dict(self) -> dict:
        return {"id": self.id, "created_at": _iso(self.created_at), "origin": self.origin,
                "lanes": list(self.lanes), "lane_labels": list(self.lane_labels), "status": self.status,
                "status_label": self.status_label, "question": self.question, "answer": self.answer,
                "reasons": [p.to_dict() for p in self.reasons], "threshold": self.threshold, "k": self.k,
                "candidates": [h.to_dict() for h in self.candidates], "fingerprint": self.fingerprint,
                "version": self.version, "ask_count": self.ask_count, "flagged_by": self.flagged_by, "reviewer": self.reviewer,
                "decided_at": _iso(self.decided_at), "note": self.note, "system_notes": list(self.system_notes),
                "corrected_answer": self.corrected_answer,
                "marks": [{"kind": m.kind, "label": m.label, "detail": m.detail, "actor": m.actor, "at": _iso(m.at)}
                          for m in self.marks]}


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


@dataclass(frozen=True)
class ReviewEvent:
    """One line of an item's audit trail; events are never changed once written."""

    id: int
    item_id: int
    at: datetime
    actor: str
    action: str
    from_status: str | None
    to_status: str
    version: int
    note: str | None = None
    corrected_answer: str | None = None

    @property
    def action_label(self) -> str:
        return ACTION_LABELS.get(self.action, self.action)


@dataclass(frozen=True)
class QueueCounts:
    """Item counts per status, and per lane and status (an item counts once in each of its lanes)."""

    by_status: dict[str, int] = field(default_factory=dict)
    by_lane: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.by_status.values())

    def status(self, status: str) -> int:
        return self.by_status.get(status, 0)

    def lane(self, lane: str, status: str | None = None) -> int:
        per_status = self.by_lane.get(lane, {})
        return per_status.get(status, 0) if status else sum(per_status.values())


@dataclass(frozen=True)
class Page:
    """One page of a filtered, sorted list plus the size of the whole filtered set."""

    items: tuple[ReviewItem, ...]
    total: int
    offset: int
    limit: int


@dataclass(frozen=True)
class BulkResult:
    """What a bulk decision did: the ids decided, and the ids skipped with the reason in Chinese."""

    decided: tuple[int, ...]
    skipped: tuple[tuple[int, str], ...]
    not_reused: tuple[int, ...] = ()  # approved, but not made reusable: their text has problems to confirm


@dataclass(frozen=True)
class Filters:
    """What to show. `lane` is a lane code, `reason` a problem code; `until` is exclusive; `item` keeps one id
    (a pasted link to one item)."""

    status: str | None = None
    lane: str | None = None
    reason: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    search: str = ""
    item: int | None = None

    def __post_init__(self) -> None:
        if self.status is not None and self.status not in STATUS_LABELS:
            raise InvalidReview(f"状态「{self.status}」不存在，可选："
                                f"{'、'.join(f'{code}（{label}）' for code, label in STATUS_LABELS.items())}。")
        if self.lane is not None and self.lane not in LANES:
            raise InvalidReview(f"通道「{self.lane}」不存在，可选："
                                f"{'、'.join(f'{code}（{lane.label}）' for code, lane in LANES.items())}。")
        if self.since and self.until and self.since >= self.until:
            raise InvalidReview(f"开始时间（{self.since:%Y-%m-%d}）必须早于结束时间（{self.until:%Y-%m-%d}）。")
