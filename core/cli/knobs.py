"""One command-line flag per gate knob, shared by `ask` and `eval`, with errors that name the flag."""

from __future__ import annotations

import argparse

from core.errors import ConfigError
from core.knobs import FLAGS, LABELS, MAX_TOP_K, Knobs

_TYPES = {"threshold": float, "k": int, "min_coverage": float, "max_unknown_weight": float}
_RANGES = {"threshold": "0–1", "k": f"1–{MAX_TOP_K}", "min_coverage": "0–1", "max_unknown_weight": "0–1"}


def add_knob_flags(parser: argparse.ArgumentParser) -> None:
    for name, flag in FLAGS.items():
        parser.add_argument(flag, dest=name, type=_TYPES[name], default=None,
                            help=f"{LABELS[name]}（{_RANGES[name]}）；省略时用当前生效的默认值")
    parser.add_argument("--threshold", dest="threshold", type=float, default=None, help=argparse.SUPPRESS)


def knobs_from_args(args: argparse.Namespace, base: Knobs) -> Knobs:
    """`base` with every knob given on the command line; a bad value names its flag."""
    for name, flag in FLAGS.items():
        value = getattr(args, name, None)
        if value is None:
            continue
        try:
            Knobs(**{**base.to_dict(), name: value})
        except ConfigError:
            raise ConfigError(f"参数 {flag}（{value}）超出范围：{LABELS[name]}必须在 {_RANGES[name]} 之间。") from None
    return base.with_(**{name: getattr(args, name, None) for name in FLAGS})
