"""The one shape every check returns a finding in: a code, a Chinese message, an optional span."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One finding about an answer. `span` is (start, end) into the answer text, when known."""

    code: str
    message: str
    span: tuple[int, int] | None = None

    def to_dict(self) -> dict:
        return {"code": self.code, "message": self.message,
                "span": list(self.span) if self.span else None}

    @classmethod
    def from_dict(cls, data: dict) -> Problem:
        span = data.get("span")
        return cls(code=data["code"], message=data["message"],
                   span=tuple(span) if span else None)
