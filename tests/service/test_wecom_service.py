"""The WeChat channel in `xiaoe serve` children over real HTTP, on both engines, driven as WeCom drives it: signed,
encrypted callbacks posted to the door, messages pulled from and answers sent to the scripted WeCom server. A student
message is answered once whatever happens: repeated callbacks, two instances pulling at once, an instance killed
(-9) between send_msg and marking the send."""

from __future__ import annotations

import os
import signal
import time

import pytest

from core.stores.db import Database
from core.stores.wecom_inbox import WeComInbox
from core.stores.wecom_outbox import WeComOutbox
from core.values.wecom import SENT
from tests.service.harness import make_key, start_service
from tests.service.wecom_driver import Driver
from tests.service.wecom_rig import KFID, wecom_env, wecom_settings
from tests.service.wecom_server import start_wecom

QUESTIONS = ("口语课一共有几级？", "每节课多长时间？", "退费怎么算？", "你们的雅思保过班多少钱？")


@pytest.fixture
def channel(wecom, database_url, service_data, services):
    """Start `xiaoe serve` instances with the WeChat channel on; the driver posts callbacks to them."""
    settings = wecom_settings(wecom, database_url, service_data, wecom_lease_s=2.0)
    make_key(database_url, settings.wecom_key, release="auto")
    env = wecom_env(settings) | {"XIAOE_WECOM_LEASE_S": "2"}
    driver = Driver(settings.wecom_token, settings.wecom_aes_key, settings.wecom_corp_id)

    def start():
        return services(extra_env=env)

    return start, driver


@pytest.fixture(scope="module")
def door(shared_url, service_data, tmp_path_factory):
    """One instance with the channel on per engine, for the tests of the callback door alone."""
    fake = start_wecom()
    settings = wecom_settings(fake, shared_url, service_data)
    make_key(shared_url, settings.wecom_key, release="auto")
    service = start_service(tmp_path_factory.mktemp("wecom-door"), shared_url,
                            {"XIAOE_DATA_DIR": str(service_data), **wecom_env(settings)})
    yield service, Driver(settings.wecom_token, settings.wecom_aes_key, settings.wecom_corp_id), fake, shared_url
    service.stop()
    fake.close()


def _wait(condition, what: str, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"{timeout:.0f} 秒内没有等到：{what}")


def _started(database_url: str) -> None:
    """The first start has walked to the current cursor (messages after this are answered)."""
    db = Database(database_url)
    try:
        _wait(lambda: WeComInbox(db).cursor(KFID)[0] is not None, "第一次拉取")
    finally:
        db.dispose()


def test_wecom_door_answers_the_url_check_with_the_decrypted_echostr(door):
    service, driver, _fake, _url = door
    answer = driver.verify_url(service.url, "echo-1234567")
    assert answer.status_code == 200 and answer.text == "echo-1234567"


@pytest.mark.parametrize("case", ["bad_signature", "other_corp"])
def test_wecom_door_refuses_a_callback_that_is_not_wecoms(door, case):
    service, driver, wecom, database_url = door
    answer = driver.post(service.url, KFID, wecom.callback_token(), tamper=case == "bad_signature",
                         corp_id="wwsomeoneelse" if case == "other_corp" else None)
    assert answer.status_code == 403
    assert answer.json()["code"] == "bad_callback" and "回调" in answer.json()["message"]
    db = Database(database_url)
    assert WeComInbox(db).news(KFID)[0] == 0  # nothing recorded
    db.dispose()


def test_wecom_repeated_callbacks_answer_each_message_once(channel, wecom, database_url):
    start, driver = channel
    service = start()
    _started(database_url)
    for n, question in enumerate(QUESTIONS):
        wecom.say(KFID, f"s{n}", question)
    token = wecom.callback_token()
    for _ in range(3):
        assert driver.post(service.url, KFID, token).text == "success"
    _wait(lambda: len(wecom.sent) >= len(QUESTIONS), "每条消息的回答")
    time.sleep(1.0)  # a repeat would come within the next rounds
    assert sorted(s["touser"] for s in wecom.sent) == [f"s{n}" for n in range(len(QUESTIONS))]
    assert len(set(wecom.sent_msgids())) == len(wecom.sent)


def test_wecom_two_instances_pulling_at_once_answer_once(channel, wecom, database_url):
    start, driver = channel
    first, second = start(), start()
    _started(database_url)
    for n, question in enumerate(QUESTIONS * 3):
        wecom.say(KFID, f"s{n}", question)
    token = wecom.callback_token()
    for service in (first, second, first, second):
        driver.post(service.url, KFID, token)
    _wait(lambda: len(wecom.sent) >= len(QUESTIONS) * 3, "每条消息的回答")
    first.stop()  # the other instance takes over the account and finds nothing left to do
    time.sleep(3.0)
    assert sorted(s["touser"] for s in wecom.sent) == sorted(f"s{n}" for n in range(len(QUESTIONS) * 3))


def test_wecom_kill_between_send_and_marking_sends_once(channel, wecom, database_url):
    start, driver = channel
    service = start()
    _started(database_url)
    killed: dict[str, str] = {}

    def kill_once(msgid: str) -> None:  # WeCom took the message; the instance dies before it hears so
        if not killed:
            killed["msgid"] = msgid
            os.kill(service.process.pid, signal.SIGKILL)

    wecom.on_send = kill_once
    wecom.say(KFID, "s1", QUESTIONS[0])
    driver.post(service.url, KFID, wecom.callback_token())
    _wait(lambda: killed, "第一次发送")
    service.process.wait(timeout=10)
    wecom.on_send = None
    restarted = start()  # takes the account once the dead instance's lease runs out
    db = Database(database_url)
    try:
        (recorded,) = WeComInbox(db).messages(user="s1")
        outbox = WeComOutbox(db)
        sends = _wait(lambda: [s for s in outbox.deliveries([recorded.exchange]).get(recorded.exchange, ())
                               if s.state == SENT], "重启后的实例认出这条已发出")
    finally:
        db.dispose()
    assert [s.part.msgid for s in sends] == [killed["msgid"]]
    assert wecom.sent_msgids() == [killed["msgid"]]  # sent once in all
    assert [r["errcode"] for r in wecom.refused if r["path"].endswith("send_msg")] == [40058]  # the repeat, refused
    assert restarted.process.poll() is None


def test_serve_says_what_to_do_when_the_wechat_key_is_missing(wecom, database_url, service_data, monkeypatch, capsys):
    from core.cli import main

    settings = wecom_settings(wecom, database_url, service_data)
    for name, value in {**wecom_env(settings), "XIAOE_DATABASE_URL": database_url,
                        "XIAOE_DATA_DIR": str(service_data)}.items():
        monkeypatch.setenv(name, value)
    assert main(["serve", "--port", "8599"]) == 2
    said = capsys.readouterr().out
    assert "xiaoe keys add wecom --release all" in said and "Traceback" not in said
