"""Cached accessors the pages share: settings, the index (keyed on the corpus fingerprint), stores."""

from __future__ import annotations

import gc
import os

import streamlit as st
from streamlit.errors import StreamlitSecretNotFoundError

from core.assistant import Assistant, build_assistant
from core.db import open_database
from core.defaults_store import effective_settings
from core.errors import StoreError, XiaoEError
from core.glossary import Glossary
from core.glossary_store import GlossaryStore
from core.index_store import IndexBundle, corpus_fingerprint, load_or_build
from core.providers import make_chat_model
from core.review import ReviewStore
from core.settings import Settings
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


@st.cache_resource(show_spinner="正在建立资料索引…", max_entries=2)
def _bundle(fingerprint: str, _settings: Settings) -> IndexBundle:
    return _frozen(load_or_build(_settings))


def _frozen(value):
    """Move a long-lived cached object out of the cyclic GC's reach.

    With 100,000 chunks every full collection would rescan millions of objects that never die
    (150–250 ms pauses in the middle of a slider move); frozen objects are skipped.
    """
    gc.collect()
    gc.freeze()
    return value


def get_index() -> tuple[IndexBundle | None, str | None]:
    """The index bundle, or (None, Chinese error) when the corpus or a setting is unusable."""
    try:
        settings = get_settings()
        return _bundle(corpus_fingerprint(settings), settings), None
    except XiaoEError as error:
        return None, str(error)


def rebuild_index() -> None:
    _bundle.clear()


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


@st.cache_resource(show_spinner="正在准备可答性判断…", max_entries=4)
def _assistant(fingerprint: str, glossary_fingerprint: str, settings_key: tuple, _settings: Settings,
               _bundle: IndexBundle, _glossary: Glossary | None) -> Assistant:
    return _frozen(build_assistant(_settings, _bundle, _glossary, chat_model=make_chat_model(_settings)))


def get_assistant(bundle: IndexBundle, glossary: Glossary | None) -> Assistant:
    """The one composition (core.assistant) from the cached index, this glossary and the settings in
    force (saved default knobs, configured model); built once per distinct combination."""
    settings = get_settings()
    key = (settings.answerability, settings.knobs, settings.max_question_chars, settings.llm_base_url,
           settings.llm_model, settings.llm_timeout, settings.llm_max_retries, settings.llm_temperature,
           bool(settings.llm_api_key), settings.grader, settings.grader_band)
    return _assistant(bundle.fingerprint, glossary.fingerprint if glossary else "", key, settings, bundle, glossary)
