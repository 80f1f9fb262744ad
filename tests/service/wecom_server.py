"""A scripted WeCom (微信客服) server on 127.0.0.1 for the channel's tests: gettoken, kf/sync_msg, kf/send_msg and
kf/service_state/get|trans over real HTTP, keeping WeCom's rules as its documentation states them.

- gettoken gives a token living `token_life` seconds; a call with an expired token gets 42001, an unknown one 40014.
- sync_msg pages by an opaque cursor (`page_size`), says has_more, returns only the last three days, and refuses a
  callback Token that is unknown or older than ten minutes (95007).
- send_msg takes a text only while the session is in state 0 or 1 (else 95018), within 48 hours of the student's last
  message (95002), at most 5 per such message (95001), at most 2,048 bytes (45002), and refuses a msgid it already
  took on that account (DUPLICATE; WeCom's documentation says only "否则接口返回错误", so the code is this server's).
- service_state/trans allows WeCom's transitions only (95016 otherwise).

Time is the server's own clock (`advance`), so a test moves 48 hours without waiting. Tests script students with
`say`, sessions with `take`/`end`, tokens with `expire_tokens`, and may run `on_send` after a send is taken and
before it is answered (a test kills the service there).
"""

from __future__ import annotations

import base64
import json
import re
import secrets
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

DUPLICATE = 40058
MSGID = re.compile(r"^[0-9a-zA-Z_-]{1,32}$")
DAY = 86400.0
TRANSITIONS = {0: {1, 2, 3, 4}, 1: {2, 3, 4}, 2: {3}, 3: {3, 4}, 4: set()}


@dataclass
class Session:
    state: int = 4  # 已结束/未开始 until the student writes
    servicer: str = ""
    last_message_at: float | None = None
    sends_since: int = 0


