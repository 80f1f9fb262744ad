"""Altair charts of the tuning page: top-1 score histogram and metric curves, each with threshold rules.

The histogram is binned with numpy first and every rule shares one small layer: Altair's spec
validation costs grow with the number of layers and rows, and these charts are redrawn on
every slider move.
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from core.evaluation import RetrievedSet, Sweep

BIN_STEP = 0.02
CLASSES = (("应回答", "#2e7d32"), ("应拒答", "#c62828"))


def histogram_frame(retrieved: RetrievedSet) -> pd.DataFrame:
    """Counts of top-1 scores per bin of BIN_STEP, per class; empty bins are left out."""
    top1 = np.where(np.isfinite(retrieved.top1), retrieved.top1, 0.0)
    edges = np.round(np.arange(0.0, 1.0 + BIN_STEP / 2, BIN_STEP), 4)
    rows = []
    for (label, _), mask in zip(CLASSES, (~retrieved.should_refuse, retrieved.should_refuse)):
        counts, _ = np.histogram(top1[mask], bins=edges)
        rows += [{"起": float(lo), "止": float(hi), "类别": label, "题数": int(n)}
                 for lo, hi, n in zip(edges[:-1], edges[1:], counts) if n]
    return pd.DataFrame(rows, columns=["起", "止", "类别", "题数"])


def score_histogram(frame: pd.DataFrame, threshold: float) -> alt.LayerChart:
    """Stacked counts of top-1 scores (answerable vs should-refuse) with the threshold as a rule."""
    bars = alt.Chart(frame).mark_bar(opacity=0.85).encode(
        x=alt.X("起:Q", scale=alt.Scale(domain=[0, 1]), title="第 1 名片段的分数"),
        x2="止:Q",
        y=alt.Y("题数:Q", stack=True, title="题数"),
        color=alt.Color("类别:N", scale=alt.Scale(domain=[c for c, _ in CLASSES], range=[c for _, c in CLASSES]),
                        legend=alt.Legend(title=None, orient="top")),
        tooltip=["类别:N", "起:Q", "止:Q", "题数:Q"],
    )
    return alt.layer(bars, _rules({"当前阈值": threshold})).properties(height=260)


def metric_curves(curve: Sweep, threshold: float) -> alt.LayerChart:
    """Every metric against the threshold grid, with the current and the suggested threshold as rules."""
    lines = alt.Chart(pd.DataFrame(curve.long_rows())).mark_line().encode(
        x=alt.X("阈值:Q", scale=alt.Scale(domain=[0, 1])),
        y=alt.Y("数值:Q", scale=alt.Scale(domain=[0, 1]), axis=alt.Axis(format="%")),
        color=alt.Color("指标:N", sort=list(Sweep.CURVES.values()), legend=alt.Legend(title=None, orient="top")),
        tooltip=[alt.Tooltip("指标:N"), alt.Tooltip("阈值:Q", format=".2f"), alt.Tooltip("数值:Q", format=".1%")],
    )
    return alt.layer(lines, _rules({"当前阈值": threshold, "建议阈值": curve.suggested})).properties(height=300)


def _rules(values: dict[str, float]) -> alt.Chart:
    """One rule per named threshold; with two, the dash pattern tells them apart (legend below)."""
    data = pd.DataFrame({"线": list(values), "阈值": list(values.values())})
    rule = alt.Chart(data).mark_rule(strokeWidth=2, color="#1565c0")
    tooltip = [alt.Tooltip("线:N", title="阈值线"), alt.Tooltip("阈值:Q", format=".2f")]
    if len(values) == 1:
        return rule.encode(x="阈值:Q", tooltip=tooltip)
    return rule.encode(x="阈值:Q", tooltip=tooltip, strokeDash=alt.StrokeDash(
        "线:N", scale=alt.Scale(domain=list(values), range=[[1, 0], [6, 4]]), legend=alt.Legend(title=None, orient="bottom")))
