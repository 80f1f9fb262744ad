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
KEEP_PLACE = "keep_place"  # keeping one's place for a span the student tells: the documents' rule answers, no calculator
# 「第二次转」「转了两次班」: a transfer counted, whatever the numeral.
_COUNTED_RE = re.compile(rf"第.{{1,2}}次{alt('moved')}|{alt('moved')}了.{{1,3}}次班")
_CLAUSE_RE = re.compile(r"[\s,，。；;！!？?、]+")
_MOVED_RE = re.compile(alt("moved"))


def slot_move(question: str) -> bool:
    """A move between the class's channels or time slots (「想从周末班换到周三晚上的班」「从线上换到线下」「想换个晚上的
    时段」): a clause where a slot word follows a word of moving (转/换/调) — a transfer within the same level
    (「早上八点能转人工吗」 names the time before 转: no move to it)."""
    for clause in _CLAUSE_RE.split(question):
        verb = _MOVED_RE.search(clause)
        if verb is not None and said(clause[verb.end():], "slot"):
            return True
    return False


def wants_transfer(question: str) -> bool:
    return said(question, "transfer_intent") or bool(_COUNTED_RE.search(question)) or slot_move(question)


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
    # 「从线上换到线下」「换到周末班」: a move to a channel or slot, no level named as the target, is the same level.
    moves = said(question, "level_move") and not (case.target is None and slot_move(question))
    return (case.target is not None or bool(case.levels)) and (said(question, "difference_intent") or moves) \
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


def told(case: StudentCase, question: str) -> str | None:
    """The computation (as `computation`) when the question also tells the figures it works from, or None: a refund
    needs what was paid (an amount, or a level to price) and how far the course is (lessons, weeks, 一半, before or
    after the start); a transfer which one it is or the lessons taken (and no change of level); a level difference both levels;
    keeping one's place (KEEP_PLACE, no calculator: the documents' rule answers) the span away. The gate leaves
    out the other words of such a question (core.answerability.term_rules.circumstance_words): the documents compute
    its answer, the rest is the student's circumstances. 「二级 想转到雅思班 要补多少」 names no level to move to: None."""
    wanted = computation(case, question)
    if wanted is None and said(question, "keep_intent") and case.facts.get("span"):
        return KEEP_PLACE  # 「我生病要休息3个月 能保留学籍吗」: the span told, the rule the documents state answers
    progress = any(v is not None for v in (case.taken, case.weeks, case.remaining, case.started)) or case.half
    if wanted in (REFUND, BEFORE_START):
        return wanted if (case.paid is not None or case.levels) and progress else None
    if wanted == TRANSFER:  # two different levels read as a transfer fee is a reading in doubt: not told
        moved = case.level is not None and case.target is not None
        return wanted if (progress or case.times is not None or case.transfers is not None) and not moved else None
    if wanted == DIFFERENCE:
        return wanted if case.level is not None and case.target is not None else None
    return None
