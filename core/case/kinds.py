"""The registry of the student's-case fact kinds: what a question says about the student, one small function each.

`KINDS` is the program: core.case.reader runs, in this order, every kind switched on, and each reads one fact of
the student's situation from the question — with its words in core/data/case_words.txt and the school's level
names and numbers from core.facts (never from code). A kind's function takes the `Reading` (the question, the
school facts, the question's figures, the kinds read before it) and returns the values it read (empty: not
stated). `KindSet` says which kinds are on; `parse_kinds` reads the XIAOE_CASE_KINDS syntax (empty: all;
`-discount,-rough`: all but these; `none`; or a list of the kinds to keep), as core.answerability.rules does.
Every kind is named in docs/grounding.md with an example; bench.case_kinds ablates them one at a time.
Left out: anything the documents do not decide on (names, reasons, feelings).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from core.case.figures import HALF, LESSONS, LEVEL, MONEY, ORDINAL, REMAINING, WEEKS, KindedFigure, question_figures
from core.case.words import alt, said, words
from core.errors import ConfigError
from core.language.figures import parse_chinese_numeral
from core.values.facts import Level, SchoolFacts

ENV_NAME = "XIAOE_CASE_KINDS"
_NUM = "[〇零一二两三四五六七八九十百\\d]"
_TIMES_RE = re.compile(rf"(?:第|头)\s*({_NUM}{{1,3}})\s*[次回]|(头)[次回]")  # 第二次, 头一回 / 头回 (the first)
# 「12 岁」, or 「满18了」 (满 and a number closing its clause: reaching an age)
_AGE_RE = re.compile(rf"({_NUM}{{1,3}})\s*岁|(?<=满)\s*({_NUM}{{1,2}})(?=\s*(?:了|啦|呢|[，,。？?！!\s]|$))")
_SPAN_RE = re.compile(r"([半一二两三四五六七八九十\d]{1,3})\s*(个月|年)")
_CLOCK_RE = re.compile(rf"{alt('day_part')}?\s*(\d{{1,2}}|[一二两三四五六七八九十]{{1,3}})\s*(?:点|时|[:：](?=\d{{2}}))")
_CLOCK_PART_RE = re.compile(alt("day_part"))
_CLOCK_AFTER_RE = re.compile(alt("clock_after"))
_LEVEL_COUNT_RE = re.compile(rf"(?<![第每])({_NUM}{{1,2}})\s*个\s*级(?:别)?")
_DISCOUNT_RATE_RE = re.compile(r"(?:打了?|按|是)?\s*([一二三四五六七八九\d]{1,2}(?:\.\d)?)\s*折(?!扣)")
# 「要转3次班」「换两次」: how many transfers in all (not 转过2次, transfers so far; not 第3次, which one).
_COUNT_RE = re.compile(rf"(?<!第){alt('moved')}(?!过)了?\s*({_NUM}{{1,2}})\s*[次回]")
_BEFORE_COUNT_RE = re.compile(rf"{alt('moved')}[过了]\s*({_NUM}{{1,2}})\s*[次回]")  # 转过2次, 转了两回: the next is the 3rd
# 「再转两次」「还要转两次」: transfers to come after those made.
_MORE_RE = re.compile(rf"{alt('more_verb')}\s*{alt('moved')}(?!过)\s*({_NUM}{{1,2}})\s*[次回]")
_HALF_RE = re.compile(rf"{alt('half_verb')}{alt('half_done', optional=True)}\s*{alt('half_adverb', optional=True)}\s*一半")
_BOOK, _BOOK_STRICT = alt("book"), alt("book_strict")
_RECEIVED_RE = re.compile(rf"{_BOOK}{alt('book_adverb', optional=True)}{alt('get')}{alt('got')}|"
                          rf"{alt('get')}{alt('got')}{_BOOK}")
_NOT_RECEIVED_RE = re.compile(rf"{_BOOK}{alt('book_adverb', optional=True)}{alt('not_got')}")
_AMOUNT = rf"\s*{_NUM}*\s*(?:元|块)?(?:的)?"
# The amount paid includes the textbook: 「连教材一共交了3880」「学费加教材 4480」「交了4480 含280教材费」.
_INCLUDES_RE = re.compile(rf"{alt('contains')}{_AMOUNT}{_BOOK}")
_WITH_RE = re.compile(rf"{alt('with_joiner')}\s*{_BOOK}(?:费)?|{_BOOK_STRICT}(?:费)?{alt('together')}|"
                      + _INCLUDES_RE.pattern)
_BOOK_AMOUNT_RE = re.compile(rf"{_BOOK}(?:费)?\s*{alt('paid_verb', optional=True)}\s*(?:\d|[二两三四五六七八九]|一(?![共起下]))")
# An amount that is the textbook's own price (「教材那280」「那280的书本费」), not what the student paid.
_BOOK_BEFORE_RE = re.compile(rf"{_BOOK}(?:费)?{alt('book_said_as', optional=True)}\s*$")
# Right after the figure (「280的书本费」); after a space only the textbook's fee named (「那 280 书本费」) and not after
# an amount paid: in 「交了5080 教材已经领了」「学费4800 教材280」 the next clause is about the textbook.
_BOOK_AFTER_RE = re.compile(rf"^(?:元|块)?(?:钱)?(?:的|那)?(?:本)?{_BOOK}|^\s+{_BOOK_STRICT}费")
_PAID_BEFORE_RE = re.compile(rf"(?:学费|实付|{alt('paid_verb')})\s*$")
_ROUGH_AFTER_RE = re.compile(rf"^\s*(?:元|块)?\s*(?!{alt('rough_not_after')}){alt('rough_after')}")
_ROUGH_BEFORE_RE = re.compile(rf"{alt('rough_before')}\s*{alt('paid_verb', optional=True)}\s*$")
_CLAUSE_RE = re.compile(r"[\s,，。；;！!？?、（）()]+")
_LIST_PRICE_RE = re.compile(rf"{alt('list_price')}\s*(?:是|为|[:：])?\s*$")
_LATIN_LEVEL = r"(?:level|(?<![A-Za-z])L)\s*(\d{1,2})(?![0-9])"
_SMALL = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}


@dataclass
class Reading:
    """One question being read: its text, the school facts, its figures, and the kinds read so far."""

    text: str
    facts: SchoolFacts
    figures: tuple[KindedFigure, ...]
    found: dict[str, frozenset[object]] = field(default_factory=dict)

    @property
    def compact(self) -> str:
        return re.sub(r"\s+", "", self.text)


def number(written: str) -> float:
    """「6」「六」「十二」「两」「半」 → its value (0 when it is none of these)."""
    if written.replace(".", "", 1).isdigit():
        return float(written)
    if written == "半":
        return 0.5
    if len(written) > 1 and all(ch in _SMALL and ch != "十" for ch in written):
        return float(_SMALL[written[0]])  # 「七八点」「两三节」: the first of several small numbers
    parsed = parse_chinese_numeral(written)
    return float(parsed) if parsed is not None else 0.0


# -- levels: named by the documents' names, 「N级」 or level N / LN -------------------------------------------

@lru_cache(maxsize=16)
def _level_patterns(levels: tuple[Level, ...]) -> tuple[re.Pattern[str] | None, re.Pattern[str], re.Pattern[str]]:
    """(names, latin, target) patterns for the documents' levels (cached per set of levels)."""
    names = sorted({w for lv in levels for w in lv.words}, key=len, reverse=True)
    name_re = re.compile("|".join(map(re.escape, names))) if names else None
    level_word = "|".join([*map(re.escape, names), rf"{_NUM}{{1,2}}级", _LATIN_LEVEL.replace("(\\d", "(?:\\d")])
    target = re.compile(rf"{alt('target_verb')}\s*({level_word})", re.IGNORECASE)
    return name_re, re.compile(_LATIN_LEVEL, re.IGNORECASE), target


