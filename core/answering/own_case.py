"""The student's own case, computed from the documents' rules: the offline answer to 「我报的二级 交了4200 上了6节课 能退多少」.

When the question states the student's figures (core.checks.student_case) and the cited references state
the rule (core.checks.case_rules), the answer quotes the rule with its [n] and works the case out step by step:
剩余课时 = 16 − 6 = 10；4200 ×（10 ÷ 16）= 2625 元；手续费 2625 × 5% = 131.25 元（不低于 50 元）；可退 2625 − 131.25 =
2493.75 元. What stops a refund (more than half the lessons attended; the textbook fee) is said as a condition
with its own citation, never as a leading 「不能」. A figure the computation needs and the question lacks is named
(「还需要知道：已上课时」). Three kinds of case: a refund, a transfer fee, a level difference.
Returns None when the question is none of these or the references lack the rule: the extractive answer stands.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.checks.case_rules import Rule, RuleBook, read_rules, substitute, value_of, variables
from core.checks.figures import format_number
from core.checks.student_case import StudentCase, read_case

_LEVEL_SHOWN = {1: "一级", 2: "二级", 3: "三级", 4: "四级"}
_TRANSFER_RE = re.compile(r"转班|换班|调班|换时段|转线上|转线下|换到线|转到线|再转|再换|转过|换过|调过|第.{1,2}次转|第.{1,2}次换|"
                          r"(?:转|换|调)了.{1,3}次班")
_DIFFERENCE_RE = re.compile(r"差价|补多少|补钱|要补|多退少补|退多少差|升|降|转到|换到|转去|换去|转回|换回|调到")
_REFUND_RE = re.compile(r"退")
_AMOUNT_RE = re.compile(r"多少|几多|补|退|差价|钱")
MISSING_TEXT = "要算出你的金额，还需要知道：{missing}"
FINAL_REFUND, FINAL_PAY, FINAL_BACK, FINAL_FEE = "可退", "需补", "可退差价", "转班手续费"


def _cite(rule: Rule) -> str:
    return f"{rule.text.rstrip('。；，')}[{rule.number}]。"


def _marks(*rules: Rule | None) -> str:
    numbers = sorted({r.number for r in rules if r is not None})
    return "".join(f"[{n}]" for n in numbers)


def compute_answer(question: str, references: Sequence[tuple[int, str]]) -> str | None:
    """The computed answer for the student's own case, or None (see the module doc)."""
    case = read_case(question)
    book = read_rules(references)
    if not case.states_figures:
        # 「还没开课 能退多少」: no figure needed, the before-start rule is the answer.
        if case.started is False and _REFUND_RE.search(question) and not _TRANSFER_RE.search(question) \
                and book.before_start is not None:
            return _cite(book.before_start)[:-1] + _textbook(book) + "。"
        return None
    if _asks_difference(case, question) and book.level_difference is not None:
        return _difference(case, book)
    if _TRANSFER_RE.search(question) and (book.transfer_fee or book.free_transfer):
        return _transfer(case, book)
    if _REFUND_RE.search(question) and not _TRANSFER_RE.search(question) and book.formula is not None:
        return _refund(case, book)
    return None


def _asks_difference(case: StudentCase, question: str) -> bool:
    """A level change: a level is named and the question asks for the difference or names a move (「二级转一级
    … 退多少」: a move to another level asking an amount is the difference, whatever the transfer fee)."""
    if case.target is not None and case.level is not None and case.target != case.level \
            and _AMOUNT_RE.search(question):
        return True
    return (case.target is not None or bool(case.levels)) and bool(_DIFFERENCE_RE.search(question)) \
        and not (case.target is None and _REFUND_RE.search(question) and "差价" not in question)


