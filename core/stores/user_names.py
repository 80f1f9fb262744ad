"""User names that cannot pass for another: one script per name, and no confusable skeleton shared with an existing name.

After NFKC and case folding (core.stores.password_policy.fold), a name must use one script, as
Unicode UTS #39's "highly restrictive" level puts it: one script, or Latin with 汉字 (and the
Japanese kana, Bopomofo or Hangul that go with 汉字), digits and . _ - @ anywhere. So `аdmin`
(Cyrillic а) is refused. A name in one other script can still look like a Latin one (all-Cyrillic
`асе` reads as `ace`), so each name also has a skeleton: every character replaced by one
representative of the characters it can be confused with (confusable-homoglyphs' copy of the
UTS #39 confusables table, joined into groups), and a new name whose skeleton equals an existing
account's is refused. Scripts come from the same library's copy of Unicode's Scripts.txt.
"""

from __future__ import annotations

import functools

from confusable_homoglyphs import categories, confusables

NEUTRAL_SCRIPTS = frozenset({"COMMON", "INHERITED"})  # digits, . _ - @, combining marks
# UTS #39 highly restrictive: besides a single script, these mixes are normal (Chinese, Japanese, Korean with Latin).
ALLOWED_MIXES = (frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}), frozenset({"LATIN", "HAN", "BOPOMOFO"}),
                 frozenset({"LATIN", "HAN", "HANGUL"}))
SCRIPT_NAMES = {"LATIN": "拉丁字母", "HAN": "汉字", "CYRILLIC": "西里尔字母", "GREEK": "希腊字母",
                "ARMENIAN": "亚美尼亚字母", "HIRAGANA": "平假名", "KATAKANA": "片假名", "HANGUL": "韩文",
                "BOPOMOFO": "注音符号", "ARABIC": "阿拉伯字母", "HEBREW": "希伯来字母", "CHEROKEE": "切罗基字母"}
_MARKS = str.maketrans("", "", "\u200e\u200f")  # the table writes right-to-left characters between direction marks


def scripts(name: str) -> frozenset[str]:
    """The scripts a (folded) name's letters belong to, digits and punctuation left out."""
    return frozenset(categories.alias(c) for c in name) - NEUTRAL_SCRIPTS


def script_problem(name: str) -> str | None:
    """Why `name` mixes scripts in a way that can pass for another name (Chinese), or None."""
    used = scripts(name)
    if len(used) <= 1 or any(used <= mix for mix in ALLOWED_MIXES):
        return None
    shown = "、".join(SCRIPT_NAMES.get(s, s.lower()) for s in sorted(used))
    return (f"用户名「{name}」混用了几种文字（{shown}），容易被看成另一个用户名。请只用一种文字"
            "（汉字可以和英文字母一起用，数字和 . _ - @ 随意）。")


def skeleton(name: str) -> str:
    """`name` with every character replaced by its confusable group's representative: look-alikes share one."""
    groups = _groups()
    return "".join(groups.get(c, c) for c in name)


@functools.cache
def _groups() -> dict[str, str]:
    """character -> the smallest character of the group of characters it can be confused with."""
    parent: dict[str, str] = {}

    def root(c: str) -> str:
        while parent.setdefault(c, c) != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    for char, homoglyphs in confusables.confusables_data.items():
        char = char.translate(_MARKS)
        if len(char) != 1:
            continue
        for glyph in homoglyphs:
            other = glyph["c"].translate(_MARKS)
            if len(other) == 1:
                a, b = root(char), root(other)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    return {c: root(c) for c in list(parent)}
