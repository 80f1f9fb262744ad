"""Triage on the 复核队列 page: selection by id, 「…并下一条」, progress line, bulk on ticked ids only."""
# ruff: noqa: F811  (pytest fixtures imported from test_review_page)

from __future__ import annotations

from tests.app.test_review_page import page, select, store, table  # noqa: F401, F811  (fixtures)


def opened(at) -> str:
    return at.subheader[0].value.split(" · ")[0]


def test_review_triage_opens_the_first_pending_item_and_shows_progress(page):
    at = page("王老师")
    assert opened(at) == "#3"
    assert any(m.value.startswith("**本筛选还剩 3 条待复核**") for m in at.markdown)


def test_review_triage_approve_and_next_opens_the_next_pending_item(page, store):
    at = page("王老师")
    at.button(key="approve_next_3").click().run()
    assert not at.exception
    assert store.get(3).status == "approved"
    assert opened(at) == "#2"
    assert any("#3 已通过" in s.value and "已打开下一条 #2" in s.value for s in at.success)
    assert any(m.value.startswith("**本筛选还剩 2 条待复核**") for m in at.markdown)
    at.text_area(key="note_2").set_value("数字是编的")
    at.button(key="reject_next_2").click().run()
    assert (store.get(2).status, opened(at)) == ("rejected", "#1")


def test_review_triage_ticks_do_not_slide_onto_rows_that_moved(page, store):
    at = select(page("王老师"), 1)  # ticks #2
    assert opened(at) == "#2"
    at.button(key="approve_next_2").click().run()
    assert list(table(at).value["编号"]) == [3, 1]
    assert opened(at) == "#1"  # the next pending after #2, not the row that slid under the old tick
    assert store.get(3).status == "pending"


def test_review_triage_bulk_acts_on_the_ticked_ids_only(page, store):
    at = select(page("王老师"), 0, 2)  # #3 and #1
    assert any("只处理这些条目：#3、#1" in c.value for c in at.caption)
    at.button(key="bulk_approve").click().run()
    assert not at.exception
    assert [store.get(i).status for i in (1, 2, 3)] == ["approved", "pending", "approved"]
    assert any("#3、#1" in s.value for s in at.success)
