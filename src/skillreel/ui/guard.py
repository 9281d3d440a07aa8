"""Who may ask the review page what (pure decisions over a request's headers; ARCHITECTURE 15).

* **Host.** Every request must name the page's own address (``127.0.0.1:PORT``): a page on another
  site that rebinds its DNS name to 127.0.0.1 still sends its own name and is refused.
* **Page token.** The printed URL carries a random token; the first visit turns it into a cookie
  (HttpOnly, SameSite=Strict; its name carries the port, but browsers send a cookie to every port
  of its host, so another server on 127.0.0.1 that the browser visits receives it: a documented
  limit, docs/guide.md) and every page needs the cookie.
* **State changes** (POST) also need the token in the form and a same-origin request: ``Origin`` (or,
  without it, ``Referer``) must be the page's own origin, and ``Sec-Fetch-Site``, where the browser
  sends it, must be ``same-origin``. A form posted from another local origin (another port) fails.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

LOOPBACK = "127.0.0.1"


def new_token() -> str:
    return secrets.token_urlsafe(32)


@dataclass(frozen=True)
class Guard:
    port: int
    token: str

    @property
    def host(self) -> str:
        return f"{LOOPBACK}:{self.port}"

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
