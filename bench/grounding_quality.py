"""Measure the grounding check on labelled answers: caught / missed / false alarms per problem code.

Run from the repository root:  .venv/bin/python bench/grounding_quality.py

Two files, each scored on its own: bench/data/grounding_answers.csv (the first cases) and
bench/data/grounding_question_cases.csv (answers to questions that state their own figures:
reuses of a worked example, correct computations with derived figures, slips, rule restatements).
CSV columns: answer, references, question, expected_codes.
`references` lists the hits given to the model, in order ([1] first), separated by "|". Each is a
chunk selector `<file prefix>#<phrase>`: the first chunk of the shipped corpus whose file name
starts with the prefix and whose text contains the phrase (e.g. `02#示例`). Selectors keep the
CSV readable and fail loudly when the corpus changes. `expected_codes` is ";"-separated, empty
for a correct answer.

Scoring is per answer: an answer counts for a code when the checker reports that code at least
once. A second table runs the offline answerer over the retrieval question sets, where every
answer is copied from the references, so any flag there is a false alarm.
"""

from __future__ import annotations

import csv
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from langchain_core.documents import Document  # noqa: E402

from core.checks.grounding import (  # noqa: E402
    BAD_ARITHMETIC,
    QUESTION_MISMATCH,
    UNCITED_CLAIM,
    UNSUPPORTED_NUMBER,
    check_grounding,
)
from core.corpus.loader import load_documents  # noqa: E402
from core.evaluation.calibration import SETS_DIR  # noqa: E402

CASES_CSV = SETS_DIR / "grounding_answers.csv"
QUESTION_CASES_CSV = SETS_DIR / "grounding_question_cases.csv"
QUESTION_SETS = (SETS_DIR / "calibration.csv", SETS_DIR / "student_questions.csv")
CODES = (UNSUPPORTED_NUMBER, BAD_ARITHMETIC, UNCITED_CLAIM, QUESTION_MISMATCH)


@dataclass(frozen=True)
class Case:
    """One row of the CSV with its selectors resolved to corpus chunks."""

    answer: str
    hits: tuple[Document, ...]
    question: str
    expected: frozenset[str]


def select_chunk(selector: str, chunks: list[Document]) -> Document:
    """The first chunk matching `<file prefix>#<phrase>`; ValueError naming the selector if none does."""
    prefix, _, phrase = selector.partition("#")
    for chunk in chunks:
        if chunk.metadata["source"].startswith(prefix) and phrase in chunk.page_content:
            return chunk
    raise ValueError(f"no corpus chunk matches selector {selector!r}")


def load_cases(path: Path = CASES_CSV, chunks: list[Document] | None = None) -> list[Case]:
    chunks = chunks if chunks is not None else load_documents(ROOT / "corpus")
    with path.open(encoding="utf-8", newline="") as handle:
        return [Case(answer=row["answer"],
                     hits=tuple(select_chunk(s, chunks) for s in row["references"].split("|") if s),
                     question=row["question"],
                     expected=frozenset(c for c in row["expected_codes"].split(";") if c))
                for row in csv.DictReader(handle)]


def predicted_codes(case: Case) -> frozenset[str]:
    return frozenset(p.code for p in check_grounding(case.answer, case.hits, case.question).problems)


def _ratio(numerator: int, denominator: int) -> str:
    return f"{numerator / denominator:.2f}" if denominator else "—"


def score_table(cases: list[Case]) -> list[tuple[str, int, int, int, str, str]]:
    """Rows of (code, tp, fp, fn, precision, recall), per code and then overall."""
    rows = []
    totals = [0, 0, 0]
    for code in CODES:
        tp = fp = fn = 0
        for case in cases:
            got, want = code in predicted_codes(case), code in case.expected
            tp += got and want
            fp += got and not want
            fn += want and not got
        totals = [totals[0] + tp, totals[1] + fp, totals[2] + fn]
        rows.append((code, tp, fp, fn, _ratio(tp, tp + fp), _ratio(tp, tp + fn)))
    tp, fp, fn = totals
    rows.append(("overall", tp, fp, fn, _ratio(tp, tp + fp), _ratio(tp, tp + fn)))
    return rows


def offline_sweep(chunks: list[Document]) -> tuple[int, int, float]:
    """(answers checked, answers flagged, slowest check in ms) for the offline answerer."""
    from core.assistant import answer
    from core.retrieval.index import build_index

    index = build_index(chunks)
    checked = flagged = 0
    slowest = 0.0
    for path in QUESTION_SETS:
        with path.open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle):
                result = answer(row["question"], index)
                if result.refused:
                    continue
                started = time.perf_counter()
                report = check_grounding(result.text, [h.document for h in result.hits], row["question"])
                slowest = max(slowest, (time.perf_counter() - started) * 1000)
                checked += 1
                flagged += not report.ok
    return checked, flagged, slowest


def print_table(name: str, cases: list[Case]) -> None:
    correct = sum(1 for c in cases if not c.expected)
    print(f"{name}: {len(cases)} answers, {correct} correct, {len(cases) - correct} with one planted error")
    print()
    print("| code | planted | caught | missed | false alarms | precision | recall |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for code, tp, fp, fn, precision, recall in score_table(cases):
        planted = tp + fn
        print(f"| {code} | {planted} | {tp} | {fn} | {fp} | {precision} | {recall} |")
    flagged_correct = sum(1 for c in cases if not c.expected and predicted_codes(c))
    print(f"\ncorrect answers flagged by any check (false alarms): {flagged_correct} / {correct}\n")


def main() -> None:
    chunks = load_documents(ROOT / "corpus")
    for path in (CASES_CSV, QUESTION_CASES_CSV):
        print_table(path.name, load_cases(path, chunks))
    checked, flagged, slowest = offline_sweep(chunks)
    print(f"offline answerer on {checked} answered questions: {flagged} flagged, slowest check {slowest:.2f} ms")


if __name__ == "__main__":
    main()
