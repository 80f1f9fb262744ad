"""What the checks found in an answer: problems, the figures read, the citations resolved and the
sentence-by-sentence grounding verdicts."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One finding about an answer. `span` is (start, end) into the answer text, when known."""

    code: str
    message: str
    span: tuple[int, int] | None = None
    # Rows shown side by side (what, the question's figures, the answer's figures), e.g.
    # ("金额", "4200 元", "4800 元"); set by question_mismatch, empty for every other problem.
    compare: tuple[tuple[str, str, str], ...] = ()

    def to_dict(self) -> dict:
        data: dict[str, object] = {"code": self.code, "message": self.message,
                                   "span": list(self.span) if self.span else None}
        if self.compare:
            data["compare"] = [list(row) for row in self.compare]
        return data

    @classmethod
    def from_dict(cls, data: dict) -> Problem:
        span = data.get("span")
        return cls(code=data["code"], message=data["message"], span=tuple(span) if span else None,
                   compare=tuple(tuple(row) for row in data.get("compare") or ()))


@dataclass(frozen=True)
class Figure:
    """One quantity as written: `value` is the number read (5% → 5); `percent` marks a percentage."""

    text: str
    span: tuple[int, int]
    value: float
    percent: bool = False

    @property
    def amount(self) -> float:
        """The value to calculate with: 5% is 0.05."""
        return self.value / 100 if self.percent else self.value

    @property
    def keys(self) -> frozenset[float]:
        """Values under which this figure counts as present; a percentage also matches its fraction."""
        return frozenset({_key(self.value), _key(self.amount)})


def _key(value: float) -> float:
    # Rounded so that 1.5万 and 15000, or 0.1+0.2 and 0.3, compare equal.
    return round(value, 6)


@dataclass(frozen=True)
class Reference:
    """One citation number resolved to the chunk it names."""

    number: int
    source: str
    heading: str
    chunk: int
    start: int
    end: int
    excerpt: str


@dataclass(frozen=True)
class RefReport:
    """The citations an answer uses (resolvable ones) and the problems found."""

    refs: tuple[Reference, ...]
    problems: tuple[Problem, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(frozen=True)
class SentenceVerdict:
    """One sentence of the answer: where it is, what it cites, what it states, what is wrong."""

    text: str
    span: tuple[int, int]
    cited: tuple[int, ...]
    figures: tuple[Figure, ...]
    problems: tuple[Problem, ...]
    derivations: tuple[str, ...] = ()  # how derived figures follow: 「10 = 16 − 6」

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict:
        """What a reviewer sees of the verdict (the figures read are left out: the text holds them)."""
        return {"text": self.text, "span": list(self.span), "cited": list(self.cited),
                "problems": [p.to_dict() for p in self.problems], "derivations": list(self.derivations)}

    @classmethod
    def from_dict(cls, data: dict) -> SentenceVerdict:
        return cls(text=data["text"], span=tuple(data["span"]), cited=tuple(data["cited"]), figures=(),
                   problems=tuple(Problem.from_dict(p) for p in data["problems"]),
                   derivations=tuple(data.get("derivations", ())))


@dataclass(frozen=True)
class GroundingReport:
    """One verdict per sentence plus all problems in order of position."""

    verdicts: tuple[SentenceVerdict, ...]
    problems: tuple[Problem, ...]

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict:
        return {"verdicts": [v.to_dict() for v in self.verdicts], "problems": [p.to_dict() for p in self.problems]}

    @classmethod
    def from_dict(cls, data: dict) -> GroundingReport:
        return cls(verdicts=tuple(SentenceVerdict.from_dict(v) for v in data["verdicts"]),
                   problems=tuple(Problem.from_dict(p) for p in data["problems"]))


