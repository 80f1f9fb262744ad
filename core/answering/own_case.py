"""The student's own case, phrased: the offline answer to 「我报的二级 交了4200 上了6节课 能退多少」.

The case is read by core.case, the computation chosen by core.case.intent and worked out by core.answering.calculate
from the school facts (core.facts); this module only words the `Result`: the rule sentences quoted with their [n],
then 「按你的数字：剩余课时 = 16 − 6 = 10，…，可退 2493.75 元」. What stops a refund (more than half the lessons
attended; the textbook fee) is said as a condition with its own citation, never as a leading 「不能」. A figure the
student did not say is named (「还需要知道：已上课时」); a fact the documents do not state is named too (「资料里没有写
每级课时数」), never filled with a number from code. `cite` gives the [n] of the reference holding a fact's sentence
(core.assistant adds that reference when the gate's chunks lack it).
Returns None when the question asks none of the computations: the extractive answer stands.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from core.answering.calculate import FINAL_REFUND, calculate
from core.case import ALL_KINDS, KindSet, read_case
from core.case.intent import BEFORE_START, DIFFERENCE, REFUND, TRANSFER, asks_amount, computation
from core.language.figures import format_number
from core.values.case import BEFORE_START as WHOLE
from core.values.case import BEYOND, COMPUTED, MISSING_FACTS, NEEDS, RULE_ONLY, STOPPED, Result
from core.values.facts import SchoolFacts, Source

MISSING_TEXT = "要算出你的金额，还需要知道：{missing}"
MISSING_FACT_TEXT = "资料里没有写明{labels}（应有一句像{expected}的规定），算不出你的金额，请转人工确认。"
Cite = Callable[[Source], int | None]  # None: no reference holds the sentence (a remark is then left out)


def compute(question: str, facts: SchoolFacts, kinds: KindSet = ALL_KINDS) -> Result | None:
    """The result of the computation `question` asks for, from the school facts; None when it asks none."""
    case = read_case(question, facts, kinds)
    chosen = computation(case, question)
    result = calculate(chosen, case, facts) if chosen else None
    if result is not None and result.computation == TRANSFER and result.outcome == NEEDS and not asks_amount(question):
        return None  # 「上了两节 还能转班吗」 asks no fee: the rules answer it, no figure is missing
    return result


def sources(result: Result) -> tuple[Source, ...]:
    """Every fact sentence the computation stands on, in the order first cited: the chunks holding them join the
    answer's references. The remarks (the textbook fee is not refunded; the transfer fee if this is not the first
    transfer) are not among them: they are said only when a passing chunk already holds them."""
    found: list[Source] = [*result.rules, *(s for step in result.steps for s in step.sources)]
    found += [*(result.paid.sources if result.paid else ())]
    if result.limit is not None:
        found.append(result.limit[1])
    found += [*(result.limit_note.sources if result.limit_note else ())]
    return tuple(dict.fromkeys(found))


def phrase(result: Result, cite: Cite) -> str:
    """The answer's text for `result`, every fact cited with `cite`'s number."""
    words = _Words(cite)
    if result.computation == BEFORE_START:
        return words.quote(result.rules[0])[:-1] + words.textbook(result) + "。"
    if result.computation == TRANSFER:
        return _transfer(result, words)
    if result.computation == DIFFERENCE:
        return _difference(result, words)
    return _refund(result, words)


class _Words:
    """Quoting with citations: 「<sentence>[n]。」, marks 「[1][3]」."""

    def __init__(self, cite: Cite) -> None:
        self.cite = cite

    def clause(self, source: Source) -> str:
        number = self.cite(source)
        return source.sentence.rstrip("。；，") + (f"[{number}]" if number is not None else "")

    def quote(self, source: Source) -> str:
        return self.clause(source) + "。"

    def marks(self, found: Iterable[Source | None]) -> str:
        numbers = {self.cite(s) for s in found if s is not None}
        return "".join(f"[{n}]" for n in sorted(n for n in numbers if n is not None))

    def remark(self, result: Result) -> Source | None:
        """The textbook remark's source when a reference holds it."""
        return result.extra[0] if result.extra and self.cite(result.extra[0]) is not None else None

    def textbook(self, result: Result) -> str:
        """「，另外教材费不在退费范围内[n]」, closing the sentence it joins (no 「。」)."""
        remark = self.remark(result)
        return ("，另外" + self.clause(remark)) if remark else ""

    def missing(self, what: str, rule: Source | None) -> str:
        return MISSING_TEXT.format(missing=what) + self.marks([rule]) + "。"

    def missing_facts(self, result: Result) -> str:
        labels = "、".join(f"「{m.label}」" for m in result.missing) or "算法需要的规定"
        expected = "、".join(m.expected for m in result.missing) or "「…」"
        return MISSING_FACT_TEXT.format(labels=labels, expected=expected)


