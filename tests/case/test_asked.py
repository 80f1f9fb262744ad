"""What a question asks for (core.case.asked): each kind read from its words, longest first; what a sentence states."""

from __future__ import annotations

import pytest

from core.case.asked import (
    ALL_ASKED,
    ASKED_KINDS,
    ASKED_NAMES,
    Asked,
    AskedKinds,
    asked_kind,
    carried,
    compared,
    figure_units,
    named_units,
    parse_asked,
    read_asked,
    states,
    states_counted,
)
from core.errors import ConfigError


@pytest.mark.parametrize("question, kinds", [
    ("保过班多少钱", ("amount",)),
    ("小班多少钱一节", ("amount",)),
    ("启明英语是哪一年成立的？", ("year",)),
    ("启明英语多少年成立的", ("year",)),             # 多少年成立 is a year, longer than 多少年 (a duration)
    ("退款多久能到账", ("duration",)),
    ("人工服务几点下班", ("clock",)),
    ("什么时候可以申请退费", ("time",)),
    ("最小几岁可以报名", ("lower", "age")),
    ("老学员打几折", ("amount",)),
    ("一个班几个人", ("headcount",)),                  # 几个人, not 几个 (a count)
    ("一个级别几节课", ("lessons",)),
    ("口语课一共有几级", ("count",)),
    ("外教是谁", ("person",)),
    ("在哪里申请退费", ("place",)),
    ("教材费为什么不退", ("reason",)),
    ("怎么转人工", ("way",)),
    ("保留学籍最长多久", ("upper", "duration")),
    ("最少几个人开班", ("lower", "headcount")),
    ("二级价格", ("amount",)),                          # a topic word asks when the question is no yes/no
    ("分级测试收费吗", ("yes_no",)),                    # … and not in one: whether, not how much
    ("要交钱不", ("yes_no",)),                          # a clause ending in 不
    ("保留学籍那几个月要交钱吗", ("yes_no",)),            # 那几 is 「those few」
    ("口语最高能学到第几级", ("choice",)),               # 第几 is an order: no upper bound asked
    ("包不包括教材", ("yes_no",)),                     # A-not-A read from the data's words
    ("去不去线下都行", ("yes_no",)),                   # A-not-A read from the form
    ("能退么", ("yes_no",)),
    ("口语课介绍一下", ()),                            # asks for nothing a kind names
])
def test_read_asked_reads_each_kind(question, kinds):
    assert read_asked(question).kinds == kinds


def test_read_asked_keeps_the_word_that_asked():
    asked = read_asked("保留学籍最长多久")
    assert (asked.word("upper"), asked.word("duration"), asked.word("amount")) == ("最长", "多久", "")


@pytest.mark.parametrize("question", ["什么是流利级", "怎么报名"])
def test_read_asked_does_not_take_the_me_of_shenme_or_zenme_as_a_yes_no(question):
    assert "yes_no" not in read_asked(question)


def test_read_asked_returns_a_frozen_value():
    asked = read_asked("保过班多少钱")
    assert isinstance(asked, Asked) and "amount" in asked and asked.labels == ("金额",)
    with pytest.raises(AttributeError):
        asked.kinds = ()  # type: ignore[misc]


@pytest.mark.parametrize("sentence, name, expected", [
    ("进阶级（二级）：4200 元", "amount", True),
    ("分级测试免费", "amount", True),
    ("小班授课，每班不超过 8 人", "amount", False),
    ("小E 是启明英语的助教", "year", False),
    ("学校成立于 2015 年", "year", True),
    ("最长保留 6 个月", "year", False),               # a span of months is no year
    ("审核通过后，款项在 7 个工作日内原路退回", "duration", True),
    ("人工服务时间为每天 9:00–21:00", "clock", True),
    ("开课后 4 课时内，可以免费转班一次", "clock", False),  # after the start is no hour of the day
    ("开课后 4 课时内，可以免费转班一次", "time", True),
    ("每班不超过 8 人", "headcount", True),
    ("每班不超过 8 人", "upper", True),
    ("每班不超过 8 人", "lower", False),
    ("每一级都是 16 课时", "count", True),
])
def test_states_reads_a_kind_from_a_sentence(sentence, name, expected):
    assert states(sentence, name) is expected


