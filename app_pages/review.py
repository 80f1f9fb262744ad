"""复核队列: the list and the open item side by side; 通过并下一条 / 驳回并下一条; bulk decisions on ticked ids.

Decisions run in button callbacks with the version that was on screen, so a change made by
someone else in between is refused by the store (ConflictError) instead of being overwritten.
The open item is an id (ui/review_triage.py), never a row position.
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from core.errors import XiaoEError
from ui import review_triage as triage
from ui.answer_view import md_escape, verdict_frame
from ui.auth import current_user, require_page, signed_in_name
from ui.gap_fix import item_actions
from ui.held_view import show_students
from ui.review_detail import show_history
from ui.review_to_set import render_bulk as add_filtered_to_set
from ui.review_to_set import render_item as add_item_to_set
from ui.review_view import (
    ALL,
    LANES,
    MAX_CORRECTED_CHARS,
    MAX_NAME_CHARS,
    MAX_NOTE_CHARS,
    QUEUE_WIDTHS,
    SORT_LABELS,
    Filters,
    ReviewItem,
    ReviewStore,
    answer_preview,
    build_filters,
    corrected_view,
    csv_bytes,
    lane_options,
    marked_answer,
    preview_note,
    queue_frame,
    reason_lines,
    status_options,
    when,
    xlsx_bytes,
)
from ui.state import get_review_store

PAGE_SIZE = 50
LINKED = "review_linked_only"  # the id a pasted ?item= link narrowed the list to
NOTHING_PENDING = "本筛选下没有待复核的条目"
TABLE_HEIGHT = 360  # rows visible beside the detail pane at 1366×768 without scrolling the page


def remember_reviewer() -> None:
    st.session_state["reviewer"] = " ".join(st.session_state["reviewer_name"].split())


def to_first_page() -> None:
    st.session_state["f_page"] = 1


def linked_item_id() -> int | None:
    """The item named by `?item=<id>` (a link a colleague pasted), or None when absent or not a number."""
    raw = st.query_params.get("item", "")
    if not raw.strip().isdigit():
        if raw:
            st.warning("链接里的条目编号不是数字，已忽略。")
        return None
    return int(raw)


def counts_line(store: ReviewStore) -> str:
    """One line instead of a row of metrics: the detail pane needs the height."""
    counts = store.counts()
    lanes = "，".join(f"{lane.label} {counts.lane(lane.code, 'pending')}" for lane in LANES.values()
                     if counts.lane(lane.code, "pending"))
    line = (f"待复核 {counts.status('pending')} 个不同问题 · 已通过 {counts.status('approved')} · "
            f"已驳回 {counts.status('rejected')} · 合计 {counts.total}")
    return line + (f"（待复核按通道：{lanes}）" if lanes else "")


def reviewer_box(container) -> str:
    signed_in = signed_in_name()
    if signed_in:  # the router's gate has put the signed-in name into st.session_state["reviewer"]
        container.caption(f"复核人：{md_escape(signed_in)}（已登录）")
    else:
        if "reviewer_name" not in st.session_state:
            st.session_state["reviewer_name"] = st.session_state.get("reviewer", "")
        container.text_input("复核人", key="reviewer_name", max_chars=MAX_NAME_CHARS, placeholder="你的姓名")
        remember_reviewer()
    return st.session_state.get("reviewer", "")


def show_detail(store: ReviewStore, item: ReviewItem, view: Filters, sort: str) -> None:
    """Why it is queued first, then the question and the buttons (with their messages), then the answer:
    at 1366×768 the lane, the reason and both decision buttons are on screen without scrolling."""
    st.subheader(f"#{item.id} · {item.status_label} · {' · '.join(item.lane_labels)}")
    with st.container(border=True):
        st.markdown(f"**入队原因**（通道：{md_escape('、'.join(item.lane_labels))}）\n\n"
                    + (reason_lines(item) or "（没有记录原因）"))
    st.text(item.question)
    show_students(store, item, view, sort, triage.decide)  # who waits on it (the student service), if anyone
    show_decision_form(store, item, view, sort)
    facts = [f"创建于 {when(item.created_at)}", f"第 {item.version} 版"]
    if item.ask_count > 1:
        facts.append(f"被问 {item.ask_count} 次")
    if item.threshold is not None:
        facts.append(f"阈值 {item.threshold:.2f} · k={item.k}")
    if item.flagged_by:
        facts.append(f"标记人 {md_escape(item.flagged_by)}")
    if item.reviewer:
        facts.append(f"最近处理：{md_escape(item.reviewer)}（{when(item.decided_at)}）")
    st.caption(" · ".join(facts))
    with st.container(height=220, border=True):
        if (corrected := corrected_view(item)) is not None:  # what the decision adopted comes first
            st.caption("修改后的回答（处理这一条时采用的版本）")
            st.markdown(corrected)
            st.caption("小E 原来的回答")
        if item.answer:
            st.markdown(marked_answer(item))
            if note := preview_note(item):
                st.caption(note)
                st.download_button("下载完整回答", data=item.answer.encode("utf-8"), file_name=f"回答-{item.id}.txt",
                                   mime="text/plain", key=f"full_answer_{item.id}", on_click="ignore")
        else:
            st.caption("模型调用失败，没有生成回答。" if item.origin == "model_error" else "（没有回答正文）")
    item_actions(store, item)  # 预期拒答 / 资料没写 / 去补充资料 (ui/gap_fix.py)
    if item.status != "pending" or item.expected is not None:
        add_item_to_set(item)  # 「加入评测集」 (ui/review_to_set.py)
    if item.answer:  # the verdicts stored with the item when it was queued, never a check run again
        report = store.grounding(item.id)
        frame = verdict_frame(answer_preview(item), report)
        if not frame.empty:
            st.markdown("**逐句核对**（入队时的核对结果；✓ 表示这句的数字和出处都对得上）")
            st.table(frame)
        elif report is None:
            st.caption("这一条入队时没有保存逐句核对的结果。")
    show_history(store, item)


def show_decision_form(store: ReviewStore, item: ReviewItem, view: Filters, sort: str) -> None:
    reviewer = st.session_state.get("reviewer", "")
    with st.form(f"decide_form_{item.id}", border=False):
        st.text_area("备注（驳回时必填）", key=f"note_{item.id}", max_chars=MAX_NOTE_CHARS, height=68,
                     placeholder="说明这条回答哪里有问题，或为什么可以通过")
        cols = st.columns([1.3, 1.3, 0.8, 0.8])
        if item.status == "pending":
            cols[0].form_submit_button("通过并下一条", key=f"approve_next_{item.id}", type="primary",
                                       disabled=not reviewer, on_click=triage.decide,
                                       args=(store, item, "approve", view, sort), kwargs={"advance": True})
            cols[1].form_submit_button("驳回并下一条", key=f"reject_next_{item.id}", disabled=not reviewer,
                                       on_click=triage.decide, args=(store, item, "reject", view, sort),
                                       kwargs={"advance": True})
            cols[2].form_submit_button("通过", key=f"approve_{item.id}", disabled=not reviewer,
                                       on_click=triage.decide, args=(store, item, "approve", view, sort))
            cols[3].form_submit_button("驳回", key=f"reject_{item.id}", disabled=not reviewer,
                                       on_click=triage.decide, args=(store, item, "reject", view, sort))
        else:
            cols[0].form_submit_button("重新打开", key=f"reopen_{item.id}", disabled=not reviewer,
                                       on_click=triage.decide, args=(store, item, "reopen", view, sort))
        if not reviewer:
            st.caption("请先在左上方填写复核人姓名。")
        if (waiting := triage.awaiting(item)) is not None:
            st.form_submit_button("仍然通过（越过检查，记录在案）" if waiting == "approve" else "仍然驳回并采用修改后的回答",
                                  key=f"confirm_{item.id}", on_click=triage.decide,
                                  args=(store, item, waiting, view, sort), kwargs={"confirmed": True})
        blocked = triage.blocked_problems(item)
        # A new label is a new expander: open while the checks block the correction, with their problems in it.
        with st.expander("修改后的回答（没有通过检查，请按下面的问题修改）" if blocked else "修改后的回答（可选）",
                         expanded=bool(blocked)):
            if blocked:
                st.warning("\n".join(f"- {md_escape(problem)}" for problem in blocked))
            st.text_area("修改后的回答", value=item.corrected_answer or "", key=f"corrected_{item.id}",
                         max_chars=MAX_CORRECTED_CHARS, height=120, label_visibility="collapsed")
    triage.show_flash()  # right under the buttons that caused it


def show_bulk(store: ReviewStore, items: list[ReviewItem], view: Filters) -> None:
    ids = "、".join(f"#{item.id}" for item in items)
    st.subheader(f"批量处理勾选的 {len(items)} 条")
    st.caption(f"只处理这些条目：{ids}。已被别人改过或不在「待复核」的会被跳过并列出原因。")
    reviewer = st.session_state.get("reviewer", "")
    versions = {item.id: item.version for item in items}
    with st.form("bulk_form", border=False):
        st.text_input("备注（批量驳回时必填）", key="bulk_note", max_chars=MAX_NOTE_CHARS)
        cols = st.columns(3)
        cols[0].form_submit_button("批量通过", key="bulk_approve", type="primary", disabled=not reviewer,
                                   on_click=triage.decide_many, args=(store, versions, "approve", view))
        cols[1].form_submit_button("批量驳回", key="bulk_reject", disabled=not reviewer,
                                   on_click=triage.decide_many, args=(store, versions, "reject", view))
        if not reviewer:
            st.caption("请先在左上方填写复核人姓名。")
    triage.show_flash()


def show_all() -> None:
    st.session_state.pop(LINKED, None)
    to_first_page()


def show_list(store: ReviewStore, column) -> tuple[Filters, str, list[ReviewItem], list[ReviewItem]]:
    """Filters, progress, the table; returns the filters, the sort, the items listed and those ticked."""
    with column:
        cols = st.columns(3)
        status = cols[0].selectbox("状态", status_options(), index=1, key="f_status", on_change=to_first_page)
        lane = cols[1].selectbox("通道", lane_options(), key="f_lane", on_change=to_first_page)
        reviewer_box(cols[2])
        with st.expander("更多筛选：日期、搜索、排序、下载"):
            dates = st.date_input("创建日期", value=(), key="f_dates", on_change=to_first_page, format="YYYY-MM-DD")
            search = st.text_input("搜索问题或回答", key="f_search", on_change=to_first_page)
            sort = st.selectbox("排序", list(SORT_LABELS), format_func=SORT_LABELS.get, key="f_sort")
            page_slot = st.empty()
            download_slot = st.empty()
        filters = replace(build_filters(status, lane, dates, search), item=st.session_state.get(LINKED))
        if filters.item is not None:
            st.caption(f"只显示链接里的 #{filters.item}。")
            st.button("显示全部条目", key="show_all", on_click=show_all)
        page_no = max(int(st.session_state.get("f_page", 1)), 1)
        page = store.list(filters, sort=sort, offset=(page_no - 1) * PAGE_SIZE, limit=PAGE_SIZE)
        pages = max(1, -(-page.total // PAGE_SIZE))
        left = store.list(replace(filters, status="pending"), limit=0).total
        st.markdown(f"**本筛选还剩 {left} 条待复核** · 共 {page.total} 条 · 第 {page_no} / {pages} 页")
        shown = tuple(item.id for item in page.items)
        selection = st.dataframe(queue_frame(page.items), key=triage.table_key(shown), on_select="rerun",
                                 selection_mode="multi-row", hide_index=True, height=TABLE_HEIGHT,
                                 column_config={name: st.column_config.Column(width=width)
                                                for name, width in QUEUE_WIDTHS.items()})
        page_slot.number_input("页码", min_value=1, step=1, key="f_page")
        user = current_user()
        if user is not None and user.can("export"):
            with download_slot.container():
                st.download_button("下载 CSV（当前筛选的全部条目）", data=lambda: csv_bytes(store, filters),
                                   file_name="复核队列.csv", mime="text/csv", key="download_csv", on_click="ignore")
                st.download_button("下载 Excel（.xlsx）", data=lambda: xlsx_bytes(store, filters),
                                   file_name="复核队列.xlsx", key="download_xlsx", on_click="ignore",
                                   mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
    ticked = [page.items[row] for row in selection.selection.rows if row < len(page.items)]
    return filters, sort, list(page.items), ticked


st.title("复核队列")
require_page("review")  # the router's gate normally stops earlier; this also covers a page opened outside it

try:
    store = get_review_store()
    if (linked := linked_item_id()) is not None and st.session_state.get("_review_linked") != linked:
        # The link opens it once, as a list of that one item in any status, so what the pane shows is
        # always a row of the list; 「显示全部条目」 goes back to the filters.
        st.session_state["_review_linked"] = linked
        st.session_state[LINKED] = linked
        st.session_state["f_status"] = ALL
        triage.open_item(linked)
    st.caption(counts_line(store))
    left, right = st.columns([5, 6], gap="medium")
    filters, sort, listed, ticked = show_list(store, left)
    with left:
        add_filtered_to_set(store, filters)
    with right:
        if len(ticked) > 1:
            show_bulk(store, ticked, filters)
        else:
            if ticked:
                triage.open_item(ticked[0].id)
            shown = triage.shown_item(listed)
            if shown is not None:
                show_detail(store, store.get(shown.id), filters, sort)
            else:
                triage.show_flash()
                st.info(NOTHING_PENDING)
                st.caption("在左边的表格里勾选一条查看详情并处理；勾选多条可以批量通过或驳回。"
                           "也可以直接打开某一条的链接：复核队列地址后加 ?item=编号。")
except XiaoEError as error:
    st.error(str(error))
