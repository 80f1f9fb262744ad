"""A model's floor on one labelled set (#34): gate + grader + answer under the prompts now and under the prompts
before 865d46f, everything else identical.

Run from the repository root, with an OpenAI-compatible model configured (docs/models.md) and reachable:
    .venv/bin/python -m bench.model_floor run SET --out DIR [--prompts both|now|before] [--before REV]
    .venv/bin/python -m bench.model_floor table DIR
`run` measures each version into DIR/<version>.json (rows as they finish in DIR/<version>.jsonl, progress on
stderr) and prints the markdown table; `table` prints it again from the files (DIR/model_floor.md). Two
versions can run in parallel on two servers: `--prompts now` and `--prompts before` with different
XIAOE_LLM_BASE_URL, then `table`. Without a configured model that answers one tiny request, it does nothing.

"now" is this checkout (it runs in this process). "before" runs this same script in a temporary git worktree
at HEAD whose core/answering/prompts.py and core/answering/grader.py are those of REV (865d46f^: the answer
prompt without the step-by-step computation, the grader without the quote); the set, corpus, data directory
(index, glossary, saved defaults), knobs, band and model settings are passed down, so only the two prompt
modules differ. Each question goes through the Assistant exactly as `python -m core eval SET --with-model`
does (`plan`, then `assistant.outcome(assistant.grade(gate))`); a callback on the chat model keeps every raw
reply, because the core keeps only what it parsed (the grader's quote is checked, never stored).

"States the fact" is eval's own check (core.evaluation.batch.answer_outcome, i.e. `holds_fact` on the answer's
chunks): it reads the chunks the answer was written from, not the answer's words. The table also shows the
stricter reading of bench.offline_answer_quality: the answer's own text holds the key phrase.
Not part of `make test` or CI: no test imports this module, and every run calls a real model.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from langchain_core.callbacks import BaseCallbackHandler

from core.answering import grader, prompts
from core.answering.providers import make_chat_model, test_connection
from core.assistant import open_assistant
from core.evaluation.batch import answer_outcome
from core.evaluation.metrics import CORRECT_ANSWER
from core.evaluation.model_eval import plan
from core.sets.format import holds_key_phrase, read_question_file
from core.settings import REFUSAL_TEXT, Settings
from core.stores.question_sets import corpus_catalog

ROOT = Path(__file__).resolve().parent.parent
BEFORE_REV = "865d46f^"
PROMPT_FILES = ("core/answering/prompts.py", "core/answering/grader.py")
VERSIONS = ("before", "now")


class Replies(BaseCallbackHandler):
    """The raw text of every model reply, filed under the question being asked when the call started."""

    def __init__(self, grader_prompt: str) -> None:
        self.grader_prompt = grader_prompt
        self.current = -1
        self._started: dict = {}
        self.by_question: dict[int, list[tuple[str, str]]] = {}

    def on_chat_model_start(self, serialized, messages, *, run_id, **kwargs) -> None:
        first = messages[0][0].content if messages and messages[0] else ""
        self._started[run_id] = (self.current, "grader" if first == self.grader_prompt else "answer")

    def on_llm_end(self, response, *, run_id, **kwargs) -> None:
        question, kind = self._started.pop(run_id, (-1, "?"))
        text = response.generations[0][0].text if response.generations and response.generations[0] else ""
        self.by_question.setdefault(question, []).append((kind, text))


def measure(set_path: Path, label: str, out: Path) -> dict:
    """Every question of the set through this checkout's Assistant; the run written to out/<label>.json."""
    modules = {name: Path(m.__file__).resolve() for name, m in zip(PROMPT_FILES, (prompts, grader))}
    if any(not p.is_relative_to(ROOT) for p in modules.values()):
        raise SystemExit(f"the prompt modules were imported from {list(modules.values())}, not from {ROOT}")
    settings = Settings.from_env().with_(grader="band")  # as `eval --with-model` does
    assistant = open_assistant(settings)
    replies = Replies(grader.SYSTEM_PROMPT)
    model = make_chat_model(assistant.settings)
    inner = model.inner.model_copy(update={"callbacks": [replies]})
    assistant = assistant.with_model(model.model_copy(update={"inner": inner}))
    files, sections = corpus_catalog(assistant.index)
    questions = read_question_file(set_path, known_files=files, known_sections=sections).questions
    planned = plan(assistant, questions, assistant.knobs)
    s = assistant.settings
    meta = {"version": label, "set": str(set_path), "set_sha256": _sha256(set_path.read_bytes()),
            "head": _git("rev-parse", "HEAD", cwd=ROOT), "before_rev": BEFORE_REV,
            "prompt_files": {n: {"path": str(p), "sha256": _sha256(p.read_bytes())} for n, p in modules.items()},
            "model": s.llm_model, "base_url": s.llm_base_url, "timeout": s.llm_timeout,
            "max_retries": s.llm_max_retries, "temperature": s.llm_temperature, "knobs": planned.knobs.describe(),
            "band": [s.grader_band_coverage, s.grader_band_unknown], "fingerprint": assistant.fingerprint,
            "glossary": assistant.glossary.fingerprint if assistant.glossary else "",
            "data_dir": str(s.data_dir), "corpus_dir": str(s.corpus_dir), "started": _now()}
    out.mkdir(parents=True, exist_ok=True)
    log = out / f"{label}.jsonl"
    log.write_text("", encoding="utf-8")
    rows, start = [], time.perf_counter()
    for i, (q, gate) in enumerate(zip(planned.questions, planned.gates)):
        replies.current, began = i, time.perf_counter()
        outcome = assistant.outcome(assistant.grade(gate))
        a, g = outcome.answer, outcome.gate.grade
        graded = [t for kind, t in replies.by_question.get(i, []) if kind == "grader"]
        quote = _quote(graded[-1]) if graded else None
        row = {"i": i + 1, "question": q.question, "should_refuse": q.should_refuse, "key_phrase": q.key_phrase,
               "gate_passed": not gate.refused, "in_band": planned.band[i],
               "grade": None if g is None else {"answerable": g.answerable, "chunks": list(g.chunks), "reason": g.reason,
                                                "fault": g.fault, "ms": g.ms},
               "grader_reply": graded[-1] if graded else None, "quote": quote,
               "quote_copied": None if not quote else any(quote in h.text for h in gate.hits),
               "model_answered": bool(a and a.model_called), "model_refused": bool(a and a.model_called and a.refused),
               "refusal_inside": bool(a and a.model_called and not a.refused and REFUSAL_TEXT in a.text),
               "text": a.text if a and a.model_called else "", "outcome": answer_outcome(q, outcome),
               "states_fact": answer_outcome(q, outcome) == CORRECT_ANSWER,
               "text_holds_key_phrase": bool(a and a.model_called and not a.refused and not q.should_refuse
                                             and holds_key_phrase(a.text, q.key_phrase)),
               "citation_ok": None if not (a and a.model_called and not a.refused) else a.citations.ok,
               "problems": [p.code for p in a.problems] if a else [],
               "failure": [outcome.failure.kind, outcome.failure.message] if outcome.failure else None,
               "seconds": round(time.perf_counter() - began, 1)}
        rows.append(row)
        with log.open("a", encoding="utf-8") as f:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(f"[{label}] {i + 1}/{len(questions)} {row['outcome']}"
              f"{' 判定' if g else ''}{' 模型拒答' if row['model_refused'] else ''}"
              f"{' 失败 ' + row['failure'][0] if row['failure'] else ''} {row['seconds']:.0f}s"
              f"（累计 {(time.perf_counter() - start) / 60:.1f} 分钟）", file=sys.stderr, flush=True)
    run = {"meta": {**meta, "finished": _now(), "seconds": round(time.perf_counter() - start, 1)},
           "summary": summarize(rows), "rows": rows}
    (out / f"{label}.json").write_text(json.dumps(run, ensure_ascii=False, indent=1), encoding="utf-8")
    return run


