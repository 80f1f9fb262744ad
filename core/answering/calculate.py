"""The student's own computations as pure functions: (school facts, the student's case) → a `Result`.

Three computations (core.case.intent chooses which): a refund (before the start: the whole tuition; after it: the
documents' formula with the student's figures put in, the fee at its rate with its minimum; more than the limit
attended: none), a transfer's fee (the first free within the window, from the n-th on a fee each time) and a level
difference (the two tuitions, either way, plus the transfer fee from the n-th transfer). Every step names the facts it
uses (core.values.facts.Source), so the phrasing (core.answering.own_case) can cite them; every amount is rounded by
the one rule (core.language.money: half up to the cent, or what the documents state). A fact the documents do not
state is never assumed: the result names it (`MISSING_FACTS`). Nothing here writes a sentence for the student.
"""

from __future__ import annotations

from dataclasses import replace

from core.case.intent import BEFORE_START, DIFFERENCE, REFUND, TRANSFER
from core.checks.arithmetic import evaluate, tokenize
from core.facts.words import fact_words
from core.language.figures import format_number
from core.language.money import CENT, Rounding, round_amount
from core.values.case import BEFORE_START as WHOLE
from core.values.case import BEYOND, COMPUTED, MISSING_FACTS, NEEDS, RULE_ONLY, STOPPED, Result, Step, StudentCase
from core.values.facts import Fact, Missing, SchoolFacts, Source

FINAL_REFUND, FINAL_PAY, FINAL_BACK, FINAL_FEE = "可退", "需补", "可退差价", "转班手续费"
# The figures a student may leave out, each named as the documents do and as a student would answer it.
NEED_PAID = "实付学费（你实付多少）"
NEED_TAKEN = "已上课时（上了几节课）"
NEED_TAKEN_OR_START = "已上课时（上了几节课，或是否已开课）"
NEED_LEVEL, NEED_TARGET = "现在的级别（报的是哪一级）", "要转到哪一级"
NEED_TIMES = "第几次转班（之前转过几次）"


def calculate(computation: str, case: StudentCase, facts: SchoolFacts) -> Result | None:
    """The result of `computation` (core.case.intent's name) for `case`, or None when it does not apply."""
    if computation == BEFORE_START:
        return before_start_rule(facts)
    if computation == DIFFERENCE:
        return difference(case, facts)
    if computation == TRANSFER:
        return transfer(case, facts)
    if computation == REFUND:
        return refund(case, facts)
    return None


def rounding(facts: SchoolFacts) -> Rounding:
    return facts.rounding.value if facts.rounding is not None else CENT


def _missing(facts: SchoolFacts, *names: str) -> tuple[Missing, ...]:
    return tuple(m for name in names if (m := facts.missing_named(name)) is not None)


def _src(*facts: Fact | None) -> tuple[Source, ...]:
    return tuple(f.source for f in facts if f is not None)


def before_start_rule(facts: SchoolFacts) -> Result | None:
    """「还没开课 能退多少」 with no figure: the rule is the answer."""
    if facts.before_start is None:
        return None
    return Result(BEFORE_START, RULE_ONLY, rules=_src(facts.before_start), extra=_src(facts.textbook_not_refunded))


def paid_of(case: StudentCase, facts: SchoolFacts) -> tuple[float, Step | None] | Missing | None:
    """The tuition paid: the student's amount (less the textbook fee when they say it is included), else their level's
    tuition (with its source); a Missing fact when the documents lack what is needed; None when unknown."""
    if case.paid is not None and case.with_textbook:
        if facts.textbook_fee is None:
            return _missing(facts, "textbook_fee")[0] if _missing(facts, "textbook_fee") else None
        fee = facts.textbook_fee.value
        tuition = round_amount(case.paid - fee, rounding(facts))
        return tuition, Step(f"实付学费 = {format_number(case.paid)} − {format_number(fee)} = {format_number(tuition)}",
                             tuition, _src(facts.textbook_fee))
    if case.paid is not None:
        return case.paid, None
    # The documents compute from the tuition actually paid: the level's single price is it only when the student says
    # they paid it (「原价报的」「全价」: full_price). A level alone, a discount without its amount (「原价4800 打了九折」)
    # or a rough amount leaves it unknown, and the answer asks how much was paid instead of assuming a price.
    if case.unpaid_reason or case.level is None or not case.full_price:
        return None
    level_tuition = facts.tuition_of(case.level)
    if level_tuition is None:
        found = facts.missing_named(f"tuition:{case.level}")
        return found or Missing(f"tuition:{case.level}", f"{case.level}级的学费", "「<级别名>（N级）：N 元」")
    return level_tuition.value[1], Step(_numeral(case.level), level_tuition.value[1], _src(level_tuition))


