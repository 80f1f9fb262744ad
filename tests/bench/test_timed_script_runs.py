"""bench.tuning_speed.timed_script_runs: what the tuning and runs-compare benches time (one row per script run)."""

from __future__ import annotations

from streamlit.runtime.scriptrunner import script_runner
from streamlit.testing.v1 import AppTest

from bench.tuning_speed import timed_script_runs


def test_each_script_run_inside_the_block_is_timed_and_the_runner_is_restored_after():
    original = script_runner.ScriptRunner._run_script_thread
    at = AppTest.from_string("import streamlit as st\nst.write('一')")
    with timed_script_runs() as runs:
        at.run()
        at.run()
    assert len(runs) == 2 and all(wall > 0 and cpu >= 0 for wall, cpu in runs)
    assert script_runner.ScriptRunner._run_script_thread is original
    at.run()
    assert len(runs) == 2
