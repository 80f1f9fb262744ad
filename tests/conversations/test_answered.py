"""A thing the previous answer brought in, asked about next: the answer's document words kept with its turn
(core.conversations.answered) and the `within_answer` reading. My own examples, written from the three documents."""

from __future__ import annotations

import pytest

from core.conversations import parse_rules, read_in_context
from core.conversations.answered import answer_words, held_by_answer
from core.values.conversations import FOLLOW_UP, TOPIC_SWITCH, Turn
from tests.school import documents, shipped_facts

CORPUS = "\n".join(text for _, text in documents())
# the offline answerer's answers, as it gives them (document sentences with their citation marks)
TIMELINE = "学校在 3 个工作日内完成审核[1]。审核通过后，款项在 7 个工作日内原路退回[1]。"
KEEP_PLACE = "因病或工作调动，可以申请保留学籍，最长保留 6 个月[1]。因工作调动申请的，需提供单位证明[1]。"
SOURCES = "小E 的每一条回答都会标出出处编号[1]。学员可以点开编号，核对资料原文[1]。"
TUITION = "各级口语课的单报学费如下：入门级（一级）：3600 元[1]。转到不同级别的，另按学费差价多退少补[2]。"


def read(previous: str, answer: str, message: str, *, alone: bool = True, rules=None):
    turn = Turn(previous, False, "msg_prev", answer_words=answer_words(answer, CORPUS))
    kwargs = {"rules": rules} if rules is not None else {}
    return read_in_context(message, turn, stands_alone=alone, facts=shipped_facts(), **kwargs)


def test_answer_words_keep_the_documents_phrases_and_never_a_figure_or_a_students_word():
    said = answer_words(TIMELINE + "你已上 6 课时，张小明同学。", CORPUS)
    assert said[0] == ("学校在", "个工作日内完成审核")  # the reply: the first sentence, its own phrases
    assert "审核通过后" in said[1] and any("原路退回" in w for w in said[1])
    words = [w for sentence in said for w in sentence]
    assert not any(c.isdigit() for w in words for c in w)
    assert not any("小明" in w for w in words)  # a name the documents lack is never kept
    assert all(w in CORPUS.lower() for w in words) and len(words) == len(set(words))


def test_a_model_answers_own_wording_keeps_only_its_words_the_documents_use():
    said = answer_words("退款审批完成以后，款项会在七个工作日里打回你的账户", CORPUS)
    assert said == (("退款", "完成", "款项", "工作日"),)  # 审批, 打回: words the documents do not use


def test_a_single_character_thing_is_held_only_with_the_character_beside_it():
    words = answer_words(TIMELINE, CORPUS)
    assert held_by_answer("原", "是原路退吗", words)
    assert not held_by_answer("课", "每节课多久", answer_words("开课后 4 课时内，可以免费转班一次", CORPUS))


@pytest.mark.parametrize(("previous", "answer", "message", "expected"), [
    ("退款多久能到账", TIMELINE, "是原路退吗", "退款，是原路退吗"),
    ("工作调动申请保留学籍要啥证明", KEEP_PLACE, "单位开的就行吗", "工作调动保留学籍，单位开的就行吗"),
    ("小E的回答有出处吗", SOURCES, "原文在哪看", "小E的回答有出处，原文在哪看"),
])
def test_a_thing_the_previous_answer_brought_in_is_asked_within_the_previous_subject(previous, answer, message,
                                                                                      expected):
    got = read(previous, answer, message)
    assert (got.question, got.kind, got.rules, got.derived_from) == (expected, FOLLOW_UP, ("within_answer",),
                                                                      "msg_prev")


def test_without_the_answers_words_the_message_stays_as_it_is():
    """The old turn (no answer words kept, or the rule switched off) leaves 「是原路退吗」 alone."""
    assert read_in_context("是原路退吗", Turn("退款多久能到账", False), stands_alone=True,
                           facts=shipped_facts()).question == "是原路退吗"
    assert read("退款多久能到账", TIMELINE, "是原路退吗", rules=parse_rules("-within_answer")).question == "是原路退吗"


@pytest.mark.parametrize(("previous", "answer", "message"), [
    # a word of the interchangeable groups is a swap's: a fee of its own with the matter's verb stands alone
    ("开课前退费能全额退吗", "开课前申请退费的，学费全额退还，另外教材费不在退费范围内[1]。", "教材费能退吗"),
    # a count of things asks the documents' list of them
    ("一级学费是多少啊", TUITION, "一共有几个级别呢"),
    # turning to another matter
    ("退款多久能到账", TIMELINE, "对了，审核是谁来做"),
    # who it asks (小E) is a question of its own
    ("怎么转人工", "在对话里输入“人工”，或点击“转人工”按钮[1]。小E 不能承诺任何优惠或折扣[2]。", "小E能给我打折吗"),
    # a thing the answer never said
    ("退款多久能到账", TIMELINE, "发票怎么开"),
])
def test_a_message_of_its_own_is_never_read_within_the_previous_answer(previous, answer, message):
    got = read(previous, answer, message)
    assert (got.question, got.kind) == (message, TOPIC_SWITCH)


PLACEMENT = "可以，以分级测试结果为准[1]。测试结果对应哪一级，就直接报读哪一级，不需要从一级开始[1]。"
ILLNESS = "因病或工作调动，可以申请保留学籍，最长保留 6 个月[1]。因病申请的，需提供二级及以上医院的证明[1]。"


@pytest.mark.parametrize(("previous", "answer", "message", "expected"), [
    # neither question names a matter: the answer's matter goes in front of the rewrite
    ("孩子住院了来不了课怎么办", ILLNESS, "最长能请多久", "保留学籍，孩子住院了来不了课最长能请多久？"),
    # a verb inside the answer's matter (测 of 分级测试) asks about that matter
    ("可以不从一级学起吗", PLACEMENT, "测一下收费吗", "分级测试，测一下收费吗"),
])
def test_a_follow_up_about_the_matter_the_previous_answer_named(previous, answer, message, expected):
    got = read(previous, answer, message, alone=False)
    assert (got.question, got.kind, got.rules[-1]) == (expected, FOLLOW_UP, "answer_matter")
    off = read(previous, answer, message, alone=False, rules=parse_rules("-answer_matter"))
    assert off.question != expected and "answer_matter" not in off.rules


def test_a_previous_question_naming_its_matter_keeps_it():
    """「退费怎么申请」 names 退费: its follow-up is about 退费 even though the answer also names 保留学籍."""
    got = read("退费怎么申请", "学员本人可以在 App 内提交退费申请[1]。因病可以申请保留学籍[2]。", "多久到账", alone=False)
    assert got.question == "退费多久到账？" and "answer_matter" not in got.rules
