"""bench.followups: the odd / even halves of a threads file (one to develop on, one held back)."""

from __future__ import annotations

from bench.followups import half


def test_half_keeps_the_threads_of_one_parity():
    threads = {"1": [{"turn": "1"}], "2": [{"turn": "1"}], "13": [{"turn": "1"}], "T004": [{"turn": "1"}],
               "T017": [{"turn": "1"}], "x": [{"turn": "1"}]}  # followups_v5 and v6 number their threads T001 …
    assert sorted(half(threads, "odd")) == ["1", "13", "T017"]
    assert sorted(half(threads, "even")) == ["2", "T004"]
    assert half(threads, "all") is threads


def test_holds_reads_the_patterns_as_the_writers_state_them_letter_case_aside():
    from bench.followups import holds

    # 「匹配不区分大小写（App/app、小E/小e）」 (docs/blind/followups-v*-writer-notes.md)
    assert holds("未成年退费能自己在App上办吗", "未成年|孩子;退费|退款;app|手机", "")
    assert holds("小E能帮我办理退费吗", "小e|助教;退费", "报名")
    assert not holds("小E能帮我报名吗", "小e|助教;退费", "")
    assert not holds("在APP上退费", "退费", "app")
