"""Endpoints of the OpenAI-compatible services (chat and embeddings): address checks and redaction.

Shared by the chat model (core.answering.providers), the embeddings (core.retrieval.embeddings) and
everything that shows a setting (keys masked, passwords and query strings cut out of URLs), so a page
or the CLI can print these values as they are.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from core.errors import ConfigError
from core.settings import Settings

MASK_MIN_CHARS = 16  # below this, even four characters are too large a share of the key
# Local servers (Ollama, vLLM, LM Studio) ignore the key, but the OpenAI client refuses to start
# without one, and leaving it unset would make the client fall back to OPENAI_API_KEY.
PLACEHOLDER_KEY = "EMPTY"


def check_base_url(url: str, env: str) -> str:
    """`url` if it is an http(s) URL with a host, else ConfigError naming the variable and value."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(f"{env}（{url}）不是有效的接口地址，应以 http:// 或 https:// 开头，"
                          "例如 https://api.deepseek.com/v1 或 http://localhost:11434/v1。")
    return url


def check_call_limits(settings: Settings) -> None:
    if settings.llm_timeout <= 0:
        raise ConfigError(f"超时时间 XIAOE_LLM_TIMEOUT（{settings.llm_timeout}）必须大于 0 秒。")
    if settings.llm_max_retries < 0:
        raise ConfigError(f"重试次数 XIAOE_LLM_MAX_RETRIES（{settings.llm_max_retries}）不能小于 0。")


def mask_key(key: str) -> str:
    """「未设置」, 「已设置」 for short keys, else the last four characters (`sk-…abcd`)."""
    if not key:
        return "未设置"
    if len(key) < MASK_MIN_CHARS:
        return "已设置"
    prefix = "sk-" if key.startswith("sk-") else ""
    return f"{prefix}…{key[-4:]}"


def safe_url(url: str) -> str:
    """`url` without user, password or query string (a key can hide in any of them)."""
    if not url:
        return ""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def safe_db_url(url: str) -> str:
    """The database URL with its password replaced by ***."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return safe_url(url)


