"""The 误判与同义词 tab of the tuning page: every wrong outcome of the real gate at the slider values,
with its reason and the 「加入同义词」 loop.

The outcomes are the tuning page's own evaluation (core.evaluation.metrics through the one gate); adding
a synonym changes the glossary fingerprint, so the page retrieves the set again and the
consultant sees the effect on the headline numbers.
"""

from __future__ import annotations

import streamlit as st

from core.errors import XiaoEError
from core.evaluation.metrics import FALSE_REFUSAL, EvaluatedSet, Evaluation
from core.evaluation.misses import explain_misses
from core.stores.glossary import GlossaryStore
from core.stores.glossary_admin import GlossaryAdmin
from ui.answer_view import md_escape
from ui.auth import authorize, current_user

FLASH = "tune_flash"
MAX_MISSES_SHOWN = 30


def render_misses(evaluated: EvaluatedSet, evaluation: Evaluation, store: GlossaryStore | None, *,
                  glossary_size: int, actor: str) -> None:
    st.caption(f"下面是当前滑块下判断错误的题（与上方的数字是同一次判断）。同义词表现有 {glossary_size} 条；"
               "误拒的题会列出命中片段里缺的词，可以把学员的说法加为资料里对应词的同义词。")
    misses = explain_misses(evaluated, evaluation)
    if not misses:
        st.success("当前设置下没有判断错误的题。")
        return
    for i, miss in enumerate(misses[:MAX_MISSES_SHOWN]):
        with st.container(border=True):
            st.markdown(f"**{miss.outcome}**　{md_escape(miss.question)}")
            st.caption(md_escape(f"判断理由：{miss.reason}"))
            st.caption(md_escape(miss.hint))
            if miss.outcome == FALSE_REFUSAL and miss.words and store is not None:
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
    try:  # an admin adds; a consultant's addition waits as a proposal (the role is checked in core)
        submitted = GlossaryAdmin(store.db).submit(current_user(), term, word, authorize=authorize())
    except XiaoEError as error:
        st.error(md_escape(str(error)))
        return
    st.session_state[FLASH] = submitted.message + ("下面是重新评测的结果。" if submitted.proposal_id is None else "")
    st.rerun()

