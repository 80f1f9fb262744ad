"""core.gaps.grouping: the features a question brings, the average-linkage rule, labels, noise, determinism."""

from __future__ import annotations

import subprocess
import sys

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


def test_a_hint_is_a_feature_only_for_a_question_with_words():
    assert features(ask(("分期", 1.0, True), hint="付款"))["h:付款"] == RULE.hint_weight
    assert features(ask(hint="付款")) == {}


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
    assert [g.members for g in group([*INSTALMENTS[:2], *INVOICES], Rule(min_size=2)).groups] == [(2, 3, 4), (0, 1)]


def test_a_shared_hint_keeps_questions_of_different_words_together():
    apart = [ask(("周末", 1.0, True)), ask(("晚上", 1.0, True)), ask(("白天", 1.0, True)), *INVOICES]
    assert len(group(apart).groups) == 1
    together = [ask(("周末", 1.0, True), hint="上课时间"), ask(("晚上", 1.0, True), hint="上课时间"),
                ask(("白天", 1.0, True), hint="上课时间"), *INVOICES]
    assert [g.members for g in group(together).groups] == [(0, 1, 2), (3, 4, 5)]


def test_group_of_too_few_questions_is_all_noise():
    assert group([INSTALMENTS[0], GREETING]).noise == (0, 1)


def test_rule_validates_its_constants_naming_the_value():
    with pytest.raises(ValueError, match=r"cut \(1.5\)"):
        Rule(cut=1.5)


def test_the_grouping_is_the_same_under_another_hash_seed():
    script = ("from tests.gaps.test_grouping import INSTALMENTS, INVOICES, GREETING\n"
              "from core.gaps.grouping import group\n"
              "g = group([*INVOICES, GREETING, *INSTALMENTS])\n"
              "print([(x.members, x.terms) for x in g.groups], g.noise)")
    outputs = {subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True,
                              env={"PYTHONHASHSEED": seed, "PATH": ""}).stdout for seed in ("1", "2")}
    assert len(outputs) == 1
