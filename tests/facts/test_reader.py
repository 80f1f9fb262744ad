"""core.facts: the school's facts read from the documents, each with its sentence; missing facts named."""

from __future__ import annotations

from core.facts import read_facts
from core.language.money import Rounding
from tests.school import documents, shipped_facts


def test_the_shipped_documents_state_every_fact_the_computations_need():
    facts = shipped_facts()
    assert [(lv.number, lv.name, lv.aliases) for lv in facts.levels] == [
        (1, "入门级", ("入门",)), (2, "进阶级", ("进阶",)), (3, "流利级", ("流利",)), (4, "商务级", ("商务",))]
    assert [f.value for f in facts.tuition] == [(1, 3600), (2, 4200), (3, 4800), (4, 5600)]
    assert (facts.lessons_per_level.common.value, facts.lessons_per_week.common.value) == (16, 2)
    assert (facts.fee_rate.value, facts.fee_minimum.value, facts.textbook_fee.value) == (0.05, 50, 280)
    assert (facts.over_half.common.value, facts.free_transfer.value, facts.transfer_fee.value) == (8, 4, (2, 100))
    assert facts.before_start and facts.level_difference and facts.textbook_not_refunded
    assert facts.rounding is None and facts.missing == ()


def test_each_fact_carries_its_file_section_and_sentence():
    facts = shipped_facts()
    source = facts.over_half.common.source
    assert (source.file, source.section) == ("02-退费与转班制度.md", "四、不予退费的情形")
    text = dict(documents())[source.file]
    assert text[source.start:source.end] == source.sentence == "已上课时超过总课时的一半（即超过 8 课时）后，不再受理退费申请。"
    assert facts.tuition_of(2).source.sentence == "进阶级（二级）：4200 元"
    assert facts.textbook_not_refunded.source.sentence == "教材费不在退费范围内。"  # the plain rule, not 「领取后不退」


def test_a_level_added_renamed_and_repriced_is_read_as_written():
    text = ("分为五级：初阶级（一级）、进阶级（二级）、精通级（三级）、商务级（四级）、大师级（五级）。\n\n"
            "初阶级（一级）：3000 元\n大师级（五级）：9000 元\n\n每一级都是 20 课时。每周上 4 课时。")
    facts = read_facts([("a.md", text)])
    assert [lv.name for lv in facts.levels] == ["初阶级", "进阶级", "精通级", "商务级", "大师级"]
    assert facts.tuition_of(5).value == (5, 9000) and facts.tuition_of(1).value == (1, 3000)
    assert (facts.lessons_per_level.common.value, facts.lessons_per_week.common.value) == (20, 4)
    names = {m.name for m in facts.missing}
    assert {"tuition:2", "tuition:3", "tuition:4", "refund_formula", "fee_rate", "over_half"} <= names
    assert "tuition:1" not in names and "lessons_per_level" not in names


def test_a_missing_fact_says_which_sentence_is_missing():
    facts = read_facts([("a.md", "入门级（一级）：3600 元")])
    missing = {m.name: m for m in facts.missing}
    assert missing["lessons_per_level"].label == "每级课时数" and "每一级都是 N 课时" in missing["lessons_per_level"].expected
    assert "rounding" not in missing  # the default rule (half up to the cent) applies


def test_a_rounding_rule_the_documents_state_is_read():
    facts = read_facts([("a.md", "退费金额四舍五入到元。")])
    assert facts.rounding.value == Rounding(places=0)


def test_a_faq_question_line_states_no_fact():
    facts = read_facts([("a.md", "问：每一级都是 16 课时吗？\n答：不是，每一级都是 12 课时。")])
    assert facts.lessons_per_level.common.value == 12


def test_a_level_named_without_级_is_read_too():
    facts = read_facts([("a.md", "分为两级：启蒙班（一级）、提高班（二级）。\n\n启蒙班（一级）：3000 元")])
    assert [(lv.name, lv.aliases) for lv in facts.levels] == [("启蒙班", ("启蒙",)), ("提高班", ("提高",))]
    assert facts.tuition_of(1).value == (1, 3000)