@pytest.mark.parametrize("name", ["way", "choice", "yes_no"])
def test_kinds_without_a_form_are_not_checkable(name):
    assert not asked_kind(name).checkable and states("一共四级", name) is False


def test_carried_lists_the_checkable_kinds_a_sentence_states():
    asked = read_asked("保留学籍最长多久，要交钱吗")
    assert carried("最长保留 6 个月", asked) == ("upper", "duration")


def test_a_kind_switched_off_is_not_read():
    assert read_asked("保留学籍最长多久", ALL_ASKED.without("upper")).kinds == ("duration",)


def test_the_refusal_names_the_missing_kind_after_the_subject():
    assert asked_kind("year").missing("成立") == "成立年份"


@pytest.mark.parametrize("spec, disabled", [("", ()), ("all", ()), ("-year,-person", ("year", "person")),
                                            ("none", ASKED_NAMES)])
def test_parse_kinds(spec, disabled):
    assert set(parse_asked(spec).disabled) == set(disabled)


def test_parse_kinds_keeps_only_the_listed_kinds():
    assert parse_asked("amount year").enabled == frozenset({"amount", "year"})


@pytest.mark.parametrize("spec", ["-price", "amount,-year"])
def test_parse_kinds_refuses_unknown_names_and_mixed_forms_in_chinese(spec):
    with pytest.raises(ConfigError, match="XIAOE_ASKED_KINDS"):
        parse_asked(spec)


def test_every_kind_has_asking_words_or_a_form_and_an_example():
    for k in ASKED_KINDS:
        assert k.example_zh and k.label_zh and "{subject}" in k.missing_zh
        assert read_asked(k.example_zh, AskedKinds(frozenset({k.name}))).kinds == (k.name,), k.name


# Gap 1 of asked_set_v1: a figure's unit is read longest-first across all kinds, and carries only the kinds that list it.
@pytest.mark.parametrize("sentence, name, expected", [
    ("最长保留 6 个月", "count", False),               # 个月, not 个: a span of months is no count
    ("最长保留 6 个月", "duration", True),
    ("提交后 3 个工作日内完成审核", "count", False),
    ("每级一共 16 个课时", "count", False),              # 个课时 is lessons
    ("每级一共 16 个课时", "lessons", True),
    ("年满 18 周岁可以报名", "duration", False),         # 周岁, not 周
    ("年满 18 周岁可以报名", "age", True),
    ("一个班最多 3 个人", "headcount", True),            # 个人 is a headcount
    ("可以免费转班一次", "count", True),                 # a count unit still states a count
    ("开课后 4 课时内可以转班", "lessons", True),         # 课时内 is listed under lessons too
    ("开课后 4 课时内可以转班", "duration", True),
])
def test_states_reads_a_figures_unit_longest_first_across_kinds(sentence, name, expected):
    assert states(sentence, name) is expected


def test_figure_units_are_the_longest_units_written():
    assert figure_units("最长保留 6 个月，3 个工作日内审核，18 周岁") == frozenset({"个月", "个工作日", "周岁"})


def test_a_span_of_months_does_not_answer_how_many_times():
    assert carried("最长保留 6 个月", read_asked("学籍一共能保留几次")) == ()


