"""Cut a question into weighted terms: jieba plus the corpus's own words, background IDF weights.

A `TermAnalyzer` is built once per index. Its jieba `Tokenizer` is a private instance (the
global one is never touched) whose dictionary is read straight from jieba's `dict.txt`, not
from a cache file in the temp folder, so every process sees the same words. Words the corpus
uses that jieba does not know (转班, 报读 …) are found by jieba's own HMM over the corpus and
added. Weights come from jieba's background IDF table: function words (怎么, 可以, 吗 …) and
very common words weigh ~0, rare content words weigh 1. Each term also carries its specificity in
this corpus (BM25 idf of its chunk frequency over that of a word in one chunk): 课 in a corpus about
courses says little about *which* passage answers. Glossary synonyms are matched on token
boundaries, so 「学生」 never matches inside 「学生价」.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import re
import sys
import unicodedata
from collections import ChainMap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import jieba
from langchain_core.documents import Document

from core.text import normalize

if TYPE_CHECKING:
    from core.corpus_profile import CorpusProfile
    from core.glossary import Glossary

jieba.setLogLevel(logging.WARNING)  # jieba's own logger prints "Building prefix dict…" at DEBUG

# Part-of-speech tags (from jieba's dict.txt) of words that carry no topic in a question:
# pronouns/question words (r: 怎么 什么 哪个), numerals (m: 几个 多久), conjunctions (c: 可以),
# modal particles (y: 吗), particles (u*), prepositions (p), adverbs (d: 还 都 已经),
# locatives (f: 以后), interjections, onomatopoeia, classifiers.
FUNCTION_TAGS = frozenset({"r", "m", "c", "y", "u", "uj", "ul", "uz", "ug", "uv", "ud", "p", "d", "f",
                           "e", "o", "zg", "q", "x", "w"})
# The question frames and light verbs of spoken Chinese that jieba tags as content (v, l, n):
# a question is not *about* 能/想/知道/多长时间, whatever their IDF says.
QUESTION_WORDS = frozenset("""
吗 呢 吧 啊 呀 哦 嘛 么 哈 的 了 着 过 得 地
什么 怎么 怎样 怎么样 如何 为什么 为啥 啥 哪 哪个 哪些 哪里 哪儿 哪几个 哪种 几 几个 几点 多少 多久 多长
多长时间 多大 谁 是否 是不是 能不能 可不可以 会不会 要不要 有没有 行不行 好不好 对不对 什么时候 时候
可以 能 能够 会 要 想 需要 应该 必须 得以 不想 不要 不能 不会 不用 不行 不可以
是 有 没有 在 做 用 去 来 让 给 找 说 看 叫 问 请 请问 告诉 知道 觉得 一下 一个 一些 一点 之类 其他 别的
我 你 您 你们 我们 他 她 它 他们 咱们 这 那 这个 那个 这些 那些 这样 那样
还 也 都 就 才 又 再 先 很 太 最 更 比较 现在 已经
干什么 干嘛 干吗 咋 咋样 为何 啥时候 啥样 百分之几 百分之多少 几成 总共 一共 总计 合计 共计
具体 一般 一般来说 主要 平时 平常 确实 直接 合适 能否 还能 帮 帮忙 方便 差不多 管用
""".split())  # FRAME_PHRASES are added below
# Multi-word question frames of spoken Chinese ("what is it called", "what does it mean", "what
# for"): kept whole by the tokenizer and weighing nothing, so 「二级叫什么名字」 is about 二级 and
# 「编号是什么意思」 about 编号, not about 名字 or 意思, which the documents never need to say.
FRAME_PHRASES = frozenset("""
什么意思 啥意思 叫什么名字 什么名字 啥名字 叫什么 叫啥 干什么用 干嘛用 有什么用 有啥用 啥用
怎么弄 咋弄 怎么搞 怎么办 咋办 同一个 怎么操作 咋操作
""".split())
QUESTION_WORDS = QUESTION_WORDS | FRAME_PHRASES
# Content words: weight FLOOR at or below LOW_IDF, 1 at HIGH_IDF and above, linear in between;
# words more common than MIN_IDF (国家, 时间 …) weigh 0. jieba's table spans 0.88 (的) to 13.9;
# 学费 sits at 9.0 and words it has never seen at its median, 11.95.
MIN_IDF = 3.0
LOW_IDF = 4.0
HIGH_IDF = 10.0
FLOOR = 0.3
NUMBER_WEIGHT = 0.2  # a number is a value the question supplies (上了10节课), rarely its topic
MIN_CORPUS_WORD_COUNT = 2  # a word must occur this often in the corpus to count as its vocabulary
CORPUS_WORD_FREQ = 1000  # segmentation prefers corpus vocabulary: 开课/后/退费, not 开课/后退/费
MAX_MERGE_TOKENS = 6
# Class formats that jieba's dictionary tags as numerals (m) but that name what a question is about.
NUMERAL_TOPICS = frozenset({"一对一", "一对二", "一对多"})
# 「一共有几级」「一级要上几周」: the unit a question counts (几级 → 级, 多少课时 → 课时) is what it asks
# about, though jieba tags units as classifiers or numerals. Generic units name nothing in particular.
_COUNTED_RE = re.compile(r"^(?:几|多少)([\u4e00-\u9fff]{1,2})$")
GENERIC_UNITS = frozenset("个些点下次种样回遍位")
# The clause of a question that asks, as against clauses where the student describes themselves
# (see TermAnalyzer.context_words); clauses end at punctuation or a space, as students type them.
_ASKING_RE = re.compile(r"吗|呢|几|多少|什么|啥|怎么|咋|哪|多久|多长|如何|能不能|可不可以|是不是|有没有|会不会|"
                        r"要不要|行不行|([\u4e00-\u9fff])[不没]\1|[?？]|[没不]$")
_CLAUSE_RE = re.compile(r"(?<=[，,。！!？?；;])|\s+")
MIN_ASKING_TERMS = 2
# An asking clause that points back (「学费可以这样交吗」「那节课怎么算」) is about the clause before it.
_POINTS_BACK_RE = re.compile(r"[这那]")
# A-not-A questions: 包不包括 → 包括, 贵不贵 → 贵, 有没有 → 有 (the character repeated around 不/没).
_A_NOT_A_RE = re.compile(r"([\u4e00-\u9fff])[不没]\1")
# Resultative complements of spoken Chinese: 学到, 退掉, 剩下, 找到 are the verb plus a result that
# adds no topic, so a glued verb the corpus uses (学, 退, 剩) or a question verb (找) stands alone.
RESULTATIVES = frozenset("到掉成下完好出走回起住开")
# jieba lists numeral compounds (一个班, 三个月) as numerals; their noun is a topic of the question.
COMPOUND_TAGS = frozenset({"m", "q"})

_HAN_RE = re.compile(r"^[\u4e00-\u9fff]+$")
_NUMBER_RE = re.compile(r"^[0-9０-９.%]+$")


@dataclass(frozen=True)
class Term:
    """One content word of a question: its weight, and every form that counts as finding it.

    `forms` is the word itself followed by the canonical terms the glossary maps it to;
    `known` says whether any form occurs anywhere in the corpus; `specificity` (0..1] is how
    rare its rarest known form is across the corpus's chunks (1 for a word the corpus never uses).
    """

    text: str
    weight: float
    forms: tuple[str, ...]
    known: bool
    via_glossary: bool = False
    is_number: bool = False
    specificity: float = 1.0


@dataclass(frozen=True)
class _Lexicon:
    freq: dict[str, int]
    total: int
    tags: dict[str, str]
    idf: dict[str, float]
    median_idf: float


@functools.cache
def _lexicon() -> _Lexicon:
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
    return _Lexicon(freq=freq, total=total, tags=tags, idf=idf, median_idf=values[len(values) // 2])


def _new_tokenizer(vocabulary: Iterable[str], extra_words: Iterable[str]) -> jieba.Tokenizer:
    """A private jieba Tokenizer: jieba's dictionary, corpus words raised to CORPUS_WORD_FREQ, extra words."""
    lexicon = _lexicon()
    tokenizer = jieba.Tokenizer()
    # jieba has no public way to start from an in-memory dictionary; these are exactly the
    # three attributes its initialize() sets after reading dict.txt (or its temp-folder cache).
    # jieba only reads FREQ (in, [], get) and writes new words into it: an overlay on the shared
    # lexicon instead of a copy saves ~40 MB per analyzer; the lexicon itself is never written.
    tokenizer.FREQ = ChainMap({}, lexicon.freq)
    tokenizer.total = lexicon.total
    tokenizer.initialized = True
    for word in vocabulary:
        if (tokenizer.FREQ.get(word) or 0) < CORPUS_WORD_FREQ:
            tokenizer.add_word(word, CORPUS_WORD_FREQ)
    for word in sorted(set(extra_words)):  # sorted: each add_word changes later suggested frequencies
        tokenizer.add_word(word, max(CORPUS_WORD_FREQ, tokenizer.suggest_freq(word)))
    return tokenizer


