"""The tuning page's 运行记录 tab and the compare view: keep the evaluation at the sliders as a run, mark a baseline,
compare any two runs question by question (core.evaluation.run_compare), and the flips of a batch run against the
baseline. Every text shown comes from the runs (questions, reasons, corpus lines) and is drawn as data or escaped.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.errors import XiaoEError
from core.evaluation.metrics import Evaluation
from core.evaluation.run_compare import RunComparison, compare_stored, compare_with_baseline
from core.evaluation.runs import run_from_evaluation
from core.stores.runs import NewRun, RunStore
from ui.auth import authorize, current_user
from ui.diff_view import show_diff
from ui.escape import md_escape

NAME_KEY = "tune_run_name"
MAX_LISTED = 200
COMPARE_A, COMPARE_B = "tune_compare_a", "tune_compare_b"
SEEN = "_tune_runs_seen"  # the run names the compare boxes were last set for


def follow_newest(names: list[str], baseline: str | None) -> None:
    """When the list of runs changed (a run saved here, by a batch, or by someone else), the compare boxes go back to
    the newest run (B) against the baseline, else the run before it (A); a choice made on an unchanged list stays."""
    if st.session_state.get(SEEN) == tuple(names) and st.session_state.get(COMPARE_A) in names \
            and st.session_state.get(COMPARE_B) in names:
        return
    st.session_state[SEEN] = tuple(names)
    st.session_state[COMPARE_B] = names[0]
    st.session_state[COMPARE_A] = baseline if baseline in names and baseline != names[0] else names[1]


def render_runs_tab(store: RunStore, assistant, evaluation: Evaluation, *, set_name: str, set_version: int,
                    actor: str) -> None:
    """Save the evaluation at the sliders, list the runs, mark a baseline, compare two runs."""
    with st.form("tune_save_run", border=True):
        st.markdown("**把当前参数下的评测保存为一次运行**（题集、资料指纹和各小节、四个参数、同义词表、每题结果）")
        name = st.text_input("运行名称", key=NAME_KEY, max_chars=100, placeholder="例如：加同义词之前")
        if st.form_submit_button("保存运行"):
            _save(store, assistant, evaluation, name=name, set_name=set_name, set_version=set_version, actor=actor)
    try:
        runs, baseline = store.list(limit=MAX_LISTED), store.baseline()
    except XiaoEError as error:
        st.error(md_escape(str(error)))
        return
    if not runs:
        st.caption("还没有保存过运行。保存两次以后，就能在这里逐题比较。")
        return
    st.dataframe(pd.DataFrame([{
        "基准": "★" if r.name == baseline else "", "名称": r.name, "来源": r.kind_label,
        "时间": r.created_at.astimezone().strftime("%Y-%m-%d %H:%M") if r.created_at else "",
        "运行人": r.actor, "题集": r.set_name + ("" if r.set_version is None else f" 第 {r.set_version} 版"),
        "判断正确": f"{r.correct}/{r.question_count}", "参数": _knobs_text(r.knobs), "答题": r.answerer,
        "资料指纹": r.fingerprint[:12]} for r in runs]), hide_index=True, width="stretch", key="tune_runs")
    names = [r.name for r in runs]
    user = current_user()
    left, right = st.columns([3, 1])
    chosen = left.selectbox("设为基准的运行", names, key="tune_baseline_pick",
                            index=names.index(baseline) if baseline in names else 0)
    allowed = user is None or user.can("mark_baseline")
    if right.button("设为基准", key="tune_mark_baseline", disabled=not allowed,
                    help=None if allowed else "只有管理员可以设定基准运行"):
        try:
            store.mark_baseline(chosen, actor=actor or (user.label if user else ""), authorize=authorize())
            st.success(f"已把「{md_escape(chosen)}」设为基准：之后每次批量运行都和它比较。")
        except XiaoEError as error:
            st.error(md_escape(str(error)))
    st.markdown("**比较两次运行**")
    if len(names) < 2:
        st.caption("再保存一次运行，就能和这一次逐题比较。")
        return
    follow_newest(names, baseline)
    a_col, b_col = st.columns(2)
    before = a_col.selectbox("之前（A）", names, key=COMPARE_A)
    after = b_col.selectbox("之后（B）", names, key=COMPARE_B)
    try:
        comparison = compare_stored(store, before, after)
    except XiaoEError as error:
        st.error(md_escape(str(error)))
        return
    show_comparison(comparison, key="tune_cmp")


def _save(store: RunStore, assistant, evaluation: Evaluation, *, name: str, set_name: str, set_version: int,
          actor: str) -> None:
    if not actor:
        st.error("请先在页面上方填写「操作人」，保存运行要记录是谁做的。")
        return
    try:
        saved = store.save(run_from_evaluation(name, assistant, evaluation, set_name=set_name,
                                               set_version=set_version, actor=actor, origin="tuning"),
                           authorize=authorize())
    except XiaoEError as error:
        st.error(md_escape(str(error)))
        return
    st.success(f"已保存运行「{md_escape(saved.name)}」：判断正确 {saved.correct}/{saved.question_count}。")


def _knobs_text(knobs: dict) -> str:
    return "，".join(f"{k}={v}" for k, v in knobs.items())


def show_comparison(c: RunComparison, *, key: str) -> None:
    """The flips by direction with both reasons, the count deltas, what differs, and the corpus diffs."""
    a, b = c.before.info, c.after.info
    before_ok, after_ok = c.correct
    st.markdown(f"**{md_escape(a.name)} → {md_escape(b.name)}**：判断正确 {before_ok} → {after_ok}"
                f"（{after_ok - before_ok:+d}），结果变了的题 **{len(c.flips)}** 道"
                f"（变好 {sum(f.better for f in c.flips)}，变差 {sum(f.worse for f in c.flips)}）。")
    st.dataframe(pd.DataFrame([{"结果": o, "之前": x, "之后": y, "变化": y - x} for o, x, y in c.counts if x or y]),
                 hide_index=True, key=f"{key}_counts")
    differences = [{"项目": k, "之前": str(x), "之后": str(y)} for k, (x, y) in {**c.knobs, **c.settings}.items()]
    differences += [{"项目": "同义词表新增", "之前": "", "之后": f"{t} = {s}"} for t, s in c.glossary_added]
    differences += [{"项目": "同义词表删除", "之前": f"{t} = {s}", "之后": ""} for t, s in c.glossary_removed]
    if differences:
        st.markdown("**参数和设置的不同**")
        st.dataframe(pd.DataFrame(differences), hide_index=True, width="stretch", key=f"{key}_settings")
    else:
        st.caption("两次运行的参数、同义词表、答题方式和题集都相同。")
    for direction, flips in c.grouped():
        st.markdown(f"**{direction}**：{len(flips)} 道")
        st.dataframe(pd.DataFrame([{
            "问题": f.question, "预期": f.expected, "之前": f.before.outcome, "之后": f.after.outcome,
            "之前的理由": f.before.reason, "之后的理由": f.after.reason,
            "之前排第 1 的片段": f.before.top_hit, "之后排第 1 的片段": f.after.top_hit,
            "核对": (f"{'、'.join(f.before.checks) or '无'} → {'、'.join(f.after.checks) or '无'}"
                     if f.before.checks != f.after.checks else "")} for f in flips]),
            hide_index=True, width="stretch", key=f"{key}_{direction}")
    if c.only_before or c.only_after:
        st.caption(f"只在 A 里的题 {len(c.only_before)} 道，只在 B 里的题 {len(c.only_after)} 道（不算结果变化）。")
    if not c.files:
        st.caption("两次运行的资料相同。")
        return
    st.markdown(f"**资料的变化**：{len(c.files)} 个文件")
    for n, f in enumerate(c.files):
        versions = f"版本 {f.before_version or '—'} → {f.after_version or '—'}"
        with st.expander(md_escape(f"{f.file}（{f.change}，{versions}，{len(f.sections)} 个小节）")):
            for m, s in enumerate(f.sections):
                st.markdown(f"小节「{md_escape(s.heading)}」{s.change}")
                show_diff(s.diff, key=f"{key}_diff_{n}_{m}")


def show_baseline_flips(store: RunStore, new: NewRun, *, key: str) -> None:
    """After a batch run: its flips against the baseline, or a line saying how to mark one."""
    try:
        comparison = compare_with_baseline(store, new)
    except XiaoEError as error:
        st.warning(md_escape(f"无法和基准运行比较：{error}"))
        return
    if comparison is None:
        st.caption("还没有基准运行：在「运行记录」里把一次运行设为基准后，每次批量运行都会列出和它相比变了的题。")
        return
    st.markdown(f"**与基准运行「{md_escape(comparison.before.name)}」相比**")
    show_comparison(comparison, key=key)
