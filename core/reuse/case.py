"""The student's own case in two questions, compared: the facts an approved answer depends on.

The case is read by core.case (the same reader the own-figure answerer and the mismatch check call; its fact kinds
are listed in core.case.kinds), with the school's level names from core.facts. Two questions have the same case
when they state the same facts; a fact only one of them states is a difference (an approved answer for 「三级学费」
is not the answer to 「三级上了 6 节能退多少」, nor to 「三级学费多少 打九折」).
Deliberately left out: anything the documents do not decide on (names, reasons, feelings).
"""

from __future__ import annotations

from core.case import ALL_KINDS, KIND_NAMES, KindSet, case_facts
from core.case.reader import label
from core.values.facts import NO_FACTS, SchoolFacts


def differences(new: str, approved: str, facts: SchoolFacts = NO_FACTS, kinds: KindSet = ALL_KINDS) -> list[str]:
    """What differs between the two questions' cases, in Chinese (empty when the case is the same)."""
    a, b = case_facts(new, facts, kinds), case_facts(approved, facts, kinds)
    out = []
    for kind in sorted(set(a) | set(b), key=lambda k: KIND_NAMES.index(k) if k in KIND_NAMES else 99):
        if a.get(kind) == b.get(kind):
            continue
        out.append(f"{label(kind)}：这个问题 {_shown(a.get(kind))}，已审问题 {_shown(b.get(kind))}")
    return out


_WORDS = {"received": "已领", "not_received": "没领", "included": "含教材费", "minor": "未成年", "adult": "成年",
          "before": "开课前", "after": "开课后", "half": "一半", "rough": "说的是大概的数"}


def _shown(values: frozenset[object] | None) -> str:
    if not values:
        return "没说"
    shown = []
    for value in sorted(values, key=str):
        if isinstance(value, str) and value in _WORDS:
            shown.append(_WORDS[value])
        elif isinstance(value, float):
            shown.append(f"{value:g}")
        else:
            shown.append(str(value))
    return "、".join(shown)
