"""The documents' rules for a student's own case, read from the cited references, and worked out step by step.

Nothing here knows the school's numbers: the refund formula (「可退金额 = 实付学费 ×（剩余课时 ÷ 总课时）− 手续费」),
the fee rule (「手续费为 … 的 5%，单笔最低 50 元」), the lessons of a level (「每一级都是 16 课时」) and of a week
(「每周上 2 课时」), the fee table (「进阶级（二级）：4200 元」), the textbook fee (「教材费每级 280 元」), the over-half stop (「超过总课时的一半（即超过 8 课时）后，不再受理退费」), the
before-start rule (「开课前…全额退还」), the transfer rules (「4 课时内…免费转班一次」「从第二次…每次收取 100 元」)
and the level difference (「按两个级别的学费差价多退少补」) are found in the reference texts by their words, and
their figures are read there. Values are worked out by core.checks.arithmetic's parser on the formula with the
student's figures put in (never eval). A rule the references do not state is never assumed: the step is left out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.checks.arithmetic import evaluate, tokenize
from core.checks.figures import extract_figures, format_number
from core.checks.question_figures import LESSONS, MONEY, RATE, TOTAL, classify

_SENTENCE_RE = re.compile(r"[^。！？；\n]+")
_LABEL_RE = re.compile(r"^\s*[问答][:：]\s*")
# A FAQ answer's own yes/no (「不能，教材费不在退费范围内」) is not part of the rule.
_YES_NO_RE = re.compile(r"^(?:可以|不可以|不能|能|不会|会|一样|不包含|是的|是|不是)[，,]\s*")
_FORMULA_RE = re.compile(r"^\s*(?P<name>[\u4e00-\u9fff]*退[\u4e00-\u9fff]*)\s*=\s*(?P<expr>.*[\u4e00-\u9fff].*)$")
_FEE_RE = re.compile(r"(?P<name>[\u4e00-\u9fff]{0,4}手续费)\s*为\s*(?P<expr>.+?)\s*的\s*(?P<pct>\d+(?:\.\d+)?)\s*%"
                     r"(?:.*?最低\s*(?P<min>\d+(?:\.\d+)?)\s*元)?")
# The formula's words for the student's figures.
PAID_WORDS = ("实付学费", "实付金额", "实付", "学费")
REMAINING_WORDS = ("剩余课时", "未上课时", "剩下的课时")
TOTAL_WORDS = ("总课时",)
TAKEN_WORDS = ("已上课时",)


@dataclass(frozen=True)
class Rule:
    """One rule sentence, with the reference number that states it."""

    number: int
    text: str


@dataclass(frozen=True)
class RuleBook:
    """What the references state for computing a student's case (None / empty: not stated)."""

    formula: Rule | None = None  # 可退金额 = 实付学费 ×（剩余课时 ÷ 总课时）− 手续费
    formula_name: str = ""
    formula_expr: str = ""
    fee: Rule | None = None  # 手续费为 实付学费 ×（剩余课时 ÷ 总课时）的 5%，单笔最低 50 元
    fee_name: str = ""
    fee_expr: str = ""
    fee_rate: float | None = None
    fee_minimum: float | None = None
    total: tuple[Rule, float] | None = None  # 每一级都是 16 课时
    fees: tuple[tuple[int, float, Rule], ...] = ()  # (level, tuition, rule)
    over_half: tuple[Rule, float] | None = None  # the stop, with its lesson threshold
    before_start: Rule | None = None
    textbook: Rule | None = None
    textbook_fee: tuple[Rule, float] | None = None  # 教材费每级 280 元
    weekly: tuple[Rule, float] | None = None  # 每周上 2 课时
    free_transfer: tuple[Rule, float] | None = None  # the free first transfer, with its lesson window
    transfer_fee: tuple[Rule, int, float] | None = None  # from which transfer on, how much each time
    level_difference: Rule | None = None

    def tuition(self, level: int | None) -> tuple[float, Rule] | None:
        return next(((fee, rule) for lv, fee, rule in self.fees if lv == level), None)


def _sentences(references: Sequence[tuple[int, str]]) -> list[Rule]:
    out = []
    for number, text in references:
        for line in text.splitlines():
            if line.lstrip().startswith("问"):
                continue
            body = _YES_NO_RE.sub("", _LABEL_RE.sub("", line).strip())
            out.extend(Rule(number, piece.strip()) for piece in _SENTENCE_RE.findall(body) if piece.strip())
    return out


def _clauses(references: Sequence[tuple[int, str]]) -> list[Rule]:
    """Whole lines (a fee rule and its minimum sit in one line, across a comma)."""
    out = []
    for number, text in references:
        for line in text.splitlines():
            if line.strip() and not line.lstrip().startswith("问"):
                out.append(Rule(number, _YES_NO_RE.sub("", _LABEL_RE.sub("", line).strip()).rstrip("。")))
    return out


