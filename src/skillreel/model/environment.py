"""Environment requirements: the exact target, allowlist, identity and sign-in a skill is bound
to, with their own digest (ARCHITECTURE section 7), and the other origins it may replay on.

Later additions are optional and left out of the JSON when unset, so a document written before
them keeps its bytes and its digest (the golden tests pin them):

* ``UrlTarget.query``: the query-key rule of the URL (``model.urls``); absent: the first rule.
* ``Environment.login`` (wire key ``session``, the word it had before logins were named): the name
  of a vault login the skill signs in with (instead of a storage-state file bound by its digest,
  ``storageStateDigest``, which still works).
* ``Environment.environments``: named environments (another origin of the same app, with its
  allowlist and login) a reviewer approves; ``model.portable`` rebases a skill onto one.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from pydantic import (
    Field,
    SerializerFunctionWrapHandler,
    StringConstraints,
    model_serializer,
    model_validator,
)

from .base import Digest, DigestedDocument, Document, Label
from .canonical import tagged_digest
from .limits import (
    MAX_ALLOWED_ORIGINS,
    MAX_ENVIRONMENTS,
    MAX_QUERY_KEYS,
    MAX_URL_CHARS,
    VIEWPORT_MAX,
    VIEWPORT_MIN,
)
from .login import LoginName
from .urls import (
    SAFE_KEY,
    V1_RULE,
    QueryRule,
    URLRuleError,
    normalise_origin,
    normalise_target_url,
    origin_of,
    query_rule,
    stripped_keys,
)

EnvName = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9-]{0,31}$")]
ENV_NAME_RULE: Final = (
    "an environment name is 1-32 lower-case letters, digits and hyphens, starting with a letter"
)
QueryKey = Annotated[str, StringConstraints(pattern=r"^[a-z0-9_.\[\]-]{1,64}$")]
ShownKey = Annotated[str, StringConstraints(pattern=r"^(\?|[A-Za-z0-9_.\[\]-]{1,64})$")]

# The address an HTML fixture is served at. It is never fetched from a network: routing fulfils it.
FIXTURE_URL = "https://fixture.skillreel.invalid/"
FIXTURE_ORIGIN = "https://fixture.skillreel.invalid"


class Viewport(Document):
    width: Annotated[int, Field(ge=VIEWPORT_MIN[0], le=VIEWPORT_MAX[0])] = 1280
    height: Annotated[int, Field(ge=VIEWPORT_MIN[1], le=VIEWPORT_MAX[1])] = 800


class HtmlTarget(Document):
    """An HTML fixture bound by the digest of its bytes; no URL, origin or storage state."""

    kind: Literal["html"] = "html"
    html_digest: Digest


def _sorted_unique(values: tuple[str, ...]) -> bool:
    return values == tuple(sorted(set(values)))


def _omit_unset(data: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """A document's JSON without the later, optional ``keys`` it does not use (None or empty)."""
    for key in keys:
        if data.get(key) in (None, [], ()):
            data.pop(key, None)
    return data


class QueryKeys(Document):
    """The query-key choices of a URL target (the rule of ``model.urls``): the keys a reviewer
    keeps (``--keep-query``) or strips (``--strip-query``), lower-case, and the keys the recording
    stripped from the URL it was given (names only; ``?`` for a key that itself looks like a token)."""

    keep: tuple[QueryKey, ...] = Field(default=(), max_length=MAX_QUERY_KEYS)
    strip: tuple[QueryKey, ...] = Field(default=(), max_length=MAX_QUERY_KEYS)
    stripped: tuple[ShownKey, ...] = Field(default=(), max_length=MAX_QUERY_KEYS)

    @model_validator(mode="after")
    def _rules(self) -> QueryKeys:
        if not all(_sorted_unique(keys) for keys in (self.keep, self.strip, self.stripped)):
            raise ValueError("query keys must be unique and sorted")
        if set(self.keep) & set(self.strip):
            raise ValueError("a query key is either kept or stripped, not both")
        return self

    @property
    def rule(self) -> QueryRule:
        return query_rule(self.keep, self.strip)


