"""What the 资料缺口 page shows, as plain values: titles, fact lines, question and re-check tables.

Nothing here calls Streamlit. Questions, notes, owners and corpus headings are text we did not write: every
Markdown line escapes them (`md_escape`); tables (st.dataframe / st.table) show them as data.
"""

from __future__ import annotations

from datetime import datetime

import pandas as pd

from core.clock import local
from core.gaps.board import Board, BoardTopic

# The board's vocabulary, re-exported for the page, which imports no store itself.
from core.stores.gaps import DECLINED, OPEN, STATUS_LABELS, SUPPLIED, GapCheck, GapTopic  # noqa: F401
from ui.escape import md_escape

TIME_FORMAT = "%Y-%m-%d %H:%M"
QUESTION_COLUMNS = ["问题", "被问次数", "来自", "最近提问"]
CHECK_COLUMNS = ["问题", "现在", "闸门的理由"]


def when(moment: datetime | None) -> str:
    return local(moment).strftime(TIME_FORMAT) if moment else "—"


def summary_line(board: Board) -> str:
    questions = sum(len(t.questions) for t in board.topics)
    askings = sum(t.askings for t in board.topics)
    return (f"{len(board.topics)} 个话题 · {questions} 个不同的问题 · 共被问 {askings} 次 · "
            f"另有 {len(board.noise)} 个问题不属于任何话题 · 已关闭 {len(board.closed)} 个话题")


def topic_title(topic: BoardTopic) -> str:
    """The expander's label (Markdown): 「#3 分期、学费 · 5 个问题 · 问了 12 次 · 待补充」."""
    state = "已关闭" if topic.topic.closed else topic.topic.status_label
    return (f"#{topic.id} {md_escape(topic.label)} · {len(topic.questions)} 个问题 · 问了 {topic.askings} 次 · "
            f"{state}" + (f" · {topic.check.line}" if topic.check else ""))


def topic_facts(topic: BoardTopic) -> list[str]:
    """The lines under a topic's title (Markdown, escaped)."""
    lines = [f"**例子**：{' / '.join(md_escape(q) for q in topic.examples)}",
             f"**关键词**：{md_escape('、'.join(topic.topic.terms)) or '（无）'}",
             f"**最早提问** {when(topic.first_asked)} · **最近提问** {when(topic.last_asked)}",
             f"**负责人**：{md_escape(topic.topic.owner) if topic.topic.owner else '（未指定）'} · "
             f"**状态**：{topic.topic.status_label}"]
    if topic.near_miss is not None:
        lines.append(f"**最接近的资料**：{md_escape(topic.near_miss.label)}（片段 #{topic.near_miss.chunk}）")
    else:
        lines.append("**最接近的资料**：没有检索到任何片段")
    if topic.notes:
        lines.append(f"**复核备注**：{' / '.join(md_escape(n) for n in topic.notes)}")
    if topic.topic.status == DECLINED:
        lines.append("这个话题标为「不补充，保持拒答」：它的拒答都记为预期拒答，再被问到只计次数，不进复核队列。")
    return lines


def question_frame(topic: BoardTopic) -> pd.DataFrame:
    rows = [{"问题": q.question, "被问次数": q.askings, "来自": "、".join(q.kinds), "最近提问": when(q.last_asked)}
            for q in topic.questions]
    return pd.DataFrame(rows, columns=QUESTION_COLUMNS)


def check_line(check: GapCheck) -> str:
    """「重新核对（03-01 16:05，「01-…md」第 3 版（资料指纹 …））：2/3 题现在可答」, escaped."""
    return f"**{check.line}**（{when(check.at)} 核对，{md_escape(check.version_note)}）"


def check_frame(check: GapCheck) -> pd.DataFrame:
    rows = [{"问题": r.question, "现在": "可答 ✓" if r.answerable else "仍拒答 ✗", "闸门的理由": r.reason}
            for r in check.results]
    return pd.DataFrame(rows, columns=CHECK_COLUMNS)


def closed_line(topic: GapTopic) -> str:
    return (f"#{topic.id} {md_escape(topic.label)} · {len(topic.questions)} 个问题 · {when(topic.closed_at)} 关闭 · "
            f"{md_escape(topic.fixed_by or '')}")


def noise_frame(board: Board) -> pd.DataFrame:
    rows = [{"问题": q.question, "被问次数": q.askings, "来自": "、".join(q.kinds), "最近提问": when(q.last_asked)}
            for q in board.noise]
    return pd.DataFrame(rows, columns=QUESTION_COLUMNS)


def topic_options(board: Board, leave_out: int | None = None) -> dict[int, str]:
    """The open topics a question or a topic can go into, as selectbox options (id → 「#3 分期、学费（5 个问题）」,
    shown as plain text)."""
    return {t.id: f"#{t.id} {t.label}（{len(t.questions)} 个问题）" for t in board.topics if t.id != leave_out}


def question_options(board: Board) -> dict[str, str]:
    """Every question on the board a new topic can take, as multiselect options (question → 「…（#3 分期）」 or
    「…（不属于任何话题）」, shown as plain text): the ones that fit no topic first."""
    options = {q.question: f"{q.question}（不属于任何话题）" for q in board.noise}
    for topic in board.topics:
        options.update({q.question: f"{q.question}（#{topic.id} {topic.label}）" for q in topic.questions})
    return options


def status_choices() -> list[str]:
    return list(STATUS_LABELS)
