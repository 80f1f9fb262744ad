"""提问与检查: ask a student's question, see what was retrieved, how the gate decided and how the answer was checked.

A question is retrieved and ranked once (the Assistant's `Retrieval`, kept in session_state as UI state)
and answered through `Assistant.respond_stream`, whose last piece is the question's one Outcome; the
review queue records it through `ReviewStore.record`, as the CLI and batch runs do. Every slider move
re-runs the gate on the stored retrieval (no retrieval, no model call): the decision panel, the chart
and the comparison lines show the current gate, and a banner above the answer says when the answer on
screen no longer stands at the current knobs (`core.answerability.gate.recheck`).

Each question asked is stored for the consultant (ui/ask_memory.py: 「我最近问过」 across reloads and devices) and
put in the address as `/?q=`, so a reload asks it again; a reload of the consultant's newest question is not
recorded in the queue or the history a second time. 「对比两组参数」 decides the stored retrieval at the sliders
and at the saved default side by side, without a model call.
"""

from __future__ import annotations

import streamlit as st

from core.answerability.gate import recheck
from core.assistant import Assistant
from core.errors import InvalidQuestion, XiaoEError
from core.knobs import HELP, LABELS, MAX_TOP_K, Knobs
from core.retrieval.store import IndexBundle
from core.values import Decision, Gate, Outcome, Problem, RAGAnswer, Recheck
from core.values.conversations import KIND_LABELS
from ui import answer_view as view
from ui.approved_view import near_lines, reused_line
from ui.ask_memory import PICKED, latest_question, remember, render_compare, render_recent
from ui.auth import authorize, guard_page, signed_in_name
from ui.escape import md_escape
from ui.knob_state import hold, touched
from ui.review_view import review_url
from ui.source_view import source_url
from ui.state import get_approved_store, get_assistant, get_glossary, get_index, get_review_store, get_settings

RUN = "ask_run"        # the last question asked: {"retrieval", "fingerprint", "glossary"}
RESULT = "ask_result"  # what came of it: {"outcome", "answer", "queued", "queue_error"}
LINKED = "_ask_linked"  # (ok, message) after 「这是同一个问题」
REGENERATE = "_ask_regenerate"  # set by the 「按新参数重新回答」 button
DEFAULTS = "_ask_defaults"
KNOB_KEYS = ("threshold", "k", "min_coverage", "max_unknown_weight")  # the sliders' keys, named as Knobs fields
EXAMPLE = "启明英语的口语课一共有几级？"
THREAD = "_ask_thread"  # 「接着问」: how the last question was read in its thread (a Standalone)


def ask(question: str, knobs: Knobs, bundle: IndexBundle, *, restored: bool = False,
        after: Outcome | None = None) -> None:
    """Retrieve and rank once for the largest k, then answer for the current sliders. `restored`: a reload of the
    question already recorded (it is answered again, not recorded again). `after`: 「接着问」 — the question is
    read as the next message of a conversation whose last turn was this outcome (core.conversations), and its
    standalone question is what is asked."""
    try:
        glossary = get_glossary()
    except XiaoEError as error:
        st.warning(md_escape(f"同义词表读不出来，这次检索不做同义词扩展：{error}"))
        glossary = None
    try:
        assistant = get_assistant(bundle, glossary)
        st.session_state.pop(THREAD, None)
        if after is not None:
            read = assistant.in_context(question, assistant.turn_of(after))
            st.session_state[THREAD] = read
            question = read.question
        retrieval = assistant.retrieve(question)
    except InvalidQuestion as error:
        (st.warning if (question or "").strip() else st.info)(str(error))
        return
    except XiaoEError as error:
        st.error(md_escape(str(error)))
        return
    st.session_state[RUN] = {"retrieval": retrieval, "fingerprint": bundle.fingerprint, "glossary": glossary}
    st.query_params["q"] = retrieval.question  # a reload keeps the question
    st.session_state["_ask_q_done"] = retrieval.question
    generate(assistant, st.session_state[RUN], knobs, record=not restored)


def slider_defaults(knobs: Knobs) -> Knobs:
    """The knobs in force (calibrated, environment, then the default saved on the tuning page).

    Read once per session; when an admin saves new defaults, the sliders move to them once."""
    if st.session_state.get(DEFAULTS) != knobs:
        st.session_state[DEFAULTS] = knobs
        st.session_state.update({key: getattr(knobs, key) for key in KNOB_KEYS})
    hold(KNOB_KEYS)  # the browser redraws the server's values (ui.knob_state)
    return knobs