def latin_level_letters(text: str) -> set[str]:
    """The Latin word of every level written 「L3」「level 2」 in `text` (lowercased: {"l"}), for the gate to leave out."""
    return {m.group(0)[:m.start(1) - m.start(0)].strip().lower() for m in re.finditer(_LATIN_LEVEL, text, re.IGNORECASE)}


def level_number(word: str, facts: SchoolFacts) -> int | None:
    """入门级 / 一级 / 1级 / level 1 / L1 → 1 (None when the documents have no such level)."""
    for level in facts.levels:
        if word in level.words:
            return level.number
    latin = re.fullmatch(_LATIN_LEVEL, word, re.IGNORECASE)
    value = int(latin.group(1)) if latin else int(number(word.rstrip("级")))
    return value if value and (not facts.levels or value in facts.level_numbers) else None


def lessons_taken(reading: Reading, told: list[KindedFigure]) -> tuple[float, ...]:
    """The lessons attended from the counts the question tells, as the counts to add: one count (or the same count
    again) is it; a later count said as more (「上了5节 上周又上了2节」, list `more_lessons`) adds to the earlier; other
    different counts are not guessed (() : the lessons are asked for)."""
    if not told:
        return ()
    if len({k.figure.value for k in told}) == 1:
        return (told[0].figure.value,)
    more = tuple(words("more_lessons"))
    if all(any(w in reading.text[_clause(reading.text, k.figure.span[0])[0]:k.figure.span[0]] for w in more)
           for k in told[1:]):
        return tuple(k.figure.value for k in told)
    return ()


