"""The 敏感词 automaton: every listed word in one pass, whitelisted phrases taken out, spans as written."""

from __future__ import annotations

from core.privacy.sensitive import WHITELIST, Hit, Matcher, Word


def test_matcher_finds_every_listed_word_with_its_category_and_span():
    matcher = Matcher([Word("赌博", "违法"), Word("代考", "作弊")])
    assert matcher.find("能帮我代考吗？赌博的事") == (Hit("代考", "作弊", 3, 5), Hit("赌博", "违法", 7, 9))


def test_matcher_whitelisted_phrase_holds_no_hit():
    matcher = Matcher([Word("考试", "作弊"), Word("分级考试", kind=WHITELIST)])
    assert matcher.find("分级考试要多久") == ()
    assert matcher.find("考试作弊") == (Hit("考试", "作弊", 0, 2),)


def test_matcher_folds_width_and_case():
    matcher = Matcher([Word("VPN", "翻墙")])
    assert matcher.find("有没有ｖｐｎ") == (Hit("VPN", "翻墙", 3, 6),)


def test_matcher_empty_list_finds_nothing():
    assert Matcher([]).find("任何话") == () and not Matcher([])
