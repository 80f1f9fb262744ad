"""bench/gaps.py and bench/gaps_grid.py: the figures of a grouping against labels, worked out by hand on a small
grouping, and the written rule that picks a candidate."""

from __future__ import annotations

import pytest

from bench.gaps import Quality, fragmentation, quality
from bench.gaps_grid import Candidate, pick
from core.gaps.grouping import Group, Grouping, Rule

# a: 5 questions, b: 3, c: 1, two noise rows; positions 0..10
LABELS = ["a", "a", "a", "a", "a", "b", "b", "b", "c", "noise", "noise"]


def grouping(*groups: tuple[int, ...]) -> Grouping:
    inside = {i for g in groups for i in g}
    return Grouping(groups=tuple(Group(members=g, terms=()) for g in groups),
                    noise=tuple(i for i in range(len(LABELS)) if i not in inside))


def test_fragmentation_is_the_mean_share_of_each_label_in_its_largest_topic():
    # a: 3 of 5 in its largest topic, b: 2 of 3 (one left in noise), c: 0 of 1 (in noise) → (0.6 + 2/3 + 0) / 3
    found = fragmentation(grouping((0, 1, 2), (3, 4, 5), (6, 7)), LABELS)
    assert found == pytest.approx((0.6 + 2 / 3 + 0.0) / 3)


def test_fragmentation_is_one_when_every_label_sits_whole_in_one_topic_even_a_mixed_one():
    assert fragmentation(grouping((0, 1, 2, 3, 4), (5, 6, 7, 8)), LABELS) == 1.0  # purity catches b and c together


def test_quality_reports_the_label_perfect_ceiling_of_the_top10_share():
    labels = [f"t{n}" for n in range(12) for _ in range(n + 1)] + ["noise"]  # 12 label-topics of 1..12 questions
    q = quality(Grouping(groups=(), noise=tuple(range(len(labels)))), labels)
    assert q.top10_ceiling == pytest.approx(sum(range(3, 13)) / sum(range(1, 13)))  # 75 of 78
    assert q.top10 == 0.0 and q.fragmentation == 0.0


def measured(purity: float, noise: float, bcubed: float, fragmentation: float) -> Quality:
    return Quality(purity=purity, top10=0.0, noise_recall=noise, coverage=0.0, split=0, labels=0, topics=0,
                   bcubed_f=bcubed, top10_ceiling=0.0, fragmentation=fragmentation)


def test_pick_takes_the_best_mean_bcubed_among_rules_that_qualify_on_every_file():
    rows = [(Candidate("a", Rule(cut=0.9)), [measured(0.84, 1.0, 0.9, 0.9), measured(0.9, 1.0, 0.9, 0.9)]),  # purity
            (Candidate("b", Rule(cut=0.85)), [measured(0.9, 0.89, 0.8, 0.9), measured(0.9, 1.0, 0.8, 0.9)]),  # noise
            (Candidate("c", Rule(cut=0.8)), [measured(0.85, 0.9, 0.6, 0.5), measured(0.9, 1.0, 0.5, 0.5)]),
            (Candidate("d", Rule(cut=0.75)), [measured(0.9, 0.9, 0.5, 0.5), measured(0.9, 1.0, 0.5, 0.5)])]
    assert pick(rows) == 2  # c: mean 0.55 against d's 0.5; a and b fail a bar on one file (≥ is enough)
    assert pick(rows[:2]) is None


def test_pick_breaks_a_near_tie_by_fragmentation_then_by_fewer_parts():
    close = [measured(0.9, 1.0, 0.600, 0.5)], [measured(0.9, 1.0, 0.596, 0.6)]  # 0.004 apart: a tie
    assert pick([(Candidate("x", Rule()), close[0]), (Candidate("y", Rule(merge=0.2)), close[1])]) == 1
    same = [measured(0.9, 1.0, 0.6, 0.5)]
    assert pick([(Candidate("x", Rule(merge=0.2, attach=0.3)), same), (Candidate("y", Rule(merge=0.2)), same)]) == 1
    apart = [measured(0.9, 1.0, 0.594, 0.9)]  # 0.006 below: not a tie, fragmentation does not matter
    assert pick([(Candidate("x", Rule()), close[0]), (Candidate("y", Rule()), apart)]) == 0
