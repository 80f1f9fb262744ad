"""What the Review Queue page shows, as plain values: tables, filter choices, the marked answer, CSV bytes.

Nothing here calls Streamlit. Question and answer text only reach Markdown through `md_escape`
or `linked_answer` (which escapes), never as HTML.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from datetime import date, datetime, time, timedelta

import pandas as pd

from core.checks.approval import citable
from core.checks.references import excerpt
from core.labels import reason_label

# The queue's values and limits are re-exported for the Review page, which imports no store itself.
from core.stores.review import Filters, ReviewEvent, ReviewItem, ReviewStore  # noqa: F401
from core.stores.review_schema import (  # noqa: F401
    LANES,
    MAX_CORRECTED_CHARS,
    MAX_NAME_CHARS,
    MAX_NOTE_CHARS,
    STATUS_LABELS,
)
from ui.answer_view import BELOW, PASSED, linked_answer, md_escape
from ui.source_view import source_url

ALL = "全部"
QUESTION_CHARS = 40
REASON_CHARS = 60
TIME_FORMAT = "%Y-%m-%d %H:%M"
ANSWER_PREVIEW_CHARS = 5_000  # the queue stores answers whole; the detail view shows this much of them
# What was asked (问题), where it waits (通道) and how often (次数) come first, so a 1366-px window with the sidebar
# open (about 360 px of grid) shows them without scrolling sideways; the reason is in the detail pane in full.
QUEUE_COLUMNS = ["编号", "问题", "通道", "次数", "原因", "状态", "创建时间", "复核人", "版本"]
QUEUE_WIDTHS = {"编号": 44, "问题": 168, "通道": 96, "次数": 44, "原因": 150}
CANDIDATE_COLUMNS = ["排名", "分数", "阈值", "结果", "原文", "文件", "小节", "片段号", "片段"]
EVENT_COLUMNS = ["时间", "操作人", "操作", "状态变化", "版本", "备注", "修改后的回答"]
SORT_LABELS = {"-created": "最新在前", "created": "最早在前", "-decided": "最近处理在前"}


def review_url(item_id: int) -> str:
    """Relative link to one item on the Review Queue page; works pasted into a new tab."""
    return f"review?item={int(item_id)}"


def status_options() -> list[str]:
    return [ALL, *STATUS_LABELS.values()]


def lane_options() -> list[str]:
    return [ALL, *(lane.label for lane in LANES.values())]


def build_filters(status_label: str, lane_label: str, dates: Sequence[date], search: str) -> Filters:
    """Filters from the page's widgets; a date range covers whole local days, the end day included."""
    status = next((code for code, label in STATUS_LABELS.items() if label == status_label), None)
    lane = next((code for code, lane in LANES.items() if lane.label == lane_label), None)
    since = until = None
    if len(dates) >= 1:
        since = datetime.combine(dates[0], time.min).astimezone()
    if len(dates) == 2:
        until = datetime.combine(dates[1] + timedelta(days=1), time.min).astimezone()
    return Filters(status=status, lane=lane, since=since, until=until, search=search.strip())


def when(value: datetime | None) -> str:
    return value.astimezone().strftime(TIME_FORMAT) if value else ""


def queue_frame(items: Sequence[ReviewItem]) -> pd.DataFrame:
    """One row per item, in page order (row positions are what the table selection returns)."""
    rows = [{"编号": item.id, "创建时间": when(item.created_at), "通道": " · ".join(item.lane_labels),
             "状态": item.status_label, "问题": excerpt(item.question, QUESTION_CHARS), "次数": item.ask_count,
             "原因": excerpt("；".join(p.message for p in item.reasons), REASON_CHARS) or "—",
             "复核人": item.reviewer or "", "版本": item.version} for item in items]
    return pd.DataFrame(rows, columns=QUEUE_COLUMNS)


def passing_hits(item: ReviewItem):
    """The chunks the model was given, in the order its [n] numbers refer to."""
    return tuple(h for h in item.candidates if h.passed)


def marked_answer(item: ReviewItem) -> str:
    """The answer (its preview, when long) as escaped Markdown: problem spans highlighted, valid [n] linked."""
    text = answer_preview(item)
    spans = [p.span for p in item.reasons if p.span and p.span[1] <= len(text)]
    return linked_answer(text, passing_hits(item), mark=spans)


def corrected_view(item: ReviewItem) -> str | None:
    """The reviewer's corrected answer (what approving it made reusable) as escaped Markdown, its [n] linked to the
    chunks approval numbered them by (core.checks.approval.citable); None when the item has no correction."""
    if not (item.corrected_answer or "").strip():
        return None
    return linked_answer(item.corrected_answer[:ANSWER_PREVIEW_CHARS], citable(item.candidates))


def answer_preview(item: ReviewItem) -> str:
    """The first ANSWER_PREVIEW_CHARS characters of the answer (all of it when shorter)."""
    return item.answer[:ANSWER_PREVIEW_CHARS]


def preview_note(item: ReviewItem) -> str | None:
    """What the page says under a cut answer, or None when the whole answer is shown."""
    if len(item.answer) <= ANSWER_PREVIEW_CHARS:
        return None
    return (f"回答共 {len(item.answer):,} 字，这里只显示前 {ANSWER_PREVIEW_CHARS:,} 字；"
            "完整回答已保存，可用下面的按钮下载。")


def reason_lines(item: ReviewItem) -> str:
    return "\n".join(f"- **{reason_label(p.code)}** {md_escape(p.message)}" for p in item.reasons)


def candidate_frame(item: ReviewItem) -> pd.DataFrame:
    """Every candidate with its score against the item's threshold and a link to the chunk."""
    threshold = item.threshold if item.threshold is not None else float("nan")
    rows = [{"排名": h.rank, "分数": round(h.score, 3), "阈值": threshold, "结果": PASSED if h.passed else BELOW,
             "文件": h.source, "小节": h.heading or "（文首）", "片段号": h.chunk,
             "片段": excerpt(h.text, REASON_CHARS), "原文": source_url(h.source, h.chunk)}
            for h in item.candidates]
    return pd.DataFrame(rows, columns=CANDIDATE_COLUMNS)


def event_frame(events: Sequence[ReviewEvent]) -> pd.DataFrame:
    rows = [{"时间": when(e.at), "操作人": e.actor, "操作": e.action_label,
             "状态变化": f"{STATUS_LABELS.get(e.from_status, '—') if e.from_status else '—'} → "
                         f"{STATUS_LABELS.get(e.to_status, e.to_status)}",
             "版本": e.version, "备注": e.note or "", "修改后的回答": excerpt(e.corrected_answer or "", REASON_CHARS)}
            for e in events]
    return pd.DataFrame(rows, columns=EVENT_COLUMNS)


def xlsx_bytes(store: ReviewStore, filters: Filters) -> bytes:
    """The filtered queue as an Excel workbook (.xlsx)."""
    buffer = io.BytesIO()
    store.export_xlsx(buffer, filters)
    return buffer.getvalue()


def csv_bytes(store: ReviewStore, filters: Filters) -> bytes:
    """The filtered queue as an Excel-ready CSV file (UTF-8 with BOM)."""
    buffer = io.StringIO()
    store.export_csv(buffer, filters)
    return buffer.getvalue().encode("utf-8")
