"""core.reuse.match: does the approved answer mention what the new question asks, and is it asked the same way?"""

from __future__ import annotations

import pytest

from core.reuse.match import asked, asks_opposite, asks_other, mentioned_text, similarity, stated
from core.values import Term
from tests.school import shipped_facts


def term(text: str, weight: float, *forms: str, number: bool = False) -> Term:
    return Term(text=text, weight=weight, forms=(text, *forms), known=True, is_number=number)


def test_similarity_is_the_mentioned_share_of_the_new_terms_worked_by_hand():
    mentioned = mentioned_text("三级学费多少", "流利级（三级）学费 4800 元", (term("三级", 0.6), term("学费", 0.9)))
    assert similarity((term("学费", 0.9), term("分期", 1.0)), mentioned) == pytest.approx(0.9 / 1.9, abs=1e-4)
    assert similarity((term("流利级", 0.7), term("学费", 0.9)), mentioned) == 1.0


def test_a_glossary_form_of_the_new_word_counts_when_the_answer_mentions_it():
    mentioned = mentioned_text("三级学费多少", "流利级学费 4800 元", ())
    assert similarity((term("价格", 0.8, "学费"),), mentioned) == 1.0


def test_the_students_figures_are_left_to_the_case_guard():
    mentioned = mentioned_text("三级学费多少", "4800 元", ())
    assert similarity((term("学费", 0.9), term("6", 0.5, number=True)), mentioned) == 1.0


def test_level_words_are_left_to_the_case_guard():
    # 商务级 is 四级: the case guard compares levels; an answer that says 四级 only is not less similar for it
    mentioned = mentioned_text("四级5600 上了3节课 退费能退多少", "可退 4322.5 元。", ())
    assert similarity((term("商务级", 1.0), term("退费", 0.8)), mentioned, shipped_facts()) == 1.0
    assert similarity((term("商务级", 1.0), term("分期", 0.8)), mentioned, shipped_facts()) == 0.0


def test_a_word_found_in_part_earns_part_of_its_weight():
    mentioned = mentioned_text("退款多久能到账", "原路退回，3 个工作日内到账。", ())
    assert 0.0 < similarity((term("退回款", 1.0),), mentioned) < 1.0  # 退回 of 退回款: the pairs found
    assert similarity((term("分期", 1.0),), mentioned) == 0.0


def test_a_question_without_weighted_words_fits_nothing():
    assert similarity((), "学费") == 0.0


@pytest.mark.parametrize("new, approved, other", [
    ("几点到几点可以找人工", "怎么叫人工", {"time"}),
    ("分级测试要多长时间", "分级测试要收费吗", {"duration"}),
    ("能转到线下吗？线下班每班几个人", "能转到线下吗", {"headcount"}),
    ("人工客服什么时候有人", "人工服务几点开始", None),
    ("怎么转人工", "我想跟真人说话 要怎么操作", None),
    ("人工", "怎么转人工", None),  # asking for nothing in particular
])
def test_a_new_question_asking_for_something_else_is_not_the_same(new, approved, other):
    assert asks_other(new, approved) == (frozenset(other) if other else None)


@pytest.mark.parametrize("new, approved, answer, other", [
    ("流利级多少钱啊", "三级学费多少", "流利级（三级）的单报学费是 4800 元。", None),  # the answer states an amount
    ("退课要扣多少手续费啊", "退费手续费怎么算的", "手续费为 5%，不低于 50 元。", None),
    ("流利级多少钱啊", "三级的学费", "学费按级别收取，见学费标准。", {"amount"}),  # no amount stated
    ("分级测试要多长时间", "分级测试要收费吗", "分级测试免费。", {"duration"}),  # 免费 is an amount, not a time
    ("一个班几个人", "一节课多长时间", "每课时 45 分钟。", {"headcount"}),
    ("一节课上多久", "一个班多少人", "每班不超过 8 人。", {"duration"}),
])
def test_what_the_approved_answer_states_is_not_asked_beyond_it(new, approved, answer, other):
    assert asks_other(new, approved, answer) == (frozenset(other) if other else None)
    assert asked("几点到几点可以找人工") == {"time"}


