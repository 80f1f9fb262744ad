"""资料原文 → 资料管理 through AppTest (#40): an edit that changes a rule lists, before the save is confirmed, the FAQ
sentence still stating the old rule (file, section, text, a link to it) and waits for the admin to say they know;
after the save the sentence stays under 「资料前后矛盾」 until it is fixed or dismissed."""

from __future__ import annotations

from core.settings import Settings
from core.stores.contradictions import ContradictionStore
from core.stores.corpus_admin import sha256_hex
from core.stores.db import open_database

PAGE = "app_pages/sources.py"
REFUND = "02-退费与转班制度.md"
RULE = "开课前申请退费的，学费全额退还。"
FEE_RULE = "开课前申请退费的，扣除 100 元手续费后退还其余学费。"
FAQ_WORDS = "可以，开课前申请退费，学费全额退还"


def warnings(at) -> list[str]:
    return [w.value for w in at.warning]


def test_contradictions_page_lists_the_faq_line_before_the_save_and_after_it(open_app, app_env):
    at = open_app(page=PAGE)
    at.selectbox(key="corpus_edit_file").set_value(REFUND).run()
    path = app_env.corpus / REFUND
    box = at.text_area(key=f"corpus_text_{sha256_hex(path.read_bytes())[:16]}")
    box.set_value(box.value.replace(RULE, FEE_RULE)).run()
    assert not at.exception
    (listed,) = [w for w in warnings(at) if "写着改之前的规定" in w]
    assert "七、常见问题" in listed and FAQ_WORDS in listed.replace("\\", "") and "[打开原文](" in listed and "chunk=" in listed
    assert at.button(key="corpus_edit_save").disabled  # not before the admin says they know
    assert RULE in path.read_text(encoding="utf-8")

    at.checkbox(key=next(c.key for c in at.checkbox if c.key.startswith("corpus_edit_ack_"))).check().run()
    at.button(key="corpus_edit_save").click().run()
    assert not at.exception
    assert FEE_RULE in path.read_text(encoding="utf-8")
    assert any("资料里还有 1 句写着改之前的规定" in s.value for s in at.success)
    assert any(e.label == "资料前后矛盾（1 处待改）" for e in at.expander)

    at.button(key=next(b.key for b in at.button if b.key.startswith("contradiction_dismiss_"))).click().run()
    assert not at.exception
    assert not any(e.label.startswith("资料前后矛盾") for e in at.expander)
    assert ContradictionStore(open_database(Settings.from_env().db_url)).open() == ()
