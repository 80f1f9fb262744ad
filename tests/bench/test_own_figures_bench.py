"""bench/own_figures.py: the final amount an answer states, and how a row is judged."""

from __future__ import annotations

from bench.own_figures import final_amounts, judge


def test_final_amounts_read_the_last_step_and_skip_examples():
    text = ("示例：学员实付 4800 元报读三级，可退 3420 元[1]。按你的数字：剩余课时 = 16 − 6 = 10，"
            "4200 × （10 ÷ 16） = 2625 元，手续费 2625 × 5% = 131.25 元，可退 2625 − 131.25 = 2493.75 元[1]。")
    assert final_amounts(text) == [2493.75]
    assert final_amounts("你这是第一次转班：转班手续费免费[1]。") == [0.0]
    assert final_amounts("按你的数字：三级 4800 − 二级 4200 = 600 元，需补 600 元[1]。") == [600.0]


def test_judge_counts_a_wrong_amount_and_a_missing_one():
    assert judge("可退 2625 − 131.25 = 2493.75 元[1]。", "2493.75", "") == (True, False)
    assert judge("可退 3420 元[1]。", "2493.75", "") == (False, True)
    assert judge("已上课时超过 8 课时后，不再受理退费[1]。", "", "不再受理退费") == (True, False)
    assert judge("可退 100 元[1]。", "", "不再受理退费") == (False, True)
    assert judge("这件事资料里没写，我不能替你们编，请转人工。", "2493.75", "") == (False, False)
