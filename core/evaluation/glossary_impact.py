"""How many labelled questions each glossary entry changes: the one place that measures a synonym's effect.

For an entry, the labelled questions that contain its synonym or its term (normalised) are run
through the one gate twice — an Assistant (`core.assistant.build_assistant`) evaluated with
`core.evaluation.metrics.evaluate_set` / `evaluate_at` — with the whole glossary and with the glossary
minus that entry. The count is the questions whose
outcome (正确回答, 误拒, …) differs. A question that contains neither word cannot be touched by
the entry (the glossary only expands words that occur in the question), so it is not run.
Only `_outcomes` below knows how the gate is run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from core.answerability.glossary import Glossary, GlossaryEntry
from core.assistant import build_assistant
from core.evaluation.metrics import evaluate_at, evaluate_set
from core.knobs import Knobs
from core.language.text import normalize
from core.settings import Settings


@dataclass(frozen=True)
class EntryImpact:
    """One entry and the labelled questions whose outcome it changes."""

    term: str
    synonym: str
    changed: tuple[str, ...]  # the questions, as written in the set

    @property
    def count(self) -> int:
        return len(self.changed)


def _question(row) -> str:
    return row["question"] if isinstance(row, Mapping) else row.question


def _outcomes(rows: Sequence, settings: Settings, index, glossary: Glossary, knobs: Knobs) -> list[str]:
    assistant = build_assistant(settings, index, glossary, knobs=knobs)
    return list(evaluate_at(evaluate_set(assistant, list(rows)), knobs).outcomes)


def glossary_impact(glossary: Glossary, rows: Sequence, index, *, settings: Settings, knobs: Knobs | None = None,
                    entries: Sequence[GlossaryEntry] | None = None) -> tuple[EntryImpact, ...]:
    """Per entry (all, or `entries`), which of the labelled `rows` (LabelledQuestion) change outcome
    without it, at `knobs` (default: the settings' knobs); `index` is an IndexBundle or a SearchIndex."""
    knobs = knobs or settings.knobs
    texts = [normalize(_question(row)) for row in rows]
    baseline: dict[int, str] = {}
    impacts = []
    for entry in entries if entries is not None else glossary.entries:
        words = (normalize(entry.synonym), normalize(entry.term))
        touched = [i for i, text in enumerate(texts) if any(w and w in text for w in words)]
        missing = [i for i in touched if i not in baseline]
        if missing:
            baseline.update(zip(missing, _outcomes([rows[i] for i in missing], settings, index, glossary, knobs)))
        without = Glossary(tuple(e for e in glossary.entries if (e.term, e.synonym) != (entry.term, entry.synonym)))
        after = _outcomes([rows[i] for i in touched], settings, index, without, knobs) if touched else []
        changed = tuple(_question(rows[i]) for i, outcome in zip(touched, after) if outcome != baseline[i])
        impacts.append(EntryImpact(entry.term, entry.synonym, changed))
    return tuple(impacts)
