"""阈值调优: move the threshold and k over a labelled question set and watch every outcome change.

Each question is retrieved once per (set content, corpus fingerprint) — cached with
st.cache_data — so moving a slider only re-scores stored numbers (core.evaluation), and only
the open tab is drawn.
"""

from __future__ import annotations

from urllib.parse import quote

import pandas as pd
import streamlit as st

from core.db import open_database
from core.defaults_store import DefaultsStore, effective_settings
from core.errors import XiaoEError
from core.evaluation import (
    GOOD_OUTCOMES,
    OUTCOMES,
    Evaluation,
    Metrics,
    RetrievedSet,
    Sweep,
    evaluate_at,
    outcome_columns,
    retrieve_set,
    what_if,
)
from core.evaluation import sweep as sweep_curve
from core.question_sets import QuestionSet, QuestionSetStore, StoredSet, corpus_catalog
from core.roles import require
from core.settings import MAX_TOP_K, Settings
from ui.auth import authorize, current_user, guard_page
from ui.escape import md_escape
from ui.state import get_index, get_review_store, get_settings
from ui.tuning_batch import render_batch
from ui.tuning_charts import histogram_frame, metric_curves, score_histogram
from ui.tuning_glossary import render_decisions
from ui.tuning_sets import FLASH, render_set_manager, select_pending

ASK_URL = "/?q="
# Each chart has its own tab: Altair spends ~25 ms building a spec, and only the open tab is drawn.
TABS = ("逐题结果", "分数分布", "指标曲线", "假如改阈值", "关键词判定", "题集管理", "批量运行", "默认值修改记录")


@st.cache_data(show_spinner="正在检索题集里的每一道题（题集或资料变化后只做一次）…", max_entries=8)
def retrieved_for(content_hash: str, fingerprint: str, _questions: QuestionSet, _bundle) -> RetrievedSet:
    return retrieve_set(_questions, _bundle.index, fingerprint=fingerprint)


@st.cache_data(show_spinner=False, max_entries=32)
def stored_set(db_url: str, name: str, version: int) -> StoredSet:
    # A saved version never changes (every save appends a new one), so caching it is safe.
    return QuestionSetStore(open_database(db_url)).load(name, version)


def pct(value: float | None) -> str:
    if value is None:
        return "—"
    return "100%" if value >= 0.9995 else f"{value:.1%}"  # "100.0%" does not fit a metric column


def actor_field() -> str:
    """Who is acting: the signed-in reviewer, else a required 「操作人」 field."""
    reviewer = st.session_state.get("reviewer")
    if reviewer:
        st.text_input("操作人", value=str(reviewer), disabled=True, key="tune_actor_shown")
        return str(reviewer)
    return st.text_input("操作人", key="tune_actor", max_chars=100, placeholder="你的姓名（保存时记录在案）").strip()


def show_metrics(m: Metrics, base: Metrics) -> None:
    for column, outcome in zip(st.columns(len(OUTCOMES)), OUTCOMES):
        change = m.count(outcome) - base.count(outcome)
        column.metric(outcome, m.count(outcome), delta=change or None,
                      delta_color="normal" if outcome in GOOD_OUTCOMES else "inverse")
    rates = (("回答率", m.answered_rate), ("拒答精确率", m.refusal_precision), ("拒答召回率", m.refusal_recall),
             ("拒答 F1", m.refusal_f1), (f"hit@{m.k}", m.hit_at_k), ("平衡准确率", m.balanced_accuracy))
    for column, (label, value) in zip(st.columns(len(rates)), rates):
        column.metric(label, pct(value))


def save_default_box(defaults: DefaultsStore, settings: Settings, base_settings: Settings, *, threshold: float,
                     k: int, actor: str, snapshot: dict) -> None:
    current = defaults.current()
    origin = (f"由 {current.actor} 于 {current.at.astimezone():%Y-%m-%d %H:%M} 设置" if current
              else "来自环境设置，还没有人在这里保存过")
    st.markdown(f"**当前默认**：阈值 {settings.min_score:.2f}，k={settings.top_k}（{origin}）")
    user = current_user()
    allowed = user is not None and user.can("set_threshold")
    if not allowed:
        st.caption("只有管理员可以修改默认阈值；你可以照常调滑块、看结果。")
    note = st.text_input("备注（可选，写进修改记录）", key="tune_default_note", max_chars=500, disabled=not allowed)
    unchanged = abs(threshold - settings.min_score) < 1e-9 and k == settings.top_k
    if not st.button("设为默认阈值", key="save_default", type="primary", disabled=unchanged or not allowed,
                     help="与当前默认值相同时不可点" if unchanged else None):
        return
    if not actor:
        st.error("请先在页面上方填写「操作人」，修改默认阈值要记录是谁改的。")
        return
    try:
        require(current_user(), "set_threshold")
        saved = defaults.save(threshold, k, actor=actor, settings=base_settings, metrics=snapshot, note=note,
                              authorize=authorize())
    except XiaoEError as error:
        st.error(md_escape(str(error)))
        return
    st.session_state[FLASH] = f"已设为默认：{saved.summary}。提问页、命令行和批量运行从现在起使用它。"
    st.rerun()


