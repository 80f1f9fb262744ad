"""Issue #41's figures for the 资料缺口 board (finding 4, and finding 8's GapStore part): one measured line per finding
and engine, for bench/security_checks.py's round-4 section (or run alone: `python -m bench.security_gaps`).

Each line does what the probe did, with real concurrent sessions where it raced (tests/db_race.py: two threads meet
just before their first write), on a fresh database per engine (SQLite, and PostgreSQL when
XIAOE_TEST_DATABASE_URL names a server), and counts what happened; nothing is a constant copied from a test.
"""

from __future__ import annotations

import argparse
import re

from core.errors import InvalidReview, StoreError, XiaoEError
from core.stores.db import Database
from core.stores.gaps import GapStore, TopicDraft
from core.stores.review_marks import question_hash
from tests.db_race import MeetBefore, race

CHINESE = re.compile(r"[\u4e00-\u9fff]")
ASKED, TOPIC = object(), object()  # a question the board shows, the topic's own id
ODD_MOVES = (("", TOPIC), ("   ", TOPIC), ("从没人问过的问题", TOPIC), ("学费\ud800能分期吗", TOPIC), ("问\x00题", TOPIC),
             (None, TOPIC), (ASKED, 2**63), (ASKED, 0), (ASKED, "1"), (ASKED, True))


def _topics(gaps: GapStore, n: int, *labels: str) -> tuple[tuple[int, ...], list[str]]:
    """Open topics named `labels`, three questions each (round `n` keeps them apart); the ids and the questions."""
    questions = [f"第{n}轮{label}问题{i}" for label in labels for i in range(3)]
    drafts = [TopicDraft(label, (label,), tuple(question_hash(q) for q in questions[3 * j:3 * j + 3]),
                         tuple(questions[3 * j:3 * j + 3])) for j, label in enumerate(labels)]
    return gaps.sync(drafts), questions


def finding4_move_race(url: str, rounds: int = 5) -> str:
    """One question moved into two topics at once: in how many rounds does it end in exactly one."""
    db = Database(url, busy_timeout_ms=20_000)
    gaps = GapStore(db)
    single = 0
    for n in range(rounds):
        (_, into_a, into_b), questions = _topics(gaps, n, f"源{n}", f"甲{n}", f"乙{n}")
        moved = questions[1]
        with MeetBefore(db.engine, r"^\s*DELETE FROM gap_members"):
            race(lambda q=moved, t=into_a: gaps.move(q, t, actor="王校长"),
                 lambda q=moved, t=into_b: gaps.move(q, t, actor="李老师"))
        single += sum(question_hash(questions[1]) in t.keys for t in gaps.topics()) == 1
    db.dispose()
    return f"同一个问题同时移进两个话题：{single}/{rounds} 轮最后只在一个话题里（两个会话在写之前会合）"


def finding4_merged(url: str, rounds: int = 5) -> str:
    """Tidying into a topic merged away a moment ago: refused with a Chinese message, and it stays off the board."""
    db = Database(url, busy_timeout_ms=20_000)
    gaps = GapStore(db)
    refused = tries = back = 0
    for n in range(rounds):
        (kept, merged, other), questions = _topics(gaps, n, f"留{n}", f"并{n}", f"别{n}")
        gaps.merge(merged, kept, actor="王校长")
        for late in (lambda q=questions[7], t=merged: gaps.move(q, t, actor="李老师"),
                     lambda o=other, t=merged: gaps.merge(o, t, actor="李老师")):
            tries += 1
            try:
                late()
            except InvalidReview as error:
                refused += bool(CHINESE.search(str(error)))
        back += any(t.id == merged for t in gaps.topics())
    db.dispose()
    return (f"往刚并走的话题里移问题或并话题：{refused}/{tries} 次被拒绝并给出中文提示，"
            f"并走的话题回到看板上 {back}/{rounds} 次")


def finding8_odd_moves(url: str) -> str:
    """`GapStore.move` with empty, unknown, surrogate or NUL questions and str, bool or out-of-range ids."""
    db = Database(url, busy_timeout_ms=20_000)
    gaps = GapStore(db)
    (topic,), questions = _topics(gaps, 0, "分期")
    before = gaps.topics()
    refused = crashed = accepted = 0
    for question, into in ODD_MOVES:
        try:
            gaps.move(questions[0] if question is ASKED else question, topic if into is TOPIC else into, actor="王校长")
            accepted += 1
        except (InvalidReview, StoreError) as error:
            refused += bool(CHINESE.search(str(error)))
        except Exception:  # noqa: BLE001 - counted: a traceback is what the finding was about
            crashed += 1
    unchanged = gaps.topics() == before
    db.dispose()
    return (f"GapStore.move 的 {len(ODD_MOVES)} 种不合理输入：{refused} 种被拒绝并给出中文提示，接受 {accepted} 种，"
            f"抛出其他异常 {crashed} 种；话题{'没有' if unchanged else '有'}改变")


FINDINGS = (("4 话题整理的竞争", finding4_move_race), ("4 并走的话题关闭", finding4_merged),
            ("8 GapStore.move 的输入", finding8_odd_moves))


def lines(engines) -> list[str]:
    """One line per finding and engine; `engines` are (name, fresh URL factory) as bench.security_checks gives them."""
    out = []
    for title, check in FINDINGS:
        for engine, fresh in engines:
            try:
                with fresh() as url:
                    out.append(f"#41-{title}（{engine}）：{check(url)}")
            except (XiaoEError, OSError, RuntimeError) as error:
                out.append(f"#41-{title}（{engine}）：测量失败：{error}")
    return out


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    from bench.security_checks import fresh_databases

    print("## Issue #41: the gap board (findings 4 and 8)")
    for line in lines(fresh_databases()):
        print(line)


if __name__ == "__main__":
    main()
