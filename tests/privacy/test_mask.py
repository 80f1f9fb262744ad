"""Masking at the door: every kind of personal data becomes a typed placeholder, stable within a conversation;
amounts, dates, levels, lesson counts and times stay as written."""

from __future__ import annotations

import pytest

from core.case import read_case
from core.errors import ConfigError
from core.privacy.mask import KINDS, id_card, luhn, mask, masked_kinds
from tests.school import shipped_facts


@pytest.mark.parametrize(("text", "expected"), [
    ("我手机13812345678", "我手机〔手机号1〕"),
    ("电话 138 1234 5678 谢谢", "电话 〔手机号1〕 谢谢"),
    ("+86-139-0000-1234", "〔手机号1〕"),
    ("１３８１２３４５６７８", "〔手机号1〕"),
    ("身份证11010519491231002X", "身份证〔身份证号1〕"),
    ("身份证 11010519491231002x", "身份证 〔身份证号1〕"),
    ("旧身份证110105491231002", "旧身份证〔身份证号1〕"),
    ("退到卡 6222021234567894", "退到卡 〔银行卡号1〕"),
    ("卡号 6222 0212 3456 7894", "卡号 〔银行卡号1〕"),
    ("邮箱 Xiao.Ming@Example.com", "邮箱 〔邮箱1〕"),
    ("加我vx：abc_123", "加我vx：〔微信号1〕"),
    ("微信号是 Wx_student2024", "微信号是 〔微信号1〕"),
    ("QQ号：12345678", "QQ号：〔QQ号1〕"),
    ("扣扣 987654321 找我", "扣扣 〔QQ号1〕 找我"),
])
def test_mask_replaces_each_kind_with_its_placeholder(text, expected):
    assert mask(text).text == expected


@pytest.mark.parametrize("text", [
    "我报了二级，实付4200元，上了6节，能退多少？",
    "2024年3月15日开课，每天9:00-21:00，20240315 报的名",
    "交了 5600 元，八周结课，每周 2 课时，16 课时",
    "订单号 12345678901234 多少钱",  # 14 digits failing the Luhn check: no card
    "学号 2024001234",  # ten digits: not a mobile number
    "11010519491231002Y 不是身份证",  # wrong check digit
    "我有 12345678 元吗",  # a number without a QQ cue
])
def test_mask_leaves_figures_that_are_not_personal_data(text):
    assert mask(text).text == text


def test_mask_keeps_the_case_figures_readable():
    text = "我手机13812345678，报的二级实付4200元，上了6节课，能退多少"
    masked = mask(text).text
    facts = shipped_facts()
    before, after = read_case(text.replace("我手机13812345678，", ""), facts), read_case(masked, facts)
    assert (after.paid, after.taken, after.levels) == (before.paid, before.taken, before.levels) == (4200, 6, (2,))


def test_mask_same_value_same_placeholder_within_a_conversation():
    first = mask("我手机13812345678，另一个13900001111", key=b"k")
    assert first.text == "我手机〔手机号1〕，另一个〔手机号2〕"
    second = mask("刚才的号 138-1234-5678 不用了，打 13700002222", first.entries, key=b"k")
    assert second.text == "刚才的号 〔手机号1〕 不用了，打 〔手机号3〕"
    assert [e.placeholder for e in second.new] == ["〔手机号3〕"]


def test_mask_keeps_no_raw_value_in_its_entries():
    masked = mask("13812345678 6222021234567894", key=b"secret")
    assert all("13812345678" not in repr(e) and "6222021234567894" not in repr(e) for e in masked.entries)


def test_mask_an_id_card_is_not_also_a_bank_card():
    assert mask("11010519491231002X").kinds == ("id_card",)


def test_id_card_check_digit_worked_by_hand():
    # 11010519491231002: weights 7 9 10 5 8 4 2 1 6 3 7 9 10 5 8 4 2 give 167; 167 % 11 = 2 → check character X
    assert [v for _, _, v in id_card("11010519491231002X")] == ["11010519491231002X"]
    assert list(id_card("110105194912310021")) == []


def test_luhn_worked_by_hand():
    assert luhn("79927398713") and not luhn("79927398710")


def test_mask_kinds_switch_off_by_name():
    assert mask("QQ 12345678 13812345678", kinds=masked_kinds("-qq")).text == "QQ 12345678 〔手机号1〕"
    assert masked_kinds("off") == frozenset()
    assert masked_kinds("on") == {k.name for k in KINDS}
    with pytest.raises(ConfigError, match="不认识"):
        masked_kinds("-phone")


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_mask_every_kind_masks_its_own_example(kind):
    assert mask(kind.example).kinds == (kind.name,)