def limit_of(facts: SchoolFacts, level: int | None) -> tuple[float, Source, Step | None] | None:
    """The lesson count beyond which no refund is accepted for `level`, the sentence stating the stop, and how the
    count was found when another sentence gives it (a Step: the sentence stating the level's count, or half the
    level's own lessons under the half rule); None when neither can be read."""
    rule = facts.half_rule.source if facts.half_rule is not None else None
    stated = facts.for_level("over_half", level)
    if stated is not None and stated.value is not None:
        if rule is None or stated.source == rule:
            return stated.value, stated.source, None
        return stated.value, rule, Step("", stated.value, (stated.source,))
    lessons = facts.for_level("lessons_per_level", level)
    if rule is not None and lessons is not None:
        half = lessons.value / 2
        name = facts.level_name(level) if level is not None else "每级"
        total = format_number(lessons.value)
        return half, rule, Step(f"{name}共 {total} 课时，一半是 {total} ÷ 2 = {format_number(half)} 课时", half,
                                (lessons.source,))
    return None


def taken_of(case: StudentCase, lessons: Fact | None, per_week: Fact | None) -> tuple[float, list[Step]] | None:
    """The lessons attended: said (上了6节), or worked out with its step from the level's lessons (上了一半, 还剩十节没
    上) or the documents' lessons a week (上了两周); None when neither the student nor the documents give it."""
    if case.half or (case.taken is None and case.remaining is not None):
        if lessons is None:
            return None
        total = lessons.value
        if case.half:
            taken = total / 2
            return taken, [Step(f"已上课时 = {format_number(total)} ÷ 2 = {format_number(taken)}", taken, _src(lessons))]
        left = case.remaining or 0.0  # not None here: no half, so the lessons left were said
        taken = total - left
        return taken, [Step(f"已上课时 = {format_number(total)} − {format_number(left)} = {format_number(taken)}",
                            taken, _src(lessons))]
    if case.taken is not None and len(case.taken_parts) > 1:  # 「上了5节 上周又上了2节」
        parts = " + ".join(format_number(v) for v in case.taken_parts)
        return case.taken, [Step(f"已上课时 = {parts} = {format_number(case.taken)}", case.taken, ())]
    if case.taken is not None:
        return case.taken, []
    if case.weeks is not None and per_week is not None:
        rate = per_week.value
        taken = case.weeks * rate
        return taken, [Step(f"已上课时 = {format_number(case.weeks)} 周 × {format_number(rate)} 课时 = {format_number(taken)}",
                            taken, _src(per_week))]
    return None


