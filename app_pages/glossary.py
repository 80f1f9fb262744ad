"""同义词表: search, add, edit, delete, import/export CSV, who changed what; consultants propose, admins approve.

Every change goes through core.stores.glossary_admin, which checks the role; this page only hides
what the role cannot do. The 影响题数 column comes from core.evaluation.glossary_impact (the gate's own
evaluation on the default labelled set), computed for the entries shown and cached.
"""

from __future__ import annotations

from datetime import timedelta

import pandas as pd
import streamlit as st

from core.answerability.glossary import Glossary, GlossaryEntry
from core.clock import utcnow
from core.errors import XiaoEError
from core.evaluation.flips import RECENT_DAYS, ChangeImpact, glossary_change_impact
from core.evaluation.glossary_impact import glossary_impact
from ui.answer_view import md_escape
from ui.auth import authorize, guard_page
from ui.impact_view import show_impact
from ui.state import (
    GlossaryAdmin,
    get_assistant,
    get_glossary,
    get_glossary_admin,
    get_index,
    get_question_sets,
    get_review_store,
    get_settings,
)

FLASH = "glossary_flash"
DELETE = "glossary_delete"  # (term, synonym) whose deletion waits for 「确认删除」
SKIPPED_NAMED = 20  # skipped pairs named in the import message
CONFIRM = "glossary_confirm"  # the proposal id whose approval waits for 「确认批准」
SHOWN = 30  # entries per page; the impact column is computed for these only (cost: bench/glossary_impact.py)


def admin() -> GlossaryAdmin:
    return get_glossary_admin()


@st.cache_data(show_spinner="正在计算每条同义词影响的题数……", max_entries=32)
def impact_counts(glossary_fingerprint: str, fingerprint: str, knobs: tuple, pairs: tuple,
                  _glossary: Glossary, _rows: tuple, _bundle) -> dict[tuple[str, str], int]:
    entries = [GlossaryEntry(term, synonym) for term, synonym in pairs]
    settings = get_settings()
    return {(i.term, i.synonym): i.count
            for i in glossary_impact(_glossary, _rows, _bundle, settings=settings, entries=entries)}


def impacts(glossary: Glossary, entries: tuple[GlossaryEntry, ...]) -> dict[tuple[str, str], int] | None:
    bundle, error = get_index()
    if error or not entries:
        return None
    settings = get_settings()
    rows = tuple(get_question_sets().load().questions.questions)
    pairs = tuple((e.term, e.synonym) for e in entries)
    return impact_counts(glossary.fingerprint, bundle.fingerprint, tuple(settings.knobs.to_dict().items()),
                         pairs, glossary, rows, bundle)


def done(message: str) -> None:
    st.session_state[FLASH] = message
    st.rerun()


def attempt(action, message) -> None:
    """Run one change; on success show `message` (or message(result)) after the rerun, else the error here."""
    try:
        result = action()
    except XiaoEError as error:
        st.error(md_escape(str(error)))  # the form keeps what was typed
        return
    done(message(result) if callable(message) else message)


def entry_frame(entries, counts) -> pd.DataFrame:
    return pd.DataFrame([{"学员说法（同义词）": e.synonym, "资料用词（标准词）": e.term, "添加人": e.who,
                          "添加时间": e.at.replace("T", " ")[:16],
                          "影响题数": counts.get((e.term, e.synonym)) if counts is not None else None}
                         for e in entries],
                        columns=["学员说法（同义词）", "资料用词（标准词）", "添加人", "添加时间", "影响题数"])


def label(entry: GlossaryEntry) -> str:
    return f"{entry.synonym} → {entry.term}"


