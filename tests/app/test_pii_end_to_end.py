"""Personal data never reaches the record: 1,000 messages carrying every kind of it go through the student service
(real HTTP) and the console's Ask page (AppTest) into one database; then every cell of every table, the conversation
and queue exports (CSV and xlsx), a labelled set made from the queue, the service's log and the console's log lines
are scanned for the raw values: 0 hits. The own-figure answers still read the amounts, lessons and levels."""

from __future__ import annotations

import io
import logging
import random

from openpyxl import load_workbook
from sqlalchemy import MetaData, String, Text, select

from core.evaluation.from_reviews import drafts
from core.privacy.mask import _ID_CHECK, _ID_WEIGHTS, luhn, mask
from core.settings import Settings
from core.stores.conversations import ConversationStore
from core.stores.db import open_database
from core.stores.review import ReviewStore
from core.stores.review_export import write_csv, write_xlsx
from tests.service.harness import ask, make_key, start_service
from ui.conversation_view import export_bytes

SERVICE_MESSAGES = 960
CONSOLE_MESSAGES = 40
QUESTIONS = ("二级学费多少？", "退费多久到账？", "教材费能退吗？", "一个班最多多少人？", "转班要收费吗？",
             "我报了二级，实付4200元，上了6节课，能退多少？", "我交了4800报的三级，上了3节课，能退多少钱？",
             "2024年3月1日开课，每周上 2 课时，几周结课？", "可以跳级吗？", "生病了能保留学籍吗？")


def _mobile(rng: random.Random) -> str:
    return f"1{rng.choice('3456789')}{rng.randint(0, 999_999_999):09d}"


def _id18(rng: random.Random) -> str:
    body = f"{rng.randint(110000, 659999)}{rng.randint(1960, 2010)}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}" \
           f"{rng.randint(0, 999):03d}"
    return body + _ID_CHECK[sum(int(d) * w for d, w in zip(body, _ID_WEIGHTS, strict=True)) % 11]


def _id15(rng: random.Random) -> str:
    return f"{rng.randint(110000, 659999)}{rng.randint(60, 99)}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}" \
           f"{rng.randint(0, 999):03d}"


def _card(rng: random.Random) -> str:
    body = f"62{rng.randint(0, 10**14 - 1):014d}"
    return body + next(str(d) for d in range(10) if luhn(body + str(d)))


def _planted(rng: random.Random) -> tuple[str, list[str]]:
    """A student's message with two kinds of personal data, and the raw values to look for."""
    values = {"mobile": _mobile(rng), "id18": _id18(rng), "id15": _id15(rng), "card": _card(rng),
              "email": f"stu{rng.randint(1000, 99999)}@example.com", "wechat": f"wx_{rng.randint(10**6, 10**8)}a",
              "qq": str(rng.randint(10**6, 10**10))}
    phrases = {"mobile": f"我手机 {values['mobile']}", "id18": f"身份证{values['id18']}",
               "id15": f"老身份证{values['id15']}", "card": f"退到卡 {values['card']}",
               "email": f"邮箱 {values['email']}", "wechat": f"加我微信 {values['wechat']}",
               "qq": f"QQ：{values['qq']}"}
    kinds = rng.sample(sorted(values), 2)
    text = "，".join(phrases[k] for k in kinds) + "。" + rng.choice(QUESTIONS)
    return text, [values[k] for k in kinds]


def _hits(text: str, raw: set[str]) -> list[str]:
    return [value for value in raw if value in text]


def test_no_raw_personal_data_anywhere_after_1000_messages(app_env, open_app, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    settings = Settings.from_env()
    url = settings.db_url
    rng = random.Random(43)
    raw: set[str] = set()
    secret = make_key(url, release="auto")[0]
    service = start_service(tmp_path / "service", url)
    try:
        with service.client(secret) as client:
            conversation = None
            for number in range(SERVICE_MESSAGES):
                text, values = _planted(rng)
                raw.update(values)
                if number % 8 == 0:
                    conversation = None
                reply = ask(client, f"s{number // 8}", f"m{number}", text, conversation_id=conversation)
                assert reply.status_code == 200, reply.text
                conversation = reply.json()["conversation_id"]
    finally:
        service.stop()
    at = open_app()
    for _ in range(CONSOLE_MESSAGES):
        text, values = _planted(rng)
        raw.update(values)
        at.text_input(key="question").set_value(text)
        at = at.button(key="ask").click().run()
        assert not at.exception
    db = open_database(url)
    found: list[str] = []
    meta = MetaData()
    meta.reflect(db.engine)
    with db.read() as conn:
        for table in meta.sorted_tables:
            columns = [c for c in table.columns if isinstance(c.type, (String, Text))]
            for row in conn.execute(select(*columns)) if columns else ():
                found += _hits(" ".join(str(v) for v in row if v is not None), raw)
    conversations = ConversationStore(db)
    found += _hits(export_bytes(conversations.iter_exchanges(), "csv").decode("utf-8-sig"), raw)
    book = load_workbook(io.BytesIO(export_bytes(conversations.iter_exchanges(), "xlsx")))
    found += _hits(" ".join(str(c) for row in book.active.iter_rows(values_only=True) for c in row if c), raw)
    items = list(ReviewStore(db).list(limit=100_000).items)
    queue_csv = io.StringIO()
    write_csv(items, queue_csv)
    found += _hits(queue_csv.getvalue(), raw)
    queue_xlsx = io.BytesIO()
    write_xlsx(items, queue_xlsx)
    found += _hits(" ".join(str(c) for row in load_workbook(queue_xlsx).active.iter_rows(values_only=True)
                            for c in row if c), raw)
    found += _hits(" ".join(repr(d) for d in drafts(items)), raw)  # the labelled-set rows the queue would make
    found += _hits(service.log_text(), raw)
    found += _hits("\n".join(r.getMessage() for r in caplog.records), raw)
    assert len(raw) > 1500 and len(items) > 5
    assert found == []


def test_own_figures_still_read_after_masking(app_env):
    """The amounts, lessons and levels around the personal data still make the same own-figure answer."""
    from core.assistant import open_assistant

    assistant = open_assistant(Settings.from_env().with_(reuse="off"), with_model=False)
    plain = "报的二级实付4200元，上了6节课，能退多少？"
    masked = mask(f"我手机13812345678，{plain}").text
    with_data, without = assistant.respond(masked), assistant.respond(plain)
    assert with_data.answer.own_case == without.answer.own_case and with_data.answer.own_case is not None
    assert "〔手机号1〕" in with_data.question
