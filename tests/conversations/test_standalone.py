"""Follow-ups read without a model: my own dev examples, written from the three documents (not from any blind set)."""

from __future__ import annotations

import pytest

from core.conversations import parse_rules, read_in_context
from core.conversations.standalone import own_subject, short_marker, subject
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
    # the matter the previous question named by its verb (能退多少) is kept
    ("我报的三级，交了4800，能退多少？", "多久能到账", "我报的三级，交了4800，退款多久能到账？", "asked"),
    ("可以跳级吗？", "要收费吗", "跳级要收费吗？", "asked"),
    ("对话记录保存多久？", "有啥用", "对话记录有啥用？", "asked"),
    # a word with no counterpart waits: what is asked takes it with the rest
    ("退费怎么申请？", "在前台要多久", "退费在前台要多久？", "asked"),
    # a phrase pointing back is the one thing of its group the previous question names (refer)
    ("入门级适合什么人？", "这个级别一周上几次课", "入门级一周上几次课", "refer"),
    ("商务级学费多少钱", "那这一级要上几周", "商务级要上几周", "refer"),
    ("线下班学费多少", "这种班型一个班几个人", "线下班一个班几个人", "refer"),
    ("二级学费多少？", "教材费也含在里面吗", "教材费也含在二级学费里面吗", "refer"),
    # another situation takes the place of the previous question's situation clauses (condition)
    ("完全没学过英语的大人，该报哪一级？", "那要是能看懂简单句子呢", "能看懂简单句子，该报哪一级？", "condition"),
    ("我发音不太好，适合报线上班吗？", "那要是口语还不错呢", "口语还不错，适合报线上班吗？", "condition"),
    # 「反过来呢」 swaps the previous question's two words of one group (reverse)
    ("从一级转到二级要补多少钱？", "反过来呢", "从二级转到一级要补多少钱？", "reverse"),
    ("线下班转线上班要收费吗", "倒过来呢", "线上班转线下班要收费吗", "reverse"),
    # a count in the measure of one of the previous question's takes its numeral (counts)
    ("我想报两个级别，教材费一共多少", "报三个级别呢", "我想报三个级别，教材费一共多少", "counts"),
    ("我们3个人一起报二级一共多少钱", "要是5个人呢", "我们5个人一起报二级一共多少钱", "counts"),
    ("我报二级 交了4200 才上了3次课 退多少", "我记错了 是5次", "我报二级 交了4200 才上了5次课 退多少", "counts"),
])
def test_read_in_context_swaps_the_changed_part(previous, message, expected, rule):
    found = read(previous, message)
    assert (found.question, found.kind, found.derived_from) == (expected, FOLLOW_UP, "msg_prev")
    assert rule in found.rules
    if rule in ("refer", "condition", "reverse", "counts"):  # these decide alone: switched off, no such rewrite
        assert read(previous, message, rules=parse_rules(f"-{rule}")).question != expected


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
    # a message pointing back names no thing of its own either: no_subject reads it as a follow-up too
    assert read(previous, message, alone=True, rules=parse_rules("-points_back,-no_subject")).kind == TOPIC_SWITCH


@pytest.mark.parametrize(("previous", "message"), [
    ("二级学费多少？", "那保留学籍要什么证明？"),
    ("我交了4200上了2节能退多少？", "那转班收费吗"),
    ("入门级多少钱？", "能跳级吗"),
])
def test_own_subject_a_message_naming_its_own_matter_stays(previous, message):
    found = read(previous, message, alone=True)
    assert (found.question, found.kind) == (message, TOPIC_SWITCH)
    # a named matter is a subject too (new_subject): both rules off, it is read as a follow-up
    assert read(previous, message, alone=True, rules=parse_rules("-own_subject,-new_subject")).kind == FOLLOW_UP


def test_own_subject_needs_the_gate_to_answer_it_alone():
    assert read("二级学费多少？", "那保留学籍呢", alone=False).kind == FOLLOW_UP


@pytest.mark.parametrize(("previous", "message"), [
    ("保留学籍要交钱吗？", "要什么材料"),
    ("退款多久能到账？", "审核要几天"),
    ("分级测试免费吗？", "收费不"),
])
def test_bare_ask_reads_a_message_without_a_subject_as_a_follow_up(previous, message):
    found = read(previous, message, alone=True)
    assert found.kind == FOLLOW_UP and found.rules == ("asked",)


@pytest.mark.parametrize("message", ["一个班最多多少人？", "教材费能退吗", "每节课多长时间"])
def test_bare_ask_leaves_a_message_with_its_own_subject(message):
    assert read("开课前退费能全额退吗？", message, alone=True).kind == TOPIC_SWITCH


def test_read_in_context_a_rewrite_that_only_gives_back_the_message_is_none():
    found = read("二级多少钱？", "三级多少课时")
    assert (found.question, found.kind, found.derived_from) == ("三级多少课时", OWN_QUESTION, "")


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


# -- fu3: mechanisms that generalise (examples written from the documents, not from any labelled set) -------------

@pytest.mark.parametrize(("previous", "message", "expected"), [
    # 「因病申请的，需提供二级及以上医院的证明」: the certificate belongs to the previous question's matter
    ("我因病要停3个月，能保留学籍吗？", "要开什么证明", "我因病要停3个月，保留学籍要开什么证明？"),
    # 「转到不同级别的，按两个级别的学费差价多退少补」
    ("我想从二级转到三级，要怎么办？", "差价是多少", "我想从二级转到三级，差价是多少？"),
    # 「可退金额 = 实付学费 ×（剩余课时 ÷ 总课时）− 手续费」
    ("我交了4800上了4节能退多少？", "手续费是多少", "我交了4800上了4节手续费是多少？"),
])
def test_relational_a_thing_that_needs_an_owner_asks_about_the_previous_matter(previous, message, expected):
    found = read(previous, message, alone=True)
    assert (found.question, found.kind) == (expected, FOLLOW_UP)
    assert "relational" not in parse_rules("-relational")
    # a thing that needs an owner is no subject either: no_subject reads it as a follow-up too, and 「手续费是多少」
    # only asks (its fee noun is part of the asking: core.case.asked reads 「…是多少」), so bare_ask does as well
    off = parse_rules("-relational,-no_subject,-bare_ask")
    assert read(previous, message, alone=True, rules=off).kind == TOPIC_SWITCH


@pytest.mark.parametrize("message", ["教材费能退吗", "转班手续费多少", "三级总课时是多少"])
def test_relational_leaves_a_message_naming_its_own_thing(message):
    # its own fee, its own matter (转班), its own level: a question of its own
    assert read("开课前退费能全额退吗？", message, alone=True).kind == TOPIC_SWITCH


@pytest.mark.parametrize(("previous", "message", "expected", "rule"), [
    # 「因病申请的……最长 6 个月」: the student only tells how long
    ("孩子病了要停两个月课，能保留学籍吗？", "医生说可能要半年", "孩子病了要停半年课，能保留学籍吗？", "figures.span"),
    # 「从第二次转班起，每次收取 100 元转班手续费」: the student only tells the transfers made
    ("我在三级上了2节课，想转到线下班，要钱吗？", "我之前已经转过一次了",
     "我之前已经转过一次了，我在三级上了2节课，想转到线下班，要钱吗？", "figures.moved"),
])
def test_situation_a_message_that_only_tells_a_figure_goes_into_the_previous_question(previous, message, expected,
                                                                                     rule):
    found = read(previous, message, alone=True)
    assert (found.question, found.kind) == (expected, FOLLOW_UP)
    assert rule in found.rules
    assert read(previous, message, alone=True, rules=parse_rules("-situation")).kind == TOPIC_SWITCH


