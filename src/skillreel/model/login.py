"""Logins: a signed-in browser state (a Playwright storage state) kept in the vault under a name.

A skill is bound to a login by its name (``Environment.login``), never by the state's digest,
so a refreshed login (``skillreel login set NAME FILE`` again) keeps every skill bound to it
valid. The body is held by :class:`LoginState`, which never shows it (``repr`` counts cookies);
:class:`LoginRecord` is what the vault keeps beside it: the name, the digest and content-free
facts about the body, for ``login list``.

The wire names keep the word they had before logins were named: the record's schema id
``skillreel.session/v1`` and an environment's ``session`` key.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Final, Literal

from pydantic import Field, StringConstraints

from .base import Digest, Document, Timestamp

# The same rule as a skill name: it names a file in the vault and shows in listings.
LoginName = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", max_length=64)]
LOGIN_NAME_RULE: Final = "a login name is 1-64 lower-case letters, digits and single inner hyphens"
Backend = Literal["file", "keyring"]
Slot = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{32}$")]


class LoginState:
    """A storage state's body, in memory only: never printed, logged or compared by value."""

    __slots__ = ("_body",)

    def __init__(self, body: Mapping[str, Any]) -> None:
        self._body = dict(body)

    @property
    def body(self) -> dict[str, Any]:
        """The storage state as Playwright takes it (a copy at the top level)."""
        return dict(self._body)

    def __repr__(self) -> str:
        return f"LoginState({len(cookies_of(self._body))} cookies)"

    def __eq__(self, other: object) -> bool:
        return self is other

    __hash__ = object.__hash__


class LoginRecord(Document):
    """What the vault keeps about a login besides its body: never a cookie name or value."""

    schema_: Literal["skillreel.session/v1"] = Field("skillreel.session/v1", alias="schema")
    name: LoginName
    state_digest: Digest
    backend: Backend
    slot: Slot  # where the body is: the file ``<slot>.state`` or the keyring entry ``session/<slot>``
    cookies: Annotated[int, Field(ge=0, le=100_000)]
    origins: Annotated[int, Field(ge=0, le=100_000)]
    expires_at: Timestamp | None = None  # the earliest expiry of a cookie that has one
    set_at: Timestamp


def cookies_of(state: Mapping[str, Any]) -> list[Any]:
    cookies = state.get("cookies", [])
    return cookies if isinstance(cookies, list) else []


def state_problem(state: Mapping[str, Any]) -> str | None:
    """What makes ``state`` no Playwright storage state, content-free (None: it is one)."""
    if set(state) - {"cookies", "origins"}:
        return "a storage state holds only 'cookies' and 'origins'"
    cookies, origins = state.get("cookies", []), state.get("origins", [])
    if not isinstance(cookies, list) or not all(isinstance(c, dict) for c in cookies):
        return "'cookies' must be a list of objects"
    if not all(isinstance(c.get("name"), str) and isinstance(c.get("value"), str) for c in cookies):
        return "every cookie needs a string name and value"
    for cookie in cookies:  # the types Chromium takes: a state it refuses would fail every replay
        problem = _cookie_problem(cookie)
        if problem is not None:
            return problem
    if not isinstance(origins, list) or not all(
        isinstance(o, dict) and isinstance(o.get("origin"), str) for o in origins
    ):
        return "'origins' must be a list of objects with an 'origin'"
    for origin in origins:
        items = origin.get("localStorage", [])
        if not isinstance(items, list) or not all(
            isinstance(i, dict) and isinstance(i.get("name"), str) and isinstance(i.get("value"), str)
            for i in items
        ):
            return "an origin's 'localStorage' must be a list of objects with a string name and value"
    return None


_COOKIE_TYPES: dict[str, type | tuple[type, ...]] = {
    "domain": str,
    "path": str,
    "expires": (int, float),
    "httpOnly": bool,
    "secure": bool,
}


def _cookie_problem(cookie: Mapping[str, Any]) -> str | None:
    for key, kind in _COOKIE_TYPES.items():
        value = cookie.get(key)
        if key in cookie and (not isinstance(value, kind) or (kind is not bool and isinstance(value, bool))):
            return f"a cookie's {key!r} has the wrong type"
    if "sameSite" in cookie and cookie["sameSite"] not in ("Strict", "Lax", "None"):
        return "a cookie's 'sameSite' must be Strict, Lax or None"
    return None


def earliest_expiry(state: Mapping[str, Any]) -> float | None:
    """The earliest expiry (seconds since the epoch) of a cookie that has one; session cookies
    (``expires`` -1 or absent) have none."""
    moments = [
        float(c["expires"])
        for c in cookies_of(state)
        if isinstance(c, dict) and isinstance(c.get("expires"), int | float) and c["expires"] > 0
    ]
    return min(moments) if moments else None
