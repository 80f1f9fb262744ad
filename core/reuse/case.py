"""The student's own case in a question: the facts an approved answer depends on, to compare two questions.

Figures come from core.checks.question_figures (amount paid, level, lessons attended, weeks, days, with
Chinese numerals as it reads them); on top of that: a level named by its name (入门级 = 一级 …), the level
to change to (转到四级), whether the course has started (开课前 / 还没开课 vs 开课后 / 上了 N 节), which time it
is (第二次 转班, 已经转过一次), an age (12 岁), a span (半年, 6 个月) and dates (3 月 5 号). Two questions have the same case when they state the same facts; a fact only one of
them states is a difference (an approved answer for 「三级学费」 is not the answer to 「三级上了 6 节能退多少」).
Deliberately left out: anything the documents do not decide on (names, reasons, feelings).
"""

from __future__ import annotations

import re

from core.checks.question_figures import KIND_NAMES, question_figures

LEVEL_NAMES = {"入门级": 1, "进阶级": 2, "流利级": 3, "商务级": 4, "入门": 1, "进阶": 2, "流利": 3, "商务": 4}
_LEVEL_NAME_RE = re.compile("|".join(sorted(map(re.escape, LEVEL_NAMES), key=len, reverse=True)))
_LATIN_LEVEL_RE = re.compile(r"level\s*([1-4])\b", re.IGNORECASE)
_BEFORE_RE = re.compile(r"开课前|开课之前|还没开课|没开课|没有开课|还没开始上|开课以前|没上过课|一节(?:课)?都没上")
_AFTER_RE = re.compile(r"开课后|开课以后|开课之后|已经开课|开课了|上了|已上|上过|学了")
_TIMES_RE = re.compile(r"第\s*([一二两三四五六七八九十\d]+)\s*[次回]")
_AGAIN_RE = re.compile(r"再转|又要转|又想转|再次转|再换|又要换|又想换|(?:转|换|调)过(?:一次|1次|一回)")
_AGE_RE = re.compile(r"([一二三四五六七八九十\d]{1,3})\s*岁")
_SPAN_RE = re.compile(r"([半一二两三四五六七八九十\d]{1,3})\s*(个月|年)")
_TARGET_RE = re.compile(r"(?:转到|换到|升到|降到|转去|换去|改到|转成|换成|到)\s*(入门级|进阶级|流利级|商务级|入门|进阶|流利|商务|[一二三四1-4]级)")
_DATE_RE = re.compile(r"(\d{1,2}|[一二三四五六七八九十]{1,3})\s*月\s*(?:(\d{1,2}|[一二三四五六七八九十]{1,3})\s*[日号])?")
_HALF_RE = re.compile(r"(?:上|过|学)了?\s*一半")
_SMALL = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
FACT_NAMES = {**KIND_NAMES, "started": "是否已开课", "times": "第几次", "target": "要转到的级别", "age": "年龄",
              "span": "时长", "date": "日期", "half": "已上课时"}


def case_facts(question: str) -> dict[str, frozenset[object]]:
    """{fact kind: the values the question states}; only kinds it states are present."""
    facts: dict[str, set[object]] = {}
    for figure in question_figures(question):
        if figure.role:  # a rule the student repeats (每周 2 课时), not their own figure
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
        written = match.group(1)
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
        facts.setdefault("target", set()).add(float(_level(match.group(1))))
    for match in _DATE_RE.finditer(question):
        facts.setdefault("date", set()).add(match.group(0).replace(" ", ""))
    if _HALF_RE.search(question):
        facts.setdefault("half", set()).add("half")
    return {kind: frozenset(values) for kind, values in facts.items()}


def _level(word: str) -> int:
    if word in LEVEL_NAMES:
        return LEVEL_NAMES[word]
    return int(word[0]) if word[0].isdigit() else _SMALL.get(word[0], 0)


def differences(new: str, approved: str) -> list[str]:
    """What differs between the two questions' cases, in Chinese (empty when the case is the same)."""
    a, b = case_facts(new), case_facts(approved)
    out = []
    for kind in sorted(set(a) | set(b), key=lambda k: list(FACT_NAMES).index(k) if k in FACT_NAMES else 99):
        if a.get(kind) == b.get(kind):
            continue
        out.append(f"{FACT_NAMES.get(kind, kind)}：这个问题 {_shown(a.get(kind))}，已审问题 {_shown(b.get(kind))}")
    return out


def _shown(values: frozenset[object] | None) -> str:
    if not values:
        return "没说"
    words = []
    for value in sorted(values, key=str):
        if value == "before":
            words.append("开课前")
        elif value == "after":
            words.append("开课后")
        elif value == "half":
            words.append("一半")
        elif isinstance(value, float):
            words.append(f"{value:g}")
        else:
            words.append(str(value))
    return "、".join(words)
