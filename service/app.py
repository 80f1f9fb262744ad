"""The FastAPI application: four routes under /v1, OpenAPI at /docs, and the lifespan that starts the served index
and the webhook worker. Each route validates, makes one call into core.exchanges.StudentDesk, and returns its value.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio.to_thread
from fastapi import Depends, FastAPI, Header, Query, Request, Response
from fastapi.responses import JSONResponse
from sqlalchemy import text
from starlette.types import ASGIApp, Receive, Scope, Send

from core.exchanges.desk import StudentDesk, chat_request
from core.serving.live import LiveAssistant
from core.settings import Settings
from core.stores.db import open_database
from core.values.exchanges import ApiKey
from service import errors
from service.delivery import DeliveryWorker
from service.errors import bearer
from service.schemas import (
    ChatMessageIn,
    ChatMessageOut,
    ErrorOut,
    FeedbackIn,
    FeedbackOut,
    HealthOut,
    MessagesOut,
)
from service.wecom.routes import wecom_router
from service.wecom.worker import WeComWorker

LOG = logging.getLogger("xiaoe.service")
MAX_BODY_BYTES = 64 * 1024
ERRORS = {status: {"model": ErrorOut} for status in (401, 403, 404, 422, 429, 503)}


class BodyLimit:
    """413 for a request whose Content-Length is over MAX_BODY_BYTES (or not a number), before any route runs. A
    plain ASGI middleware: starlette's BaseHTTPMiddleware wraps every request in a task group and a stream, which
    cost the event loop more than the check itself."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            length = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"content-length"), None)
            if length is not None and (not length.isdigit() or int(length) > MAX_BODY_BYTES):
                response = errors.error(413, "too_large",
                                        f"请求体太大：最多 {MAX_BODY_BYTES // 1024} KB。学员的一条消息放在 query 里即可。")
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def scoped(scope: str):
    """A dependency giving the request's API key, allowed `scope`. Dependencies run before the body is validated,
    so a request without a valid key gets 401 whatever its body."""
    def key(request: Request, authorization: str | None = Header(default=None)) -> ApiKey:
        return request.app.state.desk.authenticate(bearer(authorization), scope)
    return key


def create_app(settings: Settings | None = None) -> FastAPI:
    """The service for `settings` (default: read from the environment once)."""
    settings = settings or Settings.load()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Sync routes run on anyio's worker threads: this many answer at once, the rest wait their turn. The offline
        # answerer is all CPU under one GIL, where a few threads do more than forty; a remote model waits on the
        # network, where forty do (docs/service.md「线程数」).
        anyio.to_thread.current_default_thread_limiter().total_tokens = settings.answering_threads
        live = LiveAssistant.start(settings)
        db = open_database(settings.db_url)
        app.state.live = live
        app.state.desk = StudentDesk.open(settings, db, live.current)
        worker = DeliveryWorker(settings, db)
        worker.start()
        wecom = WeComWorker(settings, db, app.state.desk) if settings.wecom_on else None
        app.state.wecom = wecom
        if wecom is not None:
            wecom.start()
        try:
            yield
        finally:
            if wecom is not None:
                wecom.stop()
            worker.stop()
            live.stop()

    app = FastAPI(title="小E 学员服务", version="1.0", lifespan=lifespan,
                  description="学校 App（后端）调用的小E 接口：学员提问、取回顾问放行的回答、学员反馈。错误一律是 "
                              "JSON {code, message}，message 是中文，写明该怎么做。详见 docs/service.md。")
    errors.install(app)
    if settings.wecom_on:  # the WeChat channel's callback door (docs/wechat.md)
        app.include_router(wecom_router())

    app.add_middleware(BodyLimit)

    @app.get("/v1/health", response_model=HealthOut, tags=["服务"])
    def health(request: Request) -> JSONResponse:
        """服务是否就绪：资料索引已建立、数据库可用。"""
        fingerprint = request.app.state.live.holder.bundle().fingerprint
        with open_database(settings.db_url).read("检查数据库") as conn:
            conn.execute(text("SELECT 1"))
        return JSONResponse({"status": "ok", "corpus": fingerprint, "database": "ok"})

    @app.post("/v1/chat-messages", response_model=ChatMessageOut, responses=ERRORS, tags=["学员消息"])
    def chat_message(body: ChatMessageIn, request: Request, response: Response,
                     key: ApiKey = Depends(scoped("chat"))) -> dict:
        """学员发来一条消息：小E 作答、拒答，或按密钥的放行策略先交顾问审（status=held，answer 是确认语）。
        同一 client_msg_id 重试返回完全相同的结果（响应头 Idempotent-Replay: true），不会再作答一次。"""
        desk: StudentDesk = request.app.state.desk
        asked = chat_request(body.user, body.conversation_id, body.client_msg_id, body.query,
                             max_chars=settings.max_question_chars)
        reply = desk.message(key, asked)
        if reply.replay:
            response.headers["Idempotent-Replay"] = "true"
        return reply.to_dict()

    @app.get("/v1/conversations/{conversation_id}/messages", response_model=MessagesOut, responses=ERRORS,
             tags=["学员消息"])
    def messages(conversation_id: str, request: Request, user: str = Query(description="学员编号"),
                 after: str | None = Query(default=None, description="上次结果的 next_cursor"),
                 limit: int = Query(default=50, ge=1, le=200),
                 key: ApiKey = Depends(scoped("chat"))) -> dict:
        """顾问放行的回答（以及转人工后顾问发的消息），按 after 游标分页，最早的在前。"""
        desk: StudentDesk = request.app.state.desk
        found, more = desk.messages(key, conversation_id, user, after=after, limit=limit)
        return {"data": [m.to_dict() for m in found], "has_more": more,
                "next_cursor": str(found[-1].seq) if found else after}

    @app.post("/v1/messages/{message_id}/feedbacks", response_model=FeedbackOut, responses=ERRORS, tags=["学员反馈"])
    def feedback(message_id: str, body: FeedbackIn, request: Request,
                 key: ApiKey = Depends(scoped("feedback"))) -> dict:
        """学员对一条回答点赞、点踩（附原因和文字）或撤回（rating=null）；同一学员对同一消息以最后一次为准。"""
        desk: StudentDesk = request.app.state.desk
        given = desk.give_feedback(key, message_id, body.user, body.rating, body.reasons, body.content)
        return {"result": "success", "feedback": given.to_dict()}

    return app