def _clause(text: str, at: int) -> tuple[int, int]:
    """Where the clause holding position `at` starts and ends (at the separators of _CLAUSE_RE)."""
    start = max((m.end() for m in _CLAUSE_RE.finditer(text, 0, at)), default=0)
    end = next((m.start() for m in _CLAUSE_RE.finditer(text, at)), len(text))
    return start, end


def refund_level_first(reading: Reading, levels: tuple[int, ...]) -> tuple[int, ...]:
    """Two or more levels named and a refund asked without a move (「报了二级和四级 想把四级退了」): the level named in
    the clause that asks the refund comes first (it is the one refunded); otherwise the order stays."""
    if len(levels) < 2 or not said(reading.text, "refund_intent"):
        return levels
    for clause in _CLAUSE_RE.split(reading.text):
        if not said(clause, "refund_intent"):
            continue
        part = Reading(clause, reading.facts, question_figures(clause, reading.facts.level_numbers or None))
        here = [lv for lv in levels_in_order(part) if lv in levels]
        if len(here) == 1:
            return (here[0], *(lv for lv in levels if lv != here[0]))
    return levels


def priced_levels(reading: Reading) -> list[tuple[int, int]]:
    """(where, level) for each amount followed by a word naming the level it is the price of (「4650那一档」「5130那个
    级别」, list `price_level`), when exactly one level's tuition in the documents is that amount."""
    out = []
    level_words = tuple(sorted(words("price_level"), key=len, reverse=True))
    for k in reading.figures:
        if k.kind != MONEY:
            continue
        after = reading.text[k.figure.span[1]:k.figure.span[1] + 6].lstrip()
        after = after[1:].lstrip() if after[:1] in ("元", "块") else after
        if not after.startswith(level_words):
            continue
        priced = [f.value[0] for f in reading.facts.tuition if abs(f.value[1] - k.figure.value) < 0.005]
        if len(priced) == 1:
            out.append((k.figure.span[0], int(priced[0])))
    return out


def levels_in_order(reading: Reading) -> tuple[int, ...]:
    """Every level the question names, in the order named (二级转到三级 → (2, 3)); a level may be named by its price
    (`priced_levels`)."""
    name_re, latin_re, _ = _level_patterns(reading.facts.levels)
    named: list[tuple[int, int]] = [(k.figure.span[0], int(k.figure.value)) for k in reading.figures if k.kind == LEVEL]
    named += priced_levels(reading)
    taken = {start for start, _ in named}
    if name_re is not None:
        for match in name_re.finditer(reading.text):
            if not any(start <= match.start() < start + 3 for start in taken):
                found = level_number(match.group(0), reading.facts)
                if found is not None:
                    named.append((match.start(), found))
    for match in latin_re.finditer(reading.text):
        found = level_number(match.group(0), reading.facts)
        if found is not None:
            named.append((match.start(), found))
    return tuple(dict.fromkeys(lv for _, lv in sorted(named)))


def targets(reading: Reading) -> list[int]:
    """The levels named after a word of moving (「转到四级」); without one, the second of exactly two levels when the
    question asks for their difference (「现在上会话级 老师说可以上演讲级 要补多少差价」)."""
    _, _, target_re = _level_patterns(reading.facts.levels)
    out = []
    for match in target_re.finditer(reading.text):
        found = level_number(match.group(1), reading.facts)
        if found is not None:
            out.append(found)
    verbs = tuple(w for w in words("target_verb") if len(w) >= 2)
    for start, found in priced_levels(reading):  # 「想转到6090那个级别」
        if reading.text[max(0, start - 4):start].rstrip().endswith(verbs):
            out.append(found)
    if not out and said(reading.text, "two_level_move"):
        named = levels_in_order(reading)
        if len(named) == 2:
            out.append(named[1])
    return out


