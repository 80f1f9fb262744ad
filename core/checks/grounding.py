"""Check that an answer's figures come from the references it cites, that its sums are right,
and that every sentence stating a figure or a policy cites something.

Four problem codes (Chinese names in docs/grounding.md):
  unsupported_number  a figure whose value is in none of the references cited in its sentence,
                      nor in the question, nor computed or already supported earlier in the answer,
                      nor one arithmetic step from those (core.checks.derivation: 「10 = 16 − 6」);
  bad_arithmetic      an equality whose sides differ by more than 0.01;
  uncited_claim       a sentence with a figure or a policy word and no [n] at all;
  question_mismatch   the question states its own figures (paid, level, lessons…) and the answer
                      works out a result with the references' figures instead (core.checks.question_figures).
"Appears" is value-based: 「四级」 in a reference supports 「4 个级别」; units are not compared.
Left out: whether the figure is used in the same sense as in the reference (5% vs 5 天).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from langchain_core.documents import Document

from core.checks.arithmetic import Equation, Mismatch, find_equations
from core.checks.derivation import derive, operands
from core.checks.question_figures import describe, find_mismatches
from core.language.citations import cited
from core.language.figures import CITATION_RE, extract_figures, format_number, value_keys
from core.language.text import normalize
from core.settings import REFUSAL_TEXT
from core.values import Figure, GroundingReport, Problem, SentenceVerdict
from core.values.facts import NO_FACTS, SchoolFacts

UNSUPPORTED_NUMBER = "unsupported_number"
BAD_ARITHMETIC = "bad_arithmetic"
UNCITED_CLAIM = "uncited_claim"
QUESTION_MISMATCH = "question_mismatch"

# Words that make a sentence a statement of school policy, longest first so the message names
# 「手续费」 rather than 「费」.
POLICY_WORDS = ("手续费", "转班", "学籍", "课时", "报名", "报读", "优惠", "折扣", "免费", "开课", "保留",
                "教材", "测试", "审核", "缴费", "退", "费", "级", "班")

_TERMINATORS = "。！？；!?;\n"
# After a sentence ends, closing quotes and citation markers still belong to it: 「…四级。[1]」.
_TRAILER_RE = re.compile(rf"(?:[ \t]*(?:[”’」』）)]|{CITATION_RE.pattern}))*")
_FORMULA_SHOWN = 16
# A rule written as a formula of words: 「实付学费 ×（剩余课时 ÷ 总课时）」.
_FORMULA_RE = re.compile(r"[\u4e00-\u9fff][ \t]*[×÷][ \t]*[（(]?[ \t]*[\u4e00-\u9fff]")






def split_sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans: cut after 。！？；and newlines, keeping trailing [n] with the sentence they close."""
    spans: list[tuple[int, int]] = []
    start = index = 0
    while index < len(text):
        if text[index] in _TERMINATORS:
            end = index + 1
            if text[index] != "\n":
                trailer = _TRAILER_RE.match(text, end)
                assert trailer is not None  # the pattern matches the empty string
                end = trailer.end()
            spans.append((start, end))
            start = index = end
        else:
            index += 1
    spans.append((start, len(text)))
    trimmed = []
    for begin, end in spans:
        piece = text[begin:end]
        lead, body = len(piece) - len(piece.lstrip()), piece.strip()
        if body:
            trimmed.append((begin + lead, begin + lead + len(body)))
    return trimmed


def cited_numbers(sentence: str) -> tuple[int, ...]:
    """Distinct citation numbers in a sentence, in order: 「[1][2]」 and 「[1,2]」 both give (1, 2)."""
    return tuple(cited(sentence))


def _figure_label(figure: Figure) -> str:
    return format_number(figure.value) + ("%" if figure.percent else "")


def _shorten(formula: str) -> str:
    return formula if len(formula) <= _FORMULA_SHOWN else formula[:_FORMULA_SHOWN].rstrip() + " …"


def _arithmetic_problem(mismatch: Mismatch) -> Problem:
    left, right = mismatch.left, mismatch.right
    if left.computed and right.computed:
        message = (f"算式 {_shorten(left.text)} 的结果是 {format_number(left.value)}，"
                   f"而 {_shorten(right.text)} 的结果是 {format_number(right.value)}，两边不相等")
        return Problem(BAD_ARITHMETIC, message, right.span)
    formula, stated = (left, right) if left.computed else (right, left)
    message = f"算式 {_shorten(formula.text)} 的结果应为 {format_number(formula.value)}，回答写的是 {stated.text}"
    return Problem(BAD_ARITHMETIC, message, stated.span)


def _policy_words(sentence: str) -> list[str]:
    found: list[str] = []
    for word in POLICY_WORDS:
        if word in sentence and not any(word in longer for longer in found):
            found.append(word)
    return found


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _is_constant(figure: Figure) -> bool:
    # The 1 of 「×（1 − 5%）」 and the 100% of 「100% − 5%」 are arithmetic, not school facts.
    return figure.amount == 1


def _is_refusal(sentence: str) -> bool:
    return normalize(CITATION_RE.sub("", sentence)) == normalize(REFUSAL_TEXT)


@dataclass
class _Context:
    """What the sentences of one answer share, in order: the question's values, results so far."""

    question_keys: frozenset[float]
    shown: dict[float, str]  # every figure the answer writes, as an operand for a derivation
    asked: dict[float, str]  # the question's figures, operands when a cited reference states the rule
    earlier: set[float]  # values settled so far: computed, derived or supported by a cited reference
    computed: set[float]  # values the answer computed or derived itself


