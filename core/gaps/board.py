"""The 资料缺口 board: the review queue's refusals, rejected answers and 资料没写 items as topics.

`collect` reads the queue (core.stores.review.ReviewStore.iter_gap_items) into distinct questions (one per
`question_key`, with every asking counted), `analyse` retrieves each once through the one chain and groups
them (core.gaps.questions), `assemble` matches the groups to the stored topics (core.stores.gaps.GapStore.sync)
and builds what the page shows. `build_board` does all three; the page caches `analyse`, the expensive step.
A topic an admin marked 不补充 keeps its questions out of the queue: `keep_refused` marks its refusals
预期拒答, so their repeats join those items instead of opening new ones.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, cast

from core.checks.references import extract_refs
from core.gaps.grouping import Group, Grouping
from core.gaps.questions import group_retrievals, retrieve_all
from core.stores.gaps import DECLINED, OPEN, GapCheck, GapStore, GapTopic, TopicDraft
from core.stores.review import ReviewItem, ReviewStore
from core.stores.review_marks import question_hash
from core.stores.roles import SYSTEM_ACTOR

if TYPE_CHECKING:
    from core.assistant import Assistant

EXAMPLES = 3
PIN = "#"  # a hint naming a stored topic (「#12」), as against a topic a consultant typed


@dataclass(frozen=True)
class Section:
    """Where a fix would go: a file, its section and the chunk the question came nearest to."""

    source: str
    heading: str
    chunk: int

    @property
    def label(self) -> str:
        return f"「{self.source}」· {self.heading or '文首'}"


@dataclass(frozen=True)
class ItemRef:
    """A queue item behind a board question: enough to mark it 预期拒答 or record its fix."""

    id: int
    version: int
    origin: str
    status: str
    expected: bool


@dataclass(frozen=True)
class BoardQuestion:
    """One distinct question (one `question_key`) with every queue item and asking behind it."""

    key: str
    question: str  # as first asked
    items: tuple[ItemRef, ...]
    askings: int
    first_asked: datetime
    last_asked: datetime
    kinds: tuple[str, ...]  # 拒答 / 预期拒答 / 已驳回 / 资料没写
    notes: tuple[str, ...]  # the reviewers' notes
    cited: Section | None = None  # the section a rejected answer cited
    hint: str = ""  # the topic given with 预期拒答
    near_miss: Section | None = None  # the chunk it came nearest to, filled by `analyse`

    @property
    def target(self) -> Section | None:
        """Where 去补充资料 opens the editor: the section a rejected answer cited, else the nearest chunk."""
        return self.cited or self.near_miss


@dataclass(frozen=True)
class BoardTopic:
    """One topic as the board shows it: the stored topic (owner, status, latest re-check) and its questions."""

    topic: GapTopic
    questions: tuple[BoardQuestion, ...]  # most asked first
    near_miss: Section | None

    @property
    def id(self) -> int:
        return self.topic.id

    @property
    def label(self) -> str:
        return self.topic.label

    @property
    def askings(self) -> int:
        return sum(q.askings for q in self.questions)

    @property
    def examples(self) -> tuple[str, ...]:
        return tuple(q.question for q in self.questions[:EXAMPLES])

    @property
    def first_asked(self) -> datetime:
        return min(q.first_asked for q in self.questions)

    @property
    def last_asked(self) -> datetime:
        return max(q.last_asked for q in self.questions)

    @property
    def check(self) -> GapCheck | None:
        return self.topic.check

    @property
    def notes(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(n for q in self.questions for n in q.notes))


@dataclass(frozen=True)
class Analysis:
    """The expensive half of a board: each question's nearest chunk and the grouping."""

    near_misses: tuple[Section | None, ...]
    grouping: Grouping


@dataclass(frozen=True)
class Board:
    topics: tuple[BoardTopic, ...]  # most asked first
    noise: tuple[BoardQuestion, ...]  # questions that fit no topic (greetings, fragments, one-offs)
    closed: tuple[GapTopic, ...]  # every question passed the gate after a fix, newest first


def collect(review: ReviewStore, gaps: GapStore | None = None) -> tuple[BoardQuestion, ...]:
    """The queue's gap items as distinct questions, in the order first asked. A question an admin placed (merged or
    moved: GapStore.pins), or already in a topic an admin decided (不补充 or 已补充) or began to fix (re-checked
    once), carries that topic as its hint (「#12」), so regrouping on the changed corpus keeps it there; else a
    topic a consultant gave with 预期拒答 is its hint."""
    pinned = {key: f"{PIN}{t.id}" for t in (gaps.topics() if gaps else ())
              if not t.closed and (t.status != OPEN or t.check is not None) for key in t.keys}
    pinned.update({key: f"{PIN}{topic}" for key, topic in (gaps.pins() if gaps else {}).items()})
    by_key: dict[str, list[ReviewItem]] = {}
    for item in review.iter_gap_items():
        by_key.setdefault(question_hash(item.question), []).append(item)
    questions = [_question(key, items, pinned.get(key, "")) for key, items in by_key.items()]
    return tuple(sorted(questions, key=lambda q: (q.first_asked, q.items[0].id)))