def test_situation_needs_a_figure_and_no_asking():
    assert read("退费怎么申请？", "我口语还行", alone=True).kind == TOPIC_SWITCH
    assert read("退费怎么申请？", "我上了6节能退吗", alone=True).kind == TOPIC_SWITCH


@pytest.mark.parametrize("message", ["三级几节课", "二级一个班多少人", "流利级适合什么人"])
def test_own_level_a_level_with_its_own_attribute_is_a_new_question(message):
    # the previous question has no level: a level asked with a thing of its own is a question of its own,
    # even when the gate refuses it alone
    found = read("开课前退费能全额退吗？", message, alone=False)
    assert (found.question, found.kind) == (message, TOPIC_SWITCH)
    off = parse_rules("-own_level,-new_subject,-keeps_subject")  # 班 and 人 are things of its own too
    assert read("开课前退费能全额退吗？", message, alone=False, rules=off).kind == FOLLOW_UP


@pytest.mark.parametrize(("previous", "message", "expected"), [
    ("开课前退费能全额退吗？", "那三级呢", "三级开课前退费能全额退吗？"),
    ("我交了4800上了4节能退多少？", "三级能退多少", "我交了4800上了4节三级能退多少？"),
])
def test_own_level_a_level_with_only_an_asking_is_still_a_follow_up(previous, message, expected):
    found = read(previous, message, alone=True)
    assert (found.question, found.kind) == (expected, FOLLOW_UP)


def test_subject_a_space_between_chinese_clauses_separates_them():
    # students write clauses apart with spaces on a phone: the earlier ones are the student's case and stay
    facts = shipped_facts()
    assert subject("孩子报了一级 交了3600 上了7节了还能退吗", facts) == "孩子报了一级，交了3600，上了7节了"
    assert subject("在 App 内能申请退费吗", facts) == "在App内退费"  # no clause break around a Latin word
    found = read("孩子报了一级 交了3600 上了7节了还能退吗", "能退多少钱捏", alone=False)
    assert found.question == "孩子报了一级，交了3600，上了7节了能退多少钱？"


@pytest.mark.parametrize(("previous", "message", "expected", "rule"), [
    # 「已上课时超过总课时的一半（即超过 8 课时）后，不再受理退费申请」: only the bound changes
    ("上了超过8节还能退吗？", "那刚好8节呢", "上了刚好8节还能退吗？", "slot.bound"),
    # 「线上班与线下班互转」 is a kind of transfer: 「换到线下」 replaces 「换个时段」, it does not add a class
    ("我才上了2节，能免费换个时段吗？", "换到线下呢", "我才上了2节，能免费换到线下吗？", "slot.transfer"),
])
def test_slots_bounds_and_transfer_phrasings_swap(previous, message, expected, rule):
    found = read(previous, message, alone=True)
    assert (found.question, found.kind) == (expected, FOLLOW_UP)
    assert rule in found.rules


@pytest.mark.parametrize(("previous", "message"), [
    # 「教材费一经领取不予退还」-style questions: a fee of its own and the refund's verb, after a question about a level
    ("二级适合什么水平的？", "那教材费退不退"),
    ("线上班一节课多长时间？", "那学费能退吗"),
])
def test_own_subject_a_matter_named_by_its_verb_with_a_thing_of_its_own_stays(previous, message):
    assert read(previous, message, alone=True).kind == TOPIC_SWITCH
    assert read(previous, message, alone=True, rules=parse_rules("-own_subject,-new_subject")).kind == FOLLOW_UP


@pytest.mark.parametrize(("previous", "message"), [
    ("四级教材费多少？", "领了能退吗"),  # names no thing of its own
    ("我三级已经上了4节，转到四级要补多少？", "转二级呢，是退钱吗"),  # its level swaps the previous one
    ("退费要多久？", "那学费能退吗"),  # the verb is the previous question's own
])
def test_own_subject_a_verb_alone_does_not_make_a_new_question(previous, message):
    assert not own_subject(message, True, previous, shipped_facts())


@pytest.mark.parametrize(("previous", "message", "expected"), [
    # the words leading an asking go with it: 「最长 6 个月」 is asked by 最长多久, 「每周上几次」 is one asking
    ("保留学籍最长多久？", "要什么证明", "保留学籍要什么证明？"),
    ("二级每周上几次课？", "每次多久", "二级每次多久？"),
])
def test_subject_drops_the_words_that_lead_the_asking(previous, message, expected):
    assert read(previous, message, alone=True).question == expected


def test_relational_replaces_the_fee_the_previous_question_asked():
    # 「报读三级（总课时 16）」: the total of lessons is the level's, not its fee's
    assert read("三级学费多少？", "总课时是多少", alone=True).question == "三级总课时是多少？"
    off = parse_rules("-relational,-no_subject")
    assert read("三级学费多少？", "总课时是多少", alone=True, rules=off).kind == TOPIC_SWITCH


# -- fu4: a message with a subject and an asking of its own stands; one missing either takes it (from the documents) ---

@pytest.mark.parametrize(("previous", "message", "alone"), [
    # 「教材费每级 280 元……单独收取」 after a level's tuition: its own thing (教材) and its own asking
    ("二级学费多少？", "那教材另外收钱吗", True),
    # 「开课前申请退费的，学费全额退还」 after a question about the textbook
    ("教材领了能退吗？", "那学费还没开课能全退吗", True),
    # 「在对话里输入“人工”……即可转到人工服务」 after a question about the course
    ("一个级别几周上完？", "那怎么转人工", True),
    # 「学员按分级测试的结果直接报读对应级别即可」: stays as written even when the gate refuses it alone
    ("二级适合什么人？", "测试完可以直接报三级吗", False),
])
def test_new_subject_a_message_with_its_own_thing_and_asking_stays(previous, message, alone):
    found = read(previous, message, alone=alone)
    assert (found.question, found.kind) == (message, TOPIC_SWITCH)
    off = parse_rules("-new_subject,-own_subject,-full_question,-keeps_subject")
    assert read(previous, message, alone=alone, rules=off).kind != TOPIC_SWITCH


def test_new_subject_a_thing_the_previous_question_names_is_not_new():
    # 「教材」 is named by 「教材费」: 「那教材呢」-like follow-ups still swap
    assert read("二级教材费多少？", "那教材另外收钱吗", alone=True).kind != TOPIC_SWITCH


@pytest.mark.parametrize(("previous", "message"), [
    # 「教材费每级 280 元」: the thing named before, a kind of thing not asked before
    ("二级教材费能退吗？", "那二级教材费多少钱"),
    # 「各级口语课的单报学费如下」 after a level difference
    ("我想从二级转到三级，怎么补钱？", "四级学费多少"),
])
def test_full_question_a_thing_with_an_asking_of_its_own_stays(previous, message):
    assert read(previous, message, alone=True).kind == TOPIC_SWITCH
    assert read(previous, message, alone=True, rules=parse_rules("-full_question")).kind != TOPIC_SWITCH


