"""The client of WeCom's API for the channel: gettoken, kf/sync_msg, kf/send_msg, kf/service_state/get and /trans.

One access token serves every instance: it lives in the database (core.stores.wecom_inbox), is refreshed before it
expires by whichever instance holds the refresh lease, and a call WeCom answers with an expired or invalid token
(40014, 42001) drops that token, fetches one new one and is retried once. The token is sent in the query string as
WeCom requires; it never appears in a message this module writes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

import httpx

from core.clock import utcnow
from core.errors import XiaoEError
from core.settings import Settings
from core.stores.wecom_inbox import WeComInbox

TOKEN_ERRORS = frozenset({40014, 42001, 41001})  # invalid, expired, missing access_token
WAIT_FOR_REFRESH_S = 10.0


class WeComError(XiaoEError):
    """WeCom answered with a non-zero errcode, or could not be reached (errcode -1)."""

    def __init__(self, errcode: int, errmsg: str) -> None:
        super().__init__(f"企业微信返回错误 {errcode}：{errmsg}")
        self.errcode = errcode
        self.errmsg = errmsg


@dataclass(frozen=True)
class Page:
    """One page of kf/sync_msg."""

    messages: tuple[dict, ...]
    next_cursor: str
    has_more: bool


class WeComClient:
    """Calls to WeCom for one corp, sharing the access token through `inbox`."""

    def __init__(self, settings: Settings, inbox: WeComInbox, *, owner: str,
                 clock: Callable[[], datetime] = utcnow, http: httpx.Client | None = None) -> None:
        self.settings = settings
        self.inbox = inbox
        self.owner = owner
        self._clock = clock
        self.base = settings.wecom_api_base.rstrip("/")
        self.http = http or httpx.Client(timeout=settings.wecom_timeout_s, trust_env=False, follow_redirects=False)

    def close(self) -> None:
        self.http.close()

    # --- the access token ------------------------------------------------------------------------------

    def token(self) -> str:
        found = self.inbox.token(self.settings.wecom_corp_id)
        if found is not None and self._clock() < found[1]:
            return found[0]
        return self._refresh(stale=found[0] if found else None)

    def _refresh(self, *, stale: str | None) -> str:
        """A token other than `stale`: one another instance just stored, else one fetched under the refresh lease
        (so many instances finding the token stale at once fetch it once)."""
        corp = self.settings.wecom_corp_id
        lease = f"token:{corp}"
        deadline = time.monotonic() + WAIT_FOR_REFRESH_S
        while True:
            found = self.inbox.token(corp)
            if found is not None and found[0] != stale and self._clock() < found[1]:
                return found[0]
            if self.inbox.take(lease, self.owner, timedelta(seconds=self.settings.wecom_timeout_s + 5)):
                try:
                    found = self.inbox.token(corp)  # again, under the lease
                    if found is not None and found[0] != stale and self._clock() < found[1]:
                        return found[0]
                    return self._fetch()
                finally:
                    self.inbox.give_up(lease, self.owner)
            if time.monotonic() > deadline:
                raise WeComError(-1, "等另一台实例刷新企业微信凭证超时，稍后会再试")
            time.sleep(0.1)

    def _fetch(self) -> str:
        data = self._request("GET", "/cgi-bin/gettoken", params={"corpid": self.settings.wecom_corp_id,
                                                                  "corpsecret": self.settings.wecom_secret})
        if data.get("errcode", 0) != 0:
            raise WeComError(int(data.get("errcode", -1)), str(data.get("errmsg", ""))[:200] +
                             "（请检查 XIAOE_WECOM_CORP_ID 和 XIAOE_WECOM_SECRET）")
        token = str(data.get("access_token", ""))
        life = int(data.get("expires_in", 7200) or 7200)
        # Refresh this long before WeCom's expiry (at least halfway through the token's life).
        ahead = min(self.settings.wecom_token_margin_s, life / 2)
        self.inbox.save_token(self.settings.wecom_corp_id, token, self._clock() + timedelta(seconds=life - ahead))
        return token

    # --- calls -----------------------------------------------------------------------------------------

    def call(self, path: str, body: dict) -> dict:
        """POST `body` to `path` with the token; a token WeCom calls expired or invalid is replaced and the call is
        retried once. WeComError for any other errcode."""
        token = self.token()
        data = self._request("POST", path, params={"access_token": token}, json=body)
        if data.get("errcode", 0) in TOKEN_ERRORS:
            self.inbox.drop_token(self.settings.wecom_corp_id, token)
            token = self._refresh(stale=token)
            data = self._request("POST", path, params={"access_token": token}, json=body)
        if data.get("errcode", 0) != 0:
            raise WeComError(int(data.get("errcode", -1)), str(data.get("errmsg", ""))[:200])
        return data

    def _request(self, method: str, path: str, **options) -> dict:
        try:
            answer = self.http.request(method, self.base + path, **options)
            answer.raise_for_status()
            data = answer.json()
        except httpx.HTTPStatusError as error:
            raise WeComError(-1, f"企业微信接口返回 HTTP {error.response.status_code}") from None
        except httpx.HTTPError as error:  # the URL (with its token) is never put in the message
            raise WeComError(-1, f"连不上企业微信（{type(error).__name__}）") from None
        except ValueError:
            raise WeComError(-1, "企业微信的回复不是 JSON") from None
        if not isinstance(data, dict):
            raise WeComError(-1, "企业微信的回复不是 JSON 对象")
        return data

    def sync_msg(self, open_kfid: str, cursor: str | None, token: str = "", limit: int = 1000) -> Page:
        body: dict = {"open_kfid": open_kfid, "limit": limit}
        if cursor:
            body["cursor"] = cursor
        if token:
            body["token"] = token
        data = self.call("/cgi-bin/kf/sync_msg", body)
        listed = data.get("msg_list") or []
        return Page(tuple(m for m in listed if isinstance(m, dict)), str(data.get("next_cursor") or cursor or ""),
                    bool(data.get("has_more")))

    def send_text(self, open_kfid: str, user: str, msgid: str, content: str) -> None:
        self.call("/cgi-bin/kf/send_msg", {"touser": user, "open_kfid": open_kfid, "msgid": msgid, "msgtype": "text",
                                           "text": {"content": content}})

    def service_state(self, open_kfid: str, user: str) -> int:
        data = self.call("/cgi-bin/kf/service_state/get", {"open_kfid": open_kfid, "external_userid": user})
        return int(data.get("service_state", -1))

    def trans(self, open_kfid: str, user: str, state: int, servicer: str = "") -> None:
        body: dict = {"open_kfid": open_kfid, "external_userid": user, "service_state": state}
        if servicer:
            body["servicer_userid"] = servicer
        self.call("/cgi-bin/kf/service_state/trans", body)
