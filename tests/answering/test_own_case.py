"""The student's own case computed from the school facts (core.answering.calculate) and phrased with citations
(core.answering.own_case); the facts come from the documents (core.facts), the case from core.case."""

from __future__ import annotations

from dataclasses import replace

import pytest
from langchain_core.documents import Document

from core.answering.fact_refs import citer, with_fact_chunks
from core.answering.own_case import compute, phrase, sources
from core.case import read_case
from core.checks.grounding import check_grounding
from core.corpus.loader import load_documents
from core.facts import Missing, read_facts
from core.retrieval.index import build_index
from tests.paths import ROOT
from tests.school import shipped_facts

DOCS = load_documents(ROOT / "corpus")
INDEX = build_index(DOCS)


def _answer(question: str, facts=None, index=INDEX):
    """(text, the references it cites) of the own-figure answer, or (None, ())."""
    facts = facts or shipped_facts()
    result = compute(question, facts)
    if result is None:
        return None, ()
    hits = with_fact_chunks((), sources(result), index)
    return phrase(result, citer(hits)), tuple(h.text for h in hits)


def compute_answer(question: str, facts=None) -> str | None:
    return _answer(question, facts)[0]


def _grounded(question: str) -> str:
    text, refs = _answer(question)
    report = check_grounding(text, [Document(page_content=t) for t in refs], question, shipped_facts())
    assert report.ok, report.problems
    return text


def test_the_headline_refund_is_computed_step_by_step_and_grounded():
    question = "我报的二级 交了4200 上了6节课 现在退能退多少"
    text = _grounded(question)
    assert "剩余课时 = 16 − 6 = 10" in text and "= 2625 元" in text
    assert "手续费 2625 × 5% = 131.25 元（不低于 50 元）" in text and "2625 − 131.25 = 2493.75 元，可退 2493.75 元" in text
    assert not text.startswith("不能") and "，不能，" not in text and "教材费不在退费范围内" in text


def test_chinese_numerals_and_the_level_fee_when_the_student_paid_the_single_price():
    question = "老师 我报的一级 原价报的 上了两节课 想退了 能退多少钱"
    text = _grounded(question)
    # 16 − 2 = 14; 3600 × 14 ÷ 16 = 3150; 3150 × 5% = 157.5; 3150 − 157.5 = 2992.5
    assert "入门级（一级）：3600 元" in text and "3150 − 157.5 = 2992.5 元，可退 2992.5 元" in text
    assert "按单报学费（原价）交的" in text


@pytest.mark.parametrize("question", [
    "一级原价3600 打了九折 上了两节 能退多少",  # the single price quoted with a discount is not what was paid
    "一级打了九折 上了两节 能退多少",
])
def test_a_discount_without_its_amount_asks_for_the_amount_paid(question):
    text = compute_answer(question)
    assert "还需要知道：实付学费" in text and "可退 " not in text, text


@pytest.mark.parametrize(("question", "full"), [
    ("老师 我报的一级 上了两节课 想退了 能退多少钱", "老师 我报的一级 原价交的 上了两节课 想退了 能退多少钱"),
    ("报了四级 还没开课 想退 能退多少", "报了四级 全价交的 还没开课 想退 能退多少"),
])
def test_a_level_alone_asks_what_was_paid_and_its_full_price_computes(question, full):
    # the documents compute from the tuition actually paid: a level is no amount (a discount is possible), so the
    # answer asks; said as paid in full (原价, 全价), the level's single price is what was paid
    text = compute_answer(question)
    assert "还需要知道：实付学费（你实付多少）" in text and "可退 " not in text, text
    assert "你是按单报学费（原价）交的" in compute_answer(full)
    assert "可退 2992.5 元" in compute_answer(full) or "可退 5600 元" in compute_answer(full)


def test_the_minimum_fee_applies():
    question = "二级 实付 800 上了8节课 能退多少"
    text = compute_answer(question)
    # 800 × 8 ÷ 16 = 400; 5% = 20 < 50 → 50; 400 − 50 = 350
    assert "低于最低 50 元，按 50 元收" in text and "= 350 元" in text


def test_more_than_half_attended_is_a_condition_with_no_amount():
    text = compute_answer("三级交了四千八 上了十节课 还能退吗")
    assert "超过了 8 课时" in text and "不再受理退费" in text and "可退 " not in text


