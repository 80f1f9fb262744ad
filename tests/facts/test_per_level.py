"""core.facts.per_level: lessons per level (and a week, weeks to finish, the over-half count) read for every level,
a group of levels or one level, each with its sentence, from an edited copy of the documents in a tmp folder."""

from __future__ import annotations

import pytest

from core.facts import read_facts
from core.facts.show import fact_rows
from tests.school import documents, edited_corpus

LEVELS = "01-口语课分级说明.md"
RULES = "02-退费与转班制度.md"


def _facts(tmp_path, lessons_sentence: str, rules=()):
    folder = edited_corpus(tmp_path / "corpus", {LEVELS: [("每一级都是 16 课时", lessons_sentence)], RULES: list(rules)})
    return read_facts(documents(folder))


@pytest.mark.parametrize(("sentence", "values"), [
    # a group by a range of numbers, then one level by its name
    ("一级至三级每级都是 16 课时；商务级（四级）为 24 课时", {1: 16, 2: 16, 3: 16, 4: 24}),
    # a group by a range of names
    ("入门级到流利级每级 12 课时；商务级 20 课时", {1: 12, 2: 12, 3: 12, 4: 20}),
    # a group in Arabic numerals
    ("1–2 级每级 14 课时，3–4 级每级 18 课时", {1: 14, 2: 14, 3: 18, 4: 18}),
    # one value per level, listed
    ("入门级 12 课时，进阶级 14 课时，流利级 16 课时，商务级 20 课时", {1: 12, 2: 14, 3: 16, 4: 20}),
])
def test_lessons_per_level_is_read_for_groups_and_single_levels(tmp_path, sentence, values):
    facts = _facts(tmp_path, sentence)
    lessons = facts.lessons_per_level
    assert {n: f.value for n, f in facts.by_level("lessons_per_level").items()} == values
    assert lessons.common is None
    assert {(f.source.file, f.source.section) for _, f in lessons.own} == {(LEVELS, "二、课时安排与班型")}
    assert facts.differs("lessons_per_level") and facts.for_level("lessons_per_level", None) is None
    assert not [m for m in facts.missing if m.name.startswith("lessons_per_level")]


def test_one_value_for_every_level_is_the_common_fact(tmp_path):
    facts = _facts(tmp_path, "每一级都是 16 课时")
    assert facts.lessons_per_level.common.value == 16 and facts.lessons_per_level.own == ()
    assert facts.for_level("lessons_per_level", 3).value == 16 and facts.for_level("lessons_per_level", None).value == 16
    assert facts.lessons_per_level.common.source.sentence == "每一级都是 16 课时，每课时 45 分钟。"
    assert facts.weeks_per_level.common.value == 8  # 「八周结课」


def test_a_level_without_its_lessons_is_named_missing_with_its_sentence(tmp_path):
    facts = _facts(tmp_path, "一级至三级每级都是 16 课时")
    missing = {m.name: m for m in facts.missing}
    assert facts.for_level("lessons_per_level", 4) is None
    assert missing["lessons_per_level:4"].label == "商务级的课时数"
    assert "商务级（4级）N 课时" in missing["lessons_per_level:4"].expected


def test_the_over_half_count_is_read_per_level_from_the_sentences_after_the_rule(tmp_path):
    rules = [("（即超过 8 课时）后，不再受理退费申请。",
              "后，不再受理退费申请。一级至三级总课时 16，即已上超过 8 课时；商务级（四级）总课时 24，即已上超过 12 课时。")]
    facts = _facts(tmp_path, "一级至三级每级都是 16 课时；商务级（四级）为 24 课时", rules)
    assert {n: f.value for n, f in facts.by_level("over_half").items()} == {1: 8, 2: 8, 3: 8, 4: 12}
    assert facts.for_level("over_half", 4).source.sentence == "商务级（四级）总课时 24，即已上超过 12 课时。"
    assert facts.half_rule.source.sentence == "已上课时超过总课时的一半后，不再受理退费申请。"


@pytest.mark.parametrize("after_rule", [
    # the levels listed with 、 in the rule's own sentence
    "后，不再受理退费申请，即一级超过 6 课时、二级超过 7 课时、三级超过 9 课时、四级超过 12 课时。",
    # grouped levels listed with 、 inside brackets
    "（即入门级、进阶级超过 6 课时，流利级超过 9 课时，商务级超过 12 课时）后，不再受理退费申请。",
])
def test_an_over_half_count_listed_per_level_in_the_rule_sentence_is_no_common_count(tmp_path, after_rule):
    rules = [("（即超过 8 课时）后，不再受理退费申请。", after_rule)]
    facts = _facts(tmp_path, "入门级 12 课时，进阶级 14 课时，流利级 18 课时，商务级 24 课时", rules)
    assert facts.over_half.common is None  # the first level's count is not every level's
    by_level = {n: f.value for n, f in facts.by_level("over_half").items()}
    assert by_level[1] == 6 and by_level[3] == 9 and by_level[4] == 12
    assert by_level[2] == (7 if "二级超过 7" in after_rule else 6)


def test_per_level_values_are_rows_of_xiaoe_facts(tmp_path):
    facts = _facts(tmp_path, "一级至三级每级都是 16 课时；商务级（四级）为 24 课时")
    rows = {row["name"]: row for row in fact_rows(facts)}
    assert rows["lessons_per_level:4"]["value"] == 24 and rows["lessons_per_level:4"]["level"] == 4
    assert rows["lessons_per_level:4"]["label"] == "商务级的课时数"
    assert rows["lessons_per_level:1"]["sentence"] == "一级至三级每级都是 16 课时；"
    assert "lessons_per_level" not in rows  # no value for every level
