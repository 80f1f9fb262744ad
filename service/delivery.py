"""The webhook worker: POST each released message to its key's webhook, signed, until the App says 2xx.

Every instance runs one; they share the outbox, and a row is claimed with a lease (core.stores.outbox.claim_due)
before it is sent, so two instances never send it at the same time. A POST that fails is retried with an
exponential back-off; a crash after the POST and before `mark_sent` lets the lease run out and the row is sent
again with the same `delivery_id`, which the App uses to drop the repeat. The signature is
`X-Xiaoe-Signature: sha256=<hex HMAC-SHA256 of the raw body with the key's webhook secret>`.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import threading
import time
from datetime import timedelta

import httpx

from core.clock import utcnow
from core.settings import Settings
from core.stores.db import Database
from core.stores.exchange_schema import EXCHANGES_SCHEMA
from core.stores.outbox import Due, claim_due, mark_failed, mark_sent
from core.stores.rate_limits import prune

LOG = logging.getLogger("xiaoe.delivery")
IDLE_S = 0.5
PRUNE_EVERY_S = 60.0


def body_of(due: Due) -> bytes:
    """The JSON a webhook receives for one released message."""
    released = due.released
    return json.dumps({"event": "message.released", "delivery_id": released.delivery_id,
                       "conversation_id": released.conversation_id, "user": released.user,
                       "message": released.to_dict()}, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def signature(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


class DeliveryWorker:
    """A daemon thread delivering due outbox rows; `stop()` ends it (it finishes the POST in hand)."""

    def __init__(self, settings: Settings, db: Database) -> None:
        self.settings = settings
        self.db = db
        db.migrate(EXCHANGES_SCHEMA)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._client = httpx.Client(timeout=settings.webhook_timeout_s, follow_redirects=False, trust_env=False)
        self._pruned = 0.0

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="xiaoe-webhooks", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=self.settings.webhook_timeout_s + 2)
        self._client.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                sent = self.deliver_due()
            except Exception:  # the database was unreachable: log it and try again, never end the worker
                LOG.exception("webhook delivery round failed")
                sent = 0
            if not sent:
                self._stop.wait(IDLE_S)

    def deliver_due(self) -> int:
        """One round: claim what is due, POST each, record the result; how many were claimed."""
        now = utcnow()
        if time.monotonic() - self._pruned > PRUNE_EVERY_S:
            with self.db.transaction("清理限流计数") as conn:
                prune(conn, now)
            self._pruned = time.monotonic()
        with self.db.transaction("领取待推送的消息") as conn:
            due = claim_due(conn, now, timedelta(seconds=self.settings.webhook_lease_s))
        for item in due:
            self._deliver(item)
        return len(due)

    def _deliver(self, due: Due) -> None:
        body = body_of(due)
        headers = {"Content-Type": "application/json; charset=utf-8", "X-Xiaoe-Signature": signature(due.secret, body),
                   "X-Xiaoe-Delivery": due.released.delivery_id, "User-Agent": "xiaoe-service"}
        try:
            answer = self._client.post(due.url, content=body, headers=headers)
            problem = "" if 200 <= answer.status_code < 300 else f"HTTP {answer.status_code}"
        except httpx.HTTPError as error:
            problem = f"{type(error).__name__}: {error}"
        with self.db.transaction("记录推送结果") as conn:
            if problem:
                LOG.warning("webhook %s attempt %d failed: %s", due.released.delivery_id, due.attempt, problem)
                mark_failed(conn, due.released.seq, due.attempt, problem, utcnow())
            else:
                mark_sent(conn, due.released.seq, utcnow())