def test_full_question_needs_the_gate_and_a_new_kind_of_asking():
    assert read("二级教材费能退吗？", "那二级教材费多少钱", alone=False).kind != TOPIC_SWITCH
    # asked the previous question's way: the level swaps in (an existing example above)
    assert read("我交了4800上了4节能退多少？", "三级能退多少", alone=True).kind == FOLLOW_UP


@pytest.mark.parametrize(("previous", "message", "expected"), [
    # 「学校在 3 个工作日内完成审核」: the review is the refund's
    ("退款多久能到账？", "审核要几天", "退款审核要几天？"),
    # 「每周上 2 课时，八周结课」
    ("二级每周上几次课？", "几周上完", "二级几周上完？"),
    # 「分级测试……用时约 20 分钟」 then whether it is free
    ("分级测试要多久？", "收费吗", "分级测试收费吗？"),
    # 「转到不同级别的，按两个级别的学费差价多退少补」, then whether a fee is charged too
    ("转到不同级别怎么算钱？", "要交手续费吗", "转到不同级别要交手续费吗？"),
    # 「因病申请的，需提供二级及以上医院的证明」: what qualifies the certificate is still the matter's
    ("因病保留学籍要什么证明？", "要哪种医院的证明", "因病保留学籍要哪种医院的证明？"),
])
def test_no_subject_an_attribute_question_after_a_subject_is_a_follow_up(previous, message, expected):
    found = read(previous, message, alone=True)  # the gate would answer each alone
    assert (found.question, found.kind) == (expected, FOLLOW_UP)


def test_no_subject_switches_off_by_name():
    off = parse_rules("-no_subject,-bare_ask,-relational")
    assert read("退款多久能到账？", "审核要几天", alone=True).kind == FOLLOW_UP
    assert read("退款多久能到账？", "审核要几天", alone=True, rules=off).kind == TOPIC_SWITCH


@pytest.mark.parametrize(("previous", "message"), [
    # the student's own case asked with a matter's verb: a question of its own
    ("保留学籍最长多久？", "我交了4800上了4节能退多少"),
    ("退费怎么申请？", "我上了6节能退吗"),
])
def test_no_subject_the_students_figures_with_a_matters_verb_stand(previous, message):
    assert read(previous, message, alone=True).kind == TOPIC_SWITCH


def test_no_subject_figures_add_to_the_case_the_previous_question_told():
    # 「已上课时超过总课时的一半……不再受理退费申请」, then what the student paid
    found = read("我上了5节，退费按什么算？", "交了4200能退多少", alone=True)
    assert found.kind == FOLLOW_UP and "5节" in found.question and "4200" in found.question


def test_figures_a_clause_that_asks_its_own_thing_is_not_put_in_front():
    # 「手续费为……单笔最低 50 元」, then the student's figures with an amount asked
    found = read("退费手续费最少收多少？", "我交了3600上了2节要扣多少手续费", alone=True)
    assert found.kind == FOLLOW_UP and found.question.startswith("退费手续费") and "3600" in found.question


def test_keeps_subject_a_rewrite_that_drops_the_messages_thing_is_none():
    # without new_subject the level swap would make 「三级适合什么人？」 and lose 测试 and 报
    off = parse_rules("-new_subject")
    found = read("二级适合什么人？", "测试完可以直接报三级吗", rules=off)
    assert (found.question, found.kind) == ("测试完可以直接报三级吗", OWN_QUESTION)
    lost = read("二级适合什么人？", "测试完可以直接报三级吗", rules=parse_rules("-new_subject,-keeps_subject"))
    assert lost.question == "三级适合什么人？"


def test_subject_keeps_the_matter_the_previous_question_named_by_its_verb():
    # 「开课前申请退费的，学费全额退还」 then 「学员本人可以在 App 内提交退费申请」: where to apply is the refund's
    found = read("还没开课，钱能全退吗？", "去哪里申请", alone=True)
    assert found.question == "还没开课，退款去哪里申请？"


def test_own_level_a_closing_ne_asks_nothing():
    # 「转到不同级别的，按两个级别的学费差价多退少补」: the levels go into the previous question, no new question
    found = read("我转过一次班了，转班收不收钱？", "要是从二级转到三级呢")
    assert found.kind == FOLLOW_UP and "二级" in found.question and "转班" in found.question


def test_figures_a_word_said_in_the_students_clause_is_not_put_in_front_twice():
    # 「因病或工作调动，可以申请保留学籍，最长保留 6 个月」: the student's clause carries the reason already
    found = read("保留学籍最长多久？", "我因工作调动要走5个月 够吗")
    assert found.question.count("工作调动") == 1 and "保留学籍" in found.question


def test_asked_a_matters_verb_names_its_matter():
    # 「因病或工作调动，可以申请保留学籍，最长保留 6 个月」
    assert read("生病了不能上课怎么办？", "最长能保留多久", alone=True).question == "生病了保留学籍最长能保留多久？"
    # a verb of one character names no matter alone (退教材, 转人工)
    assert "退款" not in read("四级教材费多少？", "领了能退吗", alone=True).question


@pytest.mark.parametrize(("previous", "message"), [
    ("二级转三级要补多少钱", "这个级别一周上几次课"),  # two levels: which one is meant cannot be told
    ("退费怎么申请", "这个级别一周上几次课"),  # no level to point back at
])
def test_refer_needs_exactly_one_thing_to_point_back_at(previous, message):
    assert "refer" not in read(previous, message, alone=True).rules


@pytest.mark.parametrize("message", ["对了 一周上几次课", "顺便问下，一般几点上课"])
def test_topic_opener_a_message_turning_to_another_matter_stays(message):
    found = read("三级的教材费多少", message, alone=True)
    assert (found.question, found.kind) == (message, TOPIC_SWITCH)
    assert read("三级的教材费多少", message, alone=True, rules=parse_rules("-topic_opener")).question != message


@pytest.mark.parametrize(("message", "alone"), [("对了", True), ("对了 要多久", False)])
def test_topic_opener_needs_an_asking_the_gate_answers_alone(message, alone):
    from core.conversations.standalone import topic_opener

    assert not topic_opener(message, alone, "三级的教材费多少", shipped_facts())
    assert topic_opener("对了 一周上几次课", True, "三级的教材费多少", shipped_facts())


def test_condition_keeps_a_clause_telling_the_students_figures():
    # 「我交了4800上了3节」 is the student's case, not a situation to replace: the stage takes the lessons' place
    found = read("我交了4800上了3节，退费要扣手续费吗", "那要是还没开课呢")
    assert found.question == "我交了4800还没开课，退费要扣手续费吗" and "condition" not in found.rules


def test_level_two_levels_named_in_the_other_order_swap():
    found = read("从二级转到三级要补多少钱", "反过来三级转二级呢")
    assert (found.question, found.kind) == ("从三级转到二级要补多少钱", FOLLOW_UP)


@pytest.mark.parametrize(("previous", "message", "expected"), [
    ("四级学费多少", "二级的话", "二级学费多少"),
    ("未成年人退费谁申请", "成年人呢", "成年人退费谁申请"),
])
def test_closers_and_who_applies_swap(previous, message, expected):
    assert read(previous, message).question == expected


