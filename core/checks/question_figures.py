"""Did an answer that works out a result use the student's own figures, or someone else's?

A question such as 「我报的二级 交了4200 上了6节课 现在退能退多少」 states figures of a few kinds:
an amount paid (元), a level (二级), lessons taken (节课 = 课时 = 次课), weeks (周), days (天).
When the answer works something out (an equation with a calculation, or a result such as
「可退 3420 元」) with figures of one of those kinds, at least one of them must be the question's
figure or follow from it in one step (remaining lessons = total − taken; lessons = weeks × lessons a
week; a level's fee from the fee table in the references). Otherwise, if the answer computes
with a figure the references hold (a worked example's 4800 元 / 4 课时), it answered another
student's case: `question_mismatch`.
Left out: sentences labelled as an example (「示例：…」「例如…」) that do not address the student,
rule restatements without a worked result, and questions that state no figures of these kinds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.case.figures import (
    DAYS,
    HALF,
    KIND_NAMES,
    LESSONS,
    LEVEL,
    MONEY,
    ORDINAL,
    RATE,
    REMAINING,
    TOTAL,
    WEEKS,
    KindedFigure,
    classify,
    question_figures,
)
from core.case.kinds import ALL_KINDS, KindSet
from core.case.reader import case_figures
from core.checks.arithmetic import Equation, find_equations
from core.language.figures import extract_figures, format_number
from core.values import Figure
from core.values.facts import NO_FACTS, SchoolFacts

__all__ = ["DAYS", "HALF", "KIND_NAMES", "LESSONS", "LEVEL", "MONEY", "ORDINAL", "RATE", "REMAINING", "TOTAL", "WEEKS",
           "KindedFigure", "Mismatch", "classify", "describe", "find_mismatches", "question_figures", "shown"]
_UNIT_SHOWN = {MONEY: " 元", LESSONS: " 课时", WEEKS: " 周", DAYS: " 天", ORDINAL: " 次"}
_NUMERALS = "一二三四五六七八九十"
_RESULT_BEFORE = re.compile(r"(?:可退|能退|应退|实退|退还|退回|退你|退给|拿回|需补|要补|补交|补差|多退|少补|还剩|剩余|剩下)"
                            r"[^，。；,\d]{0,3}$")
_EXAMPLE_LABEL = re.compile(r"示例[：:是中]|例如|比如|举例|举个例子")
_ADDRESSES_STUDENT = re.compile(r"[你您]")


@dataclass(frozen=True)
class ReferenceFacts:
    """What the references state, by kind: lesson totals (16), lessons a week (2), each level's fee."""

    values: dict[str, frozenset[float]]
    totals: frozenset[float]
    rates: frozenset[float]
    fees: dict[float, float]


def reference_facts(texts: Sequence[str], facts: SchoolFacts = NO_FACTS) -> ReferenceFacts:
    values: dict[str, set[float]] = {}
    totals: set[float] = set()
    rates: set[float] = set()
    fees: dict[float, float] = {}
    for text in texts:
        for line in text.splitlines():
            kinded = [k for k in (classify(line, f, levels=facts.level_numbers or None) for f in extract_figures(line)) if k]
            for k in kinded:
                values.setdefault(k.kind, set()).add(k.key)
            totals |= {k.key for k in kinded if k.kind == LESSONS and k.role == TOTAL}
            rates |= {k.key for k in kinded if k.kind == LESSONS and k.role == RATE}
            levels = [k for k in kinded if k.kind == LEVEL]
            money = [k for k in kinded if k.kind == MONEY]
            if len(levels) == 1 and len(money) == 1:
                fees.setdefault(levels[0].key, money[0].key)
    return ReferenceFacts({k: frozenset(v) for k, v in values.items()}, frozenset(totals), frozenset(rates), fees)


def is_example(sentence: str) -> bool:
    """A sentence that presents a worked example as an example, not as this student's result."""
    return bool(_EXAMPLE_LABEL.search(sentence)) and not _ADDRESSES_STUDENT.search(sentence)


def worked_figures(text: str, spans: Sequence[tuple[int, int]], facts: SchoolFacts = NO_FACTS) -> tuple[KindedFigure, ...]:
    """Kinded figures of the sentences (not labelled examples) that work out a result."""
    equations: list[Equation] = []
    per_sentence = []
    for start, end in spans:
        found = find_equations(text[start:end], offset=start)
        equations.extend(found)
        per_sentence.append(found)
    results = {round(v, 6) for eq in equations for v in eq.results()}
    stated = [s.span for eq in equations for s in eq.stated_results()]
    out: list[KindedFigure] = []
    for (start, end), found in zip(spans, per_sentence):
        sentence = text[start:end]
        if is_example(sentence):
            continue
        figures = extract_figures(sentence)
        calculations = [s for eq in found for s in eq.numeric if s.computed]
        worked = bool(calculations) or any(_RESULT_BEFORE.search(sentence[:f.span[0]]) for f in figures)
        if not worked:
            continue
        for f in figures:
            span = (f.span[0] + start, f.span[1] + start)
            side = next((s for s in calculations if s.span[0] <= span[0] and span[1] <= s.span[1]), None)
            after_divide = text[:span[0]].rstrip().endswith(("÷", "/", "／"))
            total = facts.lessons_per_level.largest if facts.lessons_per_level else None
            kinded = classify(sentence, f, in_formula=side is not None, after_divide=after_divide,
                              levels=facts.level_numbers or None, max_lessons=total)
            if kinded is None:
                continue
            result = kinded.key in results or any(a <= span[0] and span[1] <= b for a, b in stated)
            out.append(KindedFigure(Figure(f.text, span, f.value, f.percent), kinded.kind, kinded.role, result))
    return tuple(out)


