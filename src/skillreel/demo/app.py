"""The bundled example web application: an invoice desk served on 127.0.0.1.

Three variants of the same pages, switchable at run time on one origin (a URL target binds the
exact URL, so "the page changed" must happen behind the same address):

- ``original``: what the skill is recorded on.
- ``redesign``: ids, names, classes, test ids, placeholder and layout changed, a wrapper added,
  and each Approve button moved into an actions box and gained an accessible name that names its
  invoice. Elements whose role
  and accessible name survived are found exactly by them; the Approve button must heal (its text
  still says Approve), and the right invoice is still approved.
- ``ambiguous``: two identical approve buttons and no test ids. Replay must refuse to guess.

Sign-in needs a password from the set given to the app; a session cookie guards the desk. The
attach page (``/attach``, public) takes a document for an invoice and shows the size it received;
its receipt opens in a new tab (``/receipt``) whose link downloads a small generated file.
"""

from __future__ import annotations

import json
import secrets
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.resources import files
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ..errors import SkillreelError

INVOICES = (
    {"id": "INV-1042", "supplier": "Acme Tools", "amount": "1,250.00 EUR", "region": "north"},
    {"id": "INV-1043", "supplier": "Acme Tools", "amount": "310.00 EUR", "region": "west"},
    {"id": "INV-2077", "supplier": "Globex", "amount": "8,400.00 EUR", "region": "south"},
    {"id": "INV-2078", "supplier": "Globex", "amount": "95.50 EUR", "region": "north"},
    {"id": "INV-3310", "supplier": "Initech", "amount": "2,000.00 EUR", "region": "south"},
)

VARIANTS: dict[str, dict[str, Any]] = {
    "original": {
        "ids": {
            "login_form": "login",
            "user": "username",
            "password": "password",
            "query": "query",
            "region": "region",
        },
        "names": {"user": "username", "password": "password", "query": "query", "region": "region"},
        "classes": {"primary": "btn-primary", "results": "results"},
        "placeholder": "Supplier or invoice number",
        "wrapper": False,
    },
    "redesign": {
        "ids": {
            "login_form": "signin-form",
            "user": "login-user",
            "password": "login-secret",
            "query": "invoice-search",
            "region": "region-filter",
        },
        "names": {"user": "user", "password": "secret", "query": "search", "region": "area"},
        "classes": {"primary": "button button--main", "results": "result-list"},
        "placeholder": "Search by supplier",
        "wrapper": True,
    },
}
VARIANTS["ambiguous"] = VARIANTS["original"]


def _page(name: str) -> str:
    return files("skillreel.demo").joinpath("site", name).read_text(encoding="utf-8")


def render(template: str, variant: str) -> str:
    """Fill the page template for a variant (plain substitution, no user input involved)."""
    spec = VARIANTS[variant]
    values = {
        "variant": variant,
        "placeholder": spec["placeholder"],
        "wrapper_open": '<div class="panel">' if spec["wrapper"] else "",
        "wrapper_close": "</div>" if spec["wrapper"] else "",
    }
    for group in ("ids", "names", "classes"):
        for key, value in spec[group].items():
            values[f"{group}.{key}"] = value
    for key, value in values.items():
        template = template.replace("{{" + key + "}}", value)
    return template


@dataclass
class DeskState:
    variant: str = "original"
    passwords: frozenset[str] = frozenset()
    sessions: set[str] = field(default_factory=set)
    approved: list[str] = field(default_factory=list)
    requests: int = 0
    attached: list[int] = field(default_factory=list)  # the size of each document received
    receipt: bytes = field(default_factory=lambda: f"Invoice Desk receipt {secrets.token_hex(8)}\n".encode())
    lock: threading.Lock = field(default_factory=threading.Lock)


