"""Follow-ups read without a model: my own dev examples, written from the three documents (not from any blind set)."""

from __future__ import annotations

import pytest

from core.conversations import parse_rules, read_in_context
from core.conversations.standalone import short_marker, subject
from core.errors import ConfigError
from core.values.conversations import AFTER_REFUSAL, COURTESY, FIRST, FOLLOW_UP, TOPIC_SWITCH, Turn
from tests.school import shipped_facts


def read(previous: str, message: str, *, alone: bool = False, refused: bool = False, rules=None):
    kwargs = {"rules": rules} if rules is not None else {}
    return read_in_context(message, Turn(previous, refused, "msg_prev"), stands_alone=alone, facts=shipped_facts(),
                           **kwargs)


@pytest.mark.parametrize(("previous", "message", "expected", "rule"), [
    ("二级学费多少？", "那三级呢？", "三级学费多少？", "level"),
    ("二级学费多少？", "那流利级呢", "流利级学费多少？", "level"),
    ("学费多少", "那三级呢", "三级学费多少", "level"),
    ("三级学费多少？", "教材费呢？", "三级教材费多少？", "slot.fee"),
    ("线上班一级学费多少", "那线下班呢", "线下班一级学费多少", "slot.class"),
    ("我报了二级，实付4200元，上了4节课，能退多少？", "那我上了6节呢", "我报了二级，实付4200元，上了6节课，能退多少？",
     "figures.lessons"),
    ("我交了4800元，上了3节课，能退多少？", "那要是交了5600元呢", "我交了5600元，上了3节课，能退多少？", "figures.money"),
    ("退费怎么算？", "我上了6节", "我上了6节，退费怎么算？", "figures.lessons"),
    ("退费怎么申请？", "多久到账？", "退费申请多久到账？", "asked"),
])
def test_read_in_context_swaps_the_changed_part(previous, message, expected, rule):
    found = read(previous, message)
    assert (found.question, found.kind, found.derived_from) == (expected, FOLLOW_UP, "msg_prev")
    assert rule in found.rules


def test_read_in_context_a_message_that_stands_alone_is_a_topic_switch():
    found = read("二级学费多少？", "一个班最多多少人？", alone=True)
    assert (found.question, found.kind, found.rules) == ("一个班最多多少人？", TOPIC_SWITCH, ())


def test_read_in_context_after_a_refusal_carries_nothing():
    found = read("你们有暑假班吗？", "那三级呢？", refused=True)
    assert (found.question, found.kind) == ("那三级呢？", AFTER_REFUSAL)


def test_read_in_context_first_message_and_courtesy_stay_as_written():
    assert read_in_context("二级学费多少？", None, stands_alone=False).kind == FIRST
    assert read("二级学费多少？", "好的，谢谢！").kind == COURTESY


def test_read_in_context_short_marker_makes_a_follow_up_even_when_the_gate_would_answer():
    found = read("二级学费多少？", "那三级呢？", alone=True)
    assert found.question == "三级学费多少？"


def test_short_marker_reads_openers_closers_and_length():
    assert short_marker("那三级呢", True) and short_marker("还有教材费", True) and short_marker("四级呢？", True)
    assert not short_marker("三级学费多少", True)
    assert not short_marker("那如果我想在开课以后第二次转班到别的级别要交多少钱", True)  # not short


def test_subject_drops_the_asking_words():
    assert subject("退费怎么申请？") == "退费申请"


def test_rules_switch_off_by_name():
    found = read("二级学费多少？", "那三级呢？", rules=parse_rules("-level"))
    assert "level" not in found.rules and found.question != "三级学费多少？"
    assert read("二级学费多少？", "那三级呢？", rules=parse_rules("none")).kind == TOPIC_SWITCH
    with pytest.raises(ConfigError, match="不认识"):
        parse_rules("-levels")


def test_bare_ask_is_a_follow_up_even_when_the_gate_would_answer():
    found = read("退费怎么申请？", "多久到账？", alone=True)
    assert (found.question, found.rules[-1]) == ("退费申请多久到账？", "asked")
    assert read("二级学费多少？", "一个班最多多少人？", alone=True).kind == TOPIC_SWITCH


def test_read_in_context_a_yes_no_read_from_its_form_ends():
    # core.case.asked gives 「」 as the word of a yes/no read from the question's form (「要交钱不」); an empty word
    # once made the span search loop forever
    found = read("转班要收费吗？", "第二次转要交钱不")
    assert found.message == "第二次转要交钱不"
