"""jieba's lexicon, the private tokenizer and the corpus vocabulary the term analysis starts from.

`lexicon()` reads jieba's dict.txt and background IDF table once; `new_tokenizer` builds a private
jieba Tokenizer (the global one is never touched) with the corpus's words raised; `corpus_vocabulary`
finds the corpus's own words (jieba's HMM over the corpus), optionally kept in a JSON cache. No
rule of the decision lives here.
"""

from __future__ import annotations

import functools
import json
import logging
import sys
import unicodedata
from collections import ChainMap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import jieba

from core.answerability.term_words import (
    CORPUS_WORD_FREQ,
    FUNCTION_TAGS,
    MIN_CORPUS_WORD_COUNT,
    NUMERAL_TOPICS,
    QUESTION_WORDS,
)

jieba.setLogLevel(logging.WARNING)  # jieba's own logger prints "Building prefix dict…" at DEBUG


@dataclass(frozen=True)
class Lexicon:
    freq: dict[str, int]
    total: int
    tags: dict[str, str]
    idf: dict[str, float]
    median_idf: float


@functools.cache
def lexicon() -> Lexicon:
    """jieba's word frequencies and tags (dict.txt) and background IDF (analyse/idf.txt), read once."""
    dict_path = Path(jieba.__file__).with_name("dict.txt")
    freq: dict[str, int] = {}
    tags: dict[str, str] = {}
    counts: dict[int, int] = {}  # equal numbers share one object: ~10 MB over 500,000 entries
    total = 0
    with dict_path.open(encoding="utf-8") as handle:
        for line in handle:
            parts = line.split()
            if len(parts) < 2:
                continue
            word, count = parts[0], int(parts[1])
            count = counts.setdefault(count, count)
            freq[word] = count
            total += count
            if len(parts) > 2:
                tags[word] = sys.intern(parts[2])  # ~60 distinct tags: one object each, not 349,000
            for end in range(1, len(word)):  # prefixes, as jieba's own loader records them
                freq.setdefault(word[:end], 0)
    idf_path = Path(jieba.__file__).with_name("analyse") / "idf.txt"  # without importing jieba.analyse (0.5 s)
    idf: dict[str, float] = {}
    same = {word: word for word in freq}  # idf's words reuse dict.txt's string objects (~15 MB less)
    numbers: dict[float, float] = {}
    with idf_path.open(encoding="utf-8") as handle:
        for line in handle:
            parts = line.split()
            if len(parts) == 2:
                value = float(parts[1])
                idf[same.get(parts[0], parts[0])] = numbers.setdefault(value, value)
    del same, numbers, counts
    values = sorted(idf.values())
    return Lexicon(freq=freq, total=total, tags=tags, idf=idf, median_idf=values[len(values) // 2])


def new_tokenizer(vocabulary: Iterable[str], extra_words: Iterable[str]) -> jieba.Tokenizer:
    """A private jieba Tokenizer: jieba's dictionary, corpus words raised to CORPUS_WORD_FREQ, extra words."""
    lex = lexicon()
    tokenizer = jieba.Tokenizer()
    # jieba has no public way to start from an in-memory dictionary; these are exactly the
    # three attributes its initialize() sets after reading dict.txt (or its temp-folder cache).
    # jieba only reads FREQ (in, [], get) and writes new words into it: an overlay on the shared
    # lexicon instead of a copy saves ~40 MB per analyzer; the lexicon itself is never written.
    tokenizer.FREQ = ChainMap({}, lex.freq)
    tokenizer.total = lex.total
    tokenizer.initialized = True
    for word in vocabulary:
        if (tokenizer.FREQ.get(word) or 0) < CORPUS_WORD_FREQ:
            tokenizer.add_word(word, CORPUS_WORD_FREQ)
    for word in sorted(set(extra_words)):  # sorted: each add_word changes later suggested frequencies
        tokenizer.add_word(word, max(CORPUS_WORD_FREQ, tokenizer.suggest_freq(word)))
    return tokenizer


def fold(text: str) -> str:
    """NFKC + lowercase, keeping punctuation so that jieba still sees sentence boundaries."""
    return unicodedata.normalize("NFKC", text).lower()


def corpus_vocabulary(texts: Sequence[str], *, min_count: int = MIN_CORPUS_WORD_COUNT) -> tuple[str, ...]:
    """The corpus's own words (2+ Chinese characters, seen >= min_count times), sorted.

    jieba (with its HMM, which finds new words such as 转班 and 报读) cuts the corpus; the words
    it cuts at least `min_count` times, function words aside, are the corpus's vocabulary.
    """
    from core.corpus.profile import vocabulary_from_counts, word_counts  # it builds on this module

    return vocabulary_from_counts(word_counts(texts), min_count=min_count)


def cached_vocabulary(texts: Sequence[str], path: Path | None) -> tuple[str, ...]:
    """corpus_vocabulary(texts), kept in `path` (JSON) across restarts; a bad file is recomputed."""
    if path is None:
        return corpus_vocabulary(texts)
    if path.exists():
        try:
            return tuple(json.loads(path.read_text(encoding="utf-8"))["vocabulary"])
        except (OSError, ValueError, KeyError, TypeError) as error:
            logging.getLogger(__name__).warning("vocabulary cache %s unreadable (%s); recomputing", path, error)
    vocabulary = corpus_vocabulary(texts)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_suffix(".tmp")
        temp.write_text(json.dumps({"vocabulary": list(vocabulary)}, ensure_ascii=False), encoding="utf-8")
        temp.replace(path)
    except OSError as error:  # an unwritable data folder costs only the recomputation next time
        logging.getLogger(__name__).warning("vocabulary cache %s not written (%s)", path, error)
    return vocabulary


def is_function_word(word: str, lex: Lexicon) -> bool:
    """A function word for the corpus vocabulary (the full word lists, whatever rules are on)."""
    if word in NUMERAL_TOPICS:
        return False
    return word in QUESTION_WORDS or lex.tags.get(word) in FUNCTION_TAGS