def _spaced(step: str) -> str:
    """One space around each operator: 「2625 − 131.25」, whatever the document's spacing."""
    return re.sub(r"[ \t]*([×÷−+=])[ \t]*", r" \1 ", step).strip()


def _note(result: Result, w: _Words) -> str:
    """How the tuition paid was found, when the student did not say it plainly."""
    step = result.paid
    if step is None:
        return ""
    source = step.sources[0]
    if result.paid_said is not None:  # 「连教材一共交了 4480」
        return (f"你交的 {format_number(result.paid_said)} 元含教材费，{w.clause(source)}，"
                f"{_spaced(step.text)} 元。")
    # only a student who said they paid the single price has it used as the tuition paid (calculate.paid_of)
    return f"你是按单报学费（原价）交的，按{step.text}的学费算：{w.quote(source)}"


def _limit(result: Result, w: _Words) -> str:
    """「10 课时」, with the sentence giving the count for the student's level when the stop's sentence does not say
    it: 「12 课时（卓越级（五级）总课时 24，即已上超过 12 课时[1]）」; a count derived from the level's lessons is worked
    out in its own sentence before (`_half`)."""
    threshold = format_number(result.limit[0])  # type: ignore[index]
    note = result.limit_note
    if note is None or note.text:
        return f"{threshold} 课时"
    return f"{threshold} 课时（{w.clause(note.sources[0])}）"


def _half(result: Result, w: _Words) -> str:
    """「卓越级共 24 课时，一半是 24 ÷ 2 = 12 课时[1]。」 when the limit is half the level's own lessons."""
    note = result.limit_note
    return f"{_spaced(note.text)}{w.marks(note.sources)}。" if note is not None and note.text else ""


def _refund(result: Result, w: _Words) -> str:
    rules = result.rules
    parts = ("按资料：" + "，其中".join(w.clause(r) for r in rules) + "。") if rules and result.outcome != WHOLE else ""
    formula = rules[0] if rules else None
    if result.outcome == MISSING_FACTS:
        return parts + w.missing_facts(result)
    if result.outcome == WHOLE and result.final is None:  # before the start, the amount paid unknown
        return w.quote(rules[0]) + w.missing(result.needs[0], rules[0])
    if result.outcome == WHOLE:
        text = _note(result, w) + w.quote(rules[0]) + (
            f"你还没开课：{FINAL_REFUND} {format_number(result.final)} 元"
            f"{w.marks([rules[0], *(result.paid.sources if result.paid else ())])}。")
        return text[:-1] + w.textbook(result) + "。"
    if result.outcome == STOPPED:
        threshold, stop = result.limit  # type: ignore[misc]
        derived = "，".join(_spaced(step.text) for step in result.steps)  # 已上课时 = 16 − 3 = 13 (from 还剩三节)
        lead = ""
        if derived:
            lead = _note(result, w) + f"按你的数字：{derived}{w.marks(s for st in result.steps for s in st.sources)}。"
        return (lead + _half(result, w) + f"你已上 {format_number(result.taken)} 课时，超过了 {_limit(result, w)}："
                + w.clause(stop) + w.textbook(result) + "。")
    if result.outcome == NEEDS:
        needs = "、".join(result.needs)
        if result.taken is not None and result.limit is not None:  # 「刚好上完第 8 节」: still refundable
            threshold, stop = result.limit
            condition = (_half(result, w) + f"你已上 {format_number(result.taken)} 课时，没有超过 {_limit(result, w)}，"
                         f"可以退费（超过 {format_number(threshold)} 课时后不再受理退费）{w.marks([stop])}。")
            remark = w.remark(result)
            return parts + condition + w.missing(needs, formula) + (("另外" + w.clause(remark) + "。") if remark else "")
        stops = ("如果已上课时超过了一半：" + w.quote(result.limit[1])) if result.limit is not None else ""
        remark = w.remark(result)
        stops += ("另外" + w.clause(remark) + "。") if remark else ""
        return parts + w.missing(needs, formula) + stops
    # COMPUTED
    threshold, stop = result.limit  # type: ignore[misc]
    condition = (_half(result, w) + f"你已上 {format_number(result.taken)} 课时，没有超过 {_limit(result, w)}，可以退费"
                 f"（超过 {format_number(threshold)} 课时后不再受理退费）{w.marks([stop])}。")
    cited = [*rules, *(s for step in result.steps for s in step.sources), *(result.paid.sources if result.paid else ())]
    return (_note(result, w) + parts + condition + "按你的数字：" + "，".join(_spaced(s.text) for s in result.steps)
            + w.marks(cited) + w.textbook(result) + "。")


