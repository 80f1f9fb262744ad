"""A sentence the documents still state after a save changed the rule it restates (core.reuse.drift.still_stating)."""

from __future__ import annotations

from dataclasses import dataclass

MAX_QUOTED = 60
CONTRADICTED_CODE = "contradicted_source"  # the reason an answer citing one is queued with (lane 资料已更新)


@dataclass(frozen=True)
class Contradiction:
    """`sentence` (in `source`, section `heading`) still says what `old` said before a save of `changed_source`
    changed it to `new` ("" when the save deleted it): until one of them is edited, the documents disagree."""

    source: str
    heading: str
    sentence: str
    changed_source: str
    old: str
    new: str

    @property
    def place(self) -> str:
        return f"「{self.source}」{self.heading or '文首'}"

    def describe(self) -> str:
        """Both sentences, in Chinese: what still stands and what it disagrees with."""
        change = (f"改成了「{_quoted(self.new)}」" if self.new else "删掉了")
        return (f"{self.place}还写着「{_quoted(self.sentence)}」，而「{self.changed_source}」里说同一件事的"
                f"「{_quoted(self.old)}」已经{change}")


def _quoted(sentence: str) -> str:
    return sentence if len(sentence) <= MAX_QUOTED else sentence[:MAX_QUOTED] + "…"
