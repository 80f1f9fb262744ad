"""阈值调优: move the gate's knobs over a labelled question set and watch every outcome change.

Each question is retrieved and ranked once per (set content, corpus, glossary) through the same
Assistant the Ask page uses (cached); every slider move re-runs the gate itself on the stored
retrievals (core.evaluation.metrics.evaluate_at calls core.answerability.gate.decide), so the numbers here are exactly
what the Ask page, `python -m core ask` and `python -m core eval` do at those knobs. Only the
open tab is drawn.
"""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import quote

import pandas as pd
import streamlit as st

from core.assistant import Assistant
from core.clock import utcnow
from core.errors import XiaoEError
from core.evaluation.flips import RECENT_DAYS, ChangeImpact, knob_change_impact
from core.evaluation.metrics import (
    GOOD_OUTCOMES,
    OUTCOMES,
    SUGGEST_RULE,
    EvaluatedSet,
    Evaluation,
    Metrics,
    Suggestion,
    distribution,
    evaluate_at,
    evaluate_set,
    outcome_rows,
    suggest,
    sweep,
    what_if,
)
from core.knobs import HELP, LABELS, MAX_TOP_K, Knobs
from core.settings import Settings
from ui.auth import authorize, current_user, guard_page, require
from ui.escape import md_escape
from ui.impact_view import show_impact
from ui.knob_state import hold, touched
from ui.state import (
    base_settings,
    get_assistant,
    get_defaults_store,
    get_glossary_store,
    get_index,
    get_question_sets,
    get_review_store,
    get_run_store,
    get_settings,
    saved_default,
)
from ui.tuning_batch import grader_caption, render_batch
from ui.tuning_charts import histogram_frame, metric_curves, score_histogram
from ui.tuning_glossary import render_misses
from ui.tuning_runs import render_runs_tab
from ui.tuning_sets import (
    FLASH,
    DefaultsStore,
    QuestionSet,
    StoredSet,
    corpus_catalog,
    render_set_manager,
    select_pending,
)

ASK_URL = "/?q="
# Each chart has its own tab: Altair spends ~25 ms building a spec, and only the open tab is drawn.
TABS = ("逐题结果", "分数分布", "指标曲线", "假如改参数", "误判与同义词", "题集管理", "批量运行", "运行记录",
        "默认值修改记录")
KNOB_KEYS = {"threshold": "tune_threshold", "k": "tune_k", "min_coverage": "tune_min_coverage",
             "max_unknown_weight": "tune_max_unknown_weight"}
CONFIRM = "tune_confirm_save"
RESTORE = "tune_restore_knobs"  # knobs from the history, applied to the sliders before they are drawn


@st.cache_resource(show_spinner="正在检索题集里的每一道题（题集、资料或同义词表变化后只做一次）…", max_entries=8)
def evaluated_for(content_hash: str, fingerprint: str, glossary_fingerprint: str, answerability: str,
                  _questions: QuestionSet, _assistant: Assistant) -> EvaluatedSet:
    return evaluate_set(_assistant, _questions)


@st.cache_data(show_spinner=False, max_entries=32)
def stored_set(db_url: str, name: str, version: int) -> StoredSet:
    # A saved version never changes (every save appends a new one), so caching it is safe.
    return get_question_sets().load(name, version)


@st.cache_resource(show_spinner="正在按建议规则搜索三个参数的最佳组合…", max_entries=16)
def suggestion_for(content_hash: str, fingerprint: str, glossary_fingerprint: str, k: int,
                   _evaluated: EvaluatedSet, _base: Knobs) -> Suggestion:
    return suggest(_evaluated, k, _base)


def row_number(line: int) -> int:
    """A question's row as the 题集管理 table numbers it (from 1), not its line in the CSV file (header = line 1)."""
    positions = {q.line: i for i, q in enumerate(stored.questions.questions, start=1)}
    return positions.get(line, line)


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
    rates = (("判断正确", f"{m.correct}/{m.total}"), ("答出且命中事实", pct(m.answered_with_fact)),
             ("应拒答已拒答", pct(m.refusal_recall)), ("拒答精确率", pct(m.refusal_precision)),
             ("平衡准确率", pct(m.balanced_accuracy)), ("代价", f"{m.cost:g}"))
    for column, (label, value) in zip(st.columns(len(rates)), rates):
        column.metric(label, value)


