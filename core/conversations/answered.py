"""What an answered turn leaves for the next message: the documents' words its answer used, and whether a message's
own things are among them.

A student reads the answer before writing again, so the next message may ask about a thing the answer brought in and
the question never named: 「退款多久能到账」 is answered 「…审核通过后 7 个工作日内原路退回」, and 「是原路退吗」 asks
about that refund. `answer_words` keeps the answer's words that the documents use — never a figure, never a word the
documents lack, so nothing of the student's is kept — and `held_by_answer` tells whether a message's thing is one of
them (core.conversations.standalone's `within_answer` reads such a message in the previous question's subject).

Left out: which messages are follow-ups (core.conversations.standalone), storage (core.stores.turns keeps the words
with the turn), any model.
"""

from __future__ import annotations

import re

from core.conversations.subjects import tokenizer
from core.conversations.words import number

_CITATION = re.compile(r"\[\d+\]")
_RUN = re.compile(r"[\u4e00-\u9fffA-Za-z]+")
_SENTENCE = re.compile(r"[。！？!?；;\n]+")


def answer_words(answer: str, documents: str) -> tuple[tuple[str, ...], ...]:
    """The answer's sentences (its citation marks aside), each as the phrases of it that `documents` (the corpus
    text) also use, in answer order, each phrase once, at most `answer_words` phrases in all; a sentence with none
    is left out. A phrase is a run of Chinese or Latin letters between punctuation, spaces and digits (「审核通过后」
    「个工作日内原路退回」: the offline answerer quotes the documents); a run the documents do not hold (a model's own
    wording) gives its jieba words the documents use instead. Two characters or more, never a digit, never a word the
    documents lack. The first sentence is the answer's reply; the others add what the documents say beside it."""
    corpus = documents.lower()
    seen: set[str] = set()
    sentences: list[tuple[str, ...]] = []
    for sentence in _SENTENCE.split(_CITATION.sub(" ", answer).lower()):
        kept: list[str] = []
        for run in _RUN.findall(sentence):
            pieces = [run] if run in corpus else [p.strip() for p in tokenizer().cut(run, HMM=False)]
            for piece in pieces:
                if len(piece) >= 2 and piece in corpus and piece not in seen:
                    seen.add(piece)
                    kept.append(piece)
        kept = kept[:max(0, number("answer_words") - sum(map(len, sentences)))]
        if kept:
            sentences.append(tuple(kept))
    return tuple(sentences)


def held_by_answer(thing: str, message: str, sentences: tuple[tuple[str, ...], ...]) -> bool:
    """Whether a thing the message names is one of the answer's words (any sentence): a word of two characters or
    more inside one of them (测试 of 分级测试); a single character only with the character beside it in the message (原
    of 「是原路退吗」 is held by 原路, 课 of 「每节课多久」 by no word of a transfer's answer)."""
    words = [w for sentence in sentences for w in sentence]
    thing = thing.lower()
    if len(thing) >= 2:
        return any(thing in w for w in words)
    text = message.lower()
    pairs = {text[i:i + 2] for i in range(len(text) - 1) if thing in text[i:i + 2]}
    return any(pair in w for pair in pairs for w in words)
