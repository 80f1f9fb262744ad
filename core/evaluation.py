"""Evaluate a labelled question set: retrieve once, then score any threshold and k with numpy alone.

Retrieval runs once per question at MAX_TOP_K (`retrieve_set`). Because candidates come best
first, two numbers per question decide every outcome for a given k:
  top1        the best candidate's score: the question is answered iff top1 >= threshold;
  match_k     the best score among the first k candidates that match the expectation:
              a correct chunk passes iff match_k >= threshold.
So `evaluate_at` and `sweep` never retrieve again; a threshold move is a few vector compares.

Metrics (positive class for refusal metrics = "should refuse"):
  answered rate        answered / all questions;
  refusal precision    正确拒答 / all refusals; recall 正确拒答 / should-refuse questions; F1;
  hit@k                正确回答 / answerable questions (a passing chunk within k matches);
  balanced accuracy    (hit@k + refusal recall) / 2, the mean of each class's success rate;
                       when a class is absent from the set, the rate of the other class.
Suggested threshold: the grid value (0.00–1.00, step 0.01) with the highest balanced accuracy;
ties go to the widest margin, margin = the distance from the threshold to the nearest top-1 score
of any question (either side), so small score drifts flip as few outcomes as possible; remaining
ties go to the lowest threshold.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from core.errors import ConfigError
from core.index import SearchIndex
from core.question_set_format import LabelledQuestion, QuestionSet, holds_key_phrase
from core.rag import Hit, retrieve
from core.settings import MAX_TOP_K
from core.text import normalize

OUTCOMES = ("正确回答", "正确拒答", "误拒", "误答", "命中错误资料")
CORRECT_ANSWER, CORRECT_REFUSAL, WRONG_REFUSAL, WRONG_ANSWER, WRONG_SOURCE = range(len(OUTCOMES))
GOOD_OUTCOMES = frozenset({OUTCOMES[CORRECT_ANSWER], OUTCOMES[CORRECT_REFUSAL]})
GRID = np.round(np.arange(101) / 100, 2)
_OUTCOME_LABELS = np.array(OUTCOMES, dtype=object)
_NONE = -np.inf  # score of "no such candidate": below every threshold, including 0.0


def chunk_matches(question: LabelledQuestion, hit: Hit) -> bool:
    """A chunk is correct when it is from the expected file and then, most precise first: contains
    the key phrase if one is given (any of its `|` wordings, after `normalize`; the section is then
    not needed, so an FAQ chunk stating the same fact counts, as in core.answerability.holds_fact),
    else is in the expected section if one is given, else any chunk of that file."""
    if question.should_refuse or hit.source != question.expected:
        return False
    if question.key_phrase:
        return holds_key_phrase(hit.text, question.key_phrase)
    return not question.section or normalize(hit.heading) == normalize(question.section)


@dataclass(frozen=True, eq=False)
class RetrievedSet:
    """The candidates' scores (n × MAX_TOP_K, -inf where missing) and which candidates match."""

    questions: tuple[LabelledQuestion, ...]
    scores: np.ndarray
    matches: np.ndarray
    should_refuse: np.ndarray
    top_labels: tuple[str, ...]  # 「file · heading」 of each question's best candidate
    fingerprint: str = ""
    content_hash: str = ""

    def __len__(self) -> int:
        return len(self.questions)

    @property
    def lines(self) -> tuple[int, ...]:
        return tuple(q.line for q in self.questions)

    @property
    def texts(self) -> tuple[str, ...]:
        return tuple(q.question for q in self.questions)

    @property
    def expectations(self) -> tuple[str, ...]:
        return tuple(q.expectation for q in self.questions)

    @property
    def top1(self) -> np.ndarray:
        return self.scores[:, 0] if self.scores.shape[1] else np.full(len(self), _NONE)

    @classmethod
    def from_scores(cls, questions: Sequence[LabelledQuestion], scores: Sequence[Sequence[float]],
                    matches: Sequence[Sequence[bool]], *, fingerprint: str = "") -> RetrievedSet:
        """Build from per-question candidate scores (best first) and match flags, without an index."""
        n = len(questions)
        score_array = np.full((n, MAX_TOP_K), _NONE)
        match_array = np.zeros((n, MAX_TOP_K), dtype=bool)
        for row, (row_scores, row_matches) in enumerate(zip(scores, matches)):
            if len(row_scores) != len(row_matches) or len(row_scores) > MAX_TOP_K:
                raise ValueError(f"row {row}: {len(row_scores)} scores and {len(row_matches)} match flags "
                                 f"(both must be equal and at most {MAX_TOP_K})")
            if list(row_scores) != sorted(row_scores, reverse=True):
                raise ValueError(f"row {row}: scores {list(row_scores)} must be sorted best first")
            score_array[row, :len(row_scores)] = row_scores
            match_array[row, :len(row_matches)] = row_matches
        return _frozen(tuple(questions), score_array, match_array, ("",) * n, fingerprint, "")

    def match_score(self, k: int) -> np.ndarray:
        """Per question, the best score among matching candidates in the first k (-inf if none)."""
        _check_k(k)
        return np.where(self.matches[:, :k], self.scores[:, :k], _NONE).max(axis=1, initial=_NONE)

    def match_rank(self, k: int) -> np.ndarray:
        """1-based rank of the first matching candidate within k, 0 when none matches."""
        found = self.matches[:, :k]
        return np.where(found.any(axis=1), found.argmax(axis=1) + 1, 0)