@dataclass(frozen=True)
class Mismatch:
    """One kind of figure where the answer computed with another case's figures."""

    kind: str
    question: tuple[str, ...]
    answer: tuple[KindedFigure, ...]


def shown(figure: KindedFigure) -> str:
    """How a figure is named in a message: 「4200 元」「二级」「6 课时」「第 2 次」「一半课时」."""
    if figure.role == HALF:
        return "一半课时"
    if figure.kind == ORDINAL:
        return f"第 {format_number(figure.figure.value)} 次"
    return _shown(figure.kind, figure.figure.value)


def _shown(kind: str, value: float) -> str:
    if kind == LEVEL:  # 二级: the numeral a student writes (the documents' names are core.facts')
        number = int(value)
        return (_NUMERALS[number - 1] if 1 <= number <= len(_NUMERALS) else format_number(value)) + "级"
    return format_number(value) + _UNIT_SHOWN[kind]


def find_mismatches(text: str, spans: Sequence[tuple[int, int]], references: Sequence[str],
                    question: str, school: SchoolFacts = NO_FACTS, kinds: KindSet = ALL_KINDS) -> tuple[Mismatch, ...]:
    """Kinds where the answer works with figures of the references instead of the question's; the question's figures
    are read by the case reader (core.case) with the `school`'s levels."""
    asked = case_figures(question, school, kinds)
    if not asked:
        return ()
    facts = reference_facts(references, school)
    fees = facts.fees
    answer = worked_figures(text, spans, school)
    totals = facts.totals | {k.key for k in answer if k.kind == LESSONS and k.role == TOTAL}
    rates = facts.rates | {k.key for k in answer if k.kind == LESSONS and k.role == RATE}

    allowed: dict[str, set[float]] = {}
    shown: dict[str, list[str]] = {}
    for k in asked:
        if k.kind == ORDINAL:  # 第二次 names a rule's case (the transfer fee), no operand to compare
            continue
        if k.role == HALF:
            allowed.setdefault(LESSONS, set()).update(round(t / 2, 6) for t in totals)
            shown.setdefault(LESSONS, []).append("一半")
            continue
        allowed.setdefault(k.kind, set()).add(k.key)
        shown.setdefault(k.kind, []).append(_shown(k.kind, k.figure.value))
    weeks = allowed.get(WEEKS, set())
    if weeks:  # lessons follow from weeks × lessons a week
        allowed.setdefault(LESSONS, set()).update(round(w * r, 6) for w in weeks for r in rates)
        shown.setdefault(LESSONS, []).extend(_shown(WEEKS, w) for w in sorted(weeks))
    if LESSONS in allowed:  # remaining = total − taken, and taken = total − remaining
        allowed[LESSONS] |= {round(t - b, 6) for t in totals for b in allowed[LESSONS] if t >= b}
    fee_only = MONEY not in allowed and any(lv in fees for lv in allowed.get(LEVEL, ()))
    if fee_only:  # a level the student named has its fee in the references
        allowed[MONEY] = {fees[lv] for lv in allowed[LEVEL] if lv in fees}
        shown[MONEY] = [_shown(MONEY, v) for v in sorted(allowed[MONEY])]

    found: list[Mismatch] = []
    for kind, values in allowed.items():
        # A lesson count equal to a rule's total or weekly count (16, 2) is the rule, not a case.
        rules = totals | rates if kind == LESSONS else set()
        used = [k for k in answer if k.kind == kind and k.role not in (TOTAL, RATE)
                and (k.key in values or k.key not in rules)]
        # The answer's own results (6 = 3 × 2) prove nothing: only the figures it starts from count.
        if not used or any(k.key in values for k in used if not k.result):
            continue
        foreign = [k for k in used if not k.result and k.key in facts.values.get(kind, ())
                   and (not (kind == MONEY and fee_only) or k.key in fees.values())]
        if foreign:
            found.append(Mismatch(kind, tuple(dict.fromkeys(shown[kind])), tuple(foreign)))
    return tuple(found)


def describe(mismatches: Sequence[Mismatch]) -> tuple[str, tuple[tuple[str, str, str], ...]]:
    """The problem message and the rows (kind, question's figures, answer's figures) shown side by side."""
    rows = []
    for m in mismatches:
        answer = tuple(dict.fromkeys(_shown(m.kind, k.figure.value) for k in m.answer))[:3]
        rows.append((KIND_NAMES[m.kind], "、".join(m.question), "、".join(answer)))
    message = ("问题说 " + "、".join(r[1] for r in rows) + "，回答用的是 " + "、".join(r[2] for r in rows)
               + "：算的不是这位学员的情况，请按问题里的数字重新计算")
    return message, tuple(rows)
