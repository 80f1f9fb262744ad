"""Only real-browser tests may run a second time after a failure (tests/e2e/conftest.py): every other test
fails the run the first time it fails."""

from __future__ import annotations

import pytest


def test_only_browser_tests_are_run_again_after_a_failure(request):
    items = request.session.items
    if not any(item.get_closest_marker("e2e") for item in items):
        pytest.skip("这次没有收集浏览器测试")
    rerun = [item for item in items if item.get_closest_marker("flaky")]
    assert rerun, "browser tests are collected, so they carry the rerun marker"
    assert all(item.get_closest_marker("e2e") for item in rerun), [i.nodeid for i in rerun
                                                                  if not i.get_closest_marker("e2e")]
    assert all(item.get_closest_marker("flaky").kwargs.get("reruns") == 1 for item in rerun)
