"""Stored evaluation runs: what was evaluated, in which state, and each question's outcome; plus the baseline.

One row per run (`eval_runs`): the set's name, version and hash, the corpus fingerprint, the knobs, the glossary
(fingerprint and size), answerer, grader, reuse, who ran it and when, the outcome counts, and a zlib-compressed
JSON payload with each question's outcome, reason, top hit and check codes, each corpus file's sha256, recorded
version and section hashes, and the glossary's pairs: one compressed value instead of one row per question
(the bench that stores two 1,000-question runs prints the size per run, see docs/tuning.md). Section texts are kept once per distinct
sha256 (`run_sections`), so a compare can show the diff of a section long after the file changed. Marking a
baseline appends a row to `run_baselines` (newest row wins), so who chose which baseline stays on record.
"""

from __future__ import annotations

import json
import unicodedata
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Column, DateTime, Integer, LargeBinary, MetaData, String, Table, Text, func, select

from core.clock import as_utc, utcnow
from core.corpus.snapshot import CorpusSnapshot
from core.errors import ConflictError, StoreError
from core.stores.corpus_versions import CORPUS_SCHEMA, corpus_versions
from core.stores.db import Database, Migration, Schema, append_only, create_tables, insert_ignoring_duplicates
from core.stores.roles import Authorize, checked

MAX_NAME_CHARS = 100
RUN_KINDS = {"eval": "命令行评测", "batch": "调优页批量运行", "calibrate": "校准", "tuning": "调优页评测"}

