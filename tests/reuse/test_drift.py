"""core.reuse.drift: which edits say what an approved answer says, and the shipped share is the written rule's."""

from __future__ import annotations

from bench import reuse_drift
from core.reuse.drift import RELATED_SHARE, changed_sentences, related_change, relatedness

OLD = "每一级都是 16 课时，每课时 45 分钟。\n每周上 2 课时，八周结课。\n口语课采用小班授课，每班不超过 8 人。\n"


def test_changed_sentences_are_the_removed_then_the_added_ones():
    new = OLD.replace("每课时 45 分钟", "每课时 60 分钟")
    assert changed_sentences(OLD, new) == ("每一级都是 16 课时，每课时 45 分钟。", "每一级都是 16 课时，每课时 60 分钟。")
    assert changed_sentences(OLD, OLD) == ()
    assert changed_sentences(None, "新文件一句。") == ("新文件一句。",)


def test_relatedness_is_the_best_clause_share_and_ignores_clauses_too_short_to_say_anything():
    assert relatedness("每一级都是 16 课时，每课时 45 分钟。", "每课时 45 分钟。") == 1.0
    assert relatedness("因病或工作调动，可以申请保留学籍。", "人工服务时间为每天 9:00–21:00。") == 0.0
    assert relatedness("可以申请保留学籍。", "可以。") == 0.0  # 「可以」 alone is one pair: too short to count


def test_a_related_edit_is_named_with_its_old_and_new_sentence():
    new = OLD.replace("每课时 45 分钟", "每课时 60 分钟")
    detail = related_change("每课时 45 分钟。", {"01.md": (OLD, new)})
    assert "「01.md」" in detail and "45 分钟" in detail and "→" in detail and "60 分钟" in detail


def test_an_unrelated_edit_or_no_edit_says_nothing():
    new = OLD.replace("不超过 8 人", "不超过 10 人")
    assert related_change("每课时 45 分钟。", {"01.md": (OLD, new)}) == ""
    assert related_change("每课时 45 分钟。", {}) == ""


def test_a_sentence_added_that_says_the_same_thing_is_named_too():
    new = OLD + "自 2027 年起每课时 50 分钟。\n"
    assert "新写了" in related_change("每课时 45 分钟。", {"01.md": (OLD, new)})


def test_the_shipped_share_is_what_the_written_rule_picks_on_the_development_sets(capsys):
    reuse_drift.main([])
    assert capsys.readouterr().out.rstrip().endswith(f"{RELATED_SHARE:.2f}")
