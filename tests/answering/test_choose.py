"""Choosing apart from phrasing: the sentences the offline answer says (core.answering.choose), then its words
(core.answering.extractive)."""

from __future__ import annotations

from core.answering.choose import Choice, Chosen, choose_sentences
from core.answering.extractive import APPLY_TEXT, NEAREST_TEXT, compose_answer, phrase
from core.settings import REFUSAL_TEXT
from core.values import Term

TUITION = "各级口语课的单报学费如下：\n\n入门级（一级）：3600 元\n进阶级（二级）：4200 元"
KEEP = "因病或工作调动，可以申请保留学籍，最长保留 6 个月。\n\n因病申请的，需提供二级及以上医院的证明。"
REFUND = ("开课前申请退费的，学费全额退还。\n\n开课后申请退费的，按剩余课时计算，公式为：\n\n"
          "可退金额 = 实付学费 ×（剩余课时 ÷ 总课时）− 手续费\n\n手续费为 实付学费 ×（剩余课时 ÷ 总课时）的 5%，单笔最低 50 元。\n\n"
          "示例：学员实付 4800 元报读三级（总课时 16），上了 4 课时后申请退费。剩余 12 课时，4800 × 12 ÷ 16 = 3600 元，"
          "手续费 3600 × 5% = 180 元，可退 3420 元。")


def term(text: str, weight: float = 1.0) -> Term:
    return Term(text, weight, (text,), known=True)


def test_choosing_returns_the_sentences_and_phrasing_words_them():
    choice = choose_sentences("二级学费多少", ((1, TUITION),), (term("二级"), term("学费")))
    assert isinstance(choice, Choice) and all(isinstance(s, Chosen) for s in choice.sentences)
    assert [s.text for s in choice.sentences][-1] == "进阶级（二级）：4200 元"
    assert phrase(choice) == compose_answer("二级学费多少", ((1, TUITION),), (term("二级"), term("学费")))


def test_an_amount_asked_is_answered_only_by_sentences_stating_one():
    # 保留学籍's sentence names 二级 too, but states no amount: a price question is not answered by it
    references = ((1, TUITION), (2, KEEP))
    text = compose_answer("二级学费多少", references, (term("二级"), term("学费")))
    assert "4200 元[1]" in text and "保留学籍" not in text and "医院" not in text


def test_the_gates_kinds_decide_what_must_be_carried():
    # with the gate's rule off (Decision.asked empty) the sentence naming 二级 may stand again
    references = ((1, TUITION), (2, KEEP))
    text = compose_answer("二级学费多少", references, (term("二级"), term("学费")), asked=())
    assert "医院" in text


def test_asking_how_as_well_keeps_the_rule_that_works_the_amount_out():
    # 「怎么算」 asks a way too: the formula states no amount, yet it is the answer (v5: 「按剩余课时计算」 was lost)
    words = (term("课"), term("退"), term("钱"), term("算"))
    text = compose_answer("上了几节课以后想退，退多少钱怎么算？", ((1, REFUND),), words)
    assert "按剩余课时计算，公式为：可退金额 = 实付学费" in text


def test_phrasing_says_nearest_apply_and_refusal_in_its_three_fixed_sentences():
    formula = Chosen(1, 0, "可退金额 = 实付学费 ×（剩余课时 ÷ 总课时）− 手续费", "", "", True)
    assert phrase(Choice((formula,), apply_to=("4200 元",))).endswith(
        APPLY_TEXT.format(figures="4200 元") + "[1]。")
    assert phrase(Choice((formula,), nearest=True)).startswith(NEAREST_TEXT)
    assert phrase(None) == REFUSAL_TEXT