def summarize(rows: list[dict]) -> dict:
    """The counts of one run (the grader's as core.evaluation.model_eval.ModelRun counts them)."""
    passed = [r for r in rows if r["gate_passed"]]
    passed_answerable = [r for r in passed if not r["should_refuse"]]
    texts = [r for r in passed if r["model_answered"] and not r["model_refused"]]
    graded = [r for r in rows if r["grade"] is not None]
    verdicts = [r for r in graded if not r["grade"]["fault"]]
    yes = [r for r in verdicts if r["grade"]["answerable"]]
    agree = sum(1 for r in verdicts if r["grade"]["answerable"] != r["should_refuse"])
    quoted = [r for r in graded if r["quote"]]
    return {
        "questions": len(rows), "answerable": sum(not r["should_refuse"] for r in rows),
        "gate_passed": len(passed), "gate_passed_answerable": len(passed_answerable),
        "gate_passed_states_fact": sum(r["states_fact"] for r in passed_answerable),
        "gate_passed_text_holds_key_phrase": sum(r["text_holds_key_phrase"] for r in passed_answerable),
        "gate_passed_model_refused": sum(r["model_refused"] for r in passed),
        "gate_passed_refusal_inside": sum(r["refusal_inside"] for r in passed),
        "gate_passed_answers": len(texts),
        "gate_passed_citation_failed": sum(r["citation_ok"] is False for r in texts),
        "gate_passed_any_problem": sum(bool(r["problems"]) for r in texts),
        "gate_passed_failures": sum(r["failure"] is not None for r in passed),
        "graded": len(graded), "grader_yes": len(yes), "grader_no": len(verdicts) - len(yes),
        "grader_agree": agree, "grader_verdicts": len(verdicts),
        "grader_yes_but_refuse": sum(r["should_refuse"] for r in yes),
        "grader_faults": len(graded) - len(verdicts),
        "grader_fault_kinds": dict(Counter(r["grade"]["fault"] for r in graded if r["grade"]["fault"])),
        "grader_quotes": len(quoted), "grader_quotes_copied": sum(bool(r["quote_copied"]) for r in quoted),
        "band_answered_states_fact": sum(r["states_fact"] for r in yes),
        "band_answered_model_refused": sum(r["model_refused"] for r in yes),
        "failures": sum(r["failure"] is not None for r in rows),
        "failure_kinds": dict(Counter(r["failure"][0] for r in rows if r["failure"])),
        "outcomes": dict(Counter(r["outcome"] for r in rows)),
    }


