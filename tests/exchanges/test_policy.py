"""The release policy as a table: which outcomes each key's policy holds for a consultant, and that an unknown policy
reads as the safest one."""

from __future__ import annotations

from dataclasses import replace

import pytest

from core.exchanges.policy import decide, own_amount
from core.values import Grade, Problem, RAGAnswer
from core.values.reuse import ApprovedAnswer, GuardResult, Reuse
from tests.outcomes import failure_outcome, outcome_of


def _answer(question: str = "口语课一共有几级？", *, refused: bool = False, problems=(), grade=None) -> RAGAnswer:
    return RAGAnswer(question=question, text="这件事资料里没写，我不能替你们编，请转人工。" if refused else "一共四级[1]。",
                     hits=(), candidates=(), threshold=0.0, k=3, refused=refused, model_called=not refused,
                     problems=tuple(problems), grade=grade)


PLAIN = outcome_of(_answer())
FLAGGED = outcome_of(_answer(problems=(Problem("bad_ref", "引用编号 [7] 不存在"),)))
REFUSED = outcome_of(_answer(refused=True))
OWN = outcome_of(_answer("三级交了4800上了4节课能退多少"))
JUDGED = outcome_of(_answer(grade=Grade(answerable=True, chunks=(1,), reason="片段 1 写了")))
FAILED = failure_outcome("口语课一共有几级？", message="模型超时")
APPROVED = ApprovedAnswer(id=1, question="口语课一共有几级？", text="一共四级[1]。", citations=(), status="active",
                          version=1, approver="顾问甲", approved_at=None, item_id=1, fingerprint="", uses=0,
                          last_used_at=None, override="", questions=())
REUSED = replace(PLAIN, reuse=Reuse(GuardResult(APPROVED, similarity=1.0), (), 0.81))

# (outcome, {policy: held?}) — refusals and clean reuse go out under every policy; failures never wait in silence.
TABLE = [
    ("plain", PLAIN, {"all": True, "flagged": False, "auto": False}),
    ("flagged", FLAGGED, {"all": True, "flagged": True, "auto": True}),
    ("refused", REFUSED, {"all": False, "flagged": False, "auto": False}),
    ("own amount", OWN, {"all": True, "flagged": True, "auto": False}),
    ("grader", JUDGED, {"all": True, "flagged": True, "auto": False}),
    ("failed", FAILED, {"all": True, "flagged": True, "auto": True}),
    ("reused", REUSED, {"all": False, "flagged": False, "auto": False}),
]


@pytest.mark.parametrize(("name", "outcome", "expected"), TABLE, ids=[row[0] for row in TABLE])
def test_policy_holds_what_each_policy_says(name, outcome, expected):
    assert {policy: decide(policy, outcome).held for policy in expected} == expected


@pytest.mark.parametrize("policy", ["", "ALL", "none", "manual", "auto ", None])
def test_policy_unknown_reads_as_all(policy):
    assert decide(policy, PLAIN).held is True
    assert decide(policy, PLAIN).reason == decide("all", PLAIN).reason


def test_policy_a_held_verdict_says_why_in_chinese():
    verdict = decide("auto", FLAGGED)
    assert verdict.held and "引用编号 [7] 不存在" in verdict.reason


@pytest.mark.parametrize(("question", "own"), [
    ("三级交了4800上了4节课能退多少", True),
    ("我上了6节课还能退吗", True),
    ("从二级转到三级要补多少钱", True),
    ("二级学费多少", False),  # a level named alone is the school's price, not the student's own case
    ("退费多久到账", False),
])
def test_policy_own_amount_reads_the_students_own_figures(question, own, corpus_index):
    from core.facts import read_chunk_facts

    facts = read_chunk_facts(corpus_index.chunks)  # the shipped documents name the levels
    assert own_amount(outcome_of(_answer(question)), facts) is own
