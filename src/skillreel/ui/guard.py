"""Who may ask the review page what (pure decisions over a request's headers; ARCHITECTURE 15).

* **Host name.** Each serving has its own random host name under ``localhost``
  (``r-<16 hex>.localhost``: browsers resolve every ``*.localhost`` name to the loopback address,
  RFC 6761) and every request must name it with the port (``Host: r-….localhost:PORT``). A page on
  another site that rebinds its DNS name to 127.0.0.1 still sends its own name, and ``127.0.0.1`` or
  ``localhost`` themselves are refused: the page answers at its own name only.
* **Page token.** The printed URL carries a random token; the first visit turns it into a cookie
  (HttpOnly, SameSite=Strict, host-only: no ``Domain``, so the browser sends it to that random host
  name only, never to 127.0.0.1, ``localhost`` or another name, whatever their port; a program
  behind another port of 127.0.0.1 never receives it) and every page needs the cookie.
* **State changes** (POST) also need the token in the form (or the ``X-Skillreel-Token`` header), not
  only the cookie, and a same-origin request: ``Origin`` (or, without it, ``Referer``) must be the
  page's own origin, and ``Sec-Fetch-Site``, where the browser sends it, must be ``same-origin``. A
  form posted from another local origin (another port, another name) fails.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

LOOPBACK = "127.0.0.1"
HOST_SUFFIX = ".localhost"
TOKEN_HEADER = "x-skillreel-token"  # noqa: S105 (a header name)


def new_token() -> str:
    return secrets.token_urlsafe(32)


def new_host_name() -> str:
    """A random host name under ``localhost`` for one serving of the page (a DNS label: lower-case)."""
    return f"r-{secrets.token_hex(8)}{HOST_SUFFIX}"


@dataclass(frozen=True)
class Guard:
    port: int
    token: str
    host_name: str  # r-<random>.localhost

    def __post_init__(self) -> None:
        label = self.host_name.removesuffix(HOST_SUFFIX)
        if not self.host_name.endswith(HOST_SUFFIX) or not label.startswith("r-") or not label[2:].isalnum():
            raise ValueError("the page's host name is r-<random>.localhost")

    @property
    def host(self) -> str:
        return f"{self.host_name}:{self.port}"

    @property
    def origin(self) -> str:
        return f"http://{self.host}"

    @property
    def cookie(self) -> str:
        return f"skillreel_ui_{self.port}"

    def url(self) -> str:
        """The URL ``skillreel ui`` prints: the only way in."""
        return f"{self.origin}/?token={self.token}"

    def host_ok(self, host: str | None) -> bool:
        return host == self.host

    def token_ok(self, value: str | None) -> bool:
        return value is not None and secrets.compare_digest(value.encode(), self.token.encode())

    def post_token_ok(self, headers: Mapping[str, str], form_token: str | None) -> bool:
        """A state change carries the token beside the cookie: in its form or in its header."""
        return self.token_ok(headers.get(TOKEN_HEADER)) or self.token_ok(form_token)

    def same_origin(self, headers: Mapping[str, str]) -> str | None:
        """Why a state-changing request is not same-origin, or None when it is."""
        site = headers.get("sec-fetch-site")
        if site is not None and site != "same-origin":
            return f"the request came from another site ({site})"
        origin = headers.get("origin")
        if origin is not None:
            return None if origin == self.origin else "the request came from another origin"
        referer = headers.get("referer")
        if referer is None:
            return "the request names no origin"
        parts = urlsplit(referer)
        return (
            None
            if f"{parts.scheme}://{parts.netloc}" == self.origin
            else "the request came from another origin"
        )
