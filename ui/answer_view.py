"""What the Ask page shows, built as plain values: escaped Markdown, tables and the score chart.

Nothing here calls Streamlit, so every piece can be tested without a running app. Corpus text
and model output only ever pass through `md_escape` (Markdown) or html.escape (see source_view).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import altair as alt
import pandas as pd
from pandas.io.formats.style import Styler

from core.answerability.asked import ASKED_BASE
from core.answerability.decision import RERANK_BASE
from core.checks.cited_sentence import claim_before
from core.checks.references import excerpt
from core.language.citations import CITATION_RE, numbers
from core.values import Gate, GroundingReport, Hit, Problem, RAGAnswer, SentenceVerdict
from ui.source_view import source_url

if TYPE_CHECKING:  # only a type here; the router imports this module, the decider is the Ask page's
    from core.values import Decision

PASSED, BELOW, OUTSIDE_K = "命中", "低于阈值", "超出前 k 个"
STATUS_COLORS = {PASSED: "#1f77b4", BELOW: "#bbbbbb", OUTSIDE_K: "#dddddd"}
GREY = "color: #999999"
SNIPPET_CHARS = 60

# Every ASCII punctuation character CommonMark lets us backslash-escape; escaping all of them
# means no Markdown syntax (links, emphasis, HTML, tables) survives from text we did not write.
# GFM still turns a bare URL into a link whose text is that URL; it hides nothing, so it stays.
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&\"'=^%@;,/?])")


def md_escape(text: str) -> str:
    """`text` as literal Markdown: punctuation backslash-escaped, line breaks kept."""
    return _MD_SPECIAL.sub(r"\\\1", text).replace("\n", "  \n")


def passing_key(hits: Sequence[Hit]) -> tuple[tuple[str, int], ...]:
    """Identity of a set of passing chunks, to tell whether an answer still matches the sliders."""
    return tuple((h.source, h.chunk) for h in hits)


def status_of(hit: Hit, k: int) -> str:
    if hit.rank > k:
        return OUTSIDE_K
    return PASSED if hit.passed else BELOW


def linked_answer(text: str, hits: Sequence[Hit], *, mark: Sequence[tuple[int, int]] = ()) -> str:
    """The answer as escaped Markdown; each valid [n] links to its chunk on the Sources page.

    `mark` spans (from the checks) are shown on a red background so a reviewer sees where the
    problem is. Numbers outside 1..len(hits) stay plain text: there is nothing to link to.
    """
    cuts = sorted({0, len(text), *(p for span in mark for p in span if 0 <= p <= len(text)),
                   *(p for m in CITATION_RE.finditer(text) for p in m.span())})
    marked = [False] * len(text)
    for start, end in mark:
        for i in range(max(start, 0), min(end, len(text))):
            marked[i] = True
    out = []
    for a, b in zip(cuts, cuts[1:]):
        piece = text[a:b]
        rendered = (_linked_marker(piece, hits, claim_before(text, a)) if CITATION_RE.fullmatch(piece)
                    else md_escape(piece))
        out.append(f":red-background[{rendered}]" if marked[a] and rendered.strip() else rendered)
    return "".join(out)


def _linked_marker(marker: str, hits: Sequence[Hit], cite: str | None = None) -> str:
    """`cite` (the sentence before the marker) lets the Sources page highlight the sentence it rests on."""
    parts = []
    for n in numbers(marker):
        if 1 <= n <= len(hits):
            parts.append(f"[\\[{n}\\]]({source_url(hits[n - 1].source, hits[n - 1].chunk, cite)})")
        else:
            parts.append(f"\\[{n}\\]")
    return "".join(parts)


def citation_frame(answer: RAGAnswer) -> pd.DataFrame:
    """编号, 文件, 小节, 片段预览 for every citation the answer uses that names a passing chunk
    (from the answer's own citation report)."""
    refs = answer.citations.refs if answer.citations else ()
    return pd.DataFrame([{"编号": f"\\[{r.number}\\]", "文件": md_escape(r.source),
                          "小节": md_escape(r.heading or "（文首）"), "片段预览": md_escape(r.excerpt)} for r in refs],
                        columns=["编号", "文件", "小节", "片段预览"])


VALUE, SCORE, COVERAGE, ASKED = "排序分", "检索分", "本片段关键词覆盖", "写了问的内容"
RERANK_NOTE = (f"排序分 = 检索分 ×（{RERANK_BASE:g} + {1 - RERANK_BASE:g} × 本片段关键词覆盖）："
               "图中的柱子、表格的顺序、是否命中和交给模型的片段都按排序分；排序分 ≥ 阈值才算命中。")
ASKED_NOTE = (f"问的是金额、时长、课时数……而有的片段写了它时，没写的片段（「{ASKED}」为否）排序分再 × {ASKED_BASE:g}。")


def candidate_frame(gate: Gate, all_candidates: Sequence[Hit]) -> pd.DataFrame:
    """One row per retrieved candidate in ranking order, with its status under the current knobs.

    st.table renders cells as Markdown, so text from the corpus is escaped like everywhere else.
    """
    chosen = {h.rank: h for h in gate.candidates}
    reranked = any(h.coverage is not None for h in all_candidates)
    by_asked = any(h.asked is not None for h in all_candidates)
    rows = []
    for hit in all_candidates:
        current = chosen.get(hit.rank, hit)
        row = {"排名": hit.rank, VALUE: round(hit.value, 4)}
        if reranked:
            row[SCORE] = round(hit.score, 4)
            row[COVERAGE] = f"{hit.coverage or 0.0:.0%}"
        if by_asked:
            row[ASKED] = "是" if hit.asked else "否"
        rows.append({**row, "状态": status_of(current, gate.k), "文件": md_escape(hit.source),
                     "小节": md_escape(hit.heading or "（文首）"), "片段": md_escape(excerpt(hit.text, SNIPPET_CHARS))})
    columns = ["排名", VALUE, *([SCORE, COVERAGE] if reranked else []), *([ASKED] if by_asked else []), "状态", "文件",
               "小节", "片段"]
    return pd.DataFrame(rows, columns=columns)


def styled_candidates(frame: pd.DataFrame) -> Styler:
    """The candidate table with rows that do not pass greyed out (text stays readable)."""
    def grey(row: pd.Series) -> list[str]:
        return [GREY if row["状态"] != PASSED else "" for _ in row]

    formats = {name: "{:.3f}" for name in (VALUE, SCORE) if name in frame.columns}
    return frame.style.apply(grey, axis=1).format(formats).hide(axis="index")


def score_chart(frame: pd.DataFrame, threshold: float) -> alt.LayerChart:
    """Bars of every candidate's ranking score (the value the gate compares) coloured by status,
    with the threshold as a red rule at the same scale.

    Channels are built as objects (not shorthand strings or lists): Altair then skips its
    schema look-ups, which keeps a threshold move well inside the page's time budget.
    """
    data = frame.assign(标签=frame["排名"].map(lambda r: f"#{r}"))
    top = max(threshold, float(frame[VALUE].max()), 0.05)
    bars = alt.Chart(data).mark_bar().encode(
        alt.X("标签:N", sort=None, title="候选片段（按排序分）", axis=alt.Axis(labelAngle=0)),
        alt.Y(f"{VALUE}:Q", scale=alt.Scale(domain=[0, top]), title="排序分"),
        alt.Color("状态:N", scale=alt.Scale(domain=list(STATUS_COLORS), range=list(STATUS_COLORS.values())),
                  legend=alt.Legend(orient="bottom", title=None)),
        alt.Tooltip(["排名:O", f"{VALUE}:Q", "状态:N", "文件:N", "小节:N"]),
    )
    line = pd.DataFrame({"阈值": [threshold], "文字": [f"阈值 {threshold:.2f}"]})
    rule = alt.Chart(line).mark_rule(color="#d62728", strokeWidth=2).encode(alt.Y("阈值:Q"))
    label = alt.Chart(line).mark_text(align="left", dx=4, dy=-6, color="#d62728").encode(
        alt.Y("阈值:Q"), alt.Text("文字:N"))
    return alt.layer(bars, rule, label, height=260)


def signal_frame(decision: Decision) -> pd.DataFrame:
    """The answerability signals as rows: 信号, 比较 (what the gate compared, with ✓/✗), 说明."""
    return pd.DataFrame([{"信号": s.name_zh, "比较": md_escape(s.compared), "是否通过": "通过" if s.passed else "未通过",
                          "说明": md_escape(s.detail)} for s in decision.signals]).set_index("信号")


def problem_lines(problems: Sequence[Problem]) -> str:
    """The problems as an escaped Markdown bullet list, then the figures a problem compares side by side."""
    lines = "\n".join(f"- {md_escape(p.message)}" for p in problems)
    rows = [row for p in problems for row in p.compare]
    if not rows:
        return lines
    table = ["| 数字 | 问题里 | 回答用的 |", "| --- | --- | --- |"]
    table += ["| " + " | ".join(md_escape(cell) for cell in row) + " |" for row in rows]
    return lines + "\n\n" + "\n".join(table)


def _verdict_cell(verdict: SentenceVerdict) -> str:
    """✓ (with how a derived figure follows: 「推得 10 = 16 − 6」) or the sentence's problems."""
    if not verdict.ok:
        return "；".join(md_escape(p.message) for p in verdict.problems)
    return "✓" + "".join(f"（推得 {md_escape(d)}）" for d in verdict.derivations)


def verdict_frame(text: str, report: GroundingReport | None) -> pd.DataFrame:
    """逐句核对: each sentence of the answer with its citations and ✓ or its problems, from the
    grounding report that came with it. Figures a problem points at are shown in bold; everything is escaped."""
    rows = []
    for verdict in (report.verdicts if report else ()):
        start, end = verdict.span
        marks = sorted({p.span for p in verdict.problems if p.span and start <= p.span[0] < p.span[1] <= end})
        pieces, cursor = [], start
        for a, b in marks:
            if a < cursor:
                continue
            pieces.append(md_escape(text[cursor:a]))
            pieces.append(f"**{md_escape(text[a:b])}**")
            cursor = b
        pieces.append(md_escape(text[cursor:end]))
        rows.append({"句子": "".join(pieces).strip(),
                     "引用": "、".join(f"\\[{n}\\]" for n in verdict.cited) or "—",
                     "核对": _verdict_cell(verdict)})
    return pd.DataFrame(rows, columns=["句子", "引用", "核对"])
