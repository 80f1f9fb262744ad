"""The 关键词判定 tab of the tuning page: the full answer/refuse decision and the 「加入同义词」 loop.

core.answerability decides from more than the top score (keyword coverage, words absent from
the corpus, glossary synonyms). Its evaluation retrieves per (threshold, k), so it runs only
while this tab is open and is cached on (set, corpus, glossary, threshold, k); adding a synonym
changes the glossary fingerprint, so the next run re-evaluates and the consultant sees the effect.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.answerability import OUTCOMES, QuestionOutcome, evaluate_decisions, explain_misses
from core.db import Database
from core.errors import XiaoEError
from core.evaluation import Metrics
from core.glossary import Glossary
from core.glossary_store import GlossaryStore
from core.index_store import IndexBundle
from core.question_sets import StoredSet
from ui.answer_view import md_escape

FLASH = "tune_flash"
MAX_MISSES_SHOWN = 30


@st.cache_data(show_spinner="正在用完整判定逐题评测（同义词表或阈值变化后重算）…", max_entries=16)
def decisions(content_hash: str, fingerprint: str, glossary_fingerprint: str, threshold: float, k: int,
              _stored: StoredSet, _bundle: IndexBundle, _glossary: Glossary) -> tuple[QuestionOutcome, ...]:
    rows = [{"question": q.question, "expected": q.expected or "应拒答", "key_phrase": q.key_phrase}
            for q in _stored.questions.questions]
    return evaluate_decisions(rows, _bundle, _glossary, threshold, k)


def render_decisions(stored: StoredSet, bundle: IndexBundle, db: Database, *, threshold: float, k: int,
                     threshold_only: Metrics, actor: str) -> None:
    st.caption("「只看分数」是滑块阈值的结果；「完整判定」再加上关键词覆盖和资料外的词（同义词表参与），"
               "是提问页启用关键词判定后的行为。误拒的题下面会列出资料里找不到的词，可以把它们加为同义词后重新评测。")
    try:
        store = GlossaryStore(db)
        glossary = store.load()
        outcomes = decisions(stored.questions.content_hash, bundle.fingerprint, glossary.fingerprint,
                             threshold, k, stored, bundle, glossary)
    except XiaoEError as error:
        st.error(md_escape(str(error)))
        return
    full = {label: sum(o.outcome == label for o in outcomes) for label in OUTCOMES}
    st.dataframe(pd.DataFrame({"结果": list(OUTCOMES),
                               "只看分数": [threshold_only.count(label) for label in OUTCOMES],
                               "完整判定": [full[label] for label in OUTCOMES]}),
                 hide_index=True, key="tune_decision_counts")
    st.caption(f"同义词表现有 {len(glossary)} 条。")
    misses = explain_misses(outcomes)
    if not misses:
        st.success("完整判定下没有需要处理的题。")
        return
    for i, miss in enumerate(misses[:MAX_MISSES_SHOWN]):
        with st.container(border=True):
            st.markdown(f"**{miss.outcome}**　{md_escape(miss.question)}")
            st.caption(md_escape(miss.hint))
            if miss.outcome == "误拒" and miss.words:
                _synonym_form(store, i, miss.words, actor)
    if len(misses) > MAX_MISSES_SHOWN:
        st.caption(f"……另有 {len(misses) - MAX_MISSES_SHOWN} 题未列出。")


def _synonym_form(store: GlossaryStore, i: int, words: tuple[str, ...], actor: str) -> None:
    with st.form(key=f"tune_synonym_{i}", border=False):
        left, right, button = st.columns([2, 2, 1], vertical_alignment="bottom")
        word = left.selectbox("学员的说法", words, key=f"tune_synonym_word_{i}")
        term = right.text_input("资料里的说法（标准词）", key=f"tune_synonym_term_{i}", max_chars=20)
        if not button.form_submit_button("加入同义词"):
            return
    if not actor:
        st.error("请先在页面上方填写「操作人」，同义词表要记录是谁加的。")
        return
    try:
        entry = store.add(term, word, who=actor)
    except XiaoEError as error:
        st.error(md_escape(str(error)))
        return
    st.session_state[FLASH] = f"已加入同义词：“{entry.synonym}”视为“{entry.term}”。下面是重新评测的结果。"
    st.rerun()