def _paid(case: StudentCase, book: RuleBook) -> tuple[float, Rule | None, str] | None:
    """The tuition paid: the question's amount (less the documents' textbook fee when the student says it is
    included: 「连教材一共交了 3880」), else the tuition of the student's level (cited), else None."""
    if case.paid is not None and case.with_textbook:
        if book.textbook_fee is None:
            return None
        rule, fee = book.textbook_fee
        tuition = case.paid - fee
        return tuition, rule, (f"你交的 {format_number(case.paid)} 元含教材费，{_clause(rule)}，实付学费 = "
                               f"{format_number(case.paid)} − {format_number(fee)} = {format_number(tuition)} 元。")
    if case.paid is not None:
        return case.paid, None, ""
    if case.unpaid_reason:  # 「联报优惠报的」「五千多」: the single price is not what they paid
        return None
    tuition = book.tuition(case.level)
    if tuition is None:
        return None
    fee, rule = tuition
    return fee, rule, f"你没说实付多少，按{_LEVEL_SHOWN.get(case.level or 0, '')}单报学费算：{_cite(rule)}"


def _refund(case: StudentCase, book: RuleBook) -> str | None:
    # The rule in one sentence: the formula and its fee rule, each with its [n].
    clauses = [_clause(r) for r in (book.formula, book.fee) if r is not None]
    parts = ["按资料：" + "，其中".join(clauses) + "。"] if clauses else []
    paid = _paid(case, book)
    missing = []
    if paid is None:
        missing.append(f"实付学费（{case.unpaid_reason}）" if case.unpaid_reason else "实付学费（或报的级别）")
    if case.taken is None and not case.half and case.started is not False and case.remaining is None \
            and (case.weeks is None or book.weekly is None):
        missing.append("已上课时（是否已开课）")
    if case.started is False and book.before_start is not None:
        if paid is None:
            return _cite(book.before_start) + _missing(
                f"实付学费（{case.unpaid_reason}）" if case.unpaid_reason else "实付学费（或报的级别）", book.before_start)
        amount, rule, note = paid
        text = note + _cite(book.before_start) + f"你还没开课：{FINAL_REFUND} {format_number(amount)} 元{_marks(book.before_start, rule)}。"
        return text[:-1] + _textbook(book) + "。"
    if case.taken is not None and book.over_half is not None and case.taken > book.over_half[1]:
        stop, threshold = book.over_half  # 「上了10节课 还能退吗」: no amount is needed to say no
        return (f"你已上 {format_number(case.taken)} 课时，超过了 {format_number(threshold)} 课时："
                + _clause(stop) + _textbook(book) + "。")
    if missing:
        condition = ""
        if case.taken is not None and book.over_half is not None:  # 「刚好上完第 8 节」: still refundable
            stop, threshold = book.over_half
            condition = (f"你已上 {format_number(case.taken)} 课时，没有超过 {format_number(threshold)} 课时，"
                         f"可以退费（超过 {format_number(threshold)} 课时后不再受理退费）[{stop.number}]。")
            return "".join(parts) + condition + _missing("、".join(missing), book.formula) + (
                ("另外" + _clause(book.textbook) + "。") if book.textbook is not None else "")
        return "".join(parts) + _missing("、".join(missing), book.formula) + _stops(book)
    if book.total is None or book.over_half is None:
        # Without a level's lessons, or without the rule saying when a refund stops, no amount can be
        # stated safely: the extractive answer stands.
        return None
    amount, paid_rule, note = paid
    total_rule, total = book.total
    steps: list[str] = []
    week_rule = None
    if case.half:
        taken = total / 2
        steps.append(f"已上课时 = {format_number(total)} ÷ 2 = {format_number(taken)}")
    elif case.taken is None and case.remaining is not None:  # 「还剩十节没上」
        taken = total - case.remaining
        steps.append(f"已上课时 = {format_number(total)} − {format_number(case.remaining)} = {format_number(taken)}")
    elif case.taken is None and case.weeks is not None and book.weekly is not None:
        week_rule, rate = book.weekly  # 「上了两周」: the documents' lessons a week
        taken = case.weeks * rate
        steps.append(f"已上课时 = {format_number(case.weeks)} 周 × {format_number(rate)} 课时 = {format_number(taken)}")
    else:
        taken = case.taken or 0.0
    text = note + "".join(parts)
    if book.over_half is not None:
        stop, threshold = book.over_half
        if taken > threshold:
            derived = "，".join(_spaced(step) for step in steps)  # 已上课时 = 16 − 3 = 13 (from 还剩三节)
            return (note + (f"按你的数字：{derived}{_marks(total_rule, week_rule)}。" if derived else "")
                    + f"你已上 {format_number(taken)} 课时，超过了 {format_number(threshold)} 课时："
                    + _clause(stop) + _textbook(book) + "。")
    remaining = total - taken
    steps.append(f"剩余课时 = {format_number(total)} − {format_number(taken)} = {format_number(remaining)}")
    values = variables(book, amount, remaining, total, taken)
    base_expr = book.fee_expr or ""
    base = value_of(substitute(base_expr, values)) if base_expr else None
    fee = None
    if base is not None and book.fee_rate is not None:
        steps.append(f"{substitute(base_expr, values)} = {format_number(base)} 元")
        fee = base * book.fee_rate
        rate = format_number(book.fee_rate * 100) + "%"
        step = f"{book.fee_name} {format_number(base)} × {rate} = {format_number(fee)} 元"
        if book.fee_minimum is not None:
            if fee < book.fee_minimum:
                fee = book.fee_minimum
                step += f"，低于最低 {format_number(book.fee_minimum)} 元，按 {format_number(fee)} 元收"
            else:
                step += f"（不低于 {format_number(book.fee_minimum)} 元）"
        steps.append(step)
        values[book.fee_name] = fee
    expr = book.formula_expr
    if base is not None and base_expr and base_expr in expr:
        expr = expr.replace(base_expr, format_number(base))
    final_expr = substitute(expr, values)
    final = value_of(final_expr)
    if final is None:  # a word of the formula neither the student's figures nor the rules fill
        return None
    steps.append(f"{final_expr} = {format_number(final)} 元，{FINAL_REFUND} {format_number(final)} 元")
    marks = _marks(book.formula, book.fee, total_rule, paid_rule, week_rule)
    condition = ""
    if book.over_half is not None:
        stop, threshold = book.over_half
        condition = (f"你已上 {format_number(taken)} 课时，没有超过 {format_number(threshold)} 课时，可以退费"
                     f"（超过 {format_number(threshold)} 课时后不再受理退费）[{stop.number}]。")
    return text + condition + "按你的数字：" + "，".join(_spaced(s) for s in steps) + marks + _textbook(book) + "。"


