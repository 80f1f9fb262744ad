"""The student's own case as a question states it: one reader for the answerer, the checks and reuse.

Figures come from core.checks.question_figures (amount paid, level, lessons attended, weeks, days, which
time, with Chinese numerals: 四千二, 两节课, 六个课时, 上了一半, 第二次); on top of that: a level named by its
name (入门级 = 一级 …), the level to change to (转到四级, 升二级), whether the course has started (开课前 /
还没开课 vs 开课后 / 上了 N 节), which time it is (第二次 转班, 已经转过一次), an age (12 岁), a span (半年,
6 个月) and dates (3 月 5 号). `case_facts` gives them as {kind: values} for comparing two questions
(core.reuse.case); `read_case` gives the figures a computation needs as a frozen `StudentCase`.
Deliberately left out: anything the documents do not decide on (names, reasons, feelings).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.checks.question_figures import HALF, KIND_NAMES, LESSONS, LEVEL, MONEY, ORDINAL, WEEKS, question_figures

LEVEL_NAMES = {"入门级": 1, "进阶级": 2, "流利级": 3, "商务级": 4, "入门": 1, "进阶": 2, "流利": 3, "商务": 4}
_LEVEL_NAME_RE = re.compile("|".join(sorted(map(re.escape, LEVEL_NAMES), key=len, reverse=True)))
_LATIN_LEVEL_RE = re.compile(r"level\s*([1-4])\b", re.IGNORECASE)
_BEFORE_RE = re.compile(r"开课前|开课之前|还没开课|没开课|没有开课|还没开始上|开课以前|没上过课|一节(?:课)?都(?:还)?没上")
_AFTER_RE = re.compile(r"开课后|开课以后|开课之后|已经开课|开课了|上了|已上|上过|学了|上咗")
_TIMES_RE = re.compile(r"(?:第|头)\s*([一二两三四五六七八九十\d]+)\s*[次回]|(头)[次回]")  # 第二次, 头一回 / 头回 (the first)
_AGAIN_RE = re.compile(r"再转|又要转|又想转|再次转|再换|又要换|又想换|(?:转|换|调)过(?:一次|1次|一回)")
_AGE_RE = re.compile(r"([一二三四五六七八九十\d]{1,3})\s*岁")
_SPAN_RE = re.compile(r"([半一二两三四五六七八九十\d]{1,3})\s*(个月|年)")
_LEVEL_WORD = r"(入门级|进阶级|流利级|商务级|入门|进阶|流利|商务|[一二三四1-4]级)"
_TARGET_RE = re.compile(r"(?:转到|换到|升到|降到|转去|换去|改到|转成|换成|转回|换回|调到|升|降|到)\s*" + _LEVEL_WORD)
_DATE_RE = re.compile(r"(\d{1,2}|[一二三四五六七八九十]{1,3})\s*月\s*(?:(\d{1,2}|[一二三四五六七八九十]{1,3})\s*[日号])?")
_HALF_RE = re.compile(r"(?:上|过|学)了?\s*一半")
_SMALL = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
FACT_NAMES = {**KIND_NAMES, "started": "是否已开课", "times": "第几次", "target": "要转到的级别", "age": "年龄",
              "span": "时长", "date": "日期", "half": "已上课时"}


@dataclass(frozen=True)
class StudentCase:
    """The figures a question states about the student (None: not stated)."""

    levels: tuple[int, ...] = ()  # every level named, in order (二级, 转到三级 → (2, 3))
    target: int | None = None  # the level to change to
    paid: float | None = None  # the amount paid (元)
    taken: float | None = None  # lessons attended
    half: bool = False  # 「上了一半」: half the total attended
    weeks: float | None = None
    started: bool | None = None  # False: 开课前; True: 开课后 / lessons attended
    times: int | None = None  # which transfer this is (第二次, 已经转过一次 → 2)

    @property
    def level(self) -> int | None:
        """The level the student is on now: the first named that is not the target."""
        return next((lv for lv in self.levels if lv != self.target), None)

    @property
    def states_figures(self) -> bool:
        """Whether the question states a figure of the student's own (开课前 alone is a general question)."""
        return any(v is not None for v in (self.paid, self.taken, self.weeks, self.target, self.times)) \
            or bool(self.levels) or self.half


