"""Labelled question sets: the values, and reading/validating them from CSV, Excel or table rows.

A set is all-or-nothing: `parse_question_set` either returns a complete `QuestionSet` or raises
`QuestionSetError` listing every bad row by its line number (the header is line 1, as in Excel).
Storage lives in core/stores/question_sets.py; this module never touches the database.
"""

from __future__ import annotations

import csv
import hashlib
import io
import zipfile
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from core.cells import csv_bytes, restore
from core.errors import QuestionSetError
from core.language.text import normalize, question_key
from core.os_errors import os_reason
from core.settings import MAX_QUESTION_CHARS

REFUSE = "应拒答"
COLUMNS = ("question", "expected", "section", "key_phrase")
# Where a question came from when it was added from the review queue (core.evaluation.from_reviews): written only
# by sets that have such questions, so the CSV (and the content hash) of every other set is unchanged.
PROVENANCE_COLUMNS = ("item_id", "reviewer", "reviewed_at")
REQUIRED_COLUMNS = ("question", "expected")
# Consultants often write the headers in Chinese; both spellings are accepted.
COLUMN_ALIASES = {"问题": "question", "预期": "expected", "预期结果": "expected", "预期资料": "expected",
                  "小节": "section", "章节": "section", "关键短语": "key_phrase", "关键词": "key_phrase",
                  "复核条目": "item_id", "复核人": "reviewer", "复核时间": "reviewed_at"}
KEY_PHRASE_SEPARATOR = "|"  # 关键短语 may list several wordings of the fact: 「不再受理退费|不再受理」
MAX_SET_BYTES = 5 * 1024 * 1024
MAX_QUESTIONS = 5000
MAX_LISTED_PROBLEMS = 20
# Excel on a Chinese Windows saves "CSV" as GBK; GB18030 is its superset.
ENCODINGS = ("utf-8-sig", "gb18030")




def key_phrases(key_phrase: str) -> tuple[str, ...]:
    """The wordings a 关键短语 cell allows, split on `|`; the same fact is often stated twice in a
    document (its rule section and its FAQ), and either statement holds the fact."""
    return tuple(p.strip() for p in key_phrase.split(KEY_PHRASE_SEPARATOR) if p.strip())


def holds_key_phrase(text: str, key_phrase: str) -> bool:
    """True if `text` contains any wording of the key phrase (punctuation- and case-blind); an
    empty key phrase asks for nothing and holds everywhere."""
    wordings = key_phrases(key_phrase)
    folded = normalize(text)
    return not wordings or any(p in text or normalize(p) in folded for p in wordings)


@dataclass(frozen=True)
class LabelledQuestion:
    """One question and what a correct outcome is: refuse (`expected` empty) or answer from a file."""

    question: str
    expected: str = ""
    section: str = ""
    key_phrase: str = ""
    line: int = 0
    item_id: int | None = None  # the review item it was made from, with who decided it and when
    reviewer: str = ""
    reviewed_at: str = ""
    # Set at evaluation time (`mark_gone`), never read from a file: where the expected file or section went missing
    # from the documents (「「02-退费与转班制度.md」里没有小节「四、不予退费的情形」」); such a row is a miss.
    gone: str = field(default="", compare=False)

    @property
    def should_refuse(self) -> bool:
        return not self.expected

    @property
    def expectation(self) -> str:
        """Human-readable expectation, e.g. 「01-口语课分级说明.md · 三、学费标准」 or 「应拒答」."""
        if self.should_refuse:
            return REFUSE
        return " · ".join(part for part in (self.expected, self.section) if part)

    def to_row(self) -> dict[str, str]:
        row = {"question": self.question, "expected": self.expected or REFUSE,
               "section": self.section, "key_phrase": self.key_phrase}
        if self.item_id is not None:
            row.update(item_id=str(self.item_id), reviewer=self.reviewer, reviewed_at=self.reviewed_at)
        return row


