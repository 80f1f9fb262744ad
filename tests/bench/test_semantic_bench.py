"""bench/semantic_signal.py: the leave-one-set-out split, the tallies and the semantic scores."""

from __future__ import annotations

import numpy as np

from bench.semantic_signal import drop_similarity, leave_one_set_out, semantic_scores, sentences, tally
from core.retrieval.embeddings import HashingEmbeddings


def test_sentences_cut_at_sentence_ends_and_drop_debris():
    assert sentences(["入门级学费为每期三千元。可以分两次缴纳吗？\n三、", "退费七日内原路退回；"]) == [
        "入门级学费为每期三千元", "可以分两次缴纳吗", "退费七日内原路退回"]


def test_tally_counts_only_answers_that_hold_the_fact():
    answerable = np.array([True, True, True, False, False])
    fact = np.array([True, False, True, False, False])
    decided = np.array([True, True, False, True, False])
    assert tally(answerable, fact, decided) == (1, 3, 1, 2)


def test_leave_one_set_out_never_trains_on_the_set_it_decides():
    rng = np.random.default_rng(7)
    rule = rng.choice([-1.0, 1.0], size=90) * (1.0 + rng.random(90))  # |x| >= 1: a clear rule
    # Set d: every row below the rule's boundary yet labelled answerable, and marked by a second
    # feature no other set has. Trained on d, a model would learn that mark; decided without it,
    # d follows the rule of a, b and c.
    x = np.vstack([np.column_stack([rule, np.zeros(90)]),
                   np.column_stack([-1.0 - rng.random(10), np.full(10, 5.0)])])
    sets = ["a"] * 30 + ["b"] * 30 + ["c"] * 30 + ["d"] * 10
    answerable = np.concatenate([rule > 0, np.ones(10, dtype=bool)])
    decided = leave_one_set_out(sets, answerable, x)
    assert (decided[:90] == answerable[:90]).all()
    assert not decided[90:].any()


def test_semantic_scores_find_the_sentence_inside_a_longer_chunk():
    embed = HashingEmbeddings(dim=256).embed_documents
    chunks = ["学费标准。入门级每期三千元。进阶级每期四千元。", "退费在七个工作日内原路退回。"]
    scores = semantic_scores(embed, ["入门级每期三千元", "周末有没有班"], chunks)
    assert scores.shape == (2, 2)
    assert scores[0, 1] > 0.99 > scores[0, 0]  # the exact sentence beats the whole chunk
    assert scores[1].max() < scores[0].max()


def test_drop_similarity_is_one_when_nothing_is_dropped_and_falls_with_the_topic_word():
    embed = HashingEmbeddings(dim=256).embed_documents
    sims = drop_similarity(embed, ["学费能分期付款吗", "学费能分期付款吗"], [(), ("分期付款",)])
    assert abs(sims[0] - 1.0) < 1e-9
    assert sims[1] < 0.9
