"""Chinese labels for the codes kept in the data (reason codes, audit actions); codes stay in the database.

A code without a label is shown as itself, so a new code is never hidden, only untranslated.
"""

from __future__ import annotations

REASON_LABELS = {
    "refused": "拒答", "manual": "人工标记", "bad_ref": "引用编号不存在", "no_refs": "没有标注出处",
    "unsupported_number": "数字无出处", "bad_arithmetic": "计算错误", "uncited_claim": "无出处陈述",
    "stale_corpus": "资料已更新", "contradicted_source": "资料前后矛盾", "timeout": "模型超时", "connection": "连不上模型", "auth": "模型密钥无效",
    "rate_limit": "模型限流", "server": "模型服务出错", "bad_response": "模型回复无法解析",
    "model_error": "模型故障", "empty_answer": "模型返回空回答", "bad_request": "模型服务拒绝请求",
    "config": "模型设置有误", "not_configured": "未配置模型", "question_mismatch": "与问题不符",
    "grader": "模型判定", "text_repaired": "字符已替换", "eval_wrong_refusal": "评测：误拒",
    "eval_wrong_answer": "评测：误答", "eval_wrong_source": "评测：命中错误资料",
    "held": "等顾问放行", "handoff": "已转人工", "student_dislike": "学员点了没帮助", "sent": "已发给学员",
    "not_asked_attribute": "资料没写问的内容", "off_question": "答非所问",
    "wecom_window": "无法发送（已超过 48 小时）",
    "sensitive": "敏感内容", "student_handoff": "学员要求转人工",
}

AUDIT_ACTION_LABELS = {
    "login": "登录", "login_locked": "登录锁定", "login_unlock": "解除登录锁定", "login_disabled": "已停用的账号尝试登录",
    "account_profile": "修改账号资料",
    "account_add": "新建账号", "account_passwd": "重设密码", "account_disable": "停用账号",
    "account_enable": "启用账号", "account_role": "修改角色", "corpus_upload": "上传资料",
    "corpus_edit": "在线编辑资料", "corpus_restore": "恢复资料旧版", "corpus_baseline": "记录资料原有版本",
    "defaults_save": "保存默认阈值", "glossary_add": "添加同义词", "glossary_remove": "删除同义词",
    "glossary_import": "导入同义词", "glossary_propose": "提议同义词", "glossary_approve": "批准同义词",
    "glossary_reject": "驳回同义词提议", "key_add": "新建接口密钥", "key_revoke": "停用接口密钥",
    "key_release": "修改放行策略",
    "sensitive_add": "添加敏感词", "sensitive_change": "修改敏感词", "sensitive_remove": "删除敏感词",
    "conversations_purge": "清除过期对话记录",
}


def reason_label(code: str) -> str:
    return REASON_LABELS.get(code, code)


def audit_action_label(code: str) -> str:
    return AUDIT_ACTION_LABELS.get(code, code)
