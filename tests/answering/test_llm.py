"""The offline answerer: deterministic, extractive, cites every sentence, never invents words."""

from __future__ import annotations

import re

import pytest

from core import answer
from core.answering.extractive import APPLY_TEXT
from core.answering.offline import STREAM_PIECE, OfflineAnswerer, ScriptedChatModel, compose_answer
from core.answering.prompts import build_messages, parse_human_message
from core.answering.rag import retrieve
from core.language.text import normalize
from core.settings import REFUSAL_TEXT
from core.values import Term


def _refs(corpus_index, question, k=3):
    return [h.document for h in retrieve(question, corpus_index, k)]


def test_parse_human_message_round_trips_references(corpus_index):
    docs = _refs(corpus_index, "退费怎么算")
    parsed = parse_human_message(build_messages("退费怎么算", docs)[1].content)
    assert parsed.question == "退费怎么算"
    assert [n for n, _ in parsed.references] == [1, 2, 3]
    assert [t for _, t in parsed.references] == [d.page_content for d in docs]


def test_offline_answerer_cites_every_sentence(corpus_index):
    docs = _refs(corpus_index, "每节课多长时间？")
    text = OfflineAnswerer().invoke(build_messages("每节课多长时间？", docs)).content
    sentences = [s for s in text.split("。") if s]
    assert sentences and all(re.search(r"\[\d\]$", s) for s in sentences)
    assert "45 分钟" in text


@pytest.mark.parametrize("question", ["我报了口语课三级，学费 4800，上了 4 课时不想学了，能退多少钱？",
                                      "我报的二级 交了4200 上了6节课 现在退能退多少", "退费怎么算"])
def test_offline_answerer_only_uses_reference_words(corpus_index, question):
    # Words, not punctuation: a worked example's sentences are joined by 「，」 under its label. The one
    # sentence of its own is the fixed instruction to apply the formula to the student's figures.
    docs = _refs(corpus_index, question)
    text = OfflineAnswerer().invoke(build_messages(question, docs)).content
    own = normalize(APPLY_TEXT.split("{figures}")[0])
    corpus = "".join(normalize(d.page_content) for d in docs)
    for sentence in re.split(r"\[\d+\]。", text):
        if sentence and not normalize(sentence).startswith(own):
            for part in sentence.split("，"):
                assert normalize(part) in corpus, part


def test_offline_answerer_is_deterministic(corpus_index):
    messages = build_messages("转班要收费吗", _refs(corpus_index, "转班要收费吗"))
    assert len({OfflineAnswerer().invoke(messages).content for _ in range(3)}) == 1


def test_compose_answer_refuses_when_nothing_overlaps():
    assert compose_answer("雅思", ((1, "口语课一共四级。"),)) == REFUSAL_TEXT


def test_offline_answerer_streams_the_same_text(corpus_index):
    messages = build_messages("教材费退吗", _refs(corpus_index, "教材费退吗"))
    streamed = "".join(str(c.content) for c in OfflineAnswerer().stream(messages))
    assert streamed == OfflineAnswerer().invoke(messages).content


def test_scripted_model_counts_calls_and_repeats_last():
    model = ScriptedChatModel(responses=["一", "二"])
    assert [model.invoke("x").content for _ in range(3)] == ["一", "二", "二"]
    assert model.calls == 3


WEEK = Term("周", 0.55, ("周",), known=True)
HOURS = ("每一级都是 16 课时，每课时 45 分钟。每周上 2 课时，八周结课。"
         "测试结果对应哪一级，就直接报读哪一级，不需要从一级开始。")


def test_compose_answer_without_keywords_misses_a_one_character_topic():
    # 「一级要上几周」 shares the bigram 一级 with the wrong sentence and no bigram with the right one
    assert "八周结课" not in compose_answer("一级要上几周", ((1, HOURS),))


def test_compose_answer_keywords_find_the_sentence_holding_the_topic():
    text = compose_answer("一级要上几周", ((1, HOURS),), (WEEK,))
    assert "八周结课" in text


def test_compose_answer_keywords_count_their_glossary_forms():
    refs = ((1, "各级学费如下：入门级 3600 元。教材一经领取，不予退还。"),)
    assert compose_answer("价钱", refs) == REFUSAL_TEXT
    price = Term("价钱", 1.0, ("价钱", "学费"), known=True, via_glossary=True)
    assert compose_answer("价钱", refs, (price,)) == "各级学费如下：入门级 3600 元[1]。"


