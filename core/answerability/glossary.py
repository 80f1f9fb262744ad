"""The school's words: a glossary mapping what students say (价格) to what the documents say (学费).

This module holds the value (`Glossary`), query expansion and the CSV format; the database
store that consultants edit lives in `core/stores/glossary.py`. A synonym may map to more than
one canonical term; every lookup returns terms in the glossary's (sorted) order.
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import ahocorasick

from core.cells import csv_bytes, restore
from core.errors import InvalidGlossary
from core.language.text import normalize
from core.settings import PROJECT_ROOT

STARTER_PATH = Path(__file__).resolve().parents[1] / "data" / "glossary_starter.csv"
# The school's own pairs (level names, amounts) live beside its documents: no school fact in core's data files.
CORPUS_GLOSSARY = "glossary.csv"
DEFAULT_CORPUS = PROJECT_ROOT / "corpus"
MAX_WORD_CHARS = 20
MAX_IMPORT_ROWS = 5000
MAX_REPORTED_ERRORS = 10
TERM_HEADERS = ("标准词", "term")
SYNONYM_HEADERS = ("同义词", "synonym")
EXPORT_HEADER = ("标准词", "同义词", "添加人", "添加时间")


    # Kept here rather than in core/errors.py because that file belongs to another engineer.


@dataclass(frozen=True)
class GlossaryEntry:
    """`synonym` (what students say) counts as `term` (the word the corpus uses)."""

    term: str
    synonym: str
    who: str = ""
    at: str = ""


@dataclass(frozen=True)
class Glossary:
    """An immutable set of entries with normalised lookups; build from a store or a CSV."""

    entries: tuple[GlossaryEntry, ...] = ()
    _by_synonym: dict[str, tuple[str, ...]] = field(init=False, repr=False, compare=False)
    _phrases: frozenset[str] = field(init=False, repr=False, compare=False)
    _finder: ahocorasick.Automaton = field(init=False, repr=False, compare=False)  # over the synonyms

    def __post_init__(self) -> None:
        ordered = tuple(sorted(self.entries, key=lambda e: (e.term, e.synonym)))
        by_synonym: dict[str, list[str]] = {}
        for entry in ordered:
            terms = by_synonym.setdefault(normalize(entry.synonym), [])
            if entry.term not in terms:
                terms.append(entry.term)
        object.__setattr__(self, "entries", ordered)
        object.__setattr__(self, "_by_synonym", {k: tuple(v) for k, v in by_synonym.items()})
        object.__setattr__(self, "_phrases", frozenset(by_synonym) | {normalize(e.term) for e in ordered})
        finder = ahocorasick.Automaton()
        for synonym in self._by_synonym:
            if synonym:
                finder.add_word(synonym, synonym)
        if len(finder):
            finder.make_automaton()
        object.__setattr__(self, "_finder", finder)

    def synonyms_in(self, text: str) -> list[tuple[int, str]]:
        """(where it first occurs, the synonym) for every synonym in the normalised `text`: one Aho–Corasick pass
        (pyahocorasick) instead of a search per synonym (a built automaton is read-only: safe from several threads)."""
        if not len(self._finder) or not text:
            return []
        first: dict[str, int] = {}
        for end, synonym in self._finder.iter(text):
            first.setdefault(synonym, end - len(synonym) + 1)
        return [(position, synonym) for synonym, position in first.items()]

    def __len__(self) -> int:
        return len(self.entries)

    @property
    def phrases(self) -> frozenset[str]:
        """Every synonym and term, normalised: the multi-token phrases the analyzer keeps whole."""
        return self._phrases

    @property
    def fingerprint(self) -> str:
        """sha256 of the (term, synonym) pairs: a cache key that changes with every edit."""
        digest = hashlib.sha256()
        for entry in self.entries:
            digest.update(f"{entry.term}\0{entry.synonym}\n".encode())
        return digest.hexdigest()[:16]

    def canonical(self, word: str) -> tuple[str, ...]:
        """The terms `word` stands for (empty when it is not a synonym)."""
        return self._by_synonym.get(normalize(word), ())

    def terms(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(e.term for e in self.entries))


def expand_query(question: str, glossary: Glossary | None) -> str:
    """The question plus the canonical terms of every synonym it contains (for retrieval only).

    Retrieval's recall-side expansion: a synonym counts wherever it occurs in the text. The gate matches
    synonyms on token boundaries only (core.answerability.terms: 「学生」 never inside 「学生价」). Expanding
    from the gate's own tokens instead was measured (docs/answerability.md): it changes one v9 outcome, so
    it waits for a set that can measure it.

    `expand_query("入门级的价格是多少", g)` → "入门级的价格是多少 学费". Terms already in the
    question are not repeated; the order follows where the synonyms occur in the question.
    """
    if not glossary:
        return question
    text = normalize(question)
    found = [(position, term) for position, synonym in glossary.synonyms_in(text)
             for term in glossary._by_synonym[synonym]]
    added = [t for t in dict.fromkeys(term for _, term in sorted(found)) if normalize(t) not in text]
    return f"{question} {' '.join(added)}" if added else question


def check_entry(term: str, synonym: str) -> tuple[str, str]:
    """The stripped pair, or InvalidGlossary saying what is wrong with it."""
    term, synonym = (term or "").strip(), (synonym or "").strip()
    if not term:
        raise InvalidGlossary("标准词是空的：请填写资料里使用的词，例如“学费”。")
    if not synonym:
        raise InvalidGlossary(f"同义词是空的：请填写学员会说的、与“{term}”同义的词。")
    for label, word in (("标准词", term), ("同义词", synonym)):
        if len(word) > MAX_WORD_CHARS:
            raise InvalidGlossary(f"{label}“{word[:MAX_WORD_CHARS]}…”有 {len(word)} 个字，超过 {MAX_WORD_CHARS} 字上限，"
                                  "请只填一个词。")
        if not normalize(word):
            raise InvalidGlossary(f"{label}“{word}”只有标点或空格，请填写一个词。")
    if normalize(term) == normalize(synonym):
        raise InvalidGlossary(f"标准词和同义词相同（“{term}”），同义词应是学员的另一种说法。")
    return term, synonym


def read_csv(data: bytes | str) -> list[tuple[str, str]]:
    """Parse a glossary CSV (UTF-8, BOM optional); every bad row is named, nothing is half-read.

    The header must have a 标准词 and a 同义词 column (添加人/添加时间 may be present and are
    ignored). Raises InvalidGlossary listing up to ten problems, each with its row number.
    """
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise InvalidGlossary(f"文件不是 UTF-8 编码（第 {error.start} 字节附近无法解码），"
                                  "请在表格软件里另存为“CSV UTF-8”后重试。") from None
    data = data.lstrip("\ufeff")
    rows = _rows(data)
    if not rows or not any(cell.strip() for cell in rows[0]):
        raise InvalidGlossary("文件是空的：第 1 行应为表头“标准词,同义词”。")
    header = [cell.strip().lower() for cell in rows[0]]
    term_col = _column(header, TERM_HEADERS)
    synonym_col = _column(header, SYNONYM_HEADERS)
    if term_col is None or synonym_col is None:
        missing = "、".join(name for name, col in (("标准词", term_col), ("同义词", synonym_col)) if col is None)
        raise InvalidGlossary(f"第 1 行表头缺少“{missing}”列：表头应为“标准词,同义词”（可另有“添加人,添加时间”）。")
    if len(rows) - 1 > MAX_IMPORT_ROWS:
        raise InvalidGlossary(f"文件有 {len(rows) - 1} 行，超过 {MAX_IMPORT_ROWS} 行上限，请拆成几个文件导入。")
    pairs: list[tuple[str, str]] = []
    errors: list[str] = []
    first_row: dict[tuple[str, str], int] = {}
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue  # blank lines are common at the end of spreadsheet exports
        cells = row + [""] * (max(term_col, synonym_col) + 1 - len(row))
        try:
            pair = check_entry(restore(cells[term_col]), restore(cells[synonym_col]))
        except InvalidGlossary as error:
            errors.append(f"第 {number} 行：{error}")
            continue
        key = (normalize(pair[0]), normalize(pair[1]))
        if key in first_row:
            errors.append(f"第 {number} 行：“{pair[1]} → {pair[0]}”与第 {first_row[key]} 行重复。")
            continue
        first_row[key] = number
        pairs.append(pair)
    if errors:
        more = f"\n……另有 {len(errors) - MAX_REPORTED_ERRORS} 处问题" if len(errors) > MAX_REPORTED_ERRORS else ""
        raise InvalidGlossary("导入失败，没有保存任何一行，请改正后重新导入：\n"
                              + "\n".join(errors[:MAX_REPORTED_ERRORS]) + more)
    return pairs


def _rows(data: str) -> list[list[str]]:
    """The CSV's rows; a cell longer than the csv module's limit (or a quote never closed) is named by its row."""
    rows: list[list[str]] = []
    reader = csv.reader(io.StringIO(data))
    try:
        for row in reader:
            rows.append(row)
    except csv.Error:
        raise InvalidGlossary(f"导入失败，没有保存任何一行：第 {len(rows) + 1} 行有一个单元格太长（超过 "
                              f"{csv.field_size_limit():,} 个字），或者引号没有成对。同义词表的每格只写一个词，"
                              "请检查这一行后重新导入。") from None
    return rows


def write_csv(entries: Iterable[GlossaryEntry]) -> bytes:
    """UTF-8 with BOM (so Excel opens it as Chinese), header 标准词,同义词,添加人,添加时间; formula cells
    neutralised as in the queue export (read_csv takes the quote off again)."""
    return csv_bytes(EXPORT_HEADER, ((entry.term, entry.synonym, entry.who, entry.at) for entry in entries))


def starter_pairs(path: Path = STARTER_PATH, *, corpus_dir: Path | None = None) -> list[tuple[str, str]]:
    """The starter pairs: the general ones shipped with the code, then the school's own (its level names, its
    amounts: 初级 → <the first level's name>) shipped beside its documents as `<corpus>/glossary.csv`, when there.
    `corpus_dir` None: the shipped corpus."""
    pairs = read_csv(path.read_bytes())
    school = (corpus_dir or DEFAULT_CORPUS) / CORPUS_GLOSSARY
    if school.is_file():
        pairs += [pair for pair in read_csv(school.read_bytes()) if pair not in pairs]
    return pairs


def load_starter(path: Path = STARTER_PATH, *, corpus_dir: Path | None = None) -> Glossary:
    """The starter glossary (`starter_pairs`), as a value."""
    return Glossary(tuple(GlossaryEntry(term, synonym, who="初始词表")
                          for term, synonym in starter_pairs(path, corpus_dir=corpus_dir)))


def _column(header: list[str], names: tuple[str, ...]) -> int | None:
    for index, cell in enumerate(header):
        if cell in names:
            return index
    return None
