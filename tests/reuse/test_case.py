"""core.reuse.case: the student's own case, read from the question, compared."""

from __future__ import annotations

import pytest

from core.reuse.case import case_facts, differences


def test_case_facts_of_the_seed_question():
    facts = case_facts("我报的二级 交了4200 上了6节课 现在退能退多少")
    assert facts["level"] == {2.0} and facts["money"] == {4200.0} and facts["lessons"] == {6.0}
    assert facts["started"] == {"after"}


@pytest.mark.parametrize("a, b", [
    ("流利级学费多少", "三级学费多少"),  # a level by its name or its number
    ("我报的二级 交了4200 上了6节课 能退多少", "二级 4200 上了6节 退多少"),
    ("还没开课能全退吗", "开课前退费能全退吗"),
    ("这是头一回换班 收费吗", "第一次换班要钱吗"),  # 头一回 / 头回 is the first time
    ("头回转班要钱吗", "第一次转班要钱吗"),
])
def test_the_same_case_written_differently_has_no_differences(a, b):
    assert differences(a, b) == []


@pytest.mark.parametrize("a, b, what", [
    ("三级上了6节课能退多少", "三级上了4节课能退多少", "课时"),
    ("四级学费多少", "三级学费多少", "级别"),
    ("第二次转班要钱吗", "第一次转班要钱吗", "第几次"),
    ("第二次转班要钱吗", "头一回转班要钱吗", "第几次"),
    ("还没开课能退多少", "上了两节课能退多少", "是否已开课"),
    ("三级上了6节课能退多少", "三级能退多少", "课时"),  # a figure only one of them states
])
def test_a_different_case_is_named(a, b, what):
    found = differences(a, b)
    assert found and any(line.startswith(what) for line in found)
