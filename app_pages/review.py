"""复核队列: counts, filters, the queue table, one item's detail with 通过/驳回, bulk decisions, CSV download.

Decisions run in button callbacks with the version that was on screen, so a change made by
someone else in between is refused by the store (ConflictError) instead of being overwritten.
"""

from __future__ import annotations

import streamlit as st

from core.errors import XiaoEError
from core.grounding import check_grounding
from core.review import ReviewItem, ReviewStore
from core.review_schema import LANES, MAX_CORRECTED_CHARS, MAX_NAME_CHARS, MAX_NOTE_CHARS
from core.roles import require
from ui.answer_view import verdict_frame
from ui.auth import current_user, signed_in_name
from ui.review_view import (
    SORT_LABELS,
    build_filters,
    candidate_frame,
    csv_bytes,
    event_frame,
    lane_options,
    marked_answer,
    queue_frame,
    reason_lines,
    status_options,
    when,
)
from ui.state import get_review_store

PAGE_SIZE = 50
FLASH = "review_flash"  # (kind, message) shown once, after the rerun a decision causes
# The table keeps its row selection after a decision although the rows under it have moved;
# the selection seen at decision time is ignored until the reviewer changes it.
STALE = "review_stale_selection"
DONE = {"approve": "通过", "reject": "驳回", "reopen": "重新打开"}


def remember_reviewer() -> None:
    st.session_state["reviewer"] = " ".join(st.session_state["reviewer_name"].split())


def to_first_page() -> None:
    st.session_state["f_page"] = 1


def selected_rows() -> tuple[int, ...]:
    state = st.session_state.get("queue_table") or {}
    return tuple(state.get("selection", {}).get("rows", ()))


def decide(store: ReviewStore, item: ReviewItem, action: str) -> None:
    """Button callback: `item` is the version the reviewer was looking at."""
    corrected = st.session_state.get(f"corrected_{item.id}", "")
    changed = corrected.strip() != (item.corrected_answer or "")
    try:
        require(current_user(), "review")
        saved = store.decide(item.id, action=action, reviewer=st.session_state.get("reviewer", ""),
                             expected_version=item.version, note=st.session_state.get(f"note_{item.id}"),
                             corrected_answer=corrected if changed else None)
    except XiaoEError as error:
        st.session_state[FLASH] = ("error", str(error))
        return
    st.session_state[FLASH] = ("success", f"#{saved.id} 已{DONE[action]}，现为「{saved.status_label}」（第 {saved.version} 版）。")
    st.session_state[STALE] = selected_rows()


def decide_many(store: ReviewStore, versions: dict[int, int], action: str) -> None:
    try:
        require(current_user(), "review")
        result = store.bulk_decide(versions, action=action, reviewer=st.session_state.get("reviewer", ""),
                                   note=st.session_state.get("bulk_note"))
    except XiaoEError as error:
        st.session_state[FLASH] = ("error", str(error))
        return
    message = f"已批量{DONE[action]} {len(result.decided)} 条。"
    if result.skipped:
        message += f"跳过 {len(result.skipped)} 条：" + "；".join(f"#{i} {why}" for i, why in result.skipped)
    st.session_state[FLASH] = ("warning" if result.skipped else "success", message)
    st.session_state[STALE] = selected_rows()


def linked_item_id() -> int | None:
    """The item named by `?item=<id>` (a link a colleague pasted), or None when absent or not a number."""
    raw = st.query_params.get("item", "")
    if not raw.strip().isdigit():
        if raw:
            st.warning("链接里的条目编号不是数字，已忽略。")
        return None
    return int(raw)


def show_counts(store: ReviewStore) -> None:
    counts = store.counts()
    cols = st.columns(4)
    cols[0].metric("待复核", counts.status("pending"))
    cols[1].metric("已通过", counts.status("approved"))
    cols[2].metric("已驳回", counts.status("rejected"))
    cols[3].metric("合计", counts.total)
    lanes = [lane for lane in LANES.values() if counts.lane(lane.code)]
    if lanes:
        cols = st.columns(len(lanes))
        for col, lane in zip(cols, lanes):
            col.metric(lane.label, counts.lane(lane.code, "pending"),
                       help=f"「{lane.label}」共 {counts.lane(lane.code)} 条，数字是其中待复核的条数")