def knob_sliders(settings: Settings, decides: bool) -> Knobs:
    defaults = settings.knobs
    for name, key in KNOB_KEYS.items():
        st.session_state.setdefault(key, getattr(defaults, name))
    hold(KNOB_KEYS.values())  # the browser redraws the server's values (ui.knob_state)
    left, right = st.columns([3, 1])
    threshold = left.slider(f"{LABELS['threshold']}（排序分 ≥ 阈值才算命中）", 0.0, 1.0, step=0.01, format="%.2f",
                            key=KNOB_KEYS["threshold"], help=HELP["threshold"],
                            on_change=touched, args=(KNOB_KEYS["threshold"],))
    k = right.slider(f"{LABELS['k']}（最多保留前几个片段）", 1, MAX_TOP_K, key=KNOB_KEYS["k"], help=HELP["k"],
                     on_change=touched, args=(KNOB_KEYS["k"],))
    coverage, unknown = defaults.min_coverage, defaults.max_unknown_weight
    if decides:
        left, right = st.columns(2)
        coverage = left.slider(LABELS["min_coverage"], 0.0, 1.0, step=0.01, format="%.2f",
                               key=KNOB_KEYS["min_coverage"], help=HELP["min_coverage"],
                               on_change=touched, args=(KNOB_KEYS["min_coverage"],))
        unknown = right.slider(LABELS["max_unknown_weight"], 0.0, 1.0, step=0.01, format="%.2f",
                               key=KNOB_KEYS["max_unknown_weight"], help=HELP["max_unknown_weight"],
                               on_change=touched, args=(KNOB_KEYS["max_unknown_weight"],))
    return Knobs(threshold=threshold, k=k, min_coverage=coverage, max_unknown_weight=unknown)


def _apply(knobs: Knobs) -> None:
    st.session_state.update({key: getattr(knobs, name) for name, key in KNOB_KEYS.items()})


def _close_confirmation() -> None:
    st.session_state.pop(CONFIRM, None)


@st.cache_data(show_spinner="正在核对改参数后哪些问题的判断会改变……", max_entries=8)
def knob_impact(fingerprint: str, glossary_fingerprint: str, content_hash: str, before: tuple, after: tuple,
                asked: tuple[str, ...], _assistant: Assistant, _labelled: tuple[str, ...]) -> ChangeImpact:
    return knob_change_impact(_assistant, Knobs(**dict(before)), Knobs(**dict(after)), labelled=list(_labelled),
                              asked=list(asked))


def asked_lately() -> tuple[str, ...]:
    try:
        return get_review_store().asked_since(utcnow() - timedelta(days=RECENT_DAYS))
    except XiaoEError as error:
        st.warning(md_escape(f"复核队列暂不可用，只核对标注题集：{error}"))
        return ()


@st.dialog("确认设为默认值", width="large", on_dismiss=_close_confirmation)
def confirm_save(defaults: DefaultsStore, base: Settings, knobs: Knobs, before: Metrics, after: Metrics,
                 actor: str, note: str, snapshot: dict) -> None:
    """Before/after on the chosen set, and the questions that flip there and among those asked lately;
    saving happens only on 「确认保存」."""
    st.markdown(f"**之前**：{before.knobs.describe()}  \n**之后**：{after.knobs.describe()}")
    # Counts as rows, one outcome per row: two narrow columns fit a 1366-px window without sideways scrolling.
    st.dataframe(pd.DataFrame({"结果": [*OUTCOMES, "判断正确", "代价"],
                               "之前": [*(before.count(o) for o in OUTCOMES), before.correct, before.cost],
                               "之后": [*(after.count(o) for o in OUTCOMES), after.correct, after.cost]}),
                 hide_index=True, key="tune_confirm_table")
    impact = knob_impact(bundle.fingerprint, glossary.fingerprint, stored.questions.content_hash,
                         tuple(before.knobs.to_dict().items()), tuple(knobs.to_dict().items()), asked_lately(),
                         assistant, tuple(q.question for q in stored.questions.questions))
    show_impact(impact, labelled_name=f"{name} 第 {version} 版")
    st.caption("保存后，提问页、命令行和批量运行都使用这组参数；修改记录会写明是谁、何时、改了什么。")
    left, right = st.columns(2)
    if right.button("取消", key="tune_confirm_cancel"):
        _close_confirmation()
        st.rerun()
    if not left.button("确认保存", key="tune_confirm_ok", type="primary"):
        return
    try:
        require(current_user(), "set_threshold")
        saved = defaults.save(knobs, actor=actor, settings=base, metrics=snapshot, note=note,
                              authorize=authorize())
    except XiaoEError as error:
        st.error(md_escape(str(error)))
        return
    _close_confirmation()
    st.session_state[FLASH] = f"已设为默认：{saved.summary}。提问页、命令行和批量运行从现在起使用它。"
    st.rerun()


