"""「去补充资料」 and the queue item's gap actions: 资料确实没有（预期拒答）, 资料没写, 去补充资料.

A fix request (which file and section, the questions, the reviewers' notes, which topic or item) is UI state:
it rides in st.session_state from the board or the queue to the Sources page, whose admin panel
(ui/corpus_admin.py, ui/gap_editor.py) opens the editor at that section with the questions beside it.
The review page calls `item_actions` from one place in its detail pane.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from core.errors import XiaoEError
from core.gaps.board import BoardTopic, Section, cited_section
from core.stores.review import ReviewItem, ReviewStore
from core.stores.review_schema import MAX_TOPIC_CHARS
from core.stores.roles import require
from ui.auth import authorize, current_user
from ui.escape import md_escape

FIX = "_gap_fix_request"
SOURCES_PAGE = "app_pages/sources.py"
ACTION_FLASH = "_gap_action_flash"


@dataclass(frozen=True)
class FixRequest:
    """What the editor opens at and shows beside it."""

    source: str
    heading: str
    chunk: int
    questions: tuple[str, ...]
    notes: tuple[str, ...]
    title: str  # the topic's label or the item's question
    topic_id: int | None = None
    item_id: int | None = None


def request_for_topic(topic: BoardTopic) -> FixRequest | None:
    """The topic's best near-miss section (or the section its rejected answers cited); None without one."""
    section = topic.near_miss
    if section is None:
        return None
    return FixRequest(source=section.source, heading=section.heading, chunk=section.chunk,
                      questions=tuple(q.question for q in topic.questions), notes=topic.notes, title=topic.label,
                      topic_id=topic.id)


def request_for_item(item: ReviewItem) -> FixRequest | None:
    """The section a rejected answer cited, else the item's best candidate chunk; None without candidates."""
    section = cited_section(item)
    if section is None and item.candidates:
        best = item.candidates[0]
        section = Section(best.source, best.heading, best.chunk)
    if section is None:
        return None
    notes = tuple(n for n in (item.note, item.missing.detail if item.missing else None) if n)
    return FixRequest(source=section.source, heading=section.heading, chunk=section.chunk,
                      questions=(item.question,), notes=notes, title=item.question, item_id=item.id)


def open_fix(request: FixRequest) -> None:
    """Go to the Sources page at the section; its admin panel shows the editor for this request."""
    st.session_state[FIX] = request
    st.switch_page(SOURCES_PAGE, query_params={"source": request.source, "chunk": str(request.chunk)})


def current() -> FixRequest | None:
    request = st.session_state.get(FIX)
    return request if isinstance(request, FixRequest) else None


def clear() -> None:
    st.session_state.pop(FIX, None)


# --- the queue item's actions (called once from the review page's detail pane) ---------------------

def _expect(store: ReviewStore, item: ReviewItem) -> None:
    try:
        require(current_user(), "review")
        saved = store.decide(item.id, action="expect", reviewer=st.session_state.get("reviewer", ""),
                             expected_version=item.version, topic=st.session_state.get(f"expect_topic_{item.id}"),
                             authorize=authorize())
    except XiaoEError as error:
        st.session_state[ACTION_FLASH] = ("error", md_escape(str(error)))
        return
    st.session_state[ACTION_FLASH] = ("success", f"#{saved.id} 已标为「预期拒答」：以后同样的问题再被拒答，只在这一条上计次数，"
                                                 "不再进复核队列。")


def _missing(store: ReviewStore, item: ReviewItem, on: bool) -> None:
    try:
        require(current_user(), "review")
        store.mark_missing(item.id, reviewer=st.session_state.get("reviewer", ""), on=on, authorize=authorize())
    except XiaoEError as error:
        st.session_state[ACTION_FLASH] = ("error", md_escape(str(error)))
        return
    st.session_state[ACTION_FLASH] = ("success", f"#{item.id} " + ("已标为「资料没写」，会出现在「资料缺口」页。" if on
                                                                  else "已取消「资料没写」。"))


def _topics(store: ReviewStore) -> list[str]:
    """The topics consultants already gave, most used first; none when they cannot be read (the box still takes a
    new one, and the reason is shown)."""
    try:
        return list(store.expected_topics())
    except XiaoEError as error:
        st.caption(md_escape(f"读不到已有的话题：{error}"))
        return []


def item_actions(store: ReviewStore, item: ReviewItem) -> None:
    """The gap actions of the open queue item, under its decision buttons: the topic box with 「资料确实没有（预期拒答）」
    on one row, 「资料没写」 and 「去补充资料」 on the next, so no label is cut at 1366 × 768."""
    reviewer = st.session_state.get("reviewer", "")
    user = current_user()
    if item.expected:
        topic = f"（话题：{md_escape(item.expected.detail)}）" if item.expected.detail else ""
        st.caption(f"已标为预期拒答{topic}")
    elif item.origin == "refusal" and item.status in ("pending", "approved"):
        cols = st.columns([1.15, 1], vertical_alignment="bottom")
        cols[0].selectbox("话题（可选）", _topics(store), index=None, key=f"expect_topic_{item.id}",
                          accept_new_options=True, placeholder="话题（可选，可输入新的）",
                          label_visibility="collapsed",
                          help=f"同一件事用同一个话题名，资料缺口页会把它们放在一起；新话题最多 {MAX_TOPIC_CHARS} 个字。")
        cols[1].button("资料确实没有（预期拒答）", key=f"expect_{item.id}", disabled=not reviewer,
                       on_click=_expect, args=(store, item), width="stretch",
                       help="这条拒答是对的：资料确实没写。以后同样或几乎一样的问题再被拒答，只在这一条上计次数。")
    cols = st.columns([1, 1, 1.15])
    on = item.missing is None
    cols[0].button("资料没写" if on else "取消资料没写", key=f"missing_{item.id}", disabled=not reviewer,
                   on_click=_missing, args=(store, item, on), width="stretch",
                   help="资料里没有这件事：这条会出现在「资料缺口」页。")
    if user is not None and user.can("edit_corpus"):
        request = request_for_item(item)
        if cols[1].button("去补充资料", key=f"fix_{item.id}", disabled=request is None, width="stretch",
                          help="打开资料编辑器，定位到最接近的小节（被驳回的回答：它引用的小节），可以改选文件和小节或新建小节；"
                               "问题和备注列在旁边。"):
            open_fix(request)
    if ACTION_FLASH in st.session_state:
        kind, message = st.session_state.pop(ACTION_FLASH)
        getattr(st, kind)(message)