def _spaced(step: str) -> str:
    """One space around each operator: 「2625 − 131.25」, whatever the document's spacing."""
    return re.sub(r"[ \t]*([×÷−+=])[ \t]*", r" \1 ", step).strip()


def _missing(what: str, rule: Rule | None) -> str:
    """「要算出你的金额，还需要知道：已上课时（是否已开课）[n]。」, citing the rule that needs it."""
    return MISSING_TEXT.format(missing=what) + _marks(rule) + "。"


def _stops(book: RuleBook) -> str:
    out = ""
    if book.over_half is not None:
        out += "如果已上课时超过了一半：" + _cite(book.over_half[0])
    return out + (("另外" + _clause(book.textbook) + "。") if book.textbook is not None else "")


def _textbook(book: RuleBook) -> str:
    """「，另外教材费不在退费范围内[n]」, closing the sentence it joins (no 「。」)."""
    return ("，另外" + _clause(book.textbook)) if book.textbook is not None else ""


def _clause(rule: Rule) -> str:
    return f"{rule.text.rstrip('。；，')}[{rule.number}]"


def _transfer(case: StudentCase, book: RuleBook) -> str | None:
    times = case.times
    if times is None:
        return None  # which transfer this is decides the fee: the rules are quoted as they are
    if book.transfer_fee is not None and times >= book.transfer_fee[1]:
        rule, _, fee = book.transfer_fee
        return _cite(rule) + f"你这是第 {times} 次转班：{FINAL_FEE} {format_number(fee)} 元[{rule.number}]。"
    if book.free_transfer is not None:
        rule, window = book.free_transfer
        if case.taken is not None and case.taken > window:
            return _cite(rule) + (f"你已上 {format_number(case.taken)} 课时，超过了 {format_number(window)} 课时，"
                                  "资料没有写这时第一次转班怎样收费，请转人工确认。")
        return _cite(rule) + f"你这是第一次转班：{FINAL_FEE}免费[{rule.number}]。"
    return None