def save_default_box(defaults: DefaultsStore, settings: Settings, base: Settings, *, knobs: Knobs,
                     evaluation: Evaluation, baseline: Evaluation, actor: str, snapshot: dict) -> None:
    current = saved_default()  # read once for this run, with the settings (ui/state.py)
    origin = (f"由 {current.actor} 于 {current.at.astimezone():%Y-%m-%d %H:%M} 设置" if current
              else "来自校准文件或环境设置，还没有人在这里保存过")
    st.markdown(f"**当前默认**：{settings.knobs.describe()}（{origin}）")
    user = current_user()
    allowed = user is not None and user.can("set_threshold")
    if not allowed:
        st.caption("只有管理员可以修改默认值；你可以照常调滑块、看结果。")
    note = st.text_input("备注（可选，写进修改记录）", key="tune_default_note", max_chars=500, disabled=not allowed)
    unchanged = knobs == settings.knobs
    if st.button("设为默认", key="save_default", type="primary", disabled=unchanged or not allowed,
                 help="与当前默认值相同时不可点" if unchanged else "先显示修改前后的对比，确认后才保存"):
        if not actor:
            st.error("请先在页面上方填写「操作人」，修改默认值要记录是谁改的。")
            return
        st.session_state[CONFIRM] = True
    # The dialog is drawn again on every rerun while it is open, so its buttons work after a full rerun too.
    if st.session_state.get(CONFIRM) and allowed and not unchanged:
        confirm_save(defaults, base, knobs, baseline.metrics, evaluation.metrics, actor, note, snapshot)


@st.cache_data(show_spinner=False, max_entries=8)
def ask_links(content_hash: str, _texts: tuple[str, ...]) -> list[str]:
    """A link per question that opens it on the Ask page (which reads ?q=)."""
    return [ASK_URL + quote(text, safe="") for text in _texts]


def outcomes_tab(evaluated: EvaluatedSet, evaluation: Evaluation) -> None:
    chosen = st.multiselect("只看这些结果", OUTCOMES, default=list(OUTCOMES), key="tune_filter")
    rows = outcome_rows(evaluated, evaluation)
    frame = pd.DataFrame({"行号": [row_number(r["line"]) for r in rows], "问题": [r["question"] for r in rows],
                          "预期": [r["expected"] for r in rows], "结果": [r["outcome"] for r in rows],
                          "最高排序分": [r["top_value"] for r in rows], "关键词覆盖": [r["coverage"] for r in rows],
                          "资料外词权重": [r["unknown_weight"] for r in rows],
                          "正确片段名次": [r["fact_rank"] for r in rows], "判断理由": [r["reason"] for r in rows],
                          "排第 1 的片段": [r["top_chunk"] for r in rows]})
    frame["提问页"] = ask_links(evaluated.content_hash, tuple(q.question for q in evaluated.questions))
    st.dataframe(frame[frame["结果"].isin(chosen)], hide_index=True, width="stretch", key="tune_outcomes",
                 column_config={"提问页": st.column_config.LinkColumn("提问页", display_text="在提问页打开"),
                                "最高排序分": st.column_config.NumberColumn(format="%.3f"),
                                "关键词覆盖": st.column_config.NumberColumn(format="%.2f"),
                                "资料外词权重": st.column_config.NumberColumn(format="%.2f")})


def _knob_choice(key: str, decides: bool) -> str:
    names = ("threshold", "min_coverage", "max_unknown_weight") if decides else ("threshold",)
    return st.radio("看哪个参数", names, format_func=LABELS.get, key=key, horizontal=True)


def histogram_tab(evaluated: EvaluatedSet, evaluation: Evaluation) -> None:
    knob = _knob_choice("tune_hist_knob", evaluated.decides)
    st.markdown(f"**闸门拿来和「{LABELS[knob]}」比较的数值的分布**（绿色应回答、红色应拒答；实线是当前值）")
    frame = histogram_frame(distribution(evaluated, evaluation, knob))
    st.altair_chart(score_histogram(frame, knob, getattr(evaluation.knobs, knob)), width="stretch")


def curves_tab(evaluated: EvaluatedSet, knobs: Knobs, suggestion: Suggestion) -> None:
    knob = _knob_choice("tune_curve_knob", evaluated.decides)
    curve = sweep(evaluated, knobs, knob)
    st.markdown(f"**各指标随「{LABELS[knob]}」的变化**（其余参数保持滑块位置；实线当前值，虚线建议值）")
    st.altair_chart(metric_curves(curve, getattr(suggestion.knobs, knob)), width="stretch")