def knob_sliders(defaults: Knobs, decides: bool) -> Knobs:
    """The four knobs as sliders, each with its one Chinese label."""
    left, right = st.columns(2)
    threshold = left.slider(f"{LABELS['threshold']}：排序分 ≥ 阈值的片段才算命中", 0.0, 1.0, step=0.01,
                            key="threshold", help=HELP["threshold"], on_change=touched, args=("threshold",))
    k = right.slider(f"{LABELS['k']}：最多保留的片段数", 1, MAX_TOP_K, step=1, key="k", help=HELP["k"],
                     on_change=touched, args=("k",))
    coverage, unknown = defaults.min_coverage, defaults.max_unknown_weight
    if decides:
        left, right = st.columns(2)
        coverage = left.slider(LABELS["min_coverage"], 0.0, 1.0, step=0.01, key="min_coverage",
                               help=HELP["min_coverage"], on_change=touched, args=("min_coverage",))
        unknown = right.slider(LABELS["max_unknown_weight"], 0.0, 1.0, step=0.01, key="max_unknown_weight",
                               help=HELP["max_unknown_weight"], on_change=touched, args=("max_unknown_weight",))
    return Knobs(threshold=threshold, k=k, min_coverage=coverage, max_unknown_weight=unknown)


def generate(assistant: Assistant, run: dict, knobs: Knobs, *, record: bool = True) -> None:
    """Answer the stored retrieval at `knobs` (the draft streams on screen, escaped), then record the one
    outcome in the review queue and the consultant's history. A question in the grader's band is first judged
    by the model."""
    stream = assistant.respond_stream(run["retrieval"], knobs)
    with st.spinner("正在判断资料能否回答……" if assistant.grades else "正在判断……"):
        first = next(stream)
    outcome = first if isinstance(first, Outcome) else _show_draft(first, stream)
    result = {"outcome": outcome, "answer": outcome.answer, "queued": None, "queue_error": None}
    st.session_state[RESULT] = result
    if not record:
        return
    try:
        result["queued"] = get_review_store().record(outcome, asker=signed_in_name())
    except XiaoEError as error:
        result["queue_error"] = f"没能记入复核队列：{error}"
    remember(outcome, knobs)


def _show_draft(first: str, stream) -> Outcome:
    """Stream the draft on screen (escaped), then clear it: only the checked answer stays."""
    end: list[Outcome] = []

    def pieces():
        yield view.md_escape(first)
        for piece in stream:
            if isinstance(piece, Outcome):
                end.append(piece)
                return
            yield view.md_escape(piece)

    slot = st.empty()
    try:
        with slot.container(border=True):
            st.caption("正在生成回答……检查通过之前，这不是最终回答。")
            st.write_stream(pieces())
    finally:
        slot.empty()
    return end[0]


def render_recheck(check: Recheck) -> None:
    """Above the answer: the answer on screen no longer stands at the current knobs, and why, in numbers."""
    if check.stands:
        return
    if check.flip == "refuse":
        head = "按现在的参数，这个问题会被拒答，下面的回答是按之前的参数生成的。"
    elif check.flip == "answer":
        head = "按现在的参数，这个问题会作答，下面的拒答是按之前的参数做出的。"
    else:
        head = "现在通过的片段和生成回答时不同，下面的回答已过期。"
    st.warning(head + "  \n" + "；".join(md_escape(line) for line in check.lines))
    st.button("按新参数重新回答", key="regenerate", type="primary",
              on_click=lambda: st.session_state.update({REGENERATE: True}))


def render_answer(run: dict, result: dict, current: Gate, user) -> None:
    outcome: Outcome | None = result.get("outcome")
    if outcome is None:
        return
    st.subheader("回答")
    st.caption(f"问题：{view.md_escape(run['retrieval'].question)}")
    render_recheck(recheck(outcome.gate, current, reused=outcome.reused is not None))
    if result.get("queue_error"):
        st.warning(md_escape(result["queue_error"]))
    if outcome.failure is not None:
        st.error(md_escape(outcome.failure.message))
        if result.get("queued"):
            st.caption(f"已记入复核队列（模型故障）#{result['queued']}")
        st.button("重新生成回答", key="retry", type="primary",
                  on_click=lambda: st.session_state.update({REGENERATE: True}))
        return
    answer = outcome.answer
    if outcome.reused is not None:
        served = outcome.reuse.served if outcome.reuse is not None else None
        st.info(reused_line(outcome.reused, served.wording if served is not None else ""))
    for line in near_lines(outcome.reuse):
        st.caption(line)
    render_link(outcome, run["retrieval"].question, user)
    render_grade(answer)
    if answer.refused:
        render_refusal(answer, current.decision)
    elif answer.flagged:
        queued = "已记入复核队列" if result.get("queued") else "但没能记入复核队列"
        st.error(f"该回答未通过检查，不会发给学员，{queued}")
        st.markdown("**检查发现的问题**\n\n" + view.problem_lines(answer.problems))
        with st.expander("未通过检查的草稿（不要发给学员）"):
            spans = [p.span for p in answer.problems if p.span]
            st.markdown(view.linked_answer(answer.text, answer.hits, mark=spans))
        render_verdicts(answer)
        render_citations(answer)
    else:
        with st.container(border=True):
            st.markdown(view.linked_answer(answer.text, answer.hits))
        st.success("引用检查：通过（出处编号都对应本次提供的片段，数字和算式也已核对）")
        render_copy(answer)
        render_verdicts(answer)
        render_citations(answer)
    render_flag(answer, run["fingerprint"], user, outcome)


