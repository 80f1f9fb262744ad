"""The index one console process serves, kept in step with the database-held corpus by a background thread.

`IndexHolder.start(settings)` syncs the corpus folder with the database (core.stores.corpus_sync) and
builds the first index before it returns. A daemon thread then polls every `poll_s` seconds: a
new corpus version recorded by any instance (the newest `corpus_versions` id) or a change in
the folder (its fingerprint) triggers a sync and a rebuild in the thread, while pages keep
being served the old index; the new bundle replaces the old one in one assignment, and the
answerability analyzer for it is prepared before the swap, so the first question after it is
no slower than any other. `refresh()` does the same at once, for the instance that just saved.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from core.answerability.decision import analyzer_for
from core.answerability.rules import parse_rules
from core.errors import CorpusError, StoreError, XiaoEError
from core.memory import keep_long_lived, release_free_memory
from core.retrieval.index import search_with_score
from core.retrieval.store import IndexBundle, corpus_fingerprint, load_or_build
from core.settings import Settings
from core.stores.answer_refresh import refresh_answers
from core.stores.corpus_sync import SyncReport, current_generation, sync_corpus
from core.stores.corpus_versions import version_log
from core.stores.db import open_database
from core.stores.glossary import GlossaryStore
from core.stores.roles import User, require

POLL_S = 2.0
LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class HolderStatus:
    """What the Sources page can say about the served index."""

    fingerprint: str
    generation: int
    built_at: float  # time.time() of the last swap
    problems: tuple[str, ...] = ()  # the last sync's refusals, or why the last rebuild failed (Chinese)


class IndexHolder:
    """One served IndexBundle, rebuilt in the background when the shared corpus changes."""

    def __init__(self, settings: Settings, *, poll_s: float = POLL_S,
                 prepare: Callable[[IndexBundle], object] | None = None) -> None:
        self.settings = settings
        self.poll_s = poll_s
        self._prepare = prepare
        self._lock = threading.Lock()  # one sync/rebuild at a time; readers never take it
        self._bundle: IndexBundle | None = None
        self._status = HolderStatus("", 0, 0.0)
        self._seen: tuple[int, str] | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def start(cls, settings: Settings, **options) -> IndexHolder:
        """Sync, build the first index (CorpusError if the corpus is unusable), then start watching."""
        holder = cls(settings, **options)
        holder.refresh()
        if holder._bundle is None:
            raise CorpusError(" ".join(holder._status.problems) or "资料索引没有建立成功，请检查资料文件夹。")
        holder._thread = threading.Thread(target=holder._watch, name="xiaoe-corpus-watch", daemon=True)
        holder._thread.start()
        return holder

    def bundle(self) -> IndexBundle:
        bundle = self._bundle
        if bundle is None:
            raise CorpusError("资料索引还没有建立，请稍候刷新页面。")
        return bundle

    @property
    def status(self) -> HolderStatus:
        return self._status

    def refresh(self) -> bool:
        """Sync and rebuild now if anything changed; True when a new index was swapped in."""
        with self._lock:
            return self._refresh_locked(force=True)

    def rebuild(self, actor: User) -> bool:
        """A person's 「重新建立索引」: admins only (AuthError naming who may), then `refresh`."""
        require(actor, "rebuild_index")
        return self.refresh()

    def check(self) -> bool:
        """One poll: a cheap look at the database and the folder, a sync and rebuild only on change."""
        with self._lock:
            return self._refresh_locked(force=False)

    def stop(self, *, wait: bool = False) -> None:
        """End the watching thread (after its current pass, if one is running)."""
        self._stop.set()
        if wait and self._thread is not None:
            self._thread.join(timeout=30)

    def _refresh_locked(self, *, force: bool) -> bool:
        db = open_database(self.settings.db_url)
        if not force and self._seen == (current_generation(db), corpus_fingerprint(self.settings)):
            return False
        try:
            report = sync_corpus(db, self.settings.corpus_dir)
            if report.imported and any(version_log(db).count(name) > 1 for name in report.imported):
                # a file edited on the server, now a newer version: what it no longer backs is suspended (a file's
                # first version is the text the index already served: nothing was approved against another one)
                refresh_answers(db, chunking=(self.settings.chunk_size, self.settings.chunk_overlap))
        except StoreError as error:  # the database is down: serve the folder as it is, and say so
            report = SyncReport(generation=-1, problems=(f"无法与数据库同步资料，暂用本机资料文件夹：{error}",))
        seen = (report.generation, corpus_fingerprint(self.settings))
        current = self._bundle
        if current is not None and current.fingerprint == seen[1]:
            self._seen = seen
            self._status = HolderStatus(current.fingerprint, report.generation, self._status.built_at, report.problems)
            return False
        bundle = load_or_build(self.settings)
        search_with_score(bundle.index, WARM_UP_QUESTION, 3)  # first-call work of the retriever (its postings
        # are views of the mapped index file; the first pages read are faulted in here, not for a student)
        if self._prepare is not None:
            self._prepare(bundle)  # e.g. the answerability analyzer: built here, not on the first question
        self._bundle = bundle  # the swap: one reference assignment, atomic for readers
        self._seen = seen
        self._status = HolderStatus(bundle.fingerprint, report.generation, time.time(), _problems(report, bundle))
        del current
        keep_long_lived()  # the old index's garbage collected, the new one's objects kept out of later scans
        release_free_memory()
        return True

    def _watch(self) -> None:
        while not self._stop.wait(self.poll_s):
            try:
                self.check()
            except (XiaoEError, OSError) as error:  # keep serving the old index; say why on the page and in the log
                LOG.warning("corpus watch: %s", error)
                old = self._status
                self._status = HolderStatus(old.fingerprint, old.generation, old.built_at,
                                            (f"资料更新检查失败，仍在使用上一版索引：{error}",))


def _problems(report: SyncReport, bundle: IndexBundle) -> tuple[str, ...]:
    return tuple(report.problems) + ((bundle.note,) if bundle.note else ())


def prepare_analyzer(settings: Settings) -> Callable[[IndexBundle], object]:
    """A `prepare` that builds the answerability analyzer for the saved glossary before the swap."""
    def prepare(bundle: IndexBundle) -> object:
        if settings.answerability != "on":
            return None

        try:
            glossary = GlossaryStore.open(settings).load()
        except StoreError as error:  # the page will say so when it reads the glossary itself
            LOG.warning("glossary not read for the analyzer: %s", error)
            glossary = None
        analyzer = analyzer_for(bundle.index, settings.index_dir, glossary, parse_rules(settings.answerability_rules))
        analyzer.split(WARM_UP_QUESTION, glossary)  # first-call work (regexes, caches) done here, not for a student
        return analyzer
    return prepare


WARM_UP_QUESTION = "请问转班的手续费是多少，几个工作日内办好？"
