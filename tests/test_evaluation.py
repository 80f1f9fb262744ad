"""core.evaluation: metrics worked out by hand, the suggested threshold and its tie-break, what-if flips."""

from __future__ import annotations

import numpy as np
import pytest

import core.evaluation as evaluation
from core.errors import ConfigError
from core.evaluation import RetrievedSet, evaluate_at, outcome_codes, retrieve_set, sweep, what_if
from core.index_store import load_or_build
from core.question_sets import LabelledQuestion, load_default_set
from core.rag import Hit, retrieve, select
from core.settings import MAX_TOP_K, Settings

F, T = False, True


def q(text: str, expected: str = "a.md", line: int = 0) -> LabelledQuestion:
    return LabelledQuestion(question=text, expected=expected, line=line)


# Six questions, three answerable (expected a.md) and three that should be refused.
# Candidate scores best first; T marks a candidate that matches the expectation.
TINY = RetrievedSet.from_scores(
    [q("Q1", line=2), q("Q2", line=3), q("Q3", line=4), q("Q4", "", 5), q("Q5", "", 6), q("Q6", "", 7)],
    [[0.50, 0.30, 0.10], [0.40, 0.35, 0.20], [0.25, 0.22, 0.05], [0.28, 0.10, 0.05], [0.15, 0.12, 0.11],
     [0.45, 0.40, 0.01]],
    [[F, T, F], [T, F, F], [F, F, T], [F, F, F], [F, F, F], [F, F, F]])


def outcomes(result) -> list[str]:
    return [result.outcome(i) for i in range(len(result.codes))]


def test_evaluate_at_outcomes_by_hand():
    # t=0.30, k=2: Q1 answered, its match (rank 2) scores exactly 0.30 and passes (>=);
    # Q3's top is 0.25 < 0.30 → refused though answerable; Q6's top 0.45 → answered though it should refuse.
    result = evaluate_at(TINY, 0.30, 2)
    assert outcomes(result) == ["正确回答", "正确回答", "误拒", "正确拒答", "正确拒答", "误答"]


def test_evaluate_at_metrics_by_hand():
    m = evaluate_at(TINY, 0.30, 2).metrics
    assert m.counts == (2, 2, 1, 1, 0)
    assert m.answered_rate == pytest.approx(3 / 6)  # Q1, Q2, Q6
    assert m.refusal_precision == pytest.approx(2 / 3)  # refused Q3, Q4, Q5; Q3 wrongly
    assert m.refusal_recall == pytest.approx(2 / 3)  # of Q4, Q5, Q6 only Q6 was answered
    assert m.refusal_f1 == pytest.approx(2 * 2 / (2 * 2 + 1 + 1))
    assert m.hit_at_k == pytest.approx(2 / 3)
    assert m.balanced_accuracy == pytest.approx((2 / 3 + 2 / 3) / 2)


def test_evaluate_at_smaller_k_turns_a_hit_into_wrong_source():
    # With k=1 Q1 keeps only its rank-1 chunk, which does not match: answered from the wrong material.
    m = evaluate_at(TINY, 0.30, 1).metrics
    assert evaluate_at(TINY, 0.30, 1).outcome(0) == "命中错误资料"
    assert m.hit_at_k == pytest.approx(1 / 3)
    assert m.balanced_accuracy == pytest.approx((1 / 3 + 2 / 3) / 2)


def test_evaluate_at_lower_threshold_by_hand():
    # t=0.20, k=3: Q3 answered but its match (0.05) fails; Q4 (0.28) now answered.
    result = evaluate_at(TINY, 0.20, 3)
    assert outcomes(result) == ["正确回答", "正确回答", "命中错误资料", "误答", "正确拒答", "误答"]
    m = result.metrics
    assert (m.answered_rate, m.refusal_precision, m.refusal_recall) == pytest.approx((5 / 6, 1.0, 1 / 3))
    assert m.refusal_f1 == pytest.approx(0.5)


def test_evaluate_at_threshold_is_inclusive():
    assert evaluate_at(TINY, 0.30, 2).outcome(0) == "正确回答"
    assert evaluate_at(TINY, 0.31, 2).outcome(0) == "命中错误资料"


def test_evaluate_at_undefined_rates_are_none():
    only_answerable = RetrievedSet.from_scores([q("A")], [[0.9]], [[T]])
    m = evaluate_at(only_answerable, 0.5, 1).metrics
    assert m.refusal_precision is None and m.refusal_recall is None
    assert m.balanced_accuracy == pytest.approx(1.0)  # the rate of the only class present


