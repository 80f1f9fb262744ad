"""Read facts whose value may differ by level: lessons per level, lessons a week, weeks to finish, the over-half limit.

The documents state such a fact for every level (「每一级都是 16 课时」), for a group of levels (「入门级、进阶级、畅谈级和
商务级（一级至四级）每级都是 20 课时」「1–4 级」「入门级到商务级」) or for one level (「卓越级（五级）为 24 课时」). A
sentence is cut into clauses (at ，：); a clause states a level's value when the levels it names (by the documents'
names, 「N级」, or a range between two of them) are followed by the figure with only linking words between
(core/data/fact_words.txt: `per_level_link`); a clause naming no level states the value for every level when it
says so (「每一级」「各级」). A clause naming no level in a sentence that named some (「…（一级至四级）每级都是 20 课时，
每周上 2 课时，十周结课」) speaks of the levels named before it. The first statement for a level wins, as for every fact.
Nothing here knows a level's name or a number: the documents do.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Protocol

from core.facts.words import fact_words, has
from core.language.figures import extract_figures, parse_chinese_numeral
from core.values.facts import Fact, Level, PerLevel, Source


class Sentence(Protocol):
    """A sentence of the documents with where it is written (core.facts.reader.Line)."""

    @property
    def text(self) -> str: ...

    @property
    def source(self) -> Source: ...

_CLAUSE_RE = re.compile(r"[^，,：:]+")
_NUMERAL = "[〇零一二两三四五六七八九十\\d]{1,3}"
_BRACKETS = "（）()、 \t和及与"
_CUT_AT = str.maketrans({c: "\n" for c in "，,：:、；;（）()"})  # where `first_common` cuts a sentence into clauses


def _number(written: str) -> int | None:
    written = written.strip().rstrip("级").strip()
    return int(written) if written.isdigit() else parse_chinese_numeral(written)


@lru_cache(maxsize=16)
def _patterns(levels: tuple[Level, ...]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(range, mention) patterns for the documents' levels: 「一级至四级」「1–4 级」「入门级到商务级」 and one level."""
    names = sorted({w for lv in levels for w in lv.words}, key=len, reverse=True)
    word = "|".join([*map(re.escape, names), rf"(?<![每各第]){_NUMERAL}\s*级"])  # 每一级 names no level
    joiners = "|".join(map(re.escape, sorted(fact_words()["level_range"], key=len, reverse=True)))
    range_re = re.compile(rf"({word}|(?<![每各第]){_NUMERAL})\s*(?:{joiners})\s*({word})")
    return range_re, re.compile(word)


def _level_of(word: str, levels: tuple[Level, ...]) -> int | None:
    for level in levels:
        if word in level.words:
            return level.number
    found = _number(word)
    return found if found in {lv.number for lv in levels} else None


def named_levels(text: str, levels: tuple[Level, ...]) -> tuple[set[int], int]:
    """The levels `text` names (ranges spelled out) and where the last naming ends (0 when it names none)."""
    if not levels:
        return set(), 0
    range_re, mention_re = _patterns(levels)
    found: set[int] = set()
    end = 0
    masked = text
    for match in range_re.finditer(text):
        low, high = _level_of(match.group(1), levels), _level_of(match.group(2), levels)
        if low is None or high is None:
            continue
        found |= {lv.number for lv in levels if min(low, high) <= lv.number <= max(low, high)}
        end = max(end, match.end())
        masked = masked[:match.start()] + " " * (match.end() - match.start()) + masked[match.end():]
    for match in mention_re.finditer(masked):
        number = _level_of(match.group(0), levels)
        if number is not None:
            found.add(number)
            end = max(end, match.end())
    return found, end


def _only_links(text: str, name: str) -> bool:
    """Whether `text` holds nothing but the linking words of `name` (and brackets, spaces, 、)."""
    rest = text
    for word in sorted(fact_words()[name], key=len, reverse=True):
        rest = rest.replace(word, "")
    return not rest.strip(_BRACKETS)


Pick = Callable[[str], "tuple[float, int] | None"]  # clause → (value, where the figure starts), or None


def read_per_level(sents: Sequence[Sentence], levels: tuple[Level, ...], name: str, pick: Pick,
                   link: str, common_word: str) -> PerLevel | None:
    """The per-level fact `name` from the sentences (core.facts.reader.Line): `pick` finds a clause's figure; the text
    between the levels named (or the clause's start) and the figure must be only `link` words; a clause naming no
    level states the common value when it has a `common_word`, or the value of the levels its sentence named before."""
    common: Fact | None = None
    own: dict[int, Fact] = {}
    for s in sents:
        text = s.text
        scope: set[int] = set()
        for piece in (part for clause in _CLAUSE_RE.finditer(text) for part in _listed(clause.group(), levels, pick)):
            named, end = named_levels(piece, levels)
            picked = pick(piece)
            if named:
                scope = named
            if picked is None:
                continue
            value, at = picked
            fact = Fact(name, value, s.source)
            if named and end <= at and _only_links(piece[end:at], link):
                for number in sorted(named):
                    own.setdefault(number, fact)
            elif not named and _only_links(piece[:at], link) and common_word and has(piece, common_word):
                if scope:
                    for number in sorted(scope):
                        own.setdefault(number, fact)
                elif common is None:
                    common = fact
            elif not named and scope and _only_links(piece[:at], link):
                for number in sorted(scope):  # 「…（一级至四级）每级都是 20 课时，十周结课」: the weeks of 一级至四级
                    own.setdefault(number, fact)
    if common is None and not own:
        return None
    return PerLevel(common, tuple(sorted(own.items())))


def _listed(clause: str, levels: tuple[Level, ...], pick: Pick) -> list[str]:
    """A clause listing several levels' values with 、 (「即一级超过 9 课时、二级超过 12 课时、三级超过 15 课时」) as one
    clause per level; any other clause as it is (「入门级、进阶级和畅谈级每级都是 20 课时」 names levels, one value)."""
    parts = clause.split("、")
    if len(parts) > 1 and sum(1 for part in parts if named_levels(part, levels)[0] and pick(part)) >= 2:
        return parts
    return [clause]


def first_common(text: str, levels: tuple[Level, ...], pick: Pick) -> float | None:
    """The first value `pick` finds in a clause of `text` naming no level, or None when a clause naming a level states
    a value first (「…一半后，不再受理，即一级超过 9 课时、二级超过 12 课时」: 9 is the first level's, not every level's)."""
    for clause in text.translate(_CUT_AT).split("\n"):
        picked = pick(clause)
        if picked is None:
            continue
        return None if named_levels(clause, levels)[0] else picked[0]
    return None


def figure_in(unit: str, after: str = "", before: str = "") -> Pick:
    """A clause's first figure written in `unit` (after the word `after`, followed by a word of the list `before`)."""
    def pick(clause: str) -> tuple[float, int] | None:
        index = clause.find(after) if after else 0
        if index < 0:
            return None
        for figure in extract_figures(clause[index:]):
            written = figure.text.rstrip()
            if not written.endswith(unit) or written.startswith("第"):
                continue
            start = index + figure.span[0]
            tail = clause[index + figure.span[1]:]
            if before and not any(tail.lstrip().startswith(w) for w in fact_words()[before]):
                continue
            return figure.value, start
        return None
    return pick
