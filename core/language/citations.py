"""The one citation grammar: how an answer writes its [n] markers, for every check and the renderer.

Accepted: [1], [1][2], [1,2], [1，2], [1、2] and the full-width brackets 【1】 and ［1］ (full-width
digits too). The citation check (core.checks.references), the figure and arithmetic checks
(core.language.figures, core.checks.arithmetic, core.checks.grounding) and the Ask page's renderer all read markers
through this module, so no answer can pass one check and fail another on syntax alone.
It only parses and renumbers; whether a number names a real chunk is core.checks.references' job.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

_DIGITS = "0-9０-９"
CITATION_RE = re.compile(rf"[\[【［]\s*[{_DIGITS}]{{1,4}}(?:\s*[,，、]\s*[{_DIGITS}]{{1,4}})*\s*[\]】］]")
_NUMBER_RE = re.compile(rf"[{_DIGITS}]{{1,4}}")
_TO_ASCII = str.maketrans("０１２３４５６７８９", "0123456789")


def numbers(marker: str) -> tuple[int, ...]:
    """The numbers of one marker, in the order written: 「[1、3]」 → (1, 3)."""
    return tuple(int(n.translate(_TO_ASCII)) for n in _NUMBER_RE.findall(marker))


def markers(text: str) -> Iterator[tuple[re.Match, tuple[int, ...]]]:
    """Each marker in `text` with its numbers."""
    for match in CITATION_RE.finditer(text):
        yield match, numbers(match.group())


def cited(text: str) -> list[int]:
    """Distinct citation numbers in order of first appearance."""
    seen: dict[int, None] = {}
    for _, found in markers(text):
        for n in found:
            seen.setdefault(n, None)
    return list(seen)


def renumber(text: str, count: int) -> tuple[str, tuple[int, ...]]:
    """Number the citations in order of first appearance, starting at [1].

    Returns the new text and `order`: order[i] is the old number of new number i + 1, followed by
    the old numbers 1..count the answer never cites (so the references list can be reordered the
    same way). Numbers outside 1..count are left as written: the citation check reports them.
    Every marker is rewritten in the canonical form, [1][2].
    """
    used = [n for n in cited(text) if 1 <= n <= count]
    new = {old: i for i, old in enumerate(used, start=1)}

    def rewrite(match: re.Match) -> str:
        return "".join(f"[{new.get(n, n)}]" if 1 <= n <= count else f"[{n}]" for n in numbers(match.group()))

    order = tuple(used) + tuple(n for n in range(1, count + 1) if n not in new)
    return CITATION_RE.sub(rewrite, text), order


def remap(text: str, mapping: dict[int, int]) -> str:
    """Every citation number `old` rewritten as `mapping[old]` (numbers not in it left as written), in the
    canonical form [1][2]: an approved answer's numbers moved onto today's chunks."""
    def rewrite(match: re.Match) -> str:
        return "".join(f"[{mapping.get(n, n)}]" for n in numbers(match.group()))

    return CITATION_RE.sub(rewrite, text)


def reorder(items: Sequence, order: Sequence[int]) -> tuple:
    """`items` (numbered from 1) in `order`, as returned by `renumber`."""
    return tuple(items[n - 1] for n in order)
