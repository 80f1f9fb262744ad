"""The one shape every check returns a finding in: a code, a Chinese message, an optional span."""

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
        data = {"code": self.code, "message": self.message, "span": list(self.span) if self.span else None}
        if self.compare:
            data["compare"] = [list(row) for row in self.compare]
        return data

    @classmethod
    def from_dict(cls, data: dict) -> Problem:
        span = data.get("span")
        return cls(code=data["code"], message=data["message"], span=tuple(span) if span else None,
                   compare=tuple(tuple(row) for row in data.get("compare") or ()))
