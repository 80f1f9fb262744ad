"""bench.followups: the odd / even halves of a threads file (one to develop on, one held back)."""

from __future__ import annotations

from bench.followups import half


def test_half_keeps_the_threads_of_one_parity():
    threads = {"1": [{"turn": "1"}], "2": [{"turn": "1"}], "13": [{"turn": "1"}], "T004": [{"turn": "1"}],
               "T017": [{"turn": "1"}], "x": [{"turn": "1"}]}  # followups_v5 and v6 number their threads T001 …
    assert sorted(half(threads, "odd")) == ["1", "13", "T017"]
    assert sorted(half(threads, "even")) == ["2", "T004"]
    assert half(threads, "all") is threads
