"""core.values: the values print as the gate compared them, and travel through their dict forms unchanged."""

from __future__ import annotations

import pytest

from core.values import Hit, Problem, apart, below_threshold


@pytest.mark.parametrize("best, threshold, shown", [
    (0.04, 0.05, "最高排序分 0.04 低于阈值 0.05"),
    (0.0496, 0.05, "最高排序分 0.0496 低于阈值 0.05"),
    (0.0499, 0.05, "最高排序分 0.0499 低于阈值 0.05"),
    (0.0, 0.20, "最高排序分 0.00 低于阈值 0.20"),
])
def test_below_threshold_never_shows_two_equal_numbers(best, threshold, shown):
    assert below_threshold(best, threshold) == shown

@pytest.mark.parametrize("value, bound, percent, shown", [
    (0.6667, 0.67, True, "66.7%"),
    (0.6667, 0.66, True, "67%"),
    (0.67, 0.67, True, "67%"),
    (0.5123, 0.51, False, "0.512"),
    (0.30, 0.51, False, "0.30"),
])
def test_apart_shows_a_value_and_its_bound_differently_when_they_differ(value, bound, percent, shown):
    assert apart(value, bound, percent=percent) == shown


def test_problem_round_trips_through_its_dict_form():
    problem = Problem("question_mismatch", "金额与问题不符", span=(3, 9), compare=(("金额", "4200 元", "4800 元"),))
    assert Problem.from_dict(problem.to_dict()) == problem


def test_hit_value_defaults_to_its_retrieval_score():
    hit = Hit(rank=1, source="a.md", heading="一", chunk=0, start=0, end=4, text="四级", score=0.42)
    assert hit.value == 0.42 and hit.to_dict()["value"] == 0.42
