"""Calibrate the reuse threshold (core.reuse.match similarity) on pairs of labelled questions, the way the gate's
knobs are calibrated: on the calibration sets, by a written rule, written by `python -m core calibrate --write`.

Pairs come from the calibration sets' answerable questions (core.evaluation.calibration.CALIBRATION_SETS): two
questions whose labels name the same fact (`same_fact`: same file and section, a key-phrase wording in common)
ask the same thing — a paraphrase, which an approved answer to one should answer for the other; two questions
about different facts of the same file that share a weighted word are another topic, which it must not answer. The approved answer of a pair
cites the chunk holding its question's fact. Every guard but the threshold is applied as the Assistant applies
it (a pair stopped by the student's case or by a chunk outside the candidates never reaches the threshold),
and the rule below picks the threshold. The blind reuse set (bench/data/reuse_set.csv) never takes part.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from core.assistant import Assistant
from core.evaluation.metrics import holds_fact
from core.language.text import normalize
from core.retrieval.hashes import corpus_hashes, sha256_text
from core.reuse.guards import check
from core.sets.format import LabelledQuestion, key_phrases
from core.values import ApprovedAnswer, Citation, Retrieval
from core.values.reuse import ACTIVE

WRONG_REUSE_COST = 5  # a wrong approved answer served with a consultant's name on it, against a missed reuse (1)
GRID = tuple(round(0.30 + 0.01 * i, 2) for i in range(71))  # 0.30 … 1.00
RULE = (f"代价最低：每个该复用却没复用的同义问法记 1，每个复用到别的话题上的记 {WRONG_REUSE_COST}"
        "（带着顾问名字的错误答案比转人工代价高得多）；代价最低的阈值连成一片时取中间。")


@dataclass(frozen=True)
class ReuseCalibration:
    """What the rule chose, and the pairs it was chosen on."""

    threshold: float
    plateau: tuple[float, float]
    paraphrases: int  # pairs that reached the threshold guard
    other_topics: int
    reused_paraphrases: int  # at the chosen threshold
    reused_other_topics: int
    cost: int


def same_fact(a: LabelledQuestion, b: LabelledQuestion) -> bool | None:
    """True when the two labels name the same fact (same file and section, and one wording of a key phrase
    contains one of the other's: 「3600 元」 in 「入门级（一级）：3600 元」), False when they name different facts
    (no wording in common), None when the labels cannot tell (a label without a key phrase)."""
    if a.expected != b.expected:
        return False
    if not a.key_phrase or not b.key_phrase:
        return None
    ours, theirs = _wordings(a), _wordings(b)
    if any(x in y or y in x for x in ours for y in theirs):
        return a.section == b.section or not a.section or not b.section
    return False


def _wordings(q: LabelledQuestion) -> list[str]:
    return [normalize(w) for w in key_phrases(q.key_phrase) if normalize(w)]


def _approved(q: LabelledQuestion, retrieval: Retrieval, number: int) -> ApprovedAnswer | None:
    """An approved answer for `q` citing the first candidate that holds its fact (None when none does)."""
    hit = next((h for h in retrieval.candidates if holds_fact(q, h)), None)
    if hit is None:
        return None
    return ApprovedAnswer(id=number, question=q.question, text="[1]", status=ACTIVE, version=1, approver="校准",
                          approved_at=datetime(2026, 1, 1, tzinfo=UTC), item_id=None, fingerprint="",
                          citations=(Citation(1, hit.source, hit.heading, hit.chunk, sha256_text(hit.text)),))


def similarities(assistant: Assistant, questions: Sequence[LabelledQuestion]) -> tuple[list[float], list[float]]:
    """(similarity of every paraphrase pair, of every other-topic pair) that passed every guard but the threshold."""
    answerable = [q for q in questions if not q.should_refuse]
    retrievals = [assistant.retrieve(q.question) for q in answerable]
    gates = [assistant.gate(r) for r in retrievals]
    approved = [_approved(q, r, i) for i, (q, r) in enumerate(zip(answerable, retrievals))]
    hashes = corpus_hashes(assistant.index)
    candidate_hashes = [{sha256_text(h.text) for h in r.candidates} for r in retrievals]
    paraphrase, other = [], []
    for i, old in enumerate(approved):
        if old is None:
            continue
        for j, new in enumerate(answerable):
            if i == j or new.question == answerable[i].question or new.expected != answerable[i].expected:
                continue
            same = same_fact(new, answerable[i])
            if same is None:
                continue
            result = check(old, retrievals[i].terms, retrievals[j], gates[j], hashes, candidate_hashes[j], 0.0)
            if not result.served:
                continue  # stopped before the threshold (case, chunks, no passing chunk)
            if same:
                paraphrase.append(result.similarity)
            elif result.similarity > 0:
                other.append(result.similarity)
    return paraphrase, other


def calibrate_reuse(assistant: Assistant, questions: Sequence[LabelledQuestion]) -> ReuseCalibration:
    paraphrase, other = similarities(assistant, questions)
    costs = {t: sum(s < t for s in paraphrase) + WRONG_REUSE_COST * sum(s >= t for s in other) for t in GRID}
    best = min(costs.values())
    lowest = [t for t in GRID if costs[t] == best]
    run = _longest_run(lowest)
    threshold = run[len(run) // 2]
    return ReuseCalibration(threshold=threshold, plateau=(run[0], run[-1]), paraphrases=len(paraphrase),
                            other_topics=len(other), reused_paraphrases=sum(s >= threshold for s in paraphrase),
                            reused_other_topics=sum(s >= threshold for s in other), cost=best)


def _longest_run(values: Sequence[float]) -> list[float]:
    """The longest run of consecutive grid values (the first one when several are as long)."""
    runs: list[list[float]] = []
    for value in values:
        if runs and round(value - runs[-1][-1], 2) == 0.01:
            runs[-1].append(value)
        else:
            runs.append([value])
    return max(runs, key=len)
