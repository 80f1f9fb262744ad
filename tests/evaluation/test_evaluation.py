"""core.evaluation.metrics: outcomes and metrics worked out by hand, the suggestion rule, curves that equal the
gate, and the shipped sets decided identically by `eval` and by `ask`."""

from __future__ import annotations

import numpy as np
import pytest

from core.answerability.decision import measure
from core.assistant import build_assistant
from core.evaluation.metrics import (
    answered_grid,
    evaluate_at,
    from_retrievals,
    holds_fact,
    suggest,
    sweep,
    what_if,
)
from core.knobs import Knobs
from core.settings import Settings
from core.stores.question_sets import LabelledQuestion
from core.values import Hit, Retrieval, Term

F, T = False, True


def q(text: str, expected: str = "a.md", line: int = 0) -> LabelledQuestion:
    return LabelledQuestion(question=text, expected=expected, line=line)


def hits(values: list[float], matches: list[bool]) -> tuple[Hit, ...]:
    """Ranked candidates: a match comes from a.md (what the answerable questions expect), the rest from b.md."""
    return tuple(Hit(rank=i, source="a.md" if m else "b.md", heading="", chunk=i, start=0, end=1, text="x",
                     score=v) for i, (v, m) in enumerate(zip(values, matches), start=1))


def knobs(threshold: float, k: int, coverage: float = 0.5, unknown: float = 0.5) -> Knobs:
    return Knobs(threshold=threshold, k=k, min_coverage=coverage, max_unknown_weight=unknown)


# Six questions, three answerable (expected a.md) and three that should be refused; the ranking
# scores best first, T marks a candidate that holds the fact. The decision is off: the threshold
# alone gates, as in the seed.
QUESTIONS = (q("Q1", line=2), q("Q2", line=3), q("Q3", line=4), q("Q4", "", 5), q("Q5", "", 6), q("Q6", "", 7))
SCORES = ([0.50, 0.30, 0.10], [0.40, 0.35, 0.20], [0.25, 0.22, 0.05], [0.28, 0.10, 0.05], [0.15, 0.12, 0.11],
          [0.45, 0.40, 0.01])
MATCHES = ([F, T, F], [T, F, F], [F, F, T], [F, F, F], [F, F, F], [F, F, F])
TINY = from_retrievals(QUESTIONS, [Retrieval(x.question, hits(s, m)) for x, s, m in zip(QUESTIONS, SCORES, MATCHES)],
                       decides=False)


def test_evaluate_at_outcomes_by_hand():
    # t=0.30, k=2: Q1 answered, its match (rank 2) scores exactly 0.30 and passes (>=);
    # Q3's top is 0.25 < 0.30 → refused though answerable; Q6's top 0.45 → answered though it should refuse.
    assert evaluate_at(TINY, knobs(0.30, 2)).outcomes == ("正确回答", "正确回答", "误拒", "正确拒答", "正确拒答", "误答")


def test_evaluate_at_metrics_by_hand():
    m = evaluate_at(TINY, knobs(0.30, 2)).metrics
    assert m.counts == (2, 2, 1, 1, 0)
    assert m.answered_rate == pytest.approx(3 / 6)  # Q1, Q2, Q6
    assert m.refusal_precision == pytest.approx(2 / 3)  # refused Q3, Q4, Q5; Q3 wrongly
    assert m.refusal_recall == pytest.approx(2 / 3)  # of Q4, Q5, Q6 only Q6 was answered
    assert m.refusal_f1 == pytest.approx(2 * 2 / (2 * 2 + 1 + 1))
    assert m.answered_with_fact == pytest.approx(2 / 3)
    assert m.balanced_accuracy == pytest.approx((2 / 3 + 2 / 3) / 2)
    assert m.cost == 1 + 2 * 1  # one 误拒, one 误答 at twice the price


def test_evaluate_at_smaller_k_turns_a_hit_into_wrong_source():
    result = evaluate_at(TINY, knobs(0.30, 1))
    assert result.outcome(0) == "命中错误资料"
    assert result.metrics.answered_with_fact == pytest.approx(1 / 3)


def test_evaluate_at_lower_threshold_by_hand():
    # t=0.20, k=3: Q3 answered but its match (0.05) fails; Q4 (0.28) now answered.
    result = evaluate_at(TINY, knobs(0.20, 3))
    assert result.outcomes == ("正确回答", "正确回答", "命中错误资料", "误答", "正确拒答", "误答")
    m = result.metrics
    assert (m.answered_rate, m.refusal_precision, m.refusal_recall) == pytest.approx((5 / 6, 1.0, 1 / 3))
    assert m.refusal_f1 == pytest.approx(0.5)


