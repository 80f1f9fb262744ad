"""A scriptable stand-in for an OpenAI-compatible provider, served over real HTTP on 127.0.0.1.

It speaks just enough of the API for langchain-openai: `POST /v1/chat/completions` (plain
JSON, or SSE when the request says `"stream": true`) and `POST /v1/embeddings` (vectors from
HashingEmbeddings, so they are deterministic). Each test sets the attributes it needs
(reply, status, delay, drip, garbage, cut_stream, or `script`: a function from the request body to
the reply, e.g. a grader verdict for JSON-mode requests and an answer for streamed ones) and
reads `requests` afterwards. It leaves out
everything else of the API (tools, logprobs, usage accounting).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from core.retrieval.embeddings import HashingEmbeddings

EMBED_DIM = 64
GARBAGE = b"<html><body>502 Bad Gateway from some proxy</body></html>"


@dataclass(frozen=True)
class Recorded:
    """One request the server received."""

    path: str
    headers: dict[str, str]  # names lower-cased
    body: dict


@dataclass
class FakeOpenAI:
    """The server plus its script; attributes may be changed between calls."""

    reply: str = "好的。"
    status: int = 200
    error_message: str = "something went wrong"
    delay: float = 0.0
    garbage: bool = False  # a 200 reply whose body is an HTML page, as from a misconfigured proxy
    cut_stream: bool = False  # drop the connection in the middle of a streamed answer
    stream_piece: int = 5
    drip: float = 0.0  # seconds between streamed events: a server that never stops but never finishes
    script: Callable[[dict], str] | None = None  # the reply for this request body, instead of `reply`
    requests: list[Recorded] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._embeddings = HashingEmbeddings(dim=EMBED_DIM)
        self._closing = threading.Event()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._server.daemon_threads = True
        # a short poll keeps shutdown() (one per test) from costing the default half second
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02},
                                        daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def count(self, path: str) -> int:
        with self._lock:
            return sum(1 for r in self.requests if r.path == path)

    def close(self) -> None:
        self._closing.set()  # wakes handlers sleeping on `delay`
        self._server.shutdown()
        self._server.server_close()

    # -- what the handler calls -------------------------------------------------------------

    def _record(self, path: str, headers: dict[str, str], body: dict) -> None:
        with self._lock:
            self.requests.append(Recorded(path, headers, body))

    def _wait(self) -> None:
        if self.delay:
            self._closing.wait(self.delay)

    def _reply(self, body: dict) -> str:
        return self.script(body) if self.script is not None else self.reply

    def _chat_completion(self, body: dict) -> dict:
        return {"id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
                "model": body.get("model", ""),
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": self._reply(body)}}],
                "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150}}

    def _chat_events(self, body: dict) -> list[bytes]:
        reply = self._reply(body)
        pieces = [reply[i:i + self.stream_piece] for i in range(0, len(reply), self.stream_piece)]
        deltas = [{"role": "assistant", "content": ""}] + [{"content": p} for p in pieces]
        events = []
        for i, delta in enumerate(deltas):
            finish = "stop" if i == len(deltas) - 1 else None
            chunk = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": int(time.time()),
                     "model": body.get("model", ""),
                     "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
            events.append(b"data: " + json.dumps(chunk, ensure_ascii=False).encode() + b"\n\n")
        events.append(b"data: [DONE]\n\n")
        return events

    def _embedding_list(self, body: dict) -> dict:
        texts = body["input"]
        if isinstance(texts, str):
            texts = [texts]
        if not all(isinstance(t, str) for t in texts):
            raise ValueError("fake server expects raw strings, not token arrays")
        vectors = self._embeddings.embed_documents(texts)
        return {"object": "list", "model": body.get("model", ""),
                "data": [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)],
                "usage": {"prompt_tokens": 0, "total_tokens": 0}}


def _make_handler(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:  # keep test output quiet
            return

        def do_POST(self) -> None:  # noqa: N802 - name fixed by http.server
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            body = json.loads(raw or b"{}")
            path = self.path.split("?")[0]
            fake._record(path, {k.lower(): v for k, v in self.headers.items()}, body)
            try:
                fake._wait()
                self._respond(path, body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout): nothing to answer

        def _respond(self, path: str, body: dict) -> None:
            if fake.status != 200:
                error = {"error": {"message": fake.error_message, "type": "fake_error", "code": fake.status}}
                return self._send(fake.status, json.dumps(error).encode(), "application/json")
            if fake.garbage:
                return self._send(200, GARBAGE, "text/html")
            if path == "/v1/chat/completions" and body.get("stream"):
                return self._send_events(fake._chat_events(body))
            if path == "/v1/chat/completions":
                return self._send(200, json.dumps(fake._chat_completion(body)).encode(), "application/json")
            if path == "/v1/embeddings":
                return self._send(200, json.dumps(fake._embedding_list(body)).encode(), "application/json")
            return self._send(404, b'{"error": {"message": "no such route"}}', "application/json")

        def _send(self, status: int, payload: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.send_header("Connection", "close")  # no keep-alive: a closed server must refuse
            self.end_headers()
            self.wfile.write(payload)
            self.close_connection = True

        def _send_events(self, events: list[bytes]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            for number, event in enumerate(events):
                if fake.cut_stream and number == 2:
                    return  # the connection drops mid-body, as behind a proxy that cuts long streams
                if number and fake.drip and fake._closing.wait(fake.drip):
                    return
                self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")

    return Handler
