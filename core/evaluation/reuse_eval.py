"""`python -m core eval --reuse FILE.csv`: does an approved answer answer the questions it should, and only those?

For each row of a reuse set (core.sets.reuse_format), in a fresh data folder with its own copy of the corpus and
its own SQLite database: ask the approved question through the one Assistant, queue the outcome, approve the
row's approved answer as the consultant's correction — its sentences cited against the chunks the item offers
(each sentence gets the chunk sharing the most character pairs with it) — through the review queue's real
approval (a correction the checks flag is approved with the recorded second confirmation, and counted); apply
the row's edit through corpus administration (a new version, as an admin's save) and rebuild; then ask the new
question. A row is reused when that question's outcome is the approved answer; otherwise the guard that stopped
it is reported (core.values.reuse.GUARDS; `chunks` also when the approved answer was not even near).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from core.assistant import open_assistant
from core.checks.approval import citable
from core.checks.cited_sentence import bigrams, sentences
from core.errors import NeedsConfirmation, QuestionSetError
from core.retrieval.store import load_or_build
from core.sets.reuse_format import KINDS, ReuseCase
from core.settings import Settings
from core.stores.corpus_admin import CorpusAdmin
from core.stores.db import Database
from core.stores.review import ReviewStore
from core.stores.roles import User
from core.values import Hit

EVALUATOR = User("reuse-eval", "复用评测", "admin")


@dataclass(frozen=True)
class ReuseRow:
    """One row's result."""

    id: str
    kind: str
    expect: str
    reused: bool
    guard: str  # the guard that stopped it ("" when reused)
    detail: str
    confirmed: bool  # the approval needed the second confirmation (the checks flagged the correction)

    @property
    def right(self) -> bool:
        return self.reused == (self.expect == "reuse")


@dataclass(frozen=True)
class ReuseEvaluation:
    rows: tuple[ReuseRow, ...]
    threshold: float

    def kinds(self) -> dict[str, dict]:
        out = {}
        for kind in KINDS:
            rows = [r for r in self.rows if r.kind == kind]
            if not rows:
                continue
            guards: dict[str, int] = {}
            for r in rows:
                if not r.reused:
                    guards[r.guard] = guards.get(r.guard, 0) + 1
            out[kind] = {"total": len(rows), "reused": sum(r.reused for r in rows), "guards": guards}
        return out

    def to_dict(self) -> dict:
        return {"threshold": self.threshold, "kinds": self.kinds(),
                "rows": [{"id": r.id, "reused": r.reused, "guard": r.guard} for r in self.rows],
                "confirmed": sum(r.confirmed for r in self.rows)}


def cite(answer: str, hits: Sequence[Hit]) -> str:
    """`answer` with each sentence followed by the [n] of the chunk sharing the most character pairs with it."""
    if not hits:
        return answer
    grams = [bigrams(h.text) for h in hits]
    out = []
    for start, end in sentences(answer):
        sentence = answer[start:end].strip()
        body = sentence.rstrip("。！？；!?;")
        best = max(range(len(hits)), key=lambda i: (len(bigrams(body) & grams[i]), -i))
        out.append(f"{body}[{best + 1}]{sentence[len(body):]}")
    return "".join(out)


def run_reuse_set(cases: Sequence[ReuseCase], settings: Settings, *,
                  progress: Callable[[int, int], None] | None = None) -> ReuseEvaluation:
    """Every row in its own folder (a template with the corpus and a built index is copied for each)."""
    root = Path(tempfile.mkdtemp(prefix="xiaoe-reuse-"))
    try:
        template = root / "template"
        shutil.copytree(settings.corpus_dir, template / "corpus")
        check_edits(cases, template / "corpus")
        load_or_build(_settings(settings, template))
        rows = []
        for number, case in enumerate(cases, start=1):
            work = root / f"row-{number}"
            shutil.copytree(template, work)
            rows.append(_run_row(case, _settings(settings, work)))
            shutil.rmtree(work, ignore_errors=True)
            if progress:
                progress(number, len(cases))
        return ReuseEvaluation(tuple(rows), settings.reuse_threshold)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def check_edits(cases: Sequence[ReuseCase], corpus: Path) -> None:
    """QuestionSetError naming every row whose edit cannot be applied (its file is not in the corpus, or its OLD
    text is not in that file), before any row runs: such a row would measure an unchanged corpus and look like
    a pass."""
    problems = []
    for case in cases:
        if case.edit is None:
            continue
        path = corpus / case.edit.source
        if not case.edit.source.endswith(".md") or path.resolve().parent != corpus.resolve() or not path.is_file():
            problems.append((case.line, f"第 {case.line} 行（id {case.id}）：edit 里的文件「{case.edit.source}」不在资料文件夹里"))
        elif case.edit.old not in path.read_text(encoding="utf-8"):
            problems.append((case.line, f"第 {case.line} 行（id {case.id}）：edit 里的原文「{case.edit.old}」"
                                        f"在「{case.edit.source}」里找不到"))
    if problems:
        raise QuestionSetError("复用评测集的 edit 改不了资料，没有评测任何一行（否则这些行量的是没改过的资料）："
                               + "；".join(text for _, text in problems[:20])
                               + "。请把原文改成资料里一字不差的一段后再运行。", problems)


def _settings(settings: Settings, folder: Path) -> Settings:
    return settings.with_(corpus_dir=folder / "corpus", data_dir=folder / "data", database_url="", reuse="on",
                          llm_base_url="", llm_model="")


def _run_row(case: ReuseCase, settings: Settings) -> ReuseRow:
    db = Database(settings.db_url)
    try:
        store = ReviewStore(db)
        assistant = open_assistant(settings, with_model=False)
        outcome = assistant.respond(case.approved_question)
        assert outcome.answer is not None  # without a model (with_model=False) nothing fails
        item_id = store.record(outcome) or store.enqueue(outcome.answer, origin="manual", flagged_by=EVALUATOR.label,
                                                          fingerprint=outcome.fingerprint)
        item = store.get(item_id)
        text = cite(case.approved_answer, citable(item.candidates))
        confirmed = False
        try:
            store.decide(item_id, action="approve", reviewer=EVALUATOR.label, expected_version=item.version,
                         corrected_answer=text)
        except NeedsConfirmation:
            confirmed = True
            store.decide(item_id, action="approve", reviewer=EVALUATOR.label, expected_version=item.version,
                         corrected_answer=text, confirmed=True)
        if case.edit is not None:
            admin = CorpusAdmin(db, settings.corpus_dir, chunking=(settings.chunk_size, settings.chunk_overlap))
            current, _sha = admin.read(case.edit.source)
            admin.save(EVALUATOR, case.edit.source, current.replace(case.edit.old, case.edit.new))  # as an admin's save
        new = open_assistant(settings, with_model=False).respond(case.new_question)
        if new.reused is not None:
            return ReuseRow(case.id, case.kind, case.expect, True, "", "", confirmed)
        found = new.reuse.checked[0] if new.reuse is not None and new.reuse.checked else None
        guard, detail = (found.failed, found.detail) if found is not None else ("chunks", "已审答案所引的小节不在检索结果里")
        return ReuseRow(case.id, case.kind, case.expect, False, guard, detail, confirmed)
    finally:
        db.dispose()
