"""The release policy: does an answer go to the student at once, or wait for a consultant?

Three policies, one per API key: `all` holds every answer 小E writes, `flagged` holds answers a check flagged, that
compute the student's own amount, or that the model grader let through, `auto` holds only answers a check flagged.
Whatever the policy: a refusal goes out at once (and joins the queue), an approved answer served again without a
problem goes out at once (a consultant approved it already), and a model failure is held (the student is told it
is being checked, never left in silence). An unknown policy reads as `all`.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.case import read_case
from core.values.exchanges import POLICIES, POLICY_ALL, POLICY_AUTO
from core.values.facts import NO_FACTS, SchoolFacts
from core.values.outcomes import FAILED, JUDGED, REFUSED, Outcome


@dataclass(frozen=True)
class Verdict:
    """Send now or hold, and why (the reason a consultant sees on the held item, in Chinese)."""

    held: bool
    reason: str


def own_amount(outcome: Outcome, facts: SchoolFacts = NO_FACTS) -> bool:
    """The answer works out the student's own figures (what they paid, lessons attended, a move between levels): a
    number a student will act on, so `flagged` holds it. The offline answerer says so itself
    (RAGAnswer.computes_own_amount); a model's answer is judged by the question: it states the student's own figures
    (core.case, with the school's `facts` naming the levels). A level named alone (「二级学费多少」) is no own case."""
    if outcome.answer is not None and outcome.answer.computes_own_amount:
        return True
    case = read_case(outcome.question, facts)
    return any(v is not None for v in (case.paid, case.taken, case.weeks, case.remaining, case.times, case.target)) \
        or case.half


def decide(policy: str, outcome: Outcome, facts: SchoolFacts = NO_FACTS) -> Verdict:
    """Hold or send `outcome` under `policy`; `all` for anything that is not a known policy. `facts` are the school's
    (the assistant's), for reading the student's own case."""
    policy = policy if policy in POLICIES else POLICY_ALL
    if outcome.kind == FAILED:
        return Verdict(True, "模型出错，没有写出回答：请顾问回复学员")
    if outcome.kind == REFUSED:
        return Verdict(False, "拒答：资料没写，立即回复拒答语，并进入复核队列")
    if outcome.reused is not None and not outcome.problems:
        return Verdict(False, "已审答案：顾问通过过的回答，立即发送")
    if outcome.problems:
        return Verdict(True, "检查发现问题：" + "；".join(p.message for p in outcome.problems[:3]))
    if policy == POLICY_AUTO:
        return Verdict(False, "检查通过（放行策略 auto）")
    if policy == POLICY_ALL:
        return Verdict(True, "放行策略 all：每条回答先由顾问审")
    if outcome.kind == JUDGED:
        return Verdict(True, "模型判定可答，资料覆盖不足（放行策略 flagged）")
    if own_amount(outcome, facts):
        return Verdict(True, "按学员自己的数字计算了金额（放行策略 flagged）")
    return Verdict(False, "检查通过（放行策略 flagged）")
