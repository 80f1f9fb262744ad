"""Check a text a consultant is about to approve (the answer as queued, or their correction) like any answer.

The same checks an answer from the model meets (core.answering.rag.finish): citation numbers that name one of
the chunks the item offers (`[n]` is the n-th chunk that passed the gate, or the n-th candidate when none
passed), figures that occur in a cited chunk or the question, arithmetic, uncited claims, and the student's
own case (question_mismatch). Returns the problems and the numbers the text cites; nothing is written.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.checks.grounding import check_grounding
from core.checks.references import check_refs, extract_refs
from core.settings import REFUSAL_TEXT
from core.values import Hit, Problem


def citable(candidates: Sequence[Hit]) -> tuple[Hit, ...]:
    """The chunks `[n]` refers to in an item's texts: the passing ones, else every candidate."""
    passed = tuple(h for h in candidates if h.passed)
    return passed or tuple(candidates)


def check_text(text: str, candidates: Sequence[Hit], question: str) -> tuple[tuple[Problem, ...], tuple[int, ...]]:
    """(problems, cited numbers that exist) of `text` against the chunks it may cite."""
    hits = citable(candidates)
    docs = [h.document for h in hits]
    if text.strip() == REFUSAL_TEXT:
        return (), ()
    refs = check_refs(text, docs, require=True)
    grounding = check_grounding(text, docs, question)
    cited = tuple(n for n in extract_refs(text) if 1 <= n <= len(hits))
    return (*refs.problems, *grounding.problems), cited
