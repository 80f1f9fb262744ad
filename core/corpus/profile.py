"""What the answerability analyzer needs to know about one corpus, built in the index's pass and saved with it.

A `CorpusProfile` holds the corpus's own vocabulary (words jieba's HMM finds at least
MIN_CORPUS_WORD_COUNT times, function words aside) and every chunk's normalised text joined into
one string, with each chunk's start, so "does the corpus use this word" and "in how many chunks"
need no second copy of the chunks. Counting cuts each distinct jieba block once (jieba cuts
blocks independently, so the counts are exactly those of cutting every chunk), and per-file
counts are cached beside the per-file chunks, so a rebuild after one edit cuts one file again.
`profile_key()` names everything that changes a profile's content: the code of the lexicon, the word tables and
this module, the word lists in core/data/*.txt, jieba's version and dictionary size, and the
minimum count (glossary phrases change only the tokenizer, and the analyzer cache is keyed on them).
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import logging
import re
from array import array
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import jieba

from core.language import lexicon as term_lexicon
from core.language import words as term_words
from core.language.text import normalize

_BLOCK_RE = jieba.re_han_default  # the blocks jieba's Tokenizer.cut hands to its DAG/HMM cutter
SEPARATOR = "\x00"  # normalize() removes control characters, so no word can span two chunks


@functools.cache
def profile_key() -> str:
    digest = hashlib.sha256()
    for path in (*(Path(inspect.getfile(m)) for m in (term_lexicon, term_words)), Path(__file__),
                 *sorted(Path(inspect.getfile(term_words)).resolve().parents[1].glob("data/*.txt"))):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    jieba_dir = Path(jieba.__file__).parent  # its dictionary and background IDF, by size (not read here)
    sizes = [(jieba_dir / name).stat().st_size for name in ("dict.txt", "analyse/idf.txt")]
    digest.update(f"{jieba.__version__}|{sizes}|{term_words.MIN_CORPUS_WORD_COUNT}".encode())
    return digest.hexdigest()[:12]


def word_counts(texts: Iterable[str], *, folded: bool = False) -> Counter[str]:
    """How often jieba (HMM on) cuts each word of 2+ Chinese characters from `texts`
    (`folded`: the texts went through core.language.lexicon.fold already)."""
    blocks: Counter[str] = Counter()
    for text in texts:
        blocks.update(_BLOCK_RE.findall(text if folded else term_lexicon.fold(text)))
    lexicon = term_lexicon.lexicon()
    probe = jieba.Tokenizer()
    probe.FREQ, probe.total, probe.initialized = lexicon.freq, lexicon.total, True  # read-only use
    counts: Counter[str] = Counter()
    for block, times in blocks.items():
        for token in probe.cut(block, HMM=True):
            if len(token) > 1 and term_words.HAN_RE.match(token):
                counts[token] += times
    return counts


def vocabulary_from_counts(counts: Mapping[str, int], *, min_count: int | None = None) -> tuple[str, ...]:
    """The corpus's own words: seen at least `min_count` times and not function words, sorted."""
    least = term_words.MIN_CORPUS_WORD_COUNT if min_count is None else min_count
    lexicon = term_lexicon.lexicon()
    return tuple(sorted(w for w, c in counts.items() if c >= least and not term_lexicon.is_function_word(w, lexicon)))


def corpus_vocabulary(texts: Sequence[str], *, min_count: int = term_words.MIN_CORPUS_WORD_COUNT) -> tuple[str, ...]:
    """The corpus's own words (2+ Chinese characters, seen >= min_count times), sorted.

    jieba (with its HMM, which finds new words such as 转班 and 报读) cuts the corpus; the words
    it cuts at least `min_count` times, function words aside, are the corpus's vocabulary.
    """
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


@dataclass(frozen=True, eq=False)
class CorpusProfile:
    """The vocabulary plus the normalised chunk texts as one string (`starts[i]` = chunk i's offset)."""

    vocabulary: tuple[str, ...]
    text: str
    starts: array  # array('q'), one per chunk
    key: str = ""

    @property
    def n_chunks(self) -> int:
        return len(self.starts)

    def contains(self, word: str) -> bool:
        """True if the (normalised) word occurs in any chunk."""
        return bool(word) and word in self.text

    def chunk_frequency(self, word: str) -> int:
        """In how many chunks the (normalised) word occurs.

        One regex pass in C: each match is the word plus the rest of its chunk, so the next
        search starts in the next chunk; the empty group makes findall return '' per match
        (a Python loop over the chunks was several times slower at 100,000 chunks).
        """
        if not word:
            return 0
        return len(re.findall("()" + re.escape(word) + f"[^{SEPARATOR}]*", self.text))


def build_profile(texts: Sequence[str], *, vocabulary: Sequence[str] | None = None,
                  counts: Mapping[str, int] | None = None, folded: Sequence[str] | None = None) -> CorpusProfile:
    """A profile of `texts` (chunk texts, heading included); the vocabulary from `counts` when given,
    and `folded` = [normalize(t) for t in texts] when the caller has it cached already."""
    if vocabulary is None:
        vocabulary = vocabulary_from_counts(counts if counts is not None else word_counts(texts))
    starts = array("q")
    parts = folded if folded is not None else [normalize(t) for t in texts]
    offset = 0
    for part in parts:
        starts.append(offset)
        offset += len(part) + 1
    return CorpusProfile(vocabulary=tuple(vocabulary), text=SEPARATOR.join(parts), starts=starts, key=profile_key())