@pytest.mark.parametrize("new, approved, answer, extra", [
    ("退费手续费最多收多少？", "退费手续费最低收多少？", "退费手续费单笔最低 50 元。", {"upper"}),  # d159 was served
    ("转班手续费最低收多少", "退费手续费最多收多少", "退费手续费最高 500 元。", {"lower"}),
])
def test_a_maximum_is_not_answered_by_a_minimum_nor_the_other_way_round(new, approved, answer, extra):
    assert asks_other(new, approved, answer) == extra


def test_an_answer_stating_a_bound_answers_a_question_asking_for_it():
    assert asks_other("一个班最多几个同学", "一个班多少人", "口语课是小班授课，每班不超过 8 人。") is None


def test_a_count_is_not_answered_by_a_duration():
    # v3r010 (third blind set) served 「每课时45分钟」 for 「每周上几节课」
    assert asks_other("每周上几节课", "小E 每节课多长时间", "每课时45分钟。") == {"lessons"}
    assert asks_other("一个级别要上几节课", "一个级别要上多少节课", "每一级都是 16 课时。") is None


def test_a_yes_no_question_is_not_answered_by_the_quantity_another_question_asked_for():
    from core.reuse.match import asks_yes_no_instead

    # d030 / v2r013: 「一个级别要学多久 → 八周结课」 does not answer whether one can move up
    assert asks_yes_no_instead("一个级别学完能直接升下一级吗？", "一个级别要学多久才能结课？") == {"duration"}
    assert asks_yes_no_instead("分级测试要交钱不", "分级测试收费吗") is None  # both ask the amount (收费/要钱)
    assert asks_yes_no_instead("一个班最多几个人", "一个班多少人") is None  # not a yes/no question


# Found on the blind reuse set v4 (served to a question asking for something else):
# v4r052 「一节课上多少分钟」 asks a time; v4r191 「一个级别一共上几节课」 asks a number of lessons.
@pytest.mark.parametrize(("new", "approved", "answer", "extra"), [
    ("一节课上多少分钟？", "一个级别一共几节课？", "每一级都是16课时。", {"duration"}),
    ("一个级别一共上几节课？", "一个级别要上多长时间才能结课？", "每周上2课时，八周结课。", {"lessons"}),
    ("一个级别要上几周", "一个级别要上多久", "每周上2课时，八周结课。", None),  # weeks are a time: the same question
    ("一个级别一共几节课", "口语课一个级别多少课时", "每一级都是16课时。", None),
])
def test_a_time_asked_in_minutes_or_weeks_and_a_rate_that_is_no_total(new, approved, answer, extra):
    assert asks_other(new, approved, answer) == (frozenset(extra) if extra else None)


def test_a_rate_states_no_total_and_chinese_numerals_are_figures():
    assert stated("每周上2课时，八周结课。") == {"duration"}  # 2 课时 a week is a rate, 八周 a duration
    assert stated("每课时 45 分钟。") == frozenset()
    assert stated("每班不超过八人") == {"upper", "headcount"}
    assert stated("第一次转班免费") == {"amount"}  # an ordinal is no count


@pytest.mark.parametrize(("new", "approved", "opposite"), [
    ("小E不能帮我做哪些事？", "小E都能回答哪些问题？", True),
    ("小E 不能做哪些事", "助教小E管哪些事", True),
    ("能不能分期", "可以分期吗", False),  # A-not-A is no negation
    ("生病了没法上课，能保留学籍吗？", "因为生病要停课，可以先保留学籍吗", False),  # the situation, not the ask
    ("俺啥英语都不会 报哪个合适", "我完全零基础 报哪个级别合适", False),  # a space parts the clauses
    ("上到第几节课以后就不能退费了", "上了多少节就退不了了", False),
])
def test_asks_opposite_reads_a_negation_that_governs_the_question_word(new, approved, opposite):
    assert asks_opposite(new, approved) is opposite