# -- the amount and what it is ----------------------------------------------------------------------------------

def textbook_price(text: str, span: tuple[int, int]) -> bool:
    """Whether the figure at `span` is the textbook's price the student mentions, not an amount they paid."""
    before = text[max(0, span[0] - 8):span[0]]
    after = _BOOK_AFTER_RE.match(text[span[1]:span[1] + 8])
    return bool(_BOOK_BEFORE_RE.search(before) or (after and not (after.group(0)[:1].isspace()
                                                                     and _PAID_BEFORE_RE.search(before))))


def rough(text: str, span: tuple[int, int]) -> bool:
    """Whether the amount at `span` is said roughly: 「五千多」「3000左右」「大概四千」."""
    return bool(_ROUGH_AFTER_RE.match(text[span[1]:span[1] + 6]) or _ROUGH_BEFORE_RE.search(text[max(0, span[0] - 6):span[0]]))


def includes_textbook(text: str) -> bool:
    """Whether the amount the student says they paid includes the textbook fee (「连教材一共交了3880」「交了4480
    含280教材费」); 「学费4800+教材280」 states the textbook's own amount, so the 4800 is the tuition."""
    if _INCLUDES_RE.search(text):
        return True
    return bool(_WITH_RE.search(text)) and not _BOOK_AMOUNT_RE.search(text)


def list_price(text: str, span: tuple[int, int]) -> bool:
    """Whether the figure at `span` is a single price the student quotes (「原价4800」「标价是5600」) while saying a
    discount elsewhere (「打了九折」「联报的」): then it is not what they paid."""
    if not _LIST_PRICE_RE.search(text[max(0, span[0] - 8):span[0]]):
        return False
    return any(said(c, "discount") or _DISCOUNT_RATE_RE.search(c) for c in _CLAUSE_RE.split(text)
               if not said(c, "discount_request"))


def own_money(reading: Reading) -> list[KindedFigure]:
    return [k for k in reading.figures if k.kind == MONEY and not k.role
            and not textbook_price(reading.text, k.figure.span) and not list_price(reading.text, k.figure.span)]


def tuition_and_total(reading: Reading) -> tuple[KindedFigure, KindedFigure] | None:
    """Two amounts the student paid where one is the other plus the textbook fee the documents state
    (「拼团价3800，加教材一共4080」: 3800 + 280): (the tuition, the total with the textbook), whichever order they
    are said in; None otherwise."""
    book = reading.facts.textbook_fee
    if book is None:
        return None
    money = own_money(reading)
    for tuition in money:
        for total in money:
            if total is not tuition and round(tuition.figure.value + book.value, 2) == round(total.figure.value, 2):
                return tuition, total
    return None


# -- the kinds ----------------------------------------------------------------------------------------------------

def money(r: Reading) -> Iterable[object]:
    """金额 — 「交了4200」「四千二」: what the student paid (the textbook's own price 「教材那280」 is not)."""
    return {k.key for k in own_money(r)}


def rough_amount(r: Reading) -> Iterable[object]:
    """大概的金额 — 「五千多」「三千左右」「大概四千」: an amount said roughly is no figure to compute with."""
    return {"rough"} if any(rough(r.text, k.figure.span) for k in own_money(r)) else set()


def discount_said(text: str) -> bool:
    """Whether `text` says a discount at all (a student asking for one too): 「打九折」「联报」「优惠」."""
    return not said(text, "full_price") and (said(text, "discount") or bool(_DISCOUNT_RATE_RE.search(text)))


def discount(r: Reading) -> Iterable[object]:
    """优惠 — 「打九折」「打了九折以后」「联报优惠报的」: the student paid another price than the single one (「原价」
    「没走什么优惠」 say they did not; 「能打折吗」「给我打个九折呗」 ask for one, in the same clause). The value is the
    rate when said (九折), else 优惠. With the amount actually paid said (「活动价实付1600」) the amount is the case."""
    out: set[object] = set()
    if "money" in r.found:
        return out
    for clause in _CLAUSE_RE.split(r.text):
        if not discount_said(clause) or said(clause, "discount_request"):
            continue
        rates = {m.group(1) + "折" for m in _DISCOUNT_RATE_RE.finditer(clause)}
        out |= rates or {"优惠"}
    return out