def test_before_the_start_the_whole_tuition():
    assert "可退 5600 元" in compute_answer("报了四级 原价交的 还没开课 想退 能退多少")
    assert "可退 5000 元" in compute_answer("报了四级 交了5000 还没开课 想退 能退多少")


def test_a_missing_figure_is_named():
    text = compute_answer("二级 交了4200 想退 能退多少")
    assert "还需要知道：已上课时（上了几节课，或是否已开课）" in text and "可退 " not in text
    assert "还需要知道：已上课时（上了几节课）" in compute_answer("二级 交了4200 已经开课一段时间了 能退多少")
    assert "实付学费（你实付多少）" in compute_answer("上了3节课 能退多少")


def test_transfer_fees_and_level_differences():
    assert "转班手续费 100 元" in compute_answer("我已经换过一次班了 再换要多少钱")
    assert "转班手续费免费" in compute_answer("第一次转班 上了2节 要钱吗")
    text = compute_answer("从二级转到三级 第一次转 要补多少")
    assert "三级 4800 − 二级 4200 = 600 元，需补 600 元" in text
    text = compute_answer("三级换到一级 才上了两节 第一次转 差价退多少")
    assert "可退差价 1200 元" in text


def test_the_rule_is_read_from_the_documents_not_from_code():
    # Another school's numbers: 20 lessons, 10% fee with a 80 元 minimum, 6000 paid, 5 taken.
    other = read_facts([("rules.md", "每一级都是 20 课时。\n\n可退金额 = 实付学费 ×（剩余课时 ÷ 总课时）− 手续费\n\n"
                                      "手续费为 实付学费 ×（剩余课时 ÷ 总课时）的 10%，单笔最低 80 元。\n\n"
                                      "已上课时超过总课时的一半（即超过 10 课时）后，不再受理退费申请。")])
    index = build_index([Document(page_content=other.refund_formula.source.sentence, metadata={"source": "rules.md"})])
    text = _answer("交了6000 上了5节课 能退多少", other, index)[0]
    # 20 − 5 = 15; 6000 × 15 ÷ 20 = 4500; 10% = 450; 4500 − 450 = 4050
    assert "剩余课时 = 20 − 5 = 15" in text and "450 元（不低于 80 元）" in text and "= 4050 元" in text


def test_no_case_no_computation():
    assert compute_answer("退费怎么算") is None


@pytest.mark.parametrize(("question", "level", "target", "paid", "taken", "times"), [
    ("我报的二级 交了4200 上了6节课", 2, None, 4200, 6, None),
    ("从二级换到一级 才上了两节 第一次转", 2, 1, None, 2, 1),
    ("三级升四级 上了3节 补多少 第二次转", 3, 4, None, 3, 2),
    ("进阶级 交了四千二 上了六个课时", 2, None, 4200, 6, None),
])
def test_read_case(question, level, target, paid, taken, times):
    case = read_case(question, shipped_facts())
    assert (case.level, case.target, case.paid, case.taken, case.times) == (level, target, paid, taken, times)


def test_no_amount_without_the_rule_that_stops_a_refund_the_missing_fact_is_named():
    # Without the over-half rule, 12 of 16 attended would get 「可退 1140 元」: the missing fact is named instead.
    facts = replace(shipped_facts(), over_half=None, half_rule=None,
                    missing=(Missing("over_half", "不再受理退费的课时", "「…（即超过 N 课时）后，不再受理退费」"),))
    text = compute_answer("三级 交了4800 上了12次课 退多少", facts)
    assert "可退 " not in text and "资料里没有写明「不再受理退费的课时」" in text


def test_a_total_that_includes_the_textbook_is_reduced_by_the_documents_textbook_fee():
    # 3880 = 3600 + 280: refunds are computed on the tuition; v2f13 was computed on 3880 (a wrong amount)
    text = _grounded("我报的一级，连教材一共交了3880，上了6节，能退多少？")
    assert "实付学费 = 3880 − 280 = 3600 元" in text and "可退 2137.5 元" in text
    before = compute_answer("流利级没开课 学费+教材一共交了5080 教材已经领了 退费退多少")
    assert "实付学费 = 5080 − 280 = 4800" in before and "可退 4800 元" in before  # 5080 was the textbook's price
    assert "可退 3990 元" in compute_answer("三级学费4800 教材280 上了2节 退多少")  # 4800 is not the textbook's
    # the textbook's own amount stated: the other amount is the tuition
    assert "可退 4800 元" in compute_answer("三级学费4800+教材280 课还没开始 退的话能退多少")
    # without the textbook fee in the documents, no amount: the missing fact is named
    no_fee = replace(shipped_facts(), textbook_fee=None, missing=(Missing("textbook_fee", "教材费", "「教材费每级 N 元」"),))
    text = compute_answer("二级 学费加教材一共交了4480 上了2节 退多少", no_fee)
    assert "可退 " not in text and "「教材费」" in text


