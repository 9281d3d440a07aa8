"""A small threaded HTTP server on 127.0.0.1 for tests: pages set from the test, a request log.

srv.set_page("/app", "<html>...</html>")          # served with text/html
srv.set_page("/app?q=x", "<html>...</html>")      # a route with a query wins over its path's
srv.set_route("/r", status=302, headers={"Location": "http://..."})
srv.set_route("/slow", body=b"...", delay_s=0.5)   # answered half a second late (a slow backend)
srv.requests  -> list of (method, path) seen, in order
srv.cookies   -> the Cookie header of each of those requests ("" when none), in the same order
gate = srv.hold("/slow")   # requests to /slow wait until gate.release(); gate.reached is set when one arrives
gate = srv.hold("/act", after=3)   # the first 3 requests pass; the 4th and later ones are held
"""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Route:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    body_delay_s: float = 0.0  # between the headers and the body (a body that streams in late)


@dataclass
class Gate:
    """Holds the requests of one path: ``reached`` is set when one arrives (a signal a test waits for),
    and they are answered once ``release()`` is called."""

    reached: threading.Event = field(default_factory=threading.Event)
    opened: threading.Event = field(default_factory=threading.Event)
    after: int = 0  # how many requests pass before the gate holds them
    passed: int = 0

    def release(self) -> None:
        self.opened.set()


class _QuietServer(ThreadingHTTPServer):
    """Threaded, and quiet when a client closes its connection mid-response (a page that navigated
    away or closed: not news); any other error in a handler is printed as usual."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):  # BrokenPipeError, ConnectionResetError
            return
        super().handle_error(request, client_address)


class LocalServer:
    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.gates: dict[str, Gate] = {}
        self.requests: list[tuple[str, str]] = []
        self.cookies: list[str] = []
        self.bodies: list[bytes] = []
        self._lock = threading.Lock()
        self._httpd: _QuietServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        assert self._httpd is not None
        return int(self._httpd.server_address[1])

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return self.origin + path

    def set_page(self, path: str, html: str, content_type: str = "text/html; charset=utf-8") -> None:
        self.set_route(path, body=html.encode(), headers={"Content-Type": content_type})

    def set_route(
        self,
        path: str,
        *,
        status: int = 200,
        body: bytes = b"",
        headers: dict[str, str] | None = None,
        delay_s: float = 0.0,
        body_delay_s: float = 0.0,
    ) -> None:
        with self._lock:
            self.routes[path] = Route(status, body, dict(headers or {}), delay_s, body_delay_s)

    def hold(self, path: str, *, after: int = 0) -> Gate:
        """Hold every request to ``path`` (after the first ``after``) until the returned gate is
        released (see :class:`Gate`)."""
        gate = Gate(after=after)
        with self._lock:
            self.gates[path] = gate
        return gate

    def count(self, method: str, path: str) -> int:
        """How many ``method`` requests to ``path`` (query ignored) arrived so far."""
        with self._lock:
            return sum(1 for m, p in self.requests if m == method and p.split("?", 1)[0] == path)

    def request_count(self) -> int:
        with self._lock:
            return len(self.requests)

    def start(self) -> None:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                with server._lock:
                    server.requests.append((self.command, self.path))
                    server.cookies.append(self.headers.get("Cookie") or "")
                    server.bodies.append(body)
                    route = server.routes.get(self.path) or server.routes.get(self.path.split("?", 1)[0])
                    gate = server.gates.get(self.path.split("?", 1)[0])
                    if gate is not None and gate.passed < gate.after:
                        gate.passed += 1
                        gate = None
                if gate is not None:
                    gate.reached.set()
                    gate.opened.wait(timeout=300)
                if route is None:
                    route = Route(404, b"not found", {"Content-Type": "text/plain"})
                if route.delay_s:
                    time.sleep(route.delay_s)  # a slow backend: the page waits, never a test
                self.send_response(route.status)
                for key, value in route.headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(route.body)))
                if "Cache-Control" not in route.headers:
                    self.send_header("Cache-Control", "no-store")
                self.end_headers()
                if route.body_delay_s:
                    self.wfile.flush()
                    time.sleep(route.body_delay_s)
                if self.command != "HEAD":
                    self.wfile.write(route.body)

            do_GET = do_POST = do_HEAD = do_PUT = _serve

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        for gate in self.gates.values():
            gate.release()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> LocalServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