def refund(case: StudentCase, facts: SchoolFacts) -> Result:
    """The refund for `case`: before the start, stopped, missing figures or facts, or computed step by step."""
    rules = _src(facts.refund_formula, facts.fee_rule)
    extra = _src(facts.textbook_not_refunded)
    paid = paid_of(case, facts)
    if isinstance(paid, Missing):
        return Result(REFUND, MISSING_FACTS, rules=rules, missing=(paid,), extra=extra)
    needs: list[str] = []
    if paid is None:
        # always the question the student answers (你实付多少), then why the documents' price will not do
        needs.append(f"{NEED_PAID[:-1]}；{case.unpaid_reason}）" if case.unpaid_reason else NEED_PAID)
    if case.started is False:
        if facts.before_start is None:
            return Result(REFUND, MISSING_FACTS, missing=_missing(facts, "before_start"), extra=extra)
        if paid is None:
            return Result(REFUND, WHOLE, rules=_src(facts.before_start), needs=tuple(needs[:1]))
        amount, step = paid
        return Result(REFUND, WHOLE, final=amount, word=FINAL_REFUND, rules=_src(facts.before_start), paid=step,
                      extra=extra, paid_said=case.paid)
    level = case.level
    found_limit = limit_of(facts, level)
    limit = found_limit[:2] if found_limit is not None else None
    note = found_limit[2] if found_limit is not None else None
    per_week = facts.for_level("lessons_per_week", level)
    lessons = facts.for_level("lessons_per_level", level)
    # The lessons attended, said or worked out (上了一半, 还剩十节没上, 上了两周): more than the limit stops the refund
    # whatever else is missing.
    derived = taken_of(case, lessons, per_week)
    taken, steps = derived if derived is not None else (None, [])
    paid_step = paid[1] if paid is not None else None
    if taken is not None and limit is not None and taken > limit[0]:
        return Result(REFUND, STOPPED, taken=taken, limit=limit, limit_note=note, steps=tuple(steps),
                      paid=paid_step, extra=extra, paid_said=case.paid)
    if taken is None and not case.half and case.remaining is None and (case.weeks is None or per_week is None):
        needs.append(NEED_TAKEN if case.started else NEED_TAKEN_OR_START)
    if level is None and lessons is None and facts.differs("lessons_per_level"):
        needs.append(NEED_LEVEL)  # the levels' lessons differ: which level decides the total
    if needs:
        return Result(REFUND, NEEDS, rules=rules, needs=tuple(needs), taken=case.taken, limit=limit, limit_note=note, extra=extra)
    missing = _missing(facts, "refund_formula", "lessons_per_level", "over_half")
    if lessons is None and not missing and level is not None:
        missing = (facts.missing_named(f"lessons_per_level:{level}")
                   or Missing(f"lessons_per_level:{level}", f"{facts.level_name(level)}的课时数", "「<级别名>（N级）N 课时」"),)
    if missing or facts.refund_formula is None or lessons is None or limit is None or taken is None:
        return Result(REFUND, MISSING_FACTS, rules=rules, missing=missing, extra=extra)
    amount, paid_step = paid  # type: ignore[misc]
    total = lessons.value
    total_src = _src(lessons)
    remaining = total - taken
    steps.append(Step(f"剩余课时 = {format_number(total)} − {format_number(taken)} = {format_number(remaining)}",
                      remaining, total_src))
    name, formula = facts.refund_formula.value
    values = variables(" ".join((formula, facts.fee_rule.value[1] if facts.fee_rule else "")),
                       amount, remaining, total, taken)
    money = rounding(facts)
    base_expr = facts.fee_rule.value[1] if facts.fee_rule is not None else ""
    base = value_of(substitute(base_expr, values)) if base_expr else None
    if base is not None and facts.fee_rate is not None:
        base = round_amount(base, money)
        steps.append(Step(f"{substitute(base_expr, values)} = {format_number(base)} 元", base, _src(facts.refund_formula)))
        fee = round_amount(base * facts.fee_rate.value, money)
        rate = format_number(facts.fee_rate.value * 100) + "%"
        fee_name = facts.fee_rule.value[0]  # type: ignore[union-attr]
        text = f"{fee_name} {format_number(base)} × {rate} = {format_number(fee)} 元"
        if facts.fee_minimum is not None:
            minimum = facts.fee_minimum.value
            if fee < minimum:
                fee = minimum
                text += f"，低于最低 {format_number(minimum)} 元，按 {format_number(fee)} 元收"
            else:
                text += f"（不低于 {format_number(minimum)} 元）"
        steps.append(Step(text, fee, _src(facts.fee_rule)))
        values[fee_name] = fee
    expr = formula
    if base is not None and base_expr and base_expr in expr:
        expr = expr.replace(base_expr, format_number(base))
    final_expr = substitute(expr, values)
    final = value_of(final_expr)
    if final is None:  # a word of the formula neither the student's figures nor the facts fill
        return Result(REFUND, MISSING_FACTS, rules=rules,
                      missing=_missing(facts, "fee_rule", "fee_rate") or (Missing("refund_formula", "开课后退费公式里的每一项",
                                                                                   "「手续费为 … 的 N%」"),), extra=extra)
    final = round_amount(final, money)
    steps.append(Step(f"{final_expr} = {format_number(final)} 元，{FINAL_REFUND} {format_number(final)} 元", final,
                      _src(facts.refund_formula)))
    return Result(REFUND, COMPUTED, final=final, word=FINAL_REFUND, steps=tuple(steps), rules=rules, paid=paid_step,
                  taken=taken, limit=limit, limit_note=note, extra=extra, paid_said=case.paid)