def render_link(outcome: Outcome, question: str, user) -> None:
    """A near miss stopped only by its words (guard `match`): the consultant can say it is the same question; the
    wording joins that approved answer (its case, amounts and what it asks are still checked) and 小E answers again."""
    notice = st.session_state.pop(LINKED, None)
    if notice:
        (st.success if notice[0] else st.error)(md_escape(notice[1]))
    if outcome.reuse is None or not user.can("link_question"):
        return
    for near in outcome.reuse.near:
        if near.failed == "match":
            st.button(f"这是同一个问题，加入已审答案 #{md_escape(str(near.answer.id))} 的问法", key=f"link_{near.answer.id}",
                      on_click=link_wording, args=(user, near.answer.id, question))


def link_wording(user, answer_id: int, question: str) -> None:
    bundle, _ = get_index()
    try:
        get_approved_store().link_question(user, answer_id, question, authorize=authorize(),
                                           facts=bundle.facts if bundle else None)
    except XiaoEError as error:
        st.session_state[LINKED] = (False, str(error))
    else:
        st.session_state[LINKED] = (True, f"已把这个问法加入已审答案 #{answer_id}，下面按它重新回答。")
        st.session_state[REGENERATE] = True


def render_grade(answer: RAGAnswer) -> None:
    """「由模型判定可答：…理由」 (or why the grader refused), with its cost; the model's words escaped."""
    grade = answer.grade
    if grade is None:
        return
    line = f"{view.md_escape(grade.describe())}（{grade.cost()}）"
    if grade.answerable and not grade.fault and not answer.refused:
        st.info(line + "。这条回答记入复核队列的「模型判定可答」通道，顾问通过之前不要发给学员。")
    else:
        st.caption(line)


def render_refusal(answer: RAGAnswer, decision: Decision | None) -> None:
    st.warning(view.md_escape(answer.text))
    st.markdown(f"**拒答原因**：{view.md_escape(answer.reason)}")
    if answer.grade is not None and not answer.model_called:
        st.caption("只调用了模型判定，没有生成回答")
    else:
        st.caption("已调用模型（模型判断资料不足）" if answer.model_called else "未调用模型")


def render_verdicts(answer: RAGAnswer) -> None:
    """逐句核对: the grounding check's verdict for every sentence (✓ or what is wrong)."""
    frame = view.verdict_frame(answer.text, answer.grounding)
    if not frame.empty:
        with st.expander("逐句核对（数字、算式、出处）", expanded=answer.flagged):
            st.table(frame)


def render_decision(decision: Decision | None) -> None:
    """The current gate's decision: every comparison at the sliders' values."""
    if decision is not None:
        st.markdown(f"**可答性判断（按当前参数）**：{view.md_escape(decision.reason)}")
        st.table(view.signal_frame(decision))


def render_citations(answer: RAGAnswer) -> None:
    frame = view.citation_frame(answer)
    st.markdown("**引用的片段**")
    if frame.empty:
        st.caption("回答里没有可对应到片段的出处编号。")
    else:
        st.table(frame.set_index("编号"))


def render_flag(answer: RAGAnswer, fingerprint: str, user, outcome: Outcome) -> None:
    """「标记复核」: a consultant sends an answer to the queue by hand, with a name and a note."""
    if not user.can("flag"):
        return
    queued = None
    with st.expander("标记复核"):
        with st.form("flag_form", border=False):
            name = signed_in_name()
            if name:
                st.caption(f"标记人：{view.md_escape(name)}（已登录）")
            else:
                name = st.text_input("标记人", key="flag_name", value=st.session_state.get("reviewer", ""))
            note = st.text_input("说明（可选）", key="flag_note", placeholder="例如：金额和制度不符")
            if st.form_submit_button("标记复核", key="flag"):
                reasons = (Problem("manual", note.strip()),) if note.strip() else ()
                try:
                    item = get_review_store().enqueue(answer, origin="manual", fingerprint=fingerprint,
                                                      flagged_by=name, extra_reasons=reasons,
                                                      authorize=authorize())
                except XiaoEError as error:
                    st.error(md_escape(str(error)))
                else:
                    queued = item
    if queued is not None:  # outside the expander: the submit's rerun may draw it closed, hiding the line
        confirm_queued(queued)


