"""bench.answerability --ablation switches each rule off for real: it set the environment variable after the settings
were read, so every row printed the starting point's figures (+0 for every rule, asked_attribute included)."""

from __future__ import annotations

from bench.answerability import report_ablation
from core.answerability.rules import parse_rules
from core.settings import Settings


def test_ablation_row_of_a_rule_that_matters_differs_from_the_start(isolated_env, capsys):
    report_ablation(Settings.from_env(), parse_rules("asked_attribute"), groups=[("校准集", ["calibration.csv"])])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ") and "---" not in line]
    start = next(r for r in rows if "起点" in r and "关掉" not in r)
    asked_off = next(r for r in rows if "`asked_attribute`" in r)
    assert start.split("|")[2] != asked_off.split("|")[2], (start, asked_off)
    assert "（+0）" not in asked_off  # the rule refuses near misses on this set: switching it off costs something
