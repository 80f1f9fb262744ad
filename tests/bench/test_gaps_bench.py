"""bench/gaps.py: the figures of a grouping against labels, worked out by hand on a small grouping."""

from __future__ import annotations

import pytest

from bench.gaps import fragmentation, quality
from core.gaps.grouping import Group, Grouping

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