def retrieve_set(questions: QuestionSet | Sequence[LabelledQuestion], index: SearchIndex, *,
                 fingerprint: str = "", progress: Callable[[int, int], None] | None = None) -> RetrievedSet:
    """Retrieve every question once at MAX_TOP_K; `progress(done, total)` is called after each."""
    items = tuple(questions.questions if isinstance(questions, QuestionSet) else questions)
    scores = np.full((len(items), MAX_TOP_K), _NONE)
    matches = np.zeros((len(items), MAX_TOP_K), dtype=bool)
    labels = []
    for row, question in enumerate(items):
        hits = retrieve(question.question, index, MAX_TOP_K)
        for col, hit in enumerate(hits):
            scores[row, col] = hit.score  # the same float `select` compares, so outcomes agree
            matches[row, col] = chunk_matches(question, hit)
        labels.append(f"{hits[0].source} · {hits[0].heading}" if hits else "")
        if progress:
            progress(row + 1, len(items))
    content_hash = questions.content_hash if isinstance(questions, QuestionSet) else ""
    return _frozen(items, scores, matches, tuple(labels), fingerprint, content_hash)


def _frozen(questions: tuple[LabelledQuestion, ...], scores: np.ndarray, matches: np.ndarray,
            labels: tuple[str, ...], fingerprint: str, content_hash: str) -> RetrievedSet:
    should_refuse = np.array([q.should_refuse for q in questions], dtype=bool)
    for array in (scores, matches, should_refuse):
        array.flags.writeable = False  # shared through caches: never mutated
    return RetrievedSet(questions, scores, matches, should_refuse, labels, fingerprint, content_hash)


@dataclass(frozen=True)
class Metrics:
    """The numbers of one (threshold, k); rates are None when their denominator is zero."""

    threshold: float
    k: int
    total: int
    answerable: int
    unanswerable: int
    counts: tuple[int, ...]  # per OUTCOMES, in that order
    answered_rate: float | None
    refusal_precision: float | None
    refusal_recall: float | None
    refusal_f1: float | None
    hit_at_k: float | None
    balanced_accuracy: float | None

    def count(self, outcome: str) -> int:
        return self.counts[OUTCOMES.index(outcome)]

    def to_dict(self) -> dict:
        return {"threshold": self.threshold, "k": self.k, "total": self.total, "answerable": self.answerable,
                "unanswerable": self.unanswerable, "counts": dict(zip(OUTCOMES, self.counts)),
                **{name: None if value is None else round(value, 6) for name, value in (
                    ("answered_rate", self.answered_rate), ("refusal_precision", self.refusal_precision),
                    ("refusal_recall", self.refusal_recall), ("refusal_f1", self.refusal_f1),
                    ("hit_at_k", self.hit_at_k), ("balanced_accuracy", self.balanced_accuracy))}}


@dataclass(frozen=True, eq=False)
class Evaluation:
    """Metrics plus every question's outcome code (index into OUTCOMES) at one (threshold, k)."""

    metrics: Metrics
    codes: np.ndarray
    match_ranks: np.ndarray

    def outcome(self, i: int) -> str:
        return OUTCOMES[int(self.codes[i])]