def what_if_tab(evaluated: EvaluatedSet, evaluation: Evaluation, baseline: Evaluation,
                suggestion: Suggestion) -> None:
    compare = st.radio("对比", ["当前默认值 → 滑块位置", "滑块位置 → 建议值"], key="tune_compare", horizontal=True)
    if compare.startswith("当前默认值"):
        flips = what_if(evaluated, baseline, evaluation)
        title = f"{baseline.knobs.describe()} → {evaluation.knobs.describe()}"
    else:
        flips = what_if(evaluated, evaluation, evaluate_at(evaluated, suggestion.knobs))
        title = f"{evaluation.knobs.describe()} → 建议值 {suggestion.knobs.describe()}"
    better, worse = sum(f.better for f in flips), sum(f.worse for f in flips)
    st.markdown(f"{title}：**{len(flips)}** 题结果会变，变好 {better} 题，变差 {worse} 题。")
    if flips:
        st.dataframe(pd.DataFrame([{"行号": row_number(f.line), "问题": f.question, "预期": f.expectation,
                                    "之前": f.before, "之后": f.after, "之后的判断理由": f.reason,
                                    "变化": "变好" if f.better else "变差" if f.worse else "—"} for f in flips]),
                     hide_index=True, width="stretch", key="tune_flips")


FACTORY = "factory"  # the 「恢复哪一次保存的参数」 option for the values before anyone saved a default here


def history_tab(defaults: DefaultsStore, settings: Settings, base: Settings, actor: str) -> None:
    history = defaults.history()
    if not history:
        st.caption("还没有人在这里保存过默认值：现在用的就是出厂值（校准文件和环境设置）。")
        return
    user = current_user()
    if user is not None and user.can("set_threshold"):
        cols = st.columns([3, 1], vertical_alignment="bottom")
        options = [FACTORY, *history]
        chosen = cols[0].selectbox("恢复哪一次保存的参数", options, key="tune_restore_pick", index=1,
                                   format_func=lambda c: f"出厂值（校准文件和环境设置）：{base.knobs.describe()}"
                                   if c == FACTORY else f"{c.at.astimezone():%Y-%m-%d %H:%M} {c.actor}："
                                                        f"{c.knobs(settings.knobs).describe()}")
        knobs = base.knobs if chosen == FACTORY else chosen.knobs(settings.knobs)
        if cols[1].button("恢复这组参数…", key="tune_restore", help="先显示恢复前后的对比和会改变的问题，确认后才保存"):
            if not actor:
                st.error("请先在页面上方填写「操作人」，修改默认值要记录是谁改的。")
            elif knobs == settings.knobs:
                st.info("这组参数就是当前的默认值，不用恢复。")
            else:
                st.session_state[RESTORE] = knobs.to_dict()
                st.rerun()
    st.dataframe(pd.DataFrame([{
        "时间": c.at.astimezone().strftime("%Y-%m-%d %H:%M"), "操作人": c.actor,
        "修改": c.summary.split("：", 1)[-1],
        "当时的判断正确": f"{c.metrics.get('correct', '—')}/{c.metrics.get('total', '—')}",
        "题集": f"{c.metrics.get('question_set', '')} 第 {c.metrics.get('set_version', '')} 版",
        "备注": c.note} for c in history]), hide_index=True, width="stretch", key="tune_history")


guard_page("ask")
st.title("阈值调优")
st.caption("用一份标注好的题集，看闸门的四个参数改动后每道题的结果怎么变；这里的数字就是提问页、命令行在同样参数下的判断。"
           "确认后设为默认，提问页、命令行和批量运行都会用它。")

try:
    base, settings = base_settings(), get_settings()
    defaults, sets, glossary_store = get_defaults_store(), get_question_sets(), get_glossary_store()
    glossary = glossary_store.load()
except XiaoEError as error:
    st.error(md_escape(str(error)))
    st.stop()
bundle, index_error = get_index()
if index_error or bundle is None:
    st.error(md_escape(index_error) if index_error else "资料索引还没有建立，请到「资料原文」页检查资料文件夹。")
    st.stop()
assistant = get_assistant(bundle, glossary)
files, sections = corpus_catalog(bundle.index)
st.caption(f"已审答案的复用相似度下限：{settings.reuse_threshold:.2f}（{'复用已开' if settings.reuse == 'on' else '复用已关（XIAOE_REUSE=off）'}；"
           "出厂值由 python -m core calibrate 在开发复用集上按成文规则算出，XIAOE_REUSE_THRESHOLD 可覆盖，见「已审答案」文档）。")

