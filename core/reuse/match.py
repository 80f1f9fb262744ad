"""How well an approved answer fits a new question, by the gate's own words: does it mention what is asked?

The new question's terms come from the answerability analyzer (weights and glossary forms: core.values.Term).
The similarity is the weighted share of them that the approved question and answer mention — as a word or a
glossary form, with the offline answerer's graded credit for a word written with a gap or in part
(core.answerability.terms.credit) — with the student's own figures and level words left out (the case guard
compares those: core.reuse.case). 「三级教材费多少」 against an approved 「三级学费多少 → 流利级（三级）学费 4800 元」
scores little, as 教材费 is not mentioned.
Worked example: new terms 学费 0.9 and 分期 1.0, the approved text mentions 学费 only: 0.9 / 1.9 = 0.47.
The gate's terms leave question words out (weight 0), so what a question asks for — an amount, a duration, a time,
a way, a place, a headcount, a reason … (the one reader of it: core.case.asked) — is compared apart (`asks_other`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from core.answerability.terms import credit
from core.case import case_facts
from core.case.asked import read_asked, states
from core.language.text import normalize
from core.values import Term
from core.values.facts import NO_FACTS, SchoolFacts


def mentioned_text(question: str, answer: str, terms: Sequence[Term]) -> str:
    """What an approved answer mentions: its question, its text and its question's glossary forms, normalised."""
    return _mentioned(question, answer, tuple(f for t in terms for f in t.forms))


@lru_cache(maxsize=8192)
def _mentioned(question: str, answer: str, forms: tuple[str, ...]) -> str:
    # the same approved answer is matched against question after question: normalised once
    return " ".join([normalize(question), normalize(answer), *(normalize(f) for f in forms)])


@dataclass(frozen=True)
class Scoring:
    """A new question's terms as the similarity counts them, sorted out once however many approved answers it is
    matched against (`scoring`)."""

    terms: tuple[Term, ...]
    total: float

    def of(self, mentioned: str) -> float:
        """The weighted share of the terms found in `mentioned`, in [0, 1] (see `similarity`)."""
        if self.total <= 0:
            return 0.0
        return round(sum(t.weight * credit(t, [mentioned], graded=True) for t in self.terms) / self.total, 4)


def scoring(new_terms: Sequence[Term], facts: SchoolFacts = NO_FACTS) -> Scoring:
    """The new question's terms the similarity counts: the student's figures and level words (商务级, 三级: the case
    guard compares those) left out."""
    terms = tuple(t for t in new_terms if not t.is_number and "level" not in case_facts(t.text, facts))
    return Scoring(terms, sum(t.weight for t in terms))


def similarity(new_terms: Sequence[Term], mentioned: str, facts: SchoolFacts = NO_FACTS) -> float:
    """The weighted share of the new question's terms found in `mentioned`, in [0, 1]. The student's figures and
    level words (商务级, 三级: the case guard compares those) are left out; a word earns the offline answerer's
    graded credit (退回 against 退 in 「退 4322.5 元」, 到帐 against 到账 through the glossary)."""
    return scoring(new_terms, facts).of(mentioned)


# What an approved answer gives, read by the same reader as the question (core.case.asked.states): an amount in 元,
# a duration, a time of day, a headcount, an upper or a lower bound (「每班不超过 8 人」 answers 「一个班最多几个人」;
# 「单笔最低 50 元」 does not answer 「手续费最多收多少」). A new question asking for one of these is asking what the
# answer already states (「流利级多少钱」 against an approved 「三级学费多少 → 学费 4800 元」), even when the approved
# question did not use a question word for it. A yes/no and a choice are compared apart (`asks_yes_no_instead`).
_COMPARED = ("amount", "duration", "frequency", "clock", "time", "year", "age", "headcount", "lessons", "count",
             "person", "place", "reason", "upper", "lower", "way")
