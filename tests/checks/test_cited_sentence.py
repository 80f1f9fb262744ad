"""The cited sentence inside a chunk, found by shared character pairs."""

from __future__ import annotations

from core.checks.cited_sentence import best_sentence, bigrams, claim_before

CHUNK = "开课前可以全额退费。开课 7 天内退费，扣除已上课时费用。超过 7 天不予退费。"


def test_bigrams_ignore_spaces_and_punctuation():
    assert bigrams("开课 7天。") == {"开课", "课7", "7天"}


def test_best_sentence_picks_the_one_sharing_most_pairs():
    # claim pairs: 开课 课7 7天 天内 内可 可退 退费 → sentence 2 shares 开课 课7 7天 天内 退费 (5),
    # sentence 1 shares 开课 退费 (2), sentence 3 shares 7天 退费 (2)
    start, end = best_sentence(CHUNK, "开课7天内可退费")
    assert CHUNK[start:end] == "开课 7 天内退费，扣除已上课时费用。"


def test_best_sentence_none_when_nothing_is_shared():
    assert best_sentence(CHUNK, "口语课有几级") is None


def test_claim_before_takes_the_sentence_ending_at_the_mark():
    answer = "口语课分四级 [1]。开课 7 天内可退费 [2]。"
    assert claim_before(answer, answer.index("[2]")) == "开课 7 天内可退费"
    assert claim_before(answer, answer.index("[1]")) == "口语课分四级"