@st.cache_data(show_spinner=False, max_entries=8)
def ask_links(content_hash: str, _texts: tuple[str, ...]) -> list[str]:
    """A link per question that opens it on the Ask page (which reads ?q=)."""
    return [ASK_URL + quote(text, safe="") for text in _texts]


def outcomes_tab(retrieved: RetrievedSet, evaluation: Evaluation) -> None:
    chosen = st.multiselect("只看这些结果", OUTCOMES, default=list(OUTCOMES), key="tune_filter")
    frame = pd.DataFrame(outcome_columns(retrieved, evaluation))
    frame["提问页"] = ask_links(retrieved.content_hash, retrieved.texts)
    st.dataframe(frame[frame["结果"].isin(chosen)], hide_index=True, width="stretch", key="tune_outcomes",
                 column_config={"提问页": st.column_config.LinkColumn("提问页", display_text="在提问页打开"),
                                "最高分": st.column_config.NumberColumn(format="%.3f")})


def histogram_tab(retrieved: RetrievedSet, threshold: float) -> None:
    st.markdown("**第 1 名片段分数的分布**（绿色应回答、红色应拒答；实线是当前阈值，线右边的题会作答）")
    st.altair_chart(score_histogram(histogram_frame(retrieved), threshold), width="stretch")


def curves_tab(curve: Sweep, threshold: float) -> None:
    st.markdown(f"**各指标随阈值的变化**（k={curve.k}；实线当前阈值，虚线建议阈值）")
    st.altair_chart(metric_curves(curve, threshold), width="stretch")


def what_if_tab(retrieved: RetrievedSet, evaluation: Evaluation, baseline: Evaluation, curve: Sweep,
                settings: Settings, threshold: float, k: int) -> None:
    compare = st.radio("对比", ["当前默认值 → 滑块位置", "滑块位置 → 建议阈值"], key="tune_compare", horizontal=True)
    if compare.startswith("当前默认值"):
        flips = what_if(retrieved, baseline, evaluation)
        title = f"阈值 {settings.min_score:.2f}、k={settings.top_k} → 阈值 {threshold:.2f}、k={k}"
    else:
        flips = what_if(retrieved, evaluation, evaluate_at(retrieved, curve.suggested, k))
        title = f"阈值 {threshold:.2f} → 建议阈值 {curve.suggested:.2f}（k={k}）"
    better, worse = sum(f.better for f in flips), sum(f.worse for f in flips)
    st.markdown(f"{title}：**{len(flips)}** 题结果会变，变好 {better} 题，变差 {worse} 题。")
    if flips:
        st.dataframe(pd.DataFrame([{"行号": f.line, "问题": f.question, "预期": f.expectation,
                                    "最高分": round(f.top_score, 3), "之前": f.before, "之后": f.after,
                                    "变化": "变好" if f.better else "变差" if f.worse else "—"} for f in flips]),
                     hide_index=True, width="stretch", key="tune_flips")


def history_tab(defaults: DefaultsStore) -> None:
    history = defaults.history()
    if not history:
        st.caption("还没有人在这里保存过默认阈值。")
        return
    st.dataframe(pd.DataFrame([{
        "时间": c.at.astimezone().strftime("%Y-%m-%d %H:%M"), "操作人": c.actor,
        "阈值": f"{c.old_threshold:.2f} → {c.new_threshold:.2f}", "k": f"{c.old_k} → {c.new_k}",
        "当时的平衡准确率": pct(c.metrics.get("balanced_accuracy")),
        "题集": f"{c.metrics.get('question_set', '')} 第 {c.metrics.get('set_version', '')} 版",
        "备注": c.note} for c in history]), hide_index=True, width="stretch", key="tune_history")


guard_page("ask")
st.title("阈值调优")
st.caption("用一份标注好的题集，看阈值和 k 改动后每道题的结果怎么变；确认后设为默认阈值，提问页、命令行和复核队列都会用它。")

try:
    base_settings = get_settings()
    db = open_database(base_settings.db_url)
    defaults, sets = DefaultsStore(db), QuestionSetStore(db)
    settings = effective_settings(base_settings, db)
except XiaoEError as error:
    st.error(md_escape(str(error)))
    st.stop()
