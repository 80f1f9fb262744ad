"""Questions to group: read from a CSV file, retrieved once each, grouped by the one rule (core.gaps.grouping).

`group_questions` is what `python -m core gaps FILE.csv`, the board (core.gaps.board) and bench/gaps.py all
call, so the page, the command line and the measurement group alike.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import InvalidQuestion, QuestionSetError
from core.gaps.grouping import RULE, Grouping, Rule, group, signals_of
from core.os_errors import os_reason
from core.values import Retrieval

if TYPE_CHECKING:
    from core.assistant import Assistant

ID_COLUMNS = ("id", "编号")
QUESTION_COLUMNS = ("question", "问题")
MAX_FILE_BYTES = 5 * 1024 * 1024


@dataclass(frozen=True)
class FileQuestion:
    """One row of a questions file: its id (the `id` column as text, else the row number from 1), the
    question, and every other column as it was (a bench reads its labels from there)."""

    id: str | int
    question: str
    extra: dict[str, str]


def read_questions(path: str | Path) -> tuple[FileQuestion, ...]:
    """The rows of a UTF-8 CSV with a `question` (or 问题) column and an optional `id` (or 编号) column;
    other columns are kept in `extra` and otherwise ignored. Without an id column a row's id is its number
    among the file's records (blank lines are not records). Rows with an empty question are skipped."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise QuestionSetError(f"文件「{path.name}」超过 5 MB，请拆成几个文件。")
        raw = path.read_bytes()
    except OSError as error:
        raise QuestionSetError(f"读不了文件「{path}」（{os_reason(error)}），请检查路径。") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise QuestionSetError(f"文件「{path.name}」不是 UTF-8 编码，请在 Excel 里另存为「CSV UTF-8」后重试。") from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = [(name or "").strip() for name in reader.fieldnames or []]
    question_column = next((h for h in header if h.lower() in QUESTION_COLUMNS), None)
    if question_column is None:
        raise QuestionSetError(f"文件「{path.name}」第 1 行（表头）没有 question（或 问题）列，"
                               "请把问题放在名为 question 的一列里。", [(1, "表头缺 question 列")])
    id_column = next((h for h in header if h.lower() in ID_COLUMNS), None)
    rows: list[FileQuestion] = []
    seen: dict[str | int, int] = {}
    for number, record in enumerate(reader, start=1):
        line = reader.line_num
        cells = {(k or "").strip(): (v or "").strip() if isinstance(v, str) else "" for k, v in record.items()}
        question = cells.get(question_column, "")
        if not question:
            continue
        row_id: str | int = (cells.get(id_column, "") or str(number)) if id_column else number
        if row_id in seen:
            raise QuestionSetError(f"第 {line} 行的编号「{row_id}」和第 {seen[row_id]} 行重复，编号不能重复。",
                                   [(line, "编号重复")])
        seen[row_id] = line
        extra = {k: v for k, v in cells.items() if k not in (question_column, id_column)}
        rows.append(FileQuestion(id=row_id, question=question, extra=extra))
    return tuple(rows)


def retrieve_all(assistant: Assistant, questions: Sequence[str]) -> tuple[Retrieval | None, ...]:
    """Each question retrieved once through the one chain; None for a question the chain refuses to take
    (too long), which is then noise."""
    found: list[Retrieval | None] = []
    for question in questions:
        try:
            found.append(assistant.retrieve(question))
        except InvalidQuestion:
            found.append(None)
    return tuple(found)


def group_retrievals(retrievals: Sequence[Retrieval | None], hints: Sequence[str] = (),
                     rule: Rule = RULE) -> Grouping:
    """The grouping of already retrieved questions (`hints` by position, "" for none)."""
    hints = list(hints) + [""] * (len(retrievals) - len(hints))
    return group([signals_of(r, h) if r is not None else signals_of(Retrieval("", ()))
                  for r, h in zip(retrievals, hints)], rule)


def group_questions(assistant: Assistant, questions: Sequence[str], hints: Sequence[str] = (),
                    rule: Rule = RULE) -> Grouping:
    """Retrieve every question through `assistant` and group them (positions into `questions`)."""
    if assistant.analyzer is None:
        raise QuestionSetError("资料缺口分组要用可答性判断切出的词，但现在关掉了（XIAOE_ANSWERABILITY=off）。"
                               "请把 XIAOE_ANSWERABILITY 设为 on 后重试。")
    return group_retrievals(retrieve_all(assistant, questions), hints, rule)
