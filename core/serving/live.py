"""The Assistant a long-running process serves (the student service): the holder's index, and the consultants'
glossary and the saved default knobs read again at most every `refresh_s`, the chain rebuilt only when one of them
changed. An admin's corpus edit reaches it through the holder (seconds); a glossary or default change within
`refresh_s`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from core.answering.providers import make_chat_model
from core.assistant import Assistant, build_assistant
from core.serving.holder import IndexHolder, prepare_analyzer
from core.settings import Settings
from core.stores.approved import ApprovedStore
from core.stores.contradictions import ContradictionStore
from core.stores.db import open_database
from core.stores.defaults import effective_settings
from core.stores.glossary import GlossaryStore

REFRESH_S = 2.0


class LiveAssistant:
    """`current()` is the Assistant in force; safe to call from many request threads at once."""

    def __init__(self, settings: Settings, holder: IndexHolder, *, refresh_s: float = REFRESH_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.holder = holder
        self.refresh_s = refresh_s
        self._clock = clock
        self._lock = threading.Lock()
        self._assistant: Assistant | None = None
        self._key: tuple[str, str, str] = ("", "", "")
        self._checked = float("-inf")
        db = open_database(settings.db_url)
        self._approved = ApprovedStore(db) if settings.reuse == "on" else None
        self._contradictions = ContradictionStore(db)

    @classmethod
    def start(cls, settings: Settings, **options) -> LiveAssistant:
        """Sync the corpus, build the first index and chain (CorpusError if the corpus is unusable), start watching."""
        holder = IndexHolder.start(settings, prepare=prepare_analyzer(settings))
        live = cls(settings, holder, **options)
        live.current()
        return live

    def current(self) -> Assistant:
        now = self._clock()
        assistant = self._assistant
        if assistant is not None and now - self._checked < self.refresh_s \
                and assistant.fingerprint == self.holder.bundle().fingerprint:
            return assistant
        with self._lock:
            if self._assistant is not None and self._clock() - self._checked < self.refresh_s \
                    and self._assistant.fingerprint == self.holder.bundle().fingerprint:
                return self._assistant
            bundle = self.holder.bundle()
            settings = effective_settings(self.settings)
            glossary = GlossaryStore.open(settings).load() if settings.answerability == "on" else None
            key = (bundle.fingerprint, glossary.fingerprint if glossary else "", settings.key)
            if self._assistant is None or key != self._key:
                self._assistant = build_assistant(settings, bundle, glossary, chat_model=make_chat_model(settings),
                                                  approved=self._approved, contradictions=self._contradictions)
                self._key = key
            self._checked = self._clock()
            return self._assistant

    def stop(self) -> None:
        self.holder.stop()
