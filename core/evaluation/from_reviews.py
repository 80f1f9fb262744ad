"""From the review queue to a labelled set: each decided item becomes a labelled question, and the questions are
added to a set as its next version (core.stores.question_sets), with where each came from.

The rules, one per decision:
- an approved answer (or an item approved or rejected with a correction) → an answerable question: the expected
  file and section are those of the first chunk the approved text cites, the key phrase is the longest stretch of
  the approved text that the cited chunk also holds (so core.evaluation.metrics.holds_fact finds it); editable
  before saving;
- an approved refusal, or an item marked 预期拒答 → a near miss: a question to refuse (应拒答);
- a rejected item without a correction and without the 预期拒答 mark says only "not this answer": it is skipped
  with a message saying what to record first.
Each question keeps its provenance (item id, reviewer, date). A question whose core.language.text.question_key is
already in the set, or that comes from an item already in it, is refused as a duplicate; nothing new → no version.
Saving checks the `edit_question_sets` permission inside the save's transaction (admins only when sign-in is on).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from core.checks.approval import citable
from core.language.text import question_key
from core.sets.format import LabelledQuestion, QuestionSet, questions_from_rows
from core.stores.question_sets import QuestionSetStore, SetVersion
from core.stores.review_approval import approval_of
from core.stores.review_models import ReviewItem
from core.stores.roles import Authorize

ANSWERABLE, NEAR_MISS = "可答题", "近似拒答题"
KEY_PHRASE_CHARS = (4, 24)  # the shortest stretch worth checking, and the longest kept
_CITATION = re.compile(r"\[\d+\]")
_SENTENCE = re.compile(r"[。！？；!?;\n]")
_EDGE = "，。；：、！？,.;:!? \n\t「」“”（）()"


@dataclass(frozen=True)
class Draft:
    """What one item becomes: a labelled question (None when it is skipped) and a sentence saying why."""

    item_id: int
    question: LabelledQuestion | None
    kind: str  # ANSWERABLE, NEAR_MISS, or "" when skipped
    note: str


@dataclass(frozen=True)
class AddResult:
    """What adding did: the new version (None when nothing was new), the questions added, and the items left out."""

    version: SetVersion | None
    added: tuple[LabelledQuestion, ...]
    duplicates: tuple[tuple[int, str], ...]  # (item id, question) already in the set
    skipped: tuple[tuple[int, str], ...]  # (item id, why)


def key_phrase(text: str, chunk: str) -> str:
    """The longest stretch of one sentence of `text` (citation marks removed) that `chunk` also holds, trimmed at
    punctuation and cut back to a clause boundary within KEY_PHRASE_CHARS[1] characters; "" when no sentence
    shares KEY_PHRASE_CHARS[0] characters with the chunk."""
    shortest, longest = KEY_PHRASE_CHARS
    best = ""
    for sentence in _SENTENCE.split(_CITATION.sub("", text)):
        m = difflib.SequenceMatcher(None, sentence, chunk, autojunk=False).find_longest_match(
            0, len(sentence), 0, len(chunk))
        found = sentence[m.a:m.a + m.size].strip(_EDGE)
        if len(found) > len(best):
            best = found
    if len(best) < shortest:
        return ""
    if len(best) > longest:
        cut = max(best.rfind(mark, 0, longest + 1) for mark in "，、,")
        best = (best[:cut] if cut >= shortest else best[:longest]).strip(_EDGE)
    return best


def draft_of(item: ReviewItem) -> Draft:
    """The labelled question one decided item becomes (see the module docstring for the rules)."""
    stamp = {"item_id": item.id, "reviewer": item.reviewer or (item.expected.actor if item.expected else ""),
             "reviewed_at": _date(item)}
    if item.expected is not None:
        return Draft(item.id, LabelledQuestion(item.question, **stamp), NEAR_MISS, "标为预期拒答 → 应拒答")
    if item.status not in ("approved", "rejected"):
        return Draft(item.id, None, "", "还没有复核，不能加入评测集")
    approval = approval_of(item, "approve" if item.status == "approved" else "reject", None)
    if approval is None:
        if item.status == "rejected":
            return Draft(item.id, None, "", "驳回时没有写出正确回答，也没有标为预期拒答：请在条目里写出正确回答，"
                                            "或标为预期拒答后再加入")
        if item.origin == "model_error":
            return Draft(item.id, None, "", "这是模型故障，不是小E 的判断，不能加入评测集")
        return Draft(item.id, LabelledQuestion(item.question, **stamp), NEAR_MISS, "拒答被通过 → 应拒答")
    if not approval.citations:
        return Draft(item.id, None, "", "通过的回答没有标注出处，无法确定预期资料；请在条目里改写并标注出处后再加入")
    first = approval.citations[0]
    hits = citable(item.candidates)
    chunk = hits[first.number - 1].text if 0 < first.number <= len(hits) else ""
    question = LabelledQuestion(item.question, first.source, first.heading, key_phrase(approval.text, chunk), **stamp)
    how = "改写后的回答" if approval.corrected else "通过的回答"
    return Draft(item.id, question, ANSWERABLE, f"{how}引用「{first.source} · {first.heading}」→ 可答题")


def drafts(items: Iterable[ReviewItem]) -> tuple[Draft, ...]:
    return tuple(draft_of(item) for item in items)


def add_to_set(store: QuestionSetStore, name: str, questions: Sequence[LabelledQuestion], *, author: str,
               skipped: Sequence[tuple[int, str]] = (), known_files: Collection[str] | None = None,
               known_sections: Mapping[str, Collection[str]] | None = None,
               authorize: Authorize | None = None) -> AddResult:
    """Append `questions` (each carrying its item_id) to the newest version of `name` (a new set when there is
    none) as one new version; duplicates are left out and reported. QuestionSetError names any invalid row."""
    versions = store.versions(name)
    current = store.load(name).questions.questions if versions else ()
    keys = {question_key(q.question) for q in current}
    items = {q.item_id for q in current if q.item_id is not None}
    added, duplicates = [], []
    for q in questions:
        key = question_key(q.question)
        if key in keys or (q.item_id is not None and q.item_id in items):
            duplicates.append((q.item_id or 0, q.question))
            continue
        keys.add(key)
        if q.item_id is not None:
            items.add(q.item_id)
        added.append(q)
    if not added:
        return AddResult(None, (), tuple(duplicates), tuple(skipped))
    rows = [q.to_row() for q in (*current, *added)]
    merged = questions_from_rows(rows, first_line=2, known_files=known_files, known_sections=known_sections)
    saved = store.save(name, QuestionSet(merged.questions), author=author,
                       note=f"从复核队列加入 {len(added)} 题", base_version=versions[0].version if versions else None,
                       authorize=authorize)
    return AddResult(saved, tuple(q for q in merged.questions[len(current):]), tuple(duplicates), tuple(skipped))


def add_items(store: QuestionSetStore, name: str, items: Iterable[ReviewItem], *, author: str,
              edits: Mapping[int, LabelledQuestion] | None = None, **options) -> AddResult:
    """`drafts` of `items`, with the reviewer's `edits` (by item id) applied, then `add_to_set`."""
    edits = edits or {}
    made = drafts(items)
    questions = [replace(edits[d.item_id], item_id=d.item_id, reviewer=d.question.reviewer,
                         reviewed_at=d.question.reviewed_at) if d.item_id in edits else d.question
                 for d in made if d.question is not None]
    skipped = [(d.item_id, d.note) for d in made if d.question is None]
    return add_to_set(store, name, questions, author=author, skipped=skipped, **options)


def _date(item: ReviewItem) -> str:
    moment = item.decided_at or (item.expected.at if item.expected else None)
    return moment.date().isoformat() if moment else ""
