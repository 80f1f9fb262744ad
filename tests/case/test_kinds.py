"""core.case: each fact kind of the student's case reads its example; kinds switch off by name; levels come from
the school facts."""

from __future__ import annotations

import pytest

from core.case import ALL_KINDS, KIND_NAMES, case_facts, parse_kinds, read_case
from core.errors import ConfigError
from core.facts import read_facts
from tests.school import shipped_facts

# One example per kind (the same as docs/grounding.md gives), and the values it reads.
EXAMPLES = [
    ("money", "我交了4200 上了6节", {4200.0}),
    ("rough", "我一共交了五千多 上了两节", {"rough"}),
    ("discount", "三级学费多少 打九折", {"九折"}),
    ("with_textbook", "一级连教材一共交了3880", {"included"}),
    ("level", "我是流利级的", {3.0}),
    ("target", "二级想转到四级", {4.0}),
    ("level_count", "上完三个级别总共多少课时", {3.0}),
    ("lessons", "上了六个课时", {6.0}),
    ("remaining", "还剩十节没上", {10.0}),
    ("half", "已经上了一半了", {"half"}),
    ("weeks", "上了两周了", {2.0}),
    ("started", "课还没开始 能退吗", {"before"}),
    ("times", "已经转过一次班了 还想再转", {2.0}),
    ("transfer_count", "这学期要转3次班 手续费一共多少", {3.0}),
    ("more_transfers", "已经转过两次了 如果我再转两次 还要付多少", {2.0}),
    ("full_price", "二级是原价报的 上了3节", {"full"}),
    ("age", "孩子 12 岁能报吗", {"12"}),
    ("adult", "孩子还没成年 谁来申请", {"minor"}),
    ("span", "要去外地半年", {"6 个月"}),
    ("clock", "晚上十点还有人工吗", {"22 点"}),
    ("textbook", "教材已经领了 能退吗", {"received"}),
]


def test_every_kind_has_an_example_here():
    assert sorted(kind for kind, _, _ in EXAMPLES) == sorted(KIND_NAMES)


@pytest.mark.parametrize(("kind", "question", "values"), EXAMPLES)
def test_each_kind_reads_its_example(kind, question, values):
    assert case_facts(question, shipped_facts()).get(kind) == values


@pytest.mark.parametrize(("kind", "question", "values"), EXAMPLES)
def test_each_kind_switches_off_by_name(kind, question, values):
    assert kind not in case_facts(question, shipped_facts(), ALL_KINDS.without(kind))


@pytest.mark.parametrize("question", ["你给我打个九折呗", "能打折吗", "我是活动价实付1600 上了6节"])
def test_a_discount_asked_for_or_with_its_amount_paid_is_no_case_fact(question):
    assert "discount" not in case_facts(question, shipped_facts())


def test_levels_are_the_documents_levels_by_their_names_and_numbers():
    renamed = read_facts([("a.md", "初阶级（一级）、进阶级（二级）、精通级（三级）、商务级（四级）、大师级（五级）。")])
    assert read_case("从二级转到大师级要补多少", renamed).target == 5
    assert read_case("我是精通级 上了3节", renamed).levels == (3,)
    assert read_case("我是流利级 上了3节", renamed).levels == ()  # a name the documents no longer use
    assert read_case("五级 上了3节", renamed).levels == (5,)
    assert read_case("五级 上了3节", shipped_facts()).levels == ()  # no fifth level in the shipped documents
    assert read_case("二级及以上医院的证明", shipped_facts()).levels == ()


def test_parse_kinds_reads_the_switch_syntax_and_names_an_unknown_kind():
    assert parse_kinds("") == ALL_KINDS
    assert not parse_kinds("-discount,-rough").on("discount")
    assert parse_kinds("money level").enabled == {"money", "level"}
    assert parse_kinds("none").enabled == frozenset()
    with pytest.raises(ConfigError, match="discont"):
        parse_kinds("-discont")


# Which transfer is asked about: the one after every transfer the student tells as made.
TIMES = [
    ("我已经转过3次班了（第一次是开课后第2节转的），现在想第4次转时段", 4),
    ("已经转过两次了，第一次是开课3课时内免费转的，第二次交过钱了，这次还要钱吗", 3),
    ("第一次是免费转的 第二次交过钱了 现在又想转", 3),  # a 第N次 told as made, not asked
    ("第一次转的话要钱吗", 1),  # 的话 asks about it
    ("这已经是我第三次转班了", 3),
    ("之前已经转过一次了 这是第二次", 2),
    ("转过两次了 这是第二次", None),  # contradicts itself: asked for, not guessed
    ("头一回转 要钱不", 1),
    ("已经转了两回了 这次还要钱吗", 3),  # 转了 as 转过
]


@pytest.mark.parametrize(("question", "times"), TIMES)
def test_times_is_the_transfer_after_those_made(question, times):
    assert read_case(question, shipped_facts()).times == times


@pytest.mark.parametrize(("question", "count", "first"), [
    ("已经转过两次了 如果我再转两次 还要付多少", 2, 3),
    ("之前转过一次 还要转两次 一共多少钱", 2, 2),
    ("如果再转两次 一共多少钱", 2, None),  # the transfers made are not said: which ones these are is unknown
    ("这学期要转3次班 手续费一共多少", 3, 1),
])
def test_more_transfers_start_after_those_made(question, count, first):
    case = read_case(question, shipped_facts())
    assert (case.transfers, case.transfers_from) == (count, first)


