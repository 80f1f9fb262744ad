"""The gate's knobs: one home, one Chinese label and one validation for each.

Four numbers decide whether 小E answers: k (how many ranked chunks are kept), the threshold (a
kept chunk passes when its ranking score is >= it), and the two knobs of the answerability
decision: the minimum keyword coverage of the passing chunks and the maximum weight of a question
word the corpus never uses. Their shipped values are written by the calibration command
(`python -m core calibrate --write`) into core/data/calibration.json; nothing copies them by hand.
A saved default (tuning page) and environment variables override them (core.settings).
This module does not decide anything itself: core.answerability.gate does.
"""

from __future__ import annotations

import functools
import json
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from core.errors import ConfigError

MAX_TOP_K = 10
CALIBRATION_FILE = Path(__file__).resolve().parent / "data" / "calibration.json"

# Chinese label and the CLI flag of each knob (its environment variable is the Settings field's): the Ask page, the tuning
# page, the settings page, the CLI and the README all use these names.
LABELS = {"threshold": "阈值", "k": "k", "min_coverage": "关键词覆盖下限", "max_unknown_weight": "资料外词权重上限"}
FLAGS = {"threshold": "--min-score", "k": "--k", "min_coverage": "--min-coverage",
         "max_unknown_weight": "--max-unknown-weight"}
HELP = {
    "threshold": "候选片段按排序分从高到低排列；排序分 ≥ 阈值的片段才算命中。没有命中的片段时直接拒答，不调用模型。",
    "k": "最多保留排名前 k 个片段交给判断和模型。",
    "min_coverage": "问题里的关键词（按权重）至少要有这么大比例出现在命中片段里，才会作答。",
    "max_unknown_weight": "问题里资料从没出现过的词，最重的一个权重超过这个值就拒答（例如“雅思”“分期”）。",
}


@dataclass(frozen=True)
class Knobs:
    """The values the gate compares against; build with `Knobs(...)` or `calibrated()`, change with `with_`."""

    threshold: float
    k: int
    min_coverage: float
    max_unknown_weight: float

    def __post_init__(self) -> None:
        for name in ("threshold", "min_coverage", "max_unknown_weight"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= float(value) <= 1.0:
                raise ConfigError(f"{LABELS[name]}（{value}）必须是 0 到 1 之间的数。")
            object.__setattr__(self, name, float(value))
        if isinstance(self.k, bool) or not isinstance(self.k, int) or not 1 <= self.k <= MAX_TOP_K:
            raise ConfigError(f"k（{self.k}）必须是 1 到 {MAX_TOP_K} 之间的整数。")

    def with_(self, **changes: float | int | None) -> Knobs:
        """A copy with the given knobs changed; None leaves a knob as it is."""
        changed: dict[str, Any] = {name: value for name, value in changes.items() if value is not None}
        return replace(self, **changed)

    def to_dict(self) -> dict[str, float | int]:
        return asdict(self)

    def describe(self) -> str:
        """「阈值 0.01，k=3，关键词覆盖下限 59%，资料外词权重上限 0.42」"""
        return (f"阈值 {self.threshold:.2f}，k={self.k}，{LABELS['min_coverage']} {self.min_coverage:.0%}，"
                f"{LABELS['max_unknown_weight']} {self.max_unknown_weight:.2f}")


@dataclass(frozen=True)
class Calibration:
    """What core/data/calibration.json holds: the shipped knobs and how they were chosen."""

    knobs: Knobs
    threshold_only: float  # the threshold when the answerability decision is off (XIAOE_ANSWERABILITY=off)
    rule: str
    sets: tuple[str, ...]
    plateaus: dict
    # How similar a new question must be to an approved one to be answered by it (core.reuse.match);
    # 1.0 (the same weighted words) until `calibrate --write` has chosen it.
    reuse_threshold: float = 1.0
    reuse_rule: str = ""


@functools.cache
def calibration(path: Path = CALIBRATION_FILE) -> Calibration:
    """The calibration file, read once per process."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        knobs = Knobs(**{name: data[name] for name in ("threshold", "k", "min_coverage", "max_unknown_weight")})
        return Calibration(knobs=knobs, threshold_only=float(data["threshold_only"]), rule=str(data.get("rule", "")),
                           sets=tuple(data.get("sets", ())), plateaus=dict(data.get("plateaus", {})),
                           reuse_threshold=float(data.get("reuse_threshold", 1.0)),
                           reuse_rule=str(data.get("reuse_rule", "")))
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ConfigError(f"校准文件 {path.name} 读不出来（{type(error).__name__}），请重新运行 "
                          "`python -m core calibrate --write`。") from None


def calibrated() -> Knobs:
    """The shipped knobs (decision on)."""
    return calibration().knobs


def write_calibration(knobs: Knobs, *, threshold_only: float, rule: str, sets: tuple[str, ...], plateaus: dict,
                      reuse_threshold: float | None = None, reuse_rule: str = "",
                      path: Path = CALIBRATION_FILE) -> None:
    """Written only by the calibration command; the code reads it at start."""
    payload = {**knobs.to_dict(), "threshold_only": round(float(threshold_only), 4), "rule": rule,
               "sets": list(sets), "plateaus": plateaus}
    if reuse_threshold is not None:
        payload.update(reuse_threshold=round(float(reuse_threshold), 4), reuse_rule=reuse_rule)
    path.write_text(json.dumps(payload, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    calibration.cache_clear()