metadata = MetaData()
eval_runs = Table(
    "eval_runs", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(MAX_NAME_CHARS), nullable=False, unique=True),
    Column("kind", String(16), nullable=False),
    Column("set_name", String(MAX_NAME_CHARS), nullable=False),
    Column("set_version", Integer, nullable=True),
    Column("set_hash", String(64), nullable=False),
    Column("fingerprint", String(64), nullable=False),
    Column("knobs", Text, nullable=False),  # JSON: Knobs.to_dict()
    Column("glossary_fingerprint", String(64), nullable=False),
    Column("glossary_entries", Integer, nullable=False),
    Column("answerer", String(200), nullable=False),
    Column("grader", String(16), nullable=False),
    Column("reuse", String(8), nullable=False),
    Column("actor", String(MAX_NAME_CHARS), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("question_count", Integer, nullable=False),
    Column("counts", Text, nullable=False),  # JSON: outcome → count
    Column("payload", LargeBinary, nullable=False),  # zlib(JSON): questions, files, glossary pairs
)
run_sections = Table(
    "run_sections", metadata,
    Column("sha256", String(64), primary_key=True),
    Column("body", LargeBinary, nullable=False),  # zlib(UTF-8 text)
)
run_baselines = Table(
    "run_baselines", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_name", String(MAX_NAME_CHARS), nullable=False),
    Column("actor", String(MAX_NAME_CHARS), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
)

RUNS_SCHEMA = Schema("runs", (
    Migration(1, "evaluation runs, section texts, baselines", create_tables(eval_runs, run_sections, run_baselines)),
    Migration(2, "append-only baselines", append_only("run_baselines")),
))


@dataclass(frozen=True)
class RunQuestion:
    """One question's result in a run: the outcome label (core.evaluation.metrics.OUTCOMES, or 模型故障 in a
    batch run), the gate's reason, the top hit (「文件 · 小节」) and the codes of the checks that flagged it."""

    question: str
    expected: str
    outcome: str
    reason: str
    top_hit: str = ""
    checks: tuple[str, ...] = ()

    def to_list(self) -> list:
        return [self.question, self.expected, self.outcome, self.reason, self.top_hit, list(self.checks)]


@dataclass(frozen=True)
class RunFile:
    """One corpus file as the run saw it: sha256, the recorded version with that content (None if never
    recorded through the console), and each section's (heading, sha256)."""

    name: str
    sha256: str
    version: int | None
    sections: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class RunInfo:
    """A run without its per-question payload: what `runs list` shows."""

    name: str
    kind: str
    set_name: str
    set_version: int | None
    set_hash: str
    fingerprint: str
    knobs: dict
    glossary_fingerprint: str
    glossary_entries: int
    answerer: str
    grader: str
    reuse: str
    actor: str
    created_at: datetime | None
    question_count: int
    counts: dict
    stored_bytes: int = 0

    @property
    def kind_label(self) -> str:
        return RUN_KINDS.get(self.kind, self.kind)

    @property
    def correct(self) -> int:
        return int(self.counts.get("正确回答", 0)) + int(self.counts.get("正确拒答", 0))


@dataclass(frozen=True)
class Run:
    """A whole stored run."""

    info: RunInfo
    questions: tuple[RunQuestion, ...]
    files: tuple[RunFile, ...]
    glossary: tuple[tuple[str, str], ...] = field(default=())

    @property
    def name(self) -> str:
        return self.info.name


@dataclass(frozen=True)
class NewRun:
    """What a caller hands to `RunStore.save` (core.evaluation.runs builds it from an evaluation)."""

    name: str
    origin: str  # a RUN_KINDS key: which command or page ran it
    set_name: str
    set_version: int | None
    set_hash: str
    fingerprint: str
    knobs: dict
    glossary: tuple[tuple[str, str], ...]
    glossary_fingerprint: str
    answerer: str
    grader: str
    reuse: str
    actor: str
    questions: tuple[RunQuestion, ...]
    corpus: CorpusSnapshot


class RunStore:
    """Evaluation runs on a `Database`; opening it brings the schema up to date."""

    def __init__(self, db: Database, *, clock: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self._clock = clock
        db.migrate(CORPUS_SCHEMA)  # file versions are looked up in corpus_versions
        db.migrate(RUNS_SCHEMA)

    def save(self, run: NewRun, *, authorize: Authorize | None = None) -> RunInfo:
        """Store `run` in one transaction; ConflictError when the name is taken."""
        name, actor = _checked(run.name, "运行名称"), _checked(run.actor, "运行人")
        if run.origin not in RUN_KINDS:
            raise ValueError(f"unknown run origin {run.origin!r}")
        if not run.questions:
            raise StoreError("这次运行没有任何题目，没有保存。")
        now = self._clock()
        counts: dict[str, int] = {}
        for q in run.questions:
            counts[q.outcome] = counts.get(q.outcome, 0) + 1
        with self.db.transaction("保存评测运行", immediate=True) as conn:
            checked(conn, authorize, "ask")  # any signed-in staff may keep a run
            if conn.execute(select(eval_runs.c.id).where(eval_runs.c.name == name)).first():
                raise ConflictError(f"已经有名为「{name}」的运行，请换一个名字再保存。")
            versions = _file_versions(conn, run.corpus)
            files = [[f.name, f.sha256, versions.get((f.name, f.sha256)),
                      [[s.heading, s.sha256] for s in f.sections]] for f in run.corpus.files]
            payload = _pack({"questions": [q.to_list() for q in run.questions], "files": files,
                             "glossary": [list(p) for p in run.glossary]})
            for f in run.corpus.files:
                for s in f.sections:
                    insert_ignoring_duplicates(conn, run_sections, {
                        "sha256": s.sha256, "body": zlib.compress(s.text.encode("utf-8", "surrogatepass"), 9)})
            conn.execute(eval_runs.insert().values(
                name=name, kind=run.origin, set_name=run.set_name, set_version=run.set_version, set_hash=run.set_hash,
                fingerprint=run.fingerprint, knobs=json.dumps(run.knobs, sort_keys=True),
                glossary_fingerprint=run.glossary_fingerprint, glossary_entries=len(run.glossary),
                answerer=run.answerer, grader=run.grader, reuse=run.reuse, actor=actor, created_at=now,
                question_count=len(run.questions), counts=json.dumps(counts, ensure_ascii=False), payload=payload))
        return self.info(name)

    def list(self, *, limit: int = 200) -> tuple[RunInfo, ...]:
        """Newest first."""
        with self.db.read("读取评测运行") as conn:
            rows = conn.execute(select(*_INFO_COLUMNS, func.length(eval_runs.c.payload).label("stored_bytes"))
                                .order_by(eval_runs.c.id.desc()).limit(limit)).all()
        return tuple(_info(r) for r in rows)

    def info(self, name: str) -> RunInfo:
        with self.db.read("读取评测运行") as conn:
            row = conn.execute(select(*_INFO_COLUMNS, func.length(eval_runs.c.payload).label("stored_bytes"))
                               .where(eval_runs.c.name == name)).first()
        if row is None:
            raise StoreError(_missing(name))
        return _info(row)

    def load(self, name: str) -> Run:
        """The whole run; StoreError naming the run when there is none by that name."""
        with self.db.read("读取评测运行") as conn:
            row = conn.execute(select(*_INFO_COLUMNS, func.length(eval_runs.c.payload).label("stored_bytes"),
                                      eval_runs.c.payload).where(eval_runs.c.name == name)).first()
        if row is None:
            raise StoreError(_missing(name))
        data = json.loads(zlib.decompress(row.payload))
        questions = tuple(RunQuestion(q[0], q[1], q[2], q[3], q[4], tuple(q[5])) for q in data["questions"])
        files = tuple(RunFile(f[0], f[1], f[2], tuple((h, s) for h, s in f[3])) for f in data["files"])
        return Run(_info(row), questions, files, tuple((t, s) for t, s in data.get("glossary", ())))

    def section_texts(self, hashes: Iterable[str]) -> dict[str, str]:
        """sha256 → section text, for the hashes that were stored."""
        wanted = sorted(set(hashes))
        if not wanted:
            return {}
        with self.db.read("读取资料小节") as conn:
            rows = conn.execute(select(run_sections.c.sha256, run_sections.c.body)
                                .where(run_sections.c.sha256.in_(wanted))).all()
        return {r.sha256: zlib.decompress(r.body).decode("utf-8", "surrogatepass") for r in rows}

    def mark_baseline(self, name: str, *, actor: str, authorize: Authorize | None = None) -> None:
        """Make `name` the baseline every new run is compared with (admins only when sign-in is on)."""
        actor = _checked(actor, "操作人")
        with self.db.transaction("设定基准运行", immediate=True) as conn:
            checked(conn, authorize, "mark_baseline")
            if conn.execute(select(eval_runs.c.id).where(eval_runs.c.name == name)).first() is None:
                raise StoreError(_missing(name))
            conn.execute(run_baselines.insert().values(run_name=name, actor=actor, at=self._clock()))

    def baseline(self) -> str | None:
        """The name of the run marked as baseline most recently, None when none was."""
        with self.db.read("读取基准运行") as conn:
            return conn.execute(select(run_baselines.c.run_name).order_by(run_baselines.c.id.desc())
                                .limit(1)).scalar()

    def payload_bytes(self, name: str) -> tuple[int, int]:
        """(stored, uncompressed) size of a run's payload in bytes: what the bench reports."""
        with self.db.read("读取评测运行") as conn:
            payload = conn.execute(select(eval_runs.c.payload).where(eval_runs.c.name == name)).scalar()
        if payload is None:
            raise StoreError(_missing(name))
        return len(payload), len(zlib.decompress(payload))


_INFO_COLUMNS = tuple(eval_runs.c[name] for name in (
    "name", "kind", "set_name", "set_version", "set_hash", "fingerprint", "knobs", "glossary_fingerprint",
    "glossary_entries", "answerer", "grader", "reuse", "actor", "created_at", "question_count", "counts"))


def _info(row) -> RunInfo:
    return RunInfo(name=row.name, kind=row.kind, set_name=row.set_name, set_version=row.set_version,
                   set_hash=row.set_hash, fingerprint=row.fingerprint, knobs=json.loads(row.knobs),
                   glossary_fingerprint=row.glossary_fingerprint, glossary_entries=row.glossary_entries,
                   answerer=row.answerer, grader=row.grader, reuse=row.reuse, actor=row.actor,
                   created_at=as_utc(row.created_at) if row.created_at else None,
                   question_count=row.question_count, counts=json.loads(row.counts),
                   stored_bytes=int(row.stored_bytes or 0))


def _file_versions(conn, corpus: CorpusSnapshot) -> dict[tuple[str, str], int]:
    """(file, sha256) → the newest version recorded with exactly that content."""
    names = [f.name for f in corpus.files]
    if not names:
        return {}
    rows = conn.execute(select(corpus_versions.c.source, corpus_versions.c.sha256, corpus_versions.c.version)
                        .where(corpus_versions.c.source.in_(names))).all()
    found: dict[tuple[str, str], int] = {}
    for r in rows:
        found[(r.source, r.sha256)] = max(found.get((r.source, r.sha256), 0), r.version)
    return found


def _pack(data: dict) -> bytes:
    return zlib.compress(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8",
                                                                                        "surrogatepass"), 9)


def _missing(name: str) -> str:
    return f"没有名为「{name}」的运行；用 python -m core runs list 查看已保存的运行。"


# Control and format characters (line breaks, ESC, zero-width and direction marks), surrogates and unassigned code
# points: a name holding one prints differently from what is stored and cannot be typed back by `runs compare`.
UNSEEN_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


def valid_run_name(name: str | None) -> str:
    """The run name, stripped; StoreError in Chinese when it is empty, too long, or holds a character nobody can see
    or type back. The CLI calls it before evaluating, the store again before saving."""
    return _checked(name, "运行名称")


def _checked(value: str | None, label: str) -> str:
    text = (value or "").strip()
    if not text:
        raise StoreError(f"{label}是空的：请给{label}写几个字（如「换模型之后」），再保存。")
    if len(text) > MAX_NAME_CHARS:
        raise StoreError(f"{label}有 {len(text)} 个字，超过了 {MAX_NAME_CHARS} 字的上限。")
    unseen = sorted({f"U+{ord(c):04X}" for c in text if unicodedata.category(c) in UNSEEN_CATEGORIES})
    if unseen:
        raise StoreError(f"{label}里有看不见的控制字符（{'、'.join(unseen[:5])}，如换行、制表符、ESC），没有保存；"
                         "请只用文字、数字和常见符号重新输入。")
    return text
