"""core.gaps.grouping: the features a question brings, the three passes (linkage, merge, attach), labels, noise,
determinism."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import pytest

from core.gaps.grouping import RULE, Rule, Signals, features, group
from tests.paths import ROOT


def ask(*words: tuple[str, float, bool], hint: str = "") -> Signals:
    return Signals(words=tuple((w, weight, absent, w) for w, weight, absent in words), hint=hint)


INSTALMENTS = [ask(("学费", 0.89, False), ("分期", 1.0, True)),
               ask(("分期", 1.0, True), ("付款", 0.6, True)),
               ask(("学费", 0.89, False), ("分期", 1.0, True), ("花呗", 1.0, True))]
INVOICES = [ask(("开发票", 1.0, True)), ask(("发票", 1.0, True), ("报销", 0.8, True)),
            ask(("开发票", 1.0, True), ("报销", 0.8, True))]
GREETING = ask()  # 你好: no content word


def test_features_weigh_absent_words_fully_corpus_words_less_and_share_an_absent_words_characters():
    found = features(ask(("开发票", 1.0, True), ("学费", 0.9, False)))
    # by hand: 开发票 1.0; its three characters share char_weight 1.0 of it; 学费 0.9 × known_weight 0.7
    assert found == pytest.approx({"w:开发票": 1.0, "c:开": 1 / 3, "c:发": 1 / 3, "c:票": 1 / 3, "w:学费": 0.63})


def test_a_hint_is_no_feature_it_places_the_question():
    assert features(ask(("分期", 1.0, True), hint="付款")) == features(ask(("分期", 1.0, True)))
    assert features(ask(hint="付款")) == {}


def test_questions_given_one_hint_are_one_topic_at_any_size_even_without_a_word():
    grouping = group([ask(("周末", 1.0, True), hint="上课时间"), GREETING, ask(hint="上课时间"), *INSTALMENTS])
    assert [(g.members, g.hint) for g in grouping.groups] == [((3, 4, 5), ""), ((0, 2), "上课时间")]
    assert grouping.noise == (1,)


def test_two_hints_never_mix_even_on_the_same_words():
    same = [ask(("分期", 1.0, True), hint="付款"), ask(("分期", 1.0, True), hint="优惠"), *INVOICES]
    assert [(g.members, g.hint) for g in group(same).groups] == [((2, 3, 4), ""), ((0,), "付款"), ((1,), "优惠")]


# By hand, characters off: over these six questions 分期 is in 3 (idf ln(7/4) + 1 = 1.5596) and 花呗 in 1
# (ln(7/2) + 1 = 2.2528). The hinted topic's centroid is (1, 0); q2 = (1.5596, 2.2528) / 2.7400 = (0.5692, 0.8222),
# so its cosine with the centroid is 0.5692.
SEEDED = [ask(("分期", 1.0, True), hint="付款"), ask(("分期", 1.0, True), hint="付款"),
          ask(("分期", 1.0, True), ("花呗", 1.0, True)), *INVOICES]


@pytest.mark.parametrize(("bar", "joins"), [(0.56, True), (0.57, False), (0.0, False)])
def test_a_question_without_a_hint_joins_the_hinted_topic_from_the_seed_bar(bar, joins):
    grouping = group(SEEDED, replace(RULE, char_weight=0.0, seed=bar))
    hinted = next(g for g in grouping.groups if g.hint == "付款")
    assert hinted.members == ((0, 1, 2) if joins else (0, 1))
    assert (2 in grouping.noise) == (not joins)  # alone it is too small to be a topic by words


def test_group_two_topics_and_the_greeting_is_noise():
    grouping = group([*INSTALMENTS, GREETING, *INVOICES])
    assert [g.members for g in grouping.groups] == [(0, 1, 2), (4, 5, 6)]
    assert grouping.noise == (3,)


def test_group_labels_name_the_words_the_questions_share():
    grouping = group([*INSTALMENTS, *INVOICES])
    assert grouping.groups[0].terms[0] == "分期"
    assert "开发票" in grouping.groups[1].terms and "花呗" not in grouping.groups[0].terms  # 花呗: one question only


def test_a_group_smaller_than_min_size_is_noise():
    grouping = group([*INSTALMENTS[:2], *INVOICES])
    assert [g.members for g in grouping.groups] == [(2, 3, 4)]
    assert grouping.noise == (0, 1)
    assert [g.members for g in group([*INSTALMENTS[:2], *INVOICES], replace(RULE, min_size=2)).groups] == \
        [(2, 3, 4), (0, 1)]


def test_a_shared_hint_keeps_questions_of_different_words_together():
    apart = [ask(("周末", 1.0, True)), ask(("晚上", 1.0, True)), ask(("白天", 1.0, True)), *INVOICES]
    assert len(group(apart).groups) == 1
    together = [ask(("周末", 1.0, True), hint="上课时间"), ask(("晚上", 1.0, True), hint="上课时间"),
                ask(("白天", 1.0, True), hint="上课时间"), *INVOICES]
    assert [g.members for g in group(together).groups] == [(0, 1, 2), (3, 4, 5)]


def test_group_of_too_few_questions_is_all_noise():
    assert group([INSTALMENTS[0], GREETING]).noise == (0, 1)


@pytest.mark.parametrize(("change", "message"), [({"cut": 1.5}, r"cut \(1.5\)"),
                                                  ({"linkage": "single"}, r"linkage \('single'\)"),
                                                  ({"merge": 1.0}, r"merge \(1.0\)"),
                                                  ({"attach": -0.1}, r"attach \(-0.1\)")])
def test_rule_validates_its_constants_naming_the_value(change, message):
    with pytest.raises(ValueError, match=message):
        Rule(**change)


def test_features_share_a_words_weight_among_its_character_pairs():
    found = features(ask(("开发票", 1.0, True), ("学费", 0.9, False)), Rule(char_weight=0.0, pair_weight=1.0))
    # by hand: 开发票 → 开发, 发票 (half each); 学费 at 0.9 × known_weight 0.7 = 0.63, its one pair 学费 all of it
    assert found == pytest.approx({"w:开发票": 1.0, "p:开发": 0.5, "p:发票": 0.5, "w:学费": 0.63, "p:学费": 0.63})


# three spellings of one missing topic (开发票, 发票, 开票: no word in common, the characters 发 票 开 shared),
# each asked once alone and once with 抬头
SPELLINGS = [ask(("开发票", 1.0, True)), ask(("发票", 1.0, True)), ask(("开票", 1.0, True)),
             ask(("发票", 1.0, True), ("抬头", 0.6, True)), ask(("开发票", 1.0, True), ("抬头", 0.6, True)),
             ask(("开票", 1.0, True), ("抬头", 0.6, True))]


def test_spellings_that_share_characters_but_no_word_end_in_one_topic():
    grouping = group([*SPELLINGS, *INSTALMENTS])
    assert [g.members for g in grouping.groups] == [(0, 1, 2, 3, 4, 5), (6, 7, 8)]
    without = group([*SPELLINGS, *INSTALMENTS], replace(RULE, char_weight=0.0))  # the characters hold it together
    assert all(not set(range(6)) <= set(g.members) for g in without.groups)


@pytest.mark.parametrize("rule", [RULE, replace(RULE, cut=0.99, merge=0.01, attach=0.01)], ids=["shipped", "eager"])
def test_a_greeting_never_joins_a_topic(rule):
    grouping = group([GREETING, *INSTALMENTS, GREETING, *SPELLINGS], rule)
    assert {0, 4} <= set(grouping.noise)
    assert all(0 not in g.members and 4 not in g.members for g in grouping.groups)


# Worked by hand with the character features and the shared-neighbour similarity off (their IDF is the batch's):
# 分期 is in 3 of 4 questions, idf = ln(5/4) + 1 = 1.2231; 花呗 in 2, 1.5108; 信用卡 in 1, 1.9163.
# q0 = q1 = (1, 0, 0); q2 = (1.2231, 1.5108, 0) / 1.9439 = (0.6292, 0.7772, 0); q3 = (0, 1.5108, 1.9163) / 2.4402
# = (0, 0.6191, 0.7853). The topic's centroid q0 + q1 + q2 = (2.6292, 0.7772, 0), of length 2.7417;
# cos(q3, centroid) = 0.6191 × 0.7772 / 2.7417 = 0.1755. The first pass (cut 0.5) leaves q3 alone: its mean
# distance to the topic is (1 + 1 + (1 - 0.6191 × 0.7772)) / 3 = 0.84.
LOOSE = [ask(("分期", 1.0, True)), ask(("分期", 1.0, True)), ask(("分期", 1.0, True), ("花呗", 1.0, True)),
         ask(("花呗", 1.0, True), ("信用卡", 1.0, True))]
HAND = replace(RULE, char_weight=0.0, neighbour_weight=0.0, cut=0.5, merge=0.0)


@pytest.mark.parametrize(("bar", "joins"), [(0.17, True), (0.18, False)])
def test_attach_moves_a_loose_question_into_a_topic_only_from_the_bar_up(bar, joins):
    grouping = group(LOOSE, replace(HAND, attach=bar))
    assert [g.members for g in grouping.groups] == [(0, 1, 2, 3) if joins else (0, 1, 2)]
    assert grouping.noise == (() if joins else (3,))


# Two topics mirrored: 分期 ×2 + 分期 花呗, and 信用卡 ×2 + 信用卡 花呗. Six questions: 分期 and 信用卡 are in 3,
# idf = ln(7/4) + 1 = 1.5596; 花呗 in 2, ln(7/3) + 1 = 1.8473. q2 = (1.5596, 1.8473, 0) / 2.4176 = (0.6451, 0.7641, 0)
# and q5 its mirror; the centroids are (2.6451, 0.7641, 0) and (0, 0.7641, 2.6451): cos = 0.7641² / 7.5805 = 0.0770.
# The first pass (cut 0.5) keeps them apart: a mean distance of (8 + (1 - 0.7641²)) / 9 = 0.935.
HALVES = [*LOOSE[:3], ask(("信用卡", 1.0, True)), ask(("信用卡", 1.0, True)),
          ask(("信用卡", 1.0, True), ("花呗", 1.0, True))]


@pytest.mark.parametrize(("bar", "topics"), [(0.07, [(0, 1, 2, 3, 4, 5)]), (0.08, [(0, 1, 2), (3, 4, 5)])])
def test_merge_joins_two_groups_only_when_their_centroids_reach_the_bar(bar, topics):
    assert [g.members for g in group(HALVES, replace(HAND, merge=bar)).groups] == topics


def test_the_grouping_is_the_same_under_another_hash_seed():
    script = ("from tests.gaps.test_grouping import INSTALMENTS, INVOICES, GREETING\n"
              "from core.gaps.grouping import group\n"
              "g = group([*INVOICES, GREETING, *INSTALMENTS])\n"
              "print([(x.members, x.terms) for x in g.groups], g.noise)")
    outputs = {subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True,
                              env={"PYTHONHASHSEED": seed, "PATH": ""}).stdout for seed in ("1", "2")}
    assert len(outputs) == 1
