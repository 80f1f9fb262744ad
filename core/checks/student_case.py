"""The student's own case as a question states it: one reader for the answerer, the checks and reuse.

Figures come from core.checks.question_figures (amount paid, level, lessons attended, weeks, days, which
time, with Chinese numerals: 四千二, 两节课, 六个课时, 上了一半, 第二次); on top of that: a level named by its
name (入门级 = 一级, level 1, L1 …), the level to change to (转到四级, 升二级, 二级转三级), whether the course
has started (开课前 / 课还没开始 vs 开课后, or any lessons taken: 上了 N 节, 上完四课时, 上满一半; a bare
「不想上了」 says nothing), which time it is (第二次 转班, 已经转过一次 = the second, 之前没转过 = the first), an age
(12 岁), a span in months (半年 = 六个月), dates (3 月 5 号), a time of day on the 24-hour clock (晚上十点 = 22点;
「便宜一点」 is not one) and whether the textbook was received (教材已经领了 / 还没领). `case_facts` gives them as {kind: values} for comparing two questions
(core.reuse.case); `read_case` gives the figures a computation needs as a frozen `StudentCase`.
Deliberately left out: anything the documents do not decide on (names, reasons, feelings).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.checks.question_figures import (
    HALF,
    KIND_NAMES,
    LESSONS,
    LEVEL,
    MONEY,
    ORDINAL,
    REMAINING,
    WEEKS,
    question_figures,
)

LEVEL_NAMES = {"入门级": 1, "进阶级": 2, "流利级": 3, "商务级": 4, "入门": 1, "进阶": 2, "流利": 3, "商务": 4}
_LEVEL_NAME_RE = re.compile("|".join(sorted(map(re.escape, LEVEL_NAMES), key=len, reverse=True)))
# level 2, Level2, L2 (a digit after it would make another number: L23)
_LATIN_LEVEL_RE = re.compile(r"(?:level|(?<![A-Za-z])L)\s*([1-4])(?![0-9])", re.IGNORECASE)
_BEFORE_RE = re.compile(r"开[课班]前|开[课班]之前|还没开[课班]|没开[课班]|没有开[课班]|还没开始上|开[课班]以前|没上过课|"
                        r"一节(?:课)?都(?:还)?没上|课(?:程)?(?:也|都)?还没(?:开始|开)|还没(?:有)?上课|没上课(?:之前|以前|前)|"
                        r"尚未开[课班]|才开[课班]|开[课班]还早")  # 开班 as 开课: 「下个月才开班」
# Said in words; a lesson count the student took (上了 6 节, 上完四课时, 上满一半) says it too (read_case, case_facts).
# A bare 「上了」 or 「学了」 does not: 「不想上了」「中途不学了」 can be said before the course starts.
_AFTER_RE = re.compile(r"开[课班]后|开[课班]以后|开[课班]之后|已经开[课班]|开[课班]了|已开[课班]|上课了|上过课|已经在上|上咗")
_TIMES_RE = re.compile(r"(?:第|头)\s*([一二两三四五六七八九十\d]+)\s*[次回]|(头)[次回]")  # 第二次, 头一回 / 头回 (the first)
_NEVER_RE = re.compile(r"(?:没|没有|从没|从来没)(?:转|换|调)过")  # 之前没转过: this is the first time
_BEFORE_COUNT_RE = re.compile(r"(?:转|换|调)过\s*([一二两三四五六七八九十\d]{1,2})\s*[次回](?:班)?")  # 转过2次: the 3rd
_AGAIN_RE = re.compile(r"再转|又要转|又想转|再次转|再换|又要换|又想换|(?:转|换|调)过(?:一次|1次|一回)")
_AGE_RE = re.compile(r"([一二三四五六七八九十\d]{1,3})\s*岁")
_SPAN_RE = re.compile(r"([半一二两三四五六七八九十\d]{1,3})\s*(个月|年)")
_CLOCK_RE = re.compile(r"(早上|上午|中午|下午|傍晚|晚上|夜里|半夜|凌晨)?\s*(\d{1,2}|[一二两三四五六七八九十]{1,3})\s*(?:点|时|[:：](?=\d{2}))")
_MINOR_RE = re.compile(r"未成年|没成年|还没成年|不满\s*18|未满\s*18")
_ADULT_RE = re.compile(r"已经成年|已成年|成年了|是成年人|满\s*18|过了\s*18")
_CLOCK_AFTER = re.compile(r"钟|半|以后|之后|以前|之前|前|后|到|多|左右")
_LATE = ("下午", "傍晚", "晚上", "夜里", "半夜")
_TEXTBOOK_RE = re.compile(r"(教材|书本|课本|书)(?:已经|也|都)?(?:领|拿)(?:了|过|到)|(?:领|拿)(?:了|过|到)(?:教材|书本|课本|书)")
# The amount paid includes the textbook: 「连教材一共交了3880」「学费加教材 4480」「学费+教材一共交了5080」.
_WITH_TEXTBOOK_RE = re.compile(r"(?:连|加上?|和|跟|\+|＋|含|包括|包含|带)\s*(?:教材|书本|课本|书)(?:费)?|"
                               r"(?:教材|书本|课本)(?:费)?(?:一共|总共|合计|在内|一起)|"
                               r"(?:含|包括|包含|里面有|里头有|其中有)\s*[\d一二两三四五六七八九十百]*\s*(?:元|块)?(?:的)?"
                               r"(?:教材|书本|课本|书)")
_INCLUDES_TEXTBOOK_RE = re.compile(r"(?:含|包括|包含|里面有|里头有|其中有)\s*[\d一二两三四五六七八九十百]*\s*(?:元|块)?(?:的)?"
                                   r"(?:教材|书本|课本|书)")
_TEXTBOOK_AMOUNT_RE = re.compile(r"(?:教材|书本|课本|书)(?:费)?\s*(?:是|花了|交了)?\s*(?:\d|[二两三四五六七八九]|一(?![共起下]))")
# An amount that is the textbook's own price (「教材那280」「那280的书本费」「另外教材280也交了」), not what the
# student paid for the course.
_TEXTBOOK_BEFORE_RE = re.compile(r"(?:教材|书本|课本|书)(?:费)?(?:那|这|的|是|要|花了|交了)?\s*$")
_TEXTBOOK_AFTER_RE = re.compile(r"^\s*(?:元|块)?(?:钱)?(?:的|那)?(?:本)?(?:教材|书本|课本|书)")
_NO_TEXTBOOK_RE = re.compile(r"(?:教材|书本|课本|书)(?:也|都)?(?:还)?没(?:有)?(?:领|拿)")
_LEVEL_WORD = r"(入门级|进阶级|流利级|商务级|入门|进阶|流利|商务|[一二三四1-4]级|(?:level|L)\s*[1-4](?![0-9]))"
_TARGET_RE = re.compile(r"(?:转到|换到|升到|降到|降回|升回|转去|换去|改到|转成|换成|转回|换回|调到|调回|转入|转|换|升|降|到)\s*"
                        + _LEVEL_WORD,
                        re.IGNORECASE)
_DATE_RE = re.compile(r"(\d{1,2}|[一二三四五六七八九十]{1,3})\s*月\s*(?:(\d{1,2}|[一二三四五六七八九十]{1,3})\s*[日号])?")
# The student paid a price other than the single price and does not say how much (「联报优惠报的」「活动价报的」): the
# documents' tuition is not what they paid. An amount said roughly (「五千多」「三千左右」「大概四千」) is no figure to
# compute with either.
_DISCOUNT_RE = re.compile(r"优惠|活动价|参加活动|搞活动|联报|团报|团购|打折|打了?[\d一二两三四五六七八九]{1,2}\s*折|折扣|特价|早鸟|减免|券")
_FULL_PRICE_RE = re.compile(r"原价|全价|单报价|(?:没|没有|没走|没用|没参加|没享受|不是)(?:什么|任何)?(?:优惠|活动|折扣|打折|联报|团报)")
_ROUGH_AFTER_RE = re.compile(r"^\s*(?:元|块)?\s*(?:多(?![少久长大])|来块|出头|左右|上下|不到)")
_ROUGH_BEFORE_RE = re.compile(r"(?:大概|大约|约|差不多|将近|接近|估计|好像)\s*(?:是|交了|付了|花了)?\s*$")
# How many levels the student means (「上完三个级别总共多少小时」): an answer for one level is not theirs. 一个级别 is
# what a general question says, so only two or more is a fact.
_LEVEL_COUNT_RE = re.compile(r"(?<![第每])([两二三四2-4])\s*个\s*级(?:别)?")
_HALF_RE = re.compile(r"(?:上|过|学)(?:了|满|完|到)?\s*(?:刚好|正好|差不多)?\s*一半")
_SMALL = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
FACT_NAMES = {**KIND_NAMES, "started": "是否已开课", "times": "第几次", "target": "要转到的级别", "age": "年龄",
              "span": "时长", "date": "日期", "half": "已上课时", "clock": "钟点", "textbook": "教材是否已领",
              "with_textbook": "金额是否含教材费",
              "remaining": "剩余课时", "adult": "是否成年", "level_count": "几个级别"}


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
    with_textbook: bool = False  # the amount paid includes the textbook fee (连教材一共交了 3880)
    remaining: float | None = None  # lessons left (还剩十节没上)
    times: int | None = None  # which transfer this is (第二次, 已经转过一次 → 2)
    unpaid_reason: str = ""  # why the tuition paid is unknown though the level is said: 优惠价 without the amount, 五千多

    @property
    def level(self) -> int | None:
        """The level the student is on now: the first named that is not the target."""
        return next((lv for lv in self.levels if lv != self.target), None)

    @property
    def states_figures(self) -> bool:
        """Whether the question states a figure of the student's own (开课前 alone is a general question)."""
        return any(v is not None for v in (self.paid, self.taken, self.weeks, self.target, self.times, self.remaining)) \
            or bool(self.levels) or self.half


