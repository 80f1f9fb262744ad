"""core.reuse.match: weighted coverage both ways, and what the question asks for."""

from __future__ import annotations

import pytest

from core.reuse.match import asked, asks_other, coverage, similarity
from core.values import Term


def term(text: str, weight: float, *forms: str) -> Term:
    return Term(text=text, weight=weight, forms=(text, *forms), known=True)


def test_similarity_is_the_smaller_coverage_worked_by_hand():
    a = (term("学费", 0.9), term("三级", 0.6))
    b = (term("学费", 0.9), term("三级", 0.6), term("分期", 1.0))
    assert coverage(a, b) == 1.0
    assert coverage(b, a) == pytest.approx(1.5 / 2.5)
    assert similarity(a, b) == similarity(b, a) == 0.6


def test_a_glossary_form_counts_as_the_word():
    asked_now = (term("价格", 0.8, "学费"),)
    approved = (term("学费", 0.9),)
    assert similarity(asked_now, approved) == 1.0


def test_questions_without_weighted_words_are_similar_to_nothing():
    assert similarity((), (term("学费", 0.9),)) == 0.0


@pytest.mark.parametrize("a, b, differ", [
    ("几点到几点可以找人工", "怎么叫人工", True),
    ("退费要多久到账", "退费怎么申请", True),
    ("人工服务几点开始", "人工客服什么时候有人", False),
    ("怎么转人工", "人工", False),  # a question without such a word may ask anything
])
def test_what_the_question_asks_for_is_compared_apart(a, b, differ):
    assert (asks_other(a, b) is not None) == differ
    assert asked("几点到几点可以找人工") == {"时间"}
