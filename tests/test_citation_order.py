"""[n] names the same chunk everywhere: an answer that cites its references out of the gate's order is renumbered,
and the candidates queued with it follow the new numbers, so the review queue, the approval checks, approved
answers' citations and 资料已更新 (which all read [n] as the n-th passing candidate) find the chunk it cites."""

from __future__ import annotations

from core.assistant import open_assistant
from core.checks.references import extract_refs
from core.settings import Settings
from core.stores.db import open_database
from core.stores.review import ReviewStore
from tests.paths import CORPUS

OUT_OF_ORDER = "退费与转班制度适用于哪些学员？"  # the offline answer cites the scope sentence, ranked second, as [1]


def test_a_queued_answer_cites_the_nth_passing_candidate(tmp_path):
    settings = Settings(corpus_dir=CORPUS, data_dir=tmp_path)
    answer = open_assistant(settings, with_model=False).ask(OUT_OF_ORDER)
    assert not answer.refused and extract_refs(answer.text)
    store = ReviewStore(open_database(settings.db_url))
    item = store.get(store.enqueue(answer, origin="manual", flagged_by="李老师"))
    passed = [h for h in item.candidates if h.passed]
    for n in extract_refs(answer.text):
        assert passed[n - 1].text == answer.hits[n - 1].text
    assert [h.text for h in passed] == [h.text for h in answer.hits]