def show_detail(store: ReviewStore, item: ReviewItem) -> None:
    st.subheader(f"#{item.id} · {item.status_label} · {' · '.join(item.lane_labels)}")
    facts = [f"创建于 {when(item.created_at)}", f"第 {item.version} 版"]
    if item.threshold is not None:
        facts.append(f"阈值 {item.threshold:.2f} · k={item.k}")
    if item.flagged_by:
        facts.append(f"标记人 {item.flagged_by}")
    if item.reviewer:
        facts.append(f"最近处理：{item.reviewer}（{when(item.decided_at)}）")
    st.caption(" · ".join(facts) + (f" · 资料指纹 {item.fingerprint}" if item.fingerprint else ""))
    st.markdown("**学员问题**")
    st.text(item.question)
    st.markdown("**小E 的回答**（标红处是检查发现问题的位置，[n] 可点开原文）")
    if item.answer:
        st.markdown(marked_answer(item))
    else:
        st.info("模型调用失败，没有生成回答。")
    if item.answer:
        frame = verdict_frame(item.answer, check_grounding(item.answer, [h.document for h in item.candidates if h.passed],
                                                          item.question))
        if not frame.empty:
            st.markdown("**逐句核对**（✓ 表示这句的数字和出处都对得上）")
            st.table(frame)
    st.markdown("**问题原因**")
    st.markdown(reason_lines(item) or "（无）")
    st.markdown("**候选片段**（分数 ≥ 阈值才会交给模型）")
    if item.candidates:
        st.dataframe(candidate_frame(item), hide_index=True, column_config={
            "分数": st.column_config.NumberColumn(format="%.3f"),
            "阈值": st.column_config.NumberColumn(format="%.2f"),
            "原文": st.column_config.LinkColumn(display_text="打开原文")})
    else:
        st.caption("没有候选片段。")
    show_decision_form(store, item)
    st.markdown("**处理记录**")
    st.dataframe(event_frame(store.events(item.id)), hide_index=True)


def show_decision_form(store: ReviewStore, item: ReviewItem) -> None:
    reviewer = st.session_state.get("reviewer", "")
    with st.form(f"decide_form_{item.id}"):
        st.text_area("备注（驳回时必填）", key=f"note_{item.id}", max_chars=MAX_NOTE_CHARS,
                     placeholder="说明这条回答哪里有问题，或为什么可以通过")
        st.text_area("修改后的回答（可选）", value=item.corrected_answer or "", key=f"corrected_{item.id}",
                     max_chars=MAX_CORRECTED_CHARS, height=120)
        cols = st.columns(3)
        if item.status == "pending":
            cols[0].form_submit_button("通过", key=f"approve_{item.id}", type="primary", disabled=not reviewer,
                                       on_click=decide, args=(store, item, "approve"))
            cols[1].form_submit_button("驳回", key=f"reject_{item.id}", disabled=not reviewer,
                                       on_click=decide, args=(store, item, "reject"))
        else:
            cols[0].form_submit_button("重新打开", key=f"reopen_{item.id}", disabled=not reviewer,
                                       on_click=decide, args=(store, item, "reopen"))
        if not reviewer:
            st.caption("请先在页面上方填写复核人姓名。")


