"""The WeChat channel's threads in one instance: one per 客服账号, each running rounds of WeComChannel for its account
while this instance holds the account's lease, and asking for the lease now and then while another instance holds it.

A callback received by this instance wakes its account's thread at once; other instances see the callback in the
database at their next round. On stop the leases are given up, so another instance takes over without waiting.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid

from core.errors import XiaoEError
from core.settings import Settings
from core.stores.api_keys import KeyStore
from core.stores.db import Database
from core.stores.review import ReviewStore
from core.stores.wecom_inbox import WeComInbox
from core.stores.wecom_outbox import WeComOutbox
from service.wecom.channel import WeComChannel
from service.wecom.client import WeComClient
from service.wecom.crypto import WeComCrypto

LOG = logging.getLogger("xiaoe.wecom")
HOLDER_IDLE_S = 0.5  # between rounds while this instance holds the account
WAITER_IDLE_S = 2.0  # between asking for the lease while another instance holds it


def not_ready(settings: Settings, db: Database) -> str | None:
    """Why the channel cannot start (in Chinese, saying what to do), or None: its API key must exist and be live."""
    try:
        key = KeyStore(db).by_name(settings.wecom_key)
    except XiaoEError as error:
        return (f"微信客服已开启（XIAOE_WECOM_CORP_ID），但用不了接口密钥「{settings.wecom_key}」：{error} 请先运行 "
                f"xiaoe keys add {settings.wecom_key} --release all（放行策略可选 all、flagged、auto），"
                "或用 XIAOE_WECOM_KEY 指定另一个密钥。")
    if key.revoked:
        return (f"微信客服用的接口密钥「{key.name}」已停用：请新建一个（xiaoe keys add 名称 --release all）并用 "
                "XIAOE_WECOM_KEY 指定它。")
    return None


class WeComWorker:
    """The channel in this instance: `start()`, `wake(open_kfid)` on a callback, `stop()`."""

    def __init__(self, settings: Settings, db: Database, desk) -> None:
        self.settings = settings
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.inbox = WeComInbox(db)
        self.outbox = WeComOutbox(db)
        self.crypto = WeComCrypto(settings.wecom_token, settings.wecom_aes_key, settings.wecom_corp_id)
        self.client = WeComClient(settings, self.inbox, owner=self.owner)
        self.channel = WeComChannel(settings, desk, self.client, self.inbox, self.outbox, ReviewStore(db),
                                    owner=self.owner)
        self._stop = threading.Event()
        self._wake = {kfid: threading.Event() for kfid in settings.wecom_kfids}
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        for kfid in self.settings.wecom_kfids:
            thread = threading.Thread(target=self._run, args=(kfid,), name=f"xiaoe-wecom-{kfid[:16]}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def wake(self, open_kfid: str) -> None:
        if open_kfid in self._wake:
            self._wake[open_kfid].set()

    def stop(self) -> None:
        self._stop.set()
        for event in self._wake.values():
            event.set()
        for thread in self._threads:
            thread.join(timeout=self.settings.wecom_timeout_s + 5)
        for kfid in self.settings.wecom_kfids:
            try:
                self.inbox.give_up(f"pull:{kfid}", self.owner)
            except Exception:  # the database is gone at shutdown: the lease simply runs out
                LOG.warning("没能交出微信客服账号 %s 的租约，它会在 %s 秒后自动失效", kfid, self.settings.wecom_lease_s)
        self.client.close()

    def _run(self, open_kfid: str) -> None:
        wake = self._wake[open_kfid]
        while not self._stop.is_set():
            try:
                holding = self.channel.round(open_kfid)
            except Exception:  # the database or WeCom was unreachable: log it and try again, never end the thread
                LOG.exception("微信客服账号 %s 这一轮出错", open_kfid)
                holding = False
            wake.wait(HOLDER_IDLE_S if holding else WAITER_IDLE_S)
            wake.clear()
