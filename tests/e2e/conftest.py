"""Browser fixtures: a real `streamlit run` on a free loopback port, driven by Debian's chromium.

`start_server(extra_env=..., corpus=...)` (the `start_server` fixture) starts one more server
with its own data folder, e.g. with a scripted model behind XIAOE_LLM_BASE_URL, or with
XIAOE_AUTH=on (servers start with the login gate off unless extra_env says otherwise); every server
started is terminated at the end of the session. Tests here are marked `e2e` and skipped only
when /usr/bin/chromium is absent.
"""

from __future__ import annotations

import os
import shutil
import socket
import ssl
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.env import without_console_settings
from tests.paths import CORPUS, ROOT

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
VIEWPORT = {"width": 1400, "height": 1000}
IDLE = "[data-testid=stApp][data-test-script-state=notRunning]"
START_TIMEOUT = 30.0
HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skip = pytest.mark.skip(reason="没有 /usr/bin/chromium：浏览器测试跳过（apt-get install -y chromium）")
    for item in items:
        if HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.e2e)
            # A real browser on a busy 2-core machine now and then misses one 30 s wait (a lost key press, a
            # rerun that settles late); such a test runs once more (an R in the progress line, 「1 rerun」 in the total). A failure
            # that repeats still fails the run. Only browser tests get this (tests/test_e2e_reruns.py).
            item.add_marker(pytest.mark.flaky(reruns=1, reruns_delay=2))
            if not CHROMIUM.exists():
                item.add_marker(skip)


@dataclass
class Server:
    """One running console: its URL, data and corpus folders, log file and process."""

    url: str
    data_dir: Path
    corpus_dir: Path
    log: Path
    process: subprocess.Popen

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    """A throwaway certificate for 127.0.0.1 (openssl), for the HTTPS-only cookie rules."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    return cert, key


def launch(workdir: Path, *, extra_env: dict[str, str] | None = None, corpus: Path | None = None,
           https: bool = False) -> Server:
    """Start `streamlit run streamlit_app.py` with data (and a corpus copy) under `workdir`; `https` serves it
    with a self-signed certificate (the browser context must then ignore certificate errors)."""
    data, corpus_dir = workdir / "data", workdir / "corpus"
    data.mkdir(parents=True, exist_ok=True)
    if not corpus_dir.exists():
        shutil.copytree(corpus or CORPUS, corpus_dir)
    port = free_port()
    env = without_console_settings()
    env.update({"XIAOE_DATA_DIR": str(data), "XIAOE_CORPUS_DIR": str(corpus_dir),
                "NO_PROXY": "127.0.0.1,localhost", "PYTHONUNBUFFERED": "1",
                "XIAOE_AUTH": "off"})  # no login gate unless a test passes extra_env={"XIAOE_AUTH": "on"}
    env.update(extra_env or {})
    if https:
        cert, key = self_signed_certificate(workdir)
        env.update({"STREAMLIT_SERVER_SSL_CERT_FILE": str(cert), "STREAMLIT_SERVER_SSL_KEY_FILE": str(key)})
    log = workdir / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "streamlit_app.py", "--server.headless", "true",
             "--server.port", str(port), "--server.address", "127.0.0.1",
             "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    server = Server(f"{'https' if https else 'http'}://127.0.0.1:{port}", data, corpus_dir, log, process)
    unverified = ssl._create_unverified_context() if https else None  # our own throwaway certificate
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"streamlit 进程退出了（{process.returncode}）：\n{server.log_text()}")
        try:
            with urllib.request.urlopen(f"{server.url}/_stcore/health", timeout=1, context=unverified) as reply:
                if reply.read().decode().strip() == "ok":
                    return server
        except OSError:
            time.sleep(0.1)
    server.stop()
    raise RuntimeError(f"streamlit 在 {START_TIMEOUT:.0f} 秒内没有就绪：\n{server.log_text()}")


@pytest.fixture(scope="session")
def start_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., Server]]:
    """Factory: `start_server(extra_env={...}, corpus=Path(...), https=False)` → a running Server."""
    servers: list[Server] = []

    def start(*, extra_env: dict[str, str] | None = None, corpus: Path | None = None, https: bool = False) -> Server:
        server = launch(tmp_path_factory.mktemp("server"), extra_env=extra_env, corpus=corpus, https=https)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture(scope="session")
def app_server(start_server: Callable[..., Server]) -> Server:
    """The console on a copy of the shipped corpus with the offline answerer."""
    return start_server()


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def page(browser) -> Iterator[object]:
    """A fresh browser context (its own Streamlit session) with a 1400×1000 viewport."""
    context = browser.new_context(viewport=VIEWPORT, locale="zh-CN")
    context.set_default_timeout(30_000)
    tab = context.new_page()
    yield tab
    context.close()


def wait_idle(page) -> None:
    """Wait until Streamlit has finished the current script run (and has started at least once)."""
    page.wait_for_selector(IDLE, timeout=60_000)  # an upper bound only: a busy 2-core machine needs it


@pytest.fixture
def idle() -> Callable[[object], None]:
    """`idle(page)` waits until the app's script run has finished."""
    return wait_idle


SCREENSHOTS_ENV = "XIAOE_SCREENSHOTS"  # `make screenshots` sets it to docs/screenshots


def doc_shot(page, name: str) -> None:
    """Save a screenshot for the docs only when asked (`make screenshots`), never as a test side effect."""
    target = os.environ.get(SCREENSHOTS_ENV)
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(target) / name))


@contextmanager
def scripted_model_server(start_server: Callable[..., Server], reply: str) -> Iterator[tuple[Server, object]]:
    """A console whose chat model (XIAOE_LLM_BASE_URL) is a local fake answering `reply`; the fake closes after."""
    from tests.fake_openai import FakeOpenAI

    fake = FakeOpenAI(reply=reply)
    try:
        yield start_server(extra_env={"XIAOE_LLM_BASE_URL": fake.base_url, "XIAOE_LLM_MODEL": "scripted",
                                      "XIAOE_LLM_API_KEY": "sk-test-not-a-real-key", "XIAOE_LLM_MAX_RETRIES": "0"}), fake
    finally:
        fake.close()


def act_until_visible(act: Callable[[], None], locator, *, tries: int, timeout_ms: int) -> bool:
    """Do `act` until `locator` shows (each try waits `timeout_ms`); True once it did. For what a busy machine may
    miss once: a key press lost during a rerun, an edit the index holder has not picked up on its 2 s poll yet."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for _ in range(tries):
        act()
        try:
            locator.first.wait_for(timeout=timeout_ms)
            return True
        except PlaywrightTimeout:
            continue
    return False
