"""Every failure as JSON `{"code", "message"}` with a Chinese message that says what to do — never a traceback.

Domain exceptions of core map to HTTP statuses here and only here; FastAPI's own validation errors and unknown
routes get the same shape.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from core.errors import AuthError, ConfigError, CorpusError, InvalidReview, StoreError, XiaoEError
from core.exchanges.desk import Forbidden, InvalidRequest
from core.stores.exchanges import IdempotencyConflict, NotFound, RateLimited

LOG = logging.getLogger("xiaoe.service")


def bearer(authorization: str | None) -> str | None:
    """The secret of an `Authorization: Bearer <secret>` header (None when missing or of another scheme)."""
    if not authorization:
        return None
    scheme, _, secret = authorization.strip().partition(" ")
    return secret.strip() if scheme.lower() == "bearer" else None


def error(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"code": code, "message": message}, status_code=status, headers=headers)


def of_domain(exc: XiaoEError) -> JSONResponse:
    """The response for a core exception (the most specific class first)."""
    if isinstance(exc, Forbidden):
        return error(403, "forbidden", str(exc))
    if isinstance(exc, AuthError):
        return error(401, "unauthorized", str(exc), {"WWW-Authenticate": "Bearer"})
    if isinstance(exc, NotFound):
        return error(404, "not_found", str(exc))
    if isinstance(exc, IdempotencyConflict):
        return error(422, "idempotency_conflict", str(exc))
    if isinstance(exc, (InvalidRequest, InvalidReview)):
        return error(422, "invalid_request", str(exc))
    if isinstance(exc, RateLimited):
        return error(429, "rate_limited", str(exc), {"Retry-After": str(exc.retry_after)})
    if isinstance(exc, (StoreError, CorpusError, ConfigError)):
        return error(503, "unavailable", f"服务暂时不可用：{exc}", {"Retry-After": "5"})
    return error(500, "error", str(exc))


_FIELD_WORDS = {"missing": "缺少这个字段", "string_type": "必须是字符串", "list_type": "必须是数组",
                "int_parsing": "必须是整数", "dict_type": "必须是 JSON 对象", "model_attributes_type": "必须是 JSON 对象",
                "literal_error": "取值不在可选范围内", "enum": "取值不在可选范围内"}


def validation_message(exc: RequestValidationError) -> str:
    """The first validation problem in Chinese, naming the field."""
    first = exc.errors()[0] if exc.errors() else {}
    kind = first.get("type", "")
    if kind == "json_invalid":
        return "请求体不是有效的 JSON：请检查引号、逗号和编码（UTF-8），并加上 Content-Type: application/json。"
    loc = [str(p) for p in first.get("loc", ()) if p not in ("body", "query", "path")]
    field = ".".join(loc) or "请求体"
    if field == "请求体" and kind in ("missing", "model_attributes_type", "dict_type"):
        return "请求体应是 JSON 对象，例如 {\"user\": \"学员编号\", \"client_msg_id\": \"…\", \"query\": \"…\"}。"
    return f"字段 {field}：{_FIELD_WORDS.get(kind, '格式不对')}。请按 /docs 里的说明填写。"


def install(app: FastAPI) -> None:
    @app.exception_handler(XiaoEError)
    async def domain(_request: Request, exc: XiaoEError) -> JSONResponse:
        return of_domain(exc)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        # FastAPI parses the body before any dependency runs: a bad body from a caller without a valid key still
        # gets 401/403 first, so nobody learns anything about the API without a key.
        desk = getattr(request.app.state, "desk", None)
        if desk is not None and request.url.path.startswith("/v1/") and request.url.path != "/v1/health":
            scope = "feedback" if request.url.path.endswith("/feedbacks") else "chat"
            try:
                await run_in_threadpool(desk.authenticate, bearer(request.headers.get("authorization")), scope)
            except XiaoEError as auth:
                return of_domain(auth)
        return error(422, "invalid_request", validation_message(exc))

    @app.exception_handler(StarletteHTTPException)
    async def http(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 404:
            return error(404, "not_found", "没有这个接口地址：可用的接口见 /docs。")
        if exc.status_code == 405:
            return error(405, "method_not_allowed", "这个接口不支持这种请求方法：请按 /docs 里的说明调用。")
        return error(exc.status_code, "http_error", "请求无法处理：请按 /docs 里的说明调用。")

    @app.exception_handler(Exception)
    async def unexpected(_request: Request, exc: Exception) -> JSONResponse:
        LOG.exception("unexpected error in the student service")
        return error(500, "internal_error", "服务出了意外错误，这次请求没有处理：请稍后用同一个 client_msg_id 重试；"
                                            "若一直出现，请联系学校的技术人员查看服务日志。")
