"""Turn any failure of a model call into a ModelError with a Chinese message (never the API key).

`as_model_error` sorts a failure into a `kind` (timeout, connection, auth, rate_limit, server,
bad_request, bad_response, empty_answer, model_error) and says what failed and what to do,
naming settings by their environment variable. Every message, and the text of every exception
in the chain, is scrubbed of registered secrets and anything that looks like a key.
"""

from __future__ import annotations

import json
import re
import socket
import threading
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlsplit

from core.errors import ModelError

if TYPE_CHECKING:  # imported lazily below: openai costs ~0.3 s at console start-up
    import openai

_LABELS = {"chat": "回答模型", "embed": "向量模型"}
_PREFIXES = {"chat": "XIAOE_LLM", "embed": "XIAOE_EMBED"}
DETAIL_CHARS = 120
MIN_SECRET_CHARS = 4  # shorter "keys" (placeholders like "x") would mangle ordinary text

_KEY_PATTERNS = (
    re.compile(r"\b(?:sk|ak|pk)-[A-Za-z0-9_*\-.]{3,}"),
    re.compile(r"(?i)\bbearer\s+[^\s'\",}]+"),
    re.compile(r"(?i)(api[_-]?key[\"']?\s*[:=]\s*[\"']?)[^\s'\",}&]+"),
)

# the HTTP stack under the openai client; its errors can surface unwrapped while a stream is read
_TRANSPORT_MODULES = frozenset({"httpx", "httpx2", "httpcore", "httpcore2", "h11"})

_secrets: set[str] = set()
_secrets_lock = threading.Lock()


def register_secret(value: str) -> None:
    """Remember a key so that `scrub` removes it from any text, wherever it turns up."""
    if value and len(value) >= MIN_SECRET_CHARS:
        with _secrets_lock:
            _secrets.add(value)


def scrub(text: str) -> str:
    """`text` without registered secrets, bearer tokens, `sk-…` keys or `api_key=…` values."""
    with _secrets_lock:
        secrets = sorted(_secrets, key=len, reverse=True)
    for secret in secrets:
        text = text.replace(secret, "***")
    text = _KEY_PATTERNS[0].sub("***", text)
    text = _KEY_PATTERNS[1].sub("Bearer ***", text)
    return _KEY_PATTERNS[2].sub(r"\1***", text)


def as_model_error(error: BaseException, *, source: str = "chat",
                   outcome: str = "本次没有生成回答") -> ModelError:
    """Classify `error` from the `source` provider ("chat" or "embed") into a scrubbed ModelError.

    `outcome` says what did not happen because of it ("本次没有生成回答", "索引没有建成", or ""
    for a connection test). The chain of `error` is scrubbed in place, because callers chain it
    (`raise … from error`) and a traceback would otherwise print what the server echoed.
    """
    if isinstance(error, ModelError):
        _scrub_chain(error)  # scrubs its args in place, so str(error) is clean too
        return error
    label = _LABELS.get(source, "模型")
    env = _PREFIXES.get(source, "XIAOE_LLM")
    kind, what, todo = _classify(error, label, env)
    _scrub_chain(error)
    head = f"{what}，{outcome}。" if outcome else f"{what}。"
    return ModelError(scrub(head + todo), kind=kind)


