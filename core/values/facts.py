"""The school's facts as read from its documents: each value with the sentence it came from.

`SchoolFacts` is built once per corpus at index time (core.facts.read_facts) and travels with the index bundle
to the student's-case reader, the calculators, the checks and the Sources page. A fact the documents do not
state is absent (None) and named in `missing`, with the kind of sentence that would state it, so an answer that
needs it says which fact is missing instead of falling back on a number written in code.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import Any


@dataclass(frozen=True)
class Source:
    """Where a fact is written: the file, its section heading, the sentence, and the sentence's offsets in the file."""

    file: str
    section: str
    sentence: str
    start: int = 0
    end: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "section": self.section, "sentence": self.sentence}


@dataclass(frozen=True)
class Fact:
    """One fact: its name (a key of core.facts' registry), its value and its source."""

    name: str
    value: Any
    source: Source


@dataclass(frozen=True)
class Level:
    """A level as the documents name it: 「<name>（<number>级）」, with the shorter names a student may use."""

    number: int
    name: str
    aliases: tuple[str, ...]
    source: Source

    @property
    def words(self) -> tuple[str, ...]:
        """Every way the documents' own wording names it, longest first: the name and its aliases."""
        return tuple(sorted({self.name, *self.aliases}, key=len, reverse=True))


@dataclass(frozen=True)
class PerLevel:
    """A fact whose value may differ by level, as the documents state it: one value for every level (`common`,
    「每一级都是 16 课时」), values for some levels (`own`, 「卓越级（五级）24 课时」: (level number, Fact) each), or both;
    a level's own value wins over the common one. Each Fact's value is the plain number, its source the sentence."""

    common: Fact | None = None
    own: tuple[tuple[int, Fact], ...] = ()

    def of(self, level: int | None) -> Fact | None:
        """The fact for `level`: its own, else the common one (None when neither is stated)."""
        return next((f for n, f in self.own if n == level), None) or self.common

    @property
    def facts(self) -> tuple[Fact, ...]:
        """Every value stated, the common one first."""
        return ((self.common,) if self.common is not None else ()) + tuple(f for _, f in self.own)

    @property
    def largest(self) -> float | None:
        return max((f.value for f in self.facts), default=None)


@dataclass(frozen=True)
class Missing:
    """A fact the documents do not state: its name, what it is, and the kind of sentence that would state it."""

    name: str
    label: str
    expected: str


@dataclass(frozen=True)
class SchoolFacts:
    """Every fact the computations need; None (or empty) when the documents do not state it."""

    levels: tuple[Level, ...] = ()
    tuition: tuple[Fact, ...] = ()  # value: (level number, amount)
    lessons_per_level: PerLevel | None = None  # value: lessons (each level's, or one for all)
    lessons_per_week: PerLevel | None = None  # value: lessons
    weeks_per_level: PerLevel | None = None  # value: weeks to finish a level, when the documents state it
    refund_formula: Fact | None = None  # value: (result name, expression in words)
    fee_rule: Fact | None = None  # value: (fee name, base expression in words)
    fee_rate: Fact | None = None  # value: a fraction (0.05 for 5%)
    fee_minimum: Fact | None = None  # value: amount
    textbook_fee: Fact | None = None  # value: amount per level
    textbook_not_refunded: Fact | None = None  # value: True
    over_half: PerLevel | None = None  # value: the lesson count beyond which no refund is accepted
    half_rule: Fact | None = None  # value: True (no refund once more than half the level's lessons are attended)
    before_start: Fact | None = None  # value: True (a full refund before the course starts)
    free_transfer: Fact | None = None  # value: the lesson window of the free first transfer
    transfer_fee: Fact | None = None  # value: (from which transfer on, amount each time)
    late_transfer_fee: Fact | None = None  # value: amount of a first transfer after the free window, when stated
    level_difference: Fact | None = None  # value: True (the difference of the two tuitions, either way)
    rounding: Fact | None = None  # value: core.language.money.Rounding, when the documents state one
    service_hours: Fact | None = None  # value: (start, end) in minutes after midnight, every day (转人工)
    retention_days: Fact | None = None  # value: days conversation records are kept
    missing: tuple[Missing, ...] = ()
    files: tuple[str, ...] = field(default=())

    def level(self, number: int | None) -> Level | None:
        return next((lv for lv in self.levels if lv.number == number), None)

    @property
    def level_numbers(self) -> frozenset[int]:
        return frozenset(lv.number for lv in self.levels)

    def tuition_of(self, number: int | None) -> Fact | None:
        return next((f for f in self.tuition if f.value[0] == number), None)

    def level_name(self, number: int | None) -> str:
        """How an answer names a level: the documents' name, else 「N级」."""
        found = self.level(number)
        return found.name if found else (f"{number}级" if number is not None else "")

    def missing_named(self, name: str) -> Missing | None:
        return next((m for m in self.missing if m.name == name), None)

    def per_level(self, name: str) -> PerLevel | None:
        """The per-level fact `name` (lessons_per_level, lessons_per_week, weeks_per_level, over_half)."""
        found = getattr(self, name)
        return found if isinstance(found, PerLevel) else None

    def for_level(self, name: str, level: int | None) -> Fact | None:
        """The per-level fact `name` for `level`; for an unknown level (None), the value when every level has the
        same one (the common value when no level states its own), else None (see `differs`)."""
        found = self.per_level(name)
        if found is None:
            return None
        if level is not None:
            return found.of(level)
        values = self.by_level(name)
        if not values:
            return found.common
        distinct = {f.value for f in values.values() if f is not None}
        if len(distinct) != 1:
            return None
        value = distinct.pop()
        return found.common if found.common is not None and found.common.value == value else \
            next(f for f in values.values() if f is not None)

    def by_level(self, name: str) -> dict[int, Fact | None]:
        """{level number: its fact} for every level the documents name (empty when they name none)."""
        found = self.per_level(name)
        return {lv.number: found.of(lv.number) if found else None for lv in self.levels}

    @cached_property
    def every_level(self) -> tuple[tuple[str, ...], str]:
        """What a sentence stating one value for every level (PerLevel.common: 「每一级都是 16 课时」) is about too:
        (those sentences, the sentences naming the levels — 「…入门级（一级）、进阶级（二级）…」); the gate reads such a
        sentence as about each level a question names (core.answerability.asked). Read once per value: every ask
        uses it."""
        common = tuple(dict.fromkeys(found.common.source.sentence for each in fields(self)
                                     if (found := self.per_level(each.name)) is not None and found.common is not None))
        naming = "\n".join(dict.fromkeys(lv.source.sentence for lv in self.levels))
        return (common, naming) if common and naming else ((), "")

    def differs(self, name: str) -> bool:
        """Whether the per-level fact `name` has different values for different levels."""
        return len({f.value for f in self.by_level(name).values() if f is not None}) > 1


NO_FACTS = SchoolFacts()
