"""Altair charts of the tuning page: the distribution of the value the gate compares with a knob,
and the metrics along one knob, each with the knob's current (and suggested) value as a rule.

The histogram is binned with numpy first and every rule shares one small layer: Altair's spec
validation costs grow with the number of layers and rows, and these charts are redrawn on
every slider move. The numbers come from core.evaluation.metrics, which takes them from the gate.
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from core.evaluation.metrics import Sweep
from core.knobs import LABELS

BIN_STEP = 0.02
CLASSES = (("应回答", "#2e7d32"), ("应拒答", "#c62828"))
AXIS_TITLES = {"threshold": "每道题排第 1 的片段的排序分", "min_coverage": "命中片段的关键词覆盖",
               "max_unknown_weight": "最重的资料外词的权重"}


def histogram_frame(rows: list[dict]) -> pd.DataFrame:
    """Counts per bin of BIN_STEP, per class (core.evaluation.metrics.distribution rows); empty bins left out."""
    edges = np.round(np.arange(0.0, 1.0 + BIN_STEP / 2, BIN_STEP), 4)
    values = np.array([r["数值"] for r in rows], dtype=float)
    labels = np.array([r["标注"] for r in rows], dtype=object)
    out = []
    for label, _ in CLASSES:
        counts, _ = np.histogram(np.clip(values[labels == label], 0.0, 1.0), bins=edges)
        out += [{"起": float(lo), "止": float(hi), "类别": label, "题数": int(n)}
                for lo, hi, n in zip(edges[:-1], edges[1:], counts) if n]
    return pd.DataFrame(out, columns=["起", "止", "类别", "题数"])


def score_histogram(frame: pd.DataFrame, knob: str, value: float) -> alt.LayerChart:
    """Stacked counts (answerable vs should-refuse) with the knob's current value as a rule."""
    bars = alt.Chart(frame).mark_bar(opacity=0.85).encode(
        x=alt.X("起:Q", scale=alt.Scale(domain=[0, 1]), title=AXIS_TITLES[knob]),
        x2="止:Q",
        y=alt.Y("题数:Q", stack=True, title="题数"),
        color=alt.Color("类别:N", scale=alt.Scale(domain=[c for c, _ in CLASSES], range=[c for _, c in CLASSES]),
                        legend=alt.Legend(title=None, orient="top")),
        tooltip=["类别:N", "起:Q", "止:Q", "题数:Q"],
    )
    return alt.layer(bars, _rules({f"当前{LABELS[knob]}": value})).properties(height=260)


def metric_curves(curve: Sweep, suggested: float) -> alt.LayerChart:
    """Every metric along the swept knob, with its current and suggested values as rules."""
    lines = alt.Chart(pd.DataFrame(curve.long_rows())).mark_line().encode(
        x=alt.X("取值:Q", scale=alt.Scale(domain=[0, 1]), title=LABELS[curve.knob]),
        y=alt.Y("数值:Q", scale=alt.Scale(domain=[0, 1]), axis=alt.Axis(format="%")),
        color=alt.Color("指标:N", sort=list(Sweep.CURVES.values()), legend=alt.Legend(title=None, orient="top")),
        tooltip=[alt.Tooltip("指标:N"), alt.Tooltip("取值:Q", format=".2f"), alt.Tooltip("数值:Q", format=".1%")],
    )
    current = getattr(curve.knobs, curve.knob)
    return alt.layer(lines, _rules({"当前值": current, "建议值": suggested})).properties(height=300)


def _rules(values: dict[str, float]) -> alt.Chart:
    """One rule per named value; with two, the dash pattern tells them apart (legend below)."""
    data = pd.DataFrame({"线": list(values), "取值": list(values.values())})
    rule = alt.Chart(data).mark_rule(strokeWidth=2, color="#1565c0")
    tooltip = [alt.Tooltip("线:N", title="参考线"), alt.Tooltip("取值:Q", format=".2f")]
    if len(values) == 1:
        return rule.encode(x="取值:Q", tooltip=tooltip)
    return rule.encode(x="取值:Q", tooltip=tooltip, strokeDash=alt.StrokeDash(
        "线:N", scale=alt.Scale(domain=list(values), range=[[1, 0], [6, 4]]), legend=alt.Legend(title=None, orient="bottom")))
