"""Compare two stored runs question by question: the flips grouped by direction, both reasons, the aggregate
deltas, what differs in the state (knobs, glossary, answerer, grader, reuse, set) and which corpus sections
changed between the two fingerprints, with the side-by-side diff (core.corpus.diff).

Questions are matched by their text, else by core.language.text.question_key (the key a labelled set refuses
duplicates by); a question only one run has is listed apart, not as a flip. A flip
is a question whose outcome changed, or whose outcome stayed but whose check verdict (the batch run's check
codes) changed. No question is evaluated again: both sides are what the runs stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from core.corpus.diff import DiffRow, side_by_side
from core.evaluation.metrics import CORRECT_ANSWER, CORRECT_REFUSAL, FALSE_ANSWER, FALSE_REFUSAL, OUTCOMES, WRONG_SOURCE
from core.evaluation.runs import as_run, section_texts
from core.language.text import question_key
from core.stores.runs import NewRun, Run, RunFile, RunQuestion, RunStore

ANSWERED = frozenset({CORRECT_ANSWER, FALSE_ANSWER, WRONG_SOURCE})
REFUSED = frozenset({CORRECT_REFUSAL, FALSE_REFUSAL})
GOOD = frozenset({CORRECT_ANSWER, CORRECT_REFUSAL})
# Directions, in the order a compare lists them.
TO_REFUSED, TO_ANSWERED, SOURCE_CHANGED, CHECKS_CHANGED, OTHER = (
    "由答变拒", "由拒变答", "命中资料变了", "核对结果变了", "其他变化")
DIRECTIONS = (TO_REFUSED, TO_ANSWERED, SOURCE_CHANGED, CHECKS_CHANGED, OTHER)
MODIFIED, ADDED, REMOVED = "修改", "新增", "删除"


@dataclass(frozen=True)
class RunFlip:
    """One question whose result differs between the two runs."""

    question: str
    expected: str
    before: RunQuestion
    after: RunQuestion
    direction: str

    @property
    def better(self) -> bool:
        return self.after.outcome in GOOD and self.before.outcome not in GOOD

    @property
    def worse(self) -> bool:
        return self.before.outcome in GOOD and self.after.outcome not in GOOD

    def to_dict(self) -> dict:
        return {"question": self.question, "before": self.before.outcome, "after": self.after.outcome,
                "direction": self.direction, "expected": self.expected,
                "before_reason": self.before.reason, "after_reason": self.after.reason,
                "before_top_hit": self.before.top_hit, "after_top_hit": self.after.top_hit,
                "before_checks": list(self.before.checks), "after_checks": list(self.after.checks)}


@dataclass(frozen=True)
class SectionChange:
    heading: str
    change: str  # 修改 / 新增 / 删除
    diff: tuple[DiffRow, ...]

    def to_dict(self) -> dict:
        return {"heading": self.heading, "change": self.change,
                "diff": [{"old_no": r.old_no, "old": r.old, "new_no": r.new_no, "new": r.new, "kind": r.kind}
                         for r in self.diff]}


@dataclass(frozen=True)
class FileChange:
    """A corpus file whose bytes differ between the runs (or that only one of them had)."""

    file: str
    change: str
    before_version: int | None
    after_version: int | None
    sections: tuple[SectionChange, ...]

    def to_dict(self) -> dict:
        return {"file": self.file, "change": self.change, "before_version": self.before_version,
                "after_version": self.after_version, "sections": [s.to_dict() for s in self.sections]}


@dataclass(frozen=True)
class RunComparison:
    before: Run
    after: Run
    flips: tuple[RunFlip, ...]
    only_before: tuple[str, ...]  # questions the second run does not have
    only_after: tuple[str, ...]
    counts: tuple[tuple[str, int, int], ...]  # (outcome, before, after), OUTCOMES first
    knobs: dict[str, tuple[object, object]]
    settings: dict[str, tuple[object, object]]  # set, glossary, answerer, grader, reuse that differ
    glossary_added: tuple[tuple[str, str], ...]
    glossary_removed: tuple[tuple[str, str], ...]
    files: tuple[FileChange, ...]

    def grouped(self) -> tuple[tuple[str, tuple[RunFlip, ...]], ...]:
        """The flips by direction (DIRECTIONS order), empty groups left out."""
        return tuple((d, group) for d in DIRECTIONS if (group := tuple(f for f in self.flips if f.direction == d)))

    @property
    def correct(self) -> tuple[int, int]:
        return self.before.info.correct, self.after.info.correct

    def to_json(self) -> dict:
        return {"flips": [f.to_dict() for f in self.flips],
                "changed": {"knobs": {k: {"before": a, "after": b} for k, (a, b) in self.knobs.items()},
                            "files": [f.to_dict() for f in self.files],
                            **{k: {"before": a, "after": b} for k, (a, b) in self.settings.items()},
                            "glossary_added": [list(p) for p in self.glossary_added],
                            "glossary_removed": [list(p) for p in self.glossary_removed]},
                "before": self.before.name, "after": self.after.name,
                "counts": {o: {"before": a, "after": b, "delta": b - a} for o, a, b in self.counts},
                "correct": {"before": self.correct[0], "after": self.correct[1]},
                "only_before": list(self.only_before), "only_after": list(self.only_after)}


def direction(before: RunQuestion, after: RunQuestion) -> str | None:
    """Which way one question moved, None when it did not."""
    a, b = before.outcome, after.outcome
    if a == b:
        return CHECKS_CHANGED if before.checks != after.checks else None
    if a in ANSWERED and b in REFUSED:
        return TO_REFUSED
    if a in REFUSED and b in ANSWERED:
        return TO_ANSWERED
    if a in ANSWERED and b in ANSWERED:
        return SOURCE_CHANGED
    return OTHER


def compare(before: Run, after: Run, texts: Mapping[str, str]) -> RunComparison:
    """`texts` maps section sha256 → text (RunStore.section_texts) for the diffs."""
    pairs, only_before, only_after = match(before.questions, after.questions)
    flips = [RunFlip(q.question, q.expected, q, other, d) for q, other in pairs
             if (d := direction(q, other)) is not None]
    outcomes = list(OUTCOMES) + sorted(({*before.info.counts, *after.info.counts}) - set(OUTCOMES))
    counts = tuple((o, int(before.info.counts.get(o, 0)), int(after.info.counts.get(o, 0))) for o in outcomes)
    knobs = {k: (before.info.knobs.get(k), after.info.knobs.get(k))
             for k in dict.fromkeys([*before.info.knobs, *after.info.knobs])
             if before.info.knobs.get(k) != after.info.knobs.get(k)}
    a, b = before.info, after.info
    setups: dict[str, tuple[object, object]] = {
        "set": (_set_label(a), _set_label(b)), "answerer": (a.answerer, b.answerer),
        "grader": (a.grader, b.grader), "reuse": (a.reuse, b.reuse),
        "glossary": (a.glossary_fingerprint, b.glossary_fingerprint)}
    settings = {k: v for k, v in setups.items() if v[0] != v[1]}
    if a.set_hash != b.set_hash and "set" not in settings:
        settings["set"] = (f"{_set_label(a)}（{a.set_hash[:8]}）", f"{_set_label(b)}（{b.set_hash[:8]}）")
    gloss_a, gloss_b = set(before.glossary), set(after.glossary)
    return RunComparison(
        before=before, after=after, flips=tuple(flips),
        only_before=only_before, only_after=only_after,
        counts=counts, knobs=knobs, settings=settings,
        glossary_added=tuple(sorted(gloss_b - gloss_a)), glossary_removed=tuple(sorted(gloss_a - gloss_b)),
        files=file_changes(before.files, after.files, texts))


def match(before: tuple[RunQuestion, ...], after: tuple[RunQuestion, ...]
          ) -> tuple[list[tuple[RunQuestion, RunQuestion]], tuple[str, ...], tuple[str, ...]]:
    """Pairs of the same question (same text, else same question_key), then the questions of each side
    without a partner. The key is computed only for questions whose text has no exact partner."""
    texts = {q.question for q in before}
    exact = {q.question: q for q in after}
    keyed = {question_key(q.question): q for q in after if q.question not in texts}
    pairs, alone = [], []
    used: set[str] = set()
    for q in before:
        other = exact.get(q.question)
        if other is None:
            other = keyed.get(question_key(q.question))
        if other is None:
            alone.append(q.question)
            continue
        pairs.append((q, other))
        used.add(other.question)
    return pairs, tuple(alone), tuple(q.question for q in after if q.question not in used)


def file_changes(before: tuple[RunFile, ...], after: tuple[RunFile, ...], texts: Mapping[str, str]
                 ) -> tuple[FileChange, ...]:
    old, new = {f.name: f for f in before}, {f.name: f for f in after}
    changes = []
    for name in sorted({*old, *new}):
        a, b = old.get(name), new.get(name)
        if a is not None and b is not None and a.sha256 == b.sha256:
            continue
        change = MODIFIED if a is not None and b is not None else (ADDED if a is None else REMOVED)
        changes.append(FileChange(name, change, a.version if a else None, b.version if b else None,
                                  section_changes(a.sections if a else (), b.sections if b else (), texts)))
    return tuple(changes)


def section_changes(before: tuple[tuple[str, str], ...], after: tuple[tuple[str, str], ...],
                    texts: Mapping[str, str]) -> tuple[SectionChange, ...]:
    old, new = dict(before), dict(after)
    out = []
    for heading in dict.fromkeys([*(h for h, _ in after), *(h for h, _ in before)]):
        a, b = old.get(heading), new.get(heading)
        if a == b:
            continue
        change = MODIFIED if a and b else (ADDED if a is None else REMOVED)
        out.append(SectionChange(heading, change, side_by_side(texts.get(a, "") if a else "",
                                                               texts.get(b, "") if b else "")))
    return tuple(out)


def compare_stored(store: RunStore, before: str, after: str) -> RunComparison:
    """Load both runs and the texts of the sections that differ, then `compare`."""
    a, b = store.load(before), store.load(after)
    by_file = {f.name: f for f in a.files}
    hashes: set[str] = set()
    for f in b.files:
        other = by_file.get(f.name)
        if other is None or other.sha256 != f.sha256:
            hashes |= {s for _, s in f.sections} | ({s for _, s in other.sections} if other else set())
    names = {f.name for f in b.files}
    hashes |= {s for f in a.files if f.name not in names for _, s in f.sections}
    return compare(a, b, store.section_texts(hashes))


def compare_with_baseline(store: RunStore, new: NewRun) -> RunComparison | None:
    """The baseline (RunStore.baseline) → an unsaved run; None when no baseline was marked."""
    name = store.baseline()
    if name is None:
        return None
    before = store.load(name)
    texts = store.section_texts(s for f in before.files for _, s in f.sections)
    return compare(before, as_run(new), {**texts, **section_texts(new)})


def _set_label(info) -> str:
    return f"{info.set_name}" + (f" 第 {info.set_version} 版" if info.set_version is not None else "")