def with_textbook(r: Reading) -> Iterable[object]:
    """金额是否含教材费 — 「连教材一共交了3880」「交了4480 含280教材费」「学费多少 含教材费吗」: the amount paid (or asked
    about) includes the textbook fee; a general 「学费包含教材费吗」 (no amount, no level) states no case. An amount
    that is exactly the named level's tuition plus the textbook fee the documents state, said with the textbook
    (「四级 还没开课 教材也领了 一共交了5880」: 5600 + 280), includes it too."""
    specific = own_money(r) or any(k.kind == MONEY for k in r.figures) or "level" in r.found
    if tuition_and_total(r) is not None:  # the tuition is said on its own: the amount to compute with excludes it
        return set()
    if specific and includes_textbook(r.text):
        return {"included"}
    book = r.facts.textbook_fee
    if book is None or not said(r.text, "book_strict"):
        return set()
    levels = [int(lv) for lv in r.found.get("level", ()) if isinstance(lv, float)]
    sums = {round(t.value[1] + book.value, 2) for lv in levels if (t := r.facts.tuition_of(lv)) is not None}
    return {"included"} if any(round(k.figure.value, 2) in sums for k in own_money(r)) else set()


def level(r: Reading) -> Iterable[object]:
    """级别 — 「二级」「流利级」「level 2」「L2」: the levels the documents have, by their names or numbers."""
    return {float(lv) for lv in levels_in_order(r)}


def target(r: Reading) -> Iterable[object]:
    """要转到的级别 — 「转到四级」「升二级」「二级转三级」."""
    return {float(lv) for lv in targets(r)}


def level_count(r: Reading) -> Iterable[object]:
    """几个级别 — 「上完三个级别」: two or more levels (一个级别 is what a general question says)."""
    return {n for m in _LEVEL_COUNT_RE.finditer(r.text) if (n := number(m.group(1))) >= 2}


def lessons(r: Reading) -> Iterable[object]:
    """课时 — 「上了6节课」「上过4次」「六个课时」: the lessons the student attended."""
    return {k.key for k in r.figures if k.kind == LESSONS and not k.role}


def remaining(r: Reading) -> Iterable[object]:
    """剩余课时 — 「还剩十节没上」: the lessons left, not the ones taken."""
    return {k.key for k in r.figures if k.kind == LESSONS and k.role == REMAINING}


def half(r: Reading) -> Iterable[object]:
    """已上课时 — 「上了一半」「上满一半」: half the level's lessons attended."""
    return {"half"} if _HALF_RE.search(r.text) or any(k.role == HALF for k in r.figures) else set()


def weeks(r: Reading) -> Iterable[object]:
    """周数 — 「上了两周」: lessons follow from the documents' lessons a week."""
    return {k.key for k in r.figures if k.kind == WEEKS and not k.role}


def started(r: Reading) -> Iterable[object]:
    """是否已开课 — 「还没开课」「课还没开始」 (before) or 「开课后」, or any lessons taken (after); a bare
    「不想上了」 says nothing."""
    if said(r.text, "before"):
        return {"before"}
    taken = any(v > 0 for v in r.found.get("lessons", ()))  # type: ignore[operator]
    if said(r.text, "after") or taken or "half" in r.found or "remaining" in r.found:
        return {"after"}
    return set()


def _clause_says(text: str, at: int, words: str) -> bool:
    """Whether the clause holding position `at` says a word of the list `words`."""
    start, end = _clause(text, at)
    return said(text[start:end].replace("的话", ""), words)


def _past_clause(text: str, at: int) -> bool:
    """Whether the clause holding position `at` tells a transfer already made (「第一次是开课后第2节转的」「第二次交过
    钱了」「第一次转线上没收钱」), not the one asked about (「第一次转的话要钱吗」「第一次转班没收钱吧？」 ask)."""
    end = _clause(text, at)[1]
    if text[end:end + 1] in ("？", "?") or text[:end].rstrip().endswith(("吗", "吧", "呢", "么")):
        return False
    return _clause_says(text, at, "past_transfer")


def made_transfers(text: str) -> float:
    """How many transfers the question says were made: 「转过3次」 (3), or the last told in a clause about a past one
    (「第二次交过钱了」: 2); 0 when it says none."""
    made = 0.0
    for match in _TIMES_RE.finditer(text):
        if match.group(1) and _past_clause(text, match.start()):
            made = max(made, number(match.group(1)))
    done = _BEFORE_COUNT_RE.search(text)
    if done and number(done.group(1)) > 0:
        made = max(made, number(done.group(1)))
    return made


