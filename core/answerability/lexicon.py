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
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
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
from core.answerability.word_tables import FreqOverlay, TagTable, WordTable
from core.memory import release_free_memory

jieba.setLogLevel(logging.WARNING)  # jieba's own logger prints "Building prefix dict…" at DEBUG


@dataclass(frozen=True)
class Lexicon:
    """jieba's dictionary as read-only mappings (core.answerability.word_tables: a trie, not dicts)."""

    freq: Mapping[str, int]  # words and their prefixes (0), as jieba's own loader records them
    total: int
    tags: Mapping[str, str]
    idf: Mapping[str, float]
    median_idf: float


@functools.cache
def lexicon() -> Lexicon:
    """jieba's word frequencies and tags (dict.txt) and background IDF (analyse/idf.txt), read once.

    The same mappings a dict would give (the last line of a repeated word wins; a prefix that is
    not a word has 0), packed into tries with flat value arrays (core.answerability.word_tables):
    ~10 MB instead of ~78 MB per process. Words stream from the file into the trie and are never
    all held as Python strings at once, so loading leaves no freed-but-kept heap behind either.
    """
    dict_path = Path(jieba.__file__).with_name("dict.txt")
    entries = _read_table(dict_path, min_parts=2)
    freq = WordTable.from_items(_with_prefixes(entries()), lambda: ((w, int(p[0])) for w, p in entries()), "q")
    release_free_memory()  # after each trie: the builder's many small blocks, freed, would pile up
    total = sum(int(parts[0]) for _, parts in entries())
    tags = TagTable.from_items(lambda: ((word, parts[1]) for word, parts in entries() if len(parts) > 1))
    release_free_memory()
    idf_path = Path(jieba.__file__).with_name("analyse") / "idf.txt"  # without importing jieba.analyse (0.5 s)
    idf_entries = _read_table(idf_path, min_parts=2, max_parts=2)
    idf = WordTable.from_items((w for w, _ in idf_entries()), lambda: ((w, float(p[0])) for w, p in idf_entries()), "d")
    release_free_memory()
    return Lexicon(freq=freq, total=total, tags=tags, idf=idf, median_idf=idf.median())


def _read_table(path: Path, *, min_parts: int, max_parts: int | None = None):
    """A function giving, each time it is called, (word, other fields) of each usable line, in order."""
    def entries():
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                parts = line.split()
                if len(parts) >= min_parts and (max_parts is None or len(parts) <= max_parts):
                    yield parts[0], parts[1:]
    return entries


def _with_prefixes(entries) -> Iterable[str]:
    """Every word and every proper prefix of it, as jieba's own loader records them."""
    for word, _ in entries:
        yield word
        for end in range(1, len(word)):
            yield word[:end]


def new_tokenizer(vocabulary: Iterable[str], extra_words: Iterable[str]) -> jieba.Tokenizer:
    """A private jieba Tokenizer: jieba's dictionary, corpus words raised to CORPUS_WORD_FREQ, extra words."""
    lex = lexicon()
    tokenizer = jieba.Tokenizer()
    # jieba has no public way to start from an in-memory dictionary; these are exactly the
    # three attributes its initialize() sets after reading dict.txt (or its temp-folder cache).
    # jieba only reads FREQ (in, [], get) and writes new words into it: an overlay on the shared
    # lexicon instead of a copy; the lexicon itself is never written.
    tokenizer.FREQ = FreqOverlay(lex.freq)
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
