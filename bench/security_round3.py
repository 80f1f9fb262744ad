"""Issue #29's figures for bench/security_checks.py: one measured line per item, on each engine where storage is involved.

Each function does the thing the item is about, against the real stores on a fresh database, and returns
the Chinese line with the number it measured; nothing here is a constant copied from a test.
"""

from __future__ import annotations

import io
import ipaddress
import logging
import random
import re
import tempfile
from pathlib import Path

from sqlalchemy import func, select

from core.errors import AccountError, AccountLocked, AuthError, XiaoEError
from core.stores.accounts import AccountStore
from core.stores.client_address import client_source
from core.stores.db import Database
from core.stores.sessions import SessionStore, sessions
from tests.auth_helpers import FAST_HASHER, PASSWORD, Clock, add_staff

LOOPBACK = [ipaddress.ip_network("127.0.0.1/32"), ipaddress.ip_network("::1/128")]


def _signer(url: str, clock: Clock | None = None) -> SessionStore:
    accounts = AccountStore(Database(url, busy_timeout_ms=20_000), hasher=FAST_HASHER, now=clock or Clock())
    add_staff(accounts)
    return SessionStore(accounts, now=clock or Clock())


def item1_unknown_source(url: str) -> str:
    clock = Clock()
    signer = _signer(url, clock)
    for n in range(20):
        try:
            signer.sign_in(f"nobody{random.randrange(10**9)}-{n}", "wrong-password-x", source=None)
        except AuthError:
            pass
    try:
        signer.sign_in("boss", PASSWORD, source=None)
        admin = "管理员照常登录"
    except AccountLocked:
        admin = "管理员被拒（锁定）"
    waits = []
    for _ in range(12):
        try:
            signer.sign_in("amy", "wrong-password-x", source=None)
        except AuthError:
            pass
        until = signer.locked_until("amy")
        waits.append(round((until - clock.now).total_seconds()) if until else 0)
        clock.advance(seconds=waits[-1])
    source_locks = sum(1 for lock in signer.locks() if lock.kind == "source")
    behind = client_source(None, "198.51.100.1, 203.0.113.9", LOOPBACK)
    signer.db.dispose()
    return (f"未知来源 20 次随机用户名输错后：{admin}，来源锁 {source_locks} 个；同一用户名连续输错的等待（秒）："
            f"{','.join(str(w) for w in waits if w)}；nginx 后 X-Forwarded-For「198.51.100.1, 203.0.113.9」→ 来源 {behind}")


def item2_sessions_end(url: str) -> str:
    clock = Clock()
    signer = _signer(url, clock)
    accounts = signer.accounts
    accounts.add("chief", PASSWORD, actor="bench", role="admin")
    ended = {}
    for action, run in (("重设密码", lambda: accounts.set_password("amy", "another secret 7", actor="bench")),
                        ("降为顾问", lambda: accounts.set_role("chief", "consultant", actor="bench")),
                        ("停用", lambda: accounts.set_disabled("amy", True, actor="bench"))):
        name = "chief" if action == "降为顾问" else "amy"
        password = "another secret 7" if action == "停用" else PASSWORD
        for _ in range(3):
            signer.sign_in(name, password)
        run()
        with signer.db.read() as conn:
            live = conn.execute(select(func.count()).select_from(sessions).where(
                sessions.c.username == name, sessions.c.ended_at.is_(None))).scalar_one()
        ended[action] = 3 - live
    session = signer.sign_in("boss", PASSWORD)
    hours = 0
    try:
        while True:
            clock.advance(hours=7)
            hours += 7
            signer.resume(session.token)
    except AuthError:
        pass
    clock.advance(days=2)
    with signer.db.read() as conn:
        rows_before = conn.execute(select(func.count()).select_from(sessions)).scalar_one()
    SessionStore(accounts, now=clock).sign_in("boss", PASSWORD)
    with signer.db.read() as conn:
        rows_after = conn.execute(select(func.count()).select_from(sessions)).scalar_one()
    signer.db.dispose()
    return ("三个登录中被结束的：" + "、".join(f"{k} {v}/3" for k, v in ended.items())
            + f"；每 7 小时用一次的会话在第 {hours} 小时被拒（有效期 168 小时）；两天后清理：会话行 {rows_before} → {rows_after}")


def item3_labels() -> str:
    from tests.security.test_29_03_markdown_labels import labels, safe

    found = labels()
    unsafe = [f"{file}:{line}" for file, line, _, label in found if not safe(label, file)]
    return f"控件标签 {len(found)} 处（按钮、折叠框、提示、标签页、选择框等），未转义的 {len(unsafe)} 处" + (
        f"：{'、'.join(unsafe)}" if unsafe else "")


def item4_races(url: str, rounds: int = 4) -> str:
    db = Database(url, busy_timeout_ms=20_000)
    one_winner = sum(_glossary_round(db, n) for n in range(rounds))
    one_admin = sum(_admins_round(db, n) for n in range(rounds))
    db.dispose()
    return (f"同一提议同时批准和驳回：{one_winner}/{rounds} 轮恰好一方成功；两名管理员同时互相降级：{one_admin}/{rounds} 轮"
            "剩下 1 名管理员（两个线程在写之前会合）")


