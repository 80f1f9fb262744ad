"""The 敏感词 automaton: every listed word found in a text in one pass, whitelisted phrases taken out.

Matching is an Aho–Corasick automaton (pyahocorasick, docs/dependencies.md), built once per list: one pass over the
text finds every word of a 10,000-word list, however many words there are, instead of a loop over the words. A hit
that lies inside a whitelisted phrase (the education whitelist: 「考试」 words a school says every day that hold a listed
word) is no hit. Both are read with full-width and upper-case letters folded, character for character, so a hit's
span is where the word stands in the text as written.

Left out: where the list comes from (core.stores.sensitive_words keeps it), and what a hit does (the student desk
answers with the configured reply; the Sources page warns before a save).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import ahocorasick

WORD, WHITELIST = "word", "whitelist"


@dataclass(frozen=True)
class Word:
    """One entry of the list: its text, its category (政治、色情、广告 …) and whether it is a 敏感词 or whitelisted."""

    text: str
    category: str = ""
    kind: str = WORD


@dataclass(frozen=True)
class Hit:
    """A 敏感词 found: the word as listed, its category, and where it stands in the text."""

    word: str
    category: str
    start: int
    end: int


# Full-width forms read as their ASCII twins and Latin capitals as small letters, one character for one, so a
# hit's span is where the word stands as written; one str.translate per text (C speed).
_FOLD = ({c: chr(c - 0xFEE0).lower() for c in range(0xFF01, 0xFF5F)} | {0x3000: " "}
         | {c: chr(c).lower() for c in range(ord("A"), ord("Z") + 1)})


def fold(text: str) -> str:
    """`text` with full-width forms as ASCII and Latin letters in lower case, character for character."""
    return text.translate(_FOLD)


class Matcher:
    """An automaton over the words and whitelisted phrases; build once, `find` as often as needed (read-only)."""

    def __init__(self, words: Iterable[Word]) -> None:
        self._automaton = ahocorasick.Automaton()
        self.words = 0
        for word in words:
            key = fold(word.text.strip())
            if not key:
                continue
            known = self._automaton.get(key, None)
            # A phrase both listed and whitelisted reads as whitelisted: the school said it is its own word.
            if known is None or word.kind == WHITELIST:
                self._automaton.add_word(key, (word.text.strip(), word.category, word.kind, len(key)))
            self.words += word.kind == WORD
        self._empty = len(self._automaton) == 0
        if not self._empty:
            self._automaton.make_automaton()

    def find(self, text: str) -> tuple[Hit, ...]:
        """The listed words in `text`, in order, those inside a whitelisted phrase left out."""
        if self._empty or not text:
            return ()
        hits: list[Hit] = []
        allowed: list[tuple[int, int]] = []
        for end, (word, category, kind, length) in self._automaton.iter(fold(text)):
            start = end - length + 1
            if kind == WHITELIST:
                allowed.append((start, end + 1))
            else:
                hits.append(Hit(word, category, start, end + 1))
        return tuple(h for h in hits if not any(s <= h.start and h.end <= e for s, e in allowed))

    def __bool__(self) -> bool:
        return not self._empty
