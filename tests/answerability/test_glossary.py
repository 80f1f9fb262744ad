"""The glossary: value and query expansion, the database store, its audit log, CSV export and import."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from core.answerability.glossary import (
    STARTER_PATH,
    Glossary,
    GlossaryEntry,
    expand_query,
    load_starter,
    read_csv,
    write_csv,
)
from core.answerability.terms import chunk_text
from core.errors import InvalidGlossary
from core.language.text import normalize
from core.stores.db import Database
from core.stores.glossary import GlossaryStore

G = Glossary((GlossaryEntry("学费", "价格"), GlossaryEntry("学费", "多少钱"), GlossaryEntry("保留学籍", "暂停"),
              GlossaryEntry("App", "手机应用")))


@pytest.fixture
def store(database_url):
    db = Database(database_url)
    yield GlossaryStore(db)
    db.dispose()


@pytest.fixture
def empty_store(store):
    for entry in store.load().entries:
        store.remove(entry.term, entry.synonym, who="测试")
    return store


@pytest.mark.parametrize(("question", "expanded"), [
    ("入门级的价格是多少", "入门级的价格是多少 学费"),
    ("二级多少钱啊，价格贵吗", "二级多少钱啊，价格贵吗 学费"),
    ("学费的价格是多少", "学费的价格是多少"),  # the term is already there
    ("生病了，课程能暂停吗？", "生病了，课程能暂停吗？ 保留学籍"),
    ("一共有几级", "一共有几级"),
])
def test_expand_query_appends_canonical_terms(question, expanded):
    assert expand_query(question, G) == expanded


def test_expand_query_finds_overlapping_and_repeated_synonyms_in_the_order_they_first_occur():
    """One automaton pass finds every synonym a search per synonym found: one inside another (学生 in 学生价),
    overlapping ones (价钱 / 钱数), a repeat (its first place counts), full-width forms folded first."""
    glossary = Glossary((GlossaryEntry("优惠", "学生价"), GlossaryEntry("学员", "学生"), GlossaryEntry("学费", "价钱"),
                         GlossaryEntry("金额", "钱数"), GlossaryEntry("课时", "ＡＢ")))
    assert sorted(glossary.synonyms_in(normalize("钱数 学生价的价钱数 学生 ab"))) == [
        (0, "钱数"), (2, "学生"), (2, "学生价"), (6, "价钱"), (11, "ab")]
    assert expand_query("钱数 学生价的价钱数 学生 ab", glossary) == "钱数 学生价的价钱数 学生 ab 金额 优惠 学员 学费 课时"
    assert glossary.synonyms_in("") == [] and Glossary().synonyms_in("学生") == []


def test_expand_query_without_glossary_is_the_question():
    assert expand_query("入门级的价格是多少", None) == "入门级的价格是多少"
    assert expand_query("入门级的价格是多少", Glossary()) == "入门级的价格是多少"


def test_glossary_lookup_ignores_width_and_case():
    assert G.canonical("价格") == ("学费",)
    assert G.canonical("手机应用") == ("App",)
    assert Glossary((GlossaryEntry("App", "ＡＰＰ应用"),)).canonical("app应用") == ("App",)
    assert G.canonical("课时") == ()


def test_glossary_fingerprint_changes_with_content_not_order():
    reordered = Glossary(tuple(reversed(G.entries)))
    assert reordered.fingerprint == G.fingerprint and reordered == G
    assert Glossary(G.entries[:-1]).fingerprint != G.fingerprint


def test_starter_terms_all_occur_in_the_corpus(corpus_chunks):
    corpus = "".join(normalize(chunk_text(c)) for c in corpus_chunks)
    missing = [t for t in load_starter().terms() if normalize(t) not in corpus]
    assert missing == []


def test_starter_file_is_valid_utf8_csv():
    assert len(read_csv(STARTER_PATH.read_bytes())) > 100


def test_store_loads_the_starter_on_first_open(store):
    assert len(store.load()) == len(load_starter())
    assert {c.action for c in store.changes(limit=5)} == {"starter"}
    assert store.load().canonical("价格") == ("学费",)


def test_store_starter_is_not_reloaded_after_removal(database_url):
    url = database_url
    first = Database(url)
    GlossaryStore(first).remove("学费", "价格", who="王老师")
    first.dispose()
    again = Database(url)
    assert GlossaryStore(again).load().canonical("价格") == ()
    again.dispose()


def test_store_add_remove_and_audit_trail(empty_store):
    empty_store.add("学费", "价钱", who="王老师")
    empty_store.add("保留学籍", "休学", who="李老师")
    assert empty_store.load().canonical("价钱") == ("学费",)
    empty_store.remove("学费", "价钱", who="李老师")
    assert empty_store.load().canonical("价钱") == ()
    latest = empty_store.changes(limit=3)
    assert [(c.action, c.who, c.synonym) for c in latest] == [
        ("remove", "李老师", "价钱"), ("add", "李老师", "休学"), ("add", "王老师", "价钱")]
    assert latest[0].summary == "李老师 删除了“价钱 → 学费”"


@pytest.mark.parametrize(("term", "synonym", "who", "message"), [
    ("学费", "学费", "王老师", "标准词和同义词相同"),
    ("", "价钱", "王老师", "标准词是空的"),
    ("学费", "  ", "王老师", "同义词是空的"),
    ("学费", "。。", "王老师", "只有标点"),
    ("学费", "价" * 21, "王老师", "超过 20 字上限"),
    ("学费", "价钱", " ", "请先填写操作人姓名"),
])
def test_store_add_rejects_bad_entries_in_chinese(empty_store, term, synonym, who, message):
    with pytest.raises(InvalidGlossary, match=message):
        empty_store.add(term, synonym, who=who)
    assert len(empty_store.load()) == 0


def test_store_add_rejects_a_duplicate(empty_store):
    empty_store.add("学费", "价钱", who="王老师")
    with pytest.raises(InvalidGlossary, match="已经在同义词表里了"):
        empty_store.add("学费", " 价钱 ", who="李老师")


def test_store_remove_of_a_missing_pair_says_so(empty_store):
    with pytest.raises(InvalidGlossary, match="同义词表里没有“价钱 → 学费”"):
        empty_store.remove("学费", "价钱", who="王老师")


def test_store_change_log_is_append_only(store):
    with store.db.engine.begin() as conn, pytest.raises(Exception, match="append-only"):
        conn.execute(text("UPDATE glossary_changes SET who = 'x'"))
    with store.db.engine.begin() as conn, pytest.raises(Exception, match="append-only"):
        conn.execute(text("DELETE FROM glossary_changes"))


def test_export_import_round_trip_keeps_chinese_text(store, tmp_path):
    store.add("学费", "学费多少钱呀", who="王老师")
    exported = store.export_csv()
    assert exported.startswith("\ufeff标准词,同义词,添加人,添加时间".encode())
    db = Database(f"sqlite:///{tmp_path / 'other.sqlite3'}")
    other = GlossaryStore(db)
    for entry in other.load().entries:
        other.remove(entry.term, entry.synonym, who="测试")
    assert other.import_csv(exported, who="李老师") == len(store.load())
    assert {(e.term, e.synonym) for e in other.load().entries} == {(e.term, e.synonym) for e in store.load().entries}
    assert other.changes(limit=1)[0].action == "import" and other.changes(limit=1)[0].who == "李老师"
    db.dispose()


def test_import_adds_only_new_pairs(empty_store):
    empty_store.add("学费", "价钱", who="王老师")
    data = "标准词,同义词\n学费,价钱\n学费,收费标准\n".encode()
    assert empty_store.import_csv(data, who="李老师") == 1
    assert len(empty_store.load()) == 2


@pytest.mark.parametrize(("data", "message"), [
    ("标准词,同义词\n学费,价钱\n学费,\n", "第 3 行：同义词是空的"),
    ("标准词,同义词\n学费,价钱\n退费,退费\n", "第 3 行：标准词和同义词相同"),
    ("标准词,同义词\n学费,价钱\n\n学费,价钱\n", "第 4 行：“价钱 → 学费”与第 2 行重复"),
    ("词,说法\n学费,价钱\n", "第 1 行表头缺少“标准词、同义词”列"),
    ("", "文件是空的"),
    ("标准词,同义词\n学费,价钱\n".encode("gbk"), "不是 UTF-8 编码"),
])
def test_import_bad_file_names_the_row_and_saves_nothing(empty_store, data, message):
    raw = data if isinstance(data, bytes) else data.encode()
    with pytest.raises(InvalidGlossary, match=message) as caught:
        empty_store.import_csv(raw, who="王老师")
    assert len(empty_store.load()) == 0
    if "行：" in message:
        assert "没有保存任何一行" in str(caught.value)


def test_write_then_read_csv_is_identity():
    entries = (GlossaryEntry("学费", "价钱，多少"), GlossaryEntry("保留学籍", "先停一停\"吧\""))
    assert read_csv(write_csv(entries)) == [(e.term, e.synonym) for e in entries]


def test_store_reuses_the_built_glossary_until_any_instance_changes_it(database_url):
    """A rerun's load reads one stamp and returns the glossary built last time; a change made through another
    process's store (a second console or the service) is seen by the next load, whichever way it was made."""
    from sqlalchemy import event

    first_db, second_db = Database(database_url), Database(database_url)
    mine, theirs = GlossaryStore(first_db), GlossaryStore(second_db)
    try:
        for entry in mine.load().entries:
            mine.remove(entry.term, entry.synonym, who="测试")
        mine.add("学费", "价钱", who="王老师")
        mine.add("学费", "价格", who="王老师")
        built = mine.load()
        statements: list[str] = []
        event.listen(first_db.engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
        assert mine.load() is built and len(statements) == 1  # only the stamp was read

        theirs.remove("学费", "价格", who="李老师")  # the newest entry removed, then a pair added:
        theirs.add("学费", "多少钱", who="李老师")  # on SQLite the new row may take the removed row's id
        after = mine.load()
        assert after is not built
        assert {(e.term, e.synonym) for e in after.entries} == {("学费", "价钱"), ("学费", "多少钱")}
        assert mine.load() is after

        theirs.import_csv("标准词,同义词\n保留学籍,暂停\n", who="李老师")
        assert ("保留学籍", "暂停") in {(e.term, e.synonym) for e in mine.load().entries}
    finally:
        first_db.dispose()
        second_db.dispose()


def _opened_before(database_url: str, monkeypatch, later: list[tuple[str, str]], version: int):
    """A database migrated up to glossary migration `version` while the starter file lacked the `later` pairs (they
    were shipped afterwards), and the starter pairs as shipped now."""
    import core.stores.glossary as stores
    from core.answerability.glossary import starter_pairs
    from core.stores.db import Schema

    shipped = starter_pairs()
    assert all(pair in shipped for pair in later)
    monkeypatch.setattr(stores, "starter_pairs", lambda *a, **k: [p for p in shipped if p not in later])
    before = Database(database_url)
    before.migrate(Schema("glossary", tuple(m for m in stores.GLOSSARY_SCHEMA.migrations if m.version <= version)))
    assert before.applied("glossary") == list(range(1, version + 1))
    return before, shipped


def _opened_now(database_url: str, monkeypatch):
    """The same database opened with the shipped starter file: the migrations since bring it up to date."""
    monkeypatch.undo()
    after = Database(database_url)
    glossary = GlossaryStore(after).load()
    assert after.applied("glossary") == [1, 2, 3, 4, 5, 6, 7, 8]
    return after, glossary


def test_starter_pairs_shipped_later_reach_an_existing_database_but_not_the_ones_staff_removed(database_url, monkeypatch):
    import core.stores.glossary as stores

    # a database opened before the pairs were shipped: the first load (migration 3) had the older file
    before, shipped = _opened_before(database_url, monkeypatch, [("日常对话", "家常"), ("对话", "唠"), ("计算", "算钱")], 4)
    with before.transaction("测试") as conn:  # staff removed an old pair, and added then removed one of the later ones
        conn.execute(stores.glossary_entries.delete().where(stores.glossary_entries.c.term == "学费",
                                                            stores.glossary_entries.c.synonym == "价格"))
        conn.execute(stores.glossary_changes.insert(), [
            {"at": stores.utcnow(), "who": "王老师", "action": "remove", "term": "学费", "synonym": "价格"},
            {"at": stores.utcnow(), "who": "王老师", "action": "remove", "term": "计算", "synonym": "算钱"}])
    before.dispose()

    after, glossary = _opened_now(database_url, monkeypatch)
    assert glossary.canonical("家常") == ("日常对话",) and glossary.canonical("唠") == ("对话",)
    assert glossary.canonical("价格") == () and glossary.canonical("算钱") == ()  # removed by staff: stays removed
    assert len(glossary) == len(shipped) - 2
    after.dispose()


def test_a_database_created_with_the_pairs_finds_nothing_to_add(store):
    assert len(store.load()) == len(load_starter())
    assert store.db.applied("glossary") == [1, 2, 3, 4, 5, 6, 7, 8]


@pytest.mark.parametrize(("later", "version"), [
    ([("折扣", "折扣价"), ("前台", "店里"), ("领取", "领回来")], 5),           # round 17's pairs, a database of round 16
    ([("不能上课", "上不了课"), ("退款", "退的钱"), ("每班", "几个人上课")], 6),  # round 18's pairs, a database of round 17
    ([("原路退回", "卡上"), ("原路退回", "账户")], 7),  # round 19's pairs, a database of round 18
])
def test_starter_pairs_of_a_later_round_reach_a_database_migrated_before_it(database_url, monkeypatch, later, version):
    import core.stores.glossary as stores

    before, shipped = _opened_before(database_url, monkeypatch, later, version)
    with before.transaction("测试") as conn:  # opened in the round before: the later pairs are not there yet
        synonyms = {row.synonym for row in conn.execute(stores.sa_select(stores.glossary_entries.c.synonym))}
    assert not {synonym for _, synonym in later} & synonyms
    before.dispose()

    after, glossary = _opened_now(database_url, monkeypatch)
    assert all(glossary.canonical(synonym) == (term,) for term, synonym in later)
    assert len(glossary) == len(shipped)
    after.dispose()