def _glossary_round(db: Database, n: int) -> bool:
    from core.stores.glossary_admin import GlossaryAdmin
    from core.stores.roles import User
    from tests.db_race import MeetBefore, race

    glossary = GlossaryAdmin(db)
    proposal = glossary.propose(User("amy", "amy", "consultant"), "退费", f"退钱呀{n}").proposal_id
    with MeetBefore(db.engine, r"^\s*UPDATE glossary_proposals"):
        outcomes = race(lambda: glossary.approve(User("boss", "boss", "admin"), proposal),
                        lambda: glossary.reject(User("chief", "chief", "admin"), proposal))
    return sum(not isinstance(o, BaseException) for o in outcomes) == 1


def _admins_round(db: Database, n: int) -> bool:
    from tests.db_race import MeetBefore, race

    accounts = AccountStore(db, hasher=FAST_HASHER)
    a, b = f"ann{n}", f"ben{n}"
    for name in (a, b):
        accounts.add(name, PASSWORD, actor="bench", role="admin")
    for other in accounts.list():  # only these two are usable admins in this round
        if other.role == "admin" and other.username not in (a, b):
            accounts.set_role(other.username, "consultant", actor="bench")
    with MeetBefore(db.engine, r"^\s*UPDATE accounts SET role"):
        race(lambda: accounts.set_role(b, "consultant", actor=a), lambda: accounts.set_role(a, "consultant", actor=b))
    return sum(1 for x in accounts.list() if x.role == "admin" and not x.disabled) == 1


def item5_non_utf8(url: str) -> str:
    from core.stores.corpus_sync import instance_name, refusals, sync_corpus
    from core.stores.corpus_versions import corpus_versions

    db = Database(url)
    logging.getLogger("core.stores.corpus_sync").setLevel(logging.ERROR)  # the refusal's log line is expected here
    with tempfile.TemporaryDirectory() as folder:
        a, b = Path(folder) / "a", Path(folder) / "b"
        a.mkdir()
        b.mkdir()
        (a / "01-退费.md").write_text("# 退费\n\n开课前可全额退费。\n", encoding="utf-8")
        (a / "02-转班.md").write_bytes("# 转班\n\n转班需要提前一周申请。\n".encode("gbk"))
        sync_corpus(db, a)
        sync_corpus(db, b)
        with db.read() as conn:
            recorded = conn.execute(select(func.count()).select_from(corpus_versions).where(
                corpus_versions.c.source == "02-转班.md")).scalar_one()
        spread = len(list(b.glob("02-*.md")))
        seen = len(refusals(db, other_than=instance_name(b)))
    db.dispose()
    return f"GBK 文件：记为版本 {recorded} 个，写到另一台审核台 {spread} 个，另一台页面上能看到的问题 {seen} 条（含文件名和审核台）"


def item6_exports(url: str) -> str:
    import openpyxl

    from core.answerability.glossary import InvalidGlossary
    from core.stores.corpus_admin import CorpusAdmin
    from core.stores.glossary_admin import GlossaryAdmin
    from core.stores.review import ReviewStore
    from core.stores.roles import User
    from tests.outcomes import outcome_of
    from tests.security.helpers import flagged_answer

    db = Database(url)
    admin = User("boss", "boss", "admin")
    with tempfile.TemporaryDirectory() as folder:
        store = ReviewStore(db)
        store.record(outcome_of(flagged_answer(question="退费\x1b[31m怎么算\v第二段？"), "fp"))
        target = Path(folder) / "q.xlsx"
        rows = store.export(target)
        cells = [c.value for c in next(openpyxl.load_workbook(target).active.iter_rows(min_row=2, max_row=2))]
        pictures = sum("\u241b" in str(c) or "\u240b" in str(c) for c in cells)
        try:
            GlossaryAdmin(db).import_csv(admin, ("标准词,同义词\n退费,退钱钱\n转班,\"" + "长" * 140_000 + "\"\n").encode())
            csv_said = "没有报错"
        except InvalidGlossary as error:
            found = re.search(r"第 \d+ 行[^，。]*", str(error))
            csv_said = found.group() if found else str(error)[:30]
        corpus = Path(folder) / "corpus"
        corpus.mkdir()
        repaired = CorpusAdmin(db, corpus).save(admin, "x.md", "# a\n\n\ud800b\n").repaired
    db.dispose()
    return (f"含 ESC、\\v 的条目导出 xlsx：{rows} 行，{pictures} 格显示为控制符号；14 万字的 CSV 单元格：「{csv_said}…」；"
            f"资料保存里的单独代理字符：换成 U+FFFD {repaired} 个")


