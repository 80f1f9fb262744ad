"""Grounding: figures traced to the cited references, sums re-computed, uncited claims caught."""

from __future__ import annotations

import builtins
import random

import pytest
from langchain_core.documents import Document

from bench.grounding_quality import CASES_CSV, load_cases, predicted_codes, select_chunk
from core.checks.arithmetic import find_equations
from core.checks.grounding import (
    BAD_ARITHMETIC,
    UNCITED_CLAIM,
    UNSUPPORTED_NUMBER,
    check_grounding,
    cited_numbers,
    split_sentences,
)
from core.corpus.loader import load_documents
from core.language.figures import extract_figures, parse_chinese_numeral
from core.settings import REFUSAL_TEXT
from tests.paths import ROOT

CHUNKS = load_documents(ROOT / "corpus")

LEVELS = select_chunk("01#一共分为四级", CHUNKS)
SCHEDULE = select_chunk("01#每周上 2 课时", CHUNKS)
TUITION = select_chunk("01#4200", CHUNKS)
REFUND_RULES = select_chunk("02#开课前申请退费的", CHUNKS)
REFUND_EXAMPLE = select_chunk("02#示例", CHUNKS)
SERVICE_HOURS = select_chunk("03#人工服务时间为每天", CHUNKS)

Q3 = "我报了口语课三级，学费 4800，上了 4 课时不想学了，能退多少钱？"
SEED_REFUND = "可退金额 = 4800 × 12 ÷ 16 − 4800 × 12 ÷ 16 × 5% = 3420 元[1]"
SEED_ANSWER_3 = ("口语课三级单报学费 4800 元[2]。退费按剩余课时算：可退金额 = 实付学费 ×（剩余课时 ÷ 总课时）− 手续费[1]，"
                 "手续费为可退金额的 5%，单笔最低 50 元[1]。你上了 4 课时、总课时 16，"
                 f"{SEED_REFUND}。教材费每级 280 元，不退[2]。")


def _doc(text: str) -> Document:
    return Document(page_content=text, metadata={"source": "test.md", "heading": "", "chunk": 0})


def _codes(text: str, hits, question: str = "") -> list[str]:
    return [p.code for p in check_grounding(text, hits, question).problems]


def _flagged_texts(text: str, hits, question: str = "") -> list[str]:
    return [text[p.span[0]:p.span[1]] for p in check_grounding(text, hits, question).problems]


# --- the seed's three questions -------------------------------------------------------------

@pytest.mark.parametrize(("answer", "hits", "question"), [
    ("口语课一共分为四级：入门级、进阶级、流利级、商务级[1]。每一级 16 课时，每课时 45 分钟，八周结课[2]。",
     [LEVELS, SCHEDULE], "启明英语的口语课一共有几级？"),
    (REFUSAL_TEXT, [], "你们的雅思保过班多少钱？"),
    (SEED_ANSWER_3, [REFUND_EXAMPLE, TUITION], Q3),
], ids=["levels", "refusal", "refund"])
def test_check_grounding_passes_seed_correct_answers(answer, hits, question):
    report = check_grounding(answer, hits, question)
    assert report.problems == ()
    assert report.ok


def test_check_grounding_flags_both_invented_figures_of_the_seed():
    text = "口语课一共六级，每级 12 课时[1]"
    report = check_grounding(text, [LEVELS], "启明英语的口语课一共有几级？")
    assert [p.code for p in report.problems] == [UNSUPPORTED_NUMBER, UNSUPPORTED_NUMBER]
    assert [text[s:e] for s, e in sorted({p.span for p in report.problems if p.span})] == ["六级", "12 课时"]
    assert report.problems[0].message == "“六级”中的数字 6 在所引资料 [1] 中找不到"


def test_check_grounding_flags_invented_refund_percentage():
    text = "开课后申请退费的，超过按剩余课时的 80% 退[1]"
    assert _flagged_texts(text, [REFUND_RULES]) == ["80%"]


def test_check_grounding_flags_wrong_refund_result_with_correct_value():
    text = SEED_REFUND.replace("= 3420 元", "= 3400 元")
    report = check_grounding(text, [REFUND_EXAMPLE], Q3)
    assert [p.code for p in report.problems] == [BAD_ARITHMETIC]
    assert report.problems[0].message == "算式 4800 × 12 ÷ 16 − … 的结果应为 3420，回答写的是 3400"
    assert text[slice(*report.problems[0].span)] == "3400"


