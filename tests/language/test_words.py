"""The word lists: one list of question words, of which retrieval strips the interrogatives it marks."""

from __future__ import annotations

from core.language.text import query_segments
from core.language.words import BASE_QUESTION_WORDS, RETRIEVAL_QUESTION_WORDS


def test_the_words_retrieval_strips_are_marked_inside_the_one_question_word_list():
    assert RETRIEVAL_QUESTION_WORDS and set(RETRIEVAL_QUESTION_WORDS) <= BASE_QUESTION_WORDS
    assert not any(word.startswith("检索") for word in BASE_QUESTION_WORDS)


def test_retrieval_cuts_the_query_at_the_marked_question_words():
    assert query_segments("三级学费是多少") == ["三级学费是"]
