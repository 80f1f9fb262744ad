"""The reuse set format: approved question and answer, a new question, whether the approved answer should answer it.

CSV, UTF-8 (a BOM is allowed), header `id,approved_question,approved_answer,new_question,expect,kind,edit`:
`expect` is `reuse` or `no_reuse`; `kind` is `paraphrase`, `other_case`, `other_topic` or `stale`; `edit`, when
set, is `FILE|OLD|NEW`: every OLD in corpus file FILE becomes NEW before the new question is asked. Read by
`python -m core eval --reuse FILE.csv` (core.evaluation.reuse_eval). Messages name the row, in Chinese.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from core.errors import QuestionSetError

COLUMNS = ("id", "approved_question", "approved_answer", "new_question", "expect", "kind", "edit")
EXPECTS = ("reuse", "no_reuse")
KINDS = ("paraphrase", "other_case", "other_topic", "stale")


@dataclass(frozen=True)
class Edit:
    """Replace every `old` by `new` in corpus file `source`."""

    source: str
    old: str
    new: str


@dataclass(frozen=True)
class ReuseCase:
    """One row of a reuse set."""

    id: str
    approved_question: str
    approved_answer: str
    new_question: str
    expect: str
    kind: str
    edit: Edit | None
    line: int


def read_reuse_set(path: str | Path) -> tuple[ReuseCase, ...]:
    """Every row of the file, checked; QuestionSetError naming the rows that cannot be used."""
    try:
        text = Path(path).read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise QuestionSetError(f"复用评测集「{path}」读不出来（{type(error).__name__}），请确认它是 UTF-8 编码的 CSV 文件。") from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = [c for c in COLUMNS if c not in (reader.fieldnames or ())]
    if missing:
        raise QuestionSetError(f"复用评测集缺少列：{'、'.join(missing)}（表头应为 {','.join(COLUMNS)}）。")
    cases, problems = [], []
    for line, row in enumerate(reader, start=2):
        values = {k: (row.get(k) or "").strip() for k in COLUMNS}
        found = [f"{name} 是空的" for name in COLUMNS[:5] if not values[name]]
        if values["expect"] and values["expect"] not in EXPECTS:
            found.append(f"expect「{values['expect']}」只能是 reuse 或 no_reuse")
        if values["kind"] not in KINDS:
            found.append(f"kind「{values['kind']}」只能是 {'、'.join(KINDS)}")
        edit = None
        if values["edit"]:
            parts = values["edit"].split("|")
            if len(parts) != 3 or not parts[0] or not parts[1]:
                found.append("edit 应写成 文件名|原文|新文")
            else:
                edit = Edit(*parts)
        if found:
            problems.append(f"第 {line} 行：" + "；".join(found))
            continue
        cases.append(ReuseCase(values["id"], values["approved_question"], values["approved_answer"],
                               values["new_question"], values["expect"], values["kind"], edit, line))
    if problems:
        raise QuestionSetError("复用评测集有问题：" + " ".join(problems[:20]), [(0, p) for p in problems])
    return tuple(cases)