# --- what counts as "appears" --------------------------------------------------------------

@pytest.mark.parametrize(("text", "hits", "question", "flagged"), [
    ("二级学费 4200 元[2]。", [LEVELS, TUITION], "", []),
    ("二级学费 4200 元[1]。", [LEVELS, TUITION], "", ["4200 元"]),  # in [2], but the sentence cites [1]
    ("你上了 4 课时，还剩 12 课时[1]。", [REFUND_EXAMPLE], "上了 4 课时", []),
    ("你上了 5 课时[1]。", [SCHEDULE], "上了 4 课时", ["5 课时"]),
    ("人工服务时间为每天 9:00–21:00[1]。", [SERVICE_HOURS], "", []),
    ("人工服务时间为每天 9:00–22:00[1]。", [SERVICE_HOURS], "", ["22:00"]),
    ("口语课一共六级[7]。", [LEVELS], "", ["六级"]),  # [7] does not exist: nothing can support the figure
], ids=["cited-ref", "other-ref-only", "question", "question-other-value", "time", "wrong-time", "missing-ref"])
def test_check_grounding_traces_figures_to_cited_refs_or_question(text, hits, question, flagged):
    assert _flagged_texts(text, hits, question) == flagged


@pytest.mark.parametrize(("answer", "reference", "ok"), [
    ("口语课一共 4 级[1]。", "口语课一共四级。", True),
    ("口语课一共四级[1]。", "口语课一共 4 级。", True),
    ("每级十六课时[1]。", "每级 16 课时。", True),
    ("每级 16 课时[1]。", "每级十六课时。", True),
    ("手续费是百分之五[1]。", "手续费为 5%。", True),
    ("手续费是 5%[1]。", "手续费为百分之五。", True),
    ("预算 1.5万 元[1]。", "预算 15000 元。", True),
    ("预算 15000 元[1]。", "预算 1.5万元。", True),
    ("学费 3千 元[1]。", "学费 3000 元。", True),
    ("两个级别的差价[1]。", "2 个级别的差价。", True),
    ("口语课一共五级[1]。", "口语课一共四级。", False),
    ("手续费是百分之八[1]。", "手续费为 5%。", False),
])
def test_check_grounding_matches_chinese_and_arabic_numerals(answer, reference, ok):
    assert check_grounding(answer, [_doc(reference)], "").ok is ok


def test_check_grounding_flags_only_the_wrong_figure_among_five():
    text = "每级 16 课时，每课时 45 分钟，每周上 2 课时，八周结课，每班不超过 10 人[1]。"
    assert _flagged_texts(text, [SCHEDULE]) == ["10 人"]


def test_check_grounding_accepts_figure_settled_earlier_in_the_answer():
    # Worked by hand: 4200 × 14 ÷ 16 = 3675; 3675 × 5% = 183.75; 3675 − 183.75 = 3491.25.
    text = ("二级学费 4200 元[2]。上了 2 课时后退费，"
            "可退 4200 ×（16 − 2）÷ 16 − 4200 ×（16 − 2）÷ 16 × 5% = 3491.25 元[1]。")
    assert check_grounding(text, [REFUND_EXAMPLE, TUITION], "二级上了 2 课时想退，能退多少？").ok


# --- arithmetic ------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "flagged"), [
    ("4800 × 12 ÷ 16 = 3600 元，手续费 3600 × 5% = 180 元，可退 3600 − 180 = 3420 元[1]。", []),
    # 3420 = 3600 − 180 would be one step from figures the answer shows; without 180 it is not.
    ("4800 × 12 ÷ 16 = 3600 元，可退 3420 元[1]。", ["3420 元"]),
    ("4800 × 12 ÷ 16 = 3600 元，手续费 3600 × 5% = 170 元[1]。", ["170"]),
    ("手续费 = 4800 × 12 ÷ 16 × 5% = 3600 × 5% = 180 元[1]。", []),
    ("手续费 = 4800 × 12 ÷ 16 × 5% = 3600 × 5% = 190 元[1]。", ["190"]),
    ("手续费 = 4800 × 12 ÷ 16 × 5% = 4800 × 5%[1]。", ["4800 × 5%"]),
    ("（4800 元 − 3600 元）÷ 16 = 75 元[1]。", []),
    ("(4800 - 3600) / 16 = 70 元[1]。", ["70"]),
    ("4800 * 12 / 16 ＝ 3600 元[1]。", []),
    ("4800 ×（16 − 4）÷ 16 ×（1 − 5%）= 3420 元[1]。", []),
    ("4800 元 ÷ 16 课时 = 300 元/课时[1]。", []),
    ("4800 元 ÷ 16 课时 = 330 元/课时[1]。", ["330"]),
], ids=["corpus-example", "result-in-words-needs-a-source", "wrong-fee", "chain", "chain-last-wrong", "two-calculations", "full-width",
        "ascii-wrong", "ascii-full-width-equals",
        "constant-one-needs-no-source", "rate", "wrong-rate"])
