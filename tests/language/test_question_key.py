"""question_key: the one "same question" key (queue merging, expected refusals, set duplicates)."""

from __future__ import annotations

import pytest

from core.language.text import question_key
from core.sets.format import read_question_file
from tests.paths import SETS


@pytest.mark.parametrize("a, b", [
    ("寒假班几号开始？", "寒假班 几号开始?"),                       # punctuation and space
    ("ＡＢＣ班怎么退费", "abc班怎么退费！"),                       # full/half width, case
    ("有外教吗？", "有外教的吗"),                                 # 的 and 吗
    ("下一期什么时候开班", "下一期什么时候开班啊"),                  # a final particle
    ("能退费么", "能退费吗"),                                    # 么 as 吗
    ("交了学费能开发票吗？公司要报销", "交学费能开发票吗 公司要报销"),  # 了
    ("老师好，请问有外教吗", "有外教吗"),                          # a greeting clause and an asking frame
    ("麻烦问下入门级学费多少钱谢谢老师", "入门级学费多少钱"),         # courtesy phrases inside the clause
    ("老师我想问下学费能分期吗", "学费能分期吗"),                    # address word before a frame
    ("在吗 请问学生证有没有学生价", "学生证有没有学生价"),
])
def test_question_key_same_question(a, b):
    assert question_key(a) == question_key(b)


@pytest.mark.parametrize("a, b", [
    ("有外教吗", "有外教老师吗"),         # 老师 inside a clause that asks stays
    ("学费是什么", "学费是怎么"),         # 么 of 什么 / 怎么 is not a particle
    ("你好", "谢谢"),                    # nothing but courtesy: the message itself is the key
    ("🙂", "👍"),
    ("父亲可以代办吗", "父可以代办吗"),    # 亲 is a greeting only as a clause of its own
])
def test_question_key_different_questions(a, b):
    assert question_key(a) != question_key(b)


def test_question_key_worked_example():
    assert question_key("老师好，请问入门级的学费是多少呢？谢谢") == "入门级学费是多少"


def test_every_labelled_set_still_parses_with_no_duplicate_under_the_key():
    labelled = sorted(p for p in SETS.glob("*.csv") if p.name.startswith(("student_", "calibration")))
    assert len(labelled) == 12
    for path in labelled:
        assert read_question_file(path).questions, path.name
