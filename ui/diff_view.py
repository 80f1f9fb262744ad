"""Render core.corpus.diff rows as a two-column HTML table: integer line numbers, wrapped lines, removed
lines red and added green, and inside a changed line the changed characters highlighted.

Every piece of file text goes through `html.escape` before it is put into the table, so a line of the
corpus or of a staff edit is shown as the characters it is, never as markup.
"""

from __future__ import annotations

import html

import pandas as pd
import streamlit as st

from core.corpus.diff import ADDED, CHANGED, FOLDED, REMOVED, DiffRow, inline_parts

COLUMNS = ["旧行号", "旧版本", "新行号", "新版本", "变化"]
ROW_COLOURS = {REMOVED: ("#fdecec", ""), ADDED: ("", "#e6f6ea"), CHANGED: ("#fdecec", "#e6f6ea")}
OLD_MARK, NEW_MARK = "#f5a3a3", "#8fd6a2"  # the changed characters themselves
CELL = "padding:2px 6px;vertical-align:top;border-bottom:1px solid #eee"
TEXT = "white-space:pre-wrap;overflow-wrap:anywhere;word-break:break-word"


def diff_frame(rows: tuple[DiffRow, ...]) -> pd.DataFrame:
    """The rows as plain values (line numbers as integers, blank where a side has no line), e.g. to export."""
    return pd.DataFrame([{"旧行号": r.old_no or "", "旧版本": r.old, "新行号": r.new_no or "", "新版本": r.new,
                          "变化": r.kind} for r in rows], columns=COLUMNS)


def _pieces(parts, colour: str) -> str:
    return "".join(f'<span style="background:{colour};border-radius:2px">{html.escape(text)}</span>' if changed
                   else html.escape(text) for text, changed in parts)


def diff_html(rows: tuple[DiffRow, ...]) -> str:
    """The rows as one escaped HTML table that wraps long lines instead of cutting them off."""
    out = ['<table style="width:100%;border-collapse:collapse;table-layout:fixed;font-size:0.9em">',
           '<colgroup><col style="width:3.5em"><col><col style="width:3.5em"><col><col style="width:3.5em"></colgroup>',
           "<thead><tr>" + "".join(f'<th style="{CELL};text-align:left">{name}</th>' for name in COLUMNS)
           + "</tr></thead><tbody>"]
    for row in rows:
        old_bg, new_bg = ROW_COLOURS.get(row.kind, ("", ""))
        old_parts, new_parts = inline_parts(row)
        style = "color:#888;font-style:italic;" if row.kind == FOLDED else ""
        out.append(
            "<tr>"
            f'<td style="{CELL};color:#888;text-align:right">{row.old_no if row.old_no is not None else ""}</td>'
            f'<td style="{CELL};{TEXT};{style}background:{old_bg or "transparent"}">{_pieces(old_parts, OLD_MARK)}</td>'
            f'<td style="{CELL};color:#888;text-align:right">{row.new_no if row.new_no is not None else ""}</td>'
            f'<td style="{CELL};{TEXT};{style}background:{new_bg or "transparent"}">{_pieces(new_parts, NEW_MARK)}</td>'
            f'<td style="{CELL}">{html.escape(row.kind)}</td>'
            "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def show_diff(rows: tuple[DiffRow, ...], *, key: str) -> None:
    """The rows side by side, or a line saying nothing changed. `key` names the diff (kept for callers)."""
    if not rows:
        st.caption("两个版本内容相同。")
        return
    st.html(f'<div class="xiaoe-diff" id="{html.escape(key)}">{diff_html(rows)}</div>')
