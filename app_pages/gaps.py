"""资料缺口: what students ask and the documents lack, grouped into topics; owners, statuses, 去补充资料, re-checks.

The board is built from the review queue (refusals, rejected answers, items marked 资料没写) by core.gaps.board
through ui/gaps_state.py; the grouping rule and its measured quality are in docs/gaps.md.
"""

from __future__ import annotations

import streamlit as st

from core.errors import XiaoEError
from ui import gap_fix
from ui.auth import current_user, guard_page
from ui.gaps_actions import create_form, merge_topic, move_form, recheck_topic, save_topic, show_flash
from ui.gaps_state import get_board
from ui.gaps_view import (
    STATUS_LABELS,
    check_frame,
    check_line,
    closed_line,
    noise_frame,
    question_frame,
    question_options,
    status_choices,
    summary_line,
    topic_facts,
    topic_options,
    topic_title,
)

guard_page("review")
st.title("资料缺口")
st.caption("学员问了、资料里没写的事，按话题分组（离线：用闸门切出的资料外的词和关键词）。拒答（含预期拒答）、被驳回的回答和标为"
           "「资料没写」的条目都在这里；补上资料、重建索引后，话题里的问题会用同一个闸门重新判断，全部可答才关闭。")
try:
    board = get_board()
except XiaoEError as error:
    st.error(str(error))
    st.stop()

user = current_user()
admin = user is not None and user.can("edit_corpus")
st.caption(summary_line(board))
show_flash(None)  # merges, moves and new topics: the topic they changed may have left the board
if admin and (options := question_options(board)):
    with st.expander("新建话题：分组没分出来的事（例如付款方式），自己建一个话题，把问题放进去"):
        create_form(options)
if not board.topics:
    st.info("现在没有资料缺口话题：复核队列里还没有成组的拒答、被驳回或标为「资料没写」的问题（一个话题至少 3 个不同的问题）。")

for topic in board.topics:
    with st.expander(topic_title(topic), expanded=len(board.topics) == 1):
        show_flash(topic.id)
        for line in topic_facts(topic):
            st.markdown(line)
        st.dataframe(question_frame(topic), hide_index=True, key=f"gap_questions_{topic.id}")
        if topic.check is not None:
            st.markdown(check_line(topic.check))
            st.table(check_frame(topic.check))
        if not admin:
            st.caption("负责人、状态和补充资料由管理员处理。")
            continue
        with st.form(f"gap_topic_form_{topic.id}", border=False):
            cols = st.columns([1.2, 1.4, 1])
            cols[0].text_input("负责人", value=topic.topic.owner or "", key=f"gap_owner_{topic.id}", max_chars=100)
            cols[1].selectbox("状态", status_choices(), index=status_choices().index(topic.topic.status),
                              format_func=STATUS_LABELS.get, key=f"gap_status_{topic.id}")
            cols[2].form_submit_button("保存", key=f"gap_save_{topic.id}", on_click=save_topic, args=(topic.id,))
        cols = st.columns(2)
        request = gap_fix.request_for_topic(topic)
        if cols[0].button("去补充资料", key=f"gap_fix_{topic.id}", type="primary", disabled=request is None,
                          help="打开资料编辑器，定位到这个话题最接近的小节，问题和备注列在旁边。"):
            gap_fix.open_fix(request)
        cols[1].button("重新核对", key=f"gap_recheck_{topic.id}", on_click=recheck_topic, args=(topic.id,),
                       help="用现在的资料和闸门重新判断这个话题的每个问题；全部可答就关闭话题。")
        others = topic_options(board, leave_out=topic.id)
        if others:
            st.caption("整理话题：分组是按字面分的，同一件事拆成了几个话题、或者混进了别的问题，在这里改；改过的以后重新分组也保持，"
                       "明天相近的提问会归到整理好的话题里。")
            with st.form(f"gap_merge_form_{topic.id}", border=False):
                cols = st.columns([3, 1])
                cols[0].selectbox("并入话题", list(others), format_func=others.get, index=None,
                                  placeholder="把这个话题并入…", key=f"gap_merge_into_{topic.id}",
                                  label_visibility="collapsed")
                cols[1].form_submit_button("并入", key=f"gap_merge_{topic.id}", on_click=merge_topic, args=(topic.id,))
            move_form(str(topic.id), topic.questions, others, topic.id)

if board.closed:
    with st.expander(f"已关闭的话题（{len(board.closed)} 个：补充资料后问题全部可答）"):
        for closed in board.closed:
            st.markdown(closed_line(closed))
            if closed.check is not None:
                st.markdown(check_line(closed.check))
                st.table(check_frame(closed.check))
if board.noise:
    with st.expander(f"不属于任何话题的问题（{len(board.noise)} 个：寒暄、零碎的话、只问过一类的）"):
        st.dataframe(noise_frame(board), hide_index=True, key="gap_noise")
        if admin and board.topics:
            move_form("noise", board.noise, topic_options(board))