def outcome_codes(answered: np.ndarray, correct: np.ndarray, should_refuse: np.ndarray) -> np.ndarray:
    """Outcome codes from three boolean vectors (broadcasts: rows may be thresholds)."""
    answerable_code = np.where(answered, np.where(correct, CORRECT_ANSWER, WRONG_SOURCE), WRONG_REFUSAL)
    refuse_code = np.where(answered, WRONG_ANSWER, CORRECT_REFUSAL)
    return np.where(should_refuse, refuse_code, answerable_code).astype(np.int8)


def evaluate_at(retrieved: RetrievedSet, threshold: float, k: int) -> Evaluation:
    """Outcomes and metrics at one threshold and k, from the stored scores (no retrieval)."""
    threshold = _check_threshold(threshold)
    answered = retrieved.top1 >= threshold
    correct = retrieved.match_score(k) >= threshold
    codes = outcome_codes(answered, correct, retrieved.should_refuse)
    counts = np.bincount(codes, minlength=len(OUTCOMES))
    metrics = _metrics(threshold, k, counts[None, :])
    return Evaluation(metrics=_one(metrics, 0), codes=codes, match_ranks=retrieved.match_rank(k))


@dataclass(frozen=True, eq=False)
class Sweep:
    """Metric curves over GRID at one k, and the suggested threshold with its margin."""

    k: int
    thresholds: np.ndarray
    answered_rate: np.ndarray  # NaN where undefined
    refusal_precision: np.ndarray
    refusal_recall: np.ndarray
    refusal_f1: np.ndarray
    hit_at_k: np.ndarray
    balanced_accuracy: np.ndarray
    margins: np.ndarray
    suggested: float
    suggested_margin: float
    lowest_answerable_top: float | None  # the gap a threshold can sit in, as in settings.CALIBRATION
    highest_unanswerable_top: float | None

    CURVES = {"answered_rate": "回答率", "refusal_precision": "拒答精确率", "refusal_recall": "拒答召回率",
              "refusal_f1": "拒答 F1", "hit_at_k": "hit@k", "balanced_accuracy": "平衡准确率"}

    def long_rows(self) -> list[dict]:
        """(threshold, metric label, value) rows for a chart; undefined points are left out."""
        rows = []
        for attr, label in self.CURVES.items():
            for t, value in zip(self.thresholds, getattr(self, attr)):
                if not np.isnan(value):
                    rows.append({"阈值": float(t), "指标": label, "数值": float(value)})
        return rows


def sweep(retrieved: RetrievedSet, k: int, thresholds: np.ndarray = GRID) -> Sweep:
    """Every metric at every threshold of the grid, vectorised (thresholds × questions)."""
    _check_k(k)
    t = np.asarray(thresholds, dtype=float)[:, None]
    answered = retrieved.top1[None, :] >= t
    correct = retrieved.match_score(k)[None, :] >= t
    codes = outcome_codes(answered, correct, retrieved.should_refuse[None, :])
    counts = np.stack([(codes == c).sum(axis=1) for c in range(len(OUTCOMES))], axis=1)
    m = _metrics(thresholds, k, counts)
    margins = _margins(np.asarray(thresholds, dtype=float), retrieved.top1)
    best = _suggest(m["balanced_accuracy"], margins)
    top1 = retrieved.top1
    answerable_tops = top1[~retrieved.should_refuse & np.isfinite(top1)]
    refuse_tops = top1[retrieved.should_refuse & np.isfinite(top1)]
    return Sweep(k=k, thresholds=np.asarray(thresholds, dtype=float), **{name: m[name] for name in Sweep.CURVES},
                 margins=margins, suggested=float(thresholds[best]), suggested_margin=float(margins[best]),
                 lowest_answerable_top=float(answerable_tops.min()) if answerable_tops.size else None,
                 highest_unanswerable_top=float(refuse_tops.max()) if refuse_tops.size else None)


@dataclass(frozen=True)
class Flip:
    """A question whose outcome differs between two settings; `better` when it becomes correct."""

    line: int
    question: str
    expectation: str
    top_score: float
    before: str
    after: str

    @property
    def better(self) -> bool:
        return self.after in GOOD_OUTCOMES and self.before not in GOOD_OUTCOMES

    @property
    def worse(self) -> bool:
        return self.before in GOOD_OUTCOMES and self.after not in GOOD_OUTCOMES