bundle, index_error = get_index()
if index_error or bundle is None:
    st.error(md_escape(index_error) if index_error else "资料索引还没有建立，请到「资料原文」页检查资料文件夹。")
    st.stop()
files, sections = corpus_catalog(bundle.index)

if FLASH in st.session_state:
    st.success(md_escape(st.session_state.pop(FLASH)))
select_pending()

top = st.columns([2, 2, 2])
names = sets.names()
if st.session_state.get("tune_set") not in names:
    st.session_state.pop("tune_set", None)
name = top[0].selectbox("题集", names, key="tune_set")
versions = {v.version: v for v in sets.versions(name)}
if st.session_state.get("tune_version") not in versions:
    st.session_state.pop("tune_version", None)
version = top[1].selectbox("版本", list(versions), key="tune_version",
                           format_func=lambda n: f"第 {n} 版 · {versions[n].author}")
with top[2]:
    actor = actor_field()
try:
    stored = stored_set(base_settings.db_url, name, version)
except XiaoEError as error:
    st.error(md_escape(str(error)))
    st.stop()
retrieved = retrieved_for(stored.questions.content_hash, bundle.fingerprint, stored.questions, bundle)

st.session_state.setdefault("tune_threshold", float(settings.min_score))
st.session_state.setdefault("tune_k", int(settings.top_k))
left, right = st.columns([3, 1])
threshold = left.slider("阈值（片段分数 ≥ 阈值才算命中）", 0.0, 1.0, step=0.01, format="%.2f", key="tune_threshold")
k = right.slider("k（最多取前几个片段）", 1, MAX_TOP_K, key="tune_k")

evaluation = evaluate_at(retrieved, threshold, k)
baseline = evaluate_at(retrieved, settings.min_score, settings.top_k)
curve = sweep_curve(retrieved, k)
m = evaluation.metrics

st.caption(f"{m.total} 题（应回答 {m.answerable}，应拒答 {m.unanswerable}）。箭头是与当前默认值"
           f"（阈值 {settings.min_score:.2f}，k={settings.top_k}）相比的变化。")
show_metrics(m, baseline.metrics)

with st.container(border=True):
    save_default_box(defaults, settings, base_settings, threshold=threshold, k=k, actor=actor,
                     snapshot={**m.to_dict(), "question_set": name, "set_version": version,
                               "fingerprint": bundle.fingerprint, "suggested": curve.suggested})

st.info(f"建议阈值：**{curve.suggested:.2f}**（k={k} 时平衡准确率最高，为 {pct(float(curve.balanced_accuracy.max()))}；"
        f"并列时取离各题最高分最远的值，余量 {curve.suggested_margin:.3f}）。")
if curve.lowest_answerable_top is not None and curve.highest_unanswerable_top is not None:
    st.caption(f"应回答的题里，第 1 名分数最低的是 {curve.lowest_answerable_top:.3f}；应拒答的题里，"
               f"第 1 名分数最高的是 {curve.highest_unanswerable_top:.3f}。前者高于后者时，两者之间的阈值能把两类完全分开。")
st.button("采用建议阈值", key="tune_apply_suggested",
          on_click=lambda value=curve.suggested: st.session_state.update(tune_threshold=value))

# Only the open tab's content runs (on_change="rerun"), so a slider move redraws one tab, not all eight.
# A batch run therefore proceeds only while its tab is open (see ui/tuning_batch.py).
tabs = dict(zip(TABS, st.tabs(TABS, key="tune_tab", on_change="rerun")))
if tabs["逐题结果"].open:
    with tabs["逐题结果"]:
        outcomes_tab(retrieved, evaluation)
if tabs["分数分布"].open:
    with tabs["分数分布"]:
        histogram_tab(retrieved, threshold)
if tabs["指标曲线"].open:
    with tabs["指标曲线"]:
        curves_tab(curve, threshold)
if tabs["假如改阈值"].open:
    with tabs["假如改阈值"]:
        what_if_tab(retrieved, evaluation, baseline, curve, settings, threshold, k)
if tabs["关键词判定"].open:
    with tabs["关键词判定"]:
        render_decisions(stored, bundle, db, threshold=threshold, k=k, threshold_only=m, actor=actor)
if tabs["题集管理"].open:
    with tabs["题集管理"]:
        render_set_manager(sets, stored, files=files, sections=sections, actor=actor)
if tabs["默认值修改记录"].open:
    with tabs["默认值修改记录"]:
        history_tab(defaults)
if tabs["批量运行"].open:
    with tabs["批量运行"]:
        try:
            queue = get_review_store()
        except XiaoEError as error:
            st.warning(md_escape(f"复核队列暂不可用：{error}"))
            queue = None
        render_batch(stored, bundle, threshold=threshold, k=k, queue=queue, actor=actor)
