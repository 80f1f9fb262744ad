"""「加入评测集」 on the review page: one decided item, or every item of the current filter, becomes labelled questions
(core.evaluation.from_reviews) that the reviewer can edit before they are saved as a new version of a set.

Saving a set version is for admins (`edit_question_sets`, checked again inside the save's transaction); others see the
drafts and a line saying who may save. Question texts, notes and corpus names are shown as data or escaped.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.errors import XiaoEError
from core.evaluation.from_reviews import AddResult, Draft, add_items, add_to_set, draft_of, drafts
from core.sets.format import REFUSE, LabelledQuestion
from core.stores.question_sets import corpus_catalog
from core.stores.review import Filters, ReviewItem, ReviewStore
from ui.auth import authorize, current_user
from ui.escape import md_escape
from ui.state import get_index, get_question_sets

DEFAULT_TARGET = "复核题集"
MAX_BULK = 2000
FLASH = "_review_to_set_flash"


def _catalog() -> tuple[frozenset[str] | None, dict | None]:
    bundle, _error = get_index()
    if bundle is None:
        return None, None
    return corpus_catalog(bundle.index)


def _allowed() -> bool:
    user = current_user()
    return user is not None and user.can("edit_question_sets")


def _actor() -> str:
    user = current_user()
    return user.label if user is not None else str(st.session_state.get("reviewer", ""))


def _report(result: AddResult, target: str) -> None:
    if result.version is None:
        st.session_state[FLASH] = ("warning", f"没有新题加入「{target}」：{len(result.duplicates)} 道已在题集里，"
                                              f"{len(result.skipped)} 条不能加入。")
        return
    st.session_state[FLASH] = ("success", f"已加入「{target}」第 {result.version.version} 版：新增 {len(result.added)} 题"
                                          f"（已在题集里的 {len(result.duplicates)} 道、不能加入的 {len(result.skipped)} 条没有加入）。"
                                          "调优页和 python -m core eval 都可以用这个版本。")


def show_flash() -> None:
    if FLASH in st.session_state:
        kind, text = st.session_state.pop(FLASH)
        (st.success if kind == "success" else st.warning)(md_escape(text))


def render_item(item: ReviewItem) -> None:
    """One decided item: its draft, editable, and 「加入评测集」."""
    draft = draft_of(item)
    show_flash()
    with st.expander("加入评测集"):
        if draft.question is None:
            st.caption(md_escape(draft.note))
            return
        q = draft.question
        st.caption(md_escape(f"{draft.kind}：{draft.note}。来源：复核条目 #{item.id}，{q.reviewer}，{q.reviewed_at}"))
        files, sections = _catalog()
        options = [REFUSE, *sorted(files or ())]
        expected = st.selectbox("预期资料", options, index=options.index(q.expected or REFUSE)
                                if (q.expected or REFUSE) in options else 0, key=f"to_set_expected_{item.id}")
        section = st.text_input("小节", value=q.section, key=f"to_set_section_{item.id}")
        phrase = st.text_input("关键短语（取自通过的回答，可修改）", value=q.key_phrase, key=f"to_set_phrase_{item.id}")
        target = st.text_input("加入哪个题集", value=DEFAULT_TARGET, key=f"to_set_target_{item.id}", max_chars=100)
        allowed = _allowed()
        if not allowed:
            st.caption("只有管理员可以保存题集的新版本。")
        if st.button("加入评测集", key=f"to_set_{item.id}", disabled=not allowed):
            edited = LabelledQuestion(q.question, "" if expected == REFUSE else expected,
                                      "" if expected == REFUSE else section.strip(),
                                      "" if expected == REFUSE else phrase.strip(), 0, q.item_id, q.reviewer,
                                      q.reviewed_at)
            try:
                result = add_to_set(get_question_sets(), target, [edited], author=_actor(), known_files=files,
                                    known_sections=sections, authorize=authorize())
            except XiaoEError as error:
                st.error(md_escape(str(error)))
                return
            _report(result, target)
            st.rerun()


def render_bulk(store: ReviewStore, filters: Filters) -> None:
    """Every item of the filter: the drafts in an editable table, then 「全部加入评测集」."""
    show_flash()
    with st.expander("把当前筛选的已复核条目加入评测集"):
        if not st.toggle("列出当前筛选的条目会变成哪些题", key="to_set_bulk_open"):
            return
        items = []
        for item in store.iter_items(filters, with_candidates=True):
            items.append(item)
            if len(items) >= MAX_BULK:
                st.caption(f"只取前 {MAX_BULK} 条；请缩小筛选范围后分几次加入。")
                break
        made = drafts(items)
        usable = [d for d in made if d.question is not None]
        skipped = [d for d in made if d.question is None]
        st.caption(f"当前筛选共 {len(items)} 条：可加入 {len(usable)} 条，不能加入 {len(skipped)} 条（原因见下方）。")
        if not usable:
            _skipped_table(skipped)
            return
        edited = st.data_editor(_frame(usable), key="to_set_bulk_editor", hide_index=True, width="stretch",
                                disabled=["条目", "问题", "类型", "说明"])
        _skipped_table(skipped)
        target = st.text_input("加入哪个题集", value=DEFAULT_TARGET, key="to_set_bulk_target", max_chars=100)
        allowed = _allowed()
        if not allowed:
            st.caption("只有管理员可以保存题集的新版本。")
        if st.button(f"全部加入评测集（{len(usable)} 条）", key="to_set_bulk", disabled=not allowed):
            files, sections = _catalog()
            edits = {int(row["条目"]): _edited(row) for row in edited.to_dict("records")}
            try:
                result = add_items(get_question_sets(), target, items, author=_actor(), edits=edits,
                                   known_files=files, known_sections=sections, authorize=authorize())
            except XiaoEError as error:
                st.error(md_escape(str(error)))
                return
            _report(result, target)
            st.rerun()


def _frame(usable: list[Draft]) -> pd.DataFrame:
    return pd.DataFrame([{"条目": d.item_id, "问题": d.question.question, "类型": d.kind,
                          "预期": d.question.expected or REFUSE, "小节": d.question.section,
                          "关键短语": d.question.key_phrase, "说明": d.note} for d in usable])


def _edited(row: dict) -> LabelledQuestion:
    expected = str(row.get("预期") or "").strip()
    refuse = expected in ("", REFUSE)
    return LabelledQuestion(str(row["问题"]), "" if refuse else expected,
                            "" if refuse else str(row.get("小节") or "").strip(),
                            "" if refuse else str(row.get("关键短语") or "").strip())


def _skipped_table(skipped: list[Draft]) -> None:
    if skipped:
        st.dataframe(pd.DataFrame([{"条目": d.item_id, "不能加入的原因": d.note} for d in skipped]),
                     hide_index=True, width="stretch", key="to_set_skipped")