def case_facts(question: str) -> dict[str, frozenset[object]]:
    """{fact kind: the values the question states}; only kinds it states are present."""
    facts: dict[str, set[object]] = {}
    for figure in question_figures(question):
        if figure.role or figure.kind == ORDINAL:  # a rule the student repeats (每周 2 课时); times below
            continue
        facts.setdefault(figure.kind, set()).add(figure.key)
    for match in _LEVEL_NAME_RE.finditer(question):
        facts.setdefault("level", set()).add(float(LEVEL_NAMES[match.group(0)]))
    for match in _LATIN_LEVEL_RE.finditer(question):
        facts.setdefault("level", set()).add(float(match.group(1)))
    if _BEFORE_RE.search(question):
        facts.setdefault("started", set()).add("before")
    elif _AFTER_RE.search(question):
        facts.setdefault("started", set()).add("after")
    for match in _TIMES_RE.finditer(question):
        written = match.group(1) or "一"  # 头回 is the first time
        value = float(written) if written.isdigit() else float(_SMALL.get(written, 0)) or None
        if value is not None:
            facts.setdefault("times", set()).add(value)
    if _AGAIN_RE.search(question) and "times" not in facts:  # 又要转 / 已经转过一次: this is the second time
        facts.setdefault("times", set()).add(2.0)
    for match in _AGE_RE.finditer(question):
        facts.setdefault("age", set()).add(match.group(1))
    for match in _SPAN_RE.finditer(question):
        facts.setdefault("span", set()).add(match.group(0).replace(" ", ""))
    for match in _TARGET_RE.finditer(question):
        facts.setdefault("target", set()).add(float(level_number(match.group(1))))
    for match in _DATE_RE.finditer(question):
        facts.setdefault("date", set()).add(match.group(0).replace(" ", ""))
    if _HALF_RE.search(question):
        facts.setdefault("half", set()).add("half")
    return {kind: frozenset(values) for kind, values in facts.items()}


def level_number(word: str) -> int:
    """一级 / 入门级 / 1级 → 1."""
    if word in LEVEL_NAMES:
        return LEVEL_NAMES[word]
    return int(word[0]) if word[0].isdigit() else _SMALL.get(word[0], 0)


def read_case(question: str) -> StudentCase:
    """The student's figures in `question`, for computing their case from the documents' rules."""
    text = question or ""
    figures = question_figures(text)
    named: list[tuple[int, int]] = [(k.figure.span[0], int(k.figure.value)) for k in figures if k.kind == LEVEL]
    taken_by_level = {start for start, _ in named}
    for match in _LEVEL_NAME_RE.finditer(text):
        if not any(start <= match.start() < start + 3 for start in taken_by_level):
            named.append((match.start(), LEVEL_NAMES[match.group(0)]))
    for match in _LATIN_LEVEL_RE.finditer(text):
        named.append((match.start(), int(match.group(1))))
    levels = tuple(dict.fromkeys(lv for _, lv in sorted(named)))
    targets = [level_number(m.group(1)) for m in _TARGET_RE.finditer(text)]
    own = [k for k in figures if not k.role or k.role == HALF]
    paid = next((k.figure.value for k in own if k.kind == MONEY), None)
    taken = next((k.figure.value for k in own if k.kind == LESSONS and k.role != HALF), None)
    weeks = next((k.figure.value for k in own if k.kind == WEEKS), None)
    half = any(k.role == HALF for k in figures)
    facts = case_facts(text)
    started = None
    if "started" in facts:
        started = "after" in facts["started"]
    times = min(facts["times"]) if "times" in facts else None
    return StudentCase(levels=levels, target=targets[-1] if targets else None, paid=paid, taken=taken, half=half,
                       weeks=weeks, started=started, times=int(times) if times else None)