@pytest.mark.parametrize(("threshold", "k"), [(-0.01, 3), (1.01, 3), (0.2, 0), (0.2, MAX_TOP_K + 1)])
def test_evaluate_at_rejects_out_of_range(threshold, k):
    with pytest.raises(ConfigError):
        evaluate_at(TINY, threshold, k)


def test_outcome_codes_broadcast_over_thresholds():
    answered = np.array([[True, False], [False, False]])
    codes = outcome_codes(answered, np.array([[True, False], [False, False]]), np.array([False, True]))
    assert codes.tolist() == [[0, 1], [2, 1]]  # 正确回答 / 正确拒答 / 误拒


def test_sweep_suggests_the_middle_of_a_clean_gap():
    # Answerable tops 0.60 and 0.70, refused tops 0.20 and 0.30: every t in (0.30, 0.60] is perfect;
    # the widest margin is at 0.45 (0.15 from both 0.30 and 0.60).
    gap = RetrievedSet.from_scores([q("A1"), q("A2"), q("R1", ""), q("R2", "")],
                                   [[0.60], [0.70], [0.20], [0.30]], [[T], [T], [F], [F]])
    curve = sweep(gap, 1)
    assert curve.suggested == pytest.approx(0.45)
    assert curve.suggested_margin == pytest.approx(0.15)
    assert (curve.lowest_answerable_top, curve.highest_unanswerable_top) == pytest.approx((0.60, 0.30))


def test_sweep_equal_margins_go_to_the_lower_threshold():
    # Gap 0.30..0.61: 0.45 and 0.46 are both 0.15 away from their nearest top score.
    gap = RetrievedSet.from_scores([q("A1"), q("R1", "")], [[0.61], [0.30]], [[T], [F]])
    assert sweep(gap, 1).suggested == pytest.approx(0.45)


def test_sweep_prefers_balanced_accuracy_over_margin():
    # Only t=0.50 separates the classes (refused top 0.49, answerable 0.50); its margin is 0,
    # while t=0.30 has a wide margin but lets the 0.49 question through.
    tight = RetrievedSet.from_scores([q("A1"), q("A2"), q("R1", ""), q("R2", "")],
                                     [[0.50], [0.52], [0.10], [0.49]], [[T], [T], [F], [F]])
    curve = sweep(tight, 1)
    assert curve.suggested == pytest.approx(0.50)
    assert curve.suggested_margin == pytest.approx(0.0)


def test_sweep_curves_match_evaluate_at():
    curve = sweep(TINY, 2)
    i = int(np.flatnonzero(np.isclose(curve.thresholds, 0.30))[0])
    m = evaluate_at(TINY, 0.30, 2).metrics
    assert curve.balanced_accuracy[i] == pytest.approx(m.balanced_accuracy)
    assert curve.refusal_f1[i] == pytest.approx(m.refusal_f1)
    assert len(curve.thresholds) == 101 and curve.thresholds[-1] == pytest.approx(1.0)


def test_what_if_lists_only_changed_questions():
    flips = what_if(TINY, evaluate_at(TINY, 0.30, 2), evaluate_at(TINY, 0.20, 3))
    assert [(f.question, f.before, f.after) for f in flips] == [("Q3", "误拒", "命中错误资料"),
                                                                ("Q4", "正确拒答", "误答")]
    assert [(f.better, f.worse) for f in flips] == [(False, False), (False, True)]
    assert flips[0].line == 4


def test_what_if_identical_settings_flip_nothing():
    assert what_if(TINY, evaluate_at(TINY, 0.25, 3), evaluate_at(TINY, 0.25, 3)) == ()


@pytest.fixture(scope="module")
def bundle():
    return load_or_build(Settings.from_env({}))


def test_retrieve_set_retrieves_each_question_once(bundle, monkeypatch):
    calls = []
    monkeypatch.setattr(evaluation, "retrieve", lambda text, index, k: calls.append(k) or retrieve(text, index, k))
    questions = load_default_set()
    retrieved = retrieve_set(questions, bundle.index)
    for threshold in (0.1, 0.2, 0.3):
        for k in (1, 3, MAX_TOP_K):
            evaluate_at(retrieved, threshold, k)
            sweep(retrieved, k)
    assert calls == [MAX_TOP_K] * len(questions)


def test_evaluate_at_agrees_with_the_refusal_gate(bundle):
    questions = load_default_set()
    result = evaluate_at(retrieve_set(questions, bundle.index), 0.22, 3)
    for i, item in enumerate(questions.questions):
        gate = select(item.question, retrieve(item.question, bundle.index, MAX_TOP_K), 0.22, 3)
        assert gate.refused == (result.outcome(i) in ("误拒", "正确拒答")), item.question


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
def test_chunk_matches_prefers_the_key_phrase(question, chunk, matches):
    assert evaluation.chunk_matches(question, chunk) is matches
