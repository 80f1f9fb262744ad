"""core.reuse.drift: which edits say what an approved answer says, and the shipped share is the written rule's."""

from __future__ import annotations

from bench import reuse_drift
from core.reuse.drift import (
    RELATED_SHARE,
    changed_sentences,
    cited_contradictions,
    related_change,
    relatedness,
    still_stating,
)
from core.values import Hit
from tests.paths import CORPUS

OLD = "每一级都是 16 课时，每课时 45 分钟。\n每周上 2 课时，八周结课。\n口语课采用小班授课，每班不超过 8 人。\n"


def test_changed_sentences_are_the_removed_then_the_added_ones():
    new = OLD.replace("每课时 45 分钟", "每课时 60 分钟")
    assert changed_sentences(OLD, new) == ("每一级都是 16 课时，每课时 45 分钟。", "每一级都是 16 课时，每课时 60 分钟。")
    assert changed_sentences(OLD, OLD) == ()
    assert changed_sentences(None, "新文件一句。") == ("新文件一句。",)


def test_relatedness_is_the_best_clause_share_and_ignores_clauses_too_short_to_say_anything():
    assert relatedness("每一级都是 16 课时，每课时 45 分钟。", "每课时 45 分钟。") == 1.0
    assert relatedness("因病或工作调动，可以申请保留学籍。", "人工服务时间为每天 9:00–21:00。") == 0.0
    assert relatedness("可以申请保留学籍。", "可以。") == 0.0  # 「可以」 alone is one pair: too short to count


def test_a_related_edit_is_named_with_its_old_and_new_sentence():
    new = OLD.replace("每课时 45 分钟", "每课时 60 分钟")
    detail = related_change("每课时 45 分钟。", {"01.md": (OLD, new)})
    assert "「01.md」" in detail and "45 分钟" in detail and "→" in detail and "60 分钟" in detail


def test_an_unrelated_edit_or_no_edit_says_nothing():
    new = OLD.replace("不超过 8 人", "不超过 10 人")
    assert related_change("每课时 45 分钟。", {"01.md": (OLD, new)}) == ""
    assert related_change("每课时 45 分钟。", {}) == ""


def test_a_sentence_added_that_says_the_same_thing_is_named_too():
    new = OLD + "自 2027 年起每课时 50 分钟。\n"
    assert "新写了" in related_change("每课时 45 分钟。", {"01.md": (OLD, new)})


def test_the_shipped_share_is_what_the_written_rule_picks_on_the_development_sets(capsys):
    reuse_drift.main([])
    assert capsys.readouterr().out.rstrip().endswith(f"{RELATED_SHARE:.2f}")


REFUND_TEXT = (CORPUS / "02-退费与转班制度.md").read_text(encoding="utf-8")
LEVELS_TEXT = (CORPUS / "01-口语课分级说明.md").read_text(encoding="utf-8")
RULE = "开课前申请退费的，学费全额退还。"
FEE_RULE = "开课前申请退费的，扣除 100 元手续费后退还其余学费。"
FAQ = "答：可以，开课前申请退费，学费全额退还。"


def still(source: str, text: str, old: str, new: str):
    after = text.replace(old, new, 1)
    assert after != text
    texts = {"01-口语课分级说明.md": LEVELS_TEXT, "02-退费与转班制度.md": REFUND_TEXT, source: after}
    return still_stating({source: (text, after)}, texts)


def test_still_stating_names_the_faq_line_that_keeps_the_old_rule_and_nothing_else():
    (found,) = still("02-退费与转班制度.md", REFUND_TEXT, RULE, FEE_RULE)
    assert (found.source, found.heading, found.sentence) == ("02-退费与转班制度.md", "七、常见问题", FAQ)
    assert (found.changed_source, found.old, found.new) == ("02-退费与转班制度.md", RULE, FEE_RULE)
    # not the FAQ's question (it states no rule), nor 「开课后申请退费的…」: it shares 「申请退费的」, nothing the edit dropped
    assert "还写着「答：可以，开课前申请退费，学费全额退还。」" in found.describe() and "100 元" in found.describe()


def test_still_stating_a_changed_price_is_not_every_price_that_shares_two_zeros():
    found = still("01-口语课分级说明.md", LEVELS_TEXT, "入门级（一级）：3600 元", "入门级（一级）：3700 元")
    assert not any(c.sentence.startswith(("进阶级", "流利级", "商务级")) for c in found)


def test_still_stating_a_changed_number_finds_its_restatement_in_another_section():
    found = still("02-退费与转班制度.md", REFUND_TEXT, "最长保留 6 个月", "最长保留 12 个月")
    assert [(c.heading, c.sentence) for c in found] == [("七、常见问题", "答：可以凭二级及以上医院的证明申请保留学籍，最长 6 个月。")]


def test_still_stating_an_unrelated_edit_or_no_edit_finds_nothing():
    assert still("02-退费与转班制度.md", REFUND_TEXT, "学员是未成年人的，由监护人提出申请。",
                 "学员未满 18 岁的，由监护人提出申请。") == ()
    assert still_stating({"02-退费与转班制度.md": (REFUND_TEXT, REFUND_TEXT)}, {"02-退费与转班制度.md": REFUND_TEXT}) == ()


def hit(text: str, source: str = "02-退费与转班制度.md") -> Hit:
    return Hit(rank=1, source=source, heading="七、常见问题", chunk=1, start=0, end=len(text), text=text, score=0.5,
               passed=True)


def test_cited_contradictions_only_when_the_answer_cites_the_sentence_and_says_it():
    (found,) = still("02-退费与转班制度.md", REFUND_TEXT, RULE, FEE_RULE)
    faq, other = hit(f"问：还没开课，可以全额退吗？\n{FAQ}"), hit("答：不能，教材费不在退费范围内。")
    assert cited_contradictions("开课前申请退费，学费全额退还[1]。", (faq,), (found,)) == (found,)
    assert cited_contradictions("开课前申请退费，学费全额退还[1]。", (other, faq), (found,)) == ()  # cites [1] only
    assert cited_contradictions("教材费不退[2]。", (faq, other), (found,)) == ()
    assert cited_contradictions("教材费不退[1]。", (faq,), (found,)) == ()  # cites the chunk, says something else
