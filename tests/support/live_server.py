"""A live page's server for tests, on 127.0.0.1: pages, a WebSocket endpoint and a server-sent-events
endpoint, in a thread (no WebSocket library: the handshake and text frames of RFC 6455 are enough).

    with LiveServer() as srv:
        srv.pages["/"] = "<html>..."       # served with text/html (status from srv.status, default 200)
        srv.reply_after_s = 0.3            # a frame the page sends is answered this late with
                                           # srv.reply (a text frame) on the same socket
        srv.stream_every_s = 0.05          # every socket also gets srv.tick this often, forever
        srv.push("row 3")                  # to every open event stream (an SSE "data:" message)
        srv.statuses["/gone"] = 500        # a page answered with an HTTP error

A POST to ``/api/add`` is answered at once (204) and pushes ``srv.reply`` to every event stream
``reply_after_s`` later. The server never reads what the page sends beyond the frame's length.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import socketserver
import threading
import time
from typing import Any

_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def _text_frame(text: str) -> bytes:
    data = text.encode()
    if len(data) < 126:
        return bytes([0x81, len(data)]) + data
    return bytes([0x81, 126]) + len(data).to_bytes(2, "big") + data


class _Handler(socketserver.StreamRequestHandler):
    server: _Server

    def handle(self) -> None:
        request_line = self.rfile.readline().decode("latin-1").split()
        if len(request_line) < 2:
            return
        method, path = request_line[0], request_line[1]
        headers: dict[str, str] = {}
        while (line := self.rfile.readline().decode("latin-1").strip()) != "":
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        body_length = int(headers.get("content-length", "0") or 0)
        if body_length:
            self.rfile.read(body_length)
        live: LiveServer = self.server.live
        live.requests.append((method, path))
        if headers.get("upgrade", "").lower() == "websocket":
            self._socket(live, headers)
        elif path == "/events":
            self._events(live)
        elif method == "POST" and path == "/api/add":
            self._answer(204, b"", "text/plain")
            threading.Timer(live.reply_after_s, live.push, (live.reply,)).start()
        elif path in live.pages:
            status = live.statuses.get(path, 200)
            self._answer(status, live.pages[path].encode(), "text/html; charset=utf-8")
        else:
            self._answer(404, b"not here", "text/plain")

    def _answer(self, status: int, body: bytes, content_type: str) -> None:
        self.wfile.write(
            f"HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
            "Cache-Control: no-store\r\nConnection: close\r\n\r\n".encode()
            + body
        )

    def _events(self, live: LiveServer) -> None:
        self.wfile.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n\r\n:open\n\n"
        )
        self.wfile.flush()
        with live.lock:
            live.streams.append(self.wfile)
        while not live.stopped.wait(0.1):
            pass

    def _socket(self, live: LiveServer, headers: dict[str, str]) -> None:
        accept = base64.b64encode(hashlib.sha1(headers["sec-websocket-key"].encode() + _GUID).digest())
        self.wfile.write(
            b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n"
        )
        self.wfile.flush()
        lock = threading.Lock()

        def send(text: str) -> None:
            with lock:
                self.wfile.write(_text_frame(text))
                self.wfile.flush()

        if live.stream_every_s:
            threading.Thread(target=self._tick, args=(live, send), daemon=True).start()
        while not live.stopped.is_set():
            head = self.rfile.read(2)
            if len(head) < 2 or head[0] & 0x0F == 0x8:  # closed, or a close frame
                return
            length = head[1] & 0x7F
            if length == 126:
                length = int.from_bytes(self.rfile.read(2), "big")
            elif length == 127:
                length = int.from_bytes(self.rfile.read(8), "big")
            self.rfile.read(4 + length)  # the mask and the payload: never looked at
            live.frames += 1
            threading.Timer(live.reply_after_s, self._safely, (send, live.reply)).start()

    @staticmethod
    def _tick(live: LiveServer, send: Any) -> None:
        while not live.stopped.wait(live.stream_every_s):
            if not _Handler._safely(send, live.tick):
                return

    @staticmethod
    def _safely(send: Any, text: str) -> bool:
        try:
            send(text)
        except (OSError, ValueError):  # the page went away
            return False
        return True


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    live: LiveServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        return  # a page that went away mid-answer is not news


class LiveServer:
    def __init__(self) -> None:
        self.pages: dict[str, str] = {}
        self.statuses: dict[str, int] = {}
        self.requests: list[tuple[str, str]] = []
        self.reply = "row"
        self.tick = "tick"
        self.reply_after_s = 0.3
        self.stream_every_s = 0.0
        self.frames = 0
        self.streams: list[Any] = []
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        self._server: _Server | None = None

    @property
    def origin(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def url(self, path: str) -> str:
        return self.origin + path

    def push(self, text: str) -> None:
        """One server-sent event to every open event stream."""
        with self.lock:
            for stream in list(self.streams):
                try:
                    stream.write(f"data: {text}\n\n".encode())
                    stream.flush()
                except (OSError, ValueError):
                    self.streams.remove(stream)

    def __enter__(self) -> LiveServer:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.live = self
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stopped.set()
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()
        time.sleep(0.05)
        for stream in self.streams:
            with contextlib.suppress(OSError):
                stream.close()