def _classify(error: BaseException, label: str, env: str) -> tuple[str, str, str]:
    """(kind, what failed, what to do) for the first exception in the chain we recognise."""
    import openai

    chain = _chain(error)
    status = next((e for e in chain if isinstance(e, openai.APIStatusError)), None)
    if status is not None:
        return _classify_status(status.status_code, _server_detail(status), label, env)
    if any(isinstance(e, (openai.APITimeoutError, TimeoutError)) or "Timeout" in type(e).__name__ for e in chain):
        shared = "，回答模型和向量模型共用这个设置" if env != "XIAOE_LLM" else ""
        return ("timeout", f"{label}在限定时间内没有响应（超时）",
                f"请稍后重试；如果经常超时，可以调大 XIAOE_LLM_TIMEOUT（单位秒{shared}），或换用响应更快的模型。")
    connection = next((e for e in chain if isinstance(e, (openai.APIConnectionError, OSError))
                       or type(e).__module__.split(".")[0] in _TRANSPORT_MODULES), None)
    if connection is not None:
        where = _where(connection)
        if any(isinstance(e, (ConnectionRefusedError, socket.gaierror)) or type(e).__name__ == "ConnectError"
               for e in chain):
            return ("connection", f"连不上{label}服务{where}",
                    f"请检查 {env}_BASE_URL 是否写对、服务是否已启动（本机 Ollama 要先运行 ollama serve）、网络是否通畅。")
        return ("connection", f"与{label}服务的连接中途断开{where}",
                "请重试；如果经常断开，请检查网络，以及代理或网关是否会切断时间较长的连接。")
    if any(isinstance(e, (openai.APIResponseValidationError, json.JSONDecodeError, ValueError,
                          AttributeError, KeyError, TypeError)) for e in chain):
        return ("bad_response", f"{label}服务返回的内容无法识别（不是 OpenAI 兼容接口的格式）",
                f"请检查 {env}_BASE_URL 是否指向 OpenAI 兼容接口（通常以 /v1 结尾），"
                "中间是否隔着会改写内容的代理或网关。")
    return ("model_error", f"调用{label}失败（{type(error).__name__}）",
            "请稍后重试；如果一直失败，请把这条提示发给管理员，或先转人工。")


def _classify_status(code: int, detail: str, label: str, env: str) -> tuple[str, str, str]:
    said = f"，服务端说明：{detail}" if detail else ""
    if code == 401:
        return ("auth", f"{label}服务拒绝了 API 密钥（HTTP 401{said}）",
                f"请检查设置 {env}_API_KEY 是否填写正确、有没有过期或被停用。")
    if code == 403:
        return ("auth", f"{label}服务不允许这个密钥使用该模型（HTTP 403{said}）",
                f"请确认 {env}_API_KEY 对 {env}_MODEL 指定的模型有权限，或换一个模型。")
    if code == 402:
        return ("rate_limit", f"{label}服务的账户余额或额度不足（HTTP 402{said}）",
                f"请给账户充值，或在 {env}_API_KEY 里换成另一个有余额的账户的密钥。")
    if code == 429:
        return ("rate_limit", f"{label}服务提示请求太频繁或额度已用完（HTTP 429{said}）",
                "请过一两分钟再试；如果持续出现，请检查账户额度或调低并发。")
    if code >= 500:
        return ("server", f"{label}服务内部出错（HTTP {code}{said}）",
                "这通常是服务商的临时故障，请稍后重试，或先转人工。")
    if code == 404:
        return ("bad_request", f"{label}服务找不到接口或模型（HTTP 404{said}）",
                f"请检查 {env}_BASE_URL 是否以 /v1 结尾（Ollama 是 http://localhost:11434/v1），"
                f"以及 {env}_MODEL 是否是服务商提供的模型名。")
    return ("bad_request", f"{label}服务拒绝了这次请求（HTTP {code}{said}）",
            f"请检查 {env}_MODEL 的模型名是否正确；如果问题或资料特别长，可以调小片段数量 k 后再试。")


def _chain(error: BaseException) -> list[BaseException]:
    """`error`, then its causes and contexts, each once."""
    out: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and all(current is not seen for seen in out):
        out.append(current)
        current = current.__cause__ or current.__context__
    return out


def _scrub_chain(error: BaseException) -> None:
    import openai

    for item in _chain(error):
        item.args = tuple(scrub(a) if isinstance(a, str) else a for a in item.args)
        message = getattr(item, "message", None)
        if isinstance(message, str):
            cast(Any, item).message = scrub(message)  # openai.APIError keeps its own copy
        if isinstance(item, openai.APIError):
            item.body = None  # the raw server reply may echo the key; the detail was taken already


def _server_detail(error: openai.APIStatusError) -> str:
    """The server's own short explanation (error.message in the JSON body), scrubbed and trimmed."""
    body = error.body
    message = ""
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = inner.get("message", "") if isinstance(inner, dict) else str(inner)
    text = " ".join(scrub(str(message or "")).split())
    return text if len(text) <= DETAIL_CHARS else text[:DETAIL_CHARS] + "…"


def _where(error: BaseException) -> str:
    """「（host:port）」 from the failed request, without path or query (a key may sit in a query)."""
    request = getattr(error, "request", None)
    url = getattr(request, "url", None)
    if url is None:
        return ""
    parts = urlsplit(str(url))
    return f"（{parts.scheme}://{parts.netloc.rpartition('@')[2]}）" if parts.netloc else ""
