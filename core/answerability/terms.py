"""Cut a question into weighted terms: jieba plus the corpus's own words, background IDF weights.

A `TermAnalyzer` is built once per index. Its jieba `Tokenizer` is a private instance (the
global one is never touched) whose dictionary is read straight from jieba's `dict.txt`, not
from a cache file in the temp folder, so every process sees the same words. Words the corpus
uses that jieba does not know (转班, 报读 …) are found by jieba's own HMM over the corpus and
added. Weights come from jieba's background IDF table: function words (怎么, 可以, 吗 …) and
very common words weigh ~0, rare content words weigh 1. Glossary synonyms are matched on token
boundaries, so 「学生」 never matches inside 「学生价」. The rules that turn a typed question into
terms are named and switchable (core.answerability.rules); this module runs them in order.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from langchain_core.documents import Document

from core.answerability import message_rules
from core.answerability.credit import credit  # noqa: F401 - re-exported: the gate's and the answerer's one credit
from core.answerability.rules import ALL_RULES, STAGES, RuleSet
from core.corpus.profile import cached_vocabulary
from core.language.lexicon import fold, lexicon, new_tokenizer
from core.language.text import normalize
from core.language.words import (
    BASE_QUESTION_WORDS,
    COMPOUND_TAGS,
    FLOOR,
    FUNCTION_TAGS,
    HIGH_IDF,
    LOW_IDF,
    MAX_MERGE_TOKENS,
    MIN_IDF,
    NUMBER_RE,
    NUMBER_WEIGHT,
)
from core.values import Term

if TYPE_CHECKING:
    from core.answerability.glossary import Glossary
    from core.corpus.profile import CorpusProfile
    from core.values.case import StudentCase

_LATIN_WORD_RE = re.compile(r"[a-z]+")




def chunk_text(chunk: Document | str) -> str:
    """What a chunk says, heading included: 「四、不予退费的情形」 is the document's own wording too."""
    if isinstance(chunk, Document):
        heading = str(chunk.metadata.get("heading", ""))
        return f"{heading}\n{chunk.page_content}" if heading else chunk.page_content
    return str(chunk)


