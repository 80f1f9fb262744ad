"""Side-by-side diff of two versions of a corpus file: aligned rows of (old line, new line, kind).

`kind` is 相同, 修改, 删除 or 新增, so a page can colour removed lines red and added ones green
without parsing `@@ -10,7 +10,8 @@` hunks; `inline_parts` marks the changed characters inside a changed
line. Long unchanged runs are folded to `context` lines around each change.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

SAME, CHANGED, REMOVED, ADDED, FOLDED = "相同", "修改", "删除", "新增", "省略"


@dataclass(frozen=True)
class DiffRow:
    """One aligned row; line numbers are 1-based, None where that side has no line."""

    old_no: int | None
    old: str
    new_no: int | None
    new: str
    kind: str


def side_by_side(old: str, new: str, *, context: int = 3) -> tuple[DiffRow, ...]:
    """Aligned rows from `old` to `new`; empty when the texts are equal."""
    a, b = old.splitlines(), new.splitlines()
    if a == b:
        return ()
    rows: list[DiffRow] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "equal":
            run = [DiffRow(i1 + n + 1, a[i1 + n], j1 + n + 1, b[j1 + n], SAME) for n in range(i2 - i1)]
            rows.extend(_fold(run, context, first=not rows, last=i2 == len(a)))
            continue
        for n in range(max(i2 - i1, j2 - j1)):
            left = i1 + n if i1 + n < i2 else None
            right = j1 + n if j1 + n < j2 else None
            kind = CHANGED if left is not None and right is not None else (REMOVED if right is None else ADDED)
            rows.append(DiffRow(left + 1 if left is not None else None, a[left] if left is not None else "",
                                right + 1 if right is not None else None, b[right] if right is not None else "",
                                kind))
    return tuple(rows)


def _fold(run: list[DiffRow], context: int, *, first: bool, last: bool) -> list[DiffRow]:
    keep_head = 0 if first else context
    keep_tail = 0 if last else context
    if len(run) <= keep_head + keep_tail + 1:
        return run
    hidden = len(run) - keep_head - keep_tail
    folded = DiffRow(None, f"……{hidden} 行相同……", None, f"……{hidden} 行相同……", FOLDED)
    return run[:keep_head] + [folded] + run[len(run) - keep_tail:]


Part = tuple[str, bool]  # a piece of a line and whether it is what changed


def inline_parts(row: DiffRow) -> tuple[tuple[Part, ...], tuple[Part, ...]]:
    """The old and the new line of `row` cut into pieces, the changed ones marked, character by character
    (Chinese has no spaces to split words on): 「单笔最低 50 元」→「单笔最低 60 元」 marks only 5 and 6.
    A removed or added line is changed as a whole; an unchanged or folded one not at all."""
    if row.kind == REMOVED:
        return ((row.old, True),), ()
    if row.kind == ADDED:
        return (), ((row.new, True),)
    if row.kind != CHANGED:
        return ((row.old, False),), ((row.new, False),)
    old: list[Part] = []
    new: list[Part] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=row.old, b=row.new, autojunk=False).get_opcodes():
        if i2 > i1:
            old.append((row.old[i1:i2], tag != "equal"))
        if j2 > j1:
            new.append((row.new[j1:j2], tag != "equal"))
    return tuple(old), tuple(new)

