"""Cached accessors the pages share: settings, the served index (core.serving.holder), stores.

Nothing cached here holds shared state: the index holder follows the database-held corpus on
its own (a background thread), and settings, saved defaults, glossary, accounts and sessions are
read from the database on every rerun; only engines and stateless store objects are cached.
"""

from __future__ import annotations

import gc
import os

import streamlit as st
from streamlit.errors import StreamlitSecretNotFoundError

from core.answerability.glossary import Glossary
from core.answering.providers import make_chat_model
from core.assistant import Assistant, build_assistant
from core.errors import StoreError, XiaoEError
from core.retrieval.store import IndexBundle
from core.serving.holder import HolderStatus, IndexHolder, prepare_analyzer
from core.settings import Settings
from core.stores.db import open_database
from core.stores.defaults import effective_settings
from core.stores.glossary import GlossaryStore
from core.stores.review import ReviewStore
from ui.escape import md_escape
from ui.source_view import Overview, overview


def _secret_overrides() -> dict[str, str]:
    """XIAOE_* keys from .streamlit/secrets.toml, passed on as if they were environment variables."""
    try:
        return {k: str(v) for k, v in st.secrets.to_dict().items() if k.startswith("XIAOE_")}
    except (StreamlitSecretNotFoundError, FileNotFoundError):
        return {}


def get_settings() -> Settings:
    """Settings from env + secrets, with the default threshold/k saved on the tuning page applied.

    Raises ConfigError (Chinese message) on a bad value. When the database cannot be read, the
    page says so and the configured defaults are used, so asking still works.
    """
    base = Settings.from_env({**os.environ, **_secret_overrides()})
    try:
        return effective_settings(base)
    except StoreError as error:
        st.warning(md_escape(f"无法读取已保存的默认阈值，暂用配置中的默认值（{base.min_score:.2f}，k={base.top_k}）：{error}"))
        return base


def _index_key(settings: Settings) -> str:
    """Everything that decides which corpus is served and how it is indexed (not the threshold or k)."""
    return "|".join(str(v) for v in (settings.corpus_dir, settings.index_dir, settings.db_url, settings.retriever,
                                      settings.chunk_size, settings.chunk_overlap, settings.embed_model,
                                      settings.embed_base_url, settings.answerability))


@st.cache_resource(show_spinner="正在建立资料索引…", max_entries=2, on_release=IndexHolder.stop)
def _holder(key: str, _settings: Settings) -> IndexHolder:
    return IndexHolder.start(_settings, prepare=prepare_analyzer(_settings))


def _frozen(value):
    """Move a long-lived cached object out of the cyclic GC's reach.

    With 100,000 chunks every full collection would rescan millions of objects that never die
    (150–250 ms pauses in the middle of a slider move); frozen objects are skipped.
    """
    gc.collect()
    gc.freeze()
    return value


def get_index() -> tuple[IndexBundle | None, str | None]:
    """The index bundle being served, or (None, Chinese error) when the corpus or a setting is unusable."""
    try:
        settings = get_settings()
        return _holder(_index_key(settings), settings).bundle(), None
    except XiaoEError as error:
        return None, str(error)


def get_index_status() -> HolderStatus | None:
    """What the holder last did (problems of the last sync or rebuild), or None before the first build."""
    try:
        settings = get_settings()
        return _holder(_index_key(settings), settings).status
    except XiaoEError:
        return None


def rebuild_index() -> str | None:
    """Sync with the database and rebuild now (after a save on this instance, or on request);
    returns a Chinese message when that failed (the previous index keeps being served)."""
    try:
        settings = get_settings()
        _holder(_index_key(settings), settings).refresh()
    except XiaoEError as error:
        return str(error)
    return None


@st.cache_resource(show_spinner=False)
def _review_store(db_url: str) -> ReviewStore:
    return ReviewStore(open_database(db_url))


def get_review_store() -> ReviewStore:
    """The review queue on the configured database (StoreError / ConfigError carry Chinese messages)."""
    return _review_store(get_settings().db_url)


@st.cache_resource(show_spinner=False, max_entries=2)
def _overview(fingerprint: str, _bundle: IndexBundle) -> Overview:
    return overview(_bundle.index.chunks)


def get_overview(bundle: IndexBundle) -> Overview:
    """Per-file chunk and section counts plus index facts for the Sources page (once per fingerprint)."""
    return _overview(bundle.fingerprint, bundle)


def get_glossary() -> Glossary:
    """The consultants' synonym table from the database (StoreError carries a Chinese message)."""
    return GlossaryStore.open(get_settings()).load()


_served = ""  # the fingerprint the cached assistants belong to


@st.cache_resource(show_spinner="正在准备可答性判断…", max_entries=4)
def _assistant(fingerprint: str, glossary_fingerprint: str, settings_key: tuple, _settings: Settings,
               _bundle: IndexBundle, _glossary: Glossary | None) -> Assistant:
    return _frozen(build_assistant(_settings, _bundle, _glossary, chat_model=make_chat_model(_settings)))


def get_assistant(bundle: IndexBundle, glossary: Glossary | None) -> Assistant:
    """The one composition (core.assistant) from the cached index, this glossary and the settings in
    force (saved default knobs, configured model); built once per distinct combination."""
    settings = get_settings()
    global _served
    if _served != bundle.fingerprint:  # the holder swapped in a new index: let the old one go
        _assistant.clear()
        _served = bundle.fingerprint
    key = (settings.answerability, settings.knobs, settings.max_question_chars, settings.llm_base_url,
           settings.llm_model, settings.llm_timeout, settings.llm_max_retries, settings.llm_temperature,
           bool(settings.llm_api_key), settings.grader, settings.grader_band)
    return _assistant(bundle.fingerprint, glossary.fingerprint if glossary else "", key, settings, bundle, glossary)