# Gap 2: common counters are count words and units (道, 家, 张, 份, 条, 所 …); 几位 / 几名 ask a headcount.
@pytest.mark.parametrize("question, kinds", [
    ("分级测试一共有多少道题", ("count",)),
    ("你们一共有几家校区", ("count",)),
    ("报名要填几张表", ("count",)),
    ("要交几份材料", ("count",)),
    ("转班规则一共有几条", ("count",)),
    ("一个班有几位老师", ("headcount",)),
    ("一个班有多少名学员", ("headcount",)),
    ("一个班几个人", ("headcount",)),                   # still a headcount, not a count
    ("一个级别几堂课", ("lessons",)),
])
def test_read_asked_reads_the_common_counters(question, kinds):
    assert read_asked(question).kinds == kinds


@pytest.mark.parametrize("sentence", ["分级测试共 30 道题", "全市有 5 家校区", "需要填写 2 张表"])
def test_a_figure_in_a_counter_states_a_count(sentence):
    assert states(sentence, "count")


# Gap 3: an asking word naming a unit of a group wants a figure of that group (core/data/asked_kinds.txt 单位组).
@pytest.mark.parametrize("sentence, word, expected", [
    ("开课后 4 课时内，第一次转班免费", "几天", False),    # a lesson window is no span of days
    ("开课后 4 课时内，第一次转班免费", "多久", True),     # … but answers a generic 多久
    ("开课后 4 课时内，第一次转班免费", "多长时间", True),
    ("学校在 3 个工作日内完成审核", "几天", True),         # a working day is a calendar unit
    ("最长保留 6 个月", "几个月", True),
    ("最长保留 6 个月", "多久", True),
    ("分级测试用时约 20 分钟", "几分钟", True),
])
def test_a_duration_asked_in_calendar_units_wants_calendar_units(sentence, word, expected):
    assert states(sentence, "duration", word) is expected


@pytest.mark.parametrize("sentence, word, expected", [
    ("报名前可以做一次免费的分级测试", "多少道", False),   # asked in 道: 一次 is no count of questions
    ("分级测试共 30 道题", "多少道", True),
    ("可以凭二级及以上医院的证明申请", "几次", False),     # asked in 次: 二级 is no number of times
    ("可以免费转班一次", "几次", True),
    ("口语课一共分为四级", "几个级别", True),               # 级 and 个级别 answer each other
    ("口语课一共分为四级", "有几个", True),                 # a word naming no unit takes any count unit
])
def test_a_count_asked_in_a_counter_wants_that_counter(sentence, word, expected):
    assert states(sentence, "count", word) is expected


def test_named_units_reads_the_groups_of_the_data_file():
    assert {"天", "工作日", "个月"} <= named_units("duration", "几天") and "课时内" not in named_units("duration", "几天")
    assert named_units("duration", "多久") == frozenset() and named_units("count", "有几个") == frozenset()


def test_carried_reads_each_kind_against_the_word_that_asked_it():
    sentence = "开课后 4 课时内，第一次转班免费"
    assert carried(sentence, read_asked("转班申请要几天才能办好")) == ()
    assert carried(sentence, read_asked("开课多久以内转班不收钱")) == ("amount", "duration")


@pytest.mark.parametrize("question, kinds", [
    ("分级测试有没有报告", ("exists", "yes_no")),     # 有没有 asks whether X exists, and is a yes/no by its form
    ("寒假班有没有", ("exists", "yes_no")),
    ("小E 是哪家公司开发的", ("organization",)),
    ("你们的教材是哪个机构出的", ("organization",)),
    ("一级和二级哪个好", ("choice",)),                 # 哪个 alone stays a choice
])
def test_read_asked_exists_and_organization(question, kinds):
    assert read_asked(question).kinds == kinds


@pytest.mark.parametrize("question, kind, word", [("第二次转班凭啥要收100块", "reason", "凭啥"),
                                                  ("报啥级别合适", "choice", "啥级别"),
                                                  ("这是啥公司做的", "organization", "啥公司")])
def test_an_asking_word_written_with_shenme_is_read_with_sha_too(question, kind, word):
    # 凭什么 and 什么级别 are in the words file; 凭啥 and 啥级别 are not, and are read all the same
    asked = read_asked(question)
    assert kind in asked and asked.word(kind) == word
    assert "reason" not in read_asked("第二次转班凭着要收100块")  # no 啥: nothing asks a reason


