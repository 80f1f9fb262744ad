"""One assistant, one gate: `eval`, `ask` (the Ask page's path) and the CLI decide every shipped labelled
question identically, at the defaults and at two other knob settings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.assistant import open_assistant
from core.cli import main
from core.knobs import Knobs
from core.sets.format import read_question_file
from core.settings import Settings
from core.stores.question_sets import DEFAULT_SET_PATH
from tests.paths import SETS as DATA

SETS = sorted(p for p in DATA.glob("*.csv") if p.name.startswith(("student_", "calibration"))) + [DEFAULT_SET_PATH]
OTHER_KNOBS = (Knobs(threshold=0.05, k=2, min_coverage=0.45, max_unknown_weight=0.6),
               Knobs(threshold=0.15, k=5, min_coverage=0.7, max_unknown_weight=0.3))


def eval_json(capsys, path: Path, knobs: Knobs | None) -> dict:
    flags = [] if knobs is None else ["--min-score", str(knobs.threshold), "--k", str(knobs.k), "--min-coverage",
                                      str(knobs.min_coverage), "--max-unknown-weight", str(knobs.max_unknown_weight)]
    assert main(["eval", str(path), "--json", *flags]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.name)
def test_eval_and_ask_decide_every_question_alike(isolated_env, capsys, path):
    assistant = open_assistant(Settings.from_env())
    questions = read_question_file(path).questions
    for knobs in (None, *OTHER_KNOBS):
        report = eval_json(capsys, path, knobs)
        used = knobs or assistant.knobs
        assert report["knobs"] == used.to_dict()
        assert len(report["questions"]) == len(questions)
        # eval reports the gate's decision; ask also reports a model that answered with the refusal sentence
        refused = [assistant.ask(q.question, used).gate_refused for q in questions]
        assert [row["refused"] for row in report["questions"]] == refused, (path.name, used)
        assert report["metrics"]["counts"]["正确拒答"] + report["metrics"]["counts"]["误拒"] == sum(refused)
        # the outcome (from the arrays the tuning page uses) and the gate's own decision agree per question
        assert all((row["outcome"] in ("正确拒答", "误拒")) == row["refused"] for row in report["questions"])


def test_cli_ask_reports_the_knobs_it_used_and_matches_eval(isolated_env, capsys):
    knobs = OTHER_KNOBS[0]
    question = read_question_file(DATA / "calibration_spoken.csv").questions[0].question
    assert main(["ask", question, "--json", "--no-queue", "--min-score", "0.05", "--k", "2",
                 "--min-coverage", "0.45", "--max-unknown-weight", "0.6"]) == 0
    asked = json.loads(capsys.readouterr().out)
    assert asked["knobs"] == knobs.to_dict()
    report = eval_json(capsys, DATA / "calibration_spoken.csv", knobs)
    assert asked["gate_refused"] == report["questions"][0]["refused"]
    assert {"question", "refused", "answer", "threshold", "k", "hits", "problems", "queued"} <= set(asked)


def test_a_bad_knob_flag_names_the_flag(isolated_env, capsys):
    assert main(["eval", "--min-score", "2"]) == 1
    err = capsys.readouterr().err
    assert "--min-score" in err and "XIAOE_MIN_SCORE" not in err


@pytest.mark.parametrize("name", ["calibration.csv", "calibration_spoken.csv"])
def test_the_threshold_slider_changes_decisions_within_the_calibration_range(isolated_env, name):
    """From the default to the highest top ranking score of an answerable question, the threshold matters."""
    from core.evaluation.metrics import evaluate_at, evaluate_set

    assistant = open_assistant(Settings.from_env(), with_model=False)
    evaluated = evaluate_set(assistant, read_question_file(DATA / name))
    highest = max(float(v) for v, refuse in zip(evaluated.top, evaluated.should_refuse) if not refuse)
    at_default = evaluate_at(evaluated, assistant.knobs)
    at_highest = evaluate_at(evaluated, assistant.knobs.with_(threshold=highest))
    assert sum(a != b for a, b in zip(at_default.outcomes, at_highest.outcomes)) >= 1


def test_the_seed_questions_flip_when_the_threshold_passes_their_top_ranking_score(isolated_env):
    assistant = open_assistant(Settings.from_env(), with_model=False)
    for question in ("启明英语的口语课一共有几级？", "我报了口语课三级，学费 4800，上了 4 课时不想学了，能退多少钱？"):
        retrieval = assistant.retrieve(question)
        top = retrieval.candidates[0].value
        assert not assistant.gate(retrieval).refused
        assert not assistant.gate(retrieval, assistant.knobs.with_(threshold=top)).refused  # >= passes
        assert assistant.gate(retrieval, assistant.knobs.with_(threshold=min(1.0, top + 0.01))).refused


def test_a_repeated_question_is_retrieved_once_and_decided_alike(isolated_env, monkeypatch):
    import core.assistant as assistant_module

    assistant = open_assistant(Settings.from_env(), with_model=False)
    calls = []
    real = assistant_module.retrieve
    monkeypatch.setattr(assistant_module, "retrieve", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    first = assistant.respond("口语课一共有几级？")
    again = assistant.respond("  口语课一共有几级？ ")  # the same question once validated
    assert len(calls) == 1
    assert (again.kind, again.answer.text, again.gate.reason) == (first.kind, first.answer.text, first.gate.reason)
    other = open_assistant(Settings.from_env(), with_model=False)  # another chain (another index or glossary)
    other.respond("口语课一共有几级？")
    assert len(calls) == 2