def show_editing(store: GlossaryAdmin, entries: tuple[GlossaryEntry, ...]) -> None:
    # Keyed, so the rerun of 「删除这条…」 and its confirmation stays on the tab the admin was using.
    add_tab, edit_tab, file_tab = st.tabs(["添加", "修改或删除", "导入与导出"], key="g_tabs", on_change="rerun")
    with add_tab, st.form("glossary_add", border=False):
        cols = st.columns(2)
        synonym = cols[0].text_input("学员说法（同义词）", key="g_add_synonym", max_chars=20)
        term = cols[1].text_input("资料用词（标准词）", key="g_add_term", max_chars=20)
        if st.form_submit_button("添加", key="g_add", type="primary"):
            attempt(lambda: store.add(user, term, synonym, authorize=authorize()), f"已加入同义词：“{synonym.strip()}”视为“{term.strip()}”。")
    with edit_tab:
        if not entries:
            st.caption("没有可修改的条目。")
        else:
            chosen = st.selectbox("选择条目", entries, format_func=label, key="g_edit_pick")
            with st.form("glossary_edit", border=False):
                cols = st.columns(2)
                new_synonym = cols[0].text_input("学员说法（同义词）", value=chosen.synonym, key=f"g_edit_syn_{label(chosen)}")
                new_term = cols[1].text_input("资料用词（标准词）", value=chosen.term, key=f"g_edit_term_{label(chosen)}")
                cols = st.columns(2)
                if cols[0].form_submit_button("保存修改", key="g_edit_save", type="primary"):
                    attempt(lambda: store.edit(user, (chosen.term, chosen.synonym), (new_term, new_synonym),
                                                     authorize=authorize()),
                            lambda e: f"已修改：“{label(chosen)}”改为“{e.synonym} → {e.term}”。")
                if cols[1].form_submit_button("删除这条…", key="g_delete"):
                    st.session_state[DELETE] = (chosen.term, chosen.synonym)
            if st.session_state.get(DELETE) == (chosen.term, chosen.synonym):
                st.warning(f"确定删除“{md_escape(label(chosen))}”吗？删除后检索和判定不再把“{md_escape(chosen.synonym)}”"
                           f"当作“{md_escape(chosen.term)}”；修改记录会保留这次删除。")
                cols = st.columns([1, 1, 4])
                if cols[0].button("确认删除", key="g_delete_ok", type="primary"):
                    st.session_state.pop(DELETE, None)
                    attempt(lambda: store.remove(user, chosen.term, chosen.synonym, authorize=authorize()),
                            f"已删除：“{label(chosen)}”。")
                if cols[1].button("取消", key="g_delete_cancel"):
                    st.session_state.pop(DELETE, None)
                    st.rerun()
    with file_tab, st.form("glossary_import", border=False):
        upload = st.file_uploader("导入 CSV（列：标准词,同义词；已有的跳过）", type=["csv"], key="g_import_file")
        if st.form_submit_button("导入", key="g_import"):
            if upload is None:
                st.error("请先选择一个 CSV 文件，再点「导入」。")
            else:
                attempt(lambda: store.import_report(user, upload.getvalue(), authorize=authorize()), import_message)


def import_message(report) -> str:
    message = f"已导入 {report.added} 条新的同义词。"
    if report.skipped:
        shown = "、".join(f"“{pair}”" for pair in report.skipped[:SKIPPED_NAMED])
        more = f"等 {len(report.skipped)} 条" if len(report.skipped) > SKIPPED_NAMED else ""
        message += f"跳过已有的 {len(report.skipped)} 条：{shown}{more}。"
    return message


def show_proposals(store: GlossaryAdmin) -> None:
    proposals = store.proposals()
    if not proposals:
        st.caption("没有待批准的提议。顾问在本页或调优页「加入同义词」时，会先提交到这里。")
        return
    st.subheader(f"待批准的提议（{len(proposals)}）")
    for proposal in proposals:
        with st.container(border=True):
            cols = st.columns([4, 1, 1], vertical_alignment="center")
            cols[0].markdown(f"#{proposal.id}　**{md_escape(proposal.synonym)} → {md_escape(proposal.term)}**　"
                             f"{md_escape(proposal.who)} 提交于 {proposal.at:%Y-%m-%d %H:%M}")
            if user.can("edit_glossary"):
                if cols[1].button("批准…", key=f"g_approve_{proposal.id}", type="primary",
                                  help="先看批准后哪些问题的判断会改变，确认后才生效"):
                    st.session_state[CONFIRM] = proposal.id
                if cols[2].button("驳回", key=f"g_reject_{proposal.id}"):
                    attempt(lambda p=proposal: store.reject(user, p.id, authorize=authorize()), f"已驳回提议 #{proposal.id}。")
                if st.session_state.get(CONFIRM) == proposal.id:
                    confirm_approval(store, proposal)


