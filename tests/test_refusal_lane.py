"""The refusal lane at the shipped defaults: every near miss of every shipped labelled set asked once through the
one chain and recorded as the Ask page records it leaves at most one item per distinct normalised question; a correct
refusal asked 30 times in five spellings is one item, and after 「预期拒答」 the 31st asking opens nothing."""

from __future__ import annotations

from collections import Counter

from core.answerability.glossary import load_starter
from core.assistant import build_assistant
from core.language.text import question_key
from core.sets.format import read_question_file
from core.settings import Settings
from core.stores.db import Database
from core.stores.review import Filters, ReviewStore
from tests.paths import SETS

LABELLED = sorted(p for p in SETS.glob("*.csv") if p.name.startswith(("student_", "calibration")))
INVOICE = ("交了学费能开发票吗 公司要报销", "交了学费能开发票吗？公司要报销", "交学费能开发票吗 公司要报销")


def test_the_refusal_lane_holds_one_item_per_distinct_near_miss(corpus_index, tmp_path):
    assistant = build_assistant(Settings(), corpus_index, load_starter())  # the shipped knobs and glossary
    store = ReviewStore(Database(f"sqlite:///{tmp_path / 'queue.sqlite3'}"))
    near_misses = [q.question for path in LABELLED for q in read_question_file(path).questions if not q.expected]
    assert len(LABELLED) == 12 and len(near_misses) == 525
    refused = []
    for question in near_misses:
        outcome = assistant.respond(question)
        store.record(outcome, asker="回放")
        if outcome.refused:
            refused.append(question)
    lane = list(store.iter_items(Filters(lane="refusal")))
    per_key = Counter(question_key(item.question) for item in lane)
    assert max(per_key.values()) == 1
    assert len(lane) == len({question_key(q) for q in refused})
    assert sum(item.ask_count for item in lane) == len(refused)
    # worked by hand: five sets ask this near miss, spelled three ways (v2, v8, v10 「交了…吗 公司要报销」, v4 without
    # 了, v5 with ？): one item, asked five times; the older key (punctuation and width only) made two (4 + 1)
    invoice = [item for item in lane if question_key(item.question) == question_key(INVOICE[0])]
    assert all(q in refused for q in INVOICE) and [i.ask_count for i in invoice] == [5]


SPELLINGS = ("寒假集训营几号开营？", "寒假集训营几号开营呢", "老师好，请问寒假集训营几号开营", "寒假集训营几号开营啊？谢谢",
             "寒假集训营 几号开营的")


def test_thirty_askings_of_a_correct_refusal_in_five_spellings_then_expected(corpus_index, tmp_path):
    assistant = build_assistant(Settings(), corpus_index, load_starter())
    store = ReviewStore(Database(f"sqlite:///{tmp_path / 'queue.sqlite3'}"))
    outcomes = [assistant.respond(SPELLINGS[n % 5]) for n in range(30)]
    assert all(o.refused for o in outcomes)  # the documents say nothing about a winter camp
    ids = {store.record(o, asker="Amy") for o in outcomes}
    assert len(ids) == 1
    item_id = ids.pop()
    assert store.get(item_id).ask_count == 30
    store.decide(item_id, action="expect", reviewer="王老师", expected_version=1, topic="寒暑假班")
    assert store.record(assistant.respond("寒假集训营几号开营吗"), asker="Bob") == item_id
    assert store.get(item_id).ask_count == 31
    assert store.list(Filters(status="pending")).total == 0
