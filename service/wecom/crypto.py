"""WeCom's callback format: the signature over (Token, timestamp, nonce, Encrypt) and the EncodingAESKey encryption.

The scheme is WeCom's: the key is base64decode(EncodingAESKey + "="), 32 bytes; AES-256-CBC with the key's first 16
bytes as IV; PKCS#7 padding to a multiple of 32; the plaintext is 16 random bytes, the message's length in 4 bytes
(network order), the message, then the receiver id (the CorpID), which decryption checks. The signature is the SHA-1
hex of the four strings sorted and joined. The AES itself is `cryptography`'s (docs/dependencies.md).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import struct
import xml.etree.ElementTree as ET

from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from core.errors import XiaoEError

BLOCK_BITS = 256  # WeCom pads to 32 bytes, not AES's 16
MAX_CALLBACK_BYTES = 64 * 1024


class CallbackRejected(XiaoEError):
    """A callback that is not WeCom's (bad signature) or cannot be read; the message says which, in Chinese."""


def signature(token: str, timestamp: str, nonce: str, encrypted: str) -> str:
    return hashlib.sha1("".join(sorted((token, timestamp, nonce, encrypted))).encode("utf-8")).hexdigest()


class WeComCrypto:
    """Sign, verify, encrypt and decrypt for one callback configuration (Token, EncodingAESKey, CorpID)."""

    def __init__(self, token: str, aes_key: str, receive_id: str) -> None:
        try:
            key = base64.b64decode(aes_key + "=", validate=True)
        except (binascii.Error, ValueError):
            key = b""
        if len(key) != 32:
            raise CallbackRejected("EncodingAESKey 不对：应是企业微信后台生成的 43 位字符，请重新复制到 XIAOE_WECOM_AES_KEY。")
        self.token = token
        self.key = key
        self.receive_id = receive_id

    def verify(self, msg_signature: str, timestamp: str, nonce: str, encrypted: str) -> None:
        """CallbackRejected unless the signature is WeCom's for these values (compared in constant time)."""
        expected = signature(self.token, timestamp, nonce, encrypted)
        if not hmac.compare_digest(expected, (msg_signature or "").lower()):
            raise CallbackRejected("回调签名不对：请求不是企业微信发来的，或 XIAOE_WECOM_TOKEN 与后台填写的 Token 不一致。")

    def _cipher(self) -> Cipher:
        return Cipher(algorithms.AES(self.key), modes.CBC(self.key[:16]))

    def encrypt(self, message: str, *, random: bytes | None = None) -> str:
        body = message.encode("utf-8")
        plain = (random or os.urandom(16)) + struct.pack(">I", len(body)) + body + self.receive_id.encode("utf-8")
        padder = padding.PKCS7(BLOCK_BITS).padder()
        padded = padder.update(plain) + padder.finalize()
        encryptor = self._cipher().encryptor()
        return base64.b64encode(encryptor.update(padded) + encryptor.finalize()).decode("ascii")

    def decrypt(self, encrypted: str) -> str:
        """The message inside `encrypted`, or CallbackRejected (unreadable, or meant for another CorpID)."""
        try:
            data = base64.b64decode(encrypted, validate=True)
        except (binascii.Error, ValueError):
            raise CallbackRejected("回调内容不是有效的 base64：请检查企业微信后台的回调设置。") from None
        if not data or len(data) % 16:
            raise CallbackRejected("回调内容的长度不对，无法解密：请检查 XIAOE_WECOM_AES_KEY。")
        decryptor = self._cipher().decryptor()
        padded = decryptor.update(data) + decryptor.finalize()
        pad = padded[-1]
        if not 1 <= pad <= 32 or padded[-pad:] != bytes([pad]) * pad:
            raise CallbackRejected("回调解密失败：XIAOE_WECOM_AES_KEY 与企业微信后台的 EncodingAESKey 不一致。")
        plain = padded[:-pad]
        if len(plain) < 20:
            raise CallbackRejected("回调解密后内容太短，无法读取：请检查 XIAOE_WECOM_AES_KEY。")
        (length,) = struct.unpack(">I", plain[16:20])
        body, receive_id = plain[20:20 + length], plain[20 + length:]
        if len(body) != length or receive_id.decode("utf-8", "replace") != self.receive_id:
            raise CallbackRejected("回调不是发给本企业的（解密后的 CorpID 不符）：请检查 XIAOE_WECOM_CORP_ID。")
        try:
            return body.decode("utf-8")
        except UnicodeDecodeError:
            raise CallbackRejected("回调解密后不是 UTF-8 文字：请检查 XIAOE_WECOM_AES_KEY。") from None


def xml_fields(document: str | bytes) -> dict[str, str]:
    """The child elements of a WeCom XML document as {tag: text}; CallbackRejected when it is not XML. The documents
    are WeCom's flat <xml><Tag>…</Tag></xml>; a DOCTYPE (entity tricks) is refused outright."""
    raw = document.encode("utf-8") if isinstance(document, str) else document
    if len(raw) > MAX_CALLBACK_BYTES:
        raise CallbackRejected("回调内容太大，不像企业微信发来的。")
    if b"<!DOCTYPE" in raw.upper() or b"<!ENTITY" in raw.upper():
        raise CallbackRejected("回调内容里有 DOCTYPE，不接受。")
    try:
        root = ET.fromstring(raw)
    except ET.ParseError:
        raise CallbackRejected("回调内容不是有效的 XML：请检查企业微信后台的回调地址是否填的是本服务。") from None
    return {child.tag: (child.text or "").strip() for child in root}
