"""The console's side of the student service, through AppTest: the 接口密钥 page makes a key and shows its secret once,
the queue's 待发送 item shows the student and sends the draft, 对话 lists conversations and exports them."""

from __future__ import annotations

import io

from openpyxl import load_workbook

from core.exchanges.desk import StudentDesk, chat_request
from core.serving.live import LiveAssistant
from core.settings import Settings
from core.stores.api_keys import KeyStore
from core.stores.db import open_database
from core.stores.outbox import messages_after
from core.stores.review import ReviewStore
from core.stores.roles import User

ADMIN = User("admin", "admin", "admin")


def _desk(app_env) -> StudentDesk:
    settings = Settings.load(data_dir=app_env.data, corpus_dir=app_env.corpus)
    live = LiveAssistant.start(settings)
    return StudentDesk.open(settings, open_database(settings.db_url), live.current)


def _held(app_env, query: str = "口语课一共有几级？", user: str = "s1") -> tuple[StudentDesk, int, str]:
    desk = _desk(app_env)
    try:
        key = desk.keys.by_name("app")
    except Exception:  # noqa: BLE001 - the first call makes it
        key = KeyStore(desk.keys.db).add(ADMIN, "app", release="all").key
    reply = desk.message(key, chat_request(user, None, f"m-{user}", query, max_chars=2000))
    exchange = desk.conversations.exchange(reply.message_id)
    return desk, exchange.item_id, reply.conversation_id


def test_keys_page_makes_a_key_and_shows_the_secret_once(open_page, app_env):
    at = open_page("app_pages/keys.py")
    at.text_input(key="keys_name").set_value("school-app")
    at.selectbox(key="keys_release").set_value("flagged")
    at.button(key="keys_add_button").click().run()
    assert not at.exception
    secret = at.code[0].value
    assert secret.startswith("xiaoe_")
    key = KeyStore(open_database(Settings.load(data_dir=app_env.data).db_url)).authenticate(secret)
    assert (key.name, key.policy) == ("school-app", "flagged")
    at.button(key="keys_hide").click().run()
    assert not at.code and not at.exception  # gone for good: only its hash is kept
    assert "school-app" in str(at.table[0].value["名称"].tolist())


def test_review_page_held_item_shows_the_student_and_sending_releases_the_draft(open_page, app_env):
    desk, item_id, conversation = _held(app_env)
    at = open_page("app_pages/review.py", reviewer="王老师", review_item=item_id)
    assert not at.exception
    assert any("学员** s1" in m.value for m in at.markdown)
    assert any("口语课一共有几级" in t.value for t in at.text)
    at.button(key=f"approve_{item_id}").click().run()
    assert not at.exception and ReviewStore(desk.keys.db).get(item_id).status == "approved"
    with desk.keys.db.read() as conn:
        row = desk.conversations._owned(conn, desk.keys.by_name("app"), conversation, "s1")
        released = messages_after(conn, row.id, 0, 10)
    assert len(released) == 1 and "四级" in released[0].answer and released[0].released_by == "王老师"


def test_review_page_held_item_rejected_sends_the_chosen_standard_reply(open_page, app_env):
    desk, item_id, conversation = _held(app_env)
    at = open_page("app_pages/review.py", reviewer="王老师", review_item=item_id)
    at.text_area(key=f"note_{item_id}").set_value("草稿没说清楚")
    at.button(key=f"reject_{item_id}").click().run()
    assert not at.exception
    found, _ = desk.messages(desk.keys.by_name("app"), conversation, "s1", after=None, limit=10)
    assert [m.answer for m in found] == [desk.settings.standard_replies[0]]


def test_conversations_page_lists_reads_and_exports_as_text(open_page, app_env):
    _held(app_env, "=HYPERLINK(\"http://x\") 二级学费多少", user="s-formula")
    at = open_page("app_pages/conversations.py")
    assert not at.exception
    frame = at.dataframe[0].value
    assert list(frame["学员"]) == ["s-formula"]
    at.session_state["conv_table"] = {"selection": {"rows": [0], "columns": []}}
    at.run()
    assert not at.exception
    assert any("学员：=HYPERLINK" in t.value for t in at.text)  # shown as text, never as a link or markup
    store = _desk(app_env).conversations
    from ui.conversation_view import export_bytes

    sheet = load_workbook(io.BytesIO(export_bytes(store.iter_exchanges(), "xlsx"))).active
    cells = [c.value for c in next(sheet.iter_rows(min_row=2, max_row=2))]
    assert "=HYPERLINK(\"http://x\") 二级学费多少" in cells and sheet.cell(2, cells.index(
        "=HYPERLINK(\"http://x\") 二级学费多少") + 1).data_type == "s"
    text = export_bytes(store.iter_exchanges(), "csv").decode("utf-8")
    assert "'=HYPERLINK" in text and text.startswith("\ufeff会话")