def test_weeks_attended_are_lessons_by_the_documents_lessons_a_week():
    text = compute_answer("商务级原价报的 上了两周了 一节都没落 想退 能退多少")
    assert "已上课时 = 2 周 × 2 课时 = 4" in text and "可退 3990 元" in text


def test_a_move_between_two_named_levels_asking_an_amount_is_the_level_difference():
    text = compute_answer("二级转一级 上了一节课 第一次转 退多少")  # v2f59 answered the transfer fee only
    assert "可退差价 600 元" in text
    assert "需补 1400 元" in compute_answer("进阶转商务 上了2节 第一次转班 补多少")


def test_more_than_half_says_no_even_when_the_amount_paid_is_not_said():
    # 「上了10节课 还能退吗」 was answered 「还需要知道：实付学费」: no amount is needed to say no
    text = compute_answer("上了10节课了还能退吗")
    assert "超过了 8 课时" in text and "不再受理退费" in text and "还需要知道" not in text
    eight = compute_answer("刚好上完第8节 还能退费吗")
    assert "没有超过 8 课时，可以退费" in eight and "还需要知道：实付学费" in eight


@pytest.mark.parametrize("question", [
    "退学费的时候教材那280也一起退吗",  # the textbook's price, not what the student paid for the course
    "退费的时候，当初单交的那 280 书本费会一块儿退给我吗",  # and 一块儿 is "together", not 1 元
    "觉得课太难想换到低一级 多交的钱会退吗",  # 低一级 is one level down, not level 1
])
def test_figures_that_are_not_the_students_case_start_no_computation(question):
    case = read_case(question, shipped_facts())
    assert case.paid is None and case.levels == ()
    assert compute_answer(question) is None


def test_lessons_left_are_not_lessons_taken():
    # v3f15/v3f20/v3f45 (third blind set): 「还剩十节没上」 was read as 10 taken (a no), 「还剩三节」 as 3 taken
    text = compute_answer("四级的 交了5600 还剩十节没上 现在退能退多少")
    assert "已上课时 = 16 − 10 = 6" in text and "可退 3325 元" in text
    over = compute_answer("一级还剩三节课没上 想退 能退多少")
    assert "已上课时 = 16 − 3 = 13" in over and "不再受理退费" in over and "可退 " not in over


def test_the_course_is_not_a_lesson_count_and_included_textbooks_are_read_in_more_words():
    # v3f41: 「交了四千八 课程还没开始」 was read as 4800 lessons taken
    text = compute_answer("我报的三级交了四千八 课程还没开始 现在申请退费退多少")
    assert "可退 4800 元" in text
    # v3f10 / v3f24: the amount includes the textbook, said after it
    assert "可退 3491.25 元" in compute_answer("交了4480 含280教材费 二级 上了两次课 退费多少")
    assert "可退 3705 元" in compute_answer("流利级 交了五千零八十 这里面有教材费 上了三节 退费能退多少")


def test_a_transfer_said_as_transferred_n_times_is_a_transfer():
    assert "转班手续费 100 元" in compute_answer("前面已经转了两次班了 现在第三次 还是同级别 要多少手续费")


@pytest.mark.parametrize(("question", "reason"), [
    ("一级是联报优惠报的，上了六节，想退掉，请问能退多少", "优惠价"),  # v4f15: 3600 is not what was paid
    ("商务级我打了九折 上了五节 不想上了 退的话能有多少", "优惠价"),
    ("你好 我一共交了五千多 里面含教材费 上了两节想退 能退多少", "大概的金额"),  # v4f39: 五千多 is not 5000
    ("二级大概交了四千 上了2节 能退多少", "大概的金额"),
])
def test_a_discount_without_its_amount_or_a_rough_amount_is_a_missing_figure_not_the_single_price(question, reason):
    text = compute_answer(question)
    assert "还需要知道：实付学费（" in text and reason in text
    assert "可退 " not in text and "按一级单报学费算" not in text


