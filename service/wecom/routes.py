"""The callback door WeCom calls: GET answers the URL check (the decrypted echostr), POST takes a signed, encrypted
「kf_msg_or_event」 notice, records it and returns at once. The work (pulling, answering, sending) is the worker's.

A request whose signature is not WeCom's, or that cannot be decrypted, gets 403 with a Chinese JSON message and
changes nothing; a notice for an account this service does not answer is acknowledged and left alone.
"""

from __future__ import annotations

import logging

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, PlainTextResponse
from starlette.concurrency import run_in_threadpool

from service.wecom.crypto import MAX_CALLBACK_BYTES, CallbackRejected, xml_fields

LOG = logging.getLogger("xiaoe.wecom")
PATH = "/v1/wecom/callback"


def rejected(error: CallbackRejected) -> JSONResponse:
    return JSONResponse({"code": "bad_callback", "message": str(error)}, status_code=403)


def wecom_router() -> APIRouter:
    router = APIRouter(tags=["微信客服"])

    @router.get(PATH, response_class=PlainTextResponse)
    def verify_url(request: Request, msg_signature: str = Query(default=""), timestamp: str = Query(default=""),
                   nonce: str = Query(default=""), echostr: str = Query(default="")):
        """企业微信后台保存回调地址时的校验：验证签名，解密 echostr 并原样返回明文。"""
        worker = request.app.state.wecom
        try:
            worker.crypto.verify(msg_signature, timestamp, nonce, echostr)
            return PlainTextResponse(worker.crypto.decrypt(echostr))
        except CallbackRejected as error:
            LOG.warning("企业微信回调地址校验失败：%s", error)
            return rejected(error)

    @router.post(PATH, response_class=PlainTextResponse)
    async def notice(request: Request, msg_signature: str = Query(default=""), timestamp: str = Query(default=""),
                     nonce: str = Query(default="")):
        """企业微信的「有新消息」通知：验证签名、解密、记下来（含拉取用的 Token）后立即返回 success。"""
        body = await request.body()
        worker = request.app.state.wecom
        try:
            if len(body) > MAX_CALLBACK_BYTES:
                raise CallbackRejected("回调内容太大，不像企业微信发来的。")
            encrypted = xml_fields(body).get("Encrypt", "")
            if not encrypted:
                raise CallbackRejected("回调里没有 Encrypt 字段：请在企业微信后台把消息加解密方式设为「安全模式」。")
            worker.crypto.verify(msg_signature, timestamp, nonce, encrypted)
            inner = xml_fields(worker.crypto.decrypt(encrypted))
        except CallbackRejected as error:
            LOG.warning("企业微信回调被拒绝：%s", error)
            return rejected(error)
        open_kfid = inner.get("OpenKfId", "")
        if inner.get("Event") != "kf_msg_or_event" or open_kfid not in worker.settings.wecom_kfids:
            LOG.info("忽略企业微信回调：事件 %s，客服账号 %s", inner.get("Event", ""), open_kfid[:64])
            return PlainTextResponse("success")
        await run_in_threadpool(worker.inbox.record_event, open_kfid, inner.get("Token", ""))
        worker.wake(open_kfid)
        return PlainTextResponse("success")

    return router
