"""Text folding and character n-grams shared by every retriever (no scoring here).

Two views of the same folding:
- `normalize` / `char_ngrams`: whole-string NFKC, lowercase, whitespace and punctuation removed
  (the seed's view, used by HashingEmbeddings and by answer checks);
- `segments` / `ngram_keys`: the default retriever's view. Each character is folded on its own
  (NFKC + lowercase) so a whole corpus can be folded through one lookup table, and whitespace
  or punctuation *ends* a segment instead of vanishing, so no n-gram spans 「。」 or a line
  break. A query is also cut at question words (什么, 多少, 吗 …) that say how to ask, not what.

An n-gram is stored as one int64 key: its code points packed 21 bits each. Keys of different
lengths never collide because a word character is never U+0000.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache

import numpy as np

from core.language.words import RETRIEVAL_QUESTION_WORDS, read_words

_DROP_RE = re.compile(r"[\s\W_]+", re.UNICODE)
_WORD_RE = re.compile(r"[^\W_]", re.UNICODE)
BITS = 21  # every code point is below 0x110000 = 2**21
MAX_N = 3  # three 21-bit code points fill 63 bits of an int64
_QUESTION_RE = re.compile("|".join(sorted(RETRIEVAL_QUESTION_WORDS, key=len, reverse=True)))


def _alternatives(words: frozenset[str]) -> str:
    return "|".join(map(re.escape, sorted(words, key=len, reverse=True)))


# question_key: clauses end at whitespace, punctuation and symbols; the word lists are the courtesy rule's own
# (core.answerability.message_rules) plus the asking frames only the key drops.
_KEY_SPLIT_RE = re.compile(r"[\s\W_]+")
_KEY_FRAMES = read_words("courtesy_phrases.txt") | read_words("question_key_frames.txt")
_KEY_ADDRESS = read_words("courtesy_clauses.txt")
_KEY_COURTESY_CLAUSE_RE = re.compile(f"(?:{_alternatives(_KEY_ADDRESS | _KEY_FRAMES)})+")
_KEY_FRAME_RE = re.compile(f"(?:{_alternatives(_KEY_ADDRESS)})*(?:{_alternatives(_KEY_FRAMES)})")  # 老师请问
_KEY_PARTICLE_RE = re.compile("[的了吗呢]")
_KEY_FINAL_RE = re.compile("(?:[啊呀吧嘛哦噢喔哈啦呗哇嘞咯]|(?<![什怎这那多])么)+$")  # 能退么, not 什么


@lru_cache(maxsize=65_536)
def normalize(text: str) -> str:
    """NFKC-fold (全角→半角), lowercase, remove whitespace and punctuation. Kept for the same few thousand texts
    (term forms, chunk sentences) that every question normalises again: a pure function of `text`."""
    return normalize_folded(unicodedata.normalize("NFKC", text).lower())


def question_key(question: str) -> str:
    """What decides that two askings are the same question: the one key the review queue merges repeats
    by (core.stores.review_dedup), expected refusals are matched by (core.stores.review) and a labelled set
    refuses duplicates by (core.sets.format).

    Removed: width, case, whitespace and punctuation (「口语课几级？」 = 「口语课 几级」); courtesy — a clause made
    only of greetings and forms of address (courtesy_clauses.txt: 老师, 在吗 …) and the courtesy phrases and
    asking frames wherever they stand (courtesy_phrases.txt, question_key_frames.txt: 谢谢, 请问, 想问下 …);
    the particles 的 了 吗 呢 wherever they stand and 啊 呀 吧 嘛 么 … at the end of a clause
    (「有外教吗？」 = 「老师好，请问有外教的吗」). A message that is nothing but courtesy keeps its own
    punctuation-free text, so 「你好」 and 「谢谢」 stay two questions.
    """
    text = unicodedata.normalize("NFKC", question).casefold()
    kept = []
    for clause in _KEY_SPLIT_RE.split(text):
        if not clause or _KEY_COURTESY_CLAUSE_RE.fullmatch(clause):
            continue
        clause = _KEY_PARTICLE_RE.sub("", _KEY_FRAME_RE.sub("", clause))
        kept.append(_KEY_FINAL_RE.sub("", clause))
    return "".join(kept) or "".join(ch for ch in text if not ch.isspace()
                                    and not unicodedata.category(ch).startswith("P"))


def normalize_folded(folded: str) -> str:
    """`normalize` of a text already NFKC-folded and lowercased (core.language.lexicon.fold)."""
    return _DROP_RE.sub("", folded)


def char_ngrams(text: str, max_n: int, min_n: int = 1) -> list[str]:
    """Character n-grams of the normalised text, n from min_n to max_n."""
    clean = normalize(text)
    return [clean[i:i + n] for n in range(min_n, max_n + 1) for i in range(len(clean) - n + 1)]


@lru_cache(maxsize=65_536)
def fold_char(char: str) -> str:
    """One character NFKC-folded and lowercased; whitespace and punctuation become "\\0" (a boundary)."""
    folded = "".join(c if _WORD_RE.match(c) else "\0" for c in unicodedata.normalize("NFKC", char).lower())
    return re.sub("\0+", "\0", folded)  # 「…」 folds to "...": one boundary, not three


def segments(text: str) -> list[str]:
    """The folded runs of word characters in `text`, in order."""
    return [s for s in "".join(fold_char(c) for c in text).split("\0") if s]


def query_segments(text: str) -> list[str]:
    """`segments` further cut at question words, which would otherwise count as unmatched terms."""
    return [piece for s in segments(text) for piece in _QUESTION_RE.split(s) if piece]


def ngrams(parts: list[str], min_n: int, max_n: int) -> list[str]:
    """Every n-gram (min_n ≤ n ≤ max_n) inside each part; none spans two parts."""
    return [p[i:i + n] for p in parts for n in range(min_n, max_n + 1) for i in range(len(p) - n + 1)]


def term_key(term: str) -> int:
    """The int64 key of one n-gram (1 to MAX_N characters)."""
    if not 1 <= len(term) <= MAX_N:
        raise ValueError(f"n-gram length ({len(term)}) must be between 1 and {MAX_N}")
    key = 0
    for char in term:
        key = (key << BITS) | ord(char)
    return key


def key_term(key: int) -> str:
    """The n-gram an int64 key stands for (inverse of `term_key`)."""
    chars = []
    while key:
        chars.append(chr(key & ((1 << BITS) - 1)))
        key >>= BITS
    return "".join(reversed(chars))


def query_keys(query: str, ngram_range: tuple[int, int]) -> np.ndarray:
    """Sorted distinct n-gram keys of a query (question words removed)."""
    terms = ngrams(query_segments(query), *ngram_range)
    return np.unique(np.fromiter((term_key(t) for t in terms), dtype=np.int64, count=len(terms)))


def ngram_keys(texts: list[str], ngram_range: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """(chunk number, n-gram key) of every n-gram occurrence in `texts`, by n, then by position.

    Vectorised: the corpus becomes one code-point array, folded through a table built for the
    distinct characters only; equals `ngrams(segments(text), ...)` per text.
    """
    chunk_ids, keys = [], []
    for _, ids, found in ngram_keys_by_n(texts, ngram_range):
        chunk_ids.append(ids)
        keys.append(found)
    if not keys:
        return np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int64)
    return np.concatenate(chunk_ids), np.concatenate(keys)


def ngram_keys_by_n(texts: list[str], ngram_range: tuple[int, int]) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """`ngram_keys` one n at a time: (n, int32 chunk numbers, int64 keys), so a caller can consume
    each before the next is made (at 100,000 chunks the whole set is ~130 MB of int64 and int32)."""
    min_n, max_n = ngram_range
    if not 1 <= min_n <= max_n <= MAX_N:
        raise ValueError(f"ngram_range {ngram_range} must satisfy 1 <= min_n <= max_n <= {MAX_N}")
    codes, lengths = _folded_codes(texts)
    chunk_of = np.repeat(np.arange(len(texts), dtype=np.int32), lengths + 1)[:codes.shape[0]]
    word = codes != 0
    for n in range(min_n, max_n + 1):
        m = codes.shape[0] - n + 1
        if m <= 0:
            continue
        ok, key = word[:m].copy(), codes[:m].astype(np.int64)
        for j in range(1, n):
            ok &= word[j:j + m]
            key <<= BITS  # in place: no temporary of the whole corpus per step
            key |= codes[j:j + m]
        ids, found = chunk_of[:m][ok], key[ok]
        del ok, key  # before the caller gets them: the unfiltered keys are the largest array here
        yield n, ids, found
        del ids, found


def _folded_codes(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """All texts folded and joined by U+0000, as code points (boundaries are 0), plus each length."""
    raw = _codes("\0".join(texts))
    folds = _folds(raw)
    expanding = [c for c, f in folds.items() if len(f) != 1]
    if expanding:  # rare (㎡ → m2): fold just those texts char by char; folded text folds to itself
        starts = np.cumsum([0] + [len(t) + 1 for t in texts])
        texts = list(texts)
        for i in np.unique(np.searchsorted(starts, np.flatnonzero(np.isin(raw, expanding)), "right") - 1).tolist():
            texts[i] = "".join(fold_char(c) for c in texts[i])
        raw = _codes("\0".join(texts))
        folds = _folds(raw)
        if any(len(f) != 1 for f in folds.values()):
            return _folded_codes_simple(texts)
    lut = np.zeros(max(folds) + 1, dtype=np.uint32)
    for c, f in folds.items():
        lut[c] = ord(f)
    lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
    return lut[raw], lengths


def _folds(raw: np.ndarray) -> dict[int, str]:
    """fold_char of each distinct code point in `raw`."""
    seen = np.zeros(int(raw.max()) + 1 if raw.shape[0] else 1, dtype=bool)
    seen[raw] = True
    return {int(c): fold_char(chr(c)) for c in np.flatnonzero(seen)}


def _folded_codes_simple(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Char-by-char folding in Python: the fallback when table folding would change lengths."""
    folded = ["".join(fold_char(c) for c in t) for t in texts]
    lengths = np.fromiter((len(t) for t in folded), dtype=np.int64, count=len(folded))
    return _codes("\0".join(folded)), lengths


def _codes(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