def times(r: Reading) -> Iterable[object]:
    """第几次 — 「第二次转班」「头一回」(1)、「已经转过一次」「又要转」(2)、「转过两次了」(3)、「之前没转过」(1).
    The transfer asked about comes after every one the student tells as made: 「已经转过3次班了（第一次是开课后第2节
    转的），现在想第4次转」 is the 4th, 「转过两次了，第一次免费转的，第二次交过钱了」 the 3rd (a 第N次 in a clause telling
    a past transfer counts as made). A 第N次 asked about that comes before the transfers made is read as nothing
    (the figure is asked for, never guessed). A 第N次 in a clause telling a rule the student knows (「第一次转班免费我
    知道」, list `known_rule`) is neither asked nor made."""
    asked: set[float] = set()
    for match in _TIMES_RE.finditer(r.text):
        value = number(match.group(1) or "一")  # 头回 is the first time
        if value and not (match.group(1) and _past_clause(r.text, match.start())) \
                and not _clause_says(r.text, match.start(), "known_rule"):
            asked.add(value)
    made = made_transfers(r.text)
    if asked:
        return asked if not made or min(asked) > made else set()
    if made:
        return {made + 1}
    if said(r.text, "never_moved"):
        return {1.0}
    if said(r.text, "again"):
        return {2.0}
    return set()


def transfer_count(r: Reading) -> Iterable[object]:
    """转几次 — 「这学期要转3次班…一共多少」: how many transfers the student asks the total fee of (only with a word
    asking for a total, 「一共」「加起来」: otherwise 「转两次」 is which transfer, read by `times`)."""
    if not said(r.text, "sum_asked"):
        return set()
    return {n for m in _COUNT_RE.finditer(r.text) if (n := number(m.group(1))) >= 2}


def more_transfers(r: Reading) -> Iterable[object]:
    """再转几次 — 「如果我再转两次」「还要转两次」: how many transfers after those already made the student asks the fee
    of (two or more; 「再转一次」 is the next one, read by `times`)."""
    return {n for m in _MORE_RE.finditer(r.text) if (n := number(m.group(1))) >= 2}


def full_price(r: Reading) -> Iterable[object]:
    """按单报学费交的 — 「原价报的」「按标价交的」「没用任何优惠」: the student paid their level's single price, so the
    documents' price is the amount paid (without it, or with a discount, the amount paid is asked for)."""
    return {"full"} if said(r.text, "full_price") and "discount" not in r.found else set()


def age(r: Reading) -> Iterable[object]:
    """年龄 — 「12 岁」「满18了」."""
    return {m.group(1) or m.group(2) for m in _AGE_RE.finditer(r.text)}


def minor(r: Reading) -> Iterable[object]:
    """是否成年 — 「孩子还没成年」 (minor) or 「已经成年了」 (adult): the documents say who applies for a minor."""
    if said(r.text, "minor"):
        return {"minor"}
    return {"adult"} if said(r.text, "adult") else set()


def span(r: Reading) -> Iterable[object]:
    """时长 — 「半年」 = 「六个月」: a span in months."""
    return {f"{number(m.group(1)) * (12 if m.group(2) == '年' else 1):g} 个月" for m in _SPAN_RE.finditer(r.text)}


def clock(r: Reading) -> Iterable[object]:
    """钟点 — 「晚上十点」 = 「22点」 (the 24-hour clock); 「便宜一点」 is not one."""
    out = set()
    for match in _CLOCK_RE.finditer(r.text):
        part = _CLOCK_PART_RE.match(match.group(0))
        written = match.group(1)
        if part or written.isdigit() or _CLOCK_AFTER_RE.match(r.text, match.end()):
            hour = number(written)
            if part and part.group(0) in words("late") and hour < 12:
                hour += 12
            out.add(f"{hour:g} 点")
    return out


def textbook(r: Reading) -> Iterable[object]:
    """教材是否已领 — 「教材已经领了」 (received) or 「教材还没领」 (not received)."""
    if _NOT_RECEIVED_RE.search(r.compact):
        return {"not_received"}
    return {"received"} if _RECEIVED_RE.search(r.compact) else set()


@dataclass(frozen=True)
class Kind:
    """One named fact kind: its Chinese name (shown when two questions' cases differ) and its function."""

    name: str
    label: str
    function: Callable[[Reading], Iterable[object]]


