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

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.checks.arithmetic import Equation, find_equations
from core.checks.figures import extract_figures, format_number
from core.values import Figure

MONEY, LEVEL, LESSONS, WEEKS, DAYS, ORDINAL = "money", "level", "lessons", "weeks", "days", "ordinal"
KIND_NAMES = {MONEY: "金额", LEVEL: "级别", LESSONS: "课时", WEEKS: "周数", DAYS: "天数", ORDINAL: "第几次"}
_LEVEL_NAMES = {1: "一级", 2: "二级", 3: "三级", 4: "四级"}
_UNIT_SHOWN = {MONEY: " 元", LESSONS: " 课时", WEEKS: " 周", DAYS: " 天", ORDINAL: " 次"}
TOTAL, RATE = "total", "rate"  # roles of a lesson count that is a rule, not this student's figure
HALF = "half"  # 「上了一半」: half of the total lessons, whatever the total is
REMAINING = "remaining"  # 「还剩十节没上」: the lessons left
_REMAINING_BEFORE = re.compile(r"(?:还剩|剩下|剩余|剩|还有|没上的|未上的)\s*$")
_NOT_TAKEN_AFTER = re.compile(r"\s*(?:课时|节课|节|课)?\s*(?:没上|没有上|未上|还没上)")
_HALF_RE = re.compile(r"(?:上了|上过|已上|学了|上到|过了|听了|上满|上完|学完)\s*(?:刚好|正好|差不多)?\s*(一半)(?!以上|多)")

_MONEY_BEFORE = re.compile(r"(?:交|付|缴|花|学费|费用|价|钱|金额)[了过]?\s*$")
_LESSON_BEFORE = re.compile(r"(?:课时|节课|上了|已上|上过|学了|听了|上完|上满|学完|上到|剩余|还剩|剩下|剩)\s*(?:第)?\s*$")
_TOTAL_BEFORE = re.compile(r"(?:总课时|都是|每级|每一级|一共|共)\s*$")
_RATE_BEFORE = re.compile(r"每周上?\s*$")
_RESULT_BEFORE = re.compile(r"(?:可退|能退|应退|实退|退还|退回|退你|退给|拿回|需补|要补|补交|补差|多退|少补|还剩|剩余|剩下)"
                            r"[^，。；,\d]{0,3}$")
_TOGETHER_AFTER = set("儿退去交办走上来")  # after 「一块」: together (一块儿, 一块退), not an amount
_EXAMPLE_LABEL = re.compile(r"示例[：:是中]|例如|比如|举例|举个例子")
_ADDRESSES_STUDENT = re.compile(r"[你您]")


@dataclass(frozen=True)
class KindedFigure:
    """A figure with the kind of quantity it is; `result` marks a value the answer computed itself."""

    figure: Figure
    kind: str
    role: str = ""
    result: bool = False

    @property
    def key(self) -> float:
        return round(self.figure.value, 6)


def classify(text: str, figure: Figure, *, in_formula: bool = False,
             after_divide: bool = False) -> KindedFigure | None:
    """The kind of `figure` (found in `text`) from its unit or the words before it, or None."""
    if figure.percent or not math.isfinite(figure.value) or ":" in figure.text or "：" in figure.text:
        return None
    start, end = figure.span
    before, after = text[max(0, start - 6):start], text[end:end + 3]
    written = figure.text.rstrip()
    kind = None
    if written.endswith(("元", "块")):
        if written.endswith("块") and figure.value == 1 and after[:1] in _TOGETHER_AFTER:
            return None  # 「一块儿退」「一块退给我」: together, not 1 元
        kind = MONEY
    elif written.endswith("级"):
        if written.startswith("一") and before.endswith(("低", "高", "上", "下", "降", "升")):
            return None  # 「换到低一级」「升一级」: one level up or down, not level 1
        if 1 <= figure.value <= 4 and not after.startswith(("及", "医院", "别")):
            kind = LEVEL
    elif written.endswith("课") and after.startswith("程"):  # 「交了四千八 课程还没开始」: 课 is the course's
        if _MONEY_BEFORE.search(before) or figure.value >= 100:
            kind = MONEY
    elif written.endswith(("课时", "节", "课")) or (written.endswith("次") and (
            after.startswith("课") or _LESSON_BEFORE.search(before))):  # 上过4次 = 4 lessons
        kind = LESSONS
    elif written.startswith("第") and written.endswith("次"):
        kind = ORDINAL
    elif written.endswith(("周", "星期")):
        kind = WEEKS
    elif written.endswith(("天", "工作日")):
        kind = DAYS
    elif written[-1:].isdigit() or written[-1:] in "零一二两俩三四五六七八九十百千万":
        if _MONEY_BEFORE.search(before) or figure.value >= 100:
            kind = MONEY
        elif _LESSON_BEFORE.search(before) or after_divide or \
                (in_formula and figure.value == int(figure.value) and figure.value <= 16):
            kind = LESSONS
    if kind is None:
        return None
    if kind == LESSONS and written.startswith("一") and figure.value == 1 and not _LESSON_BEFORE.search(before):
        return None  # 「一节课多长时间」「每节课」: "a lesson" as the unit, not a count the student took (上了一节课 is)
    role = ""
    if kind == LESSONS and (after_divide or _TOTAL_BEFORE.search(before)):
        role = TOTAL
    elif kind == LESSONS and _RATE_BEFORE.search(before):
        role = RATE
    elif kind == LESSONS and (_REMAINING_BEFORE.search(before) or _NOT_TAKEN_AFTER.match(text, end)):
        role = REMAINING  # 「还剩十节没上」: the lessons left, not the ones taken
    return KindedFigure(figure, kind, role)


def question_figures(question: str) -> tuple[KindedFigure, ...]:
    """The figures a question states, with their kinds (digits or Chinese numerals: 六个课时, 四千二, 第二次);
    「上了一半」 is a lesson count of role HALF (value 0.5: half of whatever the total is)."""
    kinded = [k for k in (classify(question, f) for f in extract_figures(question)) if k is not None]
    for match in _HALF_RE.finditer(question):
        kinded.append(KindedFigure(Figure(match.group(1), match.span(1), 0.5, False), LESSONS, HALF))
    return tuple(sorted(kinded, key=lambda k: k.figure.span))


@dataclass(frozen=True)
class ReferenceFacts:
    """What the references state, by kind: lesson totals (16), lessons a week (2), each level's fee."""

    values: dict[str, frozenset[float]]
    totals: frozenset[float]
    rates: frozenset[float]
    fees: dict[float, float]


def reference_facts(texts: Sequence[str]) -> ReferenceFacts:
    values: dict[str, set[float]] = {}
    totals: set[float] = set()
    rates: set[float] = set()
    fees: dict[float, float] = {}
    for text in texts:
        for line in text.splitlines():
            kinded = [k for k in (classify(line, f) for f in extract_figures(line)) if k]
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


def worked_figures(text: str, spans: Sequence[tuple[int, int]]) -> tuple[KindedFigure, ...]:
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
            kinded = classify(sentence, f, in_formula=side is not None, after_divide=after_divide)
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
    if kind == LEVEL:
        return _LEVEL_NAMES.get(int(value), f"{format_number(value)}级")
    return format_number(value) + _UNIT_SHOWN[kind]


def find_mismatches(text: str, spans: Sequence[tuple[int, int]], references: Sequence[str],
                    question: str) -> tuple[Mismatch, ...]:
    """Kinds where the answer works with figures of the references instead of the question's."""
    asked = question_figures(question)
    if not asked:
        return ()
    facts = reference_facts(references)
    fees = facts.fees
    answer = worked_figures(text, spans)
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
