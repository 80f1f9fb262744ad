"""How an amount of money is rounded and written: one rule for every computation, answer and check.

The rule is half up to the cent (0.005 goes up: 170.625 → 170.63, 3241.875 → 3241.88), unless the school's
documents state another (core.facts reads a sentence such as 「金额按四舍五入保留到元」 into a `Rounding`).
Decimal arithmetic on the number's shortest written form, so 170.625 (stored as 170.62499…) rounds as written.
Left out: currencies and thousands separators (the documents write 元 and no separators).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal

MODES = {"half_up": ROUND_HALF_UP, "half_even": ROUND_HALF_EVEN}


@dataclass(frozen=True)
class Rounding:
    """Round to `places` decimals (2: the cent, 0: the yuan) with `mode` (a key of MODES)."""

    places: int = 2
    mode: str = "half_up"

    def __post_init__(self) -> None:
        if not 0 <= self.places <= 4:
            raise ValueError(f"rounding places ({self.places}) must be between 0 and 4")
        if self.mode not in MODES:
            raise ValueError(f"rounding mode ({self.mode!r}) must be one of {sorted(MODES)}")

    @property
    def described(self) -> str:
        unit = {0: "元", 1: "角", 2: "分"}.get(self.places, f"小数点后 {self.places} 位")
        return f"{'四舍五入' if self.mode == 'half_up' else '银行家舍入'}到{unit}"


CENT = Rounding()


def round_amount(value: float, rounding: Rounding = CENT) -> float:
    """`value` rounded by `rounding`: round_amount(170.625) == 170.63."""
    quantum = Decimal(1).scaleb(-rounding.places)
    return float(Decimal(repr(float(value))).quantize(quantum, rounding=MODES[rounding.mode]))


def format_amount(value: float, rounding: Rounding = CENT) -> str:
    """The amount as an answer writes it: 3412.5 → '3412.5', 170.625 → '170.63', 3420.0 → '3420'."""
    rounded = Decimal(repr(round_amount(value, rounding)))
    if rounded == rounded.to_integral_value():
        return str(int(rounded))
    return format(rounded.normalize(), "f")


def written_places(text: str) -> int:
    """How many decimals a number is written with: '170.62' → 2, '3420' → 0."""
    body = text.strip().rstrip("%元块 ")
    return len(body.split(".", 1)[1]) if "." in body else 0
