"""Money as a student reads it (#40 item 5): one rounding rule, half up to the cent, in the computation, the answer,
the stored and approved text and the approval check — on both engines."""

from __future__ import annotations

import shutil

import pytest

from core.assistant import open_assistant
from core.errors import NeedsConfirmation
from core.language.money import Rounding, format_amount, round_amount
from core.settings import Settings
from core.stores.approved import ApprovedStore
from core.stores.db import open_database
from core.stores.review import ReviewStore
from tests.paths import CORPUS

QUESTION = "我报的二级 交了4200 上了3节课 现在退能退多少"


@pytest.mark.parametrize(("value", "written"), [(170.625, "170.63"), (3241.875, "3241.88"), (3412.5, "3412.5"),
                                                (2493.75, "2493.75"), (0.005, "0.01"), (3420.0, "3420")])
def test_half_up_to_the_cent(value, written):
    assert format_amount(value) == written


def test_a_rule_the_documents_state_is_used_instead():
    assert round_amount(3241.5, Rounding(places=0)) == 3242 and round_amount(170.625, Rounding(mode="half_even")) == 170.62


def test_the_refund_uses_the_rounded_fee_stored_and_approved_as_computed(tmp_path, database_url):
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    settings = Settings(corpus_dir=corpus, data_dir=tmp_path / "data", database_url=database_url, reuse="off")
    outcome = open_assistant(settings, with_model=False).respond(QUESTION)
    text = outcome.answer.text
    # 4200 × 13 ÷ 16 = 3412.5; fee 170.625 → 170.63; refund 3412.5 − 170.63 = 3241.87
    assert "3412.5 × 5% = 170.63 元" in text and "3412.5 − 170.63 = 3241.87 元，可退 3241.87 元" in text
    assert "170.62" not in text and "3241.88" not in text and not outcome.answer.problems
    review = ReviewStore(open_database(settings.db_url))
    item_id = review.enqueue(outcome.answer, origin="manual", flagged_by="李老师", fingerprint=outcome.fingerprint)
    item = review.get(item_id)
    assert "可退 3241.87 元" in item.answer
    wrong = item.answer.replace("170.63", "170.62").replace("3241.87", "3241.88")
    with pytest.raises(NeedsConfirmation, match="170.62"):
        review.decide(item_id, action="approve", reviewer="李老师", expected_version=item.version, corrected_answer=wrong)
    review.decide(item_id, action="approve", reviewer="李老师", expected_version=review.get(item_id).version)
    assert "可退 3241.87 元" in ApprovedStore(open_database(settings.db_url)).for_item(item_id).text