def test_evaluate_at_threshold_is_inclusive():
    assert evaluate_at(TINY, knobs(0.30, 2)).outcome(0) == "正确回答"
    assert evaluate_at(TINY, knobs(0.31, 2)).outcome(0) == "命中错误资料"


def test_evaluate_at_undefined_rates_are_none():
    only = from_retrievals([q("A")], [Retrieval("A", hits([0.9], [T]))], decides=False)
    m = evaluate_at(only, knobs(0.5, 1)).metrics
    assert m.refusal_precision is None and m.refusal_recall is None
    assert m.balanced_accuracy == pytest.approx(1.0)  # the rate of the only class present


def test_sweep_points_equal_the_gate():
    curve = sweep(TINY, knobs(0.30, 2))
    for value, m in zip(curve.grid, curve.metrics):
        assert m.counts == evaluate_at(TINY, knobs(float(value), 2)).metrics.counts, value
    assert len(curve.grid) == 101 and curve.grid[-1] == pytest.approx(1.0)


def test_suggest_threshold_only_takes_the_middle_of_the_cheapest_plateau():
    # Answerable tops 0.60 and 0.70, refused tops 0.20 and 0.30: every t in (0.30, 0.60] costs 0;
    # the plateau 0.31–0.60 has 30 points, the middle one (index 15) is 0.46.
    gap_q = (q("A1"), q("A2"), q("R1", ""), q("R2", ""))
    gap = from_retrievals(gap_q, [Retrieval(x.question, hits([v], [m])) for x, v, m in
                                  zip(gap_q, (0.60, 0.70, 0.20, 0.30), (T, T, F, F))], decides=False)
    s = suggest(gap, 1, knobs(0.1, 1))
    assert s.cost == 0 and s.plateaus["threshold"] == (0.31, 0.60)
    assert s.knobs.threshold == pytest.approx(0.46)


def test_suggest_prices_a_false_answer_at_twice_a_false_refusal():
    # One threshold refuses the answerable 0.50 (cost 1); any lower one answers the refused 0.49 (cost 2).
    tight_q = (q("A1"), q("R1", ""))
    tight = from_retrievals(tight_q, [Retrieval("A1", hits([0.50], [T])), Retrieval("R1", hits([0.49], [F]))],
                            decides=False)
    s = suggest(tight, 1, knobs(0.1, 1))
    assert s.cost == 0 and s.knobs.threshold == pytest.approx(0.50)
    assert evaluate_at(tight, knobs(0.49, 1)).metrics.cost == 2.0


TERM = Term(text="学费", weight=1.0, forms=("学费",), known=True)
ABSENT = Term(text="雅思", weight=0.8, forms=("雅思",), known=False)


def decided(question: LabelledQuestion, values: list[float], matches: list[bool], terms) -> Retrieval:
    ranked = hits(values, matches)
    texts = [Hit(rank=h.rank, source=h.source, heading="", chunk=h.chunk, start=0, end=1,
                 text="学费" if h.source == "a.md" else "其他", score=h.score) for h in ranked]
    return Retrieval(question.question, tuple(texts), terms=tuple(terms), measures=tuple(
        measure(terms, texts[:j]) for j in range(len(texts) + 1)))


def test_the_decision_knobs_gate_by_hand():
    # Q1's terms are covered only by its match at rank 2 (coverage 0 with one passing chunk, 1 with two);
    # Q2 also asks about a word the corpus never uses (weight 0.8; coverage 1 ÷ 1.8 = 56%).
    qs = (q("Q1"), q("Q2", ""))
    rs = [decided(qs[0], [0.5, 0.3], [F, T], [TERM]), decided(qs[1], [0.6], [T], [TERM, ABSENT])]
    evaluated = from_retrievals(qs, rs, decides=True)
    assert evaluate_at(evaluated, knobs(0.3, 2, 0.5, 0.5)).outcomes == ("正确回答", "正确拒答")
    assert evaluate_at(evaluated, knobs(0.4, 2, 0.5, 0.5)).outcomes == ("误拒", "正确拒答")  # coverage 0 < 50%
    assert evaluate_at(evaluated, knobs(0.3, 2, 0.5, 0.8)).outcomes == ("正确回答", "误答")  # 0.8 <= 0.8
    assert evaluate_at(evaluated, knobs(0.3, 1, 0.0, 0.5)).outcomes == ("命中错误资料", "正确拒答")
    answered, _ = answered_grid(evaluated, knobs(0.3, 2), thresholds=np.array([0.3, 0.4]),
                                unknowns=np.array([0.5, 0.8]))
    assert answered[:, 0, :, 0].tolist() == [[True, True], [False, False]]
    assert answered[0, 0, :, 1].tolist() == [False, True]


