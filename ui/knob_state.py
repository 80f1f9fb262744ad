"""Keyed sliders whose values the page sets through session state: the value the browser shows is the server's.

The Ask and tuning pages give each knob slider a key and set its value through `st.session_state` (the knobs
in force, once per session), never through `value=`. Seen in the browser (tests/e2e/test_ask_knobs_e2e.py):
in about one new session in three, after the first question the sliders came back at their minimums (k 1,
coverage floor 0, absent-word ceiling 0) while the server still held the knobs in force, and the next move of
any slider sent those minimums back, so the gate silently decided at knobs nobody chose. `hold` writes each value
back into session state, so the script sends it with the widget and the browser redraws the server's value.
Not the slider being moved in this very run (`touched`, its on_change): writing its value back would pull the
thumb back to the first of several quick key presses while the later ones are still arriving.
"""

from __future__ import annotations

from collections.abc import Iterable

import streamlit as st

TOUCHED = "_knob_touched"


def touched(key: str) -> None:
    """A slider's on_change: this run was started by moving it, so `hold` leaves its value to the browser."""
    st.session_state[TOUCHED] = key


def hold(keys: Iterable[str]) -> None:
    """Write each key's session value back (a no-op for the value; it makes this run send it to the browser),
    except the slider this run's move came from."""
    moving = st.session_state.pop(TOUCHED, None)
    for key in keys:
        if key in st.session_state and key != moving:
            st.session_state[key] = st.session_state[key]
