"""The Sources page's contradictions: the sentences a change would leave stating the old rule (listed before the save
is confirmed) and those the documents still disagree on (each with 「这句不矛盾」), every one linked to its place.

The sentences come from core (core.reuse.drift.still_stating through CorpusAdmin.still_stating, and
core.stores.contradictions); here they are only escaped, linked to the chunk of the served index that holds them, and
drawn. The list is plain Markdown built from escaped text.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from core.errors import XiaoEError
from core.stores.contradictions import ContradictionStore
from core.stores.roles import User
from core.values import Contradiction
from ui.answer_view import md_escape
from ui.auth import authorize
from ui.source_view import source_url
from ui.state import get_index


def sentence_url(source: str, sentence: str) -> str | None:
    """A link to the chunk of the served index holding `sentence` in `source` (None when none holds it whole)."""
    bundle, _error = get_index()
    if bundle is None:
        return None
    chunk = next((d.metadata["chunk"] for d in bundle.index.chunks
                  if d.metadata.get("source") == source and sentence in d.page_content), None)
    return source_url(source, chunk, cite=sentence) if chunk is not None else None


def line(found: Contradiction) -> str:
    """「file」section：「sentence」 (what it contradicts) [打开原文], escaped Markdown."""
    change = f"已改成「{md_escape(found.new)}」" if found.new else "已删掉"
    url = sentence_url(found.source, found.sentence)
    link = f" [打开原文]({url})" if url else ""
    return (f"- **{md_escape(found.source)}** · {md_escape(found.heading or '文首')}：「{md_escape(found.sentence)}」"
            f"{link}  \n  （「{md_escape(found.changed_source)}」里的「{md_escape(found.old)}」{change}）")


def show_before_save(found: Sequence[Contradiction], *, key: str) -> bool:
    """The sentences a save would leave stating the old rule, before it is confirmed; True when the save may go on
    (none found, or the admin ticked that they know)."""
    if not found:
        return True
    st.warning(f"这次修改之后，资料里还有 {len(found)} 句写着改之前的规定。请核对；可以先保存这一处，再逐句去改"
               "（改好之前，引用这些句子的回答会标出「资料前后矛盾」）：\n\n" + "\n".join(line(c) for c in found))
    return st.checkbox("我知道这些句子还写着旧的规定，先保存这一处", key=key)


def show_open(store: ContradictionStore, user: User) -> None:
    """The contradictions the documents still hold, each with 「这句不矛盾」 (admins: the panel is theirs)."""
    try:
        found = store.open()
    except XiaoEError as error:
        st.warning(f"读不出资料前后矛盾的记录：{md_escape(str(error))}")
        return
    if not found:
        return
    with st.expander(f"资料前后矛盾（{len(found)} 处待改）", expanded=True):
        st.caption("这些句子还写着某次修改之前的规定。改掉这句、或把原来的规定恢复，它就会从这里消失；"
                   "确实不矛盾的，点「这句不矛盾」。")
        for recorded in found:
            st.markdown(line(recorded.contradiction))
            if st.button("这句不矛盾", key=f"contradiction_dismiss_{recorded.id}"):
                try:
                    store.dismiss(user, recorded.id, authorize=authorize())
                except XiaoEError as error:
                    st.error(md_escape(str(error)))
                    return
                st.rerun()