def test_check_grounding_recomputes_equalities(text, flagged):
    hits = [_doc("实付 4800 元，上了 4 课时，剩 12 课时，共 16 课时，3600 元，5%")]
    assert _flagged_texts(text, hits) == flagged


@pytest.mark.parametrize("text", [
    "可退金额 = 实付学费 ×（剩余课时 ÷ 总课时）− 手续费[1]。",
    "手续费 = 实付学费 × 5%，单笔最低 50 元[1]。",
    "剩余学费 = 学费 − 4 = 剩余课时 × 单价[1]。",
    "可退金额 = 实付学费 ×（剩余课时 ÷ 总课时[1]。",
])
def test_find_equations_treats_worded_formulas_as_symbolic(text):
    assert all(s is None or not s.computed for eq in find_equations(text) for s in eq.sides)
    assert _codes(text, [REFUND_EXAMPLE]) == []


def test_find_equations_reads_percent_as_a_fraction():
    (equation,) = find_equations("3600 × 5% = 180")
    assert [side.value for side in equation.numeric] == [180.0, 180.0]


def test_check_grounding_never_evaluates_python(monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("eval/exec must not be used")

    monkeypatch.setattr(builtins, "eval", forbidden)
    monkeypatch.setattr(builtins, "exec", forbidden)
    text = "__import__('os').system('echo hacked') = 7[1]。4800 × 12 ÷ 16 = 3500 元[1]。"
    report = check_grounding(text, [REFUND_EXAMPLE], "")
    assert [p.code for p in report.problems] == [UNSUPPORTED_NUMBER, BAD_ARITHMETIC]


# --- uncited claims -------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "codes"), [
    ("口语课一共分为四级。", [UNCITED_CLAIM]),
    ("开课前申请退费，学费全额退还。", [UNCITED_CLAIM]),
    ("二级学费 4200 元[2]。从第二次起转班每次收 100 元。", [UNCITED_CLAIM]),
    (REFUSAL_TEXT, []),
    ("好的，明白了。", []),
    ("口语课一共分为四级[1]。希望对你有帮助！", []),
], ids=["figure", "policy-word", "second-sentence", "refusal", "connective", "closing"])
def test_check_grounding_flags_uncited_claims(text, codes):
    assert _codes(text, [LEVELS, TUITION]) == codes


def test_check_grounding_names_the_uncited_sentence():
    text = "二级学费 4200 元[1]。从第二次起转班每次收 100 元。"
    (problem,) = check_grounding(text, [TUITION], "").problems
    assert text[slice(*problem.span)] == "从第二次起转班每次收 100 元。"
    assert "“100 元”" in problem.message and "转班" in problem.message


# --- sentences and markers ------------------------------------------------------------------

@pytest.mark.parametrize(("text", "sentences", "cited"), [
    ("口语课一共四级。[1]", ["口语课一共四级。[1]"], [(1,)]),
    ("口语课一共四级[1]。", ["口语课一共四级[1]。"], [(1,)]),
    ("一共四级[1]。每级 16 课时[2]！", ["一共四级[1]。", "每级 16 课时[2]！"], [(1,), (2,)]),
    ("学费 4200 元[1][2]；教材费 280 元[2]", ["学费 4200 元[1][2]；", "教材费 280 元[2]"], [(1, 2), (2,)]),
    ("一级\n二级 [1,2]", ["一级", "二级 [1,2]"], [(), (1, 2)]),
])
def test_split_sentences_keeps_trailing_markers(text, sentences, cited):
    spans = split_sentences(text)
    assert [text[s:e] for s, e in spans] == sentences
    assert [cited_numbers(text[s:e]) for s, e in spans] == cited


# --- numeral reading --------------------------------------------------------------------------

