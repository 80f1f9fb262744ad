"""Follow-ups read without a model: my own dev examples, written from the three documents (not from any blind set)."""

from __future__ import annotations

import pytest

from core.conversations import parse_rules, read_in_context
from core.conversations.standalone import short_marker, subject
from core.errors import ConfigError
from core.values.conversations import AFTER_REFUSAL, COURTESY, FIRST, FOLLOW_UP, OWN_QUESTION, TOPIC_SWITCH, Turn
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
    ("退费怎么申请？", "多久到账？", "退费多久到账？", "asked"),
    # the course's stage, read with the student-case reader's words
    ("开课后退费手续费怎么算？", "开课前呢", "开课前退费手续费怎么算？", "slot.started"),
    # the kinds of transfer and the channels the documents name
    ("线上班与线下班互转要钱吗？", "同级别换时段呢", "同级别换时段要钱吗？", "slot.transfer"),
    ("退费能在前台申请吗？", "App呢", "退费能在App申请吗？", "slot.channel"),
    # every kind of the student's own figures
    ("第二次转班收多少钱？", "第四次呢", "第四次转班收多少钱？", "figures.ordinal"),
    ("我转过一次班，下次转要多少钱？", "要是转过三次呢", "我转过三次班，下次转要多少钱？", "figures.moved"),
    ("我因病要停6个月，能保留学籍吗？", "那要是半年呢", "我因病要停半年，能保留学籍吗？", "figures.span"),
    ("我孩子15岁，能自己申请退费吗？", "要是17岁呢", "我孩子17岁，能自己申请退费吗？", "figures.age"),
    # lessons taken replace the stage said in words
    ("我付了4800元，课还没开始，退费能退多少？", "要是上了5节呢", "我付了4800元，上了5节，退费能退多少？",
     "figures.lessons"),
    # which time, put in front as a word when the previous question has none
    ("转班要交手续费吗？", "第三次呢", "第三次转班要交手续费吗？", "figures.ordinal"),
    # what is asked: the previous question's subject kept, its asking dropped
    ("转班手续费包含在学费里吗？", "那要交多少", "转班手续费要交多少？", "asked"),
    ("在App里能申请保留学籍吗？", "要带什么材料", "在App里保留学籍要带什么材料？", "asked"),
    ("我报的三级，交了4800，能退多少？", "多久能到账", "我报的三级，交了4800，多久能到账？", "asked"),
    ("可以跳级吗？", "考试收费吗", "跳级考试收费吗？", "asked"),
    ("对话记录保存多久？", "有啥用", "对话记录有啥用？", "asked"),
    # a word with no counterpart waits: what is asked takes it with the rest
    ("进阶级适合什么人？", "教材费多少", "进阶级教材费多少？", "asked"),
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
    assert subject("退费怎么申请？", shipped_facts()) == "退费"


def test_rules_switch_off_by_name():
    found = read("二级学费多少？", "那三级呢？", rules=parse_rules("-level"))
    assert "level" not in found.rules and found.question != "三级学费多少？"
    assert read("二级学费多少？", "那三级呢？", rules=parse_rules("none")).kind == TOPIC_SWITCH
    with pytest.raises(ConfigError, match="不认识"):
        parse_rules("-levels")


def test_bare_ask_is_a_follow_up_even_when_the_gate_would_answer():
    found = read("退费怎么申请？", "多久到账？", alone=True)
    assert (found.question, found.rules[-1]) == ("退费多久到账？", "asked")
    assert read("二级学费多少？", "一个班最多多少人？", alone=True).kind == TOPIC_SWITCH


def test_read_in_context_a_yes_no_read_from_its_form_ends():
    # core.case.asked gives 「」 as the word of a yes/no read from the question's form (「要交钱不」); an empty word
    # once made the span search loop forever
    found = read("转班要收费吗？", "第二次转要交钱不")
    assert found.message == "第二次转要交钱不"


@pytest.mark.parametrize(("previous", "message", "expected"), [
    ("开课前退费能全额退吗？", "线下班也一样吗", "线下班开课前退费能全额退吗？"),
    ("因病保留学籍最长几个月？", "工作调动也可以吗", "工作调动保留学籍最长几个月？"),
])
def test_points_back_keeps_what_the_previous_question_asked(previous, message, expected):
    found = read(previous, message, alone=True)
    assert (found.question, found.kind) == (expected, FOLLOW_UP)
    assert read(previous, message, alone=True, rules=parse_rules("-points_back")).kind == TOPIC_SWITCH


@pytest.mark.parametrize(("previous", "message"), [
    ("二级学费多少？", "那保留学籍要什么证明？"),
    ("我交了4200上了2节能退多少？", "那转班收费吗"),
    ("入门级多少钱？", "能跳级吗"),
])
def test_own_subject_a_message_naming_its_own_matter_stays(previous, message):
    found = read(previous, message, alone=True)
    assert (found.question, found.kind) == (message, TOPIC_SWITCH)
    assert read(previous, message, alone=True, rules=parse_rules("-own_subject")).kind == FOLLOW_UP


def test_own_subject_needs_the_gate_to_answer_it_alone():
    assert read("二级学费多少？", "那保留学籍呢", alone=False).kind == FOLLOW_UP


@pytest.mark.parametrize(("previous", "message"), [
    ("保留学籍要交钱吗？", "要什么材料"),
    ("退款多久能到账？", "是原路退回吗"),
    ("分级测试免费吗？", "收费不"),
])
def test_bare_ask_reads_a_message_without_a_subject_as_a_follow_up(previous, message):
    found = read(previous, message, alone=True)
    assert found.kind == FOLLOW_UP and found.rules == ("asked",)


@pytest.mark.parametrize("message", ["一个班最多多少人？", "教材费能退吗", "每节课多长时间"])
def test_bare_ask_leaves_a_message_with_its_own_subject(message):
    assert read("开课前退费能全额退吗？", message, alone=True).kind == TOPIC_SWITCH


def test_read_in_context_a_rewrite_that_only_gives_back_the_message_is_none():
    found = read("二级学费多少？", "三级教材费多少")
    assert (found.question, found.kind, found.derived_from) == ("三级教材费多少", OWN_QUESTION, "")


def test_slots_do_not_swap_a_word_the_previous_question_compares():
    found = read("线上班和线下班学费一样吗？", "那线下班每班最多几个人")
    assert (found.question, found.kind) == ("那线下班每班最多几个人", OWN_QUESTION)


def test_front_is_the_last_resort_and_switches_off():
    assert read("二级学费多少？", "那雅思呢").question == "雅思二级学费多少？"
    assert read("二级学费多少？", "那雅思呢", rules=parse_rules("-front")).kind == OWN_QUESTION


@pytest.mark.parametrize(("question", "expected"), [
    ("工作调动保留学籍要啥证明？", "工作调动保留学籍"),
    ("在前台能申请退费吗？", "在前台退费"),
    ("我孩子12岁，想退费找谁申请？", "我孩子12岁，想退费"),
    ("对话记录保存多久？", "对话记录"),
    ("那分级测试收费吗", "分级测试"),
])
def test_subject_keeps_what_the_question_is_about(question, expected):
    assert subject(question, shipped_facts()) == expected