@dataclass(frozen=True)
class QuestionSet:
    """An ordered, validated tuple of labelled questions; identified by the hash of its CSV form."""

    questions: tuple[LabelledQuestion, ...] = field(default_factory=tuple)
    # Computed once at construction so a cached (pickled) set carries it along.
    content_hash: str = field(init=False, repr=False, compare=False, default="")

    def __post_init__(self) -> None:
        object.__setattr__(self, "content_hash", hashlib.sha256(self.to_csv().encode("utf-8")).hexdigest())

    def __len__(self) -> int:
        return len(self.questions)

    def to_csv(self) -> str:
        """The canonical CSV text (header + rows, \\n line ends); what is stored and hashed."""
        buffer = io.StringIO()
        provenance = any(q.item_id is not None for q in self.questions)
        writer = csv.DictWriter(buffer, fieldnames=COLUMNS + PROVENANCE_COLUMNS if provenance else COLUMNS,
                                lineterminator="\n")
        writer.writeheader()
        writer.writerows(q.to_row() for q in self.questions)
        return buffer.getvalue()

    def to_download(self) -> bytes:
        """The set as a CSV file for a person (UTF-8 with a BOM) through the formula-safe writer (core.cells): a
        student's 「=HYPERLINK(…)」 that reached the set through 「加入评测集」 is text in Excel, not a formula.
        Uploading it again gives the same set (the reader takes the writer's quotes off)."""
        provenance = any(q.item_id is not None for q in self.questions)
        columns = COLUMNS + PROVENANCE_COLUMNS if provenance else COLUMNS
        return csv_bytes(columns, ([q.to_row().get(c, "") for c in columns] for q in self.questions))

    @property
    def answerable(self) -> int:
        return sum(not q.should_refuse for q in self.questions)


GONE_REASON = "期望的小节已不在资料里"


def mark_gone(questions: Sequence[LabelledQuestion], known_files: Collection[str],
              known_sections: Mapping[str, Collection[str]]) -> tuple[LabelledQuestion, ...]:
    """`questions` with `gone` set on each row whose expected file, or section in it, is not in the documents now
    (a deletion since the set was written): evaluated as a miss (core.evaluation.metrics.holds_fact), not a reason
    to refuse the whole set. Uploading a set still refuses such a row (`_row_problems`): there it is a typo."""
    out = []
    for q in questions:
        gone = ""
        if not q.should_refuse and q.expected not in known_files:
            gone = f"资料文件「{q.expected}」已不在资料里"
        elif not q.should_refuse and q.section and normalize(q.section) not in {
                normalize(h) for h in known_sections.get(q.expected, ())}:
            gone = f"「{q.expected}」里没有小节「{q.section}」"
        out.append(replace(q, gone=gone) if gone != q.gone else q)
    return tuple(out)


def parse_question_set(data: bytes, *, filename: str = "题集.csv", known_files: Collection[str] | None = None,
                       known_sections: Mapping[str, Collection[str]] | None = None) -> QuestionSet:
    """Read a CSV or XLSX upload and validate it; the size is checked before anything is decoded."""
    check_size(len(data))
    suffix = Path(filename).suffix.lower()
    if suffix == ".xls":
        raise QuestionSetError("不支持旧版 Excel（.xls）文件，请在 Excel 里另存为 .xlsx 或 CSV（UTF-8）后再上传。")
    records = _xlsx_records(data) if suffix == ".xlsx" else _csv_records(data)
    if not records:
        raise QuestionSetError("文件是空的：第 1 行应是表头 question,expected,section,key_phrase，下面每行一道题。")
    (_, header), rows = records[0], records[1:]
    columns = _columns(header)
    dicts, overflow = [], []
    for line, cells in rows:
        dicts.append((line, {columns[i]: cell for i, cell in enumerate(cells) if i < len(columns) and columns[i]}))
        if any(cells[len(columns):]):
            overflow.append((line, f"这一行有 {len(cells)} 格，比表头的 {len(columns)} 列多；"
                                   "问题里如有英文逗号，请给整格加上英文双引号"))
    return _validate(dicts, known_files=known_files, known_sections=known_sections, problems=overflow)


def read_question_file(path: str | Path, **options) -> QuestionSet:
    """Parse a file from disk; its size is checked with stat() before it is read."""
    path = Path(path)
    try:
        check_size(path.stat().st_size)
        data = path.read_bytes()
    except OSError as error:
        raise QuestionSetError(f"无法读取题集文件「{path}」（{os_reason(error)}），请检查路径。") from None
    return parse_question_set(data, filename=path.name, **options)