@pytest.mark.parametrize("question", ["流利级 已经上了八节 没走什么优惠 原价报的 现在退能退多少",  # v4f53
                                      "二级交了4200多久能到账 上了6节能退多少"])
def test_a_full_price_or_an_exact_amount_is_still_computed(question):
    text = compute_answer(question)
    assert "可退 " in text and "还需要知道" not in text


def test_a_course_that_opens_next_month_has_not_started():
    case = read_case("小E 二级是活动价3900报的，下个月才开班，现在退能全退吗 退多少", shipped_facts())  # v4f79
    assert (case.paid, case.started) == (3900, False)
    text = compute_answer("小E 二级是活动价3900报的，下个月才开班，现在退能全退吗 退多少")
    assert "可退 3900 元" in text
    assert read_case("开班以后上了2节 二级交了4200", shipped_facts()).started is True


def test_weeks_past_the_limit_stop_the_refund_before_the_amount_paid_is_asked():
    text = compute_answer("二级已经上了六周了 想退 能退多少")  # 6 × 2 = 12 > 8: no refund, whatever was paid
    assert "已上课时 = 6 周 × 2 课时 = 12" in text and "不再受理退费" in text and "还需要知道" not in text


def test_the_transfer_asked_about_comes_after_those_made():
    text = compute_answer("我已经转过3次班了（第一次是开课后第2节转的），现在想第4次转时段，这次要收多少")
    assert "这次是第 3 + 1 = 4 次转班：转班手续费 100 元" in text
    text = compute_answer("已经转过两次了，第一次是免费转的，第二次交过钱了。如果我再转两次，还要再付多少转班费")
    assert "你之前转过 2 次，之后再转 2 次，每次 100 元[1]：2 × 100 = 200 元，转班手续费 200 元" in text


@pytest.mark.parametrize(("question", "told"), [
    # the transfers named with 第N次 and a total asked: those transfers added up
    ("第二次和第三次转班加起来要多少钱", "之后再转 2 次，每次 100 元[1]：2 × 100 = 200 元，转班手续费 200 元"),
    ("头一次免费我晓得 那第二次、第三次、第四次一共收多少", "之后再转 3 次，每次 100 元[1]：3 × 100 = 300 元，转班手续费 300 元"),
])
def test_a_total_of_the_transfers_named_adds_their_fees(question, told):
    text = compute_answer(question)
    assert told in text, text


def test_a_rule_the_student_says_they_know_is_not_the_transfer_asked():
    # 「第一次免费我知道」 tells a rule: the 第一次 in it is neither asked nor made
    assert "你这是第 2 次转班：转班手续费 100 元" in compute_answer("第一次转班免费我知道 第二次转要交多少")
    # not a total of named transfers when they are not consecutive: which ones is asked for
    assert "还需要知道：第几次转班" in compute_answer("第二次和第四次转班一共多少钱")


@pytest.mark.parametrize("question", [
    "我报的班开课后刚上了1节课，想换到同级别的另一个上课时段，这次转班要交多少钱",
    "如果再转两次 一共多少钱",  # which transfers they are is not said
])
def test_a_transfer_fee_without_which_transfer_asks_for_it(question):
    text = compute_answer(question)
    assert "还需要知道：第几次转班（之前转过几次）" in text and "转班手续费免费" not in text, text
    assert "从第二次转班起，每次收取 100 元转班手续费" in text


def test_a_transfer_asked_without_an_amount_names_no_missing_figure():
    assert compute("上了两节 还能转班吗", shipped_facts()) is None


def test_two_levels_and_a_difference_asked_compute_the_difference_without_a_word_of_moving():
    text = compute_answer("我现在上二级，测试后老师说可以上四级，换过去要补多少差价")
    assert "需补 1400 元" in text


