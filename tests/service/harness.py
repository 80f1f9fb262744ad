"""Real HTTP for the student service: `python -m core serve` as a child process on a free loopback port, a key made
in its database, an httpx client; and a webhook receiver (a small local HTTP server) that records every POST.

Tests end the child by its handle (`stop`, or `kill` for -9) and start another on the same database to see what a
second instance, or a restarted one, does.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx

from core.stores.api_keys import KeyStore
from core.stores.db import Database
from core.stores.roles import User
from tests.env import without_console_settings
from tests.paths import CORPUS, ROOT

START_TIMEOUT = 60.0


def within_one_window(needed_s: float = 15.0) -> None:
    """Wait, if need be, until at least `needed_s` seconds of the current rate-limit window are left: the limits count
    in fixed one-minute windows (core.stores.rate_limits), so requests a test counts must not straddle two of them."""
    from core.stores.rate_limits import WINDOW_S

    left = WINDOW_S - time.time() % WINDOW_S
    if left < needed_s:
        time.sleep(left + 0.5)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
ADMIN = User("admin", "admin", "admin")


@dataclass
class Service:
    """One running `xiaoe serve`: its URL, log and process."""

    url: str
    log: Path
    process: subprocess.Popen
    env: dict[str, str]

    def client(self, key: str | None = None, **options) -> httpx.Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30, trust_env=False, **options)

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)

    def kill(self) -> None:
        """kill -9: no shutdown, no cleanup, as a crash."""
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=5)


def start_service(folder: Path, database_url: str, extra_env: dict[str, str] | None = None,
                  corpus: Path = CORPUS, workers: int = 1) -> Service:
    """Start one instance on `database_url` with its data folder under `folder`; wait until /v1/health answers."""
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    env = {**without_console_settings(), "XIAOE_DATA_DIR": str(folder / f"data-{port}"),
           "XIAOE_CORPUS_DIR": str(corpus), "XIAOE_DATABASE_URL": database_url, "NO_PROXY": "127.0.0.1,localhost",
           "PYTHONUNBUFFERED": "1", **(extra_env or {})}
    log = folder / f"service-{port}.log"
    process = subprocess.Popen([sys.executable, "-m", "core", "serve", "--host", "127.0.0.1", "--port", str(port),
                                "--workers", str(workers)],
                               cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)
    service = Service(f"http://127.0.0.1:{port}", log, process, env)
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"服务没有启动（退出码 {process.returncode}）：\n{service.log_text()}")
        try:
            if httpx.get(f"{service.url}/v1/health", timeout=2, trust_env=False).status_code == 200:
                return service
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    service.stop()
    raise RuntimeError(f"服务 {START_TIMEOUT:.0f} 秒内没有就绪：\n{service.log_text()}")


def make_key(database_url: str, name: str = "app", **options) -> tuple[str, str]:
    """A new key in the service's database: (secret, webhook signing secret)."""
    db = Database(database_url)
    try:
        made = KeyStore(db).add(ADMIN, name, **options)
    finally:
        db.dispose()
    return made.secret, made.webhook_secret


def ask(client: httpx.Client, user: str, client_msg_id: str, query: str, conversation_id: str | None = None
        ) -> httpx.Response:
    return client.post("/v1/chat-messages", json={"user": user, "conversation_id": conversation_id,
                                                  "client_msg_id": client_msg_id, "query": query})


@dataclass
class Receiver:
    """A webhook receiver on 127.0.0.1 recording each POST (headers and body); `up=False` answers 503, `on_post`
    runs before the answer (a test kills the service there)."""

    server: ThreadingHTTPServer
    posts: list[dict] = field(default_factory=list)
    up: bool = True
    on_post: object = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def deliveries(self) -> list[str]:
        return [p["body"]["delivery_id"] for p in self.posts if p["status"] == 200]

    def wait_for(self, count: int, timeout: float = 30.0) -> list[dict]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if len([p for p in self.posts if p["status"] == 200]) >= count:
                return self.posts
            time.sleep(0.05)
        raise AssertionError(f"回调 {timeout:.0f} 秒内只收到 {len(self.posts)} 次：{self.posts}")

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def start_receiver() -> Receiver:
    holder: dict[str, Receiver] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the http.server name
            raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            receiver = holder["r"]
            if callable(receiver.on_post):
                receiver.on_post(raw)
            status = 200 if receiver.up else 503
            receiver.posts.append({"status": status, "raw": raw, "body": json.loads(raw),
                                   "signature": self.headers.get("X-Xiaoe-Signature", ""),
                                   "delivery": self.headers.get("X-Xiaoe-Delivery", "")})
            self.send_response(status)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *_args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver = Receiver(server)
    holder["r"] = receiver
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return receiver