@pytest.mark.parametrize(("question", "word"), [
    ("二级学费是多少", "学费是多少"), ("教材费大概要多少呢", "教材费大概要多少"), ("手续费一共多少钱", "多少钱")])
def test_a_fee_noun_with_its_多少_a_few_characters_on_asks_an_amount(question, word):
    found = read_asked(question)
    assert found.kinds == ("amount",) and found.words == (word,)


@pytest.mark.parametrize("question", ["退费手续费按多少比例扣", "学费交了，课时还剩多少",
                                      "学费交了，还剩多少"])  # a comma parts the clauses: 多少 of another one
def test_a_多少_of_another_thing_after_a_fee_noun_asks_no_amount(question):
    assert "amount" not in read_asked(question).kinds


# 「多久做一次」 asks how often, not how long: the duration word re-read (`frequency.改读.duration`).
@pytest.mark.parametrize(("question", "kinds"), [
    ("对话记录的质量复核多久做一次呀", ("frequency",)), ("你们多久开一期新班", ("frequency",)),
    ("学费多久调一次价", ("frequency",)), ("多久一次", ("frequency",)),
    ("退款多久能到账", ("duration",)), ("转班一次要多久", ("duration",))])  # 一次 before 多久: no frequency
def test_a_duration_word_followed_by_一次_asks_how_often(question, kinds):
    assert read_asked(question).kinds == kinds
    assert "frequency" not in read_asked(question, ALL_ASKED.without("frequency")).kinds


@pytest.mark.parametrize(("sentence", "expected"), [
    ("每周上 2 课时，八周结课。", True), ("人工服务时间为每天 9:00–21:00。", True),
    ("对话记录保存 90 天，只用于服务质量复核。", False)])  # a span is no frequency
def test_a_frequency_is_stated_by_每_a_period(sentence, expected):
    assert states(sentence, "frequency") is expected


# 「几个 X」: a count of X, answered only by a figure of X.
@pytest.mark.parametrize(("question", "word", "counted"), [
    ("你们一共有几个校区", "有几个", "校区"),
    ("每个级别一期开几个班啊", "几个", "班"),            # alone, in the last clause, 几个 asks
    ("同一级别每周有几个时段能选呀", "有几个", "时段"),
    ("口语课一共有几个等级", "有几个", "等级")])
def test_a_count_of_a_thing_named_after_几个_counts_that_thing(question, word, counted):
    found = read_asked(question)
    assert found.kinds == ("count",) and found.words == (word,) and found.counted == counted


@pytest.mark.parametrize("question", [
    "退休了想学点英语 就认识几个单词 从哪级开始合适",   # not the last clause: 「a few」
    "一个班大概多少个学生",                            # 个学生 is a headcount's unit
    "退费扣几个点"])                                   # 点 is a clock's unit
def test_a_few_or_a_unit_after_几个_is_no_count_of_a_thing(question):
    assert read_asked(question).counted == ""


@pytest.mark.parametrize(("sentence", "counted", "expected"), [
    ("目前开了 3 个校区。", "校区", True), ("每班不超过 8 人。", "班", False), ("一共分为四级。", "等级", True),
    ("开课后 4 课时内，可以免费转班一次。", "时段", False)])  # any count (一次) is no figure of 时段
def test_states_counted_wants_a_figure_of_the_thing(sentence, counted, expected):
    assert states_counted(sentence, counted) is expected


def test_因_of_a_ground_is_no_reason_given():
    # 「因病申请的」 names a ground a rule applies to, not why the rule is so (「为啥要医院证明」)
    assert not states("因病申请的，需提供二级及以上医院的证明。", "reason")
    assert states("因为名额有限，所以要提前预约。", "reason")


