"""Which questions a change would flip, before it is made: new default knobs, or a glossary entry approved.

Two lists per group of questions — answered → refused and refused → answered — from the one gate
(`Assistant.retrieve` + `Assistant.gate`; no model call, so the grader's band is not consulted). The
groups are a labelled set and the questions actually asked lately (from the review queue: what was
refused, flagged or failed; an answered question nobody flagged is not in it). A knob change retrieves
each question once and gates it twice; a glossary change retrieves it with each glossary, since the
glossary expands the query.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from core.answerability.glossary import Glossary, GlossaryEntry
from core.assistant import Assistant, build_assistant
from core.errors import InvalidQuestion
from core.knobs import Knobs
from core.language.text import normalize

RECENT_DAYS = 30  # "asked lately": the review queue's questions of the last 30 days
MAX_ASKED = 500   # at most this many distinct recent questions are re-run (newest first)


@dataclass(frozen=True)
class Flips:
    """The questions whose answer-or-refuse changes, in the order given, and how many were checked."""

    to_refused: tuple[str, ...]   # answered now, refused after the change
    to_answered: tuple[str, ...]  # refused now, answered after the change
    checked: int

    @property
    def count(self) -> int:
        return len(self.to_refused) + len(self.to_answered)


@dataclass(frozen=True)
class ChangeImpact:
    """Flips on a labelled set and on the questions asked in the last `days` days."""

    labelled: Flips
    asked: Flips
    days: int = RECENT_DAYS


def _distinct(questions: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(q.strip() for q in questions if q and q.strip()))


def knob_flips(assistant: Assistant, questions: Iterable[str], before: Knobs, after: Knobs) -> Flips:
    """Each question retrieved once, gated at `before` and at `after`."""
    to_refused: list[str] = []
    to_answered: list[str] = []
    checked = 0
    for question in _distinct(questions):
        try:
            retrieval = assistant.retrieve(question)
        except InvalidQuestion:  # an old queue row over today's length limit: nothing to compare
            continue
        checked += 1
        was, now = assistant.gate(retrieval, before).refused, assistant.gate(retrieval, after).refused
        if was != now:
            (to_refused if now else to_answered).append(question)
    return Flips(tuple(to_refused), tuple(to_answered), checked)


def glossary_flips(before: Assistant, after: Assistant, questions: Iterable[str]) -> Flips:
    """Each question through `before` and through `after` (the same knobs, another glossary)."""
    to_refused: list[str] = []
    to_answered: list[str] = []
    checked = 0
    for question in _distinct(questions):
        try:
            was = before.gate(before.retrieve(question)).refused
            now = after.gate(after.retrieve(question)).refused
        except InvalidQuestion:
            continue
        checked += 1
        if was != now:
            (to_refused if now else to_answered).append(question)
    return Flips(tuple(to_refused), tuple(to_answered), checked)


def touched_by(entry: GlossaryEntry, questions: Sequence[str]) -> list[str]:
    """The questions an entry can change at all: the glossary only expands words that occur in a question
    (core.evaluation.glossary_impact reasons the same way)."""
    words = [w for w in (normalize(entry.synonym), normalize(entry.term)) if w]
    return [q for q in questions if any(w in normalize(q) for w in words)]


def with_entry(glossary: Glossary | None, entry: GlossaryEntry) -> Glossary:
    """The glossary as it would be once `entry` is approved."""
    entries = tuple(glossary.entries) if glossary is not None else ()
    return Glossary(entries + (entry,))


def knob_change_impact(assistant: Assistant, before: Knobs, after: Knobs, *, labelled: Sequence[str],
                       asked: Sequence[str], days: int = RECENT_DAYS) -> ChangeImpact:
    """New default knobs: the flips on the labelled questions and on the questions asked lately."""
    return ChangeImpact(labelled=knob_flips(assistant, labelled, before, after),
                        asked=knob_flips(assistant, asked[:MAX_ASKED], before, after), days=days)


def glossary_change_impact(assistant: Assistant, entry: GlossaryEntry, *, labelled: Sequence[str],
                           asked: Sequence[str], days: int = RECENT_DAYS) -> ChangeImpact:
    """A glossary entry approved: `assistant` (today's glossary) against the same composition with the entry."""
    after = build_assistant(assistant.settings, assistant.index, with_entry(assistant.glossary, entry),
                            knobs=assistant.knobs)
    return ChangeImpact(labelled=glossary_flips(assistant, after, touched_by(entry, labelled)),
                        asked=glossary_flips(assistant, after, touched_by(entry, asked[:MAX_ASKED])), days=days)