@pytest.mark.parametrize(("previous", "message"), [
    ("一节课多长时间", "一周上几节"),  # 一节课 is a measure, not a topic
    ("一节课上多久啊", "一周上几节"),  # nor is 一节课上: 上 goes with the asking
    ("二级学费多少", "那三级学费多少呢"),  # the rewrite is the message without its 那 and 呢: it stands alone
    ("每周上几次课", "每次多久"),  # 上 is no topic; 每次多久 asks its own thing, nothing goes in front
])
def test_a_previous_question_naming_no_topic_lends_nothing(previous, message):
    found = read(previous, message, alone=True)
    assert found.question == message and found.kind != FOLLOW_UP


def test_reverse_needs_two_words_to_swap():
    assert "reverse" not in read("二级学费多少", "反过来呢").rules


@pytest.mark.parametrize(("previous", "message", "expected"), [
    ("一级要上几周？", "四级也要上这么久吗", "四级要上几周？"),  # 这么久 points back at what was asked
    ("第四次转班要交多少钱？", "第三次也是这个价吗", "第三次转班要交多少钱？"),
    ("工作日几点能找人工？", "周末呢", "周末几点能找人工？"),  # the days are a group of their own
    ("开课前退费能全退吗", "开了课呢", "开了课退费能全退吗"),  # 开了课 is the course's stage
])
def test_pointing_back_at_the_value_days_and_stage(previous, message, expected):
    assert read(previous, message).question == expected


@pytest.mark.parametrize(("previous", "message", "expected"), [
    ("我交了4800 上了6节 能退多少", "要是再多上一节呢", "我交了4800 上了7节 能退多少"),
    ("我交了4800 上了6节 能退多少", "再上两节呢", "我交了4800 上了8节 能退多少"),  # read as a figure, but added
    ("我报了两个级别，教材费一共多少", "再加一个级别呢", "我报了3个级别，教材费一共多少")])
def test_counts_adds_a_count_said_as_added_to_the_previous_one(previous, message, expected):
    # 「再上一节」 is one more than before, not one lesson in place of six
    found = read(previous, message)
    assert found.question == expected and "counts" in found.rules


# A level named relative to the previous question's (relative): the documents' order of levels, not a list in code.
@pytest.mark.parametrize(("previous", "message", "expected"), [
    ("进阶级适合什么人", "往上一级的呢", "流利级适合什么人"),
    ("三级适合啥水平的人？", "最高那级嘞", "商务级适合啥水平的人？"),
    ("二级学费多少", "低一级呢", "入门级学费多少"),
    ("二级学费多少", "往上一级学费多少", "流利级学费多少"),
])
def test_relative_a_level_named_from_the_previous_one_is_that_level(previous, message, expected):
    found = read(previous, message, alone=False)
    assert (found.message, found.question, found.kind) == (message, expected, FOLLOW_UP)
    assert "relative" in found.rules
    assert read(previous, message, alone=False, rules=parse_rules("-relative")).question != expected


@pytest.mark.parametrize(("previous", "message"), [
    ("转到低一级的班会退钱吗", "转到高一级呢"),   # no level to count from
    ("二级转三级要补多少钱", "低一级呢"),          # two levels: which one is meant cannot be told
    ("四级学费多少", "高一级呢"),                  # no level above the highest
    ("口语课一共几个级别", "最高那级叫啥"),        # asks which level it is: naming it would answer the question
    ("退费多久到账", "最高那个是多少"),            # the previous question does not speak of levels
])
def test_relative_needs_one_level_to_count_from_and_a_question_it_does_not_answer(previous, message):
    from core.conversations.standalone import relative_level

    assert relative_level(message, previous, shipped_facts()) == message


def test_topic_opener_a_question_of_its_own_stays_even_when_the_gate_refuses_it():
    found = read("三级学费多少", "对了，能先试听一节不", alone=False)
    assert (found.question, found.kind) == ("对了，能先试听一节不", TOPIC_SWITCH)


def test_own_subject_a_matter_asked_the_same_way_is_a_follow_up():
    # 「也」: the same as the previous question, of another matter — the matter is swapped, not a new question
    found = read("小E能帮我直接报名吗", "退费也能帮我办吗", alone=True)
    assert found.kind == FOLLOW_UP and "退费" in found.question and "小E" in found.question
    assert read("小E能帮我直接报名吗", "那退费能帮我办吗", alone=True).kind == TOPIC_SWITCH


@pytest.mark.parametrize(("previous", "message", "expected", "rule"), [
    ("晚上9点之后还能转人工吗", "早上8点呢", "早上8点之后还能转人工吗", "slot.daypart"),   # the part of the day swaps too
    ("我想报一级和二级，学费一共多少", "再加上三级呢", "我想报一级和二级、三级，学费一共多少", "level.added"),
    ("我报两个级别，教材费一共多少", "报三个呢", "我报三个级别，教材费一共多少", "counts"),     # 三个 counts 级别
])
def test_parts_of_the_day_added_levels_and_bare_counts(previous, message, expected, rule):
    found = read(previous, message, alone=False)
    assert (found.question, found.kind) == (expected, FOLLOW_UP) and rule in found.rules


def test_a_level_not_said_as_added_still_takes_the_place_of_the_previous_one():
    assert read("我想报一级和二级，学费一共多少", "那三级呢", alone=False).question != "我想报一级和二级、三级，学费一共多少"
    assert read("二级学费多少", "那三级呢", alone=False).question == "三级学费多少"


def test_swap_opener_a_message_changing_the_previous_question_is_a_follow_up():
    found = read("二级转四级要补多少", "换成三级转四级", alone=True)
    assert (found.question, found.kind) == ("三级转四级要补多少", FOLLOW_UP)
    assert read("二级转四级要补多少", "换成三级转四级", alone=True, rules=parse_rules("-swap_opener")).kind == TOPIC_SWITCH


# -- round 16: mechanisms that generalise (my own examples, written from the documents, not from any labelled set) -----

@pytest.mark.parametrize(("previous", "message", "expected", "alone"), [
    # a rest whose asking only points back (还是这个价) keeps the previous question's asking
    ("第二次转班手续费多少钱", "第四次还是这个价吗", "第四次转班手续费多少钱", False),
    # a measure asked with 几 (几个礼拜) is how much is asked, not a thing of the message's own
    ("二级一共多少课时", "要上几个礼拜", "二级要上几个礼拜？", False),
    # 证件 needs an owner, as 证明 does (relational)
    ("孩子还没成年，退费谁来办", "要带什么证件", "孩子还没成年，退费要带什么证件？", False),
    # the previous question told the reason of the same matter: the student's figure adds to that case, and a yes/no
    # asked of the matter (能保留吗) takes the place of the thing the previous question asked (证明)
    ("因病申请保留学籍要什么证明", "要停5个月能保留吗", "因病保留学籍要停5个月能保留吗？", True),
    # 咋整 asks, as 咋办 does: none of it stays in the subject
    ("我工作调动要去外地半年 课咋整", "最多能留多久", "我工作调动要去外地半年，课最多能留多久？", False),
    # 学 of 学完 is an action, not a thing of the message's own (verb_like), even when the gate answers it alone
    ("每级多少课时", "几周能学完", "每级几周能学完？", True),
    ("二级一共多少课时", "几个礼拜能学完", "二级几个礼拜能学完？", True),
    # what a count counts (几个级别) and a thing named after the predicate (要先测试) stay in the subject
    ("口语课一共分几个级别", "最高那个叫啥", "口语课分级别最高那个叫啥？", False),
    ("报名前要先测试吗", "要多久", "报名前测试要多久？", False),
])
def test_round16_follow_ups(previous, message, expected, alone):
    found = read(previous, message, alone=alone)
    assert (found.question, found.kind) == (expected, FOLLOW_UP)


