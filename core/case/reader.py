"""The one reader of the student's case: runs the fact kinds (core.case.kinds) over a question.

`case_facts` gives {kind: values} for comparing two questions (the reuse guard, 「这是同一个问题」);
`read_case` gives the figures a computation needs as a frozen `StudentCase` (the own-figure answerer);
`case_figures` gives the question's kinded figures (the mismatch check). All three read through the same kinds,
so switching a kind off (XIAOE_CASE_KINDS, bench.case_kinds) switches it off for every caller.
"""

from __future__ import annotations

from typing import cast

from core.case.figures import HALF, LESSONS, LEVEL, MONEY, REMAINING, WEEKS, KindedFigure, question_figures
from core.case.kinds import (
    ALL_KINDS,
    LABELS,
    KindSet,
    Reading,
    lessons_taken,
    levels_in_order,
    made_transfers,
    own_money,
    refund_level_first,
    rough,
    targets,
    tuition_and_total,
)
from core.case.words import said
from core.values.case import StudentCase
from core.values.facts import NO_FACTS, SchoolFacts

DISCOUNT_REASON = "你报的是优惠价，要按实际付的金额算，不能按单报学费算"
ROUGH_REASON = "你说的是大概的金额，要按准确的金额算"
# Which figure kinds a kind switches off in `case_figures`.
_FIGURE_KINDS = {MONEY: "money", LEVEL: "level", LESSONS: "lessons", WEEKS: "weeks"}


# Readings kept by (question, facts, kinds): the reuse guards read the case of every approved question near a new
# one, and of the new one, for each ask — with hundreds of approved answers that was most of an ask's time.
# A pure function of its arguments; the objects are compared by identity (a new facts value after a corpus save is
# a new key), the whole memo is dropped when full. Callers only read a Reading (never its `found` dict).
_MEMO: dict[tuple[str, int, int], tuple[SchoolFacts, KindSet, Reading]] = {}
_MEMO_SIZE = 8192


def read(question: str, facts: SchoolFacts = NO_FACTS, kinds: KindSet = ALL_KINDS) -> Reading:
    """Every kind switched on, run in the registry's order over `question`."""
    key = (question or "", id(facts), id(kinds))
    kept = _MEMO.get(key)
    if kept is not None and kept[0] is facts and kept[1] is kinds:
        return kept[2]
    reading = Reading(question or "", facts, question_figures(question or "", _levels(facts)))
    for kind in kinds.kinds:
        values = frozenset(kind.function(reading))
        if values:
            reading.found[kind.name] = values
    if len(_MEMO) >= _MEMO_SIZE:
        _MEMO.clear()
    _MEMO[key] = (facts, kinds, reading)
    return reading


def _levels(facts: SchoolFacts) -> frozenset[int] | None:
    return facts.level_numbers or None


def case_facts(question: str, facts: SchoolFacts = NO_FACTS, kinds: KindSet = ALL_KINDS) -> dict[str, frozenset[object]]:
    """{fact kind: the values the question states}; only kinds it states are present."""
    return dict(read(question, facts, kinds).found)


def case_figures(question: str, facts: SchoolFacts = NO_FACTS, kinds: KindSet = ALL_KINDS) -> tuple[KindedFigure, ...]:
    """The question's kinded figures, those of a kind switched off left out."""
    return tuple(k for k in question_figures(question, _levels(facts))
                 if k.kind not in _FIGURE_KINDS or kinds.on(_FIGURE_KINDS[k.kind]))


def read_case(question: str, facts: SchoolFacts = NO_FACTS, kinds: KindSet = ALL_KINDS) -> StudentCase:
    """The student's figures in `question`, for computing their case from the school facts."""
    r = read(question, facts, kinds)
    found = r.found
    money = own_money(r) if "money" in found else []
    pair = tuition_and_total(r) if money else None
    first = pair[0] if pair is not None else (money[0] if money else None)
    paid = first.figure.value if first is not None else None
    unpaid_reason = ""
    if first is not None and kinds.on("rough") and rough(r.text, first.figure.span):
        paid, unpaid_reason = None, ROUGH_REASON
    elif first is None and "discount" in found:
        unpaid_reason = DISCOUNT_REASON
    figures = r.figures
    parts = lessons_taken(r, [k for k in figures if k.kind == LESSONS and not k.role]) if "lessons" in found else ()
    taken = sum(parts) if parts else None
    weeks = next((k.figure.value for k in figures if k.kind == WEEKS and not k.role), None) if "weeks" in found else None
    remaining = next((k.figure.value for k in figures if k.kind == LESSONS and k.role == REMAINING), None) \
        if "remaining" in found else None
    half = "half" in found and any(k.role == HALF for k in figures)
    started = ("after" in found["started"]) if "started" in found else None
    times = int(min(cast("frozenset[float]", found["times"]))) if "times" in found else None  # the kind's figures
    count = int(max(cast("frozenset[float]", found["transfer_count"]))) if "transfer_count" in found else None
    count_from: int | None = 1  # 「一共要转3次」: transfers 1 … 3
    if "more_transfers" in found:  # 「已经转过两次了 再转两次」: transfers 3 … 4 (the first unknown without the past)
        count = int(max(cast("frozenset[float]", found["more_transfers"])))
        made = int(made_transfers(r.text))
        count_from = made + 1 if made else (1 if said(r.text, "never_moved") else None)
    asked_times = sorted(int(t) for t in cast("frozenset[float]", found.get("times", frozenset())))
    if count is None and said(r.text, "sum_asked") and len(asked_times) >= 2 \
            and asked_times == list(range(asked_times[0], asked_times[-1] + 1)):
        count, count_from = len(asked_times), asked_times[0]  # 「第二次、第三次 一共多少」: transfers 2 … 3 added up
    level_list = levels_in_order(r) if "level" in found else ()
    target_list = targets(r) if "target" in found else []
    if not target_list:
        level_list = refund_level_first(r, level_list)
    return StudentCase(levels=level_list, target=target_list[-1] if target_list else None, paid=paid, taken=taken,
                       half=half, weeks=weeks, taken_parts=parts if len(parts) > 1 else (), started=started, with_textbook=paid is not None and "with_textbook" in found,
                       remaining=remaining, times=times or None, transfers=count, transfers_from=count_from,
                       full_price="full_price" in found, total_asked=said(r.text, "sum_asked"),
                       unpaid_reason=unpaid_reason, facts=dict(found))


def label(kind: str) -> str:
    """A kind's Chinese name (the kind itself when unknown)."""
    return LABELS.get(kind, kind)