def analyse(assistant: Assistant, questions: Sequence[BoardQuestion]) -> Analysis:
    """Retrieve every question once (the current corpus and glossary) and group them."""
    retrievals = retrieve_all(assistant, [q.question for q in questions])
    near = tuple(Section(r.candidates[0].source, r.candidates[0].heading, r.candidates[0].chunk)
                 if r is not None and r.candidates else None for r in retrievals)
    return Analysis(near_misses=near, grouping=group_retrievals(retrievals, [q.hint for q in questions]))


def assemble(questions: Sequence[BoardQuestion], analysis: Analysis, gaps: GapStore) -> Board:
    """Match the grouping to the stored topics and build the board."""
    filled = [_with_near_miss(q, s) for q, s in zip(questions, analysis.near_misses)]
    groups = [tuple(sorted((filled[i] for i in g.members), key=lambda q: (-q.askings, q.first_asked)))
              for g in analysis.grouping.groups]
    drafts = [TopicDraft(label=topic_label(g), terms=g.terms, keys=tuple(q.key for q in members),
                         questions=tuple(q.question for q in members))
              for g, members in zip(analysis.grouping.groups, groups)]
    ids = gaps.sync(drafts)
    stored = {t.id: t for t in gaps.topics()}
    topics = [BoardTopic(topic=stored[i], questions=members, near_miss=_most_common_target(members))
              for i, members in zip(ids, groups)]
    topics.sort(key=lambda t: (-t.askings, t.id))
    closed = sorted((t for t in stored.values() if t.closed and t.merged_into is None),
                    key=lambda t: cast(datetime, t.closed_at), reverse=True)  # closed: closed_at is set
    return Board(topics=tuple(topics), noise=tuple(filled[i] for i in analysis.grouping.noise), closed=tuple(closed))


def build_board(assistant: Assistant, review: ReviewStore, gaps: GapStore, *, actor: str = SYSTEM_ACTOR) -> Board:
    """The whole board, with every 不补充 topic's refusals kept out of the queue."""
    questions = collect(review, gaps)
    board = assemble(questions, analyse(assistant, questions), gaps)
    keep_refused(board, review, actor=actor)
    return board


def keep_refused(board: Board, review: ReviewStore, *, actor: str = SYSTEM_ACTOR, authorize=None) -> int:
    """Mark every not yet expected refusal of a 不补充 topic 预期拒答 (its topic's label as the topic), so a
    repeat joins that item instead of opening a new one; returns how many items were marked."""
    marked = 0
    for topic in board.topics:
        if topic.topic.status != DECLINED:
            continue
        versions = {ref.id: ref.version for q in topic.questions for ref in q.items
                    if ref.origin == "refusal" and not ref.expected and ref.status in ("pending", "approved")}
        if versions:
            result = review.bulk_decide(versions, action="expect", reviewer=actor, topic=topic.label[:100],
                                        note="话题标为「不补充，保持拒答」", authorize=authorize)
            marked += len(result.decided)
    return marked


def _question(key: str, items: list[ReviewItem], pin: str) -> BoardQuestion:
    moments = [a.at for item in items for a in item.asks] or [item.created_at for item in items]
    kinds: list[str] = []
    notes: list[str] = []
    for item in items:
        if item.origin == "refusal":
            kinds.append("预期拒答" if item.expected else "拒答")
        if item.status == "rejected":
            kinds.append("已驳回")
        if item.missing:
            kinds.append("资料没写")
            notes.append(item.missing.detail or "")
        notes.append(item.note or "")
    hint = pin or next((item.expected.detail for item in items if item.expected and item.expected.detail), "")
    return BoardQuestion(
        key=key, question=items[0].question,
        items=tuple(ItemRef(i.id, i.version, i.origin, i.status, i.expected is not None) for i in items),
        askings=sum(i.ask_count for i in items), first_asked=min(moments), last_asked=max(moments),
        kinds=tuple(dict.fromkeys(kinds)), notes=tuple(dict.fromkeys(n for n in notes if n)),
        cited=next((s for s in map(cited_section, items) if s is not None), None), hint=hint)


def cited_section(item: ReviewItem) -> Section | None:
    """The section an answered item's first citation points at ([n] is the n-th passed candidate)."""
    if item.origin == "refusal" or not item.answer:
        return None
    passed = [h for h in item.candidates if h.passed]
    for n in extract_refs(item.answer):
        if 1 <= n <= len(passed):
            return Section(passed[n - 1].source, passed[n - 1].heading, passed[n - 1].chunk)
    return None


def topic_label(group: Group) -> str:
    """A topic consultants named (the topic given with 预期拒答) is called by that name; others by their words."""
    return group.hint if group.hint and not group.hint.startswith(PIN) else group.label


def _with_near_miss(question: BoardQuestion, section: Section | None) -> BoardQuestion:
    return replace(question, near_miss=section)


def _most_common_target(questions: Sequence[BoardQuestion]) -> Section | None:
    """The section most of a topic's askings point at (ties: the most asked question's)."""
    votes: Counter[Section] = Counter()
    for q in questions:
        if q.target is not None:
            votes[q.target] += q.askings
    if not votes:
        return None
    best = max(votes.values())
    return next(q.target for q in questions if q.target is not None and votes[q.target] == best)
