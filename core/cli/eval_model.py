"""`python -m core eval [SET] --with-model`: the set through the gate, the grader and the configured model.

Before any model call it prints (on stderr) how many questions fall in the uncertain band and a
rough token count for their grader requests; while it runs, a progress bar (stderr); at the end a
table (stdout) comparing the gate alone with gate + grader + answer, the grader's verdicts in the
band against the labels, and the tokens and time the grader used. The grader is switched on for
this run (XIAOE_GRADER=band) whatever the setting says, so a school can measure it before turning
it on; the band's edges are the ones in force (XIAOE_GRADER_BAND_COVERAGE / _UNKNOWN).
"""

from __future__ import annotations

import sys

from core.assistant import open_assistant
from core.cli.knobs import knobs_from_args
from core.cli.parser import progress_line
from core.errors import ConfigError
from core.evaluation.metrics import CORRECT_ANSWER, CORRECT_REFUSAL, FALSE_ANSWER, FALSE_REFUSAL, WRONG_SOURCE, Metrics
from core.evaluation.model_eval import ModelRun, Planned, plan, run_model
from core.settings import Settings
from core.stores.question_sets import corpus_catalog, load_default_set, read_question_file

BAR_WIDTH = 30


def run(args) -> int:
    settings = Settings.from_env()
    if not settings.llm_configured:
        raise ConfigError("--with-model 需要先配置回答模型：请设置 XIAOE_LLM_BASE_URL 和 XIAOE_LLM_MODEL"
                          "（见 docs/grader.md），或去掉 --with-model 只评测闸门。")
    assistant = open_assistant(settings.with_(grader="band"))
    knobs = knobs_from_args(args, assistant.knobs)
    files, sections = corpus_catalog(assistant.index)
    questions = (read_question_file(args.set_path, known_files=files, known_sections=sections)
                 if args.set_path else load_default_set()).questions
    planned = plan(assistant, questions, knobs)
    s = assistant.settings
    print(estimate_line(planned) + f"（模型 {s.llm_model}；判定区间：覆盖余量 {s.grader_band_coverage:.2f}，"
          f"资料外词权重上限 {s.grader_band_unknown:.2f}）", file=sys.stderr, flush=True)
    result = run_model(assistant, planned, progress=progress_bar)
    name = args.set_path or "默认题集"
    m = result.metrics
    print(f"题集：{name}（{m.total} 题：应答 {m.answerable}，应拒 {m.unanswerable}）  模型 {s.llm_model}  "
          f"资料指纹 {assistant.fingerprint}")
    print(f"闸门参数：{knobs.describe()}")
    print(format_model_table(result))
    return 0


def estimate_line(planned: Planned) -> str:
    return (f"预计：{len(planned.questions)} 题中 {planned.band_count} 题在不确定区间，各发一次模型判定请求，"
            f"约 {planned.grader_tokens} tokens（按每字约 1 token 粗算）；回答请求至多 {planned.answer_calls} 次")


def progress_bar(done: int, total: int) -> None:
    """The bar on stderr: redrawn in place on a terminal, one line per update when stderr is a file or a pipe."""
    filled = BAR_WIDTH * done // total if total else BAR_WIDTH
    progress_line(f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done}/{total}", last=done >= total)


def format_model_table(r: ModelRun) -> str:
    """Gate alone beside gate + grader + answer, then the grader's verdicts and cost."""
    def share(m: Metrics, outcome: str, whole: int) -> str:
        part = m.count(outcome)
        return f"{part}/{whole}（{part / whole:.1%}）" if whole else "—"

    g, m = r.gate_metrics, r.metrics
    rows = [("", "只用闸门", "闸门+模型判定+回答"),
            ("可答题答出且命中事实", share(g, CORRECT_ANSWER, g.answerable), share(m, CORRECT_ANSWER, m.answerable)),
            ("应拒答题已拒答", share(g, CORRECT_REFUSAL, g.unanswerable), share(m, CORRECT_REFUSAL, m.unanswerable))]
    rows += [(label, str(g.count(label)), str(m.count(label))) for label in (FALSE_REFUSAL, FALSE_ANSWER, WRONG_SOURCE)]
    verdicts = r.said_yes + r.said_no
    rows += [("不确定区间的题", "—", f"{r.band_count} 题：判可答 {r.said_yes}，判不可答 {r.said_no}，判定失败 {r.faults}"),
             ("判定与标注一致", "—", f"{r.agree}/{verdicts}" if verdicts else "—"),
             ("判定与标注不一致", "—", f"{verdicts - r.agree}（判可答但应拒 {r.yes_but_refuse}，"
                                       f"判不可答但应答 {r.no_but_answer}）" if verdicts else "—"),
             ("模型判定用量", "—", f"输入 {r.prompt_tokens} tokens，输出 {r.completion_tokens} tokens"),
             ("模型判定用时", "—", f"{r.grader_ms} 毫秒"),
             ("回答请求失败", "—", str(r.answer_failures)),
             ("总用时", "—", f"{r.seconds:.1f} 秒")]
    return _columns(rows)


def _columns(rows: list[tuple[str, str, str]]) -> str:
    first = max(_width(a) for a, _, _ in rows)
    second = max(_width(b) for _, b, _ in rows)
    return "\n".join(f"  {a}{' ' * (first - _width(a))}  {b}{' ' * (second - _width(b))}  {c}" for a, b, c in rows)


def _width(text: str) -> int:
    return sum(2 if ord(ch) > 0x2E7F else 1 for ch in text)  # CJK takes two terminal columns