def _check_sentence(text: str, span: tuple[int, int], figures: tuple[Figure, ...], hits: Sequence[Document],
                    context: _Context) -> SentenceVerdict:
    """The verdict for one sentence; adds the values it settles to `context` for the sentences after it."""
    sentence = text[span[0]:span[1]]
    cited = cited_numbers(sentence)
    equations: tuple[Equation, ...] = find_equations(sentence, offset=span[0])
    for equation in equations:
        results = {round(v, 6) for v in equation.results()}
        context.earlier.update(results)
        context.computed.update(results)
    stated = {side.span for eq in equations for side in eq.stated_results()}
    calculations = [side.span for eq in equations for side in eq.numeric if side.computed]
    problems = [_arithmetic_problem(m) for eq in equations for m in eq.mismatches()]

    # Figures the student gave, stated results (judged by the arithmetic check above) and values
    # already settled earlier in the answer need no reference of their own.
    claims = [f for f in figures
              if not any(_overlaps(f.span, s) for s in stated)
              and not (_is_constant(f) and any(_overlaps(f.span, c) for c in calculations))
              and not (f.keys & context.question_keys) and not (f.keys & context.earlier)]
    derivations: list[str] = []
    if not cited:
        words = _policy_words(CITATION_RE.sub("", sentence))
        if (claims or words) and not _is_refusal(sentence):
            parts = []
            if claims:
                parts.append("提到了数字 " + "、".join(f"“{f.text}”" for f in claims[:3]))
            if words:
                parts.append("涉及「" + "、".join(words[:3]) + "」")
            problems.append(Problem(UNCITED_CLAIM, "这句话" + "，".join(parts) + "，却没有标注出处编号", span))
    else:
        allowed: set[float] = set()
        for number in cited:
            if 1 <= number <= len(hits):
                allowed |= value_keys(hits[number - 1].page_content)
        checked = "".join(f"[{n}]" for n in cited)
        for figure in claims:
            if figure.keys & (allowed | context.earlier):
                context.earlier.update(figure.keys)
                continue
            sources = set(context.question_keys) | context.computed
            shown = context.shown
            if any(_FORMULA_RE.search(hits[n - 1].page_content) for n in cited if 1 <= n <= len(hits)):
                shown = {**context.asked, **shown}  # the cited rule relates the question's figures
            # Operands from the question, the answer's own results and the chunks this sentence cites.
            how = derive(figure, shown, sources, allowed)
            if how:
                derivations.append(how)
                context.earlier.update(figure.keys)
                context.computed.update(figure.keys)
            else:
                problems.append(Problem(
                    UNSUPPORTED_NUMBER,
                    f"“{figure.text}”中的数字 {_figure_label(figure)} 在所引资料 {checked} 中找不到",
                    figure.span))
    problems.sort(key=lambda p: p.span or (0, 0))
    return SentenceVerdict(sentence, span, cited, figures, tuple(problems), tuple(dict.fromkeys(derivations)))


def check_grounding(text: str, hits: Sequence[Document], question: str, facts: SchoolFacts = NO_FACTS) -> GroundingReport:
    """Check every sentence of `text` against the numbered references `hits` (hits[0] is [1]); `facts` (the school's,
    core.facts) name the levels the student's case is read with.

    Never raises on odd text; takes a few milliseconds for a normal answer.
    """
    text = text or ""
    question = question or ""
    all_figures = extract_figures(text)
    # Values settled so far: results of the answer's own sums, and figures a cited reference
    # supported. 「二级学费 4200 元[2]。可退 4200 × 14 ÷ 16 …[1]」 reuses 4200 without citing [2] again.
    context = _Context(question_keys=value_keys(question), shown=operands(all_figures),
                       asked=operands(extract_figures(question)), earlier=set(), computed=set())
    spans = split_sentences(text)
    verdicts = []
    for span in spans:
        figures = tuple(f for f in all_figures if span[0] <= f.span[0] and f.span[1] <= span[1])
        verdicts.append(_check_sentence(text, span, figures, hits, context))
    if not _is_refusal(text):
        verdicts = _add_mismatch(verdicts, text, spans, hits, question, facts)
    problems = tuple(p for v in verdicts for p in v.problems)
    return GroundingReport(verdicts=tuple(verdicts), problems=problems)


def _add_mismatch(verdicts: list[SentenceVerdict], text: str, spans: list[tuple[int, int]],
                  hits: Sequence[Document], question: str, facts: SchoolFacts) -> list[SentenceVerdict]:
    """The question_mismatch problem, if any, joins the verdict of the sentence holding its first figure."""
    mismatches = find_mismatches(text, spans, [h.page_content for h in hits], question, facts)
    if not mismatches:
        return verdicts
    message, rows = describe(mismatches)
    span = min((k.figure.span for m in mismatches for k in m.answer), default=None)
    problem = Problem(QUESTION_MISMATCH, message, span, compare=rows)
    out = list(verdicts)
    index = next((i for i, v in enumerate(out) if span and v.span[0] <= span[0] < v.span[1]), len(out) - 1)
    out[index] = replace(out[index], problems=tuple(sorted((*out[index].problems, problem),
                                                           key=lambda p: p.span or (0, 0))))
    return out
