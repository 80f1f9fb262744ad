"""Keyed sliders whose values the page sets through session state: the value the browser shows is the server's.

The Ask and tuning pages give each knob slider a key and set its value through `st.session_state` (the knobs
in force, once per session), never through `value=`. Seen in the browser (tests/e2e/test_ask_knobs_e2e.py):
in about one new session in three, after the first question the sliders came back at their minimums (k 1,
coverage floor 0, absent-word ceiling 0) while the server still held the knobs in force, and the next move of
any slider sent those minimums back, so the gate silently decided at knobs nobody chose. Writing each value
back into session state on every run makes the script send it with the widget each time, so the browser always
redraws the server's value.
"""

from __future__ import annotations

from collections.abc import Iterable

import streamlit as st


def hold(keys: Iterable[str]) -> None:
    """Write each key's session value back (a no-op for the value; it makes this run send it to the browser)."""
    for key in keys:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]
