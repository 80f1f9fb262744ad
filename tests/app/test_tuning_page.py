"""The 阈值调优 page through AppTest, started from the router, with data under tmp_path (see conftest).

The page tunes the real gate: its numbers must equal `python -m core eval` at the same knobs."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest
from streamlit.testing.v1 import AppTest

import core.assistant as composition
from core.cli import main
from core.evaluation.metrics import OUTCOMES
from core.settings import Settings
from core.stores.accounts import AccountStore
from core.stores.db import Database, open_database
from core.stores.defaults import DefaultsStore, effective_settings
from core.stores.glossary import GlossaryStore
from core.stores.question_sets import QuestionSetStore
from core.stores.review import Filters, ReviewStore
from tests.app.conftest import ROUTER
from tests.auth_helpers import FAST_HASHER, PASSWORD, add_staff

PAGE = "app_pages/tuning.py"
TABS = ("逐题结果", "分数分布", "指标曲线", "假如改参数", "误判与同义词", "题集管理", "批量运行", "运行记录",
        "默认值修改记录")


def counts(at) -> dict[str, int]:
    return {m.label: int(m.value) for m in at.metric if m.label in OUTCOMES}


def table(at, column: str):
    """The first st.dataframe holding `column` (a dataframe without on_select carries no key in AppTest)."""
    return next(d.value for d in at.dataframe if column in d.value.columns)


def database() -> Database:
    return Database(Settings.from_env().db_url)


def test_tuning_page_shows_outcome_counts_for_the_default_set(tuning):
    at = tuning()
    assert sum(counts(at).values()) == 66
    assert at.slider(key="tune_threshold").value == pytest.approx(Settings.from_env().min_score)


def test_tuning_slider_move_changes_the_counts(tuning):
    at = tuning()
    before = counts(at)
    at.slider(key="tune_threshold").set_value(0.3).run()
    assert not at.exception
    after = counts(at)
    assert after["误拒"] > before["误拒"]  # a higher threshold refuses answerable questions
    assert sum(after.values()) == 66


@pytest.mark.parametrize(("key", "value"), [("tune_min_coverage", 0.95), ("tune_max_unknown_weight", 0.0)])
def test_tuning_decision_knobs_change_the_counts(tuning, key, value):
    at = tuning()
    before = counts(at)
    at.slider(key=key).set_value(value).run()
    assert not at.exception
    assert counts(at)["误拒"] > before["误拒"]


def eval_metrics(capsys, *flags: str) -> dict:
    assert main(["eval", "--json", *flags]) == 0
    return json.loads(capsys.readouterr().out)["metrics"]


@pytest.mark.parametrize("knobs", [None, {"tune_threshold": 0.2, "tune_k": 2, "tune_min_coverage": 0.4,
                                          "tune_max_unknown_weight": 0.7}])
def test_tuning_headline_numbers_equal_eval(tuning, capsys, knobs):
    at = tuning()
    flags: list[str] = []
    if knobs:
        for key, value in knobs.items():
            at.slider(key=key).set_value(value)
        at.run()
        flags = ["--min-score", "0.2", "--k", "2", "--min-coverage", "0.4", "--max-unknown-weight", "0.7"]
    expected = eval_metrics(capsys, *flags)
    assert counts(at) == expected["counts"]
    assert next(m.value for m in at.metric if m.label == "代价") == f"{expected['cost']:g}"


def test_tuning_slider_moves_never_retrieve_again(tuning, monkeypatch):
    calls = []
    original = composition.retrieve
    monkeypatch.setattr(composition, "retrieve", lambda *args: calls.append(args[0]) or original(*args))
    at = tuning()
    assert len(calls) == 66
    for value in (0.05, 0.15, 0.35):
        at.slider(key="tune_threshold").set_value(value).run()
    at.slider(key="tune_k").set_value(5).run()
    at.slider(key="tune_min_coverage").set_value(0.3).run()
    assert len(calls) == 66


def test_tuning_save_default_without_actor_saves_nothing(tuning):
    at = tuning()
    at.slider(key="tune_threshold").set_value(0.33).run()
    at.button(key="save_default").click().run()
    assert not at.exception
    assert "请先在页面上方填写「操作人」" in at.error[0].value
    assert DefaultsStore(database()).history() == ()


def test_tuning_save_default_is_audited_and_becomes_effective(tuning):
    at = tuning()
    at.text_input(key="tune_actor").set_value("王老师").run()
    at.slider(key="tune_threshold").set_value(0.33).run()
    at.slider(key="tune_k").set_value(4).run()
    at.slider(key="tune_min_coverage").set_value(0.5).run()
    at.button(key="save_default").click().run()
    assert not at.exception
    assert DefaultsStore(database()).history() == ()  # nothing is saved before the confirmation
    confirm = table(at, "之后")
    assert list(confirm.columns) == ["结果", "之前", "之后"] and "判断正确" in list(confirm["结果"])
    at.button(key="tune_confirm_ok").click().run()
    assert not at.exception
    assert "已设为默认" in at.success[0].value
    db = database()
    (record,) = DefaultsStore(db).history()
    assert (record.actor, record.new_threshold, record.new_k, record.new_min_coverage) == ("王老师", 0.33, 4, 0.5)
    assert record.metrics["question_set"] == "默认题集" and sum(record.metrics["counts"].values()) == 66
    effective = effective_settings(Settings.from_env(), db)
    assert (effective.min_score, effective.top_k, effective.min_coverage) == (0.33, 4, 0.5)


def test_tuning_signed_in_reviewer_is_the_actor(tuning):
    at = tuning(reviewer="李老师")
    at.slider(key="tune_threshold").set_value(0.12).run()
    at.button(key="save_default").click().run()
    at.button(key="tune_confirm_ok").click().run()
    assert not at.exception
    assert DefaultsStore(database()).current().actor == "李老师"


def test_tuning_apply_suggested_moves_the_slider(tuning):
    at = tuning()
    at.button(key="tune_apply_suggested").click().run()
    assert not at.exception
    shown = at.info[0].value
    for key, text in (("tune_threshold", "阈值 {:.2f}"), ("tune_min_coverage", "关键词覆盖下限 {:.0%}"),
                      ("tune_max_unknown_weight", "资料外词权重上限 {:.2f}")):
        assert text.format(at.slider(key=key).value) in shown


@pytest.mark.parametrize("tab", TABS)
def test_tuning_every_tab_renders(tuning, tab):
    at = tuning(tune_tab=tab)
    at.slider(key="tune_threshold").set_value(0.3).run()
    assert not at.exception
    assert not at.error


def test_tuning_histogram_tab_draws_a_chart(tuning):
    at = tuning(tune_tab="分数分布")
    assert len(at.get("vega_lite_chart")) == 1


def test_tuning_outcome_table_links_each_question_to_the_ask_page(tuning):
    at = tuning()
    outcomes = table(at, "提问页")
    assert len(outcomes) == 66
    first = outcomes.iloc[0]
    assert first["提问页"] == "/?q=" + quote(first["问题"], safe="")
    assert set(outcomes["结果"]) <= set(OUTCOMES)


def test_tuning_what_if_lists_flips_from_the_default(tuning):
    at = tuning(tune_tab="假如改参数")
    at.slider(key="tune_threshold").set_value(0.3).run()
    flips = table(at, "之后")
    assert len(flips) > 0 and set(flips["之后"]) <= {"误拒", "正确拒答"}  # a higher threshold only refuses more
    assert flips["之后的判断理由"].str.contains("低于阈值 0.30").any()


def test_tuning_batch_run_answers_every_question_and_queues_problems(tuning):
    at = tuning(tune_tab="批量运行")
    at.text_input(key="tune_actor").set_value("王老师").run()
    at.slider(key="tune_threshold").set_value(0.3).run()  # high enough that some answerable question is refused
    at.button(key="batch_start").click().run()
    assert not at.exception
    assert "批量运行完成：66 题" in at.success[0].value
    results = table(at, "复核条目")
    assert len(results) == 66
    queued = results["复核条目"].notna().sum()
    assert queued > 0
    queue = ReviewStore(database())
    assert queue.list(Filters(lane="batch")).total == queued


def test_tuning_batch_cancel_flag_stops_it(tuning):
    at = tuning(tune_tab="批量运行")
    at.button(key="batch_start").click().run()  # runs to the end within this rerun
    at.session_state["tune_batch"] = {**at.session_state["tune_batch"], "status": "running", "next": 10,
                                      "rows": at.session_state["tune_batch"]["rows"][:10]}
    at.session_state["tune_batch_cancelled"] = True
    at.run()
    assert not at.exception
    assert "已取消：完成了 10/66 题" in at.warning[0].value


def test_tuning_saving_an_unchanged_set_stores_no_new_version(tuning):
    at = tuning(tune_tab="题集管理")
    at.text_input(key="tune_actor").set_value("王老师").run()
    at.button(key="save_set").click().run()
    assert not at.exception
    assert any("和「默认题集」第 0 版完全相同，没有保存新版本" in i.value for i in at.info)
    assert [v.version for v in QuestionSetStore(database()).versions("默认题集")] == [0]


def test_tuning_misses_tab_lists_the_gates_own_wrong_outcomes(tuning):
    at = tuning(tune_tab="误判与同义词")
    at.slider(key="tune_threshold").set_value(0.3).run()
    assert not at.exception
    wrong = sum(v for k, v in counts(at).items() if k not in ("正确回答", "正确拒答"))
    listed = [m.value for m in at.markdown if m.value.startswith(("**误拒**", "**误答**", "**命中错误资料**"))]
    assert len(listed) == min(wrong, 30) and wrong > 0


def test_tuning_add_synonym_from_a_false_refusal(tuning):
    at = tuning(tune_tab="误判与同义词")
    at.slider(key="tune_threshold").set_value(0.3).run()  # high enough that some answerable question is refused
    at.text_input(key="tune_actor").set_value("王老师").run()
    word = at.selectbox(key="tune_synonym_word_0").value
    before = len(GlossaryStore(database()).load())
    at.text_input(key="tune_synonym_term_0").set_value("资料里的词")
    next(b for b in at.button if b.label == "加入同义词").click().run()
    assert not at.exception
    assert f"已加入同义词：“{word}”视为“资料里的词”" in at.success[0].value
    glossary = GlossaryStore(database()).load()
    assert len(glossary) == before + 1 and "资料里的词" in glossary.canonical(word)


def signed_in_tuning(monkeypatch, username: str) -> AppTest:
    """Sign in on the login form (XIAOE_AUTH=on), then open the tuning page in that session."""
    monkeypatch.setenv("XIAOE_AUTH", "on")
    add_staff(AccountStore(open_database(Settings.from_env().db_url), hasher=FAST_HASHER))
    at = AppTest.from_file(ROUTER, default_timeout=30).run()
    at.text_input(key="login_username").set_value(username)
    at.text_input(key="login_password").set_value(PASSWORD)
    token = at.button(key="login_submit").click().run().session_state["auth_token"]
    at = AppTest.from_file(ROUTER, default_timeout=30)
    at.session_state["auth_token"] = token
    at.run().switch_page(PAGE).run()
    assert not at.exception, at.exception
    return at


def test_tuning_consultant_cannot_save_a_default(app_env, monkeypatch):
    at = signed_in_tuning(monkeypatch, "amy")
    at.slider(key="tune_threshold").set_value(0.42).run()
    assert at.button(key="save_default").disabled
    assert any("只有管理员可以修改默认值" in c.value for c in at.caption)
    assert at.text_input(key="tune_actor_shown").value == "顾问 Amy（amy）"


def test_tuning_admin_saves_a_default_as_themselves(app_env, monkeypatch):
    at = signed_in_tuning(monkeypatch, "boss")
    at.slider(key="tune_threshold").set_value(0.42).run()
    at.button(key="save_default").click().run()
    at.button(key="tune_confirm_ok").click().run()
    assert not at.exception
    assert DefaultsStore(database()).current().actor == "王校长（boss）"


def test_tuning_page_shows_the_reuse_threshold_in_effect(tuning, monkeypatch):
    monkeypatch.setenv("XIAOE_REUSE_THRESHOLD", "0.61")
    at = tuning()
    lines = [c.value for c in at.caption if "复用相似度下限" in c.value]
    assert lines and "0.61" in lines[0] and "复用已开" in lines[0]


LEVEL_JUMP = "level 1 上完了能直接转 level 3 吗"  # the documents say levels can be skipped


def queue_question(question: str) -> None:
    from core.stores.review import ReviewStore
    from core.values import Problem, RAGAnswer

    ReviewStore(database()).enqueue(
        RAGAnswer(question=question, text="可以跳级 [1]", hits=(), candidates=(), threshold=0.0, k=3, refused=False,
                  model_called=True, problems=(Problem("manual", "请核对"),)), origin="manual", flagged_by="王老师")


def test_tuning_save_default_lists_the_asked_question_it_would_flip(tuning):
    queue_question(LEVEL_JUMP)
    at = tuning()
    at.text_input(key="tune_actor").set_value("王校长").run()
    for key, value in (("tune_threshold", 0.0), ("tune_k", 3), ("tune_max_unknown_weight", 0.51)):
        at.slider(key=key).set_value(value).run()
    at.slider(key="tune_min_coverage").set_value(0.8).run()  # coverage of LEVEL_JUMP is 74% at k=3
    at.button(key="save_default").click().run()
    assert not at.exception
    lines = "\n".join(m.value for m in at.markdown)
    assert "最近 30 天真实问过的问题" in lines and "回答 → 拒答（1）" in lines and "level 3" in lines
    assert DefaultsStore(database()).history() == ()  # seen before anything is saved
    at.button(key="tune_confirm_ok").click().run()
    assert not at.exception and len(DefaultsStore(database()).history()) == 1


def test_tuning_history_restores_earlier_values_through_the_same_confirmation(tuning):
    at = tuning()
    at.text_input(key="tune_actor").set_value("王校长").run()
    at.slider(key="tune_threshold").set_value(0.33).run()
    at.button(key="save_default").click().run()
    at.button(key="tune_confirm_ok").click().run()
    at.slider(key="tune_threshold").set_value(0.2).run()
    at.button(key="save_default").click().run()
    at.button(key="tune_confirm_ok").click().run()
    assert [c.new_threshold for c in DefaultsStore(database()).history()] == [0.2, 0.33]
    at.session_state["tune_tab"] = "默认值修改记录"
    at.run()
    first = DefaultsStore(database()).history()[1]
    at.selectbox(key="tune_restore_pick").set_value(first).run()
    at.button(key="tune_restore").click().run()
    assert not at.exception
    assert at.slider(key="tune_threshold").value == 0.33
    assert any("回答 → 拒答" in m.value for m in at.markdown)  # the same confirmation, with the impact
    assert len(DefaultsStore(database()).history()) == 2  # nothing saved yet
    at.button(key="tune_confirm_ok").click().run()
    assert [c.new_threshold for c in DefaultsStore(database()).history()] == [0.33, 0.2, 0.33]


def test_tuning_history_restores_the_factory_values_through_the_same_confirmation(tuning):
    at = tuning()
    factory = at.slider(key="tune_threshold").value
    at.text_input(key="tune_actor").set_value("王校长").run()
    at.slider(key="tune_threshold").set_value(0.33).run()
    at.button(key="save_default").click().run()
    at.button(key="tune_confirm_ok").click().run()
    at.session_state["tune_tab"] = "默认值修改记录"
    at.run()
    pick = at.selectbox(key="tune_restore_pick")
    assert pick.value != "factory" and pick.options[0].startswith("出厂值（校准文件和环境设置）")
    pick.set_value("factory").run()
    at.button(key="tune_restore").click().run()
    assert not at.exception
    assert at.slider(key="tune_threshold").value == factory
    assert any("确认保存" in b.label for b in at.button)  # the dialog of 设为默认, nothing saved yet
    assert len(DefaultsStore(database()).history()) == 1
    at.button(key="tune_confirm_ok").click().run()
    assert [c.new_threshold for c in DefaultsStore(database()).history()] == [factory, 0.33]


def test_tuning_row_numbers_start_at_1_like_the_set_editor(tuning):
    at = tuning()
    numbers = list(table(at, "行号")["行号"])
    assert sorted(numbers)[:2] == [1, 2] and max(numbers) == 66
