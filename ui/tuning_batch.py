"""The batch-run section of the tuning page: the whole set through the Assistant (gate, configured model, checks).

How cancelling works in Streamlit: the script cannot be interrupted from inside a loop, but a
click on any widget makes Streamlit stop the running script at its next `st.*` call (here the
progress update after each question) and start a new run. The 取消 button's on_click callback
runs first in that new run and sets a session flag; the batch code sees the flag and does not
resume. Progress lives in `st.session_state[STATE]` and is updated after every question before
any `st.*` call, so nothing already answered is lost or answered (and queued) twice; a rerun
caused by any other widget (e.g. a slider) resumes the batch where it stopped. The tuning page
draws only its open tab, so a batch proceeds while the 批量运行 tab is open and resumes when
the consultant comes back to it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pandas as pd
import streamlit as st

from core.answering.provider_info import grader_state
from core.assistant import Assistant
from core.errors import XiaoEError
from core.evaluation.batch import rows_to_csv, run_one
from core.evaluation.metrics import OUTCOMES, Evaluation
from core.evaluation.model_eval import band_count
from core.evaluation.runs import run_from_batch
from core.knobs import Knobs
from core.settings import Settings
from core.stores.question_sets import StoredSet
from core.stores.review import ReviewStore
from core.stores.runs import RunStore
from ui.auth import authorize
from ui.escape import md_escape
from ui.tuning_runs import show_baseline_flips

STATE = "tune_batch"
CANCEL = "tune_batch_cancelled"


def _start(key: tuple, knobs: Knobs) -> None:
    st.session_state[STATE] = {"key": key, "knobs": knobs, "next": 0, "rows": [], "kept": [], "status": "running"}
    st.session_state[CANCEL] = False


def _cancel() -> None:
    st.session_state[CANCEL] = True


def render_batch(stored: StoredSet, assistant: Assistant, *, knobs: Knobs, queue: ReviewStore | None,
                 actor: str, runs: RunStore | None = None) -> None:
    questions = stored.questions.questions
    key = (stored.info.name, stored.info.version, stored.questions.content_hash, assistant.fingerprint)
    model = "离线答题器" if assistant.offline else f"模型 {assistant.settings.llm_model}"
    if assistant.grades:
        model += "（不确定区间的题先由模型判定能否回答，见「模型判定」列）"
    st.caption(f"把「{md_escape(stored.info.name)}」第 {stored.info.version} 版的 {len(questions)} 道题逐一交给小E 作答"
               f"（同一个闸门 + {model} + 出处检查），{knobs.describe()}。"
               + ("有问题的回答会进入复核队列的「批量评测」通道。" if queue else "复核队列暂不可用，本次只出结果不入队。"))
    st.button("开始批量运行", key="batch_start", on_click=_start, args=(key, knobs), type="primary")
    state = st.session_state.get(STATE)
    if not state:
        return
    if state["status"] == "running" and state["key"] != key:
        state["status"] = "stale"
    if state["status"] == "running":
        st.button("取消", key="batch_cancel", on_click=_cancel)
        if st.session_state.get(CANCEL):
            state["status"] = "cancelled"
        else:
            _run(state, questions, assistant, queue, actor)
    _show(state, len(questions))
    if runs is not None and state["status"] == "done" and state.get("kept"):
        _keep(state, stored, assistant, runs, actor)


def _keep(state: dict, stored: StoredSet, assistant: Assistant, runs: RunStore, actor: str) -> None:
    """The finished batch as a run: its flips against the baseline, and a form to save it."""
    if "run" not in state:
        state["run"] = run_from_batch("（本次批量运行）", assistant, stored.questions.questions, state["kept"],
                                      knobs=state["knobs"], set_name=stored.info.name,
                                      set_version=stored.info.version, set_hash=stored.questions.content_hash,
                                      actor=actor or "（未填写）")
    show_baseline_flips(runs, state["run"], key="batch_cmp")
    with st.form("batch_save_run"):
        name = st.text_input("运行名称", key="batch_run_name", max_chars=100, placeholder="例如：换模型之后")
        if st.form_submit_button("把这次批量运行保存为运行"):
            if not actor:
                st.error("请先在页面上方填写「操作人」，保存运行要记录是谁做的。")
                return
            try:
                saved = runs.save(replace(state["run"], name=name, actor=actor), authorize=authorize())
            except XiaoEError as error:
                st.error(md_escape(str(error)))
                return
            st.success(f"已保存运行「{md_escape(saved.name)}」，可在「运行记录」里和其他运行比较。")


def _run(state: dict, questions, assistant: Assistant, queue: ReviewStore | None, actor: str) -> None:
    total = len(questions)
    bar = st.progress(state["next"] / total if total else 1.0, text=f"已完成 {state['next']}/{total}")
    for i in range(state["next"], total):
        if st.session_state.get(CANCEL):  # set by the 取消 callback; see the module docstring
            state["status"] = "cancelled"
            return
        try:
            row = run_one(questions[i], assistant, knobs=state["knobs"], queue=queue, flagged_by=actor or None)
        except XiaoEError as error:  # e.g. the queue's database is locked: stop, keep what is done
            state["status"] = "failed"
            state["error"] = str(error)
            return
        state["rows"].append(row.to_dict())
        state["kept"].append(row)
        state["next"] = i + 1
        bar.progress((i + 1) / total, text=f"已完成 {i + 1}/{total}：{questions[i].question[:30]}")
    state["status"] = "done"


def grader_caption(evaluation: Evaluation, settings: Settings, assistant: Assistant) -> None:
    """The grader's band on this set at the sliders' knobs: how many questions would go to the model."""
    if not evaluation.evaluated.decides:
        return
    count = band_count(evaluation.gates, settings.grader_band)
    state = "已开启" if assistant.grades else "未生效（" + grader_state(settings) + "）"
    st.caption(f"模型判定（XIAOE_GRADER）{state}：按当前参数，这份题集有 {count} 题在不确定区间"
               f"（关键词覆盖比下限低 {settings.grader_band_coverage:.0%} 以内，资料外的词权重不超过 "
               f"{settings.grader_band_unknown:.2f}）；开启后这些题会先交给模型判定，其余题不调用模型。"
               "区间的两个边界在设置页查看，用环境变量修改；上面的指标只算闸门，含模型的结果请用「批量运行」。")


def _show(state: dict, total: int) -> None:
    rows = state["rows"]
    status = state["status"]
    done = len(rows)
    if status == "done":
        st.success(f"批量运行完成：{done} 题。")
    elif status == "cancelled":
        st.warning(f"已取消：完成了 {done}/{total} 题，下面是已完成部分的结果。")
    elif status == "stale":
        st.warning(f"题集、版本或资料在运行途中变了，已停止（完成 {done}/{total} 题）。请重新开始批量运行。")
    elif status == "failed":
        st.error(md_escape(f"批量运行中断（完成 {done}/{total} 题）：{state.get('error', '')}"))
    if not rows:
        return
    counts = Counter(r["结果"] for r in rows)
    queued = sum(1 for r in rows if r["复核条目"])
    st.caption("　".join(f"{o} {counts.get(o, 0)}" for o in (*OUTCOMES, "模型故障") if counts.get(o) or o in OUTCOMES)
               + f"　｜　进入复核队列 {queued} 条")
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", key="batch_results")
    st.download_button("下载批量结果（CSV）", rows_to_csv(rows), file_name="批量评测结果.csv", mime="text/csv",
                       key="batch_download")
