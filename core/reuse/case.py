"""The student's own case in a question: the facts an approved answer depends on, to compare two questions.

The case is read by core.checks.student_case (the offline answerer computes from the same reader; the facts it
reads are listed there). Two questions have the same case when they state the same facts; a fact only one of
them states is a difference (an approved answer for 「三级学费」 is not the answer to 「三级上了 6 节能退多少」).
Deliberately left out: anything the documents do not decide on (names, reasons, feelings).
"""

from __future__ import annotations

from core.checks.student_case import FACT_NAMES, LEVEL_NAMES, case_facts  # noqa: F401 - one reader of the case


def differences(new: str, approved: str) -> list[str]:
    """What differs between the two questions' cases, in Chinese (empty when the case is the same)."""
    a, b = case_facts(new), case_facts(approved)
    out = []
    for kind in sorted(set(a) | set(b), key=lambda k: list(FACT_NAMES).index(k) if k in FACT_NAMES else 99):
        if a.get(kind) == b.get(kind):
            continue
        out.append(f"{FACT_NAMES.get(kind, kind)}：这个问题 {_shown(a.get(kind))}，已审问题 {_shown(b.get(kind))}")
    return out


_WORDS = {"received": "已领", "not_received": "没领", "included": "含教材费", "minor": "未成年", "adult": "成年"}


def _shown(values: frozenset[object] | None) -> str:
    if not values:
        return "没说"
    words = []
    for value in sorted(values, key=str):
        if value == "before":
            words.append("开课前")
        elif value == "after":
            words.append("开课后")
        elif value == "half":
            words.append("一半")
        elif value in _WORDS:
            words.append(_WORDS[value])
        elif isinstance(value, float):
            words.append(f"{value:g}")
        else:
            words.append(str(value))
    return "、".join(words)
