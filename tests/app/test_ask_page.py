"""The 提问与检查 page through AppTest, from the router, on a corpus copy under tmp_path."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest

from core import assistant as composition
from core.errors import ModelError
from core.settings import REFUSAL_TEXT, Settings
from core.stores.db import Database
from core.stores.review import ReviewStore

LEVELS = "启明英语的口语课一共有几级？"
IELTS = "你们的雅思保过班多少钱？"


def ask(at, question: str):
    at.text_input(key="question").set_value(question)
    return at.button(key="ask").click().run()


def texts(elements) -> list[str]:
    """Element texts with Markdown backslash escapes removed (the page escapes what it did not write)."""
    return [re.sub(r"\\(.)", r"\1", str(e.value)) for e in elements]


def candidates_table(at):
    return next(t.value for t in at.table if "状态" in t.value.columns)


def queued(app_env) -> list:
    store = ReviewStore(Database(Settings.from_env().db_url))
    return list(store.list().items)


def test_ask_page_answers_with_linked_citations(open_app):
    at = ask(open_app(), LEVELS)
    assert not at.exception
    body = next(m for m in texts(at.markdown) if "sources?source=" in m)
    assert "四级" in body
    link = body[body.index("sources?source="):].split(")")[0]
    query = parse_qs(urlsplit(link).query)
    assert query["source"][0].endswith(".md") and query["chunk"][0].isdigit()
    assert any("引用检查：通过" in s for s in texts(at.success))
    citations = next(t.value for t in at.table if "片段预览" in t.value.columns)
    assert "[1]" in [re.sub(r"\\(.)", r"\1", n) for n in citations.index]


def test_ask_page_refuses_below_threshold_without_the_model(open_app, monkeypatch):
    monkeypatch.setattr(composition, "stream_text", lambda *a, **k: pytest.fail("model called on a refusal"))
    at = open_app()
    at.slider(key="threshold").set_value(0.9).run()
    at = ask(at, LEVELS)
    assert not at.exception
    assert any(REFUSAL_TEXT in w for w in texts(at.warning))
    assert any(re.search(r"最高排序分 0\.\d\d 低于阈值 0\.90", m) for m in texts(at.markdown))
    assert "未调用模型" in texts(at.caption)


def test_ask_page_refuses_what_the_corpus_does_not_say(open_app, monkeypatch):
    monkeypatch.setattr(composition, "stream_text", lambda *a, **k: pytest.fail("model called on a refusal"))
    at = ask(open_app(), IELTS)
    assert not at.exception
    assert any(REFUSAL_TEXT in w for w in texts(at.warning))
    assert any(m.startswith("**拒答原因**") and "雅思" in m for m in texts(at.markdown))
    assert "未调用模型" in texts(at.caption)


def test_ask_page_threshold_change_marks_chunk_below_and_answer_stale(open_app, monkeypatch):
    at = ask(open_app(), LEVELS)
    before = candidates_table(at)
    passing = before[before["状态"] == "命中"]
    assert len(passing) >= 2
    weakest = passing.iloc[-1]
    monkeypatch.setattr(composition, "stream_text", lambda *a, **k: pytest.fail("model called on a slider move"))
    monkeypatch.setattr(composition, "retrieve", lambda *a, **k: pytest.fail("retrieval repeated on a slider move"))
    at.slider(key="threshold").set_value(round(weakest["排序分"] + 0.01, 2)).run()
    assert not at.exception
    after = candidates_table(at)
    assert after.loc[after["排名"] == weakest["排名"], "状态"].item() == "低于阈值"
    assert after.loc[after["排名"] == passing.iloc[0]["排名"], "状态"].item() == "命中"
    assert list(after["排名"]) == list(before["排名"])  # same candidates, only re-filtered
    assert any("已过期" in w for w in texts(at.warning))
    assert at.button(key="regenerate")


def test_ask_page_k_leaves_later_candidates_out(open_app):
    at = ask(open_app(), LEVELS)
    at.slider(key="k").set_value(1).run()
    table = candidates_table(at)
    assert list(table["状态"][1:]) == ["超出前 k 个"] * (len(table) - 1)


def test_ask_page_regenerate_answers_for_the_current_sliders(open_app):
    at = ask(open_app(), LEVELS)
    passing = candidates_table(at).query("状态 == '命中'")
    at.slider(key="threshold").set_value(round(passing.iloc[-1]["排序分"] + 0.01, 2)).run()
    at.button(key="regenerate").click().run()
    assert not at.exception
    assert not any("已过期" in w for w in texts(at.warning))
    assert any("引用检查：通过" in s for s in texts(at.success))


def test_ask_page_empty_question_gives_a_hint_and_runs_nothing(open_app):
    at = ask(open_app(), "   ")
    assert not at.exception
    assert any("问题是空的" in i for i in texts(at.info))
    assert "回答" not in texts(at.subheader)


def test_ask_page_too_long_question_says_the_limit(open_app):
    at = ask(open_app(), "口" * 2001)
    assert not at.exception
    assert any("2001 个字" in w and "2000" in w for w in texts(at.warning))
    assert "回答" not in texts(at.subheader)


def test_ask_page_missing_corpus_folder_is_named_and_app_stays_usable(open_app, app_env, monkeypatch):
    missing = app_env.corpus.parent / "没有这个文件夹"
    monkeypatch.setenv("XIAOE_CORPUS_DIR", str(missing))
    at = open_app()
    assert not at.exception
    assert any("没有这个文件夹" in e for e in texts(at.error))
    at.switch_page("app_pages/sources.py").run()
    assert not at.exception
    assert any("没有这个文件夹" in e for e in texts(at.error))


def test_ask_page_bad_file_is_named(open_app, app_env):
    (app_env.corpus / "04-坏文件.md").write_bytes("# 标题\n\n退费".encode("gbk"))
    at = open_app()
    assert not at.exception
    assert any("04-坏文件.md" in e and "UTF-8" in e for e in texts(at.error))


def test_ask_page_query_param_q_prefills_and_asks(open_app):
    at = open_app(params={"q": LEVELS})
    assert not at.exception
    assert at.text_input(key="question").value == LEVELS
    assert "回答" in texts(at.subheader)
    assert candidates_table(at) is not None


def test_ask_page_model_error_shows_message_not_answer_and_queues(open_app, app_env, monkeypatch):
    def failing(gate, llm=None, **_):
        raise ModelError("回答模型服务内部出错（HTTP 500），本次没有生成回答。请稍后重试。", kind="server")
        yield ""  # pragma: no cover - makes this a generator like the real one

    monkeypatch.setattr(composition, "stream_text", failing)
    at = ask(open_app(), LEVELS)
    assert not at.exception
    assert any("HTTP 500" in e for e in texts(at.error))
    assert not any("[[1]](sources" in m for m in texts(at.markdown))  # no answer text with citation links
    assert not at.success
    items = queued(app_env)
    assert [i.origin for i in items] == ["model_error"]


def test_ask_page_flagged_answer_is_only_a_draft_and_queued(open_app, app_env, monkeypatch):
    monkeypatch.setattr(composition, "stream_text", lambda gate, llm=None, **_: iter(["口语课一共六级[1]，", "详见[7]。"]))
    at = ask(open_app(), LEVELS)
    assert not at.exception
    assert any("该回答未通过检查，不会发给学员，已记入复核队列" in e for e in texts(at.error))
    assert any("[7]" in m for m in texts(at.markdown))  # the problem list names the bad number
    draft = next(e for e in at.expander if "未通过检查的草稿" in e.label)
    assert any("六级" in m.value for m in draft.markdown)
    assert not at.success
    assert [i.origin for i in queued(app_env)] == ["auto"]


def test_ask_page_model_output_is_escaped(open_app, monkeypatch):
    reply = "<script>alert(1)</script><b>四级</b>[1]。"
    monkeypatch.setattr(composition, "stream_text", lambda gate, llm=None, **_: iter([reply]))
    at = ask(open_app(), LEVELS)
    assert not at.exception
    shown = [str(m.value) for m in at.markdown if "alert" in m.value]
    assert shown and all("<script>" not in m and r"\<script\>" in m for m in shown)


def test_ask_page_manual_flag_queues_with_name(open_app, app_env):
    at = ask(open_app(), LEVELS)
    at.text_input(key="flag_name").set_value("王老师")
    at.text_input(key="flag_note").set_value("级别数要再核对")
    at.button(key="flag").click().run()
    assert not at.exception
    assert any("已记入复核队列" in s for s in texts(at.success))
    item = queued(app_env)[0]
    assert (item.origin, item.flagged_by) == ("manual", "王老师")


def test_ask_page_citation_link_opens_sources_at_that_chunk(open_app):
    at = ask(open_app(), LEVELS)
    body = next(m for m in texts(at.markdown) if "sources?source=" in m)
    query = parse_qs(urlsplit(body[body.index("sources?source="):].split(")")[0]).query)
    sources = open_app(page="app_pages/sources.py", params={"source": query["source"][0], "chunk": query["chunk"][0]})
    assert not sources.exception
    assert sources.selectbox(key="source_file").value == query["source"][0]
    assert sources.number_input(key="source_chunk").value == int(query["chunk"][0])


def test_ask_page_refusal_shows_the_answerability_signals(open_app):
    at = ask(open_app(), IELTS)
    signals = next(t.value for t in at.table if "是否通过" in t.value.columns)
    assert signals.loc["资料外的词", "是否通过"] == "未通过"
    assert "雅思" in re.sub(r"\\(.)", r"\1", signals.loc["资料外的词", "说明"])


def test_ask_page_sliders_start_at_the_saved_default(open_app, app_env):
    from core.stores.defaults import DefaultsStore

    settings = Settings.from_env()
    saved = settings.knobs.with_(threshold=0.31, k=4, min_coverage=0.5, max_unknown_weight=0.6)
    DefaultsStore(Database(settings.db_url)).save(saved, actor="王老师", settings=settings)
    at = open_app()
    assert (at.slider(key="threshold").value, at.slider(key="k").value) == (0.31, 4)
    assert (at.slider(key="min_coverage").value, at.slider(key="max_unknown_weight").value) == (0.5, 0.6)


def test_ask_page_shows_a_verdict_for_every_sentence(open_app, monkeypatch):
    monkeypatch.setattr(composition, "stream_text", lambda gate, llm=None, **_: iter(["口语课一共分为四级[1]。每级 12 课时[1]。"]))
    at = ask(open_app(), LEVELS)
    assert not at.exception
    verdicts = next(t.value for t in at.table if "核对" in t.value.columns)
    assert list(verdicts["核对"])[0] == "✓"
    assert "12" in list(verdicts["核对"])[1]


def test_ask_page_orders_candidates_by_score_and_their_own_keyword_coverage(open_app):
    at = ask(open_app(), "商务那个级别要多少钱")
    assert not at.exception
    table = candidates_table(at)
    assert "本片段关键词覆盖" in table.columns
    assert list(table["排名"]) == list(range(1, len(table) + 1))
    coverage = [float(v.rstrip("%")) / 100 for v in table["本片段关键词覆盖"]]
    assert set(table["写了问的内容"]) == {"是", "否"}  # a price is asked and some chunk states one (asked_rank)
    asked = [1.0 if v == "是" else 0.5 for v in table["写了问的内容"]]
    keys = [s * (0.5 + 0.5 * c) * a for s, c, a in zip(table["检索分"], coverage, asked)]
    assert all(abs(k - v) < 0.003 for k, v in zip(keys, table["排序分"]))  # the shown value is the formula's
    assert list(table["排序分"]) == sorted(table["排序分"], reverse=True)  # the table is in that order
    assert list(table["检索分"]) != sorted(table["检索分"], reverse=True)  # coverage moved some chunk up
    assert any("本片段关键词覆盖" in c and "写了问的内容" in c for c in texts(at.caption))


def test_ask_page_without_answerability_orders_by_score_alone(open_app, monkeypatch):
    monkeypatch.setenv("XIAOE_ANSWERABILITY", "off")
    table = candidates_table(ask(open_app(), "商务那个级别要多少钱"))
    assert "本片段关键词覆盖" not in table.columns
    assert list(table["排序分"]) == sorted(table["排序分"], reverse=True)


BAND_Q = "人工客服有微信吗"  # narrowly refused by the gate: the grader's band (tests/answering/test_grader.py)


def test_ask_page_marks_a_grader_answer_and_queues_it_in_its_lane(open_app, app_env, monkeypatch, fake_openai):
    import json

    fake_openai.script = lambda body: json.dumps(
        {"quote": "片段原句", "answerable": True, "chunks": [1], "reason": "片段1写了<b>客服</b>时间"}, ensure_ascii=False
    ) if "response_format" in body else "人工客服可以加微信[1]。"
    monkeypatch.setenv("XIAOE_GRADER", "band")
    monkeypatch.setenv("XIAOE_LLM_BASE_URL", fake_openai.base_url)
    monkeypatch.setenv("XIAOE_LLM_MODEL", "fake-chat")
    monkeypatch.setenv("XIAOE_LLM_MAX_RETRIES", "0")
    at = ask(open_app(), BAND_Q)
    assert not at.exception
    info = " ".join(texts(at.info))
    assert "由模型判定可答：片段1写了<b>客服</b>时间" in info and "模型判定可答" in info and "tokens" in info
    assert r"\<b\>" in " ".join(str(i.value) for i in at.info)  # the model's words are escaped, not Markdown
    assert [i.origin for i in queued(app_env)] == ["grader"]
    assert sum(1 for r in fake_openai.requests if "response_format" in r.body) == 1
    ask(at, LEVELS)  # a clear answer: no grader request, no grader line
    assert sum(1 for r in fake_openai.requests if "response_format" in r.body) == 1
    assert not any("模型判定" in t for t in texts(at.info))


def test_ask_page_says_what_the_documents_do_not_state(open_app, monkeypatch):
    # #40: a year question answered 「小E 是启明英语的助教[1]。」 under a green badge; now the gate refuses and says why
    monkeypatch.setattr(composition, "stream_text", lambda *a, **k: pytest.fail("model called on a refusal"))
    at = ask(open_app(), "启明英语是哪一年成立的？")
    assert not at.exception
    assert any(REFUSAL_TEXT in w for w in texts(at.warning))
    assert "**拒答原因**：资料里没有写“成立年份”" in texts(at.markdown)
    decision = next(t.value for t in at.table if "比较" in t.value.columns)
    assert "资料里没有写“成立年份” ✗" in [re.sub(r"\\(.)", r"\1", c) for c in decision["比较"]]


def test_ask_page_follow_up_reads_the_next_question_in_its_thread(open_app):
    at = ask(open_app(), "二级学费多少？")
    at.checkbox(key="ask_follow").check()
    at = ask(at, "那三级呢？")
    assert not at.exception
    shown = " ".join(texts(at.caption))
    assert "学员原话：那三级呢？" in shown and "独立问题：三级学费多少？" in shown
    assert any("4800" in t for t in texts(at.markdown))


def test_ask_page_without_follow_up_asks_the_words_as_written(open_app):
    at = ask(open_app(), "二级学费多少？")
    at = ask(at, "那三级呢？")
    assert not any("独立问题" in t for t in texts(at.caption))