def includes_textbook(question: str) -> bool:
    """Whether the amount the student says they paid includes the textbook fee (「连教材一共交了3880」「交了4480
    含280教材费」); 「学费4800+教材280」 states the textbook's own amount, so the 4800 is the tuition."""
    if _INCLUDES_TEXTBOOK_RE.search(question):
        return True
    return bool(_WITH_TEXTBOOK_RE.search(question)) and not _TEXTBOOK_AMOUNT_RE.search(question)


def textbook_price(question: str, span: tuple[int, int]) -> bool:
    """Whether the figure at `span` is the textbook's price the student mentions, not an amount they paid."""
    return bool(_TEXTBOOK_BEFORE_RE.search(question[max(0, span[0] - 8):span[0]])
                or _TEXTBOOK_AFTER_RE.match(question[span[1]:span[1] + 8]))


def case_facts(question: str) -> dict[str, frozenset[object]]:
    """{fact kind: the values the question states}; only kinds it states are present."""
    facts: dict[str, set[object]] = {}
    for figure in question_figures(question):
        if figure.role == REMAINING:  # 还剩十节没上: not the same case as 上了十节
            facts.setdefault("remaining", set()).add(figure.key)
            continue
        if figure.role or figure.kind == ORDINAL:  # a rule the student repeats (每周 2 课时); times below
            continue
        if figure.kind == MONEY and textbook_price(question, figure.figure.span):
            continue
        facts.setdefault(figure.kind, set()).add(figure.key)
    for match in _LEVEL_NAME_RE.finditer(question):
        facts.setdefault("level", set()).add(float(LEVEL_NAMES[match.group(0)]))
    for match in _LATIN_LEVEL_RE.finditer(question):
        facts.setdefault("level", set()).add(float(match.group(1)))
    if _HALF_RE.search(question):
        facts.setdefault("half", set()).add("half")
    if _BEFORE_RE.search(question):
        facts.setdefault("started", set()).add("before")
    elif _AFTER_RE.search(question) or any(v > 0 for v in facts.get("lessons", ())) or "half" in facts \
            or "remaining" in facts:
        facts.setdefault("started", set()).add("after")
    for match in _TIMES_RE.finditer(question):
        written = match.group(1) or "一"  # 头回 is the first time
        value = float(written) if written.isdigit() else float(_SMALL.get(written, 0)) or None
        if value is not None:
            facts.setdefault("times", set()).add(value)
    if "times" not in facts:
        done = _BEFORE_COUNT_RE.search(question)
        if done and _number(done.group(1)) > 0:
            facts["times"] = {_number(done.group(1)) + 1}  # 已经转过两次了 (还想再转): the next is the third
        elif _NEVER_RE.search(question):  # 之前没转过: the first time
            facts["times"] = {1.0}
        elif _AGAIN_RE.search(question):  # 又要转 / 已经转过一次: this is the second time
            facts["times"] = {2.0}
    for match in _LEVEL_COUNT_RE.finditer(question):
        facts.setdefault("level_count", set()).add(float(_number(match.group(1))))
    for match in _AGE_RE.finditer(question):
        facts.setdefault("age", set()).add(match.group(1))
    for match in _SPAN_RE.finditer(question):
        facts.setdefault("span", set()).add(_months(match.group(1), match.group(2)))
    for match in _TARGET_RE.finditer(question):
        facts.setdefault("target", set()).add(float(level_number(match.group(1))))
    for match in _DATE_RE.finditer(question):
        facts.setdefault("date", set()).add(match.group(0).replace(" ", ""))
    for match in _CLOCK_RE.finditer(question):
        # 晚上十点, 22点, 21:00, 十点以后; not 「便宜一点」「快一点」 (a bit), nor the 号 of a date
        if match.group(1) or match.group(2).isdigit() or _CLOCK_AFTER.match(question, match.end()):
            facts.setdefault("clock", set()).add(_hour(match.group(1) or "", match.group(2)))
    if _MINOR_RE.search(question):
        facts["adult"] = {"minor"}  # the documents decide who applies for a minor (the guardian)
    elif _ADULT_RE.search(question):
        facts["adult"] = {"adult"}
    if "money" in facts and includes_textbook(question):
        facts["with_textbook"] = {"included"}  # 连教材一共交了 3880: not the same amount as 交了 3880
    if _NO_TEXTBOOK_RE.search(question):
        facts["textbook"] = {"not_received"}
    elif _TEXTBOOK_RE.search(question):
        facts["textbook"] = {"received"}
    return {kind: frozenset(values) for kind, values in facts.items()}


