"""jieba's lexicon, the private tokenizer and the corpus vocabulary the term analysis starts from.

`lexicon()` reads jieba's dict.txt and background IDF table once; `new_tokenizer` builds a private
jieba Tokenizer (the global one is never touched) with the corpus's words raised. The corpus's own
vocabulary is found in core.corpus.profile, which builds on this module. No rule of the decision lives here.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import tempfile
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import jieba

from core.language.word_tables import FreqOverlay, TagTable, WordTable
from core.language.words import CORPUS_WORD_FREQ, FUNCTION_TAGS, NUMERAL_TOPICS, QUESTION_WORDS
from core.memory import release_free_memory

LOG = logging.getLogger(__name__)
jieba.setLogLevel(logging.WARNING)  # jieba's own logger prints "Building prefix dict…" at DEBUG


@dataclass(frozen=True)
class Lexicon:
    """jieba's dictionary as read-only mappings (core.language.word_tables: a trie, not dicts)."""

    freq: Mapping[str, int]  # words and their prefixes (0), as jieba's own loader records them
    total: int
    tags: Mapping[str, str]
    idf: Mapping[str, float]
    median_idf: float


CACHE_FORMAT = 1  # bump when what is saved changes


@functools.cache
def lexicon() -> Lexicon:
    """jieba's lexicon (see `build_lexicon`), from this machine's cache when an earlier process saved it there:
    building it takes seconds of CPU in every process that answers a question (each console, service instance and
    CLI command); the saved tries are memory-mapped and shared. The cache is keyed on jieba's two files and written
    atomically; when it cannot be read or written the lexicon is simply built."""
    folder = _cache_folder()
    if folder is not None and folder.is_dir():
        try:
            return _load(folder)
        except (OSError, ValueError) as error:
            LOG.warning("lexicon cache %s unusable, building: %s", folder, error)
    built = build_lexicon()
    if folder is not None:
        _save(built, folder)
    return built


def _jieba_files() -> tuple[Path, Path]:
    return Path(jieba.__file__).with_name("dict.txt"), Path(jieba.__file__).with_name("analyse") / "idf.txt"


def _cache_folder() -> Path | None:
    """~/.cache/xiaoe/lexicon-<key>, the key naming jieba's files (path, size, time) and the format; None without
    a home folder."""
    try:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        stamp = "|".join(f"{p}:{p.stat().st_size}:{p.stat().st_mtime_ns}" for p in _jieba_files())
    except (OSError, RuntimeError):
        return None
    digest = hashlib.sha256(f"{CACHE_FORMAT}|{stamp}".encode()).hexdigest()[:16]
    return base / "xiaoe" / f"lexicon-{digest}"


def _save(lex: Lexicon, folder: Path) -> None:
    """Write into a temporary folder and rename it into place, so a reader never sees half a cache."""
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=folder.parent) as staging:
            temp = Path(staging) / "lexicon"
            temp.mkdir()
            lex.freq.save(temp, "freq")
            lex.tags.save(temp, "tags")
            lex.idf.save(temp, "idf")
            (temp / "numbers.txt").write_text(f"{lex.total}\n{lex.median_idf!r}", encoding="utf-8")
            try:
                temp.rename(folder)
            except OSError:  # another process saved it first
                pass
    except OSError as error:
        LOG.warning("lexicon cache not written to %s: %s", folder, error)


def _load(folder: Path) -> Lexicon:
    total, median = (folder / "numbers.txt").read_text(encoding="utf-8").split("\n")
    return Lexicon(freq=WordTable.load(folder, "freq", "q"), total=int(total), tags=TagTable.load(folder, "tags"),
                   idf=WordTable.load(folder, "idf", "d"), median_idf=float(median))


def build_lexicon() -> Lexicon:
    """jieba's word frequencies and tags (dict.txt) and background IDF (analyse/idf.txt).

    The same mappings a dict would give (the last line of a repeated word wins; a prefix that is
    not a word has 0), packed into tries with flat value arrays (core.language.word_tables):
    ~10 MB instead of ~78 MB per process. Words stream from the file into the trie and are never
    all held as Python strings at once, so loading leaves no freed-but-kept heap behind either.
    """
    dict_path, idf_path = _jieba_files()
    entries = _read_table(dict_path, min_parts=2)
    freq = WordTable.from_items(_with_prefixes(entries()), lambda: ((w, int(p[0])) for w, p in entries()), "q")
    release_free_memory()  # after each trie: the builder's many small blocks, freed, would pile up
    total = sum(int(parts[0]) for _, parts in entries())
    tags = TagTable.from_items(lambda: ((word, parts[1]) for word, parts in entries() if len(parts) > 1))
    release_free_memory()
    # idf.txt is read without importing jieba.analyse (0.5 s)
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


def new_tokenizer(vocabulary: Iterable[str], extra_words: Iterable[str], firm_words: Iterable[str] = ()) -> jieba.Tokenizer:
    """A private jieba Tokenizer: jieba's dictionary, corpus words raised to CORPUS_WORD_FREQ, extra words, and
    `firm_words`: raised as extra words are, and every dictionary word that begins with one and is rarer than it
    (托福考, 雅思考试: 3 against 282 and 183) is taken out, so 「雅思考到」 is 雅思 / 考 / 到 and 「托福考」 托福 / 考."""
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
    firm = sorted(set(firm_words))
    for word in sorted(set(extra_words) | set(firm)):  # sorted: each add_word changes later suggested frequencies
        tokenizer.add_word(word, max(CORPUS_WORD_FREQ, tokenizer.suggest_freq(word)))
    for word in firm:
        own = tokenizer.FREQ[word]
        for longer in lex.freq.starting_with(word):
            if longer != word and 0 < lex.freq[longer] < own and longer not in firm:
                tokenizer.FREQ[longer] = 0  # a prefix still (jieba walks on), no longer a word
    return tokenizer


def fold(text: str) -> str:
    """NFKC + lowercase, keeping punctuation so that jieba still sees sentence boundaries."""
    return unicodedata.normalize("NFKC", text).lower()






def is_function_word(word: str, lex: Lexicon) -> bool:
    """A function word for the corpus vocabulary (the full word lists, whatever rules are on)."""
    if word in NUMERAL_TOPICS:
        return False
    return word in QUESTION_WORDS or lex.tags.get(word) in FUNCTION_TAGS