def questions_from_rows(rows: Iterable[Mapping[str, object]], *, first_line: int = 1,
                        lines: Sequence[int] | None = None, known_files: Collection[str] | None = None,
                        known_sections: Mapping[str, Collection[str]] | None = None) -> QuestionSet:
    """Validate rows edited in a table (keys = COLUMNS); row i is called line `lines[i]`, else `first_line + i`."""
    rows = list(rows)
    numbers = list(lines) if lines is not None and len(lines) == len(rows) else range(first_line, first_line + len(rows))
    dicts = [(line, {key: _cell(row.get(key)) for key in COLUMNS + PROVENANCE_COLUMNS})
             for line, row in zip(numbers, rows)]
    return _validate(dicts, known_files=known_files, known_sections=known_sections)


def check_size(n_bytes: int) -> None:
    if n_bytes > MAX_SET_BYTES:
        raise QuestionSetError(f"题集文件有 {n_bytes / 1024 / 1024:.1f} MB，超过了 {MAX_SET_BYTES // 1024 // 1024} MB "
                               "的上限，请拆成几个较小的题集再上传。")


def _cell(value: object) -> str:
    if value is None or (isinstance(value, float) and value != value):  # NaN from an empty table cell
        return ""
    return str(value).strip()


def _decode(data: bytes) -> str:
    first_error: UnicodeDecodeError | None = None
    for encoding in ENCODINGS:
        try:
            return data.decode(encoding)
        except UnicodeDecodeError as error:
            first_error = first_error or error
    line = data[:first_error.start].count(b"\n") + 1 if first_error else 1
    raise QuestionSetError(
        f"第 {line} 行有无法识别的字符：文件既不是 UTF-8 也不是 GBK 编码。请在 Excel 里"
        "「另存为 → CSV UTF-8（逗号分隔）」后重新上传。", [(line, "编码无法识别")])


def _csv_records(data: bytes) -> list[tuple[int, list[str]]]:
    text = _decode(data)
    reader = csv.reader(io.StringIO(text, newline=""))
    records: list[tuple[int, list[str]]] = []
    try:
        while True:
            start = reader.line_num + 1
            try:
                cells = next(reader)
            except StopIteration:
                break
            if any(cell.strip() for cell in cells):  # blank lines (Excel leaves some) are skipped
                records.append((start, [restore(cell.strip()) for cell in cells]))
    except csv.Error as error:
        raise QuestionSetError(f"第 {reader.line_num} 行无法按 CSV 读取（{error}），请检查引号是否成对、"
                               "文件是否真的是 CSV。", [(reader.line_num, "CSV 格式错误")]) from None
    return records


def _xlsx_records(data: bytes) -> list[tuple[int, list[str]]]:
    import pandas as pd  # imported here: only Excel uploads need it

    try:
        frame = pd.read_excel(io.BytesIO(data), engine="openpyxl", header=None, dtype=str, keep_default_na=False)
    except (zipfile.BadZipFile, ValueError, KeyError, OSError) as error:
        raise QuestionSetError(f"无法读取这个 Excel 文件（{type(error).__name__}），请确认它是 .xlsx 格式，"
                               "或在 Excel 里另存为 CSV（UTF-8）后再上传。") from None
    records = []
    for position, values in enumerate(frame.itertuples(index=False), start=1):  # Excel rows are 1-based
        cells = [_cell(v) for v in values]
        if any(cells):
            records.append((position, cells))
    return records


def _columns(header: list[str]) -> list[str]:
    columns = [COLUMN_ALIASES.get(name.strip(), name.strip().lower()) for name in header]
    unknown = [name for name, column in zip(header, columns)
               if column and column not in COLUMNS + PROVENANCE_COLUMNS]
    if unknown:
        raise QuestionSetError(f"第 1 行（表头）有无法识别的列：{'、'.join(unknown)}。可用的列是 "
                               f"{','.join(COLUMNS)}（或 问题、预期、小节、关键短语）。", [(1, "表头有未知列")])
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    if missing:
        raise QuestionSetError(f"第 1 行（表头）缺少必需的列：{'、'.join(missing)}。表头应为 "
                               f"{','.join(COLUMNS)}（section、key_phrase 可省略）。", [(1, "表头缺列")])
    repeated = sorted({c for c in columns if c and columns.count(c) > 1})
    if repeated:
        raise QuestionSetError(f"第 1 行（表头）的列重复了：{'、'.join(repeated)}，每列只能出现一次。", [(1, "表头列重复")])
    return columns


