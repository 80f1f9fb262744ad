"""Triage state of the Review Queue page: which item is open (by id), which are ticked, and the decision callbacks.

The open item is kept as an id in session state, never as a row position, so it survives
decisions, filters and page changes. The table's ticks are cleared whenever the rows it shows change,
so a tick can never slide onto a row that moved into its place. Messages are kept per
place (`FLASH`) and drawn next to the buttons that caused them.
"""

from __future__ import annotations

import streamlit as st

from core.errors import NeedsConfirmation, XiaoEError
from core.exchanges.release import decide_and_send
from core.stores.review import Filters, ReviewItem, ReviewStore, next_pending
from core.stores.roles import require
from ui.answer_view import md_escape
from ui.auth import authorize, current_user
from ui.review_view import review_url
from ui.state import get_settings

OPEN = "review_item"      # the id of the item shown in the detail pane
CONFIRM = "review_confirm"  # (item id, version, action, problems): a correction the checks flagged, awaiting 「仍然通过」
FLASH = "review_flash"    # (kind, message, toast) drawn once next to the decision buttons
TABLE_KEY = "review_table_key"
TABLE = "queue_table"
SHOWN = "_review_table_shown"  # (decisions made, ids listed) the ticks belong to
DONE = {"approve": "通过", "reject": "驳回", "reopen": "重新打开", "handoff": "转人工"}


def table_key(ids: tuple[int, ...]) -> str:
    """The list's one widget key. Its ticks are cleared whenever the rows shown (or the decisions made) change, so an
    old tick never lands on a row that moved into its place. The key itself stays: a new key re-mounts the grid in the
    browser, and the list then arrived 0.6-2.5 s after the detail pane on every decision."""
    shown = (st.session_state.get("_review_generation", 0), ids)
    if st.session_state.get(SHOWN) != shown:
        st.session_state[SHOWN] = shown
        st.session_state[TABLE] = {"selection": {"rows": [], "columns": []}}
    st.session_state[TABLE_KEY] = TABLE
    return TABLE


def _next_generation() -> None:
    st.session_state["_review_generation"] = st.session_state.get("_review_generation", 0) + 1


def flash(kind: str, message: str, toast: str = "") -> None:
    """`message` (Markdown, escaped by the caller) drawn next to the buttons; `toast` (plain text) pops up too."""
    st.session_state[FLASH] = (kind, message, toast)


def show_flash() -> None:
    if FLASH in st.session_state:
        kind, message, toast = st.session_state.pop(FLASH)
        getattr(st, kind)(message)
        if toast:
            st.toast(md_escape(toast), icon=":material/check_circle:")


def decide(store: ReviewStore, item: ReviewItem, action: str, view: Filters, sort: str = "-created", *,
           advance: bool = False, confirmed: bool = False) -> None:
    """Button callback: decide `item` at the version on screen, only while it is still in `view` (the filtered
    list shown); with `advance`, open the next pending item of that list.
    A correction the checks flag is not saved: the problems are shown with 「仍然通过」 (`confirmed`)."""
    corrected = st.session_state.get(f"corrected_{item.id}", "")
    changed = corrected.strip() != (item.corrected_answer or "")
    st.session_state.pop(CONFIRM, None)
    try:
        require(current_user(), "review")
        order = store.pending_ids(view, sort=sort) if advance else ()
        # Through core.exchanges.release: an item students wait on also sends them what the decision releases.
        saved = decide_and_send(store, get_settings(), item.id, action=action,
                                reviewer=st.session_state.get("reviewer", ""), expected_version=item.version,
                                note=st.session_state.get(f"note_{item.id}"),
                                corrected=corrected if changed else None, reply=st.session_state.get(f"reply_{item.id}"),
                                authorize=authorize(), confirmed=confirmed, view=view)
    except NeedsConfirmation as error:
        st.session_state[CONFIRM] = (item.id, item.version, action,
                                     tuple(getattr(p, "message", str(p)) for p in error.problems))
        flash("warning", md_escape(str(error)))
        return
    except XiaoEError as error:
        flash("error", md_escape(str(error)))
        return
    done = f"#{saved.id} 已{DONE[action]}，现为「{saved.status_label}」（第 {saved.version} 版）"
    message = done
    if advance:
        following = next_pending(order, item.id)
        st.session_state[OPEN] = following
        message += f"：已打开下一条 #{following}" if following else "：本筛选已经没有待复核的条目"
    flash("success", f"{message}。[查看 #{saved.id}]({review_url(saved.id)})", toast=done)  # our words and numbers only
    _next_generation()


def decide_many(store: ReviewStore, versions: dict[int, int], action: str, view: Filters) -> None:
    """Bulk callback: exactly the ids that were ticked on screen, each at the version shown, still in `view`."""
    held = [item_id for item_id in versions if store.get(item_id).origin == "held"]
    if held:
        flash("error", "勾选里有「待发送」的条目（" + "、".join(f"#{i}" for i in held) + "）：学员在等，请逐条打开、"
              "看过草稿后再发送，它们不能批量处理。")
        return
    try:
        require(current_user(), "review")
        result = store.bulk_decide(versions, action=action, reviewer=st.session_state.get("reviewer", ""),
                                   note=st.session_state.get("bulk_note"), authorize=authorize(), view=view)
    except XiaoEError as error:
        flash("error", md_escape(str(error)))
        return
    decided = "、".join(f"#{i}" for i in result.decided) or "无"
    message = f"已批量{DONE[action]} {len(result.decided)} 条：{decided}。"
    if result.skipped:
        message += f"跳过 {len(result.skipped)} 条：" + "；".join(f"#{i} {md_escape(why)}" for i, why in result.skipped)
    flash("warning" if result.skipped else "success", message,
          toast="" if result.skipped else f"已批量{DONE[action]} {len(result.decided)} 条")
    _next_generation()


def awaiting(item: ReviewItem) -> str | None:
    """The action waiting for 「仍然通过」 on this item at the version shown, if any."""
    pending = st.session_state.get(CONFIRM)
    return pending[2] if pending and pending[:2] == (item.id, item.version) else None


def blocked_problems(item: ReviewItem) -> tuple[str, ...]:
    """The checks' problems with the correction waiting for 「仍然通过」 on this item (empty when none waits)."""
    pending = st.session_state.get(CONFIRM)
    return pending[3] if pending and pending[:2] == (item.id, item.version) else ()


def open_item(item_id: int | None) -> None:
    st.session_state[OPEN] = item_id


def shown_item(listed: list[ReviewItem]) -> ReviewItem | None:
    """The item for the detail pane: the open one while it is in the list on screen, else the list's first
    pending item (None when the list has none). What the pane shows is always a row of the list, so a
    decision can only land on an item the reviewer can see in it."""
    opened = st.session_state.get(OPEN)
    match = next((item for item in listed if item.id == opened), None)
    if match is None:
        match = next((item for item in listed if item.status == "pending"), None)
        open_item(match.id if match else None)
    return match
