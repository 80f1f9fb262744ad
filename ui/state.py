"""The console's resources: the run's settings, the served index (core.serving.holder), the assistant, the stores.

Settings are resolved once per script run, by the router (`begin_run`): environment + .streamlit/secrets.toml
(core.settings.Settings.load) + the default saved on the tuning page (one read); every page and helper
reads that one object (`get_settings`). The heavy objects are cached with `st.cache_resource`, keyed on
the settings' digest (`Settings.key`) and fingerprints, never on a hand-written list of fields. Nothing
cached holds records: the index holder follows the database-held corpus on its own (a background thread),
and saved defaults, glossary, accounts and sessions are read from the database.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st
from streamlit.errors import StreamlitSecretNotFoundError

from core.answerability.glossary import Glossary
from core.answering.providers import make_chat_model
from core.assistant import Assistant, build_assistant
from core.corpus.loader import read_markdown
from core.errors import ConfigError, StoreError, XiaoEError
from core.memory import keep_long_lived
from core.retrieval.store import IndexBundle
from core.serving.holder import HolderStatus, IndexHolder, prepare_analyzer
from core.settings import Settings
from core.stores.api_keys import KeyStore
from core.stores.approved import ApprovedStore
from core.stores.asked import AskedStore
from core.stores.contradictions import ContradictionStore
from core.stores.conversations import ConversationStore
from core.stores.corpus_admin import CorpusAdmin
from core.stores.corpus_sync import instance_name, refusals
from core.stores.db import open_database
from core.stores.defaults import DefaultChange, DefaultsStore, resolve_defaults
from core.stores.feedback import FeedbackStore
from core.stores.glossary import GlossaryStore
from core.stores.glossary_admin import GlossaryAdmin  # noqa: F401 - re-exported for the glossary page
from core.stores.question_sets import QuestionSetStore
from core.stores.review import ReviewStore
from core.stores.roles import User
from core.stores.runs import RunStore
from core.stores.wecom_outbox import WeComOutbox
from ui.source_view import Overview, overview

RUN = "_run_settings"


@dataclass(frozen=True)
class RunSettings:
    """What `begin_run` resolved for this script run."""

    base: Settings | None  # env + secrets (None when a value cannot work: `error` says why)
    settings: Settings | None  # with the saved default applied
    saved: DefaultChange | None  # the saved default in force, if any
    error: str = ""  # a ConfigError's Chinese message
    warning: str = ""  # the saved defaults could not be read (the configured ones are used)


def _secrets() -> dict[str, str]:
    """XIAOE_* keys from .streamlit/secrets.toml."""
    try:
        return {k: str(v) for k, v in st.secrets.to_dict().items() if k.startswith("XIAOE_")}
    except (StreamlitSecretNotFoundError, FileNotFoundError):
        return {}


def resolve_run() -> RunSettings:
    """Build the run's settings: one Settings.load, one read of the saved default."""
    try:
        base = Settings.load(secrets=_secrets())
    except ConfigError as error:
        return RunSettings(None, None, None, error=str(error))
    try:
        resolved = resolve_defaults(base)
    except StoreError as error:
        return RunSettings(base, base, None, warning=(
            f"无法读取已保存的默认阈值，暂用配置中的默认值（{base.min_score:.2f}，k={base.top_k}）：{error}"))
    return RunSettings(base, resolved.settings, resolved.saved)


def begin_run() -> RunSettings:
    """Called by the router at the top of every script run: the one settings build of this run."""
    run = resolve_run()
    st.session_state[RUN] = run
    return run


def current_run() -> RunSettings:
    run = st.session_state.get(RUN)
    return run if isinstance(run, RunSettings) else begin_run()  # a page run without the router (fragments)


def get_settings() -> Settings:
    """The run's settings, the saved default applied (ConfigError, Chinese, when a value cannot work)."""
    run = current_run()
    if run.settings is None:
        raise ConfigError(run.error)
    return run.settings


def base_settings() -> Settings:
    """The run's settings before the saved default: what a new default is saved against."""
    run = current_run()
    if run.base is None:
        raise ConfigError(run.error)
    return run.base


def saved_default() -> DefaultChange | None:
    return current_run().saved


@st.cache_resource(show_spinner="正在建立资料索引…", max_entries=2, on_release=IndexHolder.stop)
def _holder(key: str, _settings: Settings) -> IndexHolder:
    return IndexHolder.start(_settings, prepare=prepare_analyzer(_settings))


def _served_holder() -> IndexHolder:
    # Keyed on the settings before the saved default: saving new knobs never rebuilds the index.
    settings = base_settings()
    return _holder(settings.key, settings)


def _frozen(value):
    """A long-lived cached object, kept out of the cyclic GC's scans (core.memory.keep_long_lived)."""
    keep_long_lived()
    return value


def get_index() -> tuple[IndexBundle | None, str | None]:
    """The index bundle being served, or (None, Chinese error) when the corpus or a setting is unusable."""
    try:
        return _served_holder().bundle(), None
    except XiaoEError as error:
        return None, str(error)


def get_index_status() -> HolderStatus | None:
    """What the holder last did (problems of the last sync or rebuild), or None before the first build."""
    try:
        return _served_holder().status
    except XiaoEError:
        return None