# Two earlier kinds, days (「三天前交的」) and date (「3 月 5 号」), were removed: switched off they changed nothing on
# any labelled set (bench.case_kinds --ablation, docs/grounding.md).
# In the order the reader runs them: `discount` reads `money`, `with_textbook` reads `level`, `started` reads `lessons`,
# `half` and `remaining` before it.
KINDS: tuple[Kind, ...] = (
    Kind("money", "金额", money),
    Kind("rough", "大概的金额", rough_amount),
    Kind("discount", "优惠", discount),
    Kind("level", "级别", level),
    Kind("with_textbook", "金额是否含教材费", with_textbook),
    Kind("target", "要转到的级别", target),
    Kind("level_count", "几个级别", level_count),
    Kind("lessons", "课时", lessons),
    Kind("remaining", "剩余课时", remaining),
    Kind("half", "已上课时", half),
    Kind("weeks", "周数", weeks),
    Kind("started", "是否已开课", started),
    Kind("times", "第几次", times),
    Kind("transfer_count", "转几次", transfer_count),
    Kind("more_transfers", "再转几次", more_transfers),
    Kind("full_price", "按单报学费交的", full_price),
    Kind("age", "年龄", age),
    Kind("adult", "是否成年", minor),
    Kind("span", "时长", span),
    Kind("clock", "钟点", clock),
    Kind("textbook", "教材是否已领", textbook),
)
KIND_NAMES: tuple[str, ...] = tuple(kind.name for kind in KINDS)
LABELS: dict[str, str] = {kind.name: kind.label for kind in KINDS}
_SEPARATORS = re.compile(r"[\s,，、]+")


@dataclass(frozen=True)
class KindSet:
    """The kinds switched on."""

    enabled: frozenset[str] = frozenset(KIND_NAMES)

    def __post_init__(self) -> None:
        unknown = sorted(set(self.enabled) - set(KIND_NAMES))
        if unknown:
            raise ConfigError(_unknown_message(unknown))

    def on(self, name: str) -> bool:
        if name not in KIND_NAMES:
            raise KeyError(name)
        return name in self.enabled

    def without(self, *names: str) -> KindSet:
        return KindSet(self.enabled - set(names))

    @property
    def kinds(self) -> tuple[Kind, ...]:
        return tuple(kind for kind in KINDS if kind.name in self.enabled)

    @property
    def label(self) -> str:
        """「全部种类」 or 「全部种类，除了 discount、rough」 — how a run names its kinds."""
        off = [name for name in KIND_NAMES if name not in self.enabled]
        if not off:
            return "全部种类"
        return "不用任何种类" if not self.enabled else f"全部种类，除了 {'、'.join(off)}"


ALL_KINDS = KindSet()


def _unknown_message(unknown: list[str]) -> str:
    return (f"学员情况的种类设置 {ENV_NAME} 里有不认识的种类：{'、'.join(unknown)}。可用的种类：{', '.join(KIND_NAMES)}。"
            "写法：留空表示全部启用；“-discount,-rough”表示关掉这两种；“none”表示全部关掉；也可以直接列出要启用的种类。")


def parse_kinds(spec: str | None) -> KindSet:
    """A KindSet from `spec` (see the module docstring); raises ConfigError in Chinese on bad input."""
    items = [item for item in _SEPARATORS.split((spec or "").strip()) if item]
    if not items or items == ["all"]:
        return ALL_KINDS
    if items == ["none"]:
        return KindSet(frozenset())
    off = [item[1:] for item in items if item.startswith("-")]
    keep = [item.lstrip("+") for item in items if not item.startswith("-")]
    unknown = sorted({name for name in (*off, *keep) if name not in KIND_NAMES})
    if unknown:
        raise ConfigError(_unknown_message(unknown))
    if off and keep:
        raise ConfigError(f"学员情况的种类设置 {ENV_NAME}（{spec}）不能同时列出要关掉的种类（带 -）和要启用的种类。")
    return ALL_KINDS.without(*off) if off else KindSet(frozenset(keep))


__all__ = ["ALL_KINDS", "KINDS", "KIND_NAMES", "LABELS", "Kind", "KindSet", "Reading", "latin_level_letters", "parse_kinds",
           "LESSONS", "LEVEL", "MONEY", "ORDINAL", "REMAINING", "WEEKS", "HALF"]