def transfer(case: StudentCase, facts: SchoolFacts) -> Result | None:
    """Which transfer this is decides the fee; without it the rules are quoted as they are (None). Asked for the
    total of several transfers, the sum of each one's fee (`transfer_total`)."""
    if facts.transfer_fee is None and facts.free_transfer is None:
        return None
    # The lessons attended decide the free window: said, or worked out from weeks (上了三周) or 上了一半 as for a refund.
    derived = taken_of(case, facts.for_level("lessons_per_level", case.level),
                       facts.for_level("lessons_per_week", case.level))
    case = replace(case, taken=derived[0]) if derived is not None else case
    worked = tuple(derived[1]) if derived is not None else ()
    if case.transfers is not None and case.transfers >= 2:
        if case.transfers_from is None:  # 「再转两次」 without the transfers made: which ones they are is asked for
            return Result(TRANSFER, NEEDS, rules=_src(facts.free_transfer, facts.transfer_fee), needs=(NEED_TIMES,))
        return transfer_total(case.transfers, case.taken, facts, first=case.transfers_from)
    times = case.times
    # A total asked (「第二次跟这次加起来」) when the reader found no count of transfers: which ones are added up is not
    # read, so it is asked for — one transfer's fee stated as the total would be a wrong amount.
    if times is None or (case.total_asked and case.transfers is None and case.times != 1):
        return Result(TRANSFER, NEEDS, rules=_src(facts.free_transfer, facts.transfer_fee), needs=(NEED_TIMES,))
    if facts.transfer_fee is not None and times >= facts.transfer_fee.value[0]:
        fee = facts.transfer_fee.value[1]
        return Result(TRANSFER, COMPUTED, final=fee, word=FINAL_FEE, rules=_src(facts.transfer_fee), times=times,
                      steps=(Step("", fee, _src(facts.transfer_fee)),))
    if facts.free_transfer is not None:
        window = facts.free_transfer.value
        limit = (window, facts.free_transfer.source)
        if case.taken is not None and case.taken > window:
            late = facts.late_transfer_fee
            if late is None:  # the documents do not say what a first transfer after the window costs
                return Result(TRANSFER, BEYOND, rules=_src(facts.free_transfer), taken=case.taken, limit=limit,
                              times=times, steps=worked)
            return Result(TRANSFER, COMPUTED, final=late.value, word=FINAL_FEE, rules=_src(facts.free_transfer, late),
                          taken=case.taken, limit=limit, times=times, steps=(*worked, Step("", late.value, _src(late))))
        return Result(TRANSFER, COMPUTED, final=0.0, word=FINAL_FEE, rules=_src(facts.free_transfer), times=times,
                      steps=(Step("", 0.0, _src(facts.free_transfer)),))
    return None


def transfer_total(count: int, taken: float | None, facts: SchoolFacts, *, first: int = 1) -> Result | None:
    """The fees of transfers `first` … `first + count − 1` added up: the first free within the window (`taken`, when
    said, within it), each from the n-th on the stated fee. None (the rules quoted as they are) when the documents do
    not say what one of them costs (a first transfer after the window, or one between the free first and the n-th)."""
    fee, free = facts.transfer_fee, facts.free_transfer
    if fee is None:
        return None
    first_paid, amount = fee.value
    last = first + count - 1
    free_ok = free is not None and (taken is None or taken <= free.value)
    late = facts.late_transfer_fee if free is not None and not free_ok else None  # the first after the window
    if any(k < first_paid and not (k == 1 and (free_ok or late is not None)) for k in range(first, last + 1)):
        if free is not None and taken is not None and taken > free.value and first == 1:
            return Result(TRANSFER, BEYOND, rules=_src(free), taken=taken, limit=(free.value, free.source), times=1)
        return None
    steps: list[Step] = []
    if first == 1 and first_paid > 1 and late is not None:
        steps.append(Step(f"第 1 次在开课后 {format_number(free.value)} 课时之后（已上 {format_number(taken or 0.0)} "  # type: ignore[union-attr]
                          f"课时），{format_number(late.value)} 元", late.value, _src(late)))
    elif first == 1 and first_paid > 1:
        steps.append(Step(f"第 1 次在开课后 {format_number(free.value)} 课时内，免费", 0.0, _src(free)))  # type: ignore[union-attr]
    start = max(first, first_paid)
    paid_count = last - start + 1
    paid_total = round_amount(paid_count * amount, rounding(facts))
    span = f"第 {start} 次" if paid_count == 1 else f"第 {start}–{last} 次"
    steps.append(Step(f"{span}每次 {format_number(amount)} 元，{paid_count} × {format_number(amount)} = "
                      f"{format_number(paid_total)} 元", paid_total, _src(fee)))
    total = round_amount(sum(step.value or 0.0 for step in steps), rounding(facts))
    parts = " + ".join(format_number(step.value or 0.0) for step in steps)
    total_text = f"{parts} = {format_number(total)}" if len(steps) > 1 else format_number(total)
    rules = (_src(free, late, fee) if late is not None else _src(free, fee)) if first == 1 else _src(fee)
    steps.append(Step(total_text, total, rules))
    return Result(TRANSFER, COMPUTED, final=total, word=FINAL_FEE, rules=rules, times=count, first_transfer=first,
                  steps=tuple(steps))