@dataclass
class FakeWeCom:
    """The server's state; every HTTP call and every scripting method takes `lock`."""

    corp_id: str = "wwcorp0001"
    secret: str = "kf-secret"
    token_life: int = 7200
    page_size: int = 1000
    offset: float = 0.0
    lock: threading.RLock = field(default_factory=threading.RLock)
    tokens: dict[str, float] = field(default_factory=dict)
    gettoken_calls: int = 0
    messages: dict[str, list[dict]] = field(default_factory=dict)
    callback_tokens: dict[str, float] = field(default_factory=dict)
    sessions: dict[tuple[str, str], Session] = field(default_factory=dict)
    taken: dict[str, set[str]] = field(default_factory=dict)  # msgids accepted per account
    sent: list[dict] = field(default_factory=list)  # every text accepted
    refused: list[dict] = field(default_factory=list)  # every call answered with an error
    calls: list[str] = field(default_factory=list)
    on_send: object = None
    gettoken_delay: float = 0.0  # a slow gettoken, so two clients are both inside their refresh at once
    server: ThreadingHTTPServer | None = None

    # --- scripting ---------------------------------------------------------------------------------

    def now(self) -> float:
        return time.time() + self.offset

    def advance(self, seconds: float) -> None:
        with self.lock:
            self.offset += seconds

    def session(self, kfid: str, user: str) -> Session:
        return self.sessions.setdefault((kfid, user), Session())

    def say(self, kfid: str, user: str, text: str | None = None, *, msgtype: str = "text", ago: float = 0.0,
            payload: dict | None = None) -> str:
        """The student sends a message (`ago` seconds back on the server's clock); its msgid."""
        with self.lock:
            msgid = "wm" + secrets.token_hex(10)
            at = self.now() - ago
            message = {"msgid": msgid, "open_kfid": kfid, "external_userid": user, "send_time": int(at),
                       "origin": 3, "msgtype": msgtype}
            if msgtype == "text":
                message["text"] = {"content": text or ""}
            else:
                message[msgtype] = payload or {"media_id": "MEDIA_" + secrets.token_hex(4)}
            self.messages.setdefault(kfid, []).append(message)
            session = self.session(kfid, user)
            if session.last_message_at is None or at > session.last_message_at:
                session.last_message_at = at
                session.sends_since = 0
            if session.state == 4:
                session.state = 0
            return msgid

    def event(self, kfid: str, event: dict) -> str:
        with self.lock:
            msgid = "ev" + secrets.token_hex(10)
            self.messages.setdefault(kfid, []).append({"msgid": msgid, "send_time": int(self.now()), "origin": 4,
                                                       "msgtype": "event", "event": {"open_kfid": kfid, **event}})
            return msgid

    def take(self, kfid: str, user: str, servicer: str = "zhangsan") -> None:
        """A 接待人员 takes the session in the WeCom client (接入)."""
        with self.lock:
            session = self.session(kfid, user)
            session.state, session.servicer = 3, servicer
            self.event(kfid, {"event_type": "session_status_change", "external_userid": user, "change_type": 1,
                              "new_servicer_userid": servicer})

    def end(self, kfid: str, user: str) -> None:
        """The 接待人员 ends the session."""
        with self.lock:
            session = self.session(kfid, user)
            servicer, session.state, session.servicer = session.servicer, 4, ""
            self.event(kfid, {"event_type": "session_status_change", "external_userid": user, "change_type": 3,
                              "old_servicer_userid": servicer})

    def callback_token(self) -> str:
        with self.lock:
            token = "ENC" + secrets.token_hex(12)
            self.callback_tokens[token] = self.now() + 600
            return token

    def expire_tokens(self) -> None:
        with self.lock:
            for token in self.tokens:
                self.tokens[token] = self.now() - 1

    def texts(self, user: str | None = None) -> list[str]:
        with self.lock:
            return [s["content"] for s in self.sent if user is None or s["touser"] == user]

    def sent_msgids(self) -> list[str]:
        with self.lock:
            return [s["msgid"] for s in self.sent]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    # --- the API -----------------------------------------------------------------------------------

    def handle(self, method: str, path: str, query: dict, body: dict) -> dict:
        with self.lock:
            self.calls.append(path)
            if path == "/cgi-bin/gettoken":
                return self._gettoken(query)
            problem = self._token_problem(query.get("access_token", ""))
            if problem is not None:
                return self._refuse(path, problem, body)
            handler = {"/cgi-bin/kf/sync_msg": self._sync, "/cgi-bin/kf/send_msg": self._send,
                       "/cgi-bin/kf/service_state/get": self._state,
                       "/cgi-bin/kf/service_state/trans": self._trans}.get(path)
            if handler is None:
                return {"errcode": 404, "errmsg": "no such api"}
            answer = handler(body)
            if answer.get("errcode"):
                self.refused.append({"path": path, "errcode": answer["errcode"], "body": body})
            return answer

    def _refuse(self, path: str, code: int, body: dict) -> dict:
        self.refused.append({"path": path, "errcode": code, "body": body})
        return {"errcode": code, "errmsg": f"error {code}"}

    def _gettoken(self, query: dict) -> dict:
        self.gettoken_calls += 1
        if query.get("corpid") != self.corp_id or query.get("corpsecret") != self.secret:
            return {"errcode": 40001, "errmsg": "invalid credential"}
        token = "AT" + secrets.token_hex(16)
        self.tokens[token] = self.now() + self.token_life
        return {"errcode": 0, "errmsg": "ok", "access_token": token, "expires_in": self.token_life}

    def _token_problem(self, token: str) -> int | None:
        if token not in self.tokens:
            return 40014
        if self.tokens[token] <= self.now():
            return 42001
        return None

    def _sync(self, body: dict) -> dict:
        kfid = body.get("open_kfid", "")
        token = body.get("token", "")
        if token and self.callback_tokens.get(token, 0) <= self.now():
            return {"errcode": 95007, "errmsg": "invalid msg token"}
        listed = self.messages.get(kfid, [])
        cursor = body.get("cursor", "")
        start = int(base64.b64decode(cursor).decode()[1:]) if cursor else 0
        reach = self.now() - 3 * DAY
        limit = min(int(body.get("limit", 1000) or 1000), self.page_size)
        page, position = [], start
        while position < len(listed) and len(page) < limit:
            if listed[position]["send_time"] >= reach:
                page.append(listed[position])
            position += 1
        return {"errcode": 0, "errmsg": "ok", "next_cursor": base64.b64encode(f"c{position}".encode()).decode(),
                "has_more": 1 if position < len(listed) else 0, "msg_list": page}

    def _send(self, body: dict) -> dict:
        kfid, user, msgid = body.get("open_kfid", ""), body.get("touser", ""), body.get("msgid", "")
        content = (body.get("text") or {}).get("content", "")
        if not MSGID.match(msgid):
            return {"errcode": 40058, "errmsg": "invalid msgid"}
        if msgid in self.taken.setdefault(kfid, set()):
            return {"errcode": DUPLICATE, "errmsg": "msgid duplicated"}
        session = self.session(kfid, user)
        if session.state not in (0, 1):
            return {"errcode": 95018, "errmsg": "send msg session status invalid"}
        if session.last_message_at is None or self.now() - session.last_message_at > 2 * DAY:
            return {"errcode": 95002, "errmsg": "send msg time limit"}
        if session.sends_since >= 5:
            return {"errcode": 95001, "errmsg": "send msg count limit"}
        if len(content.encode("utf-8")) > 2048:
            return {"errcode": 45002, "errmsg": "content size out of limit"}
        self.taken[kfid].add(msgid)
        session.sends_since += 1
        self.sent.append({"open_kfid": kfid, "touser": user, "msgid": msgid, "content": content, "at": self.now()})
        if callable(self.on_send):
            self.on_send(msgid)
        return {"errcode": 0, "errmsg": "ok", "msgid": msgid}

    def _state(self, body: dict) -> dict:
        session = self.session(body.get("open_kfid", ""), body.get("external_userid", ""))
        return {"errcode": 0, "errmsg": "ok", "service_state": session.state, "servicer_userid": session.servicer}

    def _trans(self, body: dict) -> dict:
        session = self.session(body.get("open_kfid", ""), body.get("external_userid", ""))
        target = int(body.get("service_state", -1))
        if target not in TRANSITIONS.get(session.state, set()):
            return {"errcode": 95016, "errmsg": "invalid state transfer"}
        if target == 3 and not body.get("servicer_userid"):
            return {"errcode": 95014, "errmsg": "servicer required"}
        session.state, session.servicer = target, body.get("servicer_userid", "")
        return {"errcode": 0, "errmsg": "ok", "msg_code": "MSG_CODE_" + secrets.token_hex(4)}

    def close(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


def start_wecom(**options) -> FakeWeCom:
    fake = FakeWeCom(**options)

    class Handler(BaseHTTPRequestHandler):
        def _answer(self, method: str) -> None:
            parsed = urlparse(self.path)
            if parsed.path == "/cgi-bin/gettoken" and fake.gettoken_delay:
                time.sleep(fake.gettoken_delay)
            query = {k: v[0] for k, v in parse_qs(parsed.query).items()}
            length = int(self.headers.get("Content-Length", 0) or 0)
            body = json.loads(self.rfile.read(length) or b"{}") if length else {}
            data = json.dumps(fake.handle(method, parsed.path, query, body), ensure_ascii=False).encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802 - the http.server name
            self._answer("GET")

        def do_POST(self) -> None:  # noqa: N802
            self._answer("POST")

        def log_message(self, *_args) -> None:
            pass

    fake.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=fake.server.serve_forever, daemon=True).start()
    return fake
