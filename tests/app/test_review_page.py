"""The 复核队列 page through AppTest, started from the router, on a queue under tmp_path.

Uses the `app_env` / `open_app` fixtures of tests/app/conftest.py (login gate off, caches cleared).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.checks.grounding import check_grounding
from core.settings import Settings
from core.stores.accounts import AccountStore
from core.stores.db import open_database
from core.stores.review import Filters, ReviewStore
from core.values import Hit, Problem, RAGAnswer
from tests.app.conftest import ROUTER
from tests.auth_helpers import FAST_HASHER, PASSWORD, add_staff
from ui.review_view import ALL, build_filters

PAGE = "app_pages/review.py"


def answer(question: str, text: str, problems: tuple[Problem, ...], refused: bool = False) -> RAGAnswer:
    candidates = (
        Hit(rank=1, source="02-退费与转班制度.md", heading="三、退费计算口径", chunk=4, start=0, end=30,
            text="开课 7 天内可全额退费。", score=0.52, passed=True),
        Hit(rank=2, source="01-口语课分级说明.md", heading="课程级别", chunk=1, start=0, end=20,
            text="口语课共四级。", score=0.11, passed=False),
    )
    grounding = None if refused else check_grounding(text, [candidates[0].document], question)
    return RAGAnswer(question=question, text=text, hits=candidates[:1], candidates=candidates, threshold=0.2,
                     k=2, refused=refused, model_called=not refused, problems=problems, grounding=grounding)


@pytest.fixture
def store(app_env) -> ReviewStore:
    store = ReviewStore(open_database(Settings.from_env().db_url))
    # newest first on the page: row 0 is #3, row 1 is #2, row 2 is #1
    store.enqueue(answer("退费怎么算？<script>alert(1)</script>", "开课 7 天内可退八成 [1]，超过不退 [7]",
                         (Problem("bad_ref", "引用了不存在的编号 [7]，本次只提供了 1~1", (21, 24)),)),
                  fingerprint="fp-1")
    store.enqueue(answer("口语课几级？", "一共六级 [1]", (Problem("unsupported_number", "数字“六”在资料里找不到"),)),
                  fingerprint="fp-1")
    store.enqueue(answer("能打折吗？", "这件事资料里没写，我不能替你们编，请转人工。", (), refused=True),
                  origin="refusal", fingerprint="fp-1")
    return store


@pytest.fixture
def page(store, open_app):
    """`page(reviewer="王老师")` → the review page, with that name typed into the reviewer box."""

    def open_(reviewer: str = "") -> AppTest:
        at = open_app(page=PAGE)
        assert not at.exception
        if reviewer:
            at.text_input(key="reviewer_name").set_value(reviewer).run()
        return at

    return open_


def table(at: AppTest):
    """The queue table: its key changes with the rows it shows (ui/review_triage.py)."""
    return at.dataframe(key=at.session_state["review_table_key"])


def select(at: AppTest, *rows: int) -> AppTest:
    at.session_state[at.session_state["review_table_key"]] = {"selection": {"rows": list(rows), "columns": []}}
    at.run()
    assert not at.exception
    return at


def frame_with(at: AppTest, column: str):
    """The first table that has `column` (only the queue table has a key AppTest can see)."""
    return next(d.value for d in at.dataframe if column in d.value.columns)


def markdown(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_review_page_shows_counts_and_pending_items(page):
    at = page()
    line = at.caption[0].value
    assert "待复核 3 个不同问题 · 已通过 0 · 已驳回 0 · 合计 3" in line
    assert "引用问题 1" in line and "拒答 1" in line
    assert list(table(at).value["编号"]) == [3, 2, 1]


@pytest.mark.parametrize(("widget", "value", "ids"), [
    ("f_lane", "引用问题", [1]),
    ("f_lane", "拒答", [3]),
    ("f_search", "口语课", [2]),
    ("f_status", "已通过", []),
])
def test_review_page_filters(page, widget, value, ids):
    at = page()
    control = at.selectbox(key=widget) if widget != "f_search" else at.text_input(key=widget)
    control.set_value(value).run()
    assert not at.exception
    assert list(table(at).value["编号"]) == ids


def test_review_page_detail_marks_the_span_escapes_and_links_sources(page):
    at = select(page(), 2)
    shown = markdown(at)
    assert ":red-background[" in shown and "\\[7\\]" in shown
    assert "(sources?source=02-%E9%80%80" in shown and "&chunk=4&cite=" in shown
    assert "<script>" not in shown
    assert any("<script>alert(1)</script>" in t.value for t in at.text)  # st.text shows it literally
    assert len(at.dataframe) == 1  # only the list: the detail's tables are drawn once their expander is open
    item = int(at.subheader[0].value.split(" · ")[0].lstrip("#"))
    for part in ("candidates", "asks", "events"):
        at.session_state[f"history_{part}_{item}"] = True
    at.run()
    candidates = frame_with(at, "结果")
    assert list(candidates["结果"]) == ["命中", "低于阈值"]
    assert candidates["原文"][0].startswith("sources?source=")
    assert list(frame_with(at, "操作")["操作"]) == ["入队"]


def test_review_page_needs_a_reviewer_before_deciding(page):
    at = select(page(), 0)
    assert at.button(key="approve_3").disabled
    assert "请先在左上方填写复核人姓名。" in [c.value for c in at.caption]


def test_review_page_approve_with_correction(page, store):
    at = select(page("王老师"), 1)
    at.text_area(key="corrected_2").set_value("口语课一共四级 [1]")
    at.button(key="approve_2").click().run()
    assert not at.exception and store.get(2).status == "pending"  # the check flags 四: nothing saved yet
    assert any("仍然通过" in w.value and "四" in w.value for w in at.warning)
    assert any("数字 4" in w.value for w in at.warning)  # listed in the correction box, which stays open
    at.button(key="confirm_2").click().run()
    assert not at.exception
    item = store.get(2)
    assert (item.status, item.reviewer, item.corrected_answer) == ("approved", "王老师", "口语课一共四级 [1]")
    assert "#2 已通过" in at.success[0].value
    assert list(table(at).value["编号"]) == [3, 1]
    # #2 left the 待复核 list, so the pane shows the list's first pending item, not whatever slid into row 1
    assert [s.value.split(" · ")[:2] for s in at.subheader] == [["#3", "待复核"]]


def test_review_page_reopen_a_decided_item(page, store):
    store.decide(2, action="reject", reviewer="王老师", expected_version=1, note="数字编造")
    at = page("李老师")
    at.selectbox(key="f_status").set_value("已驳回").run()
    select(at, 0)
    at.button(key="reopen_2").click().run()
    assert not at.exception
    assert store.get(2).status == "pending"
    assert [e.action for e in store.events(2)] == ["enqueue", "reject", "reopen"]


def test_review_page_reject_without_a_note_is_refused(page, store):
    at = select(page("王老师"), 2)
    at.button(key="reject_1").click().run()
    assert not at.exception
    assert "驳回必须写明理由" in at.error[0].value
    assert store.get(1).status == "pending"


def test_review_page_conflict_names_who_decided_first(page, store):
    at = select(page("李老师"), 2)
    store.decide(1, action="reject", reviewer="王老师", expected_version=1, note="数字编造")
    at.text_area(key="note_1").set_value("没问题")
    at.button(key="approve_1").click().run()
    assert not at.exception
    assert "该条目已被 王老师 处理" in at.error[0].value
    assert (store.get(1).status, store.get(1).note) == ("rejected", "数字编造")


def test_review_page_bulk_reject_skips_the_changed_item(page, store):
    at = select(page("李老师"), 0, 1, 2)
    store.decide(2, action="approve", reviewer="王老师", expected_version=1)
    at.text_input(key="bulk_note").set_value("资料不足，统一转人工")
    at.button(key="bulk_reject").click().run()
    assert not at.exception
    assert "已批量驳回 2 条" in at.warning[0].value and "#2" in at.warning[0].value
    assert [store.get(i).status for i in (1, 2, 3)] == ["rejected", "approved", "rejected"]


def test_review_page_offers_the_csv_download(page):
    at = page()
    assert at.get("download_button")


def test_review_page_shows_a_store_error_instead_of_a_traceback(page, monkeypatch):
    monkeypatch.setenv("XIAOE_DATABASE_URL", "sqlite:////proc/xiaoe-no-such-dir/queue.sqlite3")
    at = page()
    assert "无法创建数据文件夹" in at.error[-1].value


def test_review_page_uses_the_signed_in_name(store, monkeypatch):
    monkeypatch.setenv("XIAOE_AUTH", "on")
    add_staff(AccountStore(open_database(Settings.from_env().db_url), hasher=FAST_HASHER))
    at = AppTest.from_file(ROUTER, default_timeout=30).run()
    at.text_input(key="login_username").set_value("amy")
    at.text_input(key="login_password").set_value(PASSWORD)
    at.button(key="login_submit").click().run()
    at.switch_page(PAGE).run()
    assert not at.exception
    assert not [w for w in at.text_input if w.key == "reviewer_name"]  # no name box once signed in
    select(at, 1)
    at.button(key="approve_2").click().run()
    assert store.get(2).reviewer == "顾问 Amy（amy）"


def test_review_view_date_range_covers_whole_local_days():
    filters = build_filters("待复核", "引用问题", (date(2025, 3, 1), date(2025, 3, 2)), " 退费 ")
    assert (filters.status, filters.lane, filters.search) == ("pending", "citation", "退费")
    assert filters.since.replace(tzinfo=None) == datetime(2025, 3, 1)
    assert filters.until - filters.since == timedelta(days=2)  # the end day is included


def test_review_view_all_means_no_filter():
    assert build_filters(ALL, ALL, (), "") == Filters()


def test_review_page_refuses_to_show_the_queue_without_sign_in(store, monkeypatch):
    monkeypatch.setenv("XIAOE_AUTH", "on")
    at = AppTest.from_file(str(Path(ROUTER).parent / PAGE), default_timeout=30).run()  # bypassing the router
    assert not at.exception
    assert "请先登录" in at.error[0].value
    assert not at.dataframe


def test_review_page_item_link_opens_that_item(store, open_app):
    at = open_app(page=PAGE, params={"item": "2"})
    assert not at.exception
    assert any(s.value.startswith("#2 · 待复核") for s in at.subheader)


def test_review_page_item_link_that_is_not_a_number_is_ignored(store, open_app):
    at = open_app(page=PAGE, params={"item": "abc"})
    assert not at.exception
    assert any("不是数字" in w.value for w in at.warning)


def test_review_page_detail_shows_sentence_verdicts(store, open_app):
    at = open_app(page=PAGE, params={"item": "2"})
    assert not at.exception
    verdicts = next(t.value for t in at.table if "核对" in t.value.columns)
    assert "6" in list(verdicts["核对"])[0]


def test_review_page_shows_the_verdicts_stored_with_the_item_not_a_check_run_again(store, open_app, monkeypatch):
    """A check that changed after the item was queued does not change what the reviewer sees for it."""
    import core.checks.grounding as grounding

    def changed(*_args, **_kwargs):
        raise AssertionError("the Review page must not run the grounding check again")

    monkeypatch.setattr(grounding, "check_grounding", changed)
    at = open_app(page=PAGE, params={"item": "2"})
    assert not at.exception
    verdicts = next(t.value for t in at.table if "核对" in t.value.columns)
    assert list(verdicts["核对"])[0] == "“六级”中的数字 6 在所引资料 \\[1\\] 中找不到"


def test_review_page_history_shows_a_repeat_asked_after_a_document_edit(store, open_app):
    from tests.outcomes import outcome_of

    refusal = answer("能打折吗？", "这件事资料里没写，我不能替你们编，请转人工。", (), refused=True)
    first = store.record(outcome_of(refusal, "fp-1"), asker="Amy")
    assert store.record(outcome_of(refusal, "fp-2"), asker="Bob") == first  # the documents changed in between
    at = open_app(page=PAGE)
    at.session_state["review_item"] = first
    at.session_state[f"history_events_{first}"] = True
    at.run()
    assert not at.exception
    events = frame_with(at, "操作")
    assert "资料更新后又被问到" in list(events["操作"])
    assert events["备注"].str.contains("资料指纹 fp-1 → fp-2").any()
