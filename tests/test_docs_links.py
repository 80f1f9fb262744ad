"""The README and docs/*.md hold together: relative links and #anchors resolve, the README stays short.

Only Markdown links outside code are checked; web addresses are left alone (no network in tests).
"""

from __future__ import annotations

import importlib
import io
import re
import tokenize
import unicodedata
from pathlib import Path

import pytest

from tests.paths import ROOT

README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [README, *DOCS]
README_MAX_BYTES = 15_000

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
INLINE_CODE = re.compile(r"`[^`\n]*`")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def _prose(text: str) -> str:
    """The text without fenced blocks and inline code, where brackets are not links."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation and symbols dropped, spaces to hyphens."""
    kept = []
    for ch in heading.strip().lower():
        kind = unicodedata.category(ch)
        if ch in " -_" or kind[0] in "LMN":
            kept.append("-" if ch == " " else ch)
    return "".join(kept)


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for heading in HEADING.findall(FENCE.sub("", page.read_text(encoding="utf-8"))):
        base = slug(re.sub(r"[*`]", "", heading))
        count = seen.get(base, 0)
        found.add(base if count == 0 else f"{base}-{count}")
        seen[base] = count + 1
    return found


def relative_links(page: Path) -> list[str]:
    targets = LINK.findall(_prose(page.read_text(encoding="utf-8")))
    return [t for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:", t, re.I)]


@pytest.mark.parametrize("heading, expected", [
    ("默认阈值 0.01 是怎么定的", "默认阈值-001-是怎么定的"),
    ("本机离线向量模型（可选）", "本机离线向量模型可选"),
    ("Why `k1` = 1.2?", "why-k1--12"),
])
def test_slug_matches_github_anchors(heading, expected):
    assert slug(re.sub(r"[*`]", "", heading)) == expected


def test_readme_is_at_most_15_kb():
    size = len(README.read_bytes())
    assert size <= README_MAX_BYTES, f"README.md is {size} bytes; move detail into docs/ (limit {README_MAX_BYTES})"


def test_readme_opens_with_the_two_quick_start_commands():
    head = README.read_text(encoding="utf-8").splitlines()[:8]
    assert any(line.startswith("make run") for line in head)
    assert any(line.startswith("make test") for line in head)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_resolve(page):
    broken = []
    for target in relative_links(page):
        path_part, _, anchor = target.partition("#")
        dest = (page.parent / path_part).resolve() if path_part else page
        if not dest.exists():
            broken.append(f"{target}: no file {dest.relative_to(ROOT) if dest.is_relative_to(ROOT) else dest}")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: no heading with anchor #{anchor} in {dest.name}")
    assert not broken, "\n".join(broken)


@pytest.mark.parametrize("page", DOCS, ids=lambda p: p.name)
def test_doc_starts_with_title_and_two_line_summary(page):
    lines = page.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("# "), f"{page.name} must open with a '# ' title"
    assert lines[1] == "" and lines[2].strip() and lines[3].strip() and lines[4] == "", (
        f"{page.name}: after the title, a two-line summary and a blank line")


def test_readme_links_every_doc():
    linked = {(README.parent / t.partition("#")[0]).resolve() for t in relative_links(README)}
    missing = [d.name for d in DOCS if d.resolve() not in linked]
    assert not missing, f"docs not linked from README.md: {missing}"


def test_docs_cover_the_required_topics():
    names = {d.stem for d in DOCS}
    required = {"retrieval", "answerability", "grounding", "review-queue", "tuning", "models",
                "deployment", "benchmarks", "dependencies", "development"}
    assert required <= names, sorted(required - names)
    assert names & {"accounts", "security"}


SOURCE_PATH = re.compile(r"\b((?:core|ui|app_pages|bench|tests)/[A-Za-z0-9_/]+\.py)\b")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_source_files_named_in_the_docs_exist(page):
    """A path like core/answerability/terms.py in the prose or a code span names a file that is there
    (the package layout moved once and left a dozen stale names behind)."""
    named = sorted(set(SOURCE_PATH.findall(page.read_text(encoding="utf-8"))))
    missing = [path for path in named if not (ROOT / path).is_file()]
    assert not missing, f"{page.name} names files that do not exist: {missing}"


DOTTED = re.compile(r"(?<![\w./-])(core(?:\.[A-Za-z_][A-Za-z0-9_]*)+)")
CODE_FOLDERS = ("core", "ui", "app_pages", "bench")


def _resolves(dotted: str) -> bool:
    """`core.a.b.name` is an importable module, or a module followed by attributes it has."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(obj, attribute):
                return False
            obj = getattr(obj, attribute)
        return True
    return False


def _comments_and_strings(path: Path) -> str:
    """Every comment, docstring and string literal of a Python file: where a message or a note names code."""
    pieces = [tok.string for tok in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
              if tok.type in (tokenize.COMMENT, tokenize.STRING)]
    return "\n".join(pieces)


def _named_code() -> list[tuple[str, str]]:
    texts = [(p, p.read_text(encoding="utf-8")) for p in PAGES]
    texts += [(p, _comments_and_strings(p)) for folder in CODE_FOLDERS for p in sorted((ROOT / folder).rglob("*.py"))]
    texts.append((ROOT / "streamlit_app.py", _comments_and_strings(ROOT / "streamlit_app.py")))
    found = []
    for path, text in texts:
        where = path.relative_to(ROOT).as_posix()
        found += [(where, name) for name in SOURCE_PATH.findall(text) if not (ROOT / name).is_file()]
        found += [(where, name) for name in DOTTED.findall(text) if "__main__" not in name and not _resolves(name)]
    return sorted(set(found))


def test_code_comments_messages_and_docs_name_only_code_that_exists():
    """Comments, docstrings, messages (CLI output included) and docs name modules, functions and files that
    are there: a package move once left 29 stale names behind, one printed by `xiaoe index info`."""
    stale = _named_code()
    assert not stale, "\n".join(f"{where}: {name}" for where, name in stale)


def test_the_stale_name_check_can_fail():
    assert not _resolves("core.answering.rag.NoSuchThing") and not _resolves("core.no_such_module")
    assert _resolves("core.values.Hit") and _resolves("core.settings.Settings.load")