@pytest.mark.parametrize(("question", "paid", "full"), [
    ("三级原价4800 打了九折 上了3节 能退多少", None, False),  # a list price with a discount is not what was paid
    ("三级标价是4800 联报优惠的 上了3节", None, False),
    ("三级原价4800交的 上了3节 能退多少", 4800, True),  # no discount: the list price is what was paid
    ("三级 没用任何优惠 上了3节", None, True),
    ("我报的三级 上了3节 能退多少", None, False),  # nothing said about the price
])
def test_a_list_price_is_paid_only_without_a_discount(question, paid, full):
    case = read_case(question, shipped_facts())
    assert (case.paid, case.full_price) == (paid, full)


@pytest.mark.parametrize(("question", "target"), [
    ("我现在上二级，测试后老师说可以上四级，要补多少差价", 4),
    ("二级和三级差价多少", 3),
    ("我是二级 上了3节 三级的学费多少", None),  # two levels without a move or a difference: no target
])
def test_two_levels_with_a_difference_asked_move_from_the_first_to_the_second(question, target):
    assert read_case(question, shipped_facts()).target == target


@pytest.mark.parametrize(("question", "weeks"), [
    ("上了一个礼拜的课 想退", 1.0), ("上了两礼拜了", 2.0), ("已经上了七个星期了", 7.0), ("上了三个星期", 3.0), ("上了两周", 2.0),
])
def test_weeks_are_read_in_every_week_word(question, weeks):
    assert case_facts(question, shipped_facts()).get("weeks") == {weeks}


@pytest.mark.parametrize("question", ["礼拜三上课吗", "星期六能转班吗", "周三晚上的班"])
def test_a_weekday_is_no_count_of_weeks(question):
    assert "weeks" not in case_facts(question, shipped_facts())


def test_the_latin_word_of_a_level_is_found_for_the_gate():
    from core.case.kinds import latin_level_letters

    assert latin_level_letters("L1转L2要补多少差价") == {"l"} and latin_level_letters("level 2 上了3节") == {"level"}
    assert latin_level_letters("我用apple pay付的") == set()


@pytest.mark.parametrize(("question", "included"), [
    ("四级 还没开课 教材也领了 一共交了5880 能退多少", True),  # 5600 + 280: the level's tuition plus the textbook fee
    ("四级 交了5880 上了2节 能退多少", False),  # no word of the textbook: the amount is what was paid
    ("四级 教材领了 交了5800 上了2节", False),  # not the sum
])
def test_an_amount_of_tuition_plus_textbook_said_with_the_textbook_includes_it(question, included):
    assert read_case(question, shipped_facts()).with_textbook is included


@pytest.mark.parametrize("question", [
    "二级团购价3800，加上教材一共4080，还没开课，能退多少",
    "二级一共付了4080 其中学费3800 教材领了 还没开课 想退",  # the total first
])
def test_the_tuition_said_beside_its_total_with_the_textbook_is_the_amount_paid(question):
    """Two amounts, one the other plus the documents' textbook fee (280): the smaller is the tuition paid, and it
    does not include the textbook (the old reader took the first amount and, on 「教材」, took 280 off it)."""
    case = read_case(question, shipped_facts())
    assert case.paid == 3800 and case.with_textbook is False


@pytest.mark.parametrize(("question", "taken", "remaining"), [
    ("二级交了4200 五堂课下来发现不适合 能退多少", 5.0, None),  # 堂 is a lesson's measure word, as 节 is
    ("二级交了4200 还剩十堂没上 能退多少", None, 10.0),
    ("三级交了4800 上了十七堂 想退", 17.0, None),
])
def test_a_count_of_lessons_by_their_measure_word_is_read(question, taken, remaining):
    case = read_case(question, shipped_facts())
    assert (case.taken, case.remaining) == (taken, remaining)


def test_one_lesson_as_the_unit_is_no_count_taken():
    assert read_case("一堂课多长时间", shipped_facts()).taken is None


def test_a_reading_kept_for_one_set_of_facts_is_not_given_for_another(tmp_path):
    """The reader keeps its readings (the reuse guards read the same approved questions for every ask), keyed by the
    facts it read with: after an admin renames a level, the same question is read with the new name."""
    from tests.school import documents, edited_corpus

    renamed = read_facts(documents(edited_corpus(tmp_path / "corpus", {
        "01-口语课分级说明.md": [("流利级", "畅谈级")], "02-退费与转班制度.md": []})))
    question = "畅谈级交了4800 上了3节 能退多少"
    assert "level" not in case_facts(question, shipped_facts())
    assert case_facts(question, renamed)["level"] == {3.0}
    assert "level" not in case_facts(question, shipped_facts())  # and back: the old facts' reading, not the new one


@pytest.mark.parametrize(("question", "ages"), [
    ("我已经满18了，退费得谁来申请？", {"18"}),   # 满 and a number closing its clause: an age reached
    ("孩子满十六了呢", {"十六"}),
    ("上满8节还能退吗", None),                    # 满 before a lesson count is no age
])
def test_round17_an_age_reached_is_read_without_sui(question, ages):
    assert case_facts(question, shipped_facts()).get("age") == ages