def test_offline_answerer_reads_keywords_from_invoke_and_stream(corpus_index):
    docs = _refs(corpus_index, "一级要上几周")
    messages = build_messages("一级要上几周", docs)
    keywords = (WEEK,)
    invoked = OfflineAnswerer().invoke(messages, keywords=keywords).content
    streamed = "".join(str(c.content) for c in OfflineAnswerer().stream(messages, keywords=keywords))
    assert invoked == streamed and "八周结课" in invoked


def test_the_chain_reads_the_offline_answerers_own_pieces_which_are_its_streams_pieces(corpus_index):
    """stream_text skips LangChain's run machinery for the offline answerer: the pieces must be exactly the ones its
    `stream` yields (same text, same cuts), with the keywords read either way."""
    messages = build_messages("一级要上几周", _refs(corpus_index, "一级要上几周"))
    keywords = (WEEK,)
    pieces = list(OfflineAnswerer().pieces(messages, keywords=keywords))
    streamed = [str(c.content) for c in OfflineAnswerer().stream(messages, keywords=keywords)]
    assert pieces == [p for p in streamed if p]  # LangChain ends a stream with an empty chunk
    assert "八周结课" in "".join(pieces) and all(len(p) <= STREAM_PIECE for p in pieces)
    long = build_messages("退费怎么算", _refs(corpus_index, "退费怎么算"))
    assert len(list(OfflineAnswerer().pieces(long))) > 1
    assert list(OfflineAnswerer().pieces(long)) == [p for p in (str(c.content) for c in OfflineAnswerer().stream(long)) if p]


def test_answer_passes_the_decisions_keywords_to_the_offline_answerer(corpus_index):
    from core import answer

    result = answer("一级要上几周", corpus_index)
    assert not result.refused and "八周结课" in result.text and not result.problems


# --- the asked case, FAQ first, no filler -------------------------------------------------------

REFUND_RULES = ("开课后申请退费的，按剩余课时计算，公式为：\n\n可退金额 = 实付学费 ×（剩余课时 ÷ 总课时）− 手续费\n\n"
                "示例：学员实付 4800 元报读三级（总课时 16），上了 4 课时后申请退费。剩余 12 课时，"
                "4800 × 12 ÷ 16 = 3600 元，手续费 3600 × 5% = 180 元，可退 3420 元。")
FAQ = ("问：教材费能退吗？\n答：不能，教材费不在退费范围内。\n\n"
       "问：退款多久能到账？\n答：提交申请后 3 个工作日内完成审核，审核通过后 7 个工作日内原路退回。")
REFUND = Term("退费", 1.0, ("退费",), known=True, specificity=0.33)
PAID = "我报的二级 交了4200 上了6节课 现在退能退多少"


def test_offline_answer_applies_the_formula_to_the_students_own_figures(corpus_index):
    result = answer(PAID, corpus_index)  # the decision's gate, rerank and terms, as the Ask page
    assert result.text.startswith("按资料：可退金额 = 实付学费 ×（剩余课时 ÷ 总课时）− 手续费[")
    assert "3420" not in result.text and "4800" not in result.text
    assert "2625 − 131.25 = 2493.75 元，可退 2493.75 元" in result.text  # computed from the formula, the fee rule, 16 课时
    assert result.problems == ()


def test_compose_answer_quotes_the_example_as_an_example_when_the_question_has_no_figures():
    text = compose_answer("退费能退多少", ((1, REFUND_RULES),), (REFUND,))
    example = [s for s in text.split("[1]。") if "4800" in s or "3420" in s]
    assert example and all(s.startswith("示例：") for s in example)
    assert APPLY_TEXT[:6] not in text


def test_compose_answer_keeps_the_example_when_it_is_the_students_case():
    text = compose_answer("三级交了4800，上了4节课，能退多少", ((1, REFUND_RULES),), (REFUND,))
    assert "可退 3420 元" in text and APPLY_TEXT[:6] not in text


def test_compose_answer_puts_the_settling_faq_answer_first_and_drops_the_others():
    arrival = Term("到账", 1.0, ("到账",), known=True)
    text = compose_answer("退费多久到账", ((1, FAQ),), (REFUND, arrival))
    assert text == "提交申请后 3 个工作日内完成审核，审核通过后 7 个工作日内原路退回[1]。"


def test_offline_answer_to_the_levels_question_starts_with_the_faq_sentence(corpus_index):
    question = "口语课一共有几级"
    text = OfflineAnswerer().invoke(build_messages(question, _refs(corpus_index, question))).content
    assert text.startswith("一共四级，从低到高分别是入门级、进阶级、流利级和商务级[")