def _fold(text: str) -> str:
    """NFKC + lowercase, keeping punctuation so that jieba still sees sentence boundaries."""
    return unicodedata.normalize("NFKC", text).lower()


def corpus_vocabulary(texts: Sequence[str], *, min_count: int = MIN_CORPUS_WORD_COUNT) -> tuple[str, ...]:
    """The corpus's own words (2+ Chinese characters, seen >= min_count times), sorted.

    jieba (with its HMM, which finds new words such as 转班 and 报读) cuts the corpus; the words
    it cuts at least `min_count` times, function words aside, are the corpus's vocabulary.
    """
    from core.corpus_profile import vocabulary_from_counts, word_counts  # it builds on this module

    return vocabulary_from_counts(word_counts(texts), min_count=min_count)


def _cached_vocabulary(texts: Sequence[str], path: Path | None) -> tuple[str, ...]:
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


def _is_function_word(word: str, lexicon: _Lexicon) -> bool:
    if word in NUMERAL_TOPICS:
        return False
    return word in QUESTION_WORDS or lexicon.tags.get(word) in FUNCTION_TAGS


@functools.lru_cache(maxsize=4096)
def _gapped(form: str) -> re.Pattern[str]:
    """The form with exactly one character inserted somewhere inside it (每级 → 每.级)."""
    return re.compile("|".join(re.escape(form[:i]) + "." + re.escape(form[i:]) for i in range(1, len(form))))