def show_bulk(store: ReviewStore, items: list[ReviewItem]) -> None:
    st.subheader(f"批量处理选中的 {len(items)} 条")
    st.caption("只处理仍在「待复核」且没有被别人改过的条目；其余会被跳过并列出原因。")
    reviewer = st.session_state.get("reviewer", "")
    versions = {item.id: item.version for item in items}
    with st.form("bulk_form"):
        st.text_input("备注（批量驳回时必填）", key="bulk_note", max_chars=MAX_NOTE_CHARS)
        cols = st.columns(3)
        cols[0].form_submit_button("批量通过", key="bulk_approve", type="primary", disabled=not reviewer,
                                   on_click=decide_many, args=(store, versions, "approve"))
        cols[1].form_submit_button("批量驳回", key="bulk_reject", disabled=not reviewer,
                                   on_click=decide_many, args=(store, versions, "reject"))
        if not reviewer:
            st.caption("请先在页面上方填写复核人姓名。")


st.title("复核队列")
st.caption("检查没通过、被拒答或模型出错的回答都在这里，等顾问确认后才能作为正式答复。")

try:  # the router's gate normally stops earlier; this also covers a page opened outside it
    require(current_user(), "review")
except XiaoEError as error:
    st.error(str(error))
    st.stop()

if FLASH in st.session_state:
    kind, message = st.session_state.pop(FLASH)
    getattr(st, kind)(message)

signed_in = signed_in_name()
if signed_in:  # the router's gate has put the signed-in name into st.session_state["reviewer"]
    st.caption(f"复核人：{signed_in}（已登录，处理记录里会显示这个名字）")
else:
    if "reviewer_name" not in st.session_state:
        st.session_state["reviewer_name"] = st.session_state.get("reviewer", "")
    st.text_input("复核人", key="reviewer_name", max_chars=MAX_NAME_CHARS,
                  placeholder="填写你的姓名，处理记录里会显示")
    remember_reviewer()

try:
    store = get_review_store()
    show_counts(store)

    cols = st.columns([1, 1, 1.4, 2, 1])
    status = cols[0].selectbox("状态", status_options(), index=1, key="f_status", on_change=to_first_page)
    lane = cols[1].selectbox("通道", lane_options(), key="f_lane", on_change=to_first_page)
    dates = cols[2].date_input("创建日期", value=(), key="f_dates", on_change=to_first_page)
    search = cols[3].text_input("搜索问题或回答", key="f_search", on_change=to_first_page)
    sort = cols[4].selectbox("排序", list(SORT_LABELS), format_func=SORT_LABELS.get, key="f_sort")
    filters = build_filters(status, lane, dates, search)

    page_no = max(int(st.session_state.get("f_page", 1)), 1)
    page = store.list(filters, sort=sort, offset=(page_no - 1) * PAGE_SIZE, limit=PAGE_SIZE)
    pages = max(1, -(-page.total // PAGE_SIZE))
    selection = st.dataframe(queue_frame(page.items), key="queue_table", on_select="rerun",
                             selection_mode="multi-row", hide_index=True)
    cols = st.columns([1, 2, 2])
    cols[0].number_input("页码", min_value=1, step=1, key="f_page")
    cols[1].caption(f"共 {page.total} 条符合条件 · 第 {page_no} / {pages} 页 · 每页 {PAGE_SIZE} 条")
    user = current_user()
    if user is not None and user.can("export"):
        cols[2].download_button("下载 CSV（当前筛选的全部条目）", data=lambda: csv_bytes(store, filters),
                                file_name="复核队列.csv", mime="text/csv", key="download_csv", on_click="ignore")

    rows = tuple(selection.selection.rows)
    if rows and rows == st.session_state.get(STALE):
        rows = ()
    else:
        st.session_state.pop(STALE, None)
    chosen = [page.items[row] for row in rows if row < len(page.items)]
    if len(chosen) == 1:
        show_detail(store, store.get(chosen[0].id))
    elif chosen:
        show_bulk(store, chosen)
    elif (linked := linked_item_id()) is not None:
        show_detail(store, store.get(linked))
    else:
        st.caption("在表格里勾选一条查看详情并处理；勾选多条可以批量通过或驳回。"
                   "也可以直接打开某一条的链接：复核队列地址后加 `?item=编号`。")
except XiaoEError as error:
    st.error(str(error))
