"""Find the quantities written in Chinese text and read each one as a number.

Covers Arabic numerals (4800, 4,800, 1.5万, 3千), Chinese numerals (四, 十二, 两, 俩, 一百, 一万二),
percentages (5%, 百分之五), clock times (9:00 → 9, 9:30 → 9.5) and ordinals in names (三级, 第二次).
Units are kept only for display: matching is by value, so 「四级」 supports 「4 个级别」.
Deliberately left out: words that contain a numeral character but are not quantities
(一共, 一样, 每一级, 十分重要, 万一, 零基础…), citation markers such as [1], and list numbering.
"""

from __future__ import annotations

import re
from functools import lru_cache

from core.language.citations import CITATION_RE  # noqa: F401 - re-exported for core.checks.arithmetic and core.checks.grounding
from core.language.money import format_amount
from core.values import Figure

_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
           "八": 8, "九": 9, "俩": 2, "壹": 1, "贰": 2, "叁": 3, "肆": 4, "伍": 5, "陆": 6, "柒": 7, "捌": 8, "玖": 9}
_SMALL_UNITS = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000}
_BIG_UNITS = {"万": 10_000, "亿": 100_000_000}
_CN_CHARS = "".join(_DIGITS) + "".join(_SMALL_UNITS) + "".join(_BIG_UNITS)
_CN = f"[{_CN_CHARS}]"

# Full-width digits and signs become ASCII one character for one character, so offsets survive.
FULL_WIDTH = str.maketrans("０１２３４５６７８９．％：＝", "0123456789.%:=")

# Citation markers (core.language.citations' grammar) and list numbering at a line start are labels, not quantities.
_LIST_MARK_RE = re.compile(r"(?m)^[ \t]*\d{1,2}[.、)）](?!\d)")

# Words built from numeral characters that do not state a quantity. The look-behind keeps
# real numbers intact: 「三千万」 is thirty million, 「千万别」 is "by no means".
_IDIOMS = ("一共", "一样", "一些", "一经", "一起", "一直", "一般", "一定", "一下", "一旦", "一切",
           "一律", "一并", "一概", "一致", "一向", "一同", "一再", "一点儿", "一会儿", "一边", "一方面",
           "一对一", "一模一样", "一五一十", "一目了然", "统一", "唯一", "逐一", "同一", "每一",
           "进一步", "万一", "千万", "百分百", "四处", "零基础", "三心二意", "乱七八糟", "五花八门",
           "七嘴八舌")
_IDIOM_RE = re.compile(rf"(?<![{_CN_CHARS}\d])(?:{'|'.join(_IDIOMS)}|十分(?!钟)|(?<!分)之一)")

# A lone 一 is a quantity only as an ordinal (第一) or when a measure word follows (一次, 一级, 一堂).
UNITS = ("个工作日", "个月", "个小时", "个课时", "个星期", "个礼拜", "工作日", "课时", "分钟", "小时", "星期", "礼拜", "个", "元", "块",
         "级", "周", "天", "年", "月", "日", "次", "人", "位", "名", "节", "堂", "门", "种", "倍", "岁",
         "期", "班", "笔", "份", "张", "本", "套", "点", "课")
_UNIT_RE = re.compile(rf"[ \t]?(?:{'|'.join(UNITS)})")

_TIME_RE = re.compile(r"(?<![\d.])([01]?\d|2[0-4]):([0-5]\d)(?!\d)")
_CN_PERCENT_RE = re.compile(rf"百分之({_CN}+|\d+(?:\.\d+)?)")
_CN_FRACTION_RE = re.compile(rf"({_CN}+)分之({_CN}+)")
_ARABIC_RE = re.compile(r"(?<![\d.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:[ \t]?([百千万亿]{1,2})|[ \t]?([%％]))?")
_CN_RUN_RE = re.compile(rf"{_CN}+")






def format_number(value: float) -> str:
    """3420.0 → '3420', 0.75 → '0.75', 3419.999 → '3420', 170.625 → '170.63': at most two decimals, half up
    (core.language.money's one rule for amounts)."""
    return format_amount(value)