class InvoiceDesk:
    """The demo app server. ``start()`` binds 127.0.0.1 (port 0 = any free port)."""

    def __init__(self, passwords: set[str], port: int = 0) -> None:
        self.state = DeskState(passwords=frozenset(passwords))
        self._port = port
        self._httpd: ThreadingHTTPServer | None = None

    @property
    def origin(self) -> str:
        assert self._httpd is not None
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def start_url(self) -> str:
        return self.origin + "/"

    def use(self, variant: str) -> None:
        if variant not in VARIANTS:
            raise ValueError(f"unknown variant {variant!r}")
        with self.state.lock:
            self.state.variant = variant

    @property
    def approved(self) -> list[str]:
        with self.state.lock:
            return list(self.state.approved)

    @property
    def attached(self) -> list[int]:
        """The size in bytes of each document the attach page received, in order."""
        with self.state.lock:
            return list(self.state.attached)

    def start(self) -> InvoiceDesk:
        handler = _handler_for(self.state)
        try:
            self._httpd = ThreadingHTTPServer(("127.0.0.1", self._port), handler)
        except OSError as exc:
            raise SkillreelError(
                "SR_RECORD_USAGE",
                f"the demo app could not listen on 127.0.0.1:{self._port} "
                f"({exc.strerror}); pick another port or stop what uses it",
            ) from exc
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, daemon=True, name="invoice-desk").start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> InvoiceDesk:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _search(variant: str, query: str, region: str) -> list[dict[str, str]]:
    q = query.strip().lower()
    found = [
        dict(i)
        for i in INVOICES
        if q
        and (q in i["supplier"].lower() or q == i["id"].lower())
        and (not region or i["region"] == region)
    ]
    if variant == "ambiguous":
        found = found + [dict(i, id=i["id"] + "-B") for i in found]
    return found


def _handler_for(state: DeskState) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(
            self,
            status: int,
            body: bytes = b"",
            ctype: str = "text/html; charset=utf-8",
            headers: dict[str, str] | None = None,
        ) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)

        def _signed_in(self) -> bool:
            cookie = self.headers.get("Cookie") or ""
            token = next(
                (c.split("=", 1)[1] for c in cookie.split("; ") if c.startswith("desk_session=")), ""
            )
            with state.lock:
                return token in state.sessions

        def _body(self) -> bytes:
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))

        def do_GET(self) -> None:
            with state.lock:
                state.requests += 1
                variant = state.variant
            url = urlsplit(self.path)
            if url.path == "/":
                self._send(200, render(_page("login.html"), variant).encode())
            elif url.path == "/desk":
                if not self._signed_in():
                    self._send(303, headers={"Location": "/"})
                    return
                self._send(200, render(_page("desk.html"), variant).encode())
            elif url.path in ("/attach", "/receipt"):
                self._send(200, render(_page(url.path[1:] + ".html"), variant).encode())
            elif url.path == "/receipt.txt":
                disposition = {"Content-Disposition": 'attachment; filename="receipt.txt"'}
                self._send(200, state.receipt, "text/plain", disposition)
            elif url.path in ("/static/desk.css", "/static/desk.js", "/static/attach.js"):
                ctype = "text/css" if url.path.endswith(".css") else "text/javascript"
                self._send(200, _page(url.path.rsplit("/", 1)[1]).encode(), ctype)
            elif url.path == "/api/invoices" and self._signed_in():
                params = parse_qs(url.query)
                found = _search(variant, params.get("q", [""])[0], params.get("region", [""])[0])
                self._send(200, json.dumps(found).encode(), "application/json")
            else:
                self._send(404, b"not found", "text/plain")

        def do_POST(self) -> None:
            with state.lock:
                state.requests += 1
            url = urlsplit(self.path)
            if url.path == "/login":
                form = parse_qs(self._body().decode("utf-8", "replace"))
                password = next((v[0] for k, v in form.items() if k in ("password", "secret")), "")
                if password and password in state.passwords:
                    token = secrets.token_hex(16)
                    with state.lock:
                        state.sessions.add(token)
                    self._send(
                        303,
                        headers={
                            "Location": "/desk",
                            "Set-Cookie": f"desk_session={token}; Path=/; HttpOnly",
                        },
                    )
                else:
                    self._send(303, headers={"Location": "/"})
            elif url.path == "/api/approve" and self._signed_in():
                invoice = json.loads(self._body() or b"{}").get("id", "")
                with state.lock:
                    state.approved.append(str(invoice))
                self._send(200, json.dumps({"id": invoice}).encode(), "application/json")
            elif url.path == "/api/attach":
                size = len(self._body())
                with state.lock:
                    state.attached.append(size)
                self._send(200, json.dumps({"bytes": size}).encode(), "application/json")
            else:
                self._send(404, b"not found", "text/plain")

    return Handler
