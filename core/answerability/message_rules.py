"""The three rules for messages as students type them: courtesy frames, Latin words, homophone typos.

Registered in `core.answerability.rules.RULES` (courtesy, latin_words, homophones) and switchable
like every term rule. None of them calls a model: courtesy reads two word lists from core/data/,
latin_words only changes where the text is cut, homophones compares tone-exact pinyin
(`pypinyin`) with the corpus's own vocabulary. They never touch retrieval; the decision's knobs are
unchanged.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from pypinyin import Style, lazy_pinyin

from core.answerability.rule_api import Analyzer
from core.language.text import normalize
from core.language.words import HAN_RE, RESULTATIVES, read_words

if TYPE_CHECKING:
    from core.answerability.glossary import Glossary

COURTESY_PHRASES = read_words("courtesy_phrases.txt")
COURTESY_CLAUSES = read_words("courtesy_clauses.txt")
_PHRASE_RE = re.compile("|".join(map(re.escape, sorted(COURTESY_PHRASES, key=len, reverse=True))))
_CLAUSE_RE = re.compile("(?:" + "|".join(map(re.escape, sorted(COURTESY_CLAUSES | COURTESY_PHRASES, key=len,
                                                                 reverse=True))) + ")+")
_CLAUSE_SPLIT_RE = re.compile(r"([，,。.！!？?；;~～…\s]+)")
# A form of address after the particle that ends the question (「退款多久能到账啊老师」): said to the reader, not asked.
_FINAL_PARTICLES = "啊呀呢吗哈嘛哦么吧啦"
_ADDRESS_AT_END_RE = re.compile(
    rf"(?<=[{_FINAL_PARTICLES}])(?:{'|'.join(map(re.escape, sorted(COURTESY_CLAUSES, key=len, reverse=True)))})"
    r"[。.！!？?~～…\s]*$")
_LATIN_RE = re.compile(r"([a-z]+)")
_LATIN_WORD_RE = re.compile(r"[a-z]+")
MIN_HOMOPHONE_CHARS = 2
MAX_HOMOPHONE_CHARS = 4


def courtesy(question: str) -> str:
    """Openers, thanks, forms of address and chat fillers weigh nothing: the courtesy phrases
    (core/data/courtesy_phrases.txt) are dropped wherever they stand, and a clause made only of
    courtesy words (core/data/courtesy_clauses.txt: 老师, 亲, 在吗, 哈哈 …) is dropped whole, and so is one of those
    words ending the question right after its final particle (「退款多久能到账啊老师」).

    Fixes 「麻烦问下入门级学费多少钱谢谢老师」 (麻烦, 谢谢, 老师 counted as absent topic words) and
    「老师您好，一共有几级」 and 「流利级学费多少啊老师」. Must not break 「有外教老师吗」 (老师 inside a clause that asks stays)
    nor 「父亲可以代办吗」.
    """
    pieces = _CLAUSE_SPLIT_RE.split(_ADDRESS_AT_END_RE.sub("", question))
    kept: list[str] = []
    for i, piece in enumerate(pieces):
        if i % 2 == 1:  # a separator
            kept.append(piece)
            continue
        folded = normalize(piece)
        if folded and _CLAUSE_RE.fullmatch(folded):
            continue
        kept.append(_PHRASE_RE.sub("", piece))
    return "".join(kept)


def latin_words(analyzer: Analyzer, text: str) -> list[str]:
    """A run of Latin letters is one token, never cut inside. A Latin word is
    then looked up in the glossary (level → 级) like any word, and otherwise counts as absent. A
    resultative complement jieba cuts alone right after it is dropped, as `resultatives` does for
    Chinese verbs (「课能先hold住吗」: hold → 保留学籍; 住 adds no topic).

    Fixes 「就认得apple banana这种单词」 (jieba cut apple into app + le: app is a glossary word).
    Must not break 「能用ipad上课吗」: ipad, in neither the corpus nor the glossary, stays absent.
    """
    tokens: list[str] = []
    for i, part in enumerate(_LATIN_RE.split(text)):
        if i % 2 == 1:
            tokens.append(part)
        elif part:
            cut = analyzer.cut(part)
            if i > 0 and cut and cut[0] in RESULTATIVES:  # hold住, get到: a Latin verb and its result
                cut = cut[1:]
            tokens.extend(cut)
    return tokens


def latin_in_corpus(analyzer: Analyzer, word: str) -> bool | None:
    """A Latin word is in the corpus only as a whole word (app of App, not pp inside it); None for any
    other word (the corpus text decides)."""
    if not _LATIN_WORD_RE.fullmatch(word):
        return None
    return word in analyzer.latin_vocabulary


def homophones(analyzer: Analyzer, tokens: list[str], glossary: Glossary | None,
               folds: list[tuple[str, str]]) -> list[str]:
    """A word the corpus lacks whose tone-exact pinyin equals one corpus word of the same length is
    read as that word (pinyin input typos); `folds` receives (typed, read as) for the reason.

    The span is 2..4 characters of consecutive tokens, none of them a word the corpus or glossary
    knows, a question word or a function word, and it must not occur in the corpus itself.
    Fixes 「入门级学废多少钱」 (学废 → 学费), 「退废申请交上去了」 (退废 → 退费).
    Must not break 「雅思班有吗」「学费能分期吗」: no corpus word shares their pinyin, so they stay absent.
    """
    out: list[str] = []
    i = 0
    while i < len(tokens):
        found = None
        for j in range(min(len(tokens), i + MAX_HOMOPHONE_CHARS), i, -1):
            span = tokens[i:j]
            typed = "".join(span)
            if not MIN_HOMOPHONE_CHARS <= len(typed) <= MAX_HOMOPHONE_CHARS or not HAN_RE.match(typed):
                continue
            if not all(_may_be_misheard(analyzer, t, glossary) for t in span) or _known(analyzer, typed, glossary):
                continue
            word = analyzer.homophone(typed)
            if word is not None:
                found = (j, typed, word)
                break
        if found is None:
            out.append(tokens[i])
            i += 1
            continue
        i, typed, word = found
        out.append(word)
        folds.append((typed, word))
    return out


def _known(analyzer: Analyzer, word: str, glossary: Glossary | None) -> bool:
    return analyzer.in_corpus(word) or (glossary is not None and normalize(word) in glossary.phrases)


def _may_be_misheard(analyzer: Analyzer, token: str, glossary: Glossary | None) -> bool:
    """A Chinese content token that may be part of a typo: no question word, no function word, and
    (for 2+ characters) no word the corpus or the glossary knows."""
    if not HAN_RE.match(token) or token in analyzer.question_words or analyzer.weight(token) <= 0.0:
        return False
    return len(token) == 1 or not _known(analyzer, token, glossary)


def pinyin_key(word: str) -> tuple[str, ...]:
    """Tone-exact pinyin of the word (学费 → xue2 fei4), neutral tone as 5."""
    return tuple(lazy_pinyin(word, style=Style.TONE3, neutral_tone_with_five=True))


@functools.lru_cache(maxsize=4)
def homophone_table(vocabulary: tuple[str, ...]) -> dict[tuple[str, ...], tuple[str, ...]]:
    """Corpus words by tone-exact pinyin (Chinese words of MIN..MAX_HOMOPHONE_CHARS characters),
    built once per vocabulary (a glossary edit rebuilds the analyzer, not this table)."""
    table: dict[tuple[str, ...], list[str]] = {}
    for word in vocabulary:
        if MIN_HOMOPHONE_CHARS <= len(word) <= MAX_HOMOPHONE_CHARS and HAN_RE.match(word):
            table.setdefault(pinyin_key(word), []).append(word)
    return {key: tuple(words) for key, words in table.items()}
