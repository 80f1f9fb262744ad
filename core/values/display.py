"""How a measured value is written next to its bound, so that the two never look equal on the page."""

from __future__ import annotations


def apart(value: float, bound: float, *, percent: bool = False) -> str:
    """`value` with as many decimals as it takes (up to 4) to differ on the page from `bound` shown at its usual
    precision: 0.0496 against 0.05 shows as 0.0496 and a coverage of 0.6667 against 67% as 66.7%, never as
    「0.05 低于阈值 0.05」 or 「67% < 67%」. Bounds are grid values, so only a tie on the page needs more digits."""
    scale, digits = (100, 0) if percent else (1, 2)
    while digits < 4 and value != bound and round(value * scale, digits) == round(bound * scale, digits):
        digits += 1
    return f"{value * scale:.{digits}f}%" if percent else f"{value:.{digits}f}"


def below_threshold(best: float, threshold: float) -> str:
    """「最高排序分 0.04 低于阈值 0.05」, the two numbers never equal on the page."""
    return f"最高排序分 {apart(best, threshold)} 低于阈值 {threshold:.2f}"