def confirm_approval(store: GlossaryAdmin, proposal) -> None:
    """Before 「确认批准」: which labelled and recently asked questions the entry would flip."""
    try:
        impact = proposal_impact(proposal.term, proposal.synonym)
    except XiaoEError as error:
        st.warning(md_escape(f"算不出影响：{error}"))
        impact = None
    if impact is not None:
        show_impact(impact, labelled_name=get_question_sets().load().info.name)
    cols = st.columns([1, 1, 4])
    if cols[0].button("确认批准", key=f"g_approve_ok_{proposal.id}", type="primary"):
        st.session_state.pop(CONFIRM, None)
        attempt(lambda: store.approve(user, proposal.id, authorize=authorize()),
                f"已批准提议 #{proposal.id}，检索和判定从现在起使用它。")
    if cols[1].button("取消", key=f"g_approve_cancel_{proposal.id}"):
        st.session_state.pop(CONFIRM, None)
        st.rerun()


def proposal_impact(term: str, synonym: str) -> ChangeImpact | None:
    bundle, error = get_index()
    if error or bundle is None:
        return None
    assistant = get_assistant(bundle, get_glossary())
    labelled = [q.question for q in get_question_sets().load().questions.questions]
    asked = get_review_store().asked_since(utcnow() - timedelta(days=RECENT_DAYS))
    with st.spinner("正在核对批准后哪些问题的判断会改变……"):
        return glossary_change_impact(assistant, GlossaryEntry(term, synonym), labelled=labelled, asked=asked)


def show_proposal_form(store: GlossaryAdmin) -> None:
    with st.form("glossary_propose", border=False):
        st.markdown("**提议一条同义词**（管理员批准后才会生效）")
        cols = st.columns(2)
        synonym = cols[0].text_input("学员说法（同义词）", key="g_prop_synonym", max_chars=20)
        term = cols[1].text_input("资料用词（标准词）", key="g_prop_term", max_chars=20)
        if st.form_submit_button("提交提议", key="g_propose", type="primary"):
            attempt(lambda: store.propose(user, term, synonym, authorize=authorize()), lambda s: s.message)


user = guard_page()
st.title("同义词表")
st.caption("学员的说法（同义词）会在检索和可答性判断时当作资料里的用词（标准词）。映射过宽就删掉；"
           "顾问的新增先作为提议，管理员批准后才生效。")
if FLASH in st.session_state:
    message = st.session_state.pop(FLASH)
    st.toast(md_escape(message.split("：")[0].split("，")[0]), icon=":material/check_circle:")
    st.success(md_escape(message))  # it quotes the synonyms as typed
try:
    store = admin()
    glossary = store.load()
    show_proposals(store)  # first: what waits for an admin's decision
    search = st.text_input("搜索（同义词、标准词或添加人）", key="g_search")
    found = store.search(search)
    pages = max(1, -(-len(found) // SHOWN))
    if int(st.session_state.get("g_page", 1)) > pages:  # a narrower search has fewer pages
        st.session_state["g_page"] = 1
    page_no = int(st.number_input(f"页码（共 {pages:d} 页，每页 {SHOWN:d} 条）", min_value=1, max_value=pages, step=1,
                                  key="g_page")) if pages > 1 else 1
    shown = found[(page_no - 1) * SHOWN:page_no * SHOWN]
    counts = impacts(glossary, shown)
    st.caption(f"共 {len(glossary)} 条，符合搜索 {len(found)} 条"
               + (f"，这一页是第 {(page_no - 1) * SHOWN + 1}–{(page_no - 1) * SHOWN + len(shown)} 条" if pages > 1 else "")
               + "。影响题数：去掉这一条后，默认题集里判定结果会改变的题数。")
    st.dataframe(entry_frame(shown, counts), hide_index=True, key="g_table",
                 column_config={"影响题数": st.column_config.NumberColumn(format="%d")})
    st.download_button("导出 CSV（Excel 可直接打开）", data=store.store.export_csv(), file_name="同义词表.csv",
                       mime="text/csv", key="g_export", on_click="ignore")
    if user.can("edit_glossary"):
        show_editing(store, shown)
    else:
        show_proposal_form(store)
    with st.expander("修改记录"):
        st.dataframe(pd.DataFrame([{"时间": f"{c.at:%Y-%m-%d %H:%M}", "说明": c.summary} for c in store.store.changes()],
                                  columns=["时间", "说明"]), hide_index=True)
except XiaoEError as error:
    st.error(md_escape(str(error)))
