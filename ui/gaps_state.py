"""The 资料缺口 board's resources: its topic store, the assistant it groups with, and the cached analysis.

The analysis (every question retrieved once, then grouped: core.gaps.board.analyse) is the slow step, so it
is cached on what decides it: the corpus and glossary fingerprints, the settings and the questions with
their hints. Matching the groups to the stored topics and reading owners and statuses run on every rerun
(core.gaps.board.assemble), so an admin's change shows at once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import streamlit as st

from core.assistant import Assistant
from core.errors import StoreError, XiaoEError
from core.gaps.board import Analysis, Board, BoardQuestion, analyse, assemble, collect, keep_refused
from core.stores.db import open_database
from core.stores.gaps import GapStore
from ui.escape import md_escape
from ui.state import get_assistant, get_glossary, get_index, get_review_store, get_settings


def get_gap_store() -> GapStore:
    """The board's topics on the configured database (StoreError / ConfigError carry Chinese messages)."""
    return GapStore(open_database(get_settings().db_url))


def current_assistant() -> Assistant:
    """The one composition on the index being served and the consultants' glossary (XiaoEError in Chinese)."""
    bundle, error = get_index()
    if error:
        raise StoreError(error)
    return get_assistant(bundle, get_glossary())


def _digest(questions: Sequence[BoardQuestion]) -> str:
    raw = "\x1e".join(f"{q.key}\x1f{q.question}\x1f{q.hint}" for q in questions)
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()


@st.cache_resource(show_spinner="正在把资料缺口分成话题…", max_entries=4)
def _analysis(fingerprint: str, glossary: str, settings_key: str, digest: str, _assistant: Assistant,
              _questions: tuple[BoardQuestion, ...]) -> Analysis:
    return analyse(_assistant, _questions)


def get_board() -> Board:
    """The board as it stands: the queue's gap questions grouped, matched to the stored topics; a 不补充
    topic's refusals are marked 预期拒答 on the way (by 小E)."""
    assistant = current_assistant()
    review, gaps = get_review_store(), get_gap_store()
    questions = collect(review, gaps)
    glossary = assistant.glossary.fingerprint if assistant.glossary else ""
    analysis = _analysis(assistant.fingerprint, glossary, assistant.settings.key, _digest(questions), assistant,
                         questions)
    board = assemble(questions, analysis, gaps)
    try:
        keep_refused(board, review)
    except XiaoEError as error:  # the board still shows; the next run tries again
        st.warning(md_escape(f"把「不补充」话题的拒答标为预期拒答时出错：{error}"))
    return board