class TermAnalyzer:
    """Tokenise and weigh questions against one corpus; build once per index with `from_chunks`.

    `rules` (default: all on) says which rules of `core.answerability.rules.RULES` apply; the
    analyzer runs them stage by stage in the registry's order.
    """

    def __init__(self, corpus_texts: Sequence[str] = (), *, extra_words: Iterable[str] = (),
                 vocabulary: Sequence[str] | None = None, rules: RuleSet = ALL_RULES,
                 profile: CorpusProfile | None = None) -> None:
        """`vocabulary` is `corpus_vocabulary(corpus_texts)` when a caller has it saved already;
        `profile` (core.corpus.profile, built and saved with the index) replaces both."""
        if profile is None:
            from core.corpus.profile import build_profile

            profile = build_profile(list(corpus_texts), vocabulary=vocabulary)
        self.rules = rules
        self._stage = {stage: rules.at(stage) for stage in STAGES}  # the registry's order, per stage
        self._lookups = rules.lookups()
        self.profile = profile
        self.vocabulary = profile.vocabulary
        frames = frozenset().union(*(rule.function() for rule in self._stage["setup"]))
        self.question_words = BASE_QUESTION_WORDS | frames
        self.extra_words = tuple(sorted({fold(w).strip() for w in (*extra_words, *frames) if w and w.strip()}))
        self.firm_words = tuple(sorted({fold(w).strip() for rule in self._stage["words"] for w in rule.function()}))
        self._tokenizer = new_tokenizer(self.vocabulary, self.extra_words, self.firm_words)
        self._lexicon = lexicon()
        self._specificity: dict[str, float] = {}
        # Latin words of the corpus; read from the profile's normalised text, where spaces are gone
        # (a corpus with "apple banana" would hold "applebanana": none of the school's files does).
        self.latin_vocabulary = frozenset(_LATIN_WORD_RE.findall(profile.text))

    @classmethod
    def from_chunks(cls, chunks: Sequence[Document | str], *, extra_words: Iterable[str] = (),
                    vocabulary_cache: Path | None = None, rules: RuleSet = ALL_RULES) -> TermAnalyzer:
        """Analyzer for these chunks (Documents or plain strings); `extra_words` are kept whole too.

        Cutting a large corpus with jieba takes seconds (about 19 s at 100,000 chunks), so with
        `vocabulary_cache` the corpus vocabulary is read from that JSON file, or written there.
        """
        texts = [chunk_text(c) for c in chunks]
        return cls(texts, extra_words=extra_words, vocabulary=cached_vocabulary(texts, vocabulary_cache),
                   rules=rules)

    @classmethod
    def from_profile(cls, profile: CorpusProfile, *, extra_words: Iterable[str] = (),
                     rules: RuleSet = ALL_RULES) -> TermAnalyzer:
        """Analyzer from the profile an index carries (core.retrieval.store builds it with the index)."""
        return cls(extra_words=extra_words, profile=profile, rules=rules)

    def message(self, question: str) -> str:
        """The question after the message-stage rules (courtesy frames dropped)."""
        for rule in self._stage["message"]:
            question = rule.function(question)
        return question

    def tokens(self, text: str) -> list[str]:
        """jieba tokens of the folded text (HMM off: unknown characters stay single), punctuation dropped,
        after the cut-stage rules (A-not-A folding: 包不包括 → 包括; Latin words kept whole)."""
        folded = fold(text)
        for rule in self._stage["fold"]:
            folded = rule.function(folded)
        cutters = self._stage["cut"]
        pieces = cutters[0].function(self, folded) if cutters else self.cut(folded)
        return [t for t in (normalize(tok) for tok in pieces) if t]

    def cut(self, text: str) -> list[str]:
        """The private jieba tokenizer's cut (HMM off), as is."""
        return list(self._tokenizer.cut(text, HMM=False))

    def homophone(self, typed: str) -> str | None:
        """The one corpus word with the same tone-exact pinyin and length as `typed` (None if none or several)."""
        table = message_rules.homophone_table(self.vocabulary)  # built once per vocabulary, on first use
        words = [w for w in table.get(message_rules.pinyin_key(typed), ()) if w != typed]
        return words[0] if len(words) == 1 else None

    def weight(self, word: str) -> float:
        """0 for function and very common words; FLOOR..1 for content words by background IDF."""
        word = normalize(word)
        if not word:
            return 0.0
        if NUMBER_RE.match(word):
            return NUMBER_WEIGHT
        if self.is_function_word(word):
            return 0.0
        return self.idf_weight(word)

    def is_function_word(self, word: str) -> bool:
        """A question frame or a word jieba tags as a function word (numeral topics aside)."""
        if word in self.firm_words or any(rule.function(word) for rule in self._stage["weight"]):
            return False
        return word in self.question_words or self._lexicon.tags.get(word) in FUNCTION_TAGS

    def idf_weight(self, word: str) -> float:
        idf = self._lexicon.idf.get(word, self._lexicon.median_idf)  # jieba's own default for unseen words
        if idf < MIN_IDF:
            return 0.0
        return FLOOR + (1.0 - FLOOR) * min(1.0, max(0.0, (idf - LOW_IDF) / (HIGH_IDF - LOW_IDF)))

    def tag(self, word: str) -> str:
        """jieba's part-of-speech tag of the word ("" when it has none)."""
        return self._lexicon.tags.get(word, "")

    def in_corpus(self, word: str) -> bool:
        """True if the word occurs anywhere in the corpus text (punctuation and case ignored)."""
        word = normalize(word)
        for lookup in self._lookups:
            found = lookup(self, word)
            if found is not None:
                return found
        return self.profile.contains(word)

    def specificity(self, word: str) -> float:
        """How rare the word is across the corpus's chunks, in (0, 1]: BM25 idf of its chunk
        frequency, ln(1 + (N − df + 0.5) / (df + 0.5)) as in core.retrieval.index, over that of a word in one
        chunk; 1 for a word in one chunk or none (about 0.22 for 课, in 14 of the shipped 26 chunks).
        """
        word = normalize(word)
        if word not in self._specificity:
            n = self.profile.n_chunks
            df = self.profile.chunk_frequency(word)
            rarest = math.log1p((n - 0.5) / 1.5)
            idf = math.log1p((n - df + 0.5) / (df + 0.5))
            self._specificity[word] = min(1.0, idf / rarest) if n and rarest > 0 else 1.0
        return self._specificity[word]

    def terms(self, question: str, glossary: Glossary | None = None, *, case: StudentCase | None = None
              ) -> tuple[Term, ...]:
        """The question's distinct words with weight > 0, glossary synonyms merged and mapped.

        Words the corpus never uses that only the asker's description of themselves holds are
        left out (`context_words`); `case` as in `split`.
        """
        return self.split(question, glossary, case=case)[0]

    def split(self, question: str, glossary: Glossary | None = None, *, case: StudentCase | None = None
              ) -> tuple[tuple[Term, ...], tuple[str, ...]]:
        """(`terms`, `context_words`) of the question from one cut, for callers that need both. `case`: the student's
        case the case reader read from the question (core.case.read_case), for the rules that need it."""
        question = self.message(question)
        found = self._all_terms(question, glossary)
        context: set[str] = set()
        for rule in self._stage["terms"]:
            context |= rule.function(question, found, case)
        if not context:
            return found, ()
        return tuple(t for t in found if t.text not in context), tuple(t.text for t in found if t.text in context)

    def context_words(self, question: str, glossary: Glossary | None = None, *, case: StudentCase | None = None
                      ) -> tuple[str, ...]:
        """Words the corpus never uses that stand only in a clause where the student describes
        themselves (rule `self_description`): 「我闺女测出来是二级，学费得交多少」 asks about 学费."""
        return self.split(question, glossary, case=case)[1]

    def _all_terms(self, question: str, glossary: Glossary | None) -> tuple[Term, ...]:
        tokens = self.tokens(question)
        folds: list[tuple[str, str]] = []  # (typed, read as), for the decision's reason
        for rule in self._stage["tokens"]:
            tokens = rule.function(self, tokens, glossary, folds)
        tokens = [piece for token in tokens for piece in self._split_glued(token, glossary)]
        seen: set[str] = set()
        out: list[Term] = []
        for token in tokens:
            if token in seen:
                continue
            seen.add(token)
            weight, canon = self.weigh(token, glossary)
            if weight <= 0.0:
                continue
            out.append(self._term(token, weight, canon, typed=dict((w, t) for t, w in folds).get(token, "")))
        return tuple(out)

    def _term(self, token: str, weight: float, canon: Sequence[str], typed: str = "") -> Term:
        forms = (token, *(c for c in canon if c != token))
        is_number = bool(NUMBER_RE.match(token))
        found = [f for f in forms if self.in_corpus(f)]
        specificity = max((self.specificity(f) for f in found), default=1.0)
        return Term(text=token, weight=round(weight, 4), forms=forms, known=is_number or bool(found),
                    via_glossary=bool(canon), is_number=is_number, specificity=round(specificity, 4), typed=typed)

    def weigh(self, token: str, glossary: Glossary | None) -> tuple[float, tuple[str, ...]]:
        """(weight, the glossary's canonical terms for the token)."""
        weight = self.weight(token)
        canon = glossary.canonical(token) if glossary is not None else ()
        return weight, canon

    def is_numeral_compound(self, token: str, glossary: Glossary | None) -> bool:
        """2..MAX_MERGE_TOKENS characters, weight 0, no question word, tagged as a numeral compound."""
        return (2 <= len(token) <= MAX_MERGE_TOKENS and self.weigh(token, glossary)[0] <= 0.0
                and token not in self.question_words and self._lexicon.tags.get(token) in COMPOUND_TAGS)

    def is_glued(self, token: str, glossary: Glossary | None) -> bool:
        """A content token of 2..MAX_MERGE_TOKENS characters that neither the corpus nor the glossary knows."""
        if not 2 <= len(token) <= MAX_MERGE_TOKENS or self.is_numeral_compound(token, glossary):
            return False
        weight, canon = self.weigh(token, glossary)
        return not (weight <= 0.0 or canon or self.in_corpus(token))

    def resolves(self, piece: str, glossary: Glossary | None) -> bool:
        """A glossary phrase, or a corpus word of two or more characters."""
        if glossary is not None and normalize(piece) in glossary.phrases:
            return True
        return len(piece) >= 2 and self.in_corpus(piece)

    def _split_glued(self, token: str, glossary: Glossary | None) -> list[str]:
        """A token jieba glued together, re-cut by the first token-stage rule that applies."""
        for rule in self._stage["token"]:
            pieces = rule.function(self, token, glossary)
            if pieces is not None:
                return pieces
        return [token]
