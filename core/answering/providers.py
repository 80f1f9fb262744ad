"""Model providers from settings: the chat model, the embeddings, and a one-call connection test.

Only OpenAI-compatible servers are supported (DeepSeek, Qwen/DashScope compatible mode, Zhipu,
Moonshot, SiliconFlow, Ollama, vLLM, LM Studio), through langchain-openai. Without a configured
chat model the offline answerer stays in use. `describe_providers` (what the settings page
shows, keys masked) is re-exported from core/provider_info.py.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage

from core.answering.deadline import DeadlineChatModel
from core.answering.model_errors import as_model_error, register_secret
from core.answering.offline import OfflineAnswerer
from core.answering.provider_info import ProviderInfo, ProvidersOverview, describe_providers  # noqa: F401 - re-exported
from core.errors import ConfigError, ModelError
from core.settings import Settings

# Local servers (Ollama, vLLM, LM Studio) ignore the key, but the OpenAI client refuses to start
# without one, and leaving it unset would make the client fall back to OPENAI_API_KEY.
PLACEHOLDER_KEY = "EMPTY"
# DashScope's compatible mode accepts at most 10 texts per embeddings request; the others more.
EMBED_BATCH = 10
PING_PROMPT = "请只回复一个字：好"
PING_TEXT = "你好"


def check_base_url(url: str, env: str) -> str:
    """`url` if it is an http(s) URL with a host, else ConfigError naming the variable and value."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(f"{env}（{url}）不是有效的接口地址，应以 http:// 或 https:// 开头，"
                          "例如 https://api.deepseek.com/v1 或 http://localhost:11434/v1。")
    return url


def _check_call_limits(settings: Settings) -> None:
    if settings.llm_timeout <= 0:
        raise ConfigError(f"超时时间 XIAOE_LLM_TIMEOUT（{settings.llm_timeout}）必须大于 0 秒。")
    if settings.llm_max_retries < 0:
        raise ConfigError(f"重试次数 XIAOE_LLM_MAX_RETRIES（{settings.llm_max_retries}）不能小于 0。")


def make_chat_model(settings: Settings) -> BaseChatModel:
    """ChatOpenAI for the configured OpenAI-compatible server, else the offline answerer.

    The server's answer must be complete within XIAOE_LLM_TIMEOUT seconds (connection, first
    token and whole stream together), else ModelError(kind="timeout")."""
    if not settings.llm_configured:
        return OfflineAnswerer()
    check_base_url(settings.llm_base_url, "XIAOE_LLM_BASE_URL")
    _check_call_limits(settings)
    register_secret(settings.llm_api_key)
    from langchain_openai import ChatOpenAI  # late: ~0.5 s of imports the offline default never needs

    inner = ChatOpenAI(base_url=settings.llm_base_url, model=settings.llm_model,
                       api_key=settings.llm_api_key or PLACEHOLDER_KEY,
                       temperature=settings.llm_temperature, timeout=settings.llm_timeout,
                       max_retries=settings.llm_max_retries,
                       # compatible servers speak Chat Completions, never OpenAI's Responses API
                       use_responses_api=False)
    # XIAOE_LLM_TIMEOUT bounds the whole answer, not each read (core/deadline.py)
    return DeadlineChatModel(inner=inner, seconds=settings.llm_timeout)


def make_embeddings(settings: Settings) -> ProviderEmbeddings:
    """OpenAIEmbeddings for the configured server, wrapped so every failure is a ModelError.

    Raw strings are sent (no tiktoken, which only knows OpenAI's models), vectors come back as
    floats (some servers cannot encode base64), EMBED_BATCH texts a request, and the chat
    model's timeout and retry settings apply.
    """
    if not settings.embed_configured:
        raise ConfigError("还没有配置向量模型：请设置 XIAOE_EMBED_BASE_URL 和 XIAOE_EMBED_MODEL，"
                          "或把检索方式 XIAOE_RETRIEVER 改回 lexical。")
    check_base_url(settings.embed_base_url, "XIAOE_EMBED_BASE_URL")
    _check_call_limits(settings)
    register_secret(settings.embed_api_key)
    from langchain_openai import OpenAIEmbeddings  # late, as in make_chat_model

    inner = OpenAIEmbeddings(base_url=settings.embed_base_url, model=settings.embed_model,
                             api_key=settings.embed_api_key or PLACEHOLDER_KEY,
                             check_embedding_ctx_length=False,
                             chunk_size=EMBED_BATCH, timeout=settings.llm_timeout,
                             max_retries=settings.llm_max_retries,
                             model_kwargs={"encoding_format": "float"})
    return ProviderEmbeddings(inner)


class ProviderEmbeddings(Embeddings):
    """Wraps a provider's Embeddings: failures become ModelError, malformed replies are caught."""

    def __init__(self, inner: Embeddings) -> None:
        self.inner = inner

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        try:
            vectors = self.inner.embed_documents(list(texts))
        except Exception as error:  # noqa: BLE001 - every provider failure becomes a ModelError
            raise as_model_error(error, source="embed", outcome="索引没有建成") from error
        return _checked(vectors, len(texts), outcome="索引没有建成")

    def embed_query(self, text: str) -> list[float]:
        outcome = "本次没有检索资料，也没有生成回答"
        try:
            vector = self.inner.embed_query(text)
        except Exception as error:  # noqa: BLE001 - every provider failure becomes a ModelError
            raise as_model_error(error, source="embed", outcome=outcome) from error
        return _checked([vector], 1, outcome=outcome)[0]


def _checked(vectors: list[list[float]], expected: int, *, outcome: str) -> list[list[float]]:
    """The vectors if there is one per text and they share one non-zero length."""
    lengths = {len(v) for v in vectors}
    if len(vectors) != expected or len(lengths) > 1 or 0 in lengths:
        raise ModelError(f"向量模型返回的结果不对：发来 {expected} 段文字，收到 {len(vectors)} 个向量，"
                         f"长度为 {sorted(lengths)}，{outcome}。请检查 XIAOE_EMBED_MODEL 是否是向量（embedding）模型。",
                         kind="bad_response")
    return vectors


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
    quick = replace(settings, llm_max_retries=0)  # the consultant waits for this, so fail fast
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


test_connection.__test__ = False  # a library function, not a pytest test, despite its name

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
    vector = _checked([embeddings.inner.embed_query(PING_TEXT)], 1, outcome="连接测试没有通过")[0]
    return f"模型 {settings.embed_model} 返回了 {len(vector)} 维向量。"


def _ms_since(start: float) -> int:
    return round((time.perf_counter() - start) * 1000)