def render_copy(answer: RAGAnswer) -> None:
    """The checked answer as plain text with Streamlit's copy icon (top right of the box)."""
    with st.expander("复制回答（点框右上角的复制图标）"):
        st.code(answer.text, language=None, wrap_lines=True)


def confirm_queued(item: int) -> None:
    """A toast (seen wherever the reader scrolled) and a line with a link to the item."""
    st.toast(f"已记入复核队列 #{item:d}", icon=":material/check_circle:")
    st.success(f"已记入复核队列 #{item}：[在复核队列打开]({review_url(item)})")


def render_candidates(run: dict, gate: Gate) -> None:
    st.subheader("检索到的片段")
    candidates = run["retrieval"].candidates
    st.caption(f"每个问题只检索一次，取前 {len(candidates)} 个候选；当前阈值 {gate.threshold:.2f}、"
               f"k = {gate.k}，命中 {len(gate.hits)} 个。移动滑块只重新判断，不会再调用模型。")
    frame = view.candidate_frame(gate, candidates)
    if frame.empty:
        st.info("资料库里没有可检索的片段。")
        return
    if view.COVERAGE in frame.columns:
        st.caption(view.RERANK_NOTE + (view.ASKED_NOTE if view.ASKED in frame.columns else ""))
    else:
        st.caption("可答性判断已关闭：排序分就是检索分。")
    st.altair_chart(view.score_chart(frame, gate.threshold), width="stretch")
    st.table(view.styled_candidates(frame))
    with st.expander("打开候选片段的原文"):
        st.markdown("\n".join(
            f"- #{h.rank} [{view.md_escape(h.source)} · {view.md_escape(h.heading or '（文首）')}]"
            f"({source_url(h.source, h.chunk)})" for h in candidates))


user = guard_page("ask")
st.title("提问与检查")
bundle, index_error = get_index()
if index_error:
    st.error(md_escape(index_error))
    st.stop()
settings = get_settings()
defaults = slider_defaults(settings.knobs)

pending, restored = None, False
q_param = st.query_params.get("q")
if q_param and st.session_state.get("_ask_q_done") != q_param:  # a link from the tuning page, or a reload
    st.session_state["_ask_q_done"] = q_param
    st.session_state["question"] = q_param
    pending, restored = q_param, latest_question() == q_param

# Streamlit's own "Press Enter to submit form" hint is English; the placeholder says it in Chinese.
st.html("<style>[data-testid=InputInstructions]{display:none}</style>")
with st.form("ask_form", border=False):
    left, right = st.columns([6, 1], vertical_alignment="bottom")
    question = left.text_input("学员的问题", key="question", placeholder=f"例如：{EXAMPLE}（回车即可提交）")
    submitted = right.form_submit_button("提问", key="ask", type="primary", width="stretch")
    follow = st.checkbox("接着问：把这一句当作上一问的下一句来读（像学员在同一个对话里追问）", key="ask_follow")
knobs = knob_sliders(defaults, settings.answerability == "on")

picked = st.session_state.pop(PICKED, None)
if picked:
    pending, restored = picked, False
if submitted or pending is not None:
    last = (st.session_state.get(RESULT) or {}).get("outcome")
    ask(question if submitted else pending, knobs, bundle, restored=restored and not submitted,
        after=last if submitted and follow else None)
render_recent()

run = st.session_state.get(RUN)
if run is None:
    st.info(f"输入学员的问题后按回车或点「提问」。例如：{EXAMPLE}")
    st.stop()
if run["fingerprint"] != bundle.fingerprint:
    st.warning("资料或索引已更新，下面是更新前的检索结果，请重新提问。")
current_assistant = get_assistant(bundle, run["glossary"])
if st.session_state.pop(REGENERATE, False) and not submitted:
    generate(current_assistant, run, knobs)
current = current_assistant.gate(run["retrieval"], knobs)
thread = st.session_state.get(THREAD)
if thread is not None:
    how = KIND_LABELS.get(thread.kind, thread.kind) + (f"，规则 {'、'.join(thread.rules)}" if thread.rules else "")
    st.caption(md_escape(f"学员原话：{thread.message}　→　独立问题：{thread.question}（{how}）"))
render_answer(run, st.session_state.get(RESULT) or {}, current, user)
render_compare(current_assistant, run["retrieval"], knobs, defaults)
render_decision(current.decision)
render_candidates(run, current)