def test_compose_answer_leaves_out_a_sentence_without_a_content_word():
    refs = ((1, "本制度适用于启明英语全部口语课学员。启明英语的口语课一共分为四级。"),)
    levels = Term("级", 0.56, ("级",), known=True, specificity=0.3)
    assert compose_answer("有几级", refs, (levels,)) == "启明英语的口语课一共分为四级[1]。"


# --- no filler (docs/grounding.md「无关句（填充句）的定义」) ---------------------------------------

LEVELS_DOC = ("本说明介绍启明英语口语课的级别设置、课时安排、学费标准和报读方式，供学员报名前参考。\n\n"
              "启明英语的口语课一共分为四级。\n\n每一级都是 16 课时，每课时 45 分钟。每周上 2 课时，八周结课。")
SCOPE_DOC = "为让学员清楚了解退费和转班的办理规则，特制定本制度。\n\n本制度适用于启明英语全部口语课学员。"


def _term(text, weight=1.0):
    return Term(text, weight, (text,), known=True, specificity=0.5)


def test_purpose_and_scope_sentences_never_pad_an_answer():
    text = compose_answer("口语课一共有几级", ((1, LEVELS_DOC), (2, SCOPE_DOC)), (_term("口语课"), _term("几级", 0.6)))
    assert "本说明介绍" not in text and "本制度适用于" not in text and "特制定" not in text
    assert "一共分为四级[1]" in text


def test_a_scope_sentence_answers_a_question_about_scope():
    text = compose_answer("退费制度适用于哪些学员", ((1, SCOPE_DOC),), (_term("退费制度"), _term("适用")))
    assert "本制度适用于启明英语全部口语课学员[1]" in text and "特制定" not in text


def test_a_multi_part_question_is_answered_part_by_part_each_cited():
    refs = ((1, LEVELS_DOC),)
    text = compose_answer("口语课一共有几级？每级多少课时？", refs, (_term("一共"), _term("课时")))
    assert "一共分为四级[1]" in text and "课时" in text.split("四级[1]")[1]


def test_an_faq_yes_no_is_not_quoted_under_another_question():
    faq = "问：教材费能退吗？\n答：不能，教材费不在退费范围内。"
    text = compose_answer("退费的时候教材费怎么算", ((1, faq),), (_term("教材费"), _term("退费")))
    assert text == "教材费不在退费范围内[1]。"


def test_only_filler_left_says_the_nearest_point_instead():
    refs = ((1, "已上课时超过总课时的一半（即超过 8 课时）后，不再受理退费申请。"),)
    text = compose_answer("上了多少课时以后就不能退了", refs, (_term("不能退"),))
    assert text.startswith("资料里没有直接回答这个问题，最接近的规定是：") and text.endswith("[1]。")


# --- a line ending in 「：」 introduces what follows (round 4) -----------------------------------------------

QUOTE_DOC = "遇到资料里没有的问题，小E 不会自行编造答案，而是统一回复：\n\n这件事资料里没写，我不能替你们编，请转人工。"
FEES_DOC = "各级口语课的单报学费如下：\n\n入门级（一级）：3600 元\n进阶级（二级）：4200 元\n\n教材费每级 280 元。"


def test_a_quoted_sentence_is_shown_with_the_line_that_introduces_it_never_alone():
    # 「你会不会瞎编答案啊」 was answered with the refusal sentence alone, which reads as a refusal
    text = compose_answer("你会不会瞎编答案啊", ((1, QUOTE_DOC),), (_term("瞎编", 0.9), _term("答案")))
    assert text.startswith("遇到资料里没有的问题，小E 不会自行编造答案，而是统一回复：这件事资料里没写")
    assert text != REFUSAL_TEXT and text.endswith("[1]。")


def test_the_lead_counts_for_its_paragraph_but_is_shown_only_with_the_line_after_it():
    first = compose_answer("一级学费多少", ((1, FEES_DOC),), (_term("一级", 0.6), _term("学费")))
    assert first.startswith("各级口语课的单报学费如下：入门级（一级）：3600 元[1]")
    second = compose_answer("二级学费多少", ((1, FEES_DOC),), (_term("二级", 0.6), _term("学费")))
    assert "进阶级（二级）：4200 元[1]" in second and "如下：进阶级" not in second  # the document's own order
    assert normalize("进阶级（二级）：4200 元") in normalize(FEES_DOC)
