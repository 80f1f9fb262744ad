"""Side-by-side corpus diffs: aligned rows with their kind, folding, and the diff of a 资料已更新 item."""

from __future__ import annotations

from datetime import UTC, datetime

from core.corpus.diff import ADDED, CHANGED, FOLDED, REMOVED, SAME, DiffRow, inline_parts, side_by_side
from core.stores.corpus_admin import CorpusAdmin
from core.stores.db import Database
from core.stores.review_models import ReviewItem
from core.stores.roles import User
from core.stores.stale import stale_changes
from core.values import Hit

ADMIN = User("boss", "王校长", "admin")


def test_side_by_side_aligns_changed_removed_and_added_lines():
    old = "a\nb\nc\nd"
    new = "a\nB\nc\ne\nf"
    assert side_by_side(old, new, context=1) == (
        DiffRow(1, "a", 1, "a", SAME), DiffRow(2, "b", 2, "B", CHANGED), DiffRow(3, "c", 3, "c", SAME),
        DiffRow(4, "d", 4, "e", CHANGED), DiffRow(None, "", 5, "f", ADDED))
    assert side_by_side("a\nb", "a") == (DiffRow(1, "a", 1, "a", SAME), DiffRow(2, "b", None, "", REMOVED))
    assert side_by_side("same", "same") == ()


def test_side_by_side_folds_long_unchanged_runs():
    old = "\n".join(str(i) for i in range(20))
    rows = side_by_side(old, old.replace("10", "十"), context=2)
    assert [r.kind for r in rows] == [FOLDED, SAME, SAME, CHANGED, SAME, SAME, FOLDED]
    assert rows[0].old == "……8 行相同……"


class Clock:
    def __init__(self):
        self.now = datetime(2025, 3, 1, 8, tzinfo=UTC)

    def __call__(self):
        return self.now


def test_stale_changes_diff_from_the_version_when_queued_to_the_newest(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "退费.md").write_text("# 退费\n\n开课 7 天内全额退费。\n", encoding="utf-8")
    clock = Clock()
    admin = CorpusAdmin(Database(f"sqlite:///{tmp_path / 'x.sqlite3'}"), corpus, now=clock)
    admin.save(ADMIN, "退费.md", "# 退费\n\n开课 7 天内全额退费。\n开课后退八成。\n")
    clock.now = datetime(2025, 3, 2, 8, tzinfo=UTC)
    queued = datetime(2025, 3, 3, 8, tzinfo=UTC)
    clock.now = datetime(2025, 3, 4, 8, tzinfo=UTC)
    admin.save(ADMIN, "退费.md", "# 退费\n\n开课 3 天内全额退费。\n开课后退八成。\n")
    hit = Hit(rank=1, source="退费.md", heading="退费", chunk=0, start=0, end=10, text="开课 7 天内全额退费。",
              score=0.5, passed=True)
    item = ReviewItem(id=1, created_at=queued, origin="auto", question="退费？", answer="开课 7 天内全额退费 [1]",
                      reasons=(), threshold=0.2, k=3, candidates=(hit,), fingerprint="f", status="pending", version=2)
    (change,) = stale_changes(admin, item)
    assert (change.source, change.old_version, change.new_version) == ("退费.md", 2, 3)
    assert [(r.old, r.new) for r in change.rows if r.kind == CHANGED] == [("开课 7 天内全额退费。", "开课 3 天内全额退费。")]


def test_inline_parts_mark_only_the_changed_characters_of_a_changed_line():
    (row,) = [r for r in side_by_side("单笔最低 50 元。\n", "单笔最低 60 元。\n") if r.kind == CHANGED]
    old, new = inline_parts(row)
    assert old == (("单笔最低 ", False), ("5", True), ("0 元。", False))
    assert new == (("单笔最低 ", False), ("6", True), ("0 元。", False))
    assert inline_parts(DiffRow(None, "", 3, "新的一行", ADDED)) == ((), (("新的一行", True),))
    assert inline_parts(DiffRow(2, "旧的一行", None, "", REMOVED)) == ((("旧的一行", True),), ())