def parse_chinese_numeral(run: str) -> int | None:
    """Read a run of Chinese numeral characters: 十二 → 12, 一万二 → 12000, 二〇二四 → 2024."""
    if not run or any(ch not in _DIGITS and ch not in _SMALL_UNITS and ch not in _BIG_UNITS for ch in run):
        return None
    if all(ch in _DIGITS for ch in run):
        return int("".join(str(_DIGITS[ch]) for ch in run))
    if run[0] in _BIG_UNITS or run[0] in "百佰千仟":
        return None  # 「万」「千」 alone are not amounts
    total = section = number = 0
    for ch in run:
        if ch in _DIGITS:
            number = _DIGITS[ch]
        elif ch in _SMALL_UNITS:
            section += (number or 1) * _SMALL_UNITS[ch]
            number = 0
        elif ch == "万":
            total += (section + number) * 10_000
            section = number = 0
        else:  # 亿
            total = (total + section + number) * 100_000_000
            section = number = 0
    # Spoken shorthand: 一万二 is 12000 and 三千五 is 3500, the last digit scales to the unit below.
    if len(run) >= 2 and run[-1] in _DIGITS and run[-2] in "百佰千仟万":
        below = {"百": 10, "佰": 10, "千": 100, "仟": 100, "万": 1000}[run[-2]]
        number *= below
    return total + section + number


def _mask(text: str) -> str:
    """The text with labels and numeral idioms blanked out, same length as `text`."""
    scan = text.translate(FULL_WIDTH)
    for pattern in (CITATION_RE, _LIST_MARK_RE, _IDIOM_RE):
        scan = pattern.sub(lambda m: "\0" * len(m.group()), scan)
    return scan


def _unit_end(scan: str, end: int) -> int:
    match = _UNIT_RE.match(scan, end)
    return match.end() if match else end


def _is_lone_one_quantity(scan: str, start: int, end: int) -> bool:
    if start > 0 and scan[start - 1] == "第":
        return True
    unit = _UNIT_RE.match(scan, end)
    # 「一点」 is far more often "a little" than "one o'clock".
    return unit is not None and unit.group().strip() != "点"


def extract_figures(text: str) -> tuple[Figure, ...]:
    """Every quantity in `text`, in order of position, with spans into `text`."""
    scan = _mask(text)
    found: list[tuple[int, int, float, bool]] = []
    taken = bytearray(len(scan))

    def claim(start: int, end: int, value: float, percent: bool, *, unit: bool = True) -> None:
        if any(taken[start:end]):
            return
        if unit:
            end = _unit_end(scan, end)
        if start > 0 and scan[start - 1] == "第":
            start -= 1
        taken[start:end] = b"\1" * (end - start)
        found.append((start, end, value, percent))

    for match in _TIME_RE.finditer(scan):
        claim(match.start(), match.end(), int(match.group(1)) + int(match.group(2)) / 60, False, unit=False)
    for match in _CN_PERCENT_RE.finditer(scan):
        raw = match.group(1)
        value = float(raw) if raw[0].isdigit() else parse_chinese_numeral(raw)
        if value is not None:
            claim(match.start(), match.end(), float(value), True, unit=False)
    for match in _CN_FRACTION_RE.finditer(scan):
        denominator, numerator = (parse_chinese_numeral(g) for g in match.groups())
        if denominator and numerator is not None:
            claim(match.start(), match.end(), numerator / denominator, False, unit=False)
    for match in _ARABIC_RE.finditer(scan):
        integer, decimals, multiplier, percent_sign = match.groups()
        value = float(integer.replace(",", "") + (decimals or ""))
        for ch in multiplier or "":
            value *= {"百": 100, "千": 1000, "万": 10_000, "亿": 100_000_000}[ch]
        claim(match.start(), match.end(), value, bool(percent_sign), unit=not percent_sign)
    for match in _CN_RUN_RE.finditer(scan):
        start, end, run = match.start(), match.end(), match.group()
        if run == "一" and not _is_lone_one_quantity(scan, start, end):
            continue
        if len(run) > 1 and all(ch in _DIGITS for ch in run) and not set(run) & set("零〇"):
            # 「两三天」「一二级」 name several small numbers, not 23 or 12: one figure per digit.
            for offset, ch in enumerate(run):
                claim(start + offset, start + offset + 1, float(_DIGITS[ch]), False, unit=offset == len(run) - 1)
            continue
        value = parse_chinese_numeral(run)
        if value is not None:
            claim(start, end, float(value), False)

    found.sort()
    return tuple(Figure(text[s:e], (s, e), v, p) for s, e, v, p in found)


@lru_cache(maxsize=512)
def value_keys(text: str) -> frozenset[float]:
    """All values present in `text` (cached: the same references are checked sentence after sentence)."""
    keys: set[float] = set()
    for figure in extract_figures(text):
        keys |= figure.keys
    return frozenset(keys)
