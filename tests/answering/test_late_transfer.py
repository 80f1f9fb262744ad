"""A first transfer after the free window: its fee when the documents state it (core.facts' late_transfer_fee, used by
core.answering.calculate and phrased with its sentence), 「请转人工确认」 when they do not."""

from __future__ import annotations

import pytest

from core.answering.own_case import compute, phrase
from core.facts import read_facts
from core.facts.show import fact_rows
from core.values.case import BEYOND, COMPUTED
from tests.school import documents, edited_corpus, shipped_facts

RULES = "02-退费与转班制度.md"
# The shipped rules plus one sentence saying what a first transfer after the free window costs (here 80 元, so it
# cannot be confused with the 100 元 of the second transfer on).
STATED = {RULES: [("从第二次转班起，每次收取 100 元转班手续费。",
                   "从第二次转班起，每次收取 100 元转班手续费；已上课时超过 4 课时后才第一次转班的，收取 80 元转班手续费。")]}


def _stated(tmp_path):
    return read_facts(documents(edited_corpus(tmp_path / "corpus", STATED)))


@pytest.mark.parametrize("sentence, fee", [
    ("已上课时超过 4 课时后才第一次转班的，收取 80 元转班手续费", 80),
    ("开课 4 课时以后首次转班，需交 60 元转班手续费", 60),
    ("从第二次起，每次收取 100 元，过了 4 课时才第一次转班的也收取 90 元转班手续费", 90),
])
def test_the_reader_reads_a_first_transfers_fee_after_the_window(tmp_path, sentence, fee):
    edits = {RULES: [("从第二次转班起，每次收取 100 元转班手续费。", f"从第二次转班起，每次收取 100 元转班手续费。{sentence}。")]}
    facts = read_facts(documents(edited_corpus(tmp_path / "corpus", edits)))
    assert facts.late_transfer_fee.value == fee
    assert facts.transfer_fee.value == (2, 100)  # the n-th transfer's fee is read as before


@pytest.mark.parametrize("sentence", ["开课后 4 课时内，第一次转班免费", "从第二次转班起，每次收取 100 元转班手续费"])
def test_the_window_and_the_nth_fee_are_no_late_fee(sentence):
    from core.facts.reader import _late_fee

    assert _late_fee(sentence) is None


def test_the_shipped_documents_state_no_late_fee_and_miss_nothing_for_it():
    facts = shipped_facts()
    assert facts.late_transfer_fee is None
    assert not any(m.name == "late_transfer_fee" for m in facts.missing)


def test_the_late_fee_is_a_facts_row_with_its_sentence(tmp_path):
    row = next(r for r in fact_rows(_stated(tmp_path)) if r["name"] == "late_transfer_fee")
    assert row["shown"] == "80 元" and row["sentence"] == "已上课时超过 4 课时后才第一次转班的，收取 80 元转班手续费。"


def test_a_first_transfer_after_the_window_costs_the_stated_fee_and_cites_it(tmp_path):
    result = compute("上了6节课了想换个时段，这是第一次转班，要交多少", _stated(tmp_path))
    assert result.outcome == COMPUTED and result.final == 80
    text = phrase(result, lambda source: 2 if "80 元" in source.sentence else 1)
    assert "你已上 6 课时，超过了 4 课时：已上课时超过 4 课时后才第一次转班的，收取 80 元转班手续费[2]。" in text
    assert text.endswith("你这是第一次转班：转班手续费 80 元[2]。")


def test_weeks_past_the_window_use_the_late_fee_too(tmp_path):
    # 3 weeks × 2 lessons a week = 6 lessons, past the 4-lesson window
    result = compute("上了三个礼拜了 第一次转班 要多少钱", _stated(tmp_path))
    assert result.outcome == COMPUTED and result.final == 80
    assert result.steps[0].text == "已上课时 = 3 周 × 2 课时 = 6"


def test_within_the_window_the_first_transfer_stays_free(tmp_path):
    result = compute("上了3节 第一次转班 要钱吗", _stated(tmp_path))
    assert result.outcome == COMPUTED and result.final == 0


def test_without_the_sentence_the_first_transfer_after_the_window_goes_to_a_person():
    result = compute("上了6节课了想换个时段，这是第一次转班，要交多少", shipped_facts())
    assert result.outcome == BEYOND and result.final is None
    assert "请转人工确认" in phrase(result, lambda source: 1)


def test_the_total_of_several_transfers_adds_the_late_fee(tmp_path):
    # first after the window 80, then the 2nd and 3rd at 100 each: 80 + 200 = 280
    result = compute("已经上了6节 这学期要转3次班 一共多少手续费", _stated(tmp_path))
    assert result.outcome == COMPUTED and result.final == 280
    assert [s.value for s in result.steps] == [80, 200, 280]
    assert result.steps[0].sources[0].sentence.endswith("收取 80 元转班手续费。")
    assert compute("已经上了6节 这学期要转3次班 一共多少手续费", shipped_facts()).outcome == BEYOND


def test_a_level_change_after_the_window_adds_the_late_fee(tmp_path):
    # 三级 4800 − 二级 4200 = 600, plus 80 for the first transfer after the window
    result = compute("二级上了6节 第一次转班 想转到三级 要补多少", _stated(tmp_path))
    assert result.outcome == COMPUTED and result.final == 680
    text = phrase(result, lambda source: 1)
    assert "你这是第 1 次转班，已上 6 课时，超过了 4 课时，另收 80 元：需补 600 + 80 = 680 元" in text
    assert compute("二级上了3节 第一次转班 想转到三级 要补多少", _stated(tmp_path)).final == 600
