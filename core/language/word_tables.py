"""jieba's dictionary held compactly: a MARISA trie of the words plus flat arrays of their values.

As Python dicts, jieba's 498,000 words and prefixes, 349,000 tags and 270,000 IDF values take
about 78 MB in every console process; a trie (about 1 MB) with an `array` per value takes about
10 MB. The tables answer exactly what the dicts answered (`in`, `[]`, `get`, `len`, iteration),
with the same values, so jieba's cuts and every weight stay identical. `FreqOverlay` is the
writable view a private jieba Tokenizer gets: its own new words in a small dict, in front of the
shared read-only table (jieba only reads FREQ with `in`, `[]` and `get`, and writes new words).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

import marisa_trie
import numpy as np

V = TypeVar("V")
_MISSING = object()


class WordTable(Mapping[str, V]):
    """A read-only str → value mapping: trie ids index one flat array of values."""

    __slots__ = ("_trie", "_values")

    def __init__(self, trie: marisa_trie.Trie, values: Sequence) -> None:
        self._trie, self._values = trie, values

    @classmethod
    def from_items(cls, words: Iterable[str], items: Callable[[], Iterable[tuple[str, V]]],
                   typecode: str) -> WordTable[V]:
        """`words` are the keys (repeats allowed); `items()` gives (word, value) pairs in order, the
        last value of a word wins, and a key with no pair has 0; `typecode` is the `array` type
        of the values ('q' for counts, 'd' for IDF)."""
        trie = marisa_trie.Trie(words)
        values = array(typecode, bytes(array(typecode).itemsize * len(trie)))
        for word, value in items():
            values[trie[word]] = value
        return cls(trie, values)

    def save(self, folder: Path, name: str) -> None:
        """Write the trie and the values as two files (`load` maps them back)."""
        self._trie.save(str(folder / f"{name}.trie"))
        (folder / f"{name}.{self._values.typecode}").write_bytes(self._values.tobytes())

    @classmethod
    def load(cls, folder: Path, name: str, typecode: str) -> WordTable:
        trie = marisa_trie.Trie()
        trie.mmap(str(folder / f"{name}.trie"))  # shared between processes by the page cache
        values = array(typecode)
        values.frombytes((folder / f"{name}.{typecode}").read_bytes())
        if len(values) != len(trie):
            raise ValueError(f"{name}: {len(values)} values for {len(trie)} words")
        return cls(trie, values)

    def median(self) -> float:
        """The middle value (upper of the two middle ones), as sorted(values)[len // 2]."""
        return float(np.sort(np.frombuffer(self._values, dtype=np.float64))[len(self._values) // 2])

    def __contains__(self, word: object) -> bool:
        return word in self._trie

    def __getitem__(self, word: str) -> V:
        return self._values[self._trie[word]]

    def get(self, word: str, default=None):
        key = self._trie.get(word)
        return default if key is None else self._values[key]

    def __len__(self) -> int:
        return len(self._trie)

    def __iter__(self) -> Iterator[str]:
        return iter(self._trie)

    def nbytes(self) -> int:
        return len(self._trie.tobytes()) + len(self._values) * self._values.itemsize

    def starting_with(self, prefix: str) -> list[str]:
        """The keys that begin with `prefix` (itself included when it is a key), in the trie's order."""
        return self._trie.keys(prefix)


class TagTable(Mapping[str, str]):
    """A read-only word → part-of-speech tag mapping: one byte per word into the table of tag names."""

    __slots__ = ("_trie", "_codes", "_names")

    def __init__(self, trie: marisa_trie.Trie, codes: bytearray, names: tuple[str, ...]) -> None:
        self._trie, self._codes, self._names = trie, codes, names

    @classmethod
    def from_items(cls, items: Callable[[], Iterable[tuple[str, str]]]) -> TagTable:
        """`items()` gives (word, tag) pairs in order; the last tag of a repeated word wins."""
        trie = marisa_trie.Trie(word for word, _ in items())
        number: dict[str, int] = {}
        codes = bytearray(len(trie))
        for word, tag in items():
            codes[trie[word]] = number.setdefault(tag, len(number))
        if len(number) > 256:
            raise ValueError(f"{len(number)} distinct tags do not fit one byte each")
        return cls(trie, codes, tuple(number))

    def save(self, folder: Path, name: str) -> None:
        self._trie.save(str(folder / f"{name}.trie"))
        (folder / f"{name}.codes").write_bytes(bytes(self._codes))
        (folder / f"{name}.names").write_text("\n".join(self._names), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path, name: str) -> TagTable:
        trie = marisa_trie.Trie()
        trie.mmap(str(folder / f"{name}.trie"))
        codes = bytearray((folder / f"{name}.codes").read_bytes())
        names = tuple((folder / f"{name}.names").read_text(encoding="utf-8").split("\n"))
        if len(codes) != len(trie):
            raise ValueError(f"{name}: {len(codes)} tags for {len(trie)} words")
        return cls(trie, codes, names)

    def __contains__(self, word: object) -> bool:
        return word in self._trie

    def __getitem__(self, word: str) -> str:
        return self._names[self._codes[self._trie[word]]]

    def get(self, word: str, default=None):
        key = self._trie.get(word)
        return default if key is None else self._names[self._codes[key]]

    def __len__(self) -> int:
        return len(self._trie)

    def __iter__(self) -> Iterator[str]:
        return iter(self._trie)


class FreqOverlay:
    """A private Tokenizer's FREQ: its own words first, then the shared table (never written)."""

    __slots__ = ("own", "base")

    def __init__(self, base: Mapping[str, int]) -> None:
        self.own: dict[str, int] = {}
        self.base = base

    def __contains__(self, word: object) -> bool:
        return word in self.own or word in self.base

    def __getitem__(self, word: str) -> int:
        value = self.own.get(word, _MISSING)
        return self.base[word] if value is _MISSING else value

    def get(self, word: str, default=None):
        value = self.own.get(word, _MISSING)
        return self.base.get(word, default) if value is _MISSING else value

    def __setitem__(self, word: str, value: int) -> None:
        self.own[word] = value

    def __len__(self) -> int:
        return len(self.own) + sum(1 for word in self.base if word not in self.own)