WEAK = [("li.lei", "Password1!"), ("li.lei", "iloveyou12"), ("li.lei", "q1w2e3r4t5"), ("li.lei", "PASSWORD12"),
        ("boss2", "boss2-admin"), ("li.lei", "Welcome-2025"), ("li.lei", "woaini1314"), ("zhang.wei", "zhang.wei1987"),
        ("li.lei", "1qaz2wsx3edc4rfv"), ("chen", "xx-nehc-yy-42")]


def item7_passwords(url: str) -> str:
    from core.stores.password_policy import common_passwords

    accounts = AccountStore(Database(url), hasher=FAST_HASHER)
    accounts.add("admin", PASSWORD, actor="bench", role="admin")
    accounts.add("ace", PASSWORD, actor="bench")
    refused = 0
    for name, password in WEAK:
        try:
            accounts.add(name, password, actor="bench")
        except AccountError:
            refused += 1
    looks = 0
    for name in ("\u0430dmin", "p\u0430ypal", "\u0430\u0441\u0435"):
        try:
            accounts.add(name, PASSWORD, actor="bench")
        except AccountError:
            looks += 1
    accounts.db.dispose()
    return (f"弱密码 {refused}/{len(WEAK)} 被拒（Password1!、iloveyou12、q1w2e3r4t5、PASSWORD12、boss2-admin…）；常见密码表 "
            f"{len(common_passwords()):,} 条；形近用户名 {looks}/3 被拒（аdmin、pаypal、асе）")


def item8_cookie() -> str:
    from ui.session_cookie import cookie_script, secure_name, token_from

    script = cookie_script("A" * 43, "/")
    flags = [flag for flag in ("Secure", "Path=/", "SameSite=Strict") if flag in script]
    planted = token_from({"xiaoe_session": "B" * 43}, https=True, path="/")
    return (f"HTTPS 上的名字 {secure_name('/')}，属性 {'; '.join(flags)}；HTTPS 页面读到的种下的 xiaoe_session："
            f"{'无' if planted is None else '有'}；HttpOnly：Streamlit 写不了（见 docs/accounts.md）")


def item9_disabled(url: str) -> str:
    from core.stores import audit

    signer = _signer(url)
    signer.accounts.set_disabled("amy", True, actor="bench")
    said = []
    for password, source in ((PASSWORD, "198.51.100.7"), ("wrong password", "192.0.2.1")):
        try:
            signer.sign_in("amy", password, source=source)
        except AuthError as error:
            said.append(str(error))
    audited = len(audit.recent(signer.db, action="login_disabled", target="amy"))
    signer.db.dispose()
    return f"已停用账号：密码对与密码错的回答{'完全相同' if len(set(said)) == 1 else '不同'}，操作记录 {audited} 条"


def item10_page() -> str:
    from bench.page_profile import measured

    found = measured()
    sign_in = sum(n for table, n in found["statements"].items() if table in ("sessions", "accounts"))
    defaults = found["statements"].get("default_changes", 0)
    return (f"一次已登录的提问重跑 {found['total']} 条语句：登录相关 {sign_in} 条，已保存默认值 {defaults} 条，"
            f"同义词表 {found['statements'].get('glossary_entries', 0)} 条；p50/p95 见 python -m bench.load")


def item11_progress() -> str:
    import sys

    from core.cli.eval_model import progress_bar
    from core.cli.parser import EscapingStream

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    shown = {}
    saved = sys.stderr
    try:
        for kind, raw in (("终端", Terminal()), ("管道", io.StringIO())):
            sys.stderr = EscapingStream(raw)
            for done in range(5):
                progress_bar(done, 4)
            shown[kind] = raw.getvalue()
    finally:
        sys.stderr = saved
    return (f"终端：{shown['终端'].count(chr(13))} 次回车重画、{shown['终端'].count(chr(10))} 个换行、字面 \\u000d "
            f"{shown['终端'].count('u000d')} 个；管道：{len(shown['管道'].splitlines())} 行")


ITEMS = [("1 来源未知的限流", item1_unknown_source, True), ("2 会话随账号变动结束", item2_sessions_end, True),
         ("3 标签不渲染 Markdown", item3_labels, False), ("4 原子的决定", item4_races, True),
         ("5 非 UTF-8 资料", item5_non_utf8, True), ("6 导出不崩溃", item6_exports, True),
         ("7 密码与用户名规则", item7_passwords, True), ("8 Cookie", item8_cookie, False),
         ("9 停用账号的回答", item9_disabled, True), ("10 每次提问的往返", item10_page, False),
         ("11 进度条", item11_progress, False)]


def lines(engines: list[tuple[str, callable]]) -> list[str]:
    """One line per item (and per engine where storage is involved); `engines` are (name, fresh URL factory)."""
    out = []
    for title, check, stored in ITEMS:
        try:
            if stored:
                for engine, fresh in engines:
                    with fresh() as url:
                        out.append(f"#29-{title}（{engine}）：{check(url)}")
            else:
                out.append(f"#29-{title}：{check()}")
        except (XiaoEError, OSError, RuntimeError) as error:
            out.append(f"#29-{title}：测量失败：{error}")
    return out

