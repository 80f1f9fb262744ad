"""core.answering.calculate with per-level facts (each level's lessons and its own over-half limit) and the total
fee of several transfers, each step citing its sentence."""

from __future__ import annotations

from core.answering.calculate import limit_of
from core.answering.own_case import compute, phrase
from core.case import read_case
from core.facts import read_facts
from core.values.case import COMPUTED, NEEDS, STOPPED
from tests.school import documents, edited_corpus, shipped_facts

LEVELS = "01-口语课分级说明.md"
RULES = "02-退费与转班制度.md"
# Levels 1–3 have 16 lessons, level 4 has 24; the over-half rule states no count: half the level's own lessons.
PER_LEVEL = {LEVELS: [("每一级都是 16 课时", "一级至三级每级都是 16 课时；商务级（四级）为 24 课时")],
             RULES: [("（即超过 8 课时）", "")]}


def _facts(tmp_path):
    return read_facts(documents(edited_corpus(tmp_path / "corpus", PER_LEVEL)))


def test_the_over_half_limit_is_half_of_the_levels_own_lessons(tmp_path):
    facts = _facts(tmp_path)
    assert limit_of(facts, 1)[0] == 8 and limit_of(facts, 4)[0] == 12
    assert limit_of(facts, 4)[2].sources[0].sentence == "商务级（四级）为 24 课时，每课时 45 分钟。"
    assert limit_of(facts, None) is None  # the levels differ: no limit without the level


def test_a_level_with_more_lessons_computes_with_its_own_total_and_limit(tmp_path):
    facts = _facts(tmp_path)
    # 10 of 24 attended (not over 12): 5600 × 14 ÷ 24 = 3266.67; fee 5% = 163.33; 3103.34
    result = compute("商务级 交了5600 上了10节 能退多少", facts)
    assert result.outcome == COMPUTED and result.final == 3103.34
    assert result.steps[0].text == "剩余课时 = 24 − 10 = 14"
    text = phrase(result, lambda source: 1)
    assert "商务级共 24 课时，一半是 24 ÷ 2 = 12 课时[1]。你已上 10 课时，没有超过 12 课时，" in text and "可退 3103.34 元" in text
    # the same 10 lessons on a 16-lesson level are over its half
    stopped = compute("入门级 交了3600 上了10节 能退多少", facts)
    assert stopped.outcome == STOPPED and stopped.limit[0] == 8


def test_without_the_level_the_differing_lessons_ask_for_it(tmp_path):
    result = compute("交了4000 上了3节 能退多少", _facts(tmp_path))
    assert result.outcome == NEEDS and result.needs == ("现在的级别（报的是哪一级）",)


def test_the_total_of_several_transfers_adds_each_ones_fee():
    question = "这学期可能要转3次班（第一次在开课4节内），转班手续费一共多少"
    assert read_case(question, shipped_facts()).transfers == 3
    result = compute(question, shipped_facts())
    assert result.outcome == COMPUTED and result.final == 200
    assert [s.value for s in result.steps] == [0, 200, 200]
    assert result.steps[0].sources[0].sentence.startswith("开课后 4 课时内，可以免费转班一次")
    assert result.steps[1].sources[0].sentence == "从第二次转班起，每次收取 100 元转班手续费。"
    text = phrase(result, lambda source: 1)
    assert "第 2–3 次每次 100 元，2 × 100 = 200 元" in text and "转班手续费 0 + 200 = 200 元" in text
    assert compute("要换4次班 加起来手续费多少", shipped_facts()).final == 300


def test_a_count_without_a_total_asked_is_no_total():
    assert read_case("转过2次了 这次还要钱吗", shipped_facts()).transfers is None
    assert read_case("第3次转班多少钱", shipped_facts()).transfers is None
