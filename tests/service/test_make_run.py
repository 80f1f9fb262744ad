"""`make run` (tools/run.sh): the console and the student service start together on the embedded default, and one
Ctrl-C — SIGINT to the terminal's whole foreground group — stops both, leaving no process behind (#39: "starts the
console and the service together … and stops both on Ctrl-C"); when one of them stops on its own, the other is stopped
too. Run as the Makefile runs it, in a process group of its own with SIGINT at its default, on free ports and a
temporary data folder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import httpx
import pytest

from tests.env import without_console_settings
from tests.paths import CORPUS, ROOT
from tests.service.harness import START_TIMEOUT, free_port


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2, trust_env=False).status_code == 200
    except httpx.HTTPError:
        return False


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def _start(tmp_path):
    """tools/run.sh as `make run` starts it, in a process group of its own with SIGINT at its default (a terminal's);
    returns the process, the two URLs and the two children (the service, the console) once both answer."""
    console_port, service_port = free_port(), free_port()
    env = {**without_console_settings(), "XIAOE_DATA_DIR": str(tmp_path / "data"), "XIAOE_CORPUS_DIR": str(CORPUS),
           "XIAOE_DATABASE_URL": f"sqlite:///{tmp_path / 'run.sqlite3'}", "NO_PROXY": "127.0.0.1,localhost",
           "PY": sys.executable, "PORT": str(console_port), "SERVICE_PORT": str(service_port)}
    run = subprocess.Popen(["bash", "tools/run.sh"], cwd=ROOT, env=env, start_new_session=True,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    urls = (f"http://127.0.0.1:{service_port}/v1/health", f"http://127.0.0.1:{console_port}/")
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline and run.poll() is None and not all(_answers(u) for u in urls):
        time.sleep(0.3)
    assert run.poll() is None, run.stdout.read().decode(errors="replace")[-3000:]
    assert all(_answers(u) for u in urls), "两个进程没有在时限内都就绪"
    children = _children(run.pid)
    service = next(pid for pid, cmd in children.items() if b"serve" in cmd)
    console = next(pid for pid, cmd in children.items() if b"streamlit" in cmd)
    return run, urls, (service, console)


def _children(parent: int) -> dict[int, bytes]:
    """{pid: command line} of `parent`'s children, read from /proc (no procps needed)."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                ppid = int(handle.read().rsplit(b")", 1)[1].split()[1])  # the field after the state
            if ppid == parent:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    found[int(entry)] = handle.read()
        except (FileNotFoundError, ProcessLookupError):
            continue  # a process that ended while being read
    return found


def _kill_group(run: subprocess.Popen) -> None:
    """Whatever is left of the group (a failed test must not leave a console running)."""
    try:
        os.killpg(run.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass  # the group is empty: everything stopped
    run.wait(timeout=10)


def _all_gone(pids, seconds: float = 30) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not all(_gone(pid) for pid in pids):
        time.sleep(0.2)
    return all(_gone(pid) for pid in pids)


@pytest.mark.skipif(sys.platform == "win32", reason="process groups and SIGINT as a terminal sends them")
def test_make_run_starts_console_and_service_and_one_ctrl_c_stops_both(tmp_path):
    run, urls, children = _start(tmp_path)
    try:
        os.killpg(run.pid, signal.SIGINT)  # Ctrl-C in the terminal
        run.wait(timeout=30)
        assert _all_gone(children), "Ctrl-C 之后还有进程没停"
        assert not any(_answers(u) for u in urls)
    finally:
        _kill_group(run)


@pytest.mark.skipif(sys.platform == "win32", reason="process groups")
def test_make_run_stops_the_console_when_the_service_stops_on_its_own(tmp_path):
    # the pair never runs half: when the student service dies, the console is stopped too
    run, urls, (service, console) = _start(tmp_path)
    try:
        os.kill(service, signal.SIGTERM)
        run.wait(timeout=30)
        assert _all_gone((service, console)), "学员服务停了，控制台还在跑"
        assert not any(_answers(u) for u in urls)
    finally:
        _kill_group(run)
