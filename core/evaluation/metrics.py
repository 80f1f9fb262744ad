"""Evaluate a labelled question set with the one gate: outcomes and metrics at any knobs.

Each question is retrieved and ranked once by the Assistant (`evaluate_set`); after that, the
outcome at any knobs is the gate's own decision (`core.answerability.gate.decide`), so `python -m core eval`,
the tuning page and `python -m core ask` agree question by question. Curves, the score
distributions and the suggested knobs need the outcome at many knob values at once; they use
the same per-prefix measures as numpy arrays (`EvaluatedSet`), and a test checks that every
point equals the gate's decision.

One outcome vocabulary (OUTCOMES) and one rule for "answered with the right chunk"
(`holds_fact`): a passing chunk from the expected file that holds the key phrase (any of its `|`
wordings), else one in the expected section when no key phrase is given, else any chunk of
that file.

The cost of a setting: 1 for every 误拒 or 命中错误资料, FALSE_ANSWER_COST for every 误答 (an
invented policy told to a student costs twice a handoff to a human, the seed's rule).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from core.answerability.gate import decide
from core.errors import ConfigError, InvalidQuestion, QuestionSetError
from core.knobs import MAX_TOP_K, Knobs
from core.language.text import normalize
from core.sets.format import GONE_REASON, LabelledQuestion, QuestionSet, holds_key_phrase, mark_gone
from core.stores.question_sets import corpus_catalog
from core.values import Gate, Hit, Retrieval

CORRECT_ANSWER, CORRECT_REFUSAL, FALSE_REFUSAL, FALSE_ANSWER, WRONG_SOURCE = (
    "正确回答", "正确拒答", "误拒", "误答", "命中错误资料")
OUTCOMES = (CORRECT_ANSWER, CORRECT_REFUSAL, FALSE_REFUSAL, FALSE_ANSWER, WRONG_SOURCE)
GOOD_OUTCOMES = frozenset({CORRECT_ANSWER, CORRECT_REFUSAL})
FALSE_ANSWER_COST = 2.0
GRID = np.round(np.arange(101) / 100, 2)
_NONE = -np.inf  # ranking score of "no such candidate": below every threshold, including 0.0


def holds_fact(question: LabelledQuestion, hit: Hit) -> bool:
    """The one definition of a right chunk (passing or not: callers check `passed`)."""
    if question.should_refuse or question.gone or hit.source != question.expected:
        return False  # a row whose expected section is gone from the documents can only be a miss
    if question.key_phrase:
        return holds_key_phrase(hit.text, question.key_phrase)
    return not question.section or normalize(hit.heading) == normalize(question.section)


def row_reason(question: LabelledQuestion, gate: Gate) -> str:
    """Why a row came out as it did, for eval's output and a run: the gate's reason, unless the row's expected
    section is gone from the documents (「期望的小节已不在资料里（…）」)."""
    return f"{GONE_REASON}（{question.gone}）" if question.gone else gate.reason


def outcome_of(question: LabelledQuestion, gate: Gate) -> str:
    """The outcome of one gate decision against its label."""
    if question.should_refuse:
        return CORRECT_REFUSAL if gate.refused else FALSE_ANSWER
    if gate.refused:
        return FALSE_REFUSAL
    return CORRECT_ANSWER if any(h.passed and holds_fact(question, h) for h in gate.candidates) else WRONG_SOURCE


@dataclass(frozen=True, eq=False)
class EvaluatedSet:
    """Every question of a set retrieved and ranked once, plus the arrays the curves need.

    values[q, i]      ranking score of candidate i (-inf where missing), best first;
    coverage[q, j]    keyword coverage when the first j candidates pass (j = 0 … MAX_TOP_K);
    unknown[q, j]     heaviest absent word's weight, likewise;
    fact[q, j]        one of the first j candidates holds the fact;
    carried[q, j]     a sentence of the first j candidates carries what the question asks (always true when it asks
                      nothing a sentence's form shows: core.answerability.asked);
    has_terms[q]      the question has content words the decision can check.
    """

    questions: tuple[LabelledQuestion, ...]
    retrievals: tuple[Retrieval, ...]
    values: np.ndarray
    coverage: np.ndarray
    unknown: np.ndarray
    fact: np.ndarray
    has_terms: np.ndarray
    should_refuse: np.ndarray
    decides: bool
    carried: np.ndarray | None = None  # None: as if every question's asked kind were carried (sets built by hand)
    fingerprint: str = ""
    content_hash: str = ""

    def __len__(self) -> int:
        return len(self.questions)

    @property
    def top(self) -> np.ndarray:
        """Each question's best ranking score (-inf when nothing was retrieved)."""
        return self.values[:, 0]


def evaluate_set(assistant, questions: QuestionSet | Sequence[LabelledQuestion], *,
                 progress: Callable[[int, int], None] | None = None) -> EvaluatedSet:
    """Retrieve and rank every question once through `assistant` (a core.assistant.Assistant). A row whose expected
    file or section is not in the assistant's documents is marked (core.sets.format.mark_gone) and counts as a miss."""
    items = tuple(questions.questions if isinstance(questions, QuestionSet) else questions)
    items = mark_gone(items, *corpus_catalog(assistant.index))
    retrievals = []
    for row, question in enumerate(items):
        try:
            retrievals.append(assistant.retrieve(question.question))
        except InvalidQuestion as error:  # e.g. longer than a lowered XIAOE_MAX_QUESTION_CHARS
            raise QuestionSetError(f"题集第 {question.line or row + 1} 行：{error}") from None
        if progress:
            progress(row + 1, len(items))
    return from_retrievals(items, retrievals, decides=assistant.analyzer is not None,
                           fingerprint=assistant.fingerprint,
                           content_hash=questions.content_hash if isinstance(questions, QuestionSet) else "")


def from_retrievals(items: Sequence[LabelledQuestion], retrievals: Sequence[Retrieval], *, decides: bool,
                    fingerprint: str = "", content_hash: str = "") -> EvaluatedSet:
    """The arrays of an EvaluatedSet from retrievals already made (tests build them by hand)."""
    n, width = len(items), MAX_TOP_K + 1
    values = np.full((n, MAX_TOP_K), _NONE)
    coverage, unknown = np.zeros((n, width)), np.zeros((n, width))
    fact = np.zeros((n, width), dtype=bool)
    carried = np.ones((n, width), dtype=bool)
    has_terms = np.zeros(n, dtype=bool)
    for row, (question, r) in enumerate(zip(items, retrievals)):
        for i, hit in enumerate(r.candidates[:MAX_TOP_K]):
            values[row, i] = hit.value
            fact[row, i + 1] = fact[row, i] or holds_fact(question, hit)
        last = min(len(r.candidates), MAX_TOP_K)
        fact[row, last + 1:] = fact[row, last]
        for j, m in enumerate(r.measures[:width]):
            coverage[row, j], unknown[row, j], carried[row, j] = m.coverage, m.heaviest_unknown, not m.asked_missing
        if r.measures:
            coverage[row, len(r.measures):] = coverage[row, len(r.measures) - 1]
            unknown[row, len(r.measures):] = unknown[row, len(r.measures) - 1]
            carried[row, len(r.measures):] = carried[row, len(r.measures) - 1]
        has_terms[row] = any(t.weight * t.specificity > 0 for t in r.terms)
    should_refuse = np.array([q.should_refuse for q in items], dtype=bool)
    for array in (values, coverage, unknown, fact, has_terms, should_refuse, carried):
        array.flags.writeable = False  # shared through caches: never mutated
    return EvaluatedSet(tuple(items), tuple(retrievals), values, coverage, unknown, fact, has_terms, should_refuse,
                        decides=decides, fingerprint=fingerprint, content_hash=content_hash, carried=carried)


@dataclass(frozen=True)
class Metrics:
    """The numbers of one knob setting; rates are None when their denominator is zero."""

    knobs: Knobs
    total: int
    answerable: int
    unanswerable: int
    counts: tuple[int, ...]  # per OUTCOMES, in that order
    answered_rate: float | None
    refusal_precision: float | None
    refusal_recall: float | None
    refusal_f1: float | None
    answered_with_fact: float | None  # 正确回答 / answerable questions
    balanced_accuracy: float | None
    cost: float

    @property
    def threshold(self) -> float:
        return self.knobs.threshold

    @property
    def k(self) -> int:
        return self.knobs.k

    @property
    def correct(self) -> int:
        return self.count(CORRECT_ANSWER) + self.count(CORRECT_REFUSAL)

    def count(self, outcome: str) -> int:
        return self.counts[OUTCOMES.index(outcome)]

    def to_dict(self) -> dict:
        return {**self.knobs.to_dict(), "total": self.total, "answerable": self.answerable,
                "unanswerable": self.unanswerable, "counts": dict(zip(OUTCOMES, self.counts)),
                "cost": self.cost,
                **{name: None if value is None else round(value, 6) for name, value in (
                    ("answered_rate", self.answered_rate), ("refusal_precision", self.refusal_precision),
                    ("refusal_recall", self.refusal_recall), ("refusal_f1", self.refusal_f1),
                    ("answered_with_fact", self.answered_with_fact),
                    ("balanced_accuracy", self.balanced_accuracy))}}


def metrics_from_counts(knobs: Knobs, counts: Sequence[int] | np.ndarray) -> Metrics:
    ca, cr, fr, fa, ws = (int(c) for c in counts)
    answerable, unanswerable = ca + fr + ws, cr + fa
    total = answerable + unanswerable

    def ratio(a: float, b: float) -> float | None:
        return a / b if b else None

    hit, recall = ratio(ca, answerable), ratio(cr, unanswerable)
    rates = [r for r in (hit, recall) if r is not None]
    return Metrics(knobs=knobs, total=total, answerable=answerable, unanswerable=unanswerable,
                   counts=(ca, cr, fr, fa, ws), answered_rate=ratio(ca + ws + fa, total),
                   refusal_precision=ratio(cr, cr + fr), refusal_recall=recall,
                   refusal_f1=ratio(2 * cr, 2 * cr + fr + fa), answered_with_fact=hit,
                   balanced_accuracy=sum(rates) / len(rates) if rates else None,
                   cost=float(fr + ws + FALSE_ANSWER_COST * fa))


@dataclass(frozen=True, eq=False)
class Evaluation:
    """Every question's outcome at one knob setting, the metrics, and (built on first use) each
    question's gate decision with its reason."""

    knobs: Knobs
    evaluated: EvaluatedSet
    outcomes: tuple[str, ...]
    metrics: Metrics

    def outcome(self, i: int) -> str:
        return self.outcomes[i]

    @functools.cached_property
    def gates(self) -> tuple[Gate, ...]:
        """The gate's own decision per question (core.answerability.gate.decide, as the Ask page calls it)."""
        return tuple(decide(r, self.knobs) for r in self.evaluated.retrievals)


def evaluate_at(evaluated: EvaluatedSet, knobs: Knobs) -> Evaluation:
    """Every question's outcome at `knobs`, from the arrays (a slider move costs no Python loop per
    question); a test checks question by question that it equals `outcomes_by_gate`."""
    answered, fact = answered_grid(evaluated, knobs)
    a, f, refuse = answered[0, 0, 0], fact[0, 0, 0], evaluated.should_refuse
    codes = np.where(refuse, np.where(a, 3, 1), np.where(a, np.where(f, 0, 4), 2))
    counts = np.bincount(codes, minlength=len(OUTCOMES)) if len(codes) else np.zeros(len(OUTCOMES), dtype=int)
    return Evaluation(knobs=knobs, evaluated=evaluated, outcomes=tuple(OUTCOMES[c] for c in codes),
                      metrics=metrics_from_counts(knobs, counts))


def outcomes_by_gate(evaluated: EvaluatedSet, knobs: Knobs) -> tuple[str, ...]:
    """The same outcomes, one `core.answerability.gate.decide` call per question: the reference `evaluate_at` must equal."""
    return tuple(outcome_of(q, decide(r, knobs)) for q, r in zip(evaluated.questions, evaluated.retrievals))


def answered_grid(evaluated: EvaluatedSet, knobs: Knobs, *, thresholds: np.ndarray | None = None,
                  coverages: np.ndarray | None = None, unknowns: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """(answered, fact) as arrays [threshold, coverage, unknown, question], each axis defaulting to
    the knob's own value: the same comparisons as core.answerability.gate.decide and core.answerability.decision.judge."""
    t = np.atleast_1d(np.asarray(knobs.threshold if thresholds is None else thresholds, dtype=float))
    c = np.atleast_1d(np.asarray(knobs.min_coverage if coverages is None else coverages, dtype=float))
    u = np.atleast_1d(np.asarray(knobs.max_unknown_weight if unknowns is None else unknowns, dtype=float))
    rows = np.arange(len(evaluated))
    j = (evaluated.values[None, :, :knobs.k] >= t[:, None, None]).sum(axis=2)  # [t, q]: a prefix
    passed = j >= 1
    fact = evaluated.fact[rows[None, :], j]
    if not evaluated.decides:
        answered = np.broadcast_to(passed[:, None, None, :], (len(t), len(c), len(u), len(rows)))
    else:
        cov, unk = evaluated.coverage[rows[None, :], j], evaluated.unknown[rows[None, :], j]
        carried = evaluated.carried[rows[None, :], j] if evaluated.carried is not None else True
        answered = ((passed & evaluated.has_terms[None, :] & carried)[:, None, None, :]
                    & (cov[:, None, None, :] >= c[None, :, None, None])
                    & (unk[:, None, None, :] <= u[None, None, :, None]))
    return answered, np.broadcast_to(fact[:, None, None, :], answered.shape)


def count_grid(evaluated: EvaluatedSet, answered: np.ndarray, fact: np.ndarray) -> np.ndarray:
    """Outcome counts [..., OUTCOMES] from `answered_grid`'s arrays."""
    refuse = evaluated.should_refuse
    ca = (answered & fact & ~refuse).sum(axis=-1)
    cr = (~answered & refuse).sum(axis=-1)
    fr = (~answered & ~refuse).sum(axis=-1)
    fa = (answered & refuse).sum(axis=-1)
    ws = (answered & ~fact & ~refuse).sum(axis=-1)
    return np.stack([ca, cr, fr, fa, ws], axis=-1)


SWEEPABLE = ("threshold", "min_coverage", "max_unknown_weight")


@dataclass(frozen=True, eq=False)
class Sweep:
    """Metrics along one knob's grid (0.00–1.00, step 0.01), the other knobs held at their values."""

    knob: str
    knobs: Knobs
    grid: np.ndarray
    metrics: tuple[Metrics, ...]

    CURVES = {"answered_rate": "回答率", "refusal_precision": "拒答精确率", "refusal_recall": "拒答召回率",
              "answered_with_fact": "答出且命中事实", "balanced_accuracy": "平衡准确率"}

    def long_rows(self) -> list[dict]:
        """(knob value, metric label, value) rows for a chart; undefined points are left out."""
        rows = []
        for value, m in zip(self.grid, self.metrics):
            for attr, label in self.CURVES.items():
                v = getattr(m, attr)
                if v is not None:
                    rows.append({"取值": float(value), "指标": label, "数值": float(v)})
        return rows


def sweep(evaluated: EvaluatedSet, knobs: Knobs, knob: str = "threshold", grid: np.ndarray = GRID) -> Sweep:
    """Every metric at every grid value of `knob`, vectorised."""
    if knob not in SWEEPABLE:
        raise ConfigError(f"无法扫描参数 {knob}，只能是 {'、'.join(SWEEPABLE)}。")
    axis = {"threshold": "thresholds", "min_coverage": "coverages", "max_unknown_weight": "unknowns"}[knob]
    answered, fact = answered_grid(evaluated, knobs, **{axis: grid})
    counts = count_grid(evaluated, answered, fact).reshape(len(grid), len(OUTCOMES))
    return Sweep(knob=knob, knobs=knobs, grid=np.asarray(grid, dtype=float),
                 metrics=tuple(metrics_from_counts(knobs.with_(**{knob: float(v)}), c) for v, c in zip(grid, counts)))


SUGGEST_RULE = ("代价最低：每道误拒或命中错误资料记 1，每道误答记 2（编造的政策比转人工代价高一倍）；"
                "代价最低的设置连成一片时取中间：先取阈值的中间值，再在该阈值下取关键词覆盖下限的中间值，"
                "最后取资料外词权重上限的中间值，让措辞不同的新问题尽量不改变结果。")
SUGGEST_THRESHOLDS = np.round(np.arange(31) / 100, 2)  # 0.00–0.30: with the decision on, the
SUGGEST_COVERAGES = np.round(np.arange(30, 96) / 100, 2)  # threshold only keeps chunks that share
SUGGEST_UNKNOWNS = np.round(np.arange(30, 101) / 100, 2)  # something real with the question


@dataclass(frozen=True)
class Suggestion:
    """The knobs the documented rule picks on a set, with the plateau of each and the cost."""

    knobs: Knobs
    cost: float
    metrics: Metrics
    plateaus: dict[str, tuple[float, float]]


def suggest(evaluated: EvaluatedSet, k: int, base: Knobs) -> Suggestion:
    """Apply SUGGEST_RULE at this k: joint grid over the three knobs (the threshold alone with the decision off)."""
    knobs = base.with_(k=k)
    if not evaluated.decides:
        thresholds, coverages, unknowns = GRID, np.array([knobs.min_coverage]), np.array([knobs.max_unknown_weight])
    else:
        thresholds, coverages, unknowns = SUGGEST_THRESHOLDS, SUGGEST_COVERAGES, SUGGEST_UNKNOWNS
    best_cost = np.inf
    plateau: list[tuple[float, float, float]] = []
    for t in thresholds:  # one threshold at a time keeps the arrays small (coverages × unknowns × questions)
        answered, fact = answered_grid(evaluated, knobs, thresholds=np.array([t]), coverages=coverages,
                                       unknowns=unknowns)
        counts = count_grid(evaluated, answered, fact)[0]
        cost = counts[..., 2] + counts[..., 4] + FALSE_ANSWER_COST * counts[..., 3]
        low = float(cost.min())
        if low < best_cost - 1e-9:
            best_cost, plateau = low, []
        if low <= best_cost + 1e-9:
            plateau += [(float(t), float(coverages[i]), float(unknowns[j])) for i, j in np.argwhere(cost <= low + 1e-9)]
    ts = sorted({p[0] for p in plateau})
    t = ts[len(ts) // 2]
    cs = sorted({p[1] for p in plateau if p[0] == t})
    c = cs[len(cs) // 2]
    us = sorted({p[2] for p in plateau if p[:2] == (t, c)})
    u = us[len(us) // 2]
    chosen = knobs.with_(threshold=t, min_coverage=c, max_unknown_weight=u)
    return Suggestion(knobs=chosen, cost=best_cost, metrics=evaluate_at(evaluated, chosen).metrics,
                      plateaus={"threshold": (ts[0], ts[-1]), "min_coverage": (cs[0], cs[-1]),
                                "max_unknown_weight": (us[0], us[-1])})


@dataclass(frozen=True)
class Flip:
    """A question whose outcome differs between two settings; `better` when it becomes correct."""

    line: int
    question: str
    expectation: str
    before: str
    after: str
    reason: str  # the gate's reason under the new setting

    @property
    def better(self) -> bool:
        return self.after in GOOD_OUTCOMES and self.before not in GOOD_OUTCOMES

    @property
    def worse(self) -> bool:
        return self.before in GOOD_OUTCOMES and self.after not in GOOD_OUTCOMES


def what_if(evaluated: EvaluatedSet, current: Evaluation, candidate: Evaluation) -> tuple[Flip, ...]:
    """Questions whose outcome changes from `current` to `candidate`, in set order."""
    return tuple(Flip(line=q.line, question=q.question, expectation=q.expectation, before=a, after=b,
                      reason=decide(r, candidate.knobs).reason)
                 for q, r, a, b in zip(evaluated.questions, evaluated.retrievals, current.outcomes, candidate.outcomes)
                 if a != b)


def outcome_rows(evaluated: EvaluatedSet, evaluation: Evaluation) -> list[dict]:
    """One row per question for the tuning page's table and `eval --json`: the numbers the gate used."""
    rows = []
    for q, gate, outcome in zip(evaluated.questions, evaluation.gates, evaluation.outcomes):
        top = gate.candidates[0] if gate.candidates else None
        rank = next((h.rank for h in gate.candidates if h.passed and holds_fact(q, h)), None)
        d = gate.decision
        rows.append({"line": q.line, "question": q.question, "expected": q.expectation, "outcome": outcome,
                     "refused": gate.refused, "reason": row_reason(q, gate),
                     "top_value": round(top.value, 4) if top else None,
                     "coverage": d.coverage if d else None,
                     "unknown_weight": d.signals[2].value if d else None,
                     "fact_rank": rank, "top_chunk": f"{top.source} · {top.heading}" if top else ""})
    return rows


def distribution(evaluated: EvaluatedSet, evaluation: Evaluation, knob: str) -> list[dict]:
    """Per question, the value the gate compared with `knob` (the best ranking score, or the coverage /
    absent-word weight of the passing chunks) and whether the question should be answered: what the
    tuning page's histogram draws. Questions with nothing retrieved (or, for the decision knobs,
    without the decision) are left out."""
    knobs = evaluation.knobs
    if knob == "threshold":
        values, keep = evaluated.top, np.isfinite(evaluated.top)
    elif not evaluated.decides:
        return []
    else:
        j = (evaluated.values[:, :knobs.k] >= knobs.threshold).sum(axis=1)
        source = evaluated.coverage if knob == "min_coverage" else evaluated.unknown
        values, keep = source[np.arange(len(evaluated)), j], j >= 1
    labels = np.where(evaluated.should_refuse, "应拒答", "应回答")
    return [{"数值": float(v), "标注": str(label)} for v, label, k in zip(values, labels, keep) if k]