def _transfer(result: Result, w: _Words) -> str:
    if result.outcome == NEEDS:
        return "".join(w.quote(r) for r in result.rules) + w.missing("、".join(result.needs), result.rules[-1])
    rule = result.rules[0]
    if result.outcome == BEYOND:
        window = result.limit[0]  # type: ignore[index]
        worked = "".join(f"{_spaced(step.text)}{w.marks(step.sources)}，" for step in result.steps)
        return w.quote(rule) + worked + (f"你已上 {format_number(result.taken)} 课时，超过了 {format_number(window)} 课时，"
                                "资料没有写这时第一次转班怎样收费，请转人工确认。")
    if result.limit is not None and result.final and len(result.steps) >= 1 and len(result.rules) > 1 \
            and result.first_transfer == 1 and result.times == 1:  # a first transfer after the free window, its fee stated
        late = result.rules[1]
        worked = "".join(f"{_spaced(step.text)}{w.marks(step.sources)}，" for step in result.steps if step.text)
        return (w.quote(rule) + worked + f"你已上 {format_number(result.taken)} 课时，超过了 "
                f"{format_number(result.limit[0])} 课时：{w.clause(late)}。你这是第一次转班：{result.word} "
                f"{format_number(result.final)} 元{w.marks([late])}。")
    if result.first_transfer > 1:  # 「转过一次 再转两次」「第二次、第三次一共」: each pays the fee (core.answering.calculate)
        total = result.steps[-1]
        each = format_number((total.value or 0.0) / (result.times or 1))
        return ("".join(w.quote(r) for r in result.rules) + f"你之前转过 {result.first_transfer - 1} 次，之后再转 "
                f"{result.times} 次，每次 {each} 元{w.marks([rule])}：{result.times} × {each} = {_spaced(total.text)} 元，"
                f"{result.word} {_spaced(total.text)} 元{w.marks(total.sources)}。")
    if len(result.steps) > 1:  # the total of several transfers: each one's fee, then the sum
        *each_step, total = result.steps
        return ("".join(w.quote(r) for r in result.rules) + f"你一共转 {result.times} 次："
                + "；".join(_spaced(step.text) for step in each_step)
                + f"；{result.times} 次一共：{result.word} {_spaced(total.text)} 元{w.marks(total.sources)}。")
    if not result.final:
        return w.quote(rule) + f"你这是第一次转班：{result.word}免费{w.marks([rule])}。"
    times = result.times or 0
    which = f"你这是第 {times} 次转班" if times <= 2 else f"你之前转过 {times - 1} 次，这次是第 {times - 1} + 1 = {times} 次转班"
    return w.quote(rule) + f"{which}：{result.word} {format_number(result.final)} 元{w.marks([rule])}。"


def _difference(result: Result, w: _Words) -> str:
    rule = result.rules[0] if result.rules else None
    lead = w.quote(rule) if rule is not None else ""
    if result.outcome == MISSING_FACTS:
        return lead + w.missing_facts(result)
    if result.outcome == NEEDS:
        return lead + w.missing("、".join(result.needs), rule)
    step = _spaced(result.steps[0].text)
    if len(result.steps) > 1:  # the n-th transfer's fee on top
        transfer = result.rules[-1]
        fee = result.steps[1]
        fee_value = fee.text.split(" = ")[0].split()[-1]
        which = f"你这是第 {result.times} 次转班"
        if result.limit is not None:  # a first transfer after the free window (the documents state its fee)
            which += f"，已上 {format_number(result.taken)} 课时，超过了 {format_number(result.limit[0])} 课时"
        return ("".join(w.quote(r) for r in result.rules) + f"按你的数字：{step}；{which}，另收 "
                f"{fee_value} 元：" + _spaced(fee.text) + w.marks([*result.steps[0].sources, transfer]) + "。")
    fee = result.fee_note[0] if result.fee_note and w.cite(result.fee_note[0]) is not None else None
    note = f"（如果这不是第一次转班：{w.clause(fee)}）" if fee else ""
    return ("".join(w.quote(r) for r in result.rules)
            + f"按你的数字：{step}，{result.word} {format_number(result.final)} 元{w.marks(result.steps[0].sources)}{note}。")


__all__ = ["BEFORE_START", "COMPUTED", "DIFFERENCE", "MISSING_TEXT", "REFUND", "RULE_ONLY", "TRANSFER", "compute",
           "phrase", "sources"]