@pytest.mark.parametrize(("previous", "message", "expected"), [
    # an age decides whether the student is a minor: it replaces the clause that said so in words
    ("我已经成年了，退费能自己申请吗", "那我孩子才13岁的话呢", "我孩子才13岁，退费能自己申请吗"),
    ("未成年人退费谁来申请", "孩子16岁呢", "孩子16岁退费谁来申请"),
    # a closing 呢 asks nothing: 「要是…只付了…呢」 only tells the student's figure (situation)
    ("我交了4800上了2节，开课后退费怎么算", "要是其实用了券只付了4500呢", "我交了4500上了2节，开课后退费怎么算"),
    # … and so does a 呢 closing a clause before another that only tells (「…呢，用了券」)
    ("我实付4200报的二级，开课前退能退多少", "要是我付的是4000呢，有优惠", "我实付4000报的二级，开课前退能退多少"),
    # 转了两回 tells the transfers made, as 转过一次 does
    ("我转过一次班，想再换个时段要钱吗", "要是已经转了两回了呢", "我转了两回班，想再换个时段要钱吗"),
])
def test_round16_figures_decide_slots_and_conditions_tell_figures(previous, message, expected):
    found = read(previous, message, alone=True)
    assert (found.question, found.kind) == (expected, FOLLOW_UP)


@pytest.mark.parametrize(("previous", "message", "expected", "rule"), [
    # a first clause 「X呢，」 naming a word that takes the place of one the previous question names (lead_swap)
    ("小E能帮我直接报名吗", "退费呢，能帮我办不", "小E能帮我直接退费能帮我办不？", "lead_swap"),
    # a direction of a level move swaps the other direction (slot.direction)
    ("转到低一级的班会退钱吗", "转到高一级呢", "转到高一级的班会退钱吗", "slot.direction"),
])
def test_round16_lead_swap_and_direction(previous, message, expected, rule):
    found = read(previous, message, alone=True)
    assert (found.question, found.kind) == (expected, FOLLOW_UP)
    if rule == "lead_swap":  # switched off, the message names its own matter and stays
        assert read(previous, message, alone=True, rules=parse_rules("-lead_swap")).kind != FOLLOW_UP


def test_round16_a_description_ending_in_de_sets_a_situation():
    # 「…的呢」 describes the student: it takes the place of the situation the previous question's one clause names
    found = read("完全没基础该报哪级？", "能看懂简单句子的呢")
    assert (found.question, found.kind) == ("能看懂简单句子的，报哪级？", FOLLOW_UP)
    assert "condition" in found.rules
    assert read("完全没基础该报哪级？", "能看懂简单句子的呢", rules=parse_rules("-condition")).question != found.question


def test_round16_a_matter_takes_the_place_of_a_measure_subject():
    # 「一节课上多久」 is about a measure only: a matter asked instead takes its place, not a place in front of it
    assert read("一节课上多久啊", "那分级测试呢").question == "分级测试上多久啊"
    # a class type qualifies the lesson: it goes in front, as before
    assert read("一节课上多长时间呀", "线上的呢").question.endswith("一节课上多长时间呀")


@pytest.mark.parametrize(("previous", "message", "expected"), [
    # the 人 of 「还有人吗」 is the staff the previous question names (refer.staff)
    ("人工客服周末上班吗", "晚上九点半还有人吗", "晚上九点半还有人工客服吗"),
    ("转人工要按哪里", "半夜还找得到人不", "半夜还找得到人工不"),
])
def test_round16_a_person_pointed_at_is_the_staff_named_before(previous, message, expected):
    found = read(previous, message, alone=True)
    assert (found.question, found.kind) == (expected, FOLLOW_UP)
    assert "refer" in found.rules
    # a previous question naming no staff: nothing to point at
    assert read("二级学费多少", message, alone=True).kind == TOPIC_SWITCH


def test_round16_a_fee_swaps_the_textbook_named_without_fee():
    # 教材 (without 费) is the textbook fee's word too: 学费 takes its place
    assert read("教材多少钱", "学费呢").question == "学费多少钱"


@pytest.mark.parametrize(("previous", "message", "expected"), [
    # a minor-slot word takes the place of the clause telling the age that decided it
    ("孩子才16岁，退费谁来办？", "成年人呢", "成年人，退费谁来办？"),
    # 跨级别 is a kind of transfer, 降一级 a direction
    ("跨级别转班要交手续费吗", "同级别换时段呢", "同级别换时段转班要交手续费吗"),
    ("转到高一级的班手续费多少", "要是降一级呢", "转到降一级的班手续费多少"),
])
def test_round16_slot_words_take_the_place_of_what_decided_them(previous, message, expected):
    assert read(previous, message, alone=True).question == expected


def test_round16_a_thing_the_previous_question_names_is_no_subject_of_its_own():
    # 外派 is named by the previous question: the message only tells the student's new figure and asks yes or no
    found = read("我因工作调动要外派3个月，可以保留学籍吗？", "外派5个月的话还行不", alone=True)
    assert (found.question, found.kind) == ("我因工作调动要外派5个月，可以保留学籍吗？", FOLLOW_UP)


def test_round16_a_comparison_with_the_previous_value_keeps_its_asking():
    # 「是不是贵一点」 compares with the value the previous question asked: that asking stands
    found = read("一级学费多少", "那商务级是不是贵一点", alone=True)
    assert (found.question, found.kind) == ("商务级学费多少", FOLLOW_UP)


def test_round16_reverse_with_a_yes_no_left_keeps_the_previous_asking():
    assert read("线上转线下要收费吗", "反过来转要钱不").question == "线下转线上要收费吗"
    # something of its own asked besides: no reverse
    assert "reverse" not in read("从二级转到三级要补多少钱？", "反过来要多久").rules


def test_round16_haiyou_set_off_by_a_comma_turns_to_a_question_of_its_own():
    found = read("我因病要停4个月，可以保留学籍吗？", "还有，工作调动保留学籍要什么证明", alone=True)
    assert found.kind == TOPIC_SWITCH and found.question == "还有，工作调动保留学籍要什么证明"
    assert read("二级学费多少", "还有教材费呢").question == "二级教材费多少"  # no comma: a follow-up as before


@pytest.mark.parametrize(("previous", "message", "expected"), [
    # 书本费 is a fee word (slot.fee), 报个名 a matter (slot.matter): the follow-up's word takes its place
    ("书本费能退不", "学费呢", "学费能退不"),
    ("小E能帮我报个名不", "那退费呢", "小E能帮我退费不"),
    # 还没成年 is the minor slot's word whole: 成年 alone would say the opposite
    ("退费申请一定要本人去办吗", "那孩子还没成年的话呢", "还没成年退费申请一定要本人去办吗"),
    # 开了 counts lessons as 上了 does: the count takes the place of the course's stage in words
    ("还没开课能退全款吗", "开了一节课了呢", "开了一节课了能退全款吗"),
])
def test_round17_slot_and_figure_words_of_the_blind_sets(previous, message, expected):
    assert read(previous, message, alone=True).question == expected