def table(runs: dict[str, dict]) -> str:
    """One markdown table, a column per measured version."""
    def share(part: int, whole: int) -> str:
        return f"{part}/{whole}（{part / whole:.1%}）" if whole else "—"

    lines = [("", *(f"{v}（{runs[v]['meta']['prompt_files'][PROMPT_FILES[0]]['sha256'][:8]}）" for v in runs))]
    metrics = (
        ("闸门放行的题", lambda s: f"{s['gate_passed']}/{s['questions']}（应答 {s['gate_passed_answerable']}）"),
        ("放行且应答：回答命中事实（eval 的 holds_fact，看片段）",
         lambda s: share(s["gate_passed_states_fact"], s["gate_passed_answerable"])),
        ("放行且应答：回答原文含关键短语", lambda s: share(s["gate_passed_text_holds_key_phrase"], s["gate_passed_answerable"])),
        ("放行后模型只回拒答句", lambda s: share(s["gate_passed_model_refused"], s["gate_passed"])),
        ("放行后回答里夹着拒答句", lambda s: str(s["gate_passed_refusal_inside"])),
        ("放行后的回答没过出处核对", lambda s: share(s["gate_passed_citation_failed"], s["gate_passed_answers"])),
        ("放行后的回答有任一核对问题", lambda s: share(s["gate_passed_any_problem"], s["gate_passed_answers"])),
        ("放行后回答请求失败", lambda s: str(s["gate_passed_failures"])),
        ("不确定区间：判定的题", lambda s: f"{s['graded']}（判可答 {s['grader_yes']}，判不可答 {s['grader_no']}）"),
        ("判定与标注一致", lambda s: share(s["grader_agree"], s["grader_verdicts"])),
        ("判可答但应拒", lambda s: str(s["grader_yes_but_refuse"])),
        ("判定失败（超时、坏 JSON 等）", lambda s: f"{s['grader_faults']} {s['grader_fault_kinds'] or ''}".strip()),
        ("判可答后：命中事实 / 模型拒答", lambda s: f"{s['band_answered_states_fact']} / {s['band_answered_model_refused']}"),
        ("判定回复里有 quote / 原样出自片段", lambda s: f"{s['grader_quotes']} / {s['grader_quotes_copied']}"),
        ("全集：正确回答 / 应答", lambda s: share(s["outcomes"].get("正确回答", 0), s["answerable"])),
        ("全集：正确拒答 / 应拒", lambda s: share(s["outcomes"].get("正确拒答", 0), s["questions"] - s["answerable"])),
        ("全集：误拒 / 误答 / 命中错误资料", lambda s: " / ".join(str(s["outcomes"].get(k, 0))
                                                     for k in ("误拒", "误答", "命中错误资料"))),
        ("全部模型请求失败", lambda s: f"{s['failures']} {s['failure_kinds'] or ''}".strip()),
    )
    lines += [(name, *(show(runs[v]["summary"]) for v in runs)) for name, show in metrics]
    lines.append(("用时", *(f"{runs[v]['meta']['seconds'] / 60:.1f} 分钟" for v in runs)))
    head, *body = lines
    return "\n".join(["| " + " | ".join(head) + " |", "|" + " --- |" * len(head),
                      *("| " + " | ".join(row) + " |" for row in body)])


