"""The school's facts as read from its documents: each value with the sentence it came from.

`SchoolFacts` is built once per corpus at index time (core.facts.read_facts) and travels with the index bundle
to the student's-case reader, the calculators, the checks and the Sources page. A fact the documents do not
state is absent (None) and named in `missing`, with the kind of sentence that would state it, so an answer that
needs it says which fact is missing instead of falling back on a number written in code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
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
    lessons_per_level: Fact | None = None  # value: lessons
    lessons_per_week: Fact | None = None  # value: lessons
    refund_formula: Fact | None = None  # value: (result name, expression in words)
    fee_rule: Fact | None = None  # value: (fee name, base expression in words)
    fee_rate: Fact | None = None  # value: a fraction (0.05 for 5%)
    fee_minimum: Fact | None = None  # value: amount
    textbook_fee: Fact | None = None  # value: amount per level
    textbook_not_refunded: Fact | None = None  # value: True
    over_half: Fact | None = None  # value: the lesson count beyond which no refund is accepted
    before_start: Fact | None = None  # value: True (a full refund before the course starts)
    free_transfer: Fact | None = None  # value: the lesson window of the free first transfer
    transfer_fee: Fact | None = None  # value: (from which transfer on, amount each time)
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


NO_FACTS = SchoolFacts()