def difference(case: StudentCase, facts: SchoolFacts) -> Result | None:
    """The two levels' tuition difference: 需补 moving up, 可退差价 moving down, plus the transfer fee from the n-th."""
    rule = facts.level_difference
    if rule is None:
        return Result(DIFFERENCE, MISSING_FACTS, missing=_missing(facts, "level_difference"))
    current, target = case.level, case.target
    needs = tuple(n for n, v in ((NEED_LEVEL, current), (NEED_TARGET, target)) if v is None)
    if needs:
        return Result(DIFFERENCE, NEEDS, rules=_src(rule), needs=needs)
    new, old = facts.tuition_of(target), facts.tuition_of(current)
    if new is None or old is None:
        missing = tuple(facts.missing_named(f"tuition:{lv}") or Missing(f"tuition:{lv}", f"{lv}级的学费", "「<级别名>（N级）：N 元」")
                        for lv, f in ((current, old), (target, new)) if f is None)
        return Result(DIFFERENCE, MISSING_FACTS, rules=_src(rule), missing=missing)
    new_fee, old_fee = new.value[1], old.value[1]
    up = new_fee >= old_fee
    (high, high_level), (low, low_level) = ((new_fee, target), (old_fee, current)) if up else \
        ((old_fee, current), (new_fee, target))
    diff = round_amount(high - low, rounding(facts))
    word = FINAL_PAY if up else FINAL_BACK
    steps = [Step(f"{_numeral(high_level)} {format_number(high)} − {_numeral(low_level)} {format_number(low)} = "
                  f"{format_number(diff)} 元", diff, _src(rule, new, old))]
    rules = _src(rule, old) + (_src(new) if new.source != old.source else ())
    fee = facts.transfer_fee
    late = _late_first(case, facts)
    if late is not None or (fee is not None and case.times is not None and case.times >= fee.value[0]):
        charged, window, taken = (late[0], late[1], late[2]) if late is not None else (fee, None, None)
        amount = charged.value if late is not None else charged.value[1]  # type: ignore[union-attr]
        net = round_amount(diff + amount if up else diff - amount, rounding(facts))
        sign = "+" if up else "−"
        steps.append(Step(f"{word} {format_number(diff)} {sign} {format_number(amount)} = {format_number(net)} 元",
                          net, _src(rule, new, old, charged)))
        return Result(DIFFERENCE, COMPUTED, final=net, word=word, steps=tuple(steps), rules=rules + _src(charged),
                      times=case.times, taken=taken, limit=window)
    note = _src(fee) if fee is not None and case.times is None else ()
    return Result(DIFFERENCE, COMPUTED, final=diff, word=word, steps=tuple(steps), rules=rules, fee_note=note)


def _late_first(case: StudentCase, facts: SchoolFacts) -> tuple[Fact, tuple[float, Source], float] | None:
    """(the late fee's fact, the free window, the lessons attended) when this is the first transfer, made after the free
    window, and the documents state what that costs; None otherwise."""
    free, late = facts.free_transfer, facts.late_transfer_fee
    if case.times != 1 or free is None or late is None:
        return None
    derived = taken_of(case, facts.for_level("lessons_per_level", case.level),
                       facts.for_level("lessons_per_week", case.level))
    if derived is None or derived[0] <= free.value:
        return None
    return late, (free.value, free.source), derived[0]


def _numeral(level: int | None) -> str:
    """二级: how a step labels a level (the arithmetic check reads 「<word>级 <amount>」 as a label and a figure)."""
    numerals = "一二三四五六七八九十"
    return (numerals[level - 1] if level and 1 <= level <= len(numerals) else str(level)) + "级"


def substitute(expr: str, values: dict[str, float]) -> str:
    """The formula's words replaced by the student's figures, longest word first: 「4200 ×（10 ÷ 16）」."""
    out = expr
    for word in sorted(values, key=len, reverse=True):
        out = out.replace(word, format_number(values[word]))
    return out


def value_of(expr: str) -> float | None:
    """The value of an arithmetic expression (core.checks.arithmetic's parser), or None when words remain."""
    result = evaluate(tokenize(expr))
    return None if result is None else result[0]


def variables(words: str, paid: float, remaining: float, total: float, taken: float) -> dict[str, float]:
    """The formula's words (in `words`) that name the student's figures, with their values."""
    out: dict[str, float] = {}
    for names, value in (("formula_paid", paid), ("formula_remaining", remaining), ("formula_total", total),
                         ("formula_taken", taken)):
        for name in fact_words()[names]:
            if name in words:
                out[name] = value
                break
    return out


