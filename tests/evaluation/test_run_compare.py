"""core.evaluation.run_compare on runs built by hand: directions, matching by question key, sections that changed."""

from __future__ import annotations

import pytest

from core.corpus.snapshot import file_sections, text_sha256
from core.evaluation.run_compare import (
    CHECKS_CHANGED,
    SOURCE_CHANGED,
    TO_ANSWERED,
    TO_REFUSED,
    compare,
    direction,
    section_changes,
)
from core.stores.runs import Run, RunFile, RunInfo, RunQuestion


def q(outcome: str, checks: tuple[str, ...] = (), question: str = "口语课几级？") -> RunQuestion:
    return RunQuestion(question, "a.md", outcome, f"理由 {outcome}", "a.md · 甲", checks)


def run(name: str, questions, files=(), knobs=None) -> Run:
    counts: dict[str, int] = {}
    for x in questions:
        counts[x.outcome] = counts.get(x.outcome, 0) + 1
    info = RunInfo(name, "eval", "题集", 1, "h", "f", knobs or {"threshold": 0.1}, "g", 0, "offline", "off", "on",
                   "t", None, len(questions), counts)
    return Run(info, tuple(questions), tuple(files))


@pytest.mark.parametrize("before, after, expected", [
    ("正确回答", "误拒", TO_REFUSED),
    ("误答", "正确拒答", TO_REFUSED),
    ("误拒", "正确回答", TO_ANSWERED),
    ("正确拒答", "误答", TO_ANSWERED),
    ("正确回答", "命中错误资料", SOURCE_CHANGED),
    ("命中错误资料", "正确回答", SOURCE_CHANGED),
    ("正确回答", "正确回答", None),
])
def test_direction_of_an_outcome_change(before, after, expected):
    assert direction(q(before), q(after)) == expected


def test_a_changed_check_verdict_is_a_flip_with_the_same_outcome():
    assert direction(q("正确回答", ("bad_ref",)), q("正确回答")) == CHECKS_CHANGED


def test_questions_are_matched_by_their_key_and_unmatched_ones_listed():
    before = run("A", [q("正确回答", question="口语课几级？"), q("正确拒答", question="雅思多少钱？")])
    after = run("B", [q("误拒", question="口语课 几级"), q("正确回答", question="退费要多久？")])
    result = compare(before, after, {})
    assert [(f.question, f.before.outcome, f.after.outcome) for f in result.flips] == [("口语课几级？", "正确回答", "误拒")]
    assert result.only_before == ("雅思多少钱？",) and result.only_after == ("退费要多久？",)
    assert dict((o, (a, b)) for o, a, b in result.counts)["误拒"] == (0, 1)


def test_only_knobs_that_differ_are_named():
    result = compare(run("A", [q("正确回答")], knobs={"threshold": 0.1, "k": 3}),
                     run("B", [q("正确回答")], knobs={"threshold": 0.2, "k": 3}), {})
    assert result.knobs == {"threshold": (0.1, 0.2)} and result.flips == ()


def test_section_changes_name_the_section_and_carry_the_diff():
    old, new = "# 甲\n一。\n\n# 乙\n二。\n", "# 甲\n一。\n\n# 乙\n三。\n\n# 丙\n四。\n"
    a = tuple((s.heading, s.sha256) for s in file_sections(old))
    b = tuple((s.heading, s.sha256) for s in file_sections(new))
    texts = {s.sha256: s.text for s in (*file_sections(old), *file_sections(new))}
    changes = section_changes(a, b, texts)
    assert [(c.heading, c.change) for c in changes] == [("乙", "修改"), ("丙", "新增")]
    assert [(r.old, r.new) for r in changes[0].diff] == [("二。", "三。")]


def test_files_with_the_same_bytes_are_not_listed():
    same = RunFile("a.md", text_sha256("x"), 1, (("甲", "s"),))
    assert compare(run("A", [q("正确回答")], [same]), run("B", [q("正确回答")], [same]), {}).files == ()