def test_round17_a_swap_opener_and_its_condition_are_no_part_of_what_is_asked():
    # 「换成X的话多少」: 换成 and 的话 frame the swap; 「多少」 is what is asked of the swapped question
    found = read("四级一期多少钱", "换成入门的话多少")
    assert (found.question, found.kind) == ("入门一期多少钱", FOLLOW_UP)  # 多少 asks as 多少钱 did (round 18)


@pytest.mark.parametrize(("previous", "message", "expected"), [
    ("那二级学费是多少", "四级贵多少", "四级学费比二级贵多少？"),
    ("二级学费多少", "那三级多多少", "三级学费比二级多多少？"),
])
def test_round17_a_comparative_asked_after_a_swap_compares_with_the_word_swapped_out(previous, message, expected):
    assert read(previous, message).question == expected


def test_round17_a_bare_asking_word_is_no_comparative():
    # 多少 opens with 多, yet asks how much: no comparison with the level swapped out
    assert read("二级学费多少", "三级多少").question == "三级学费多少"  # the previous asking stands (round 18)


def test_round17_the_filler_a_swap_leaves_at_the_front_of_the_asking_goes():
    # the moved count is swapped into the previous question; 「我了」 left in front of 「第三次咋算」 is filler
    found = read("我之前已经转过一次班了 再转要收钱吗", "我转了两次了 第三次咋算")
    assert found.question == "我之前已经转了两次班了，转班第三次咋算？"
    # a one-character verb names the shortest matter it begins (转 → 转班, not 转人工)
    assert "转人工" not in found.question
    # a filler of two characters or more may say whose case it is: 孩子 stays
    # (and 前台, where the previous question's matter is done, is kept in front of it: round 18)
    assert read("退费可以去前台办吗", "孩子的话谁去办").question == "前台退费孩子的话谁去办？"


def test_round17_a_rewrite_that_is_the_message_without_its_closing_words_leaves_the_message():
    # 「那转班呢 要钱吗」 swaps 转班 in and asks of it alone: nothing of 「分级测试要多久」 is carried
    found = read("分级测试要多久", "那转班呢 要钱吗", alone=True)
    assert (found.question, found.kind) == ("那转班呢 要钱吗", OWN_QUESTION)
    # something of the previous question carried: a follow-up as before
    assert read("在前台能申请退费吗", "那转班呢 能办不", alone=True).question == "在前台转班能办不？"


def test_round17_a_fee_that_was_the_whole_topic_leaves_the_matter_its_verb_names():
    # 到账 asks of the money, not of the fee; with 学费 gone nothing is left, so 退 names the matter (退款)
    found = read("学费到底能不能退", "大概多久能到账")
    assert "退" in found.question and found.question.endswith("大概多久能到账？")
    # a level left: it stays the topic, as before
    assert read("三级学费多少", "总课时是多少").question == "三级总课时是多少？"


def test_round17_an_age_reached_takes_the_place_of_the_clause_saying_minor():
    found = read("我未成年，退费得谁来申请？", "我已经满18了呢")
    assert found.question == "我已经满18了，退费得谁来申请？" and "figures.age" in found.rules


def test_round17_a_comparative_jieba_lists_as_a_noun_is_no_thing_of_the_messages_own():
    # jieba's dictionary has 贵点 as a noun; 「会贵点吗」 compares, so 线下班 is swapped into the previous question
    found = read("进阶级学费多少", "换成线下班会贵点吗")
    assert found.kind == FOLLOW_UP and "进阶级" in found.question and "线下班" in found.question


def test_round17_a_proportion_asked_is_the_previous_fees_own():
    # 比例 is relational (needs an owner) and about the fee itself (fee_relational): the fee stays in the rewrite
    found = read("开课后退费要收手续费吗", "按啥比例收", alone=True)
    assert (found.question, found.kind) == ("开课后退费手续费按啥比例收？", FOLLOW_UP)



@pytest.mark.parametrize(("previous", "message", "expected"), [
    # a clock time is swapped whole: its 半 or minutes come with it, or go
    ("晚上十点还有人工吗", "早上八点半呢", "早上八点半还有人工吗"),
    ("晚上8点能转人工吗", "晚上8点半呢", "晚上8点半能转人工吗"),
    ("晚上8点半能转人工吗", "9点呢", "晚上9点能转人工吗"),
    ("晚上8点能转人工吗", "8点30分呢", "晚上8点30分能转人工吗"),
    ("晚上十点还有人工吗", "九点呢", "晚上九点还有人工吗"),   # no half on either side: the numeral, as before
])
def test_round17_a_clock_time_is_swapped_with_its_half_or_minutes(previous, message, expected):
    found = read(previous, message)
    assert (found.question, found.kind) == (expected, FOLLOW_UP) and "counts" in found.rules


def test_round18_a_yes_no_with_only_the_previous_askings_verb_keeps_that_asking():
    # 「要吗」 repeats the 要 of 「要手续费吗」: the previous asking stands, with the stage swapped in
    found = read("开课前退费要手续费吗", "开课后要吗", alone=True)
    assert (found.question, found.kind) == ("开课后退费要手续费吗", FOLLOW_UP)
    # 退 is no part of 「要手续费吗」: the message asks its own yes or no of the subject
    assert read("开课前退费要手续费吗", "开课后能退吗", alone=True).question == "开课后退费能退吗？"


@pytest.mark.parametrize(("previous", "message", "expected"), [
    # lessons left say what lessons taken said: they take the clause's place, verb and all
    ("实付4800上了4课时，能退多少？", "剩10课时的话呢", "实付4800剩10课时，能退多少？"),
    # both told: each role swaps its own, as before
    ("我上了6节还剩10节能退多少", "剩8节呢", "我上了6节还剩8节能退多少"),
])
def test_round18_lessons_left_take_the_place_of_lessons_taken(previous, message, expected):
    found = read(previous, message, alone=True)
    assert (found.question, found.kind) == (expected, FOLLOW_UP) and "figures.lessons.remaining" in found.rules


def test_round18_a_bound_is_one_said_next_to_a_number():
    found = read("开课后4课时内转班免费吗？", "过了4课时以后呢", alone=True)
    assert found.question == "开课后4课时以后转班免费吗？" and "slot.bound" in found.rules
    # 「审核通过以后」 bounds no number: no bound to swap (a later step: `sequel`'s)
    assert "slot.bound" not in read("退费审核要几天", "审核通过以后呢", alone=True).rules
    # a bound a word or two before its number (「刚好上了8节」) is still one
    assert "slot.bound" in read("上课超过8节了还能退钱吗", "刚好上了8节呢", alone=True).rules


@pytest.mark.parametrize(("previous", "message", "expected"), [
    ("商务级适合什么水平的人", "最基础那级呢", "入门级适合什么水平的人"),
    ("入门级适合什么水平的人", "最难那级呢", "商务级适合什么水平的人"),
])
def test_round18_the_easiest_and_hardest_level_are_the_lowest_and_highest(previous, message, expected):
    found = read(previous, message, alone=True)
    assert (found.question, found.kind) == (expected, FOLLOW_UP) and "relative" in found.rules


def test_round18_a_few_in_a_description_of_the_student_asks_nothing():
    # 「能说几句日常对话的呢」 describes the student: 几句 is 「a few sentences」, the situation takes 零基础's place
    found = read("我零基础 应该报哪个级别", "能说几句日常对话的呢", alone=True)
    assert (found.question, found.kind) == ("能说几句日常对话的，应该报哪个级别", FOLLOW_UP)


