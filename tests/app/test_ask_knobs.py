"""Every one of the four Ask sliders re-decides the question on screen from the stored retrieval.

Moving a knob across the value that flips the question changes the banner above the answer and the
comparison line, without a new retrieval and without a model call (both are made to fail the test).
The knobs start at fixed values (not the calibrated file), so the flipping values below stay put.
"""

from __future__ import annotations

import re

import pytest

from core import assistant as composition
from tests.app.test_ask_page import ask, texts

REFUND = "我报的二级 交了4200 上了6节课 现在退能退多少"  # answered: coverage 81% at k=3, 69% at k=1
IELTS = "你们的雅思保过班能退费吗？"                  # refused: a word the corpus never uses, weight 1.00
START = {"threshold": 0.0, "k": 3, "min_coverage": 0.67, "max_unknown_weight": 0.51}

# (question, knob, value that flips it, the banner's head, the comparison line after the move, sliders moved first)
FLIPS = [
    (REFUND, "threshold", 0.2, "会被拒答", r"最高 0\.058 < 阈值 0\.20 ✗", {}),
    # the fact sentences the refund cites count (fact_sentences); at k=1 it holds 69% of its words
    (REFUND, "k", 1, "会被拒答", r"69% < 70% ✗", {"min_coverage": 0.70}),
    (REFUND, "min_coverage", 0.9, "会被拒答", r"81% < 90% ✗", {}),
    (IELTS, "max_unknown_weight", 1.0, "会作答", r"1\.00 ≤ 1\.00 ✓", {}),
]


def at_start(open_app, moved=None):
    at = open_app()
    for key, value in {**START, **(moved or {})}.items():
        at.slider(key=key).set_value(value)
    return at.run()


def comparisons(at) -> list[str]:
    """The 比较 column of the decision table (the gate at the sliders' values)."""
    table = next(t.value for t in at.table if "比较" in t.value.columns)
    return [re.sub(r"\\(.)", r"\1", c) for c in table["比较"]]


@pytest.mark.parametrize(("question", "knob", "value", "head", "line", "moved"), FLIPS, ids=[f[1] for f in FLIPS])
def test_ask_knobs_each_slider_flips_the_banner_and_the_line_without_retrieval_or_model(
        open_app, monkeypatch, question, knob, value, head, line, moved):
    at = ask(at_start(open_app, moved), question)
    assert not at.exception
    assert not any("按现在的参数" in w for w in texts(at.warning))  # the answer stands at the knobs it was made at
    assert not any(re.search(line, c) for c in comparisons(at))
    monkeypatch.setattr(composition, "stream_text", lambda *a, **k: pytest.fail("model called on a slider move"))
    monkeypatch.setattr(composition, "retrieve", lambda *a, **k: pytest.fail("retrieval repeated on a slider move"))
    at.slider(key=knob).set_value(value).run()
    assert not at.exception
    banner = next(w for w in texts(at.warning) if "按现在的参数" in w)
    assert head in banner and re.search(line, banner)
    assert any(re.search(line, c) for c in comparisons(at))
    assert at.button(key="regenerate")
    at.slider(key=knob).set_value(START[knob]).run()  # back across the value: the banner goes away
    assert not any("按现在的参数" in w for w in texts(at.warning))
