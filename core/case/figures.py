"""The figures a question states, each with its kind: an amount (元), a level (二级), lessons (节课 = 课时 = 次课),
weeks, days, which time (第二次); a lesson count may be a rule the student repeats (总课时 16, 每周 2 课时), the
lessons left (还剩十节没上) or half the total (上了一半).

A level written 「N级」 is a level only when the documents have a level N (core.facts supplies the numbers; without
facts any N is taken), so 「二级及以上医院」 or a sixth level the documents never mention is no level.
Left out: a level's name (core.case.kinds reads those from the school facts) and anything without a number.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection
from dataclasses import dataclass

from core.case.words import alt, words
from core.language.figures import extract_figures
from core.values import Figure

MONEY, LEVEL, LESSONS, WEEKS, DAYS, ORDINAL = "money", "level", "lessons", "weeks", "days", "ordinal"
KIND_NAMES = {MONEY: "金额", LEVEL: "级别", LESSONS: "课时", WEEKS: "周数", DAYS: "天数", ORDINAL: "第几次"}
TOTAL, RATE = "total", "rate"  # roles of a lesson count that is a rule, not this student's figure
HALF = "half"  # 「上了一半」: half of the total lessons, whatever the total is
REMAINING = "remaining"  # 「还剩十节没上」: the lessons left
_LESSON_UNITS = tuple(words("lesson_unit"))  # 课时 节 课 堂: a figure ending in one is a lesson count
_REMAINING_BEFORE = re.compile(rf"{alt('remaining_before')}\s*$")
_NOT_TAKEN_AFTER = re.compile(rf"\s*{alt('lesson_unit', optional=True)}\s*{alt('not_taken')}")
_HALF_RE = re.compile(rf"{alt('half_taken')}\s*{alt('half_adverb', optional=True)}\s*(一半)(?!{alt('half_not_after')})")
_MONEY_BEFORE = re.compile(rf"{alt('money_before')}{alt('done_mark', optional=True)}\s*$")
_LESSON_BEFORE = re.compile(rf"{alt('lesson_before')}\s*(?:第)?\s*$")
_TOTAL_BEFORE = re.compile(rf"{alt('total_before')}\s*$")
_RATE_BEFORE = re.compile(rf"{alt('rate_before')}\s*$")
_TOGETHER_AFTER = set("儿退去交办走上来")  # after 「一块」: together (一块儿, 一块退), not an amount
_NOT_LEVEL_AFTER = ("及", "医院", "别")  # 二级及以上医院, 一级别
_STEP_BEFORE = ("低", "高", "上", "下", "降", "升")  # 「换到低一级」「升一级」: one level up or down


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


def classify(text: str, figure: Figure, *, in_formula: bool = False, after_divide: bool = False,
             levels: Collection[int] | None = None, max_lessons: float | None = None) -> KindedFigure | None:
    """The kind of `figure` (found in `text`) from its unit or the words before it, or None. `levels`: the level
    numbers the documents have (None: any); `max_lessons`: a level's lessons (a bare whole number up to it inside a
    formula is a lesson count; None: any under 100, below which no amount is read)."""
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
        if written.startswith("一") and before.endswith(_STEP_BEFORE):
            return None
        known = (figure.value == int(figure.value) and figure.value >= 1) if levels is None \
            else figure.value in levels
        if known and not after.startswith(_NOT_LEVEL_AFTER):
            kind = LEVEL
    elif written.endswith("课") and after.startswith("程"):  # 「交了四千八 课程还没开始」: 课 is the course's
        if _MONEY_BEFORE.search(before) or figure.value >= 100:
            kind = MONEY
    elif written.endswith(_LESSON_UNITS) or (written.endswith("次") and (
            after.startswith("课") or _LESSON_BEFORE.search(before))):  # 上过4次 = 4 lessons
        # 「商务级5600 课上了一半」: no level has a hundred lessons, so a bare 课 after such a figure starts the next words
        kind = MONEY if written.endswith("课") and figure.value >= 100 else LESSONS
    elif written.startswith("第") and written.endswith("次"):
        kind = ORDINAL
    elif written.endswith(words("week_unit")):  # 两周, 一个礼拜, 七个星期
        if written.startswith("第") or before.rstrip().endswith("第"):
            return None  # 「开课第三周了」: in the third week, not three weeks attended (the lessons are asked for)
        kind = WEEKS
    elif written.endswith(("天", "工作日")):
        kind = DAYS
    elif written[-1:].isdigit() or written[-1:] in "零一二两俩三四五六七八九十百千万":
        if _MONEY_BEFORE.search(before) or figure.value >= 100:
            kind = MONEY
        elif _LESSON_BEFORE.search(before) or after_divide or \
                (in_formula and figure.value == int(figure.value) and figure.value <= (max_lessons or 99)):
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


def question_figures(question: str, levels: Collection[int] | None = None) -> tuple[KindedFigure, ...]:
    """The figures a question states, with their kinds (digits or Chinese numerals: 六个课时, 四千二, 第二次);
    「上了一半」 is a lesson count of role HALF (value 0.5: half of whatever the total is)."""
    kinded = [k for k in (classify(question, f, levels=levels) for f in extract_figures(question)) if k is not None]
    for match in _HALF_RE.finditer(question):
        kinded.append(KindedFigure(Figure(match.group(1), match.span(1), 0.5, False), LESSONS, HALF))
    return tuple(sorted(kinded, key=lambda k: k.figure.span))