def what_if(retrieved: RetrievedSet, current: Evaluation, candidate: Evaluation) -> tuple[Flip, ...]:
    """Questions whose outcome changes from `current` to `candidate`, in set order."""
    changed = np.flatnonzero(current.codes != candidate.codes)
    top1 = retrieved.top1
    return tuple(Flip(line=retrieved.questions[i].line, question=retrieved.questions[i].question,
                      expectation=retrieved.questions[i].expectation,
                      top_score=float(top1[i]) if np.isfinite(top1[i]) else 0.0,
                      before=current.outcome(i), after=candidate.outcome(i)) for i in changed)


def outcome_columns(retrieved: RetrievedSet, evaluation: Evaluation) -> dict[str, Sequence]:
    """Per-question columns for a table (line, question, expectation, outcome, scores), built
    column-wise so a 1,000-question table costs no Python loop per slider move."""
    top1 = retrieved.top1
    ranks = evaluation.match_ranks
    return {"行号": retrieved.lines, "问题": retrieved.texts, "预期": retrieved.expectations,
            "结果": _OUTCOME_LABELS[evaluation.codes],
            "最高分": np.where(np.isfinite(top1), np.round(top1, 4), np.nan),
            "正确片段名次": np.where(ranks > 0, ranks, np.nan), "最高分片段": retrieved.top_labels}


def _metrics(thresholds, k: int, counts: np.ndarray) -> dict:
    """Vectorised metrics from outcome counts (rows = thresholds, columns = OUTCOMES)."""
    counts = counts.astype(float)
    ca, cr, wr, wa, ws = (counts[:, i] for i in range(len(OUTCOMES)))
    answerable, unanswerable = ca + wr + ws, cr + wa
    total = answerable + unanswerable
    with np.errstate(divide="ignore", invalid="ignore"):
        answered_rate = (ca + ws + wa) / total
        precision = cr / (cr + wr)
        recall = cr / unanswerable
        f1 = 2 * cr / (2 * cr + wr + wa)
        hit = ca / answerable
        balanced = np.nanmean(np.stack([hit, recall]), axis=0) if len(counts) else hit
    return {"thresholds": thresholds, "k": k, "counts": counts.astype(int), "answerable": answerable.astype(int),
            "unanswerable": unanswerable.astype(int), "answered_rate": answered_rate,
            "refusal_precision": precision, "refusal_recall": recall, "refusal_f1": f1, "hit_at_k": hit,
            "balanced_accuracy": balanced}


def _one(m: dict, row: int) -> Metrics:
    def value(name: str) -> float | None:
        v = float(m[name][row])
        return None if np.isnan(v) else v

    answerable, unanswerable = int(m["answerable"][row]), int(m["unanswerable"][row])
    return Metrics(threshold=float(m["thresholds"]), k=int(m["k"]), total=answerable + unanswerable,
                   answerable=answerable, unanswerable=unanswerable,
                   counts=tuple(int(c) for c in m["counts"][row]),
                   answered_rate=value("answered_rate"), refusal_precision=value("refusal_precision"),
                   refusal_recall=value("refusal_recall"), refusal_f1=value("refusal_f1"),
                   hit_at_k=value("hit_at_k"), balanced_accuracy=value("balanced_accuracy"))


def _margins(thresholds: np.ndarray, top1: np.ndarray) -> np.ndarray:
    tops = top1[np.isfinite(top1)]
    if not tops.size:
        return np.full(thresholds.shape, np.inf)
    return np.abs(thresholds[:, None] - tops[None, :]).min(axis=1)


def _suggest(balanced: np.ndarray, margins: np.ndarray) -> int:
    """Index of the best threshold: highest balanced accuracy, then widest margin, then lowest."""
    score = np.nan_to_num(balanced, nan=-1.0)
    tied = np.flatnonzero(score >= score.max() - 1e-12)
    widest = tied[margins[tied] >= margins[tied].max() - 1e-9]  # equal up to float noise
    return int(widest[0])


def _check_threshold(threshold: float) -> float:
    threshold = float(threshold)
    if not 0.0 <= threshold <= 1.0:
        raise ConfigError(f"阈值（{threshold}）必须在 0 到 1 之间。")
    return threshold


def _check_k(k: int) -> None:
    if not 1 <= int(k) <= MAX_TOP_K:
        raise ConfigError(f"k（{k}）必须在 1 到 {MAX_TOP_K} 之间。")
