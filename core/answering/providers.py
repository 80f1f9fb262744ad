"""Model providers from settings: the chat model, the embeddings, and a one-call connection test.

Only OpenAI-compatible servers are supported (DeepSeek, Qwen/DashScope compatible mode, Zhipu,
Moonshot, SiliconFlow, Ollama, vLLM, LM Studio), through langchain-openai. Without a configured
chat model the offline answerer stays in use. `describe_providers` (what the settings page
shows, keys masked) is re-exported from core/answering/provider_info.py.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, cast

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage
from pydantic import SecretStr

from core.answering.deadline import DeadlineChatModel
from core.answering.offline import OfflineAnswerer
from core.answering.provider_info import ProviderInfo, ProvidersOverview, describe_providers  # noqa: F401 - re-exported
from core.endpoints import PLACEHOLDER_KEY, check_base_url, check_call_limits
from core.errors import ConfigError
from core.provider_errors import as_model_error, register_secret
from core.retrieval.embeddings import checked_vectors, make_embeddings
from core.settings import Settings

PING_PROMPT = "请只回复一个字：好"
PING_TEXT = "你好"






def make_chat_model(settings: Settings) -> BaseChatModel:
    """ChatOpenAI for the configured OpenAI-compatible server, else the offline answerer.

    The server's answer must be complete within XIAOE_LLM_TIMEOUT seconds (connection, first
    token and whole stream together), else ModelError(kind="timeout")."""
    if not settings.llm_configured:
        return OfflineAnswerer()
    check_base_url(settings.llm_base_url, "XIAOE_LLM_BASE_URL")
    check_call_limits(settings)
    register_secret(settings.llm_api_key)
    from langchain_openai import ChatOpenAI  # late: ~0.5 s of imports the offline default never needs

    inner = ChatOpenAI(base_url=settings.llm_base_url, model=settings.llm_model,
                       api_key=SecretStr(settings.llm_api_key or PLACEHOLDER_KEY),
                       temperature=settings.llm_temperature, timeout=settings.llm_timeout,
                       max_retries=settings.llm_max_retries,
                       # compatible servers speak Chat Completions, never OpenAI's Responses API
                       use_responses_api=False)
    # XIAOE_LLM_TIMEOUT bounds the whole answer, not each read (core/answering/deadline.py)
    return DeadlineChatModel(inner=inner, seconds=settings.llm_timeout)








@dataclass(frozen=True)
class ConnectionReport:
    """The outcome of one tiny call to a provider, for the 「测试连接」 button."""

    ok: bool
    latency_ms: int | None
    message: str
    kind: str = ""


def test_connection(settings: Settings, which: str = "chat") -> ConnectionReport:
    """Make one tiny call to the chat ("chat") or embeddings ("embed") provider, without retries."""
    if which not in ("chat", "embed"):
        raise ValueError(f"which ({which!r}) must be 'chat' or 'embed'")
    configured = settings.llm_configured if which == "chat" else settings.embed_configured
    if not configured:
        return ConnectionReport(False, None, _NOT_CONFIGURED[which], kind="not_configured")
    quick = settings.with_(llm_max_retries=0)  # the consultant waits for this, so fail fast
    start = time.perf_counter()
    try:
        detail = _ping_chat(quick) if which == "chat" else _ping_embed(quick)
    except ConfigError as error:
        return ConnectionReport(False, None, str(error), kind="config")
    except Exception as error:  # noqa: BLE001 - reported, not raised: this is a diagnostic
        failure = as_model_error(error, source=which, outcome="")
        return ConnectionReport(False, _ms_since(start), str(failure), kind=failure.kind)
    latency = _ms_since(start)
    return ConnectionReport(True, latency, f"连接正常，用时 {latency} 毫秒；{detail}")


cast(Any, test_connection).__test__ = False  # a library function, not a pytest test, despite its name

_NOT_CONFIGURED = {
    "chat": "还没有配置回答模型（需要 XIAOE_LLM_BASE_URL 和 XIAOE_LLM_MODEL），当前使用内置的离线回答，不需要连接。",
    "embed": "还没有配置向量模型（需要 XIAOE_EMBED_BASE_URL 和 XIAOE_EMBED_MODEL），当前不使用向量检索。",
}


def _ping_chat(settings: Settings) -> str:
    model = make_chat_model(settings)
    text = "".join(str(chunk.content) for chunk in model.stream([HumanMessage(content=PING_PROMPT)]))
    if not text.strip():
        return "模型能连上，但这次回复是空的，请留意回答是否正常。"
    return f"模型 {settings.llm_model} 已回复。"


def _ping_embed(settings: Settings) -> str:
    embeddings = make_embeddings(settings)
    # the unwrapped client, so the failure is described for a test, not for a question
    vector = checked_vectors([embeddings.inner.embed_query(PING_TEXT)], 1, outcome="连接测试没有通过")[0]
    return f"模型 {settings.embed_model} 返回了 {len(vector)} 维向量。"


def _ms_since(start: float) -> int:
    return round((time.perf_counter() - start) * 1000)