@pytest.mark.parametrize(("previous", "message", "expected"), [
    ("退费审核要几天", "审核通过以后呢", "退费审核通过以后要几天？"),
    # the subject as said: 「几个工作日」 counts 工作日, which is no part of the subject the message's step follows
    ("退费审核要几个工作日？", "审核完退回来呢", "退费审核完退回来要几个工作日？"),
    ("退费审核要几个工作日啊", "那过了审核以后呢", "退费过了审核以后要几个工作日啊？"),
])
def test_round18_a_later_step_of_the_previous_subject_is_asked_the_previous_way(previous, message, expected):
    found = read(previous, message, alone=True)
    assert (found.question, found.kind, found.rules) == (expected, FOLLOW_UP, ("sequel",))


def test_round18_a_sequel_needs_a_step_the_previous_subject_names_and_no_asking():
    # the course's stage is a slot: swapped, as before
    assert read("开课前退费能全退吗", "开课以后呢", alone=True).rules == ("slot.started",)
    # asks its own thing: no sequel
    assert "sequel" not in read("退费审核要几天", "审核通过以后多久到账", alone=True).rules
    # switched off: no rewrite of the step
    assert read("退费审核要几天", "审核通过以后呢", alone=True, rules=parse_rules("-sequel")).kind == OWN_QUESTION


@pytest.mark.parametrize(("previous", "message", "expected"), [
    ("一节课上多久啊", "那一共要上几周", "每个级别一共要上几周？"),
    ("一节课多长时间", "那一共多少节", "每个级别一共多少节？"),
    ("每周上几节课", "几周能上完", "每个级别几周能上完？"),
])
def test_round18_a_total_asked_after_a_measure_is_each_levels(previous, message, expected):
    found = read(previous, message)
    assert (found.question, found.kind) == (expected, FOLLOW_UP)


@pytest.mark.parametrize(("previous", "message"), [
    ("一节课多长时间", "一周上几节"),    # no total asked: nothing to lend, as before
    ("每周上几次课", "一期一共几节"),    # 一期 is a quantity of its own to count in
])
def test_round18_no_level_scope_without_a_total_or_with_a_scope_of_its_own(previous, message):
    assert read(previous, message, alone=True).question == message


@pytest.mark.parametrize(("previous", "message", "expected"), [
    ("三级学费多少钱啊？", "四级的话是不是更贵", "四级学费是不是比三级更贵？"),  # 是 of 是不是 is no filler
    ("那二级学费是多少", "四级贵多少", "四级学费比二级贵多少？"),            # no yes/no before it: as before
])
def test_round18_a_yes_no_before_a_comparative_stays_before_what_is_compared(previous, message, expected):
    assert read(previous, message, alone=True).question == expected


@pytest.mark.parametrize(("previous", "message", "expected"), [
    # the transfer between class types is swapped whole, its direction kept (no 线上 swapped back in for 线下)
    ("同级别换个时段的转班免费吗？", "线上转线下呢", "线上转线下的转班免费吗？"),
    ("同级别换个时段算转班吗", "那线上换到线下呢", "线上换到线下算转班吗"),
])
def test_round18_a_transfer_between_class_types_keeps_its_direction(previous, message, expected):
    found = read(previous, message, alone=True)
    assert (found.question, found.rules) == (expected, ("slot.transfer",))


def test_round18_class_types_named_inside_a_transfer_are_things_named():
    # the previous question names things (线下班, 线上班): a bare asking after it is about them
    found = read("线下班转线上班要收费吗？", "免费的只有一回吗", alone=True)
    assert found.kind == FOLLOW_UP and found.question.startswith("线下班转线上班")
    # and a message naming them with a matter's verb is a question of its own
    assert read("四级多少课时", "那线上转线下收钱吗", alone=True).kind == TOPIC_SWITCH


@pytest.mark.parametrize(("previous", "message", "expected"), [
    ("退费可以在前台上申请吗？", "要带啥去不", "前台退费要带啥去不？"),
    ("退费能在前台上申请吗？", "前台要填啥", "前台退费要填啥？"),
])
def test_round18_what_is_asked_is_asked_of_the_matter_where_it_is_done(previous, message, expected):
    assert read(previous, message, alone=True).question == expected


@pytest.mark.parametrize(("previous", "message", "expected"), [
    ("小E能帮我交学费不？", "报名呢", "小E能帮我报名不？"),   # 交学费 is the matter 缴费 said with its verb
    ("小E能帮我交学费吗", "退费呢", "小E能帮我退费吗"),
])
def test_round18_paying_the_tuition_is_a_matter_a_follow_up_swaps(previous, message, expected):
    found = read(previous, message, alone=True)
    assert (found.question, found.rules) == (expected, ("slot.matter",))


def test_round18_a_thing_that_needs_an_owner_is_the_previous_matters_whatever_qualifies_it():
    # 证明 needs an owner; 医院 only says which certificate: the message asks about the previous matter's certificate
    found = read("保留学籍最长能留多久？", "病假的话要什么医院开证明", alone=True)
    assert found.kind == FOLLOW_UP and found.question.startswith("保留学籍")
    assert read("保留学籍都需要啥条件", "证明要哪种医院开的", alone=True).kind == FOLLOW_UP
    # a fee of its own (教材费) owns what it asks, and 钱 of 「多少钱」 is asked, not a thing: a new question
    assert read("四级学费多少", "教材费要另外交吗 多少钱", alone=True).kind == TOPIC_SWITCH


def test_round18_a_slot_word_before_dehua_swaps_without_a_comma_and_the_asking_stands():
    # 「线上的话多少」: 的话 ends the first clause; 多少 asks as 「多少钱一期」 did, so the previous asking stands
    found = read("三级线下班多少钱一期", "线上的话多少", alone=True)
    assert (found.question, found.kind) == ("三级线上多少钱一期", FOLLOW_UP)   # 线上 keeps its 上


def test_round18_an_a_not_a_question_asks():
    found = read("三级的教材费多少", "四级的贵不贵", alone=True)
    assert (found.question, found.kind) == ("四级的教材费贵不贵？", FOLLOW_UP)


def test_round18_a_rewrite_differing_only_in_its_asking_word_leaves_the_message():
    # 「那四级学费多少呢」 stands on its own: the rewrite 「四级学费多少钱」 only adds 钱 to its asking
    found = read("二级学费多少钱", "那四级学费多少呢", alone=True)
    assert (found.question, found.kind) == ("那四级学费多少呢", OWN_QUESTION)
    # a message that does not ask is rewritten with the previous asking, as before
    assert read("教材多少钱", "学费呢").question == "学费多少钱"


def test_round18_a_kind_a_fee_cannot_have_leaves_the_fee_out():
    # lessons are the level's, not its tuition's (feeless_kinds)
    assert read("流利级学费多少", "一共上几节课").question == "流利级一共上几节课？"
    # a lower bound may be the fee's: it stays (「最低多少」 after 「退费手续费怎么算」)
    assert "手续费" in read("退费手续费怎么算", "最低多少呗", alone=True).question


def test_round18_zhuyao_leads_an_asking():
    # 主要 goes with what is asked (asking_lead): no 「主」 left in the subject
    assert read("商务级主要学什么", "适合啥人", alone=True).question == "商务级适合啥人？"