def test_未成年_states_no_age():
    # 「小孩几岁可以报名」 asks a number of years: 「学员是未成年人的，由监护人提出申请」 states none
    assert not states("学员是未成年人的，由监护人提出申请。", "age")
    assert states("年满 18 周岁的学员可以自己申请。", "age")


@pytest.mark.parametrize(("question", "sides"), [
    ("小E和真人客服比谁更靠谱", ("小E", "真人客服")),
    ("你们的课跟外面的培训班比哪个好", ("你们的课", "外面的培训班")),
    ("线下班跟线上班比，价格一样吗", ("线下班", "线上班")),
    ("商务级的作业比流利级多吗", ("商务级的作业", "流利级")),   # 「X 比 Y 多」: no hint needed
    ("线上班会不会比线下班便宜", ("线上班会不会", "线下班"))])
def test_a_comparison_written_out_is_read_by_its_form(question, sides):
    assert compared(question)[:2] == sides and "compare" in read_asked(question).kinds
    assert "compare" not in read_asked(question, ALL_ASKED.without("compare")).kinds


@pytest.mark.parametrize("question", ["上课时能跟老师比划吗", "跟同学比我基础差，报几级",  # no two things compared
                                      "学费比较贵吗", "手续费按多少比例扣", "比如我上了4节"])  # 比较, 比例, 比如
def test_比_without_a_which_or_whether_is_no_comparison(question):
    assert "compare" not in read_asked(question).kinds


def test_a_word_that_asks_wins_over_an_earlier_topic_word_of_its_kind():
    # 「要交钱不？交多少」: 要交钱 is only the yes/no's topic, 交多少 asks the amount
    found = read_asked("分级测试要交钱不？交多少")
    assert "amount" in found.checkable and "交多少" in found.words
    # a yes/no with the topic only still asks no amount
    assert "amount" not in read_asked("分级测试要交钱不").checkable


@pytest.mark.parametrize("question, kinds", [
    # the quantity asked is in the asking word itself: 「多长时间以上」 asks how long at least, a lower bound
    ("因病保留学籍的话，得病多长时间以上才给批呀", ("lower",)),
    ("要上几节以上才能申请跳级", ("lower",)),
    ("得病多长时间才给批", ("duration",)),               # no 以上: a duration, as before
])
def test_round17_a_bound_written_after_its_quantity_is_read(question, kinds):
    assert read_asked(question).kinds == kinds


@pytest.mark.parametrize("question, counted", [
    ("启明英语一共开了几个校区呀", "校区"),   # after 了, 几个 X closing the question asks how many X
    ("开了多少个校区？", "校区"),
    ("学了几个单词了", ""),                  # a clause closing with 了 tells: 「a few」
    ("就认识几个单词 从哪级开始", ""),         # not after 了, not in the last clause
])
def test_round17_a_count_after_le_closing_its_question_asks(question, counted):
    assert read_asked(question).counted == counted


@pytest.mark.parametrize("question, kinds", [
    ("三级用的哪本教材", ("title",)),
    ("教材是哪个出版社的", ("title",)),
    ("教材多少钱", ("amount",)),                      # the textbook's price, not its name
])
def test_round17_a_books_name_is_a_kind_of_its_own(question, kinds):
    assert read_asked(question).kinds == kinds


def test_round17_a_name_in_book_marks_states_a_title():
    assert states("三级使用《English Now 3》", "title", "哪本")
    assert not states("教材费每级 280 元，不包含在学费内，单独收取。", "title", "哪本")


@pytest.mark.parametrize("question, kinds", [
    ("每个级别要用几本教材，一本还是好几本", ("count", "choice")),   # 几本 asked in a clause of its own
    ("按上了多少节算还是按剩多少节算", ("choice",)),                 # only beside 还是: which, not how many
])
def test_round17_a_kind_beside_a_choice_is_dropped_only_where_it_stands_only_there(question, kinds):
    assert read_asked(question).kinds == kinds