@pytest.mark.parametrize(("run", "value"), [
    ("四", 4), ("十", 10), ("十二", 12), ("二十", 20), ("二十五", 25), ("两", 2), ("一百", 100),
    ("一百零五", 105), ("两千", 2000), ("三千五", 3500), ("一万二", 12000), ("四千八百", 4800),
    ("三千万", 30_000_000), ("一亿二千万", 120_000_000), ("二〇二四", 2024), ("零", 0), ("肆", 4),
    ("万", None), ("千", None), ("四级", None),
])
def test_parse_chinese_numeral_reads_runs(run, value):
    assert parse_chinese_numeral(run) == value


@pytest.mark.parametrize(("text", "values"), [
    ("3600 元", [3600]), ("4,800 元", [4800]), ("1.5万", [15000]), ("1.5 万元", [15000]), ("3千", [3000]), ("5%", [5]),
    ("５％", [5]), ("百分之五", [5]), ("百分之十五", [15]), ("三分之一", [1 / 3]), ("45 分钟", [45]),
    ("八周", [8]), ("9:30", [9.5]), ("9:00–21:00", [9, 21]), ("三级", [3]), ("第二次", [2]),
    ("一次", [1]), ("十分钟", [10]), ("四个级别", [4]), ("两三天", [2, 3]), ("二〇二四年", [2024]),
    ("一共", []), ("一样", []), ("每一级", []), ("十分重要", []), ("万一", []), ("千万别", []),
    ("零基础", []), ("统一回复", []), ("贵一点", []), ("[1]", []), ("1. 一级", [1]),
])
def test_extract_figures_normalises_values(text, values):
    assert [f.value for f in extract_figures(text)] == pytest.approx(values)


def test_extract_figures_marks_percentages():
    assert [(f.text, f.percent, f.amount) for f in extract_figures("百分之五和 5% 和 5 天")] == [
        ("百分之五", True, 0.05), ("5%", True, 0.05), ("5 天", False, 5)]


# --- the shipped corpus and the planted-error set -------------------------------------------

@pytest.mark.parametrize("chunk", CHUNKS, ids=[f"{c.metadata['source'][:2]}-{c.metadata['chunk']}" for c in CHUNKS])
def test_check_grounding_has_no_false_alarm_on_corpus_sentences(chunk):
    text = chunk.page_content
    for start, end in split_sentences(text):
        sentence = text[start:end] + "[1]"
        assert check_grounding(sentence, [chunk], "").problems == (), sentence


CASES = load_cases(CASES_CSV, CHUNKS)


def test_grounding_answers_csv_covers_every_code():
    planted = [c for c in CASES if c.expected]
    assert len(CASES) >= 40 and len(planted) * 2 >= len(CASES) - 10
    assert all(len(c.expected) == 1 for c in planted)
    for code in (UNSUPPORTED_NUMBER, BAD_ARITHMETIC, UNCITED_CLAIM):
        assert sum(code in c.expected for c in planted) >= 5, code


@pytest.mark.parametrize("case", CASES, ids=[f"row{i + 2}" for i in range(len(CASES))])
def test_check_grounding_matches_expected_codes_on_answer_set(case):
    assert predicted_codes(case) == case.expected, case.answer


# --- robustness ------------------------------------------------------------------------------

FUZZ_ALPHABET = list("0123456789一二两三四五六七八九十百千万亿零第级课时元%％=＝×*÷/+-−（）()[]。！？；\n，、：:.,  退费转班学籍abc")


def test_check_grounding_never_raises_on_random_text():
    rng = random.Random(7)
    for _ in range(400):
        text = "".join(rng.choice(FUZZ_ALPHABET) for _ in range(rng.randint(0, 120)))
        question = "".join(rng.choice(FUZZ_ALPHABET) for _ in range(rng.randint(0, 20)))
        report = check_grounding(text, [_doc(text[::-1]), LEVELS], question)
        assert all(0 <= s <= e <= len(text) for s, e in sorted({p.span for p in report.problems if p.span}))


@pytest.mark.parametrize("text", [
    "", "   ", "[", "[1", "=", "==", "= = =", "(" * 500 + "1" + ")" * 500 + " = 1",
    "9" * 400 + " × 10 = 1", "1 ÷ 0 = 5[1]", "−−−−5 = 5[1]", "5%%% = 0.05", "１２ ＝ 12",
])
def test_check_grounding_survives_odd_text(text):
    assert isinstance(check_grounding(text, [LEVELS], "").problems, tuple)
