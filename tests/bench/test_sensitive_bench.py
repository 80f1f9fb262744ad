"""The 敏感词 automaton on the shipped material: the starter list and 2,000 made-up words hit nothing in the corpus
or any labelled set, and every word planted in a message or a document is caught (bench.sensitive's functions)."""

from __future__ import annotations

import random

from bench.sensitive import corpus_texts, made_up, set_texts, starter_words
from core.privacy.sensitive import WORD, Matcher


def test_no_false_hit_on_the_corpus_and_the_labelled_sets():
    matcher = Matcher(starter_words() + made_up(2000))
    hits = [(h.word, text[:30]) for text in corpus_texts() + set_texts() for h in matcher.find(text)]
    assert hits == []


def test_every_planted_word_is_caught():
    words = starter_words() + made_up(2000)
    matcher = Matcher(words)
    listed = [w.text for w in words if w.kind == WORD]
    rng = random.Random(3)
    texts = set_texts()[:2000] + corpus_texts()
    missed = []
    for text in texts:
        word = rng.choice(listed)
        at = rng.randint(0, len(text))
        if not any(h.word == word for h in matcher.find(text[:at] + word + text[at:])):
            missed.append(word)
    assert missed == []