def rebuild_index(actor: User | None = None) -> str | None:
    """Sync with the database and rebuild now: after a save on this instance (no `actor`: the save was
    authorised), or on a person's request (`actor`: admins only, refused in core); returns a Chinese
    message when that failed or was refused (the previous index keeps being served)."""
    try:
        holder = _served_holder()
        if actor is None:
            holder.refresh()
        else:
            holder.rebuild(actor)
    except XiaoEError as error:
        return str(error)
    return None


@st.cache_resource(show_spinner=False)
def _review_store(db_url: str) -> ReviewStore:
    return ReviewStore(open_database(db_url))


def get_review_store() -> ReviewStore:
    """The review queue on the configured database (StoreError / ConfigError carry Chinese messages)."""
    return _review_store(get_settings().db_url)


def get_defaults_store() -> DefaultsStore:
    return DefaultsStore(open_database(get_settings().db_url))


def get_question_sets() -> QuestionSetStore:
    return QuestionSetStore(open_database(get_settings().db_url))


def get_asked_store() -> AskedStore:
    """Each consultant's questions on the Ask page (core.stores.asked)."""
    return AskedStore(open_database(get_settings().db_url))


def get_run_store() -> RunStore:
    """Stored evaluation runs and the baseline (core.stores.runs)."""
    return RunStore(open_database(get_settings().db_url))


def get_glossary_store() -> GlossaryStore:
    return GlossaryStore(open_database(get_settings().db_url))


def get_glossary_admin() -> GlossaryAdmin:
    return GlossaryAdmin(open_database(get_settings().db_url))


def get_approved_store() -> ApprovedStore:
    return ApprovedStore(open_database(get_settings().db_url))


def get_conversation_store() -> ConversationStore:
    """Students' conversations through the student service (core.stores.conversations)."""
    return ConversationStore(open_database(get_settings().db_url))


def get_wecom_outbox() -> WeComOutbox:
    """What the WeChat channel sent or holds for each student (core.stores.wecom_outbox)."""
    return WeComOutbox(open_database(get_settings().db_url))


def get_sensitive_store():
    """The 敏感词 list (core.stores.sensitive_words)."""
    from core.stores.sensitive_words import SensitiveStore
    return SensitiveStore(open_database(get_settings().db_url))


def get_key_store() -> KeyStore:
    """The student service's API keys (core.stores.api_keys)."""
    return KeyStore(open_database(get_settings().db_url))


def get_feedback_store() -> FeedbackStore:
    return FeedbackStore(open_database(get_settings().db_url))


def get_corpus_admin() -> CorpusAdmin:
    settings = get_settings()
    return CorpusAdmin(open_database(settings.db_url), settings.corpus_dir,
                       chunking=(settings.chunk_size, settings.chunk_overlap))


def refused_elsewhere() -> tuple[str, ...]:
    """Files other instances refuse to record (not UTF-8), named with their instance; this one's are in the status."""
    settings = get_settings()
    try:
        return tuple(r.sentence for r in refusals(open_database(settings.db_url),
                                                  other_than=instance_name(settings.corpus_dir)))
    except XiaoEError as error:
        return (f"读不到其他审核台的资料同步问题：{error}",)


def corpus_text(name: str) -> str:
    """One corpus file's text as this instance serves it (CorpusError / OSError when unreadable)."""
    return read_markdown(get_settings().corpus_dir / name)


@st.cache_resource(show_spinner=False, max_entries=2)
def _overview(fingerprint: str, _bundle: IndexBundle) -> Overview:
    return overview(_bundle.index.chunks)


def get_overview(bundle: IndexBundle) -> Overview:
    """Per-file chunk and section counts plus index facts for the Sources page (once per fingerprint)."""
    return _overview(bundle.fingerprint, bundle)


def get_glossary() -> Glossary:
    """The consultants' synonym table from the database (StoreError carries a Chinese message)."""
    return get_glossary_store().load()


_served = ""  # the fingerprint the cached assistants belong to


@st.cache_resource(show_spinner="正在准备可答性判断…", max_entries=4)
def _assistant(fingerprint: str, glossary_fingerprint: str, settings_key: str, _settings: Settings,
               _bundle: IndexBundle, _glossary: Glossary | None) -> Assistant:
    db = open_database(_settings.db_url)
    approved = ApprovedStore(db) if _settings.reuse == "on" else None
    return _frozen(build_assistant(_settings, _bundle, _glossary, chat_model=make_chat_model(_settings),
                                   approved=approved, contradictions=ContradictionStore(db)))


def get_assistant(bundle: IndexBundle, glossary: Glossary | None) -> Assistant:
    """The one composition (core.assistant) from the cached index, this glossary and the run's settings
    (saved default knobs, configured model); built once per distinct combination."""
    settings = get_settings()
    global _served
    if _served != bundle.fingerprint:  # the holder swapped in a new index: let the old one go
        _assistant.clear()
        _served = bundle.fingerprint
    return _assistant(bundle.fingerprint, glossary.fingerprint if glossary else "", settings.key, settings, bundle,
                      glossary)
