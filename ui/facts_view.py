"""The Sources page's 「学校事实」 section: the facts read from the documents, each with its sentence, and the
facts no sentence states (core.facts.show builds the rows; this module only draws them, as text)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.facts.show import fact_rows, missing_rows
from core.values.facts import SchoolFacts
from ui.escape import md_escape


def fact_table(facts: SchoolFacts) -> pd.DataFrame:
    """One row per fact: 事实, 值, 出处, 原句 (plain values, tested without Streamlit)."""
    return pd.DataFrame([{"事实": r["label"], "值": r["shown"], "出处": f"{r['file']} · {r['section'] or '文首'}",
                          "原句": r["sentence"]} for r in fact_rows(facts)], columns=["事实", "值", "出处", "原句"])


def missing_lines(facts: SchoolFacts) -> list[str]:
    return [f"资料里没有写明「{r['label']}」：应有一句像{r['expected']}的话。要用到它的回答会说缺这一条，不会用旧数字。"
            for r in missing_rows(facts)]


def render_school_facts(facts: SchoolFacts) -> None:
    st.subheader("学校事实")
    st.caption("退费、转班、级别差价按这些事实计算；它们在每次建立索引时从资料里读出，改了资料，下一个问题就按新的算。")
    for line in missing_lines(facts):
        st.warning(md_escape(line))
    table = fact_table(facts)
    if table.empty:
        st.info("资料里没有读到任何学校事实。")
        return
    st.table(table.set_index("事实"))
