"""The labelled question sets the benches read, and the Assistant they measure (the shipped starter glossary,
so the numbers do not depend on anyone's edits of the database glossary)."""

from __future__ import annotations

from pathlib import Path

from core.answerability.glossary import load_starter
from core.assistant import Assistant, build_assistant
from core.evaluation.calibration import SETS_DIR
from core.evaluation.metrics import EvaluatedSet, Evaluation, evaluate_at, evaluate_set
from core.knobs import Knobs
from core.retrieval.store import IndexBundle, load_or_build
from core.sets.format import LabelledQuestion, read_question_file
from core.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
DATA = SETS_DIR
CALIBRATION_SETS = (("校准集（书面）calibration.csv", "calibration.csv"),
                    ("校准集（口语）calibration_spoken.csv", "calibration_spoken.csv"))
# Each held-out set was written by someone who never saw the system, its glossary or its other sets,
# label-reviewed by a second reader, committed, and measured once; then it joined the calibration sets
# (core.evaluation.calibration), except the newest, which judged the last change.
HELDOUT_SETS = (("学员微信留言 v10 student_heldout_v10.csv（盲写，错别字、夹英文、方言、客套话）", "student_heldout_v10.csv"),
                ("学员微信留言 v9 student_heldout_v9.csv（盲写，错别字、夹英文、方言、客套话）", "student_heldout_v9.csv"),
                ("学员微信留言 v8 student_heldout_v8.csv（盲写，错别字、夹英文、客套话）", "student_heldout_v8.csv"),
                ("学员问题留出集 v7 student_heldout_v7.csv（盲写）", "student_heldout_v7.csv"),
                ("学员问题留出集 v6 student_heldout_v6.csv（盲写）", "student_heldout_v6.csv"))
DEV_STUDENT_SETS = (("学员问题 v5 student_heldout_v5.csv（盲测一次后转为开发集）", "student_heldout_v5.csv"),
                    ("学员问题 v4 student_heldout.csv（盲测一次后转为开发集）", "student_heldout.csv"),
                    ("学员问题 v3 student_questions_v3.csv（测过一次后转为开发集）", "student_questions_v3.csv"),
                    ("学员问题 v2 student_questions_v2.csv（测过一次后转为开发集）", "student_questions_v2.csv"),
                    ("学员问题 v1 student_questions.csv（开发中看过多轮）", "student_questions.csv"))


def read_set(file: str) -> tuple[LabelledQuestion, ...]:
    return read_question_file(DATA / file).questions


def bench_assistant(settings: Settings | None = None, *, bundle: IndexBundle | None = None, glossary=True,
                    answerability: str = "on", knobs: Knobs | None = None) -> Assistant:
    """The Assistant as the console composes it, with the starter glossary (`glossary=None`: none)."""
    settings = (settings or Settings.from_env()).with_(answerability=answerability)
    bundle = bundle or load_or_build(settings)
    chosen = load_starter(corpus_dir=settings.corpus_dir) if glossary is True else glossary
    return build_assistant(settings, bundle, chosen, knobs=knobs)


def run(assistant: Assistant, file: str, knobs: Knobs | None = None) -> tuple[EvaluatedSet, Evaluation]:
    evaluated = evaluate_set(assistant, read_set(file))
    return evaluated, evaluate_at(evaluated, knobs or assistant.knobs)