if FLASH in st.session_state:
    flash = st.session_state.pop(FLASH)
    st.toast(md_escape(flash), icon=":material/check_circle:")  # seen wherever the consultant is looking
    st.success(md_escape(flash))
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
    stored = stored_set(settings.db_url, name, version)
except XiaoEError as error:
    st.error(md_escape(str(error)))
    st.stop()
try:
    evaluated = evaluated_for(stored.questions.content_hash, bundle.fingerprint, glossary.fingerprint,
                              settings.answerability, stored.questions, assistant)
except XiaoEError as error:
    st.error(str(error))
    st.stop()

if (restoring := st.session_state.pop(RESTORE, None)) is not None:  # 「恢复这组参数…」: the same confirmation
    _apply(Knobs(**restoring))
    st.session_state[CONFIRM] = True
knobs = knob_sliders(settings, evaluated.decides)
evaluation = evaluate_at(evaluated, knobs)
baseline = evaluate_at(evaluated, settings.knobs)
suggestion = suggestion_for(stored.questions.content_hash, bundle.fingerprint, glossary.fingerprint, knobs.k,
                            evaluated, knobs)
m = evaluation.metrics

st.caption(f"{m.total} 题（应回答 {m.answerable}，应拒答 {m.unanswerable}）。箭头是与当前默认值"
           f"（{settings.knobs.describe()}）相比的变化。")
show_metrics(m, baseline.metrics)
grader_caption(evaluation, settings, assistant)

with st.container(border=True):
    save_default_box(defaults, settings, base, knobs=knobs, evaluation=evaluation, baseline=baseline,
                     actor=actor, snapshot={**m.to_dict(), "correct": m.correct, "question_set": name,
                                            "set_version": version, "fingerprint": bundle.fingerprint,
                                            "suggested": suggestion.knobs.to_dict()})

s_m = suggestion.metrics
st.info(f"建议值（k={knobs.k}）：**{suggestion.knobs.describe()}**，这份题集上判断正确 {s_m.correct}/{s_m.total}，"
        f"代价 {s_m.cost:g}。")
st.caption("建议规则：" + SUGGEST_RULE + "　最优区域：" + "；".join(
    f"{LABELS[n]} {lo:.2f}–{hi:.2f}" for n, (lo, hi) in suggestion.plateaus.items()))
st.button("采用建议值", key="tune_apply_suggested", on_click=_apply, args=(suggestion.knobs,))

# Only the open tab's content runs (on_change="rerun"), so a slider move redraws one tab, not all nine.
# A batch run therefore proceeds only while its tab is open (see ui/tuning_batch.py).
tabs = dict(zip(TABS, st.tabs(TABS, key="tune_tab", on_change="rerun")))
if tabs["逐题结果"].open:
    with tabs["逐题结果"]:
        outcomes_tab(evaluated, evaluation)
if tabs["分数分布"].open:
    with tabs["分数分布"]:
        histogram_tab(evaluated, evaluation)
if tabs["指标曲线"].open:
    with tabs["指标曲线"]:
        curves_tab(evaluated, knobs, suggestion)
if tabs["假如改参数"].open:
    with tabs["假如改参数"]:
        what_if_tab(evaluated, evaluation, baseline, suggestion)
if tabs["误判与同义词"].open:
    with tabs["误判与同义词"]:
        render_misses(evaluated, evaluation, glossary_store, glossary_size=len(glossary), actor=actor)
if tabs["题集管理"].open:
    with tabs["题集管理"]:
        render_set_manager(sets, stored, files=files, sections=sections, actor=actor)
if tabs["运行记录"].open:
    with tabs["运行记录"]:
        try:
            run_store = get_run_store()
        except XiaoEError as error:
            st.error(md_escape(f"运行记录暂不可用：{error}"))
        else:
            render_runs_tab(run_store, assistant, evaluation, set_name=name, set_version=version, actor=actor)
if tabs["默认值修改记录"].open:
    with tabs["默认值修改记录"]:
        history_tab(defaults, settings, base, actor)
if tabs["批量运行"].open:
    with tabs["批量运行"]:
        try:
            queue = get_review_store()
        except XiaoEError as error:
            st.warning(md_escape(f"复核队列暂不可用：{error}"))
            queue = None
        try:
            runs = get_run_store()
        except XiaoEError as error:
            st.warning(md_escape(f"运行记录暂不可用，本次批量运行不能和基准比较：{error}"))
            runs = None
        render_batch(stored, assistant, knobs=knobs, queue=queue, actor=actor, runs=runs)
