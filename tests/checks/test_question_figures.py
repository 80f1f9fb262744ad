"""question_mismatch: an answer that works out another student's case is caught; derived figures are explained."""

from __future__ import annotations

import pytest

from bench.grounding_quality import QUESTION_CASES_CSV, load_cases, predicted_codes, select_chunk
from core.checks.grounding import BAD_ARITHMETIC, QUESTION_MISMATCH, UNSUPPORTED_NUMBER, check_grounding
from core.checks.question_figures import LESSONS, LEVEL, MONEY, ORDINAL, WEEKS, question_figures
from core.corpus.loader import load_documents
from core.values import Problem
from tests.paths import ROOT

CHUNKS = load_documents(ROOT / "corpus")
EXAMPLE = select_chunk("02#示例", CHUNKS)
TUITION = select_chunk("01#4200", CHUNKS)
ASKED = "我报的二级 交了4200 上了6节课 现在退能退多少"
REUSED = "剩余 12 课时，4800 × 12 ÷ 16 = 3600 元，手续费 3600 × 5% = 180 元，可退 3420 元[1]。"
# Worked by hand: 16 − 6 = 10; 4200 × 10 ÷ 16 = 2625; 2625 × 5% = 131.25; 2625 − 131.25 = 2493.75.
OWN = "上了 6 课时还剩 10 课时：4200 × 10 ÷ 16 = 2625 元，手续费 2625 × 5% = 131.25 元，可退 2625 − 131.25 = 2493.75 元[1]。"


def _codes(answer: str, question: str = ASKED, hits=(EXAMPLE,)) -> set[str]:
    return {p.code for p in check_grounding(answer, list(hits), question).problems}


def test_question_mismatch_names_both_sets_of_figures():
    problems = check_grounding(REUSED, [EXAMPLE], ASKED).problems
    assert [p.code for p in problems] == [QUESTION_MISMATCH]
    assert problems[0].compare == (("金额", "4200 元", "4800 元、3420 元"), ("课时", "6 课时", "12 课时"))
    assert "4200 元" in problems[0].message and "4800 元" in problems[0].message
    start, end = problems[0].span
    assert REUSED[start:end] == "12 课时"


def test_question_mismatch_passes_the_students_own_computation_and_explains_the_derived_figure():
    report = check_grounding(OWN, [EXAMPLE], ASKED)
    assert report.ok
    assert report.verdicts[0].derivations == ("10 = 16 − 6",)


def test_derived_figure_without_its_operands_stays_unsupported():
    # 10 = 16 − 6 only when 16 (or the cited rule) is there to show it: a bare 10 from a chunk with
    # no formula and no 16 is not explained.
    hits = [select_chunk("02#监护人", CHUNKS)]
    assert _codes("你还剩 10 课时可以上[1]。", hits=hits) == {UNSUPPORTED_NUMBER}


def test_question_mismatch_leaves_an_arithmetic_slip_to_bad_arithmetic():
    slip = OWN.replace("= 2493.75", "= 2439.75")
    assert _codes(slip) == {BAD_ARITHMETIC}


@pytest.mark.parametrize("answer", [
    "已上课时超过 8 课时后，不再受理退费[1]。",
    "可退金额 = 实付学费 ×（剩余课时 ÷ 总课时）− 手续费[1]。",
    "示例：学员实付 4800 元报读三级（总课时 16），上了 4 课时后申请退费，" + REUSED,
], ids=["rule-restated", "formula-only", "labelled-example"])
def test_question_mismatch_ignores_answers_without_a_worked_result_for_the_student(answer):
    assert QUESTION_MISMATCH not in _codes(answer)


def test_question_mismatch_needs_figures_in_the_question():
    assert _codes(REUSED, question="退费能退多少？") == set()


def test_question_mismatch_reads_a_level_as_its_fee():
    answer = "三级 4800 − 二级 4200 = 600 元，需补 600 元[1]。"
    assert _codes(answer, question="我从一级转到四级，要补多少钱", hits=(TUITION,)) == {QUESTION_MISMATCH}
    assert _codes("四级 5600 − 一级 3600 = 2000 元[1]。", question="我从一级转到四级，要补多少钱",
                  hits=(TUITION,)) == set()