def _difference(case: StudentCase, book: RuleBook) -> str | None:
    rule = book.level_difference
    assert rule is not None
    current, target = case.level, case.target
    missing = []
    if current is None:
        missing.append("现在的级别")
    if target is None:
        missing.append("要转到哪一级")
    if missing:
        return _cite(rule) + _missing("、".join(missing), rule)
    new, old = book.tuition(target), book.tuition(current)
    if new is None or old is None:  # the references lack a level's tuition: the rule alone
        return _cite(rule)
    (new_fee, new_rule), (old_fee, old_rule) = new, old
    text = _cite(rule) + _cite(old_rule) + (_cite(new_rule) if new_rule != old_rule else "")
    high, low = (new, old) if new_fee >= old_fee else (old, new)
    high_level, low_level = (target, current) if new_fee >= old_fee else (current, target)
    difference = high[0] - low[0]
    step = (f"{_LEVEL_SHOWN.get(high_level, '')} {format_number(high[0])} − {_LEVEL_SHOWN.get(low_level, '')} "
            f"{format_number(low[0])} = {format_number(difference)} 元")
    word = FINAL_PAY if new_fee >= old_fee else FINAL_BACK
    marks = _marks(rule, new_rule, old_rule)
    fee_note = ""
    transfer = book.transfer_fee
    if transfer is not None and case.times is not None and case.times >= transfer[1]:
        fee = transfer[2]
        net = difference + fee if word == FINAL_PAY else difference - fee
        sign = "+" if word == FINAL_PAY else "−"
        return (text + _cite(transfer[0]) + f"按你的数字：{step}；你这是第 {case.times} 次转班，另收 {format_number(fee)} 元："
                + f"{word} {format_number(difference)} {sign} {format_number(fee)} = {format_number(net)} 元"
                + _marks(rule, new_rule, old_rule, transfer[0]) + "。")
    if transfer is not None and case.times is None:
        fee_note = f"（如果这不是第一次转班：{_clause(transfer[0])}）"
    return text + f"按你的数字：{step}，{word} {format_number(difference)} 元{marks}{fee_note}。"


def rule_queries(question: str, references: Sequence[tuple[int, str]]) -> tuple[str, ...]:
    """What to look up for a rule the computation needs and the references lack (the level's tuition, the
    lessons of a level, the refund formula), as search words; empty when nothing is missing."""
    case = read_case(question)
    if not case.states_figures:
        return ()
    book = read_rules(references)
    out: list[str] = []
    difference = _asks_difference(case, question)
    refund = _REFUND_RE.search(question) and not _TRANSFER_RE.search(question) and not difference
    if refund and book.formula is None:
        out.append("开课后退费 可退金额 公式 剩余课时 手续费")
    if refund and book.total is None:
        out.append("每一级 课时")
    if refund and book.over_half is None and case.started is not False:
        out.append("已上课时超过总课时的一半 不再受理退费")
    if refund and case.with_textbook and book.textbook_fee is None:
        out.append("教材费 每级")
    if refund and case.taken is None and case.weeks is not None and book.weekly is None:
        out.append("每周 课时")
    wanted = [case.level] if refund and case.paid is None else []
    if difference:
        wanted = [case.level, case.target]
        if book.level_difference is None:
            out.append("转到不同级别 学费差价")
    for level in wanted:
        if level is not None and book.tuition(level) is None:
            out.append(f"{_LEVEL_SHOWN.get(level, '')} 学费")
    return tuple(dict.fromkeys(out))
