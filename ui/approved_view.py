"""What pages show of approved answers, as plain values: the reuse line under an answer, the near misses, the list.

Nothing here calls Streamlit; every text a consultant wrote or a question a student typed goes through
`md_escape` before it can reach Markdown.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from core.clock import local
from core.values import ApprovedAnswer, Reuse
from ui.escape import md_escape

COLUMNS = ["编号", "问题", "状态", "使用次数", "最近使用", "通过人", "通过时间", "版本", "越过检查"]


def reused_line(answer: ApprovedAnswer, wording: str = "") -> str:
    """「已审答案：李老师 12-01 通过 · 第 3 次使用」 (this use counted), and the linked wording it matched by."""
    by = f" · 按顾问加入的问法「{md_escape(wording)}」匹配" if wording else ""
    return (f"已审答案：{md_escape(answer.approver)} {local(answer.approved_at):%m-%d} 通过 · 第 {answer.uses + 1} 次使用"
            f"（#{answer.id}，第 {answer.version} 版）{by}")


def near_lines(reuse: Reuse | None) -> list[str]:
    """「相似已审答案（情况不同：…）」 lines for the near misses, escaped; never shown as the answer."""
    if reuse is None:
        return []
    return [f"相似已审答案 #{r.answer.id}（{md_escape(r.describe())}）：「{md_escape(r.answer.question)}」"
            for r in reuse.near]


def approved_frame(answers: Sequence[ApprovedAnswer]) -> pd.DataFrame:
    rows = [{"编号": a.id, "问题": a.question, "状态": a.status_label, "使用次数": a.uses,
             "最近使用": f"{local(a.last_used_at):%Y-%m-%d %H:%M}" if a.last_used_at else "从未",
             "通过人": a.approver, "通过时间": f"{local(a.approved_at):%Y-%m-%d %H:%M}", "版本": a.version,
             "越过检查": "是" if a.override else ""} for a in answers]
    return pd.DataFrame(rows, columns=COLUMNS)