def _validate(rows: list[tuple[int, dict[str, str]]], *, known_files: Collection[str] | None,
              known_sections: Mapping[str, Collection[str]] | None,
              problems: Sequence[tuple[int, str]] = ()) -> QuestionSet:
    rows = [(line, row) for line, row in rows if any(_cell(v) for v in row.values())]
    if not rows:
        raise QuestionSetError("题集里没有任何题目，请至少写一道题。")
    if len(rows) > MAX_QUESTIONS:
        raise QuestionSetError(f"题集有 {len(rows)} 道题，超过了 {MAX_QUESTIONS} 道的上限，请拆成几个题集。")
    problems = list(problems)
    seen: dict[str, int] = {}
    questions = []
    for line, row in rows:
        item, found = _item_id(_cell(row.get("item_id")))
        q = LabelledQuestion(question=_cell(row.get("question")), expected=_cell(row.get("expected")),
                             section=_cell(row.get("section")), key_phrase=_cell(row.get("key_phrase")), line=line,
                             item_id=item, reviewer=_cell(row.get("reviewer")),
                             reviewed_at=_cell(row.get("reviewed_at")))
        found += _row_problems(q, known_files, known_sections)
        key = question_key(q.question)
        if q.question and key in seen:
            found.append(f"问题与第 {seen[key]} 行重复（「{_short(q.question)}」），同一道题只能出现一次")
        seen.setdefault(key, line)
        problems.extend((line, message) for message in found)
        if q.expected == REFUSE:
            q = LabelledQuestion(q.question, "", q.section, q.key_phrase, line, q.item_id, q.reviewer, q.reviewed_at)
        questions.append(q)
    if problems:
        problems.sort(key=lambda p: p[0])  # stable: a row's own messages keep their order
        raise QuestionSetError(_summary(problems), problems)
    return QuestionSet(tuple(questions))


def _item_id(cell: str) -> tuple[int | None, list[str]]:
    if not cell:
        return None, []
    if cell.isdigit():
        return int(cell), []
    return None, [f"复核条目（item_id）「{_short(cell)}」不是编号，应是复核队列里条目的数字编号，或留空"]


def _row_problems(q: LabelledQuestion, known_files: Collection[str] | None,
                  known_sections: Mapping[str, Collection[str]] | None) -> list[str]:
    found = []
    if not q.question:
        found.append("问题是空的")
    elif len(q.question) > MAX_QUESTION_CHARS:
        found.append(f"问题有 {len(q.question)} 个字，超过了 {MAX_QUESTION_CHARS} 字的上限")
    if not q.expected:
        found.append(f"expected（预期）是空的，请写资料文件名，或写「{REFUSE}」")
    elif q.expected == REFUSE:
        if q.section or q.key_phrase:
            found.append(f"预期是「{REFUSE}」的题不能再填小节或关键短语，请清空这两格")
    elif known_files is not None and q.expected not in known_files:
        listed = "、".join(sorted(known_files)) or "（资料库是空的）"
        found.append(f"预期资料「{q.expected}」不在资料库里（现有：{listed}）；资料里没有答案的题请写「{REFUSE}」")
    elif q.section and known_sections is not None:
        headings = known_sections.get(q.expected, ())
        if normalize(q.section) not in {normalize(h) for h in headings}:
            found.append(f"小节「{q.section}」不在「{q.expected}」里（现有：{'、'.join(headings) or '无'}）")
    return found


def _short(text: str, limit: int = 30) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _summary(problems: list[tuple[int, str]]) -> str:
    lines = [f"第 {line} 行：{message}。" for line, message in problems[:MAX_LISTED_PROBLEMS]]
    if len(problems) > MAX_LISTED_PROBLEMS:
        lines.append(f"……另有 {len(problems) - MAX_LISTED_PROBLEMS} 处问题。")
    return f"题集有 {len(problems)} 处问题，整份题集都没有被采用，请改正后重试：\n" + "\n".join(lines)
