"""bench.gaps_loop: the simulated admin's tidying, tomorrow's tally and the written rule for the seed bar."""

from __future__ import annotations

from bench.gaps_loop import Tomorrow, pick, tidy, tomorrow
from core.gaps.grouping import Group, Grouping

LABELS = ["分期", "分期", "发票", "分期", "发票", "发票", "noise"]


def test_tidy_merges_a_split_label_and_moves_a_misplaced_question_to_its_home():
    # topic 0: 分期 ×2 + one 发票 (misplaced); topic 1: 发票 ×2; topic 2: 分期 alone-majority (split); 6 is noise
    today = Grouping(groups=(Group((0, 1, 2), ()), Group((4, 5), ()), Group((3,), ())), noise=(6,))
    done = tidy(today, LABELS, total=9)
    assert (done.merges, done.moves) == (1, 1)  # topic 2 merges into topic 0; question 2 moves to topic 1
    assert done.hints == ("#0", "#0", "#1", "#0", "#1", "#1", "", "", "")


def test_tomorrow_counts_right_and_wrong_joins_of_the_later_rows_only():
    labels = [*LABELS, "分期", "发票"]
    hints = ("#0", "#0", "#1", "#0", "#1", "#1", "", "", "")
    grouping = Grouping(groups=(Group((0, 1, 3, 7, 8), (), hint="#0"), Group((2, 4, 5), (), hint="#1")), noise=(6,))
    assert tomorrow(grouping, labels, hints, start=7) == Tomorrow(right=1, wrong=1, labelled=2, joined=2)


def test_pick_keeps_bars_with_few_wrong_joins_on_every_file_then_the_most_right():
    results = {0.3: [Tomorrow(20, 3, 40, 23), Tomorrow(10, 0, 20, 10)],  # 3/23 wrong on the first file: out
               0.4: [Tomorrow(15, 1, 40, 16), Tomorrow(9, 0, 20, 9)],
               0.5: [Tomorrow(14, 0, 40, 14), Tomorrow(10, 0, 20, 10)]}
    assert pick(results) == 0.5  # 24 right against 0.4's 24: the tie goes to the higher bar
    assert pick({0.3: results[0.3]}) is None
