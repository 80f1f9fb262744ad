"""core.case.intent: a move between channels or time slots is a transfer within the level, never a level difference."""

from __future__ import annotations

import pytest

from core.answering.own_case import compute, phrase
from core.case import read_case
from core.case.intent import DIFFERENCE, TRANSFER, computation, slot_move, told
from core.values.case import COMPUTED
from tests.school import shipped_facts


@pytest.mark.parametrize("question", [
    "入门级刚上完两周，想从线上换到线下，第一次换，需要付多少钱",
    "我二级上了4节课，想从周末班换到周三晚上的班，第一次转班，要钱吗",
    "入门级才上了一节 想从晚上班换到周末班 头一回转 收钱吗",
    "二级上了2节 想换到周日班 之前没转过 要收费吗",
])
def test_a_move_between_slots_is_a_transfer(question):
    case = read_case(question, shipped_facts())
    assert slot_move(question) and computation(case, question) == TRANSFER


@pytest.mark.parametrize("question", [
    "二级上了3节 想换到三级 要补多少",  # a level named as the target
    "二级周末班上了3节 想转到三级的晚上班 要补多少",  # a level named as the target, whatever the slots
    "我现在三级 想降到二级 能退多少差价",  # a difference word
])
def test_a_move_to_a_level_stays_a_level_difference(question):
    assert computation(read_case(question, shipped_facts()), question) == DIFFERENCE


def test_a_first_move_between_slots_within_the_window_is_free():
    # 2 weeks × 2 lessons a week = 4 lessons, within the 4-lesson window of the shipped documents
    result = compute("入门级刚上完两周，想从线上换到线下，第一次换，需要付多少钱", shipped_facts())
    assert result.outcome == COMPUTED and result.final == 0
    assert "你这是第一次转班：转班手续费免费[1]" in phrase(result, lambda source: 1)
    assert "要转到哪一级" not in phrase(result, lambda source: 1)


def test_a_slot_word_without_a_move_is_no_slot_move():
    assert not slot_move("周末班能退费吗") and not slot_move("晚上十点还有人工吗")


def test_a_time_named_before_the_move_is_no_slot_move():
    assert not slot_move("早上八点能转人工吗")


@pytest.mark.parametrize(("question", "told_as"), [
    ("三级交了4800 上了两节课 想退 能退多少", "refund"),  # paid and lessons
    ("流利级 上了一周 想退 能退多少", "refund"),  # a level to price and weeks
    ("二级交了4200 还没开课 能退多少", "refund"),  # paid and before the start
    ("上了4节 第二次转班 要多少钱", TRANSFER),  # which transfer
    ("三级想换到二级 差价多少", DIFFERENCE),  # both levels
    ("二级交了4200 想退 能退多少", None),  # how far the course is: not said
    ("上了3节 想退 能退多少", None),  # neither paid nor a level
    ("二级 想转到雅思班 要补多少", None),  # no level to move to
    ("商务级 想转入门级 第一次转 上了两节 转班手续费多少", DIFFERENCE),  # a change of level asking an amount
])
def test_told_is_the_computation_only_when_the_case_gives_its_figures(question, told_as):
    assert told(read_case(question, shipped_facts()), question) == told_as


def test_a_transfer_read_across_two_levels_is_not_told():
    """Two different levels read as a transfer fee is a reading in doubt: the gate keeps counting the other words."""
    question = "商务级 想转入门级 第一次转 上了两节 可以吗"
    case = read_case(question, shipped_facts())
    assert computation(case, question) == TRANSFER and told(case, question) is None


def test_asked_back_to_me_is_an_amount_so_a_level_change_is_a_difference():
    """「退我多少」 asks an amount: a move from 商务级 to 入门级 is the level difference (2000), not the free first
    transfer's fee, which the old reading stated as the final amount."""
    question = "商务级 想转入门级 才上了两节 第一次转 退我多少"
    case = read_case(question, shipped_facts())
    assert computation(case, question) == DIFFERENCE
    result = compute(question, shipped_facts())
    assert result is not None and result.final == 2000