_N = r"(?:\d|(?<!第)[两三四五六七八九十])"  # a figure, in digits or Chinese numerals (一 and ordinals are no count)
# A rate (「每周上 2 课时」「每课时 45 分钟」) states how often or how long each, not the total asked for:
# 「每周上 2 课时，八周结课」 gives a duration, not how many lessons a level has.
_RATE = re.compile(rf"每(?:周|星期|天|日|次|课时|节课?|个?月)[^，。；、\d]{{0,3}}{_N}+(?:\.\d+)?\s*(?:课时|节|次|分钟|小时|天|周)")


# Reuse compares a time of day and a time in general as one (「人工客服什么时候有人」 is 「人工服务几点开始」).
_AS = {"clock": "time"}


@lru_cache(maxsize=8192)
def asked(question: str) -> frozenset[str]:
    """What a question asks for or, a yes/no question, is about (「收费吗」: an amount), among the kinds reuse
    compares (core.case.asked.read_asked)."""
    found = read_asked(question)
    return frozenset(_AS.get(name, name) for name in (*found.kinds, *found.topics) if name in _COMPARED)


# What an answer states by its figures or bounds; a place, a person or a reason in an answer (「原路退回」) says where
# or who about its own question, never that it answers another one asking where (「退款要去哪里申请」).
_STATED = ("amount", "duration", "frequency", "clock", "time", "year", "age", "headcount", "lessons", "count", "upper",
           "lower")


@lru_cache(maxsize=8192)
def stated(answer: str) -> frozenset[str]:
    """What kinds of thing the approved answer's text states (amount, duration, headcount …), read by the question
    reader's `states`; a rate (每周上 2 课时) is left out."""
    text = _RATE.sub("", answer)
    return frozenset(_AS.get(name, name) for name in _STATED if states(text, name))


def asks_other(new: str, approved: str, answer: str = "") -> frozenset[str] | None:
    """None when the new question asks for nothing the approved question asked or its answer states; else what it
    asks beyond them (「分级测试要多长时间」 a duration against 「分级测试要收费吗 → 免费」; 「能转线下吗？线下班每班几个人」
    adds a headcount when the answer states none)."""
    extra = asked(new) - asked(approved) - stated(answer)
    return extra or None


# The quantities an answer is asked for.
_QUANTITIES = frozenset({"amount", "duration", "frequency", "clock", "time", "year", "age", "headcount", "lessons",
                         "count"})


def asks_yes_no_instead(new: str, approved: str) -> frozenset[str] | None:
    """What the approved question asked for that the new one, a yes/no question, does not: its answer states a
    quantity the new question did not ask about (「一个级别要学多久 → 八周结课」 does not answer 「一个级别学完能直接
    升下一级吗」). None when the new question asks for the same quantities, is not a yes/no question, or the approved
    question was one too (「还能退吗？能退多少？」: its answer says yes or no first)."""
    missed = (asked(approved) & _QUANTITIES) - asked(new)
    yes_no_instead = "yes_no" in read_asked(new) and "yes_no" not in read_asked(approved)
    return missed if missed and yes_no_instead else None


# A negated ask (「小E不能帮我做哪些事」) asks for the opposite list of the plain one (「小E都能回答哪些问题」): a
# 不能 / 不会 / 没法 … with the question word it governs after it. A negation in the student's situation (「生病了没法
# 上课，能保留学籍吗」) or in a threshold (「第几节以后就不能退了」) is not one; nor is an A-not-A (能不能, 可不可以).
_NEGATED_ASK = re.compile(r"(?<![能可会行让给准])(?:不(?:能|可以|会|行|让|给|准|允许|支持)|没法|无法)"
                          r"[^，。？！?!,;；\s]{0,6}?(?:哪些|什么|哪|多少|几)")


def asks_opposite(new: str, approved: str) -> bool:
    """Whether one question asks what cannot be done and the other what can (「小E不能做哪些事」 against 「小E都能回答
    哪些问题」): the answer to one is not the answer to the other, however many words they share."""
    return bool(_NEGATED_ASK.search(new)) != bool(_NEGATED_ASK.search(approved))  # as typed: spaces part clauses
