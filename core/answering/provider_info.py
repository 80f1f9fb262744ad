"""What the settings page shows: active answerer and retriever, provider rows, the main settings table.

Keys are masked (at most their last four characters) and passwords are cut out of URLs here,
so a page can render these values as they are.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.endpoints import mask_key, safe_db_url, safe_url
from core.knobs import LABELS
from core.settings import Settings

RETRIEVER_NAMES = {
    "lexical": "lexical（字词匹配，TF-IDF，内置）",
    "dense": "dense（向量检索，需要向量模型）",
    "hybrid": "hybrid（字词匹配 + 向量检索）",
}


@dataclass(frozen=True)
class ProviderInfo:
    """One provider as the settings page shows it; `key` is already masked."""

    role: str  # "chat" | "embed"
    label: str
    configured: bool
    kind: str
    model: str
    base_url: str
    key: str


@dataclass(frozen=True)
class ProvidersOverview:
    """Which answerer and retriever are active, both providers, and configuration warnings."""

    answerer: str
    retriever: str
    chat: ProviderInfo
    embed: ProviderInfo
    warnings: tuple[str, ...]


@dataclass(frozen=True)
class SettingRow:
    """One line of the main settings table."""

    name: str
    env: str
    value: str








def describe_providers(settings: Settings) -> ProvidersOverview:
    """Both providers with masked keys, the active answerer and retriever, and what looks misconfigured."""
    chat = ProviderInfo(
        role="chat", label="回答模型", configured=settings.llm_configured,
        kind="OpenAI 兼容接口" if settings.llm_configured else "离线抽取式回答（内置，不联网）",
        model=settings.llm_model, base_url=safe_url(settings.llm_base_url), key=mask_key(settings.llm_api_key))
    embed = ProviderInfo(
        role="embed", label="向量模型", configured=settings.embed_configured,
        kind="OpenAI 兼容接口" if settings.embed_configured else "未启用",
        model=settings.embed_model, base_url=safe_url(settings.embed_base_url), key=mask_key(settings.embed_api_key))
    answerer = (f"{settings.llm_model}（{chat.base_url}）" if settings.llm_configured
                else "离线抽取式回答：只摘录资料原句，不需要模型服务")
    return ProvidersOverview(answerer=answerer, retriever=RETRIEVER_NAMES[settings.retriever],
                             chat=chat, embed=embed, warnings=tuple(_warnings(settings)))


def _warnings(settings: Settings) -> list[str]:
    out = []
    if bool(settings.llm_base_url) != bool(settings.llm_model):
        have, missing = (("XIAOE_LLM_BASE_URL", "XIAOE_LLM_MODEL") if settings.llm_base_url
                         else ("XIAOE_LLM_MODEL", "XIAOE_LLM_BASE_URL"))
        out.append(f"已设置 {have}，但缺少 {missing}，所以仍在使用离线回答。")
    if bool(settings.embed_base_url) != bool(settings.embed_model):
        have, missing = (("XIAOE_EMBED_BASE_URL", "XIAOE_EMBED_MODEL") if settings.embed_base_url
                         else ("XIAOE_EMBED_MODEL", "XIAOE_EMBED_BASE_URL"))
        out.append(f"已设置 {have}，但缺少 {missing}，向量模型没有启用。")
    if settings.retriever != "lexical" and not settings.embed_configured:
        out.append(f"检索方式 XIAOE_RETRIEVER 是 {settings.retriever}，需要先配置向量模型"
                   "（XIAOE_EMBED_BASE_URL 和 XIAOE_EMBED_MODEL），否则无法建索引。")
    if settings.retriever != "lexical" and settings.embed_configured:
        out.append("换用向量或混合检索后，分数的分布会变，请在调参页重新确认阈值。")
    return out


def describe_settings(settings: Settings) -> tuple[SettingRow, ...]:
    """The main settings as (中文名, 环境变量, 当前值) rows; no secret appears in any value."""
    return (
        SettingRow("资料目录", "XIAOE_CORPUS_DIR", str(settings.corpus_dir)),
        SettingRow("数据目录", "XIAOE_DATA_DIR", str(settings.data_dir)),
        SettingRow("数据库", "XIAOE_DATABASE_URL", safe_db_url(settings.db_url)),
        SettingRow("检索方式", "XIAOE_RETRIEVER", settings.retriever),
        # The gate's four knobs, as in force (calibrated file, environment, then the default saved on the tuning page).
        SettingRow(f"{LABELS['threshold']}（排序分下限）", "XIAOE_MIN_SCORE", f"{settings.min_score:.2f}"),
        SettingRow(f"片段数量 {LABELS['k']}", "XIAOE_TOP_K", str(settings.top_k)),
        SettingRow(LABELS["min_coverage"], "XIAOE_MIN_COVERAGE", f"{settings.min_coverage:.2f}"),
        SettingRow(LABELS["max_unknown_weight"], "XIAOE_MAX_UNKNOWN_WEIGHT", f"{settings.max_unknown_weight:.2f}"),
        SettingRow("片段长度（字）", "XIAOE_CHUNK_SIZE", str(settings.chunk_size)),
        SettingRow("片段重叠（字）", "XIAOE_CHUNK_OVERLAP", str(settings.chunk_overlap)),
        SettingRow("问题字数上限", "XIAOE_MAX_QUESTION_CHARS", str(settings.max_question_chars)),
        SettingRow("模型超时（秒）", "XIAOE_LLM_TIMEOUT", f"{settings.llm_timeout:g}"),
        SettingRow("失败重试次数", "XIAOE_LLM_MAX_RETRIES", str(settings.llm_max_retries)),
        SettingRow("温度", "XIAOE_LLM_TEMPERATURE", f"{settings.llm_temperature:g}"),
        SettingRow("模型判定（不确定区间）", "XIAOE_GRADER", grader_state(settings)),
        SettingRow("判定区间：覆盖余量", "XIAOE_GRADER_BAND_COVERAGE", f"{settings.grader_band_coverage:.2f}"),
        SettingRow("判定区间：资料外词权重上限", "XIAOE_GRADER_BAND_UNKNOWN", f"{settings.grader_band_unknown:.2f}"),
    )


def grader_state(settings: Settings) -> str:
    """「已开启」, or why the grader is not taking part (the codes off/band stay in the settings)."""
    if settings.grader == "off":
        return "关闭"
    if not settings.llm_configured:
        return "已设置，但没有配置回答模型，不会生效"
    if settings.answerability == "off":
        return "已设置，但可答性判断已关闭，没有不确定区间，不会生效"
    return "已开启"