def _lesson_figure(text: str, after: str) -> float | None:
    """The lesson count written after `after` in `text` (「即超过 8 课时」, 「4 课时内」)."""
    index = text.find(after)
    if index < 0:
        return None
    for figure in extract_figures(text[index:]):
        if figure.text.rstrip().endswith("课时"):
            return figure.value
    return None


def read_rules(references: Sequence[tuple[int, str]]) -> RuleBook:
    """The rules the numbered references state (first statement of each wins)."""
    found: dict[str, object] = {}
    for rule in _clauses(references):
        match = _FORMULA_RE.match(rule.text)
        if match and "formula" not in found and "×" in match.group("expr") + "÷":
            found.update(formula=rule, formula_name=match.group("name"), formula_expr=match.group("expr").strip())
        fee = _FEE_RE.search(rule.text)
        if fee and "fee" not in found:
            found.update(fee=rule, fee_name=fee.group("name"), fee_expr=fee.group("expr").strip(),
                         fee_rate=float(fee.group("pct")) / 100,
                         fee_minimum=float(fee.group("min")) if fee.group("min") else None)
    fees: list[tuple[int, float, Rule]] = []
    for rule in _clauses(references):
        kinded = [k for k in (classify(rule.text, f) for f in extract_figures(rule.text)) if k]
        levels = [k for k in kinded if k.kind == "level"]
        money = [k for k in kinded if k.kind == MONEY]
        if len(levels) == 1 and len(money) == 1 and not re.search(r"差价|教材", rule.text):
            if all(lv != int(levels[0].figure.value) for lv, _, _ in fees):
                fees.append((int(levels[0].figure.value), money[0].figure.value, rule))
        totals = [k for k in kinded if k.kind == LESSONS and k.role == TOTAL]
        if totals and "total" not in found and re.search(r"每一?级", rule.text):
            found["total"] = (rule, totals[0].figure.value)
        rates = [k for k in kinded if k.kind == LESSONS and k.role == RATE]
        if rates and "weekly" not in found:
            found["weekly"] = (rule, rates[0].figure.value)
    for rule in _sentences(references):
        text = rule.text
        if "over_half" not in found and "一半" in text and re.search(r"不再受理|不予|不能退|不退", text):
            threshold = _lesson_figure(text, "一半")
            if threshold is not None:
                found["over_half"] = (rule, threshold)
        if "before_start" not in found and "开课前" in text and "全额退" in text:
            found["before_start"] = rule
        if "textbook" not in found and "教材费" in text and re.search(r"不在退费范围|不予退|不退", text):
            found["textbook"] = rule
        if "textbook_fee" not in found and "教材费" in text and not re.search(r"退|差价", text):
            amount = next((f for f in extract_figures(text) if f.text.rstrip().endswith("元")), None)
            if amount is not None:
                found["textbook_fee"] = (rule, amount.value)
        if "free_transfer" not in found and "免费" in text and "转班" in text:
            window = _lesson_figure(text, "")
            if window is not None:
                found["free_transfer"] = (rule, window)
        if "transfer_fee" not in found and "转班" in text and "每次" in text:
            ordinal = next((f for f in extract_figures(text) if f.text.startswith("第")), None)
            money = next((f for f in extract_figures(text) if f.text.rstrip().endswith("元")), None)
            if ordinal and money:
                found["transfer_fee"] = (rule, int(ordinal.value), money.value)
        if "level_difference" not in found and "差价" in text and "级别" in text:
            found["level_difference"] = rule
    return RuleBook(fees=tuple(fees), **found)  # type: ignore[arg-type]


def substitute(expr: str, values: dict[str, float]) -> str:
    """The formula's words replaced by the student's figures, longest word first: 「4200 ×（10 ÷ 16）」."""
    out = expr
    for word in sorted(values, key=len, reverse=True):
        out = out.replace(word, format_number(values[word]))
    return out


def value_of(expr: str) -> float | None:
    """The value of an arithmetic expression (core.checks.arithmetic's parser), or None when words remain."""
    result = evaluate(tokenize(expr))
    return None if result is None else result[0]


def variables(book: RuleBook, paid: float, remaining: float, total: float, taken: float) -> dict[str, float]:
    """The formula's words that name the student's figures, with their values."""
    words = " ".join((book.formula_expr, book.fee_expr))
    out: dict[str, float] = {}
    for names, value in ((PAID_WORDS, paid), (REMAINING_WORDS, remaining), (TOTAL_WORDS, total),
                         (TAKEN_WORDS, taken)):
        for name in names:
            if name in words:
                out[name] = value
                break
    return out