def _number(written: str) -> float:
    """「6」「六」「十二」「两」 → its value (0 when it is none of these)."""
    if written.isdigit():
        return float(written)
    if written == "半":
        return 0.5
    if written.startswith("十"):
        return 10.0 + _SMALL.get(written[1:], 0)
    if len(written) >= 2 and written[1] == "十":
        return _SMALL.get(written[0], 0) * 10.0 + _SMALL.get(written[2:], 0)
    return float(_SMALL.get(written, 0))


def _months(written: str, unit: str) -> str:
    """A span in months: 半年 = 六个月 = 6 个月, 一年 = 12 个月."""
    value = _number(written) * (12 if unit == "年" else 1)
    return f"{value:g} 个月"


def _hour(part: str, written: str) -> str:
    """A time of day on the 24-hour clock: 晚上十点 = 22点 = 22 点, 上午 9 点 = 9 点."""
    hour = _number(written)
    if part in _LATE and hour < 12:
        hour += 12
    return f"{hour:g} 点"


def level_number(word: str) -> int:
    """一级 / 入门级 / 1级 / level 1 / L1 → 1."""
    if word in LEVEL_NAMES:
        return LEVEL_NAMES[word]
    latin = _LATIN_LEVEL_RE.fullmatch(word)
    if latin:
        return int(latin.group(1))
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
    own = [k for k in figures if (not k.role or k.role == HALF)
           and not (k.kind == MONEY and textbook_price(text, k.figure.span))]
    money = next((k for k in own if k.kind == MONEY), None)
    paid = money.figure.value if money is not None else None
    unpaid_reason = ""
    if money is not None and rough(text, money.figure.span):
        paid, unpaid_reason = None, "你说的是大概的金额，要按准确的金额算"
    elif money is None and _DISCOUNT_RE.search(text) and not _FULL_PRICE_RE.search(text):
        unpaid_reason = "你报的是优惠价，要按实际付的金额算，不能按单报学费算"
    taken = next((k.figure.value for k in own if k.kind == LESSONS and k.role != HALF), None)
    weeks = next((k.figure.value for k in own if k.kind == WEEKS), None)
    remaining = next((k.figure.value for k in figures if k.kind == LESSONS and k.role == REMAINING), None)
    half = any(k.role == HALF for k in figures)
    facts = case_facts(text)
    started = None
    if "started" in facts:
        started = "after" in facts["started"]
    times = min(facts["times"]) if "times" in facts else None
    with_textbook = paid is not None and includes_textbook(text)
    return StudentCase(levels=levels, target=targets[-1] if targets else None, paid=paid, taken=taken, half=half,
                       with_textbook=with_textbook, remaining=remaining,
                       weeks=weeks, started=started, times=int(times) if times else None, unpaid_reason=unpaid_reason)


def rough(question: str, span: tuple[int, int]) -> bool:
    """Whether the amount at `span` is said roughly: 「五千多」「3000左右」「大概四千」."""
    return bool(_ROUGH_AFTER_RE.match(question[span[1]:span[1] + 6])
                or _ROUGH_BEFORE_RE.search(question[max(0, span[0] - 6):span[0]]))