def test_what_if_lists_only_changed_questions():
    flips = what_if(TINY, evaluate_at(TINY, knobs(0.30, 2)), evaluate_at(TINY, knobs(0.20, 3)))
    assert [(f.question, f.before, f.after) for f in flips] == [("Q3", "误拒", "命中错误资料"),
                                                                ("Q4", "正确拒答", "误答")]
    assert [(f.better, f.worse) for f in flips] == [(False, False), (False, True)]
    assert flips[0].line == 4


def test_what_if_identical_settings_flip_nothing():
    assert what_if(TINY, evaluate_at(TINY, knobs(0.25, 3)), evaluate_at(TINY, knobs(0.25, 3))) == ()


def hit(source: str, heading: str, text: str) -> Hit:
    return Hit(rank=1, source=source, heading=heading, chunk=0, start=0, end=len(text), text=text, score=0.5)


@pytest.mark.parametrize(("question", "chunk", "matches"), [
    (LabelledQuestion("几级？", "a.md", "一、级别", "一共四级"), hit("a.md", "五、常见问题", "答：一共 四级。"), True),
    (LabelledQuestion("几级？", "a.md", "一、级别", "一共四级"), hit("a.md", "一、级别", "分为四个级别"), False),
    (LabelledQuestion("几级？", "a.md", "一、级别", "一共四级"), hit("b.md", "一、级别", "一共四级"), False),
    (LabelledQuestion("几级？", "a.md", "一、级别"), hit("a.md", "一、 级别", "任何内容"), True),
    (LabelledQuestion("几级？", "a.md", "一、级别"), hit("a.md", "二、课时", "任何内容"), False),
    (LabelledQuestion("几级？", "a.md"), hit("a.md", "二、课时", "任何内容"), True),
    (LabelledQuestion("雅思？"), hit("a.md", "一、级别", "任何内容"), False),
])
def test_holds_fact_prefers_the_key_phrase(question, chunk, matches):
    assert holds_fact(question, chunk) is matches


def test_retrieval_runs_once_per_question_whatever_the_knobs(corpus_index, monkeypatch):
    import core.assistant as composition
    from core.answering.rag import retrieve

    calls = []
    monkeypatch.setattr(composition, "retrieve", lambda text, index, k: calls.append(k) or retrieve(text, index, k))
    assistant = build_assistant(Settings(), corpus_index, None)
    qs = (q("一级要上几周", "01-口语课分级说明.md"), q("雅思多少钱", ""))
    from core.evaluation.metrics import evaluate_set

    evaluated = evaluate_set(assistant, qs)
    # 「一级要上几周」 is searched a second time without its level's words (the retrieve-stage rule every_level), once
    assert calls == [10, 10, 10]
    for t in (0.0, 0.1, 0.3):
        for k in (1, 3, 10):
            evaluate_at(evaluated, knobs(t, k))
            sweep(evaluated, knobs(t, k), "min_coverage")
    assert calls == [10, 10, 10]


@pytest.mark.parametrize("name", ["calibration.csv", "calibration_spoken.csv", "student_heldout_v7.csv"])
def test_evaluate_at_equals_the_gate_question_by_question(corpus_index, name):
    from core.answerability.glossary import load_starter
    from core.evaluation.metrics import evaluate_set, outcomes_by_gate
    from core.sets.format import read_question_file
    from tests.paths import SETS

    assistant = build_assistant(Settings(), corpus_index, load_starter())
    evaluated = evaluate_set(assistant, read_question_file(SETS / name))
    for k in (assistant.knobs, knobs(0.05, 2, 0.45, 0.6), knobs(0.15, 5, 0.7, 0.3), knobs(0.0, 10, 0.0, 1.0)):
        assert evaluate_at(evaluated, k).outcomes == outcomes_by_gate(evaluated, k), k
