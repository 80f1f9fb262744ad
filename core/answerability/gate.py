"""The gate: from one ranked retrieval and a set of knobs to answer-or-refuse, before any model call.

A question is retrieved and ranked once (`Retrieval`, built by core.assistant); the gate then
keeps the first k candidates, marks those whose ranking score is >= the threshold, and (with the
answerability decision on) judges the passing chunks with core.answerability. Because candidates
are ranked by the same score the threshold compares, the passing chunks are always a prefix of
the ranking, so every measure the decision needs is computed once per prefix at retrieval time
(`Retrieval.measures`) and a knob move costs only comparisons. The Ask page, the CLI, batch runs,
the tuning page and the benches all decide through `decide` below, so they cannot disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from core.answerability.decision import judge
from core.knobs import Knobs
from core.values import Gate, Hit, Recheck, Retrieval, below_threshold


def passing_count(candidates: Sequence[Hit], knobs: Knobs) -> int:
    """How many of the first k ranked candidates reach the threshold (a prefix of the ranking)."""
    count = 0
    for hit in candidates[:knobs.k]:
        if hit.value < knobs.threshold:
            break
        count += 1
    return count


def decide(retrieval: Retrieval, knobs: Knobs) -> Gate:
    """Answer or refuse `retrieval` at `knobs`: the one gate every caller uses."""
    j = passing_count(retrieval.candidates, knobs)
    kept = tuple(replace(h, passed=i < j) for i, h in enumerate(retrieval.candidates[:knobs.k]))
    if not retrieval.decides:
        if j:
            return Gate(retrieval.question, kept, knobs, refused=False, reason="")
        return Gate(retrieval.question, kept, knobs, refused=True, reason=_empty_reason(kept, knobs))
    decision = judge(retrieval.terms, retrieval.context, retrieval.measures[j], kept, knobs)
    if not kept:
        return Gate(retrieval.question, kept, knobs, refused=True, reason=_empty_reason(kept, knobs),
                    decision=decision)
    return Gate(retrieval.question, kept, knobs, refused=not decision.answerable, reason=decision.reason,
                decision=decision)


def _empty_reason(kept: Sequence[Hit], knobs: Knobs) -> str:
    if not kept:
        return "资料库是空的，没有可检索的片段"
    return f"{below_threshold(max(h.value for h in kept), knobs.threshold)}，没有可用的资料片段"


def recheck(shown: Gate, now: Gate, *, reused: bool = False) -> Recheck:
    """Whether the decision `shown` (the one an answer on screen was written under, the grader's verdict
    included) still holds for the gate `now` at other knobs. Only comparisons: no retrieval, no model.
    An approved answer served (`reused`) stands while some chunk still passes (core.reuse.guards)."""
    if reused:
        flip, changed = ("refuse" if not now.hits else ""), False
    else:
        flip = "refuse" if now.refused and not shown.refused else "answer" if shown.refused and not now.refused else ""
        changed = not shown.refused and not now.refused and _passing(shown) != _passing(now)
    if now.decision is not None:
        lines = tuple(f"{s.name_zh} {s.compared}" for s in now.decision.signals[:3])
    else:
        best = max((h.value for h in now.candidates), default=0.0)
        lines = (f"排序分 最高 {best:.3f} {'<' if now.refused else '≥'} 阈值 {now.threshold:.2f}",)
    return Recheck(flip=flip, chunks_changed=changed, lines=lines, reason=now.reason)


def _passing(gate: Gate) -> tuple[tuple[str, int], ...]:
    return tuple((h.source, h.chunk) for h in gate.hits)