class UrlTarget(Document):
    """A URL target: the normalised URL, its digest, the exact allowed origins (sorted) and the
    query-key rule it was normalised with (absent: the first rule, ``urls.V1_RULE``)."""

    kind: Literal["url"] = "url"
    url: Annotated[str, Field(min_length=1, max_length=MAX_URL_CHARS)]
    url_digest: Digest
    allowed_origins: tuple[str, ...] = Field(min_length=1, max_length=MAX_ALLOWED_ORIGINS)
    query: QueryKeys | None = None

    @model_serializer(mode="wrap")
    def _omit_later_fields(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _omit_unset(handler(self), ("query",))

    @model_validator(mode="after")
    def _rules(self) -> UrlTarget:
        try:
            if normalise_target_url(self.url, self.rule) != self.url:
                raise URLRuleError("the target URL is not in normal form")
            origins = tuple(normalise_origin(o) for o in self.allowed_origins)
        except URLRuleError as exc:
            raise ValueError(str(exc)) from None
        if origins != self.allowed_origins or not _sorted_unique(origins):
            raise ValueError("allowedOrigins must be normalised, unique and sorted")
        if origin_of(self.url) not in origins:
            raise ValueError("allowedOrigins must include the target's own origin")
        if self.url_digest != url_target_digest(self.url):
            raise ValueError("urlDigest does not match the URL")
        return self

    @property
    def origin(self) -> str:
        return origin_of(self.url)

    @property
    def rule(self) -> QueryRule:
        """The query-key rule this target's URLs are normalised with."""
        return V1_RULE if self.query is None else self.query.rule


def url_target_digest(url: str) -> str:
    return tagged_digest("skillreel.url-target/v1", {"url": url})


Target = Annotated[HtmlTarget | UrlTarget, Field(discriminator="kind")]


class NamedEnvironment(Document):
    """Another origin of the same application the skill may replay on (``replay --env NAME``):
    its origin, its exact allowlist (sorted, with the origin) and the vault login it signs in
    with (none unless named: the recorded sign-in is never carried to another origin)."""

    name: EnvName
    origin: str
    allowed_origins: tuple[str, ...] = Field(min_length=1, max_length=MAX_ALLOWED_ORIGINS)
    login: LoginName | None = Field(None, alias="session")  # the wire key keeps the old word

    @model_validator(mode="after")
    def _rules(self) -> NamedEnvironment:
        try:
            origins = tuple(normalise_origin(o) for o in (self.origin, *self.allowed_origins))
        except URLRuleError as exc:
            raise ValueError(str(exc)) from None
        if origins[0] != self.origin or origins[1:] != self.allowed_origins:
            raise ValueError("an environment's origins must be normalised")
        if not _sorted_unique(self.allowed_origins) or self.origin not in self.allowed_origins:
            raise ValueError("an environment's allowedOrigins must be unique, sorted and hold its origin")
        return self


class Environment(DigestedDocument):
    """What a replay must match exactly before a browser starts."""

    digest_tag = "skillreel.environment/v1"
    digest_field = "environment_digest"

    schema_: Literal["skillreel.environment/v1"] = Field("skillreel.environment/v1", alias="schema")
    target: Target
    identity: Label | None = None
    storage_state_digest: Digest | None = None
    viewport: Viewport = Field(default_factory=Viewport)
    login: LoginName | None = Field(None, alias="session")  # the wire key keeps the old word
    environments: tuple[NamedEnvironment, ...] = Field(default=(), max_length=MAX_ENVIRONMENTS)
    environment_digest: Digest

    @model_serializer(mode="wrap")
    def _omit_later_fields(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _omit_unset(handler(self), ("session", "environments"))

    @model_validator(mode="after")
    def _html_is_offline(self) -> Environment:
        if isinstance(self.target, HtmlTarget) and (
            self.identity or self.storage_state_digest or self.login or self.environments
        ):
            raise ValueError("an HTML fixture target takes no identity, sign-in or environments")
        if self.login is not None and self.storage_state_digest is not None:
            raise ValueError("a skill signs in with a vault login or a storage-state file, not both")
        names = [e.name for e in self.environments]
        if names != sorted(set(names)):
            raise ValueError("environment names must be unique and sorted")
        if isinstance(self.target, UrlTarget) and any(
            e.origin == self.target.origin for e in self.environments
        ):
            raise ValueError("an environment's origin differs from the recorded one")
        return self

    def environment(self, name: str) -> NamedEnvironment | None:
        """The declared environment called ``name``, or None."""
        return next((e for e in self.environments if e.name == name), None)

    @property
    def environment_names(self) -> tuple[str, ...]:
        return tuple(e.name for e in self.environments)

    @property
    def allowed_origins(self) -> tuple[str, ...]:
        if isinstance(self.target, UrlTarget):
            return self.target.allowed_origins
        return (FIXTURE_ORIGIN,)

    @property
    def start_url(self) -> str:
        return self.target.url if isinstance(self.target, UrlTarget) else FIXTURE_URL


def query_keys(keep: tuple[str, ...] | list[str] = (), strip: tuple[str, ...] | list[str] = ()) -> QueryKeys:
    """The reviewer's query-key choices as a document (lower-cased, sorted); raises
    :class:`URLRuleError` for a key that is no plain name or is both kept and stripped."""
    kept, dropped = sorted({k.lower() for k in keep}), sorted({k.lower() for k in strip})
    if any(not SAFE_KEY.fullmatch(k) for k in (*kept, *dropped)):
        raise URLRuleError("a query key is 1-64 letters, digits and _.[]-")
    if set(kept) & set(dropped):
        raise URLRuleError("a query key is either kept or stripped, not both")
    if max(len(kept), len(dropped)) > MAX_QUERY_KEYS:
        raise URLRuleError(f"at most {MAX_QUERY_KEYS} kept and {MAX_QUERY_KEYS} stripped query keys")
    return QueryKeys(keep=tuple(kept), strip=tuple(dropped))


def build_url_target(
    url: str, allowed_origins: list[str] | tuple[str, ...] = (), query: QueryKeys | None = None
) -> UrlTarget:
    """Normalise a URL target and its allowlist (the target's origin is always included), with
    the query-key rule of ``query`` (default: no choices), recording the keys it stripped.

    Raises :class:`URLRuleError` naming the rule that failed.
    """
    keys = query if query is not None else QueryKeys()
    rule = keys.rule
    normal = normalise_target_url(url, rule)
    keys = QueryKeys(keep=keys.keep, strip=keys.strip, stripped=stripped_keys(url, rule))
    origins = {origin_of(normal), *(normalise_origin(o) for o in allowed_origins)}
    if len(origins) > MAX_ALLOWED_ORIGINS:
        raise URLRuleError(f"at most {MAX_ALLOWED_ORIGINS} allowed origins")
    return UrlTarget(
        url=normal, url_digest=url_target_digest(normal), allowed_origins=tuple(sorted(origins)), query=keys
    )


def replay_url(target: UrlTarget, url: str | None) -> str:
    """The URL a replay asks for (``--url``), normalised with the target's own rule; the recorded
    URL when none is given. Raises :class:`URLRuleError`."""
    return target.url if url is None else normalise_target_url(url, target.rule)
