"""What the gate decided before any model call: the signals compared, the decision, the grader's band and
verdict, and the Gate that carries them with the kept candidates."""

from __future__ import annotations

from dataclasses import dataclass

from core.knobs import Knobs
from core.values.retrieval import Hit, Term


@dataclass(frozen=True)
class Signal:
    """One row of the explanation table: a Chinese name, the measured value, and whether it passed.

    `compared` says what the gate compared (「62% ≥ 59%」), so the page shows the number it used.
    """

    name_zh: str
    value: float
    passed: bool
    detail: str = ""
    compared: str = ""


@dataclass(frozen=True)
class Decision:
    """Answer or refuse, with a score in [0, 1] and the reason in the consultant's words."""

    answerable: bool
    score: float
    reason: str
    signals: tuple[Signal, ...]
    uncovered_terms: tuple[str, ...] = ()
    carrying_terms: tuple[str, ...] = ()
    unknown_terms: tuple[str, ...] = ()
    coverage: float = 0.0
    terms: tuple[Term, ...] = ()
    context_terms: tuple[str, ...] = ()  # left out: only the asker's description of themselves holds them
    reason_code: str = ""  # a refusal's code when one rule alone says why (not_asked_attribute), else ""
    asked: tuple[str, ...] = ()  # what an answer must carry (core.case.asked kinds: amount, year …); () when nothing


@dataclass(frozen=True)
class Band:
    """The uncertain band's edges: how far below the coverage floor, and the heaviest absent word allowed."""

    coverage_margin: float
    unknown_limit: float


@dataclass(frozen=True)
class Grade:
    """The grader's verdict on one question, with its cost; `fault` is set when the call failed."""

    answerable: bool
    chunks: tuple[int, ...]
    reason: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    ms: int = 0
    fault: str = ""  # a ModelError kind ("timeout", "rate_limit", "bad_response", …); "" when a verdict came
    structured: bool = True  # False: the provider had no structured output, the strict parser read the text

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def cost(self) -> str:
        """「用量 812 tokens（输入 790，输出 22），用时 640 毫秒」"""
        return (f"用量 {self.tokens} tokens（输入 {self.prompt_tokens}，输出 {self.completion_tokens}），"
                f"用时 {self.ms} 毫秒")

    def describe(self) -> str:
        """The line the Ask page and the review queue show."""
        if self.fault:
            return f"模型判定失败，已拒答：{self.reason}"
        if self.answerable:
            return f"由模型判定可答：{self.reason}（依据片段 {'、'.join(map(str, self.chunks))}）"
        return f"模型判定不可答：{self.reason}"

    def to_dict(self) -> dict:
        return {"answerable": self.answerable, "chunks": list(self.chunks), "reason": self.reason,
                "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "ms": self.ms, "fault": self.fault}


@dataclass(frozen=True)
class Gate:
    """The decision taken before any model call: which kept candidates pass, and why it refuses if it does."""

    question: str
    candidates: tuple[Hit, ...]  # the first k ranked candidates, `passed` marked
    knobs: Knobs
    refused: bool
    reason: str
    decision: Decision | None = None  # None when the answerability decision is off
    grade: Grade | None = None  # the grader's verdict (core.answering.grader) for a question in the uncertain band

    @property
    def hits(self) -> tuple[Hit, ...]:
        return tuple(h for h in self.candidates if h.passed)

    @property
    def threshold(self) -> float:
        return self.knobs.threshold

    @property
    def k(self) -> int:
        return self.knobs.k




@dataclass(frozen=True)
class Recheck:
    """An answer on screen re-decided at other knobs, without a model call: does it still stand?

    `flip` is "" (same decision), "refuse" (it would now be refused) or "answer" (a refusal would now be
    answered); `chunks_changed` says the passing chunks differ from those the answer was written from;
    `lines` are the current gate's comparisons (「关键词覆盖 84% < 90% ✗」), the numbers it decided with."""

    flip: str
    chunks_changed: bool
    lines: tuple[str, ...]
    reason: str  # the current gate's reason

    @property
    def stands(self) -> bool:
        return not self.flip and not self.chunks_changed
