"""What a term rule may ask of the analyzer that runs it, as a Protocol.

The rules (core.answerability.term_rules, core.answerability.message_rules) read the analyzer but never
change it; typing them against this Protocol lets the registry (core.answerability.rules) list them and
the analyzer (core.answerability.terms.TermAnalyzer) run them without either importing the other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from core.answerability.glossary import Glossary


class Analyzer(Protocol):
    """The analyzer's read-only view a rule uses."""

    question_words: frozenset[str]
    latin_vocabulary: frozenset[str]

    def cut(self, text: str) -> list[str]: ...

    def weight(self, word: str) -> float: ...

    def weigh(self, token: str, glossary: Glossary | None) -> tuple[float, tuple[str, ...]]: ...

    def tag(self, word: str) -> str: ...

    def in_corpus(self, word: str) -> bool: ...

    def resolves(self, piece: str, glossary: Glossary | None) -> bool: ...

    def is_glued(self, token: str, glossary: Glossary | None) -> bool: ...

    def is_numeral_compound(self, token: str, glossary: Glossary | None) -> bool: ...

    def homophone(self, typed: str) -> str | None: ...
