"""The tuning page's 运行记录 tab and the batch run against the baseline, through AppTest from the router."""

from __future__ import annotations

from core.settings import Settings
from core.stores.db import Database
from core.stores.runs import RunStore

PAGE = "app_pages/tuning.py"


def frames(at, column: str):
    return [d.value for d in at.dataframe if column in d.value.columns]


def save_run(at, name: str) -> None:
    at.text_input(key="tune_run_name").set_value(name)
    at.button(key="FormSubmitter:tune_save_run-保存运行").click().run()
    assert not at.exception, at.exception


def test_runs_tab_saves_two_runs_and_compares_them(tuning):
    at = tuning(tune_tab="运行记录", tune_actor="王老师")
    save_run(at, "默认参数")
    assert any("已保存运行「默认参数」" in s.value for s in at.success)
    at.slider(key="tune_threshold").set_value(0.3).run()
    save_run(at, "高阈值")
    runs = RunStore(Database(Settings.from_env().db_url)).list()
    assert [r.name for r in runs] == ["高阈值", "默认参数"]
    assert runs[0].kind == "tuning" and runs[0].knobs["threshold"] == 0.3
    at.selectbox(key="tune_compare_a").set_value("默认参数")
    at.selectbox(key="tune_compare_b").set_value("高阈值").run()
    flips = frames(at, "之后的理由")
    assert flips and sum(len(f) for f in flips) > 0
    assert all(set(f["之后"]) <= {"误拒", "正确拒答"} for f in flips)  # a higher threshold only refuses more
    assert all(f["之后的理由"].str.contains("低于阈值 0.30").all() for f in flips)
    settings = frames(at, "项目")[0]
    assert "threshold" in set(settings["项目"])


def test_the_compare_view_follows_the_newest_runs_saved_in_the_same_session(tuning):
    at = tuning(tune_tab="运行记录", tune_actor="王老师")
    save_run(at, "出厂值")
    assert any("再保存一次运行" in c.value for c in at.caption)
    at.slider(key="tune_threshold").set_value(0.3).run()
    save_run(at, "高阈值")
    assert any(m.value.startswith("**出厂值 → 高阈值**") for m in at.markdown), [m.value for m in at.markdown]
    at.selectbox(key="tune_compare_a").set_value("高阈值")
    at.selectbox(key="tune_compare_b").set_value("出厂值").run()
    assert any(m.value.startswith("**高阈值 → 出厂值**") for m in at.markdown)  # a choice on the same list stays
    at.slider(key="tune_threshold").set_value(0.35).run()
    save_run(at, "更高阈值")
    assert any(m.value.startswith("**高阈值 → 更高阈值**") for m in at.markdown)


def test_batch_run_lists_its_flips_against_the_baseline_and_can_be_saved(tuning):
    at = tuning(tune_tab="运行记录", tune_actor="王老师")
    save_run(at, "基准")
    at.button(key="tune_mark_baseline").click().run()
    assert RunStore(Database(Settings.from_env().db_url)).baseline() == "基准"
    at.session_state["tune_tab"] = "批量运行"
    at.slider(key="tune_threshold").set_value(0.3).run()
    at.button(key="batch_start").click().run()
    assert not at.exception, at.exception
    assert any("与基准运行「基准」相比" in m.value for m in at.markdown)
    flips = frames(at, "之后的理由")
    assert sum(len(f) for f in flips) > 0
    at.text_input(key="batch_run_name").set_value("批量高阈值")
    at.button(key="FormSubmitter:batch_save_run-把这次批量运行保存为运行").click().run()
    assert not at.exception, at.exception
    saved = RunStore(Database(Settings.from_env().db_url)).load("批量高阈值")
    assert saved.info.kind == "batch" and saved.info.question_count == 66 and saved.info.actor == "王老师"
