"""The student's own case as a question states it: the values the case reader (core.case) hands the calculators
(core.answering.calculate), the reuse guard and the checks."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class StudentCase:
    """The figures a question states about the student (None: not stated)."""

    levels: tuple[int, ...] = ()  # every level named, in order (二级, 转到三级 → (2, 3))
    target: int | None = None  # the level to change to
    paid: float | None = None  # the amount paid (元)
    taken: float | None = None  # lessons attended
    taken_parts: tuple[float, ...] = ()  # the counts added up to `taken` (上了5节 又上了2节 → (5, 2)), when more than one
    half: bool = False  # 「上了一半」: half the total attended
    weeks: float | None = None
    started: bool | None = None  # False: before the start; True: after it / lessons attended
    with_textbook: bool = False  # the amount paid includes the textbook fee
    remaining: float | None = None  # lessons left (还剩十节没上)
    times: int | None = None  # which transfer this is (第二次, 已经转过一次 → 2)
    transfers: int | None = None  # how many transfers in all, when the total fee is asked (要转3次班，一共多少 → 3)
    transfers_from: int | None = 1  # the first of them (再转两次 after 转过两次 → 3; None: unknown)
    full_price: bool = False  # 「原价报的」: the student paid their level's single price
    total_asked: bool = False  # 「一共」「加起来」: a total is asked (of several transfers, when transfers is read)
    unpaid_reason: str = ""  # why the tuition paid is unknown though the level is said: a discount, a rough amount
    facts: dict[str, frozenset[object]] = field(default_factory=dict, compare=False)  # every kind read, {kind: values}

    @property
    def level(self) -> int | None:
        """The level the student is on now: the first named that is not the target."""
        return next((lv for lv in self.levels if lv != self.target), None)

    @property
    def states_figures(self) -> bool:
        """Whether the question states a figure of the student's own (开课前 alone is a general question)."""
        return any(v is not None for v in (self.paid, self.taken, self.weeks, self.target, self.times, self.remaining,
                                     self.transfers)) \
            or bool(self.levels) or self.half


# What a calculator found (core.answering.calculate): the phrasing (core.answering.own_case) words each one.
COMPUTED = "computed"  # a final amount, worked out step by step
BEFORE_START = "before_start"  # the course has not started: the whole tuition back
STOPPED = "stopped"  # more than the limit attended: no refund
NEEDS = "needs"  # the student did not say a figure the computation needs
MISSING_FACTS = "missing_facts"  # the documents do not state a fact the computation needs
RULE_ONLY = "rule_only"  # the rule applies as written (a first free transfer; no figure to compute)
BEYOND = "beyond"  # the documents do not say what applies (a first transfer after the free window)


@dataclass(frozen=True)
class Step:
    """One step of a computation: its equation as written (「剩余课时 = 16 − 6 = 10」), its value, and the facts
    it uses (core.values.facts.Source: the sentences to cite)."""

    text: str
    value: float | None = None
    sources: tuple = ()


@dataclass(frozen=True)
class Result:
    """What a calculator worked out for one student's case. `final` is the amount the student asked for (None when
    there is none); `word` names it (可退, 需补, 可退差价, 转班手续费); `rules` are the rule sentences stated first;
    `paid` is how the tuition paid was found (a Step with the tuition's or the textbook fee's source, or None when the
    student said it); `needs` the student's figures missing; `missing` the school facts missing (core.values.facts.Missing)."""

    computation: str  # core.case.intent: refund, transfer, difference, before_start
    outcome: str  # one of COMPUTED … BEYOND above
    final: float | None = None
    word: str = ""
    steps: tuple[Step, ...] = ()
    rules: tuple = ()  # Sources
    paid: Step | None = None
    needs: tuple[str, ...] = ()
    missing: tuple = ()  # Missing
    taken: float | None = None  # lessons attended (said or derived)
    limit: tuple | None = None  # (lessons, Source) of the over-half stop, or the free transfer's window
    limit_note: Step | None = None  # how the stop's count was found when another sentence gives it (its level's)
    times: int | None = None
    first_transfer: int = 1  # the total of several transfers: the first of them (再转两次 after two made → 3)
    extra: tuple = ()  # Sources stated after the result (the textbook fee is not refunded)
    fee_note: tuple = ()  # (Source,) of the transfer fee when the question does not say which transfer it is
    paid_said: float | None = None  # the amount the student said they paid (it included the textbook fee)

    @property
    def states_amount(self) -> bool:
        """Whether the answer works out an amount of the student's own (a final figure)."""
        return self.final is not None
