"""What a message names of its own (core.conversations.subjects): my own examples, written from the three documents."""

from __future__ import annotations

import pytest

from core.conversations.subjects import new_subjects, nominal, subjects
from tests.school import shipped_facts


@pytest.mark.parametrize(("text", "expected"), [
    # 「教材费每级 280 元，不包含在学费内，单独收取」: the textbook is the thing, 另外收钱 is what is asked about it
    ("那教材另外收钱不", ("教材",)),
    # 「开课前申请退费的，学费全额退还」: the tuition is the thing when the asking is a yes/no
    ("那学费还没开课能全退不", ("学费",)),
    ("那怎么转人工", ("转人工",)),  # a matter (slot.matter) whatever jieba tags it
    ("一个班几个人", ("一个班",)),
    ("那分级测试收费吗", ("分级测试",)),
    # the asking itself (「学费多少」 asks an amount), the steps of a matter, kinds of transfer, channels, figures
    # and levels are no things of the message's own
    ("学费多少", ()),
    ("审核要几天", ()),
    ("互转要钱吗", ()),
    ("几周上完", ()),
    ("去哪里申请", ()),
    ("收费吗", ()),
    ("可以在App上办吗", ()),
    ("那上了7节能退多少", ()),
    ("三级能退多少", ()),
    # a thing that needs an owner, and what qualifies it with 的 (「需提供二级及以上医院的证明」)
    ("要手续费吗", ()),
    ("要哪种医院的证明", ()),
])
def test_subjects_reads_the_things_a_message_names(text, expected):
    assert subjects(text, shipped_facts()) == expected


@pytest.mark.parametrize(("word", "expected"), [
    ("教材", True), ("转人工", True), ("App", True), ("班", True), ("一个班", True),
    ("审核", False), ("互转", False), ("上完", False), ("哈", False), ("什么", False),
])
def test_nominal_reads_jiebas_tags(word, expected):
    assert nominal(word) is expected


def test_new_subjects_leaves_what_the_previous_question_names():
    facts = shipped_facts()
    assert new_subjects("那教材另外收钱不", "四级教材费多少？", facts) == ()
    assert new_subjects("那教材另外收钱不", "四级学费多少？", facts) == ("教材",)
