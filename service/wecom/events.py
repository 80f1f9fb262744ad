"""Reading what kf/sync_msg returns, and what the channel does with WeCom's events.

A message becomes an `Inbound` with its JSON kept whole (so a type 小E cannot read is still recorded as it came). Of
the events, a session a person takes (change_type 1 接入, 2 转接, 4 重新接入) stops 小E answering the conversation, a
session the person ends (3) hands it back to 小E, and a send WeCom could not deliver (msg_send_fail) marks that part.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from core.stores.wecom_inbox import WeComInbox, event_of
from core.stores.wecom_outbox import WeComOutbox
from core.values.wecom import ORIGIN_EVENT, STATE_ENDED, STATE_PERSON, Inbound

# msg_send_fail's fail_type, as WeCom lists them.
FAIL_TYPES = {0: "未知原因", 1: "客服账号已删除", 2: "应用已关闭", 4: "会话已过期，超过 48 小时", 5: "会话已关闭",
              6: "超过 5 条限制", 7: "未绑定视频号", 8: "主体未验证", 9: "未绑定视频号且主体未验证", 10: "用户拒收"}


def read_event(raw: dict, open_kfid: str) -> Inbound | None:
    """One entry of msg_list as an Inbound; None when it has no msgid (nothing to store it under)."""
    msgid = str(raw.get("msgid", "")).strip()
    if not msgid:
        return None
    msgtype = str(raw.get("msgtype", "")) or "unknown"
    event = raw.get("event") if isinstance(raw.get("event"), dict) else {}
    text = raw.get("text") if isinstance(raw.get("text"), dict) else {}
    try:
        sent = datetime.fromtimestamp(int(raw.get("send_time", 0) or 0), UTC)
    except (TypeError, ValueError, OverflowError, OSError):
        sent = datetime.fromtimestamp(0, UTC)
    try:
        origin = int(raw.get("origin", ORIGIN_EVENT if msgtype == "event" else 0) or 0)
    except (TypeError, ValueError):
        origin = 0
    user = str(raw.get("external_userid", "") or event.get("external_userid", ""))
    return Inbound(msgid=msgid[:128], open_kfid=str(raw.get("open_kfid", "") or open_kfid)[:64],
                   external_userid=user[:128], origin=origin, msgtype=msgtype[:32], send_time=sent,
                   content=str(text.get("content", "")) if msgtype == "text" else "",
                   event_type=str(event.get("event_type", ""))[:64],
                   raw=json.dumps(raw, ensure_ascii=False)[:20000])


def handle_event(inbox: WeComInbox, outbox: WeComOutbox, open_kfid: str, m: Inbound) -> str:
    """Act on an event message; what was done, in Chinese (stored as the message's outcome)."""
    event = event_of(m)
    kind = m.event_type or str(event.get("event_type", ""))
    user = str(event.get("external_userid", "") or m.external_userid)
    if kind == "session_status_change" and user:
        change = int(event.get("change_type", 0) or 0)
        servicer = str(event.get("new_servicer_userid", "") or event.get("old_servicer_userid", ""))
        conversation = inbox.conversation(open_kfid, user)
        if change == 3:
            inbox.set_state(open_kfid, user, STATE_ENDED)
            if conversation:
                inbox.set_handed_off(conversation, None)
            return f"接待人员（{servicer}）结束了会话：交还小E，学员下一条消息由小E 回答"
        inbox.set_state(open_kfid, user, STATE_PERSON)
        if conversation:
            inbox.set_handed_off(conversation, f"企业微信接待人员 {servicer}".strip())
        return f"接待人员（{servicer}）接入了会话（变更类型 {change}）：小E 不再回答"
    if kind == "msg_send_fail":
        failed = str(event.get("fail_msgid", ""))
        why = FAIL_TYPES.get(int(event.get("fail_type", 0) or 0), "未知原因")
        outbox.delivery_failed(open_kfid, failed, f"企业微信投递失败：{why}")
        return f"消息 {failed} 投递失败：{why}"
    if kind == "enter_session":
        return "学员打开了会话"
    return f"事件 {kind or m.msgtype}，已记录"
