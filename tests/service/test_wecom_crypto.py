"""WeCom's callback format as service/wecom/crypto.py reads and writes it, checked against the test driver's own
implementation of WeCom's description (tests/service/wecom_driver.py) and a signature worked out by hand."""

from __future__ import annotations

import base64
import hashlib

import pytest

from core.errors import ConfigError
from core.settings import Settings
from service.wecom.crypto import CallbackRejected, WeComCrypto, signature, xml_fields
from tests.service.wecom_driver import Driver, new_aes_key

CORP = "wwcorp0001"


@pytest.fixture
def pair():
    key = new_aes_key()
    return WeComCrypto("TOKEN", key, CORP), Driver("TOKEN", key, CORP)


def test_signature_is_sha1_of_the_four_fields_sorted():
    # sorted("TOKEN", "1234567890", "nonce", "xyz") = "1234567890", "TOKEN", "nonce", "xyz" (digits < capitals < small)
    assert signature("TOKEN", "1234567890", "nonce", "xyz") == hashlib.sha1(b"1234567890TOKENnoncexyz").hexdigest()


@pytest.mark.parametrize("message", ["<xml><Event>kf_msg_or_event</Event></xml>", "echo", "中文" * 50, "x" * 12])
def test_crypto_reads_what_wecom_writes(pair, message):
    crypto, driver = pair
    assert crypto.decrypt(driver.encrypt(message)) == message


def test_crypto_writes_what_wecom_reads_padded_to_32_bytes(pair):
    crypto, driver = pair
    for length in range(0, 70):
        encrypted = crypto.encrypt("a" * length)
        assert len(base64.b64decode(encrypted)) % 32 == 0
        assert driver.decrypt(encrypted) == "a" * length


def test_crypto_verifies_the_drivers_signature_and_refuses_a_wrong_one(pair):
    crypto, driver = pair
    encrypted = driver.encrypt("<xml/>")
    query = driver.query(encrypted)
    crypto.verify(query["msg_signature"], query["timestamp"], query["nonce"], encrypted)
    with pytest.raises(CallbackRejected, match="签名"):
        crypto.verify(query["msg_signature"], query["timestamp"], query["nonce"] + "x", encrypted)


def test_crypto_refuses_a_message_for_another_corp(pair):
    crypto, driver = pair
    with pytest.raises(CallbackRejected, match="CorpID"):
        crypto.decrypt(driver.encrypt("<xml/>", corp_id="wwother"))


@pytest.mark.parametrize("encrypted, words", [("not base64!", "base64"), (base64.b64encode(b"short").decode(), "长度"),
                                               (base64.b64encode(bytes(32)).decode(), "解密")])
def test_crypto_says_why_it_cannot_read_a_callback(pair, encrypted, words):
    crypto, _driver = pair
    with pytest.raises(CallbackRejected, match=words):
        crypto.decrypt(encrypted)


def test_crypto_with_another_key_cannot_read_it(pair):
    _crypto, driver = pair
    with pytest.raises(CallbackRejected):
        WeComCrypto("TOKEN", new_aes_key(), CORP).decrypt(driver.encrypt("<xml><a>1</a></xml>"))


def test_xml_fields_reads_wecoms_flat_document_and_refuses_entities():
    assert xml_fields("<xml><OpenKfId><![CDATA[wk1]]></OpenKfId><Token>t</Token></xml>") == {"OpenKfId": "wk1",
                                                                                            "Token": "t"}
    with pytest.raises(CallbackRejected, match="DOCTYPE"):
        xml_fields('<!DOCTYPE x [<!ENTITY a "b">]><xml><A>&a;</A></xml>')
    with pytest.raises(CallbackRejected, match="XML"):
        xml_fields("not xml")


@pytest.mark.parametrize("changes, words", [
    ({"wecom_aes_key": "short"}, "43 位"),
    ({"wecom_secret": ""}, "XIAOE_WECOM_SECRET"),
    ({"wecom_open_kfids": "wk 1"}, "open_kfid"),
    ({"wecom_duplicate_errcodes": "abc"}, "DUPLICATE_ERRCODES"),
])
def test_wecom_settings_name_what_is_wrong(changes, words):
    values = {"wecom_corp_id": CORP, "wecom_secret": "s", "wecom_token": "t", "wecom_aes_key": new_aes_key(),
              "wecom_open_kfids": "wk1", **changes}
    with pytest.raises(ConfigError, match=words):
        Settings(**values)