def credit(term: Term, texts: Sequence[str]) -> float:
    """How much of `term` the texts (normalised passing chunks) contain, in [0, 1].

    1 when a form occurs as is; n/(n+1) when a form of n characters occurs with one character
    inserted (每级 in 每一级: 2/3); for a form of 3+ characters the corpus uses, the share of its
    character pairs found (口语课 with only 口语 present: 1/2); otherwise 0.
    """
    best = 0.0
    for form in (normalize(f) for f in term.forms):
        if not form:
            continue
        if any(form in text for text in texts):
            return 1.0
        if len(form) >= 2 and any(_gapped(form).search(text) for text in texts):
            best = max(best, len(form) / (len(form) + 1))
        if len(form) >= 3 and term.known:
            pairs = {form[i:i + 2] for i in range(len(form) - 1)}
            best = max(best, sum(any(p in text for text in texts) for p in pairs) / len(pairs))
    return best


def chunk_text(chunk: Document | str) -> str:
    """What a chunk says, heading included: 「四、不予退费的情形」 is the document's own wording too."""
    if isinstance(chunk, Document):
        heading = str(chunk.metadata.get("heading", ""))
        return f"{heading}\n{chunk.page_content}" if heading else chunk.page_content
    return str(chunk)


class TermAnalyzer:
    """Tokenise and weigh questions against one corpus; build once per index with `from_chunks`."""

    def __init__(self, corpus_texts: Sequence[str] = (), *, extra_words: Iterable[str] = (),
                 vocabulary: Sequence[str] | None = None, profile: CorpusProfile | None = None) -> None:
        """`vocabulary` is `corpus_vocabulary(corpus_texts)` when a caller has it saved already;
        `profile` (core.corpus_profile, built with the index) replaces both."""
        if profile is None:
            from core.corpus_profile import build_profile

            profile = build_profile(list(corpus_texts), vocabulary=vocabulary)
        self.profile = profile
        self.vocabulary = profile.vocabulary
        self.extra_words = tuple(sorted({_fold(w).strip() for w in (*extra_words, *FRAME_PHRASES) if w and w.strip()}))
        self._tokenizer = _new_tokenizer(self.vocabulary, self.extra_words)
        self._lexicon = _lexicon()
        self._specificity: dict[str, float] = {}

    @classmethod
    def from_chunks(cls, chunks: Sequence[Document | str], *, extra_words: Iterable[str] = (),
                    vocabulary_cache: Path | None = None) -> TermAnalyzer:
        """Analyzer for these chunks (Documents or plain strings); `extra_words` are kept whole too.

        Cutting a large corpus with jieba takes seconds, so with `vocabulary_cache` the corpus
        vocabulary is read from that JSON file, or written there. An index built by
        core.index_store carries its profile instead (`from_profile`).
        """
        texts = [chunk_text(c) for c in chunks]
        return cls(texts, extra_words=extra_words, vocabulary=_cached_vocabulary(texts, vocabulary_cache))

    @classmethod
    def from_profile(cls, profile: CorpusProfile, *, extra_words: Iterable[str] = ()) -> TermAnalyzer:
        return cls(extra_words=extra_words, profile=profile)

    def tokens(self, text: str) -> list[str]:
        """jieba tokens of the folded text (HMM off: unknown characters stay single), punctuation dropped.

        A-not-A questions are folded to the word first (包不包括 → 包括, 退不退 → 退, 有没有 → 有):
        jieba cuts 「里面包不包括」 as 里/面包/不/包括, and the question is about 包括 either way.
        """
        folded = _A_NOT_A_RE.sub(r"\1", _fold(text))
        return [t for t in (normalize(tok) for tok in self._tokenizer.cut(folded, HMM=False)) if t]

    def weight(self, word: str) -> float:
        """0 for function and very common words; FLOOR..1 for content words by background IDF."""
        word = normalize(word)
        if not word:
            return 0.0
        if _NUMBER_RE.match(word):
            return NUMBER_WEIGHT
        if _is_function_word(word, self._lexicon):
            return 0.0
        return self._idf_weight(word)

    def _idf_weight(self, word: str) -> float:
        idf = self._lexicon.idf.get(word, self._lexicon.median_idf)  # jieba's own default for unseen words
        if idf < MIN_IDF:
            return 0.0
        return FLOOR + (1.0 - FLOOR) * min(1.0, max(0.0, (idf - LOW_IDF) / (HIGH_IDF - LOW_IDF)))

    def in_corpus(self, word: str) -> bool:
        """True if the word occurs anywhere in the corpus text (punctuation and case ignored)."""
        return self.profile.contains(normalize(word))

    def specificity(self, word: str) -> float:
        """How rare the word is across the corpus's chunks, in (0, 1]: BM25 idf of its chunk
        frequency, ln(1 + (N − df + 0.5) / (df + 0.5)) as in core.index, over that of a word in one chunk.

        1 for a word in one chunk or none (a word the corpus never uses is judged by its own
        signal and weighs no more than the rarest one it does use); about 0.22 for 课, which
        is in 14 of the 26 chunks of the shipped corpus.
        """
        word = normalize(word)
        if word not in self._specificity:
            n = self.profile.n_chunks
            df = self.profile.chunk_frequency(word)
            rarest = math.log1p((n - 0.5) / 1.5)
            idf = math.log1p((n - df + 0.5) / (df + 0.5))
            self._specificity[word] = min(1.0, idf / rarest) if n and rarest > 0 else 1.0
        return self._specificity[word]

    def terms(self, question: str, glossary: Glossary | None = None) -> tuple[Term, ...]:
        """The question's distinct words with weight > 0, glossary synonyms merged and mapped.

        A word already inside a longer term of the question (停 after 先停, 退 after 退费) adds
        nothing new and is left out; numbers are values and always kept. Words the corpus never
        uses that only the asker's description of themselves holds are left out too (`context_words`).
        """
        return self.split(question, glossary)[0]

    def split(self, question: str, glossary: Glossary | None = None) -> tuple[tuple[Term, ...], tuple[str, ...]]:
        """(`terms`, `context_words`) of the question from one cut, for callers that need both."""
        found = self._all_terms(question, glossary)
        context = self._context(question, found)
        if not context:
            return found, ()
        return tuple(t for t in found if t.text not in context), tuple(t.text for t in found if t.text in context)

    def context_words(self, question: str, glossary: Glossary | None = None) -> tuple[str, ...]:
        """Words the corpus never uses that stand only in a clause where the student describes
        themselves, not in the clause that asks: 「我闺女测出来是二级，学费得交多少」 asks about
        学费; 闺女 is background. Only for a question of several clauses whose asking clause (one
        with 吗, 几, 多少, 什么, 怎么, 能不能, A-not-A, ？ or a final 没/不) names at least
        MIN_ASKING_TERMS words the corpus knows, so it stands on its own: 「有事缺了一节课 能补上吗」
        leans on its first clause, and 缺 still counts; so does an asking clause that points back
        with 这/那 (「我想分期付款 学费可以这样交吗」). No character of the word may recur in the
        asking clause (删掉 … 能删吗).
        """
        return self.split(question, glossary)[1]

    def _context(self, question: str, found: Sequence[Term]) -> set[str]:
        clauses = [c.strip() for c in _CLAUSE_RE.split(question) if c and c.strip()]
        asking = [c for c in clauses if _ASKING_RE.search(c.rstrip("，,。！!；;、"))]
        if not asking or len(asking) == len(clauses):
            return set()
        ask_text = normalize("".join(asking))
        if _POINTS_BACK_RE.search(ask_text):
            return set()
        rest = normalize("".join(c for c in clauses if c not in asking))
        if sum(t.known and normalize(t.text) in ask_text for t in found) < MIN_ASKING_TERMS:
            return set()
        return {t.text for t in found if not t.known and not t.is_number and normalize(t.text) in rest
                and not any(ch in ask_text for ch in normalize(t.text))}

    def _all_terms(self, question: str, glossary: Glossary | None) -> tuple[Term, ...]:
        tokens = self._recut(self.tokens(question), glossary)
        if glossary is not None:
            tokens = _merge_phrases(tokens, glossary.phrases)
        tokens = [piece for token in tokens for piece in self._resplit(token, glossary)]
        counted = {token: unit for token in tokens if (unit := self.counted_unit(token))}
        tokens = [counted.get(token, token) for token in tokens]
        seen: set[str] = set()
        out: list[Term] = []
        for token in tokens:
            if token in seen:
                continue
            seen.add(token)
            weight, canon = self._weigh(token, glossary)
            if token in counted.values():
                weight = max(weight, FLOOR, self._idf_weight(token))
            if weight <= 0.0:
                continue
            forms = (token, *(c for c in canon if c != token))
            is_number = bool(_NUMBER_RE.match(token))
            found = [f for f in forms if self.in_corpus(f)]
            specificity = max((self.specificity(f) for f in found), default=1.0)
            out.append(Term(text=token, weight=round(weight, 4), forms=forms, known=is_number or bool(found),
                            via_glossary=bool(canon), is_number=is_number, specificity=round(specificity, 4)))
        longer = [t.text for t in out if not t.is_number]
        return tuple(t for t in out if t.is_number or not any(t.text != o and t.text in o for o in longer))

    def counted_unit(self, token: str) -> str | None:
        """The unit a 几/多少 token counts (几级 → 级) when the corpus uses it and it is not generic."""
        match = _COUNTED_RE.match(token)
        if match is None or match.group(1) in GENERIC_UNITS or match.group(1) in QUESTION_WORDS:
            return None
        return match.group(1) if self.in_corpus(match.group(1)) else None

    def _recut(self, tokens: list[str], glossary: Glossary | None) -> list[str]:
        """Re-cut a word the corpus lacks together with its neighbours when the corpus's own words
        spell the same characters better: jieba cuts 「线上线下」 as 线/上线/下, the corpus says 线上 and
        线下. The span (the word and the Chinese tokens either side) is cut again by dynamic
        programming over `_piece_cost`, and the new cut is kept only if it is cheaper by at least
        one unknown character; a word like 外教 or 周末, which no corpus words spell, stays whole.
        """
        out: list[str] = []
        i = 0
        while i < len(tokens):
            token = tokens[i]
            if len(token) >= 2 and _HAN_RE.match(token) and self._piece_cost(token, glossary) > 1.0:
                lo = i - 1 if out and i > 0 and _HAN_RE.match(tokens[i - 1]) else i
                hi = i + 1 if i + 1 < len(tokens) and _HAN_RE.match(tokens[i + 1]) else i
                original = tokens[lo:hi + 1]
                best = self._best_cut("".join(original), glossary)
                if best is not None and best[0] <= sum(self._piece_cost(t, glossary) for t in original) - 1.0:
                    if lo < i:
                        out.pop()
                    out.extend(best[1])
                    i = hi + 1
                    continue
            out.append(token)
            i += 1
        return out

    def _piece_cost(self, piece: str, glossary: Glossary | None) -> float:
        """0 for a content word the corpus (or glossary) has; 0.25 for a function word and 0.5 for
        a single function character (so breaking 一对一 into 一对/一 is not free); 1 for one content
        character; 1.5 for a dictionary word the corpus lacks; infinity for a non-word."""
        if len(piece) == 1:
            return 0.5 if self.weight(piece) <= 0.0 else 1.0
        if (glossary is not None and normalize(piece) in glossary.phrases) or (
                self.in_corpus(piece) and self.weight(piece) > 0.0):
            return 0.0
        if self.weight(piece) <= 0.0:
            return 0.25
        return 1.5 if self._lexicon.freq.get(piece) else math.inf

    def _best_cut(self, span: str, glossary: Glossary | None) -> tuple[float, list[str]] | None:
        """The cheapest cut of `span` into pieces of up to MAX_MERGE_TOKENS characters (fewest pieces on ties)."""
        n = len(span)
        best: list[tuple[float, int, list[str]] | None] = [None] * (n + 1)
        best[0] = (0.0, 0, [])
        for end in range(1, n + 1):
            for start in range(max(0, end - MAX_MERGE_TOKENS), end):
                if best[start] is None:
                    continue
                cost = self._piece_cost(span[start:end], glossary)
                if math.isinf(cost):
                    continue
                cand = (best[start][0] + cost, best[start][1] + 1, [*best[start][2], span[start:end]])
                if best[end] is None or cand[:2] < best[end][:2]:
                    best[end] = cand
        return (best[n][0], best[n][2]) if best[n] is not None else None

    def _weigh(self, token: str, glossary: Glossary | None) -> tuple[float, tuple[str, ...]]:
        weight = self.weight(token)
        canon = glossary.canonical(token) if glossary is not None else ()
        if weight <= 0.0 and canon:  # a glossary synonym is a topic even when jieba calls it common
            weight = self.weight(canon[0])
        return weight, canon

    def _resplit(self, token: str, glossary: Glossary | None) -> list[str]:
        """A token jieba glued together, re-cut into the pieces the question is about.

        jieba glues function morphemes to content words (那本书, 几节课) and lists some glued
        frames as words of their own. First, a verb plus a resultative complement (退掉, 剩下,
        找到) keeps only the verb when the corpus or the question frames know it. Then three
        cases, each a split into function words plus:
        - content tokens the corpus lacks: *resolved* pieces only, i.e. corpus words of two or
          more characters or glossary phrases (几节课 → 几 + 节课); single characters never
          resolve alone, so 证书 (证 + 书), 外教 (外 + 教) or 一对一 stay whole and stay unknown;
        - the same, when the other pieces are all question-frame words (QUESTION_WORDS): one
          corpus character may stand alone (先考 → 先 + 考, 转过 → 转 + 过), and a token made
          only of frame words is one (想要 → 想 + 要, weight 0);
        - numeral compounds (一个班) give up their one noun the corpus has (班).
        Fewest pieces win, then the longest resolved piece.
        """
        weight, canon = self._weigh(token, glossary)
        if len(token) < 2 or len(token) > MAX_MERGE_TOKENS:
            return [token]
        compound = weight <= 0.0 and token not in QUESTION_WORDS and self._lexicon.tags.get(token) in COMPOUND_TAGS
        if not compound and (weight <= 0.0 or canon or self.in_corpus(token)):
            return [token]
        head = token[:-1]
        if not compound and token[-1] in RESULTATIVES and (
                head in QUESTION_WORDS or self.in_corpus(head) or self._resolves(head, glossary)):
            return [head]  # 退掉 → 退, 找到 → 找 (a frame word, weight 0)
        best: tuple[tuple[int, int, int], list[str]] | None = None
        for pieces in _splits(token):
            content = [p for p in pieces if self._weigh(p, glossary)[0] > 0.0]
            resolved = [p for p in content if self._resolves(p, glossary)]
            frame_only = all(p in QUESTION_WORDS for p in pieces if p not in content)
            if compound:  # numeral + classifier + noun: the piece must be a noun (not 起 of 一起)
                noun = len(content) == 1 and self._lexicon.tags.get(content[0], "").startswith("n")
                rank = 0 if noun and self.in_corpus(content[0]) else None
            elif resolved and len(resolved) == len(content):
                rank = 0
            elif len(content) == 1 and frame_only and self.in_corpus(content[0]):
                rank = 1
            elif not content and frame_only:
                rank = 2
            else:
                rank = None
            if rank is not None:
                key = (rank, len(pieces), -max((len(p) for p in content), default=0))
                if best is None or key < best[0]:
                    best = (key, pieces)
        return best[1] if best else [token]

    def _resolves(self, piece: str, glossary: Glossary | None) -> bool:
        if glossary is not None and normalize(piece) in glossary.phrases:
            return True
        return len(piece) >= 2 and self.in_corpus(piece)


def _splits(token: str) -> Iterable[list[str]]:
    """Every way to cut `token` into two or more consecutive pieces."""
    for mask in range(1, 2 ** (len(token) - 1)):
        pieces, start = [], 0
        for end in range(1, len(token)):
            if mask >> (end - 1) & 1:
                pieces.append(token[start:end])
                start = end
        pieces.append(token[start:])
        yield pieces


def _merge_phrases(tokens: list[str], phrases: frozenset[str]) -> list[str]:
    """Join runs of tokens that spell a glossary phrase (longest first, left to right)."""
    if not phrases:
        return tokens
    merged: list[str] = []
    i = 0
    while i < len(tokens):
        for j in range(min(len(tokens), i + MAX_MERGE_TOKENS), i + 1, -1):
            joined = "".join(tokens[i:j])
            if joined in phrases:
                merged.append(joined)
                i = j
                break
        else:
            merged.append(tokens[i])
            i += 1
    return merged