@pytest.mark.parametrize(("question", "expected"), [
    (ASKED, [(LEVEL, 2), (MONEY, 4200), (LESSONS, 6)]),
    ("我交了四千二，上了6次课", [(MONEY, 4200), (LESSONS, 6)]),
    ("孩子报了一级 交了3600 上了两节", [(LEVEL, 1), (MONEY, 3600), (LESSONS, 2)]),
    ("我是三级的，上了俩课时", [(LEVEL, 3), (LESSONS, 2)]),
    ("上了3周课了，二级的", [(WEEKS, 3), (LEVEL, 2)]),
    ("四级5600元上了三节课", [(LEVEL, 4), (MONEY, 5600), (LESSONS, 3)]),
    ("二级医院的证明可以吗", []),
    ("口语课一共有几级", []),
    ("一节课多长时间", []),  # "a lesson" as the unit, not a lesson the student took
    ("一节课都没上 能全退吗", []),
    ("三级 上过一节课 退多少", [(LEVEL, 3), (LESSONS, 1)]),
    ("只上了1节课", [(LESSONS, 1)]),
])
def test_question_figures_reads_numerals_units_and_lesson_words(question, expected):
    assert [(k.kind, k.figure.value) for k in question_figures(question)] == expected


def test_problem_round_trips_its_side_by_side_rows():
    problem = check_grounding(REUSED, [EXAMPLE], ASKED).problems[0]
    assert Problem.from_dict(problem.to_dict()) == problem
    assert "compare" not in Problem("bad_ref", "x").to_dict()


QUESTION_CASES = load_cases(QUESTION_CASES_CSV, CHUNKS)


def test_question_cases_cover_reuse_correct_slip_and_restatement():
    assert len(QUESTION_CASES) >= 30
    assert sum(c.expected == {QUESTION_MISMATCH} for c in QUESTION_CASES) >= 10
    assert sum(not c.expected for c in QUESTION_CASES) >= 10
    assert sum(c.expected == {BAD_ARITHMETIC} for c in QUESTION_CASES) >= 3


@pytest.mark.parametrize("case", QUESTION_CASES, ids=[f"row{i + 2}" for i in range(len(QUESTION_CASES))])
def test_check_grounding_matches_expected_codes_on_question_cases(case):
    assert predicted_codes(case) == case.expected, case.answer


# --- Chinese numerals, both directions (#34) ---------------------------------------------------------

TWO_LESSONS = "我报的二级 交了四千二 上了两节课 现在退能退多少"
# Worked by hand: 16 − 2 = 14; 4200 × 14 ÷ 16 = 3675; 3675 × 5% = 183.75; 3675 − 183.75 = 3491.25.
OWN_TWO = "剩余 14 课时，4200 × 14 ÷ 16 = 3675 元，手续费 3675 × 5% = 183.75 元，可退 3675 − 183.75 = 3491.25 元[1]。"


def test_a_remainder_derived_from_chinese_numeral_lessons_is_not_flagged():
    report = check_grounding(OWN_TWO, [EXAMPLE], TWO_LESSONS)
    assert report.ok, report.problems
    assert "14 = 16 − 2" in report.verdicts[0].derivations


@pytest.mark.parametrize("question", ["三级交了四千八 上了六个课时 能退多少", "三级交了4800 上了六节课 能退多少",
                                      "我三级的 交了四千八百元 上了6个课时 退多少"])
def test_the_worked_example_reused_for_a_chinese_numeral_question_is_flagged(question):
    assert QUESTION_MISMATCH in _codes(REUSED, question=question)


@pytest.mark.parametrize(("question", "expected"), [
    ("三级上了六个课时了能退多少", [(LEVEL, 3), (LESSONS, 6)]),
    ("一级三千六百元，上了一半了还能退吗", [(LEVEL, 1), (MONEY, 3600), (LESSONS, 0.5)]),
    ("这是第二次转班了 要钱吗", [(ORDINAL, 2)]),
    ("交了四千二 上了两节课", [(MONEY, 4200), (LESSONS, 2)]),
])
def test_question_figures_read_chinese_numerals(question, expected):
    assert [(k.kind, k.figure.value) for k in question_figures(question)] == expected


def test_half_the_lessons_allows_half_the_total():
    # 「上了一半」 of 16 is 8 taken, 8 left: an answer computing with 8 is this student's case.
    own = "剩余 8 课时，4800 × 8 ÷ 16 = 2400 元，手续费 2400 × 5% = 120 元，可退 2400 − 120 = 2280 元[1]。"
    assert QUESTION_MISMATCH not in _codes(own, question="三级 四千八 上了一半了 能退多少")
    assert QUESTION_MISMATCH in _codes(REUSED, question="三级 四千八 上了一半了 能退多少")


def test_a_sum_of_a_rule_figure_and_the_students_is_no_derivation():
    from core.checks.derivation import derive
    from core.values import Figure

    eight = Figure("8 课时", (0, 4), 8.0, False)
    shown = {2.0: "2", 6.0: "6", 16.0: "16"}
    assert derive(eight, shown, sources={6.0}, supported={2.0}) is None  # 「8 = 2 + 6」: nobody added them
    assert derive(Figure("10", (0, 2), 10.0, False), shown, sources={6.0}, supported={16.0}) == "10 = 16 − 6"
    assert derive(eight, shown, sources={6.0, 2.0}, supported=set()) in ("8 = 6 + 2", "8 = 2 + 6")