@contextmanager
def before_checkout(rev: str) -> Iterator[Path]:
    """A temporary worktree at HEAD with REV's two prompt modules and this very script; removed afterwards."""
    dirty = _git("status", "--porcelain", "--", "core", "corpus", "bench/data", cwd=ROOT)
    if dirty:
        raise SystemExit(f"core/, corpus/ or bench/data/ has uncommitted changes; the before run (at HEAD) would "
                         f"not see them:\n{dirty}")
    where = Path(tempfile.mkdtemp(prefix="model_floor_")) / "checkout"
    _git("worktree", "add", "--detach", str(where), "HEAD", cwd=ROOT)
    try:
        for name in PROMPT_FILES:
            old = subprocess.run(["git", "show", f"{rev}:{name}"], cwd=ROOT, check=True, capture_output=True).stdout
            (where / name).write_bytes(old)
        shutil.copyfile(Path(__file__), where / "bench" / "model_floor.py")
        yield where
    finally:
        _git("worktree", "remove", "--force", str(where), cwd=ROOT)
        shutil.rmtree(where.parent, ignore_errors=True)


def run_before(set_path: Path, out: Path, rev: str) -> None:
    settings = Settings.from_env()  # the same data and corpus for both versions, whatever the checkout's defaults
    env = {**os.environ, "XIAOE_DATA_DIR": str(settings.data_dir.resolve()),
           "XIAOE_CORPUS_DIR": str(settings.corpus_dir.resolve())}
    env.pop("PYTHONPATH", None)
    with before_checkout(rev) as where:
        command = [sys.executable, "-m", "bench.model_floor", "measure", str(set_path), "--label", "before",
                   "--out", str(out)]
        subprocess.run(command, cwd=where, env=env, check=True)


def reachable() -> str:
    """"" when the configured chat model answers one tiny request, else what is wrong."""
    settings = Settings.from_env()
    if not settings.llm_configured:
        return "没有配置回答模型（XIAOE_LLM_BASE_URL、XIAOE_LLM_MODEL，见 docs/models.md），什么也没做。"
    report = test_connection(settings)
    return "" if report.ok else f"回答模型连不上，什么也没做：{report.message}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="measure the versions, then print the table")
    run.add_argument("set_path", type=Path)
    run.add_argument("--out", type=Path, required=True)
    run.add_argument("--prompts", choices=("both", *VERSIONS), default="both")
    run.add_argument("--before", default=BEFORE_REV, help="the commit whose two prompt modules are 'before'")
    one = sub.add_parser("measure", help="(internal) measure this checkout's prompts under one label")
    one.add_argument("set_path", type=Path)
    one.add_argument("--label", required=True)
    one.add_argument("--out", type=Path, required=True)
    show = sub.add_parser("table", help="print the table of the runs in a folder")
    show.add_argument("out", type=Path)
    args = parser.parse_args(argv)
    if args.command == "table":
        return print_table(args.out)
    problem = reachable()
    if problem:
        print(problem, file=sys.stderr)
        return 2
    if args.command == "measure":
        measure(args.set_path.resolve(), args.label, args.out.resolve())
        return 0
    for version in VERSIONS if args.prompts == "both" else (args.prompts,):
        if version == "now":
            measure(args.set_path.resolve(), "now", args.out.resolve())
        else:
            run_before(args.set_path.resolve(), args.out.resolve(), args.before)
    return print_table(args.out)


def print_table(out: Path) -> int:
    runs = {v: json.loads((out / f"{v}.json").read_text(encoding="utf-8")) for v in VERSIONS if (out / f"{v}.json").exists()}
    if not runs:
        print(f"{out} 里没有 before.json 或 now.json", file=sys.stderr)
        return 2
    first = next(iter(runs.values()))["meta"]
    text = (f"# 模型下限：{Path(first['set']).name}，模型 {first['model']}，{first['knobs']}，"
            f"判定区间 {first['band'][0]:.2f} / {first['band'][1]:.2f}，资料指纹 {first['fingerprint']}\n\n{table(runs)}\n")
    (out / "model_floor.md").write_text(text, encoding="utf-8")
    print(text)
    return 0


def _quote(reply: str) -> str | None:
    """The grader reply's quote field, when the reply is a JSON object that has one."""
    try:
        value = json.loads(reply.strip().removeprefix("```json").removesuffix("```"))
    except ValueError:
        return None
    quote = value.get("quote") if isinstance(value, dict) else None
    return quote.strip() if isinstance(quote, str) else None


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


if __name__ == "__main__":
    raise SystemExit(main())
