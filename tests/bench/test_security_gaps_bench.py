"""bench/security_gaps.py measures what it says on a real database (one round each, both engines)."""

from __future__ import annotations

from bench.security_gaps import ODD_MOVES, finding4_merged, finding4_move_race, finding8_odd_moves


def test_security_gaps_lines_count_the_fixed_behaviour(database_url):
    assert finding4_move_race(database_url, rounds=1).endswith("1/1 轮最后只在一个话题里（两个会话在写之前会合）")
    assert "2/2 次被拒绝并给出中文提示，并走的话题回到看板上 0/1 次" in finding4_merged(database_url, rounds=1)
    assert f"{len(ODD_MOVES)} 种被拒绝并给出中文提示，接受 0 种，抛出其他异常 0 种；话题没有改变" in finding8_odd_moves(database_url)
