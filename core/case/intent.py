"""Which of the student's computations a question asks for: a transfer's fee, a level difference, a refund.

Read from the question's words (core/data/case_words.txt) and the case already read (core.case.reader); the
calculators (core.answering.calculate) compute, this module only says which one applies.
Whether an amount is asked is core.case.asked's (the one what-is-asked reader); left out: the other kinds of answer.
"""

from __future__ import annotations

import re

from core.case.asked import read_asked
from core.case.words import alt, said
from core.values.case import StudentCase

TRANSFER, DIFFERENCE, REFUND, BEFORE_START = "transfer", "difference", "refund", "before_start"
# 「第二次转」「转了两次班」: a transfer counted, whatever the numeral.
_COUNTED_RE = re.compile(rf"第.{{1,2}}次{alt('moved')}|{alt('moved')}了.{{1,3}}次班")


def wants_transfer(question: str) -> bool:
    return said(question, "transfer_intent") or bool(_COUNTED_RE.search(question))


def wants_refund(question: str) -> bool:
    return said(question, "refund_intent")


def asks_amount(question: str) -> bool:
    """Whether the question asks for an amount of money (core.case.asked, the one what-is-asked reader)."""
    return "amount" in read_asked(question)


def wants_difference(case: StudentCase, question: str) -> bool:
    """A level change: a level is named and the question asks for the difference or names a move (「二级转一级
    … 退多少」: a move to another level asking an amount is the difference, whatever the transfer fee)."""
    if case.target is not None and case.level is not None and case.target != case.level and asks_amount(question):
        return True
    return (case.target is not None or bool(case.levels)) and said(question, "difference_intent") \
        and not (case.target is None and wants_refund(question) and not said(question, "difference_word"))


def computation(case: StudentCase, question: str) -> str | None:
    """Which computation the question asks for (TRANSFER, DIFFERENCE, REFUND, BEFORE_START), or None. A question
    stating no figure of the student's own asks one only before the start (「还没开课 能退多少」: the rule answers)."""
    if not case.states_figures:
        if case.started is False and wants_refund(question) and not wants_transfer(question):
            return BEFORE_START
        return None
    if wants_difference(case, question):
        return DIFFERENCE
    if wants_transfer(question) or case.transfers is not None:  # 「要换4次班 加起来多少」
        return TRANSFER
    if wants_refund(question):
        return REFUND
    return None