@pytest.mark.parametrize(("previous", "message", "expected"), [
    ("生病了上不了课咋办", "要是工作调到外地了呢", "工作调到外地了上不了课咋办"),   # slot.reason: 工作调到外地
    ("生病了没法上课咋办", "要是公司派我去外地呢", "公司派我去外地了没法上课咋办"),
])
def test_round18_being_sent_away_for_work_is_a_reason_in_place_of_illness(previous, message, expected):
    found = read(previous, message, alone=True)
    assert (found.question, found.rules) == (expected, ("slot.reason",))


def test_round18_a_reason_with_no_reason_to_replace_is_another_situation():
    # the previous question tells no reason: the new one takes the place of its situation clause (condition)
    found = read("我上个月报的二级，住院了，课先停要开什么证明？", "如果是公司派我去外地呢", alone=True)
    assert (found.question, found.rules) == ("公司派我去外地，课先停要开什么证明？", ("condition",))


def test_round18_a_figure_the_student_denies_is_not_swapped_in():
    found = read("我报的二级交了4200 上了2节 这会退能退多少", "我实际付的是3900 不是4200", alone=True)
    assert found.question == "我报的二级交了3900 上了2节 这会退能退多少" and "figures.money" in found.rules


def test_round18_a_count_of_ge_before_quan_counts_what_the_previous_one_counts():
    found = read("我想报三个级别，教材费一共多少", "四个全报的话", alone=True)
    assert (found.question, found.rules) == ("我想报四个级别，教材费一共多少", ("counts",))


def test_round18_a_place_asked_with_na_for_na_is_read_as_where():
    found = read("退款多久能到账啊", "在那申请", alone=True)
    assert (found.question, found.rules) == ("退款在哪申请？", ("misspelt", "asked"))
    # asking something else, 那 is left as written; switched off, nothing is read
    assert "misspelt" not in read("退款多久能到账啊", "在那申请要多久", alone=True).rules
    assert "misspelt" not in read("退款多久能到账啊", "在那申请", alone=True, rules=parse_rules("-misspelt")).rules


def test_round18_haiyou_set_off_by_a_space_turns_to_a_question_of_its_own():
    found = read("三级退费要多久", "还有 退的钱几天能到啊", alone=True)
    assert (found.question, found.kind) == ("还有 退的钱几天能到啊", TOPIC_SWITCH)
    # asking nothing but a closing 呢, it is still a follow-up, set off or not
    assert read("四级学费多少", "还有 教材费呢", alone=True).question == "四级教材费多少"
    assert read("四级学费多少", "还有教材费呢", alone=True).question == "四级教材费多少"


@pytest.mark.parametrize(("previous", "message", "expected"), [
    ("我零基础，报哪一级好", "要是能看懂几句简单对话的呢", "能看懂几句简单对话的，报哪一级好"),
    ("完全零基础该报哪级", "能聊几句日常的呢", "能聊几句日常的，报哪级"),
])
def test_round19_a_description_of_the_student_is_read_before_its_ji_is_taken_for_asking(previous, message, expected):
    got = read(previous, message)
    assert (got.question, got.rules) == (expected, ("condition",))


def test_round19_a_level_or_a_slot_word_ending_in_de_ne_is_still_a_swap():
    assert read("三级学费多少", "四级的呢").question == "四级学费多少"


def test_round19_a_clause_that_only_turns_to_the_previous_question_is_not_carried():
    got = read("还有个事，线上班和线下班的价格一样吗", "那教材呢")
    assert "还有个事" not in got.question and "个事" not in got.question and got.kind == FOLLOW_UP
    assert read("对了，开课前退费能全退吗", "开课后呢").question == "开课后退费能全退吗"


def test_round19_a_bare_pointer_at_a_level_asks_of_the_level_it_names():
    """「那一级呢」 alone is 那 + 一级, not 「that level」 (which would ask the previous question again)."""
    assert read("三级是面向什么人的", "那一级呢").question == "一级是面向什么人的"
    assert read("入门级适合什么人？", "这个级别一周上几次课").question == "入门级一周上几次课"  # a pointer that asks


@pytest.mark.parametrize(("previous", "message", "expected"), [
    ("开课前退费能全退吗", "开课第三天呢", "开课第三天退费能全退吗"),   # days into the course say what the stage said
    ("还没开课退费能全退吗", "上了两周的话呢", "上了两周退费能全退吗"),  # so do weeks
])
def test_round19_how_far_the_course_is_replaces_the_stage_word(previous, message, expected):
    assert read(previous, message).question == expected


def test_round19_public_holidays_are_days_a_follow_up_swaps():
    assert read("人工客服周六上班吗", "节假日呢").question == "人工客服节假日上班吗"


@pytest.mark.parametrize(("previous", "message", "expected"), [
    ("流利级学费多少", "比二级贵多少", "流利级学费比二级贵多少？"),
    ("四级学费多少钱", "跟一级差多少", "四级学费跟一级差多少？"),
])
def test_round19_a_level_compared_with_keeps_the_previous_level(previous, message, expected):
    assert read(previous, message, alone=True).question == expected
    assert read("二级学费多少", "那三级呢").question == "三级学费多少"  # a level alone still swaps


def test_round19_the_course_total_words_name_no_thing_of_the_messages_own():
    """结课 is how much of the course is asked (course_total), not a thing: the total is each level's."""
    assert read("一节课上多长时间", "一共要上几节才结课", alone=True).question == "每个级别一共要上几节才结课？"


def test_round19_the_matter_a_cut_verb_begins_stays_with_the_subject():
    """「退的钱多久能到」: 退 is cut with the predicates; the refund it begins stays in the previous subject."""
    assert subject("退的钱多久能回到卡里", shipped_facts()).startswith("退款")
    assert "退款" in read("退的钱多久能回到卡里", "审核要几天").question
    assert subject("对话记录保存多久", shipped_facts()) == "对话记录"  # no verb of a matter: as before


def test_round19_a_level_inside_a_relative_phrase_is_the_phrases():
    """一级 of 「最高那一级」 names no level of the message's own: the highest level is meant."""
    assert read("入门级适合什么人报？", "最高那一级嘞？").question == "商务级适合什么人报？"


def test_round19_the_er_closing_an_asking_word_is_no_thing():
    """「在哪儿申请」: 儿 closes 哪儿, it names nothing — the message asks where the previous matter is done."""
    from core.conversations.subjects import subjects

    assert subjects("在哪儿申请啊", shipped_facts()) == ()
    assert subjects("我儿子能报吗", shipped_facts())  # 儿 of 儿子 is untouched
    assert read("开课后退费要扣手续费吗", "在哪儿申请啊", alone=True).kind == FOLLOW_UP


@pytest.mark.parametrize(("previous", "message", "expected"), [
    ("教材费能退吗", "没用过的也不能退？", "没用过的教材费也不能退？"),
    ("领了的教材能退吗", "没开封的也不行吗", "没开封的教材也不行吗"),
])
def test_round19_a_described_kind_of_the_previous_thing_is_asked_the_same_way(previous, message, expected):
    got = read(previous, message)
    assert (got.question, got.rules) == (expected, ("qualified",))


def test_round19_a_description_naming_a_channel_is_a_swap_not_a_kind():
    assert "qualified" not in read("在App交的退费申请审核要几天", "前台交的也一样吗").rules