def test_a_total_of_transfers_the_reader_cannot_count_is_asked_for_not_given_as_one_fee():
    # which transfers are added up is not read (one told as made, 「又转了一次」, then 「第二次跟这次加起来」):
    # stating the second transfer's 100 元 as the total would be a wrong amount
    text = compute_answer("第一次转班是免费转的，后来又转了一次，现在还想再转，第二次跟这次加起来一共要交多少手续费")
    assert "还需要知道：第几次转班" in text and "转班手续费 100 元" not in text, text
    # a count of transfers is read: the total is computed
    text = compute_answer("我这期打算一共转三次班 第一次在开课后第二节课就转 三次加起来手续费多少")
    assert "0 + 200 = 200 元" in text, text


def test_weeks_attended_decide_the_free_transfer_window_as_lessons_do():
    # 3 weeks × 2 lessons = 6 > the 4-lesson window: not free (was stated 免费 from the weeks left unread)
    text = compute_answer("三级上了三周了，第一次申请换时段，要收转班费吗？多少钱")
    assert "已上课时 = 3 周 × 2 课时 = 6" in text and "超过了 4 课时" in text and "免费[" not in text, text
    text = compute_answer("三级上了一周，第一次换时段，要钱吗")  # 2 lessons: within the window
    assert "转班手续费免费" in text, text


@pytest.mark.parametrize(("question", "told"), [
    # a level named by its price: the documents' tuition of exactly one level
    ("我报的是4200那一档的，原价，上了4节课，想退，能退多少", "可退 2992.5 元"),
    ("3600那个级别想换到5600那个级别 学费差多少", "四级 5600 − 一级 3600 = 2000 元，需补 2000 元"),
])
def test_a_level_named_by_its_price_is_that_level(question, told):
    assert told in compute_answer(question)


def test_an_amount_that_is_no_levels_price_names_no_level():
    # 4100 is no level's tuition: no level is guessed (every level has 16 lessons, so the amount paid is enough)
    text = compute_answer("我交的是4100那一档的课 上了4节 能退多少")
    assert "可退 2921.25 元" in text and not any(name in text for name in ("入门级", "进阶级", "流利级", "商务级"))


def test_a_week_before_the_start_is_before_the_start():
    text = compute_answer("二级4200报的 离开课还有一周 想退 能退多少")
    assert "可退 4200 元" in text and "已上课时" not in text


@pytest.mark.parametrize(("question", "told"), [
    # a transfer told as not charged is one made; the one asked comes after it
    ("第一次换时段没收钱 现在又想换到周末 这次多少钱", "你这是第 2 次转班：转班手续费 100 元"),
    # the same words asked, not told: the first transfer
    ("第一次转班没收钱吧？", "你这是第一次转班：转班手续费免费"),
])
def test_a_transfer_told_as_not_charged_is_a_past_one_unless_asked(question, told):
    assert told in compute_answer(question), compute_answer(question)


def test_an_amount_before_a_bare_course_word_is_no_lesson_count():
    # 「5600 课上了…」: no level has a hundred lessons; the 课 begins the next words, and 快一半 is no count
    text = compute_answer("商务级5600 课上了快一半了 能退多少")
    assert "已上 5600" not in text and "还需要知道：已上课时" in text


def test_the_nth_week_is_no_count_of_weeks_attended():
    text = compute_answer("入门级3600 开课第三周了 想退 退多少")
    assert "3 周 ×" not in text and "还需要知道：已上课时" in text
    assert "已上课时 = 3 周 × 2 课时 = 6" in compute_answer("入门级3600 上了三周了 想退 退多少")


@pytest.mark.parametrize(("question", "told"), [
    ("二级4200 上了5节 上周又上了2节 一共能退多少", "已上课时 = 5 + 2 = 7，剩余课时 = 16 − 7 = 9"),
    ("二级4200 上了6节课 算下来6节 能退多少", "剩余课时 = 16 − 6 = 10"),  # the same count twice
])
def test_lessons_told_as_more_add_up(question, told):
    assert told in compute_answer(question)


def test_two_different_lesson_counts_are_asked_for_not_guessed():
    text = compute_answer("二级4200 上了5节 后来请假 其实只上了4节 能退多少")
    assert "还需要知道：已上课时" in text and "剩余课时 =" not in text


def test_the_level_refunded_is_the_one_in_the_clause_that_asks_the_refund():
    text = compute_answer("我报了两个级别 都是原价 二级和四级 想把四级退了 还没开课 能退多少")
    assert "可退 5600 元" in text and "4200" not in text
