"""A driver playing WeCom's side of the callback: signed, encrypted notices posted to the service over real HTTP.

Its encryption is written here from WeCom's description, independently of service/wecom/crypto.py (only the AES
primitive is shared, `cryptography`'s), so a mistake in the service's scheme cannot hide behind the same mistake in
the test: key = base64decode(EncodingAESKey + "="), IV = key[:16], AES-256-CBC, PKCS#7 to 32 bytes, plaintext =
16 random bytes + 4-byte big-endian length + message + CorpID; signature = sha1 of the sorted four strings.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import string
import time
from dataclasses import dataclass

import httpx
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

PATH = "/v1/wecom/callback"


def new_aes_key() -> str:
    return "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(43))


@dataclass(frozen=True)
class Driver:
    token: str
    aes_key: str
    corp_id: str

    def encrypt(self, message: str, corp_id: str | None = None) -> str:
        key = base64.b64decode(self.aes_key + "=")
        body = message.encode("utf-8")
        plain = secrets.token_bytes(16) + len(body).to_bytes(4, "big") + body + (corp_id or self.corp_id).encode()
        pad = 32 - len(plain) % 32
        plain += bytes([pad]) * pad
        encryptor = Cipher(algorithms.AES(key), modes.CBC(key[:16])).encryptor()
        return base64.b64encode(encryptor.update(plain) + encryptor.finalize()).decode()

    def decrypt(self, encrypted: str) -> str:
        key = base64.b64decode(self.aes_key + "=")
        decryptor = Cipher(algorithms.AES(key), modes.CBC(key[:16])).decryptor()
        plain = decryptor.update(base64.b64decode(encrypted)) + decryptor.finalize()
        plain = plain[:-plain[-1]]
        length = int.from_bytes(plain[16:20], "big")
        return plain[20:20 + length].decode("utf-8")

    def sign(self, timestamp: str, nonce: str, encrypted: str) -> str:
        return hashlib.sha1("".join(sorted([self.token, timestamp, nonce, encrypted])).encode()).hexdigest()

    def query(self, encrypted: str) -> dict:
        timestamp, nonce = str(int(time.time())), secrets.token_hex(5)
        return {"msg_signature": self.sign(timestamp, nonce, encrypted), "timestamp": timestamp, "nonce": nonce}

    def notice_xml(self, open_kfid: str, callback_token: str) -> str:
        return ("<xml><ToUserName><![CDATA[" + self.corp_id + "]]></ToUserName>"
                f"<CreateTime>{int(time.time())}</CreateTime><MsgType><![CDATA[event]]></MsgType>"
                "<Event><![CDATA[kf_msg_or_event]]></Event>"
                f"<Token><![CDATA[{callback_token}]]></Token><OpenKfId><![CDATA[{open_kfid}]]></OpenKfId></xml>")

    def post(self, base_url: str, open_kfid: str, callback_token: str, *, tamper: bool = False,
             corp_id: str | None = None) -> httpx.Response:
        """POST one 「kf_msg_or_event」 notice as WeCom does (tamper: a wrong signature)."""
        encrypted = self.encrypt(self.notice_xml(open_kfid, callback_token), corp_id)
        query = self.query(encrypted)
        if tamper:
            query["msg_signature"] = "0" * 40
        body = (f"<xml><ToUserName><![CDATA[{self.corp_id}]]></ToUserName>"
                f"<Encrypt><![CDATA[{encrypted}]]></Encrypt><AgentID><![CDATA[]]></AgentID></xml>")
        return httpx.post(base_url + PATH, params=query, content=body.encode(), timeout=10, trust_env=False,
                          headers={"Content-Type": "text/xml"})

    def verify_url(self, base_url: str, echo: str) -> httpx.Response:
        encrypted = self.encrypt(echo)
        query = {**self.query(encrypted), "echostr": encrypted}
        return httpx.get(base_url + PATH, params=query, timeout=10, trust_env=False)
