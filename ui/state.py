"""Cached accessors the pages share: settings, the index (keyed on the corpus fingerprint), stores."""

from __future__ import annotations

import streamlit as st
from streamlit.errors import StreamlitSecretNotFoundError

from core.db import open_database
from core.errors import XiaoEError
from core.index_store import IndexBundle, corpus_fingerprint, load_or_build
from core.review import ReviewStore
from core.settings import Settings


def _secret_overrides() -> dict[str, str]:
    """XIAOE_* keys from .streamlit/secrets.toml, passed on as if they were environment variables."""
    try:
        return {k: str(v) for k, v in st.secrets.to_dict().items() if k.startswith("XIAOE_")}
    except (StreamlitSecretNotFoundError, FileNotFoundError):
        return {}


def get_settings() -> Settings:
    """Settings from env + secrets (raises ConfigError with a Chinese message on a bad value)."""
    import os

    return Settings.from_env({**os.environ, **_secret_overrides()})


@st.cache_resource(show_spinner="正在建立资料索引…", max_entries=2)
def _bundle(fingerprint: str, _settings: Settings) -> IndexBundle:
    return load_or_build(_settings)


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
