"""One gate through WeChat: a sample of every labelled set's questions, sent as WeChat messages through the channel,
gets the decisions `xiaoe ask --json` gives (the whole sets: `python -m bench.wecom_one_gate`)."""

from __future__ import annotations

from bench.sets import CALIBRATION_SETS, DEV_STUDENT_SETS, HELDOUT_SETS, read_set
from core.stores.api_keys import KeyStore
from tests.service.harness import ADMIN
from tests.service.wecom_gate import ANSWERED, HELD, REFUSED, compare

EVERY = 20  # every twentieth question of each set


def _sample() -> list[str]:
    return [q.question for _label, file in (*CALIBRATION_SETS, *HELDOUT_SETS, *DEV_STUDENT_SETS)
            for q in read_set(file)[::EVERY]]


def test_wecom_channel_and_xiaoe_ask_give_the_same_decisions(rigs, database_url, service_data, monkeypatch):
    rig = rigs(release="auto")
    rig.turn()
    monkeypatch.setenv("XIAOE_DATA_DIR", str(service_data))
    monkeypatch.setenv("XIAOE_DATABASE_URL", database_url)
    found = compare(rig, _sample(), "a", "auto")
    KeyStore(rig.db).set_release(ADMIN, rig.settings.wecom_key, "all")  # then the same questions, every answer held
    found += compare(rig, _sample(), "h", "all")
    disagreeing = [(c.question, c.wechat, c.cli, c.read_as_cli) for c in found if not c.agrees]
    assert not disagreeing
    assert {c.cli for c in found} == {REFUSED, HELD, ANSWERED}  # the sample has every kind of decision
