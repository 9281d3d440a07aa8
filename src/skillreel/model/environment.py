"""Environment requirements: the exact target, allowlist, identity and storage-state a skill is
bound to, with their own digest (ARCHITECTURE section 7)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from .base import Digest, DigestedDocument, Document, Label
from .canonical import tagged_digest
from .limits import MAX_ALLOWED_ORIGINS, MAX_URL_CHARS, VIEWPORT_MAX, VIEWPORT_MIN
from .urls import URLRuleError, normalise_origin, normalise_target_url, origin_of

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


class UrlTarget(Document):
    """A URL target: the normalised URL, its digest and the exact allowed origins (sorted)."""

    kind: Literal["url"] = "url"
    url: Annotated[str, Field(min_length=1, max_length=MAX_URL_CHARS)]
    url_digest: Digest
    allowed_origins: tuple[str, ...] = Field(min_length=1, max_length=MAX_ALLOWED_ORIGINS)

    @model_validator(mode="after")
    def _rules(self) -> UrlTarget:
        try:
            if normalise_target_url(self.url) != self.url:
                raise URLRuleError("the target URL is not in normal form")
            origins = tuple(normalise_origin(o) for o in self.allowed_origins)
        except URLRuleError as exc:
            raise ValueError(str(exc)) from None
        if origins != self.allowed_origins or origins != tuple(sorted(set(origins))):
            raise ValueError("allowedOrigins must be normalised, unique and sorted")
        if origin_of(self.url) not in origins:
            raise ValueError("allowedOrigins must include the target's own origin")
        if self.url_digest != url_target_digest(self.url):
            raise ValueError("urlDigest does not match the URL")
        return self


def url_target_digest(url: str) -> str:
    return tagged_digest("skillreel.url-target/v1", {"url": url})


Target = Annotated[HtmlTarget | UrlTarget, Field(discriminator="kind")]


class Environment(DigestedDocument):
    """What a replay must match exactly before a browser starts."""

    digest_tag = "skillreel.environment/v1"
    digest_field = "environment_digest"

    schema_: Literal["skillreel.environment/v1"] = Field("skillreel.environment/v1", alias="schema")
    target: Target
    identity: Label | None = None
    storage_state_digest: Digest | None = None
    viewport: Viewport = Field(default_factory=Viewport)
    environment_digest: Digest

    @model_validator(mode="after")
    def _html_is_offline(self) -> Environment:
        if isinstance(self.target, HtmlTarget) and (self.identity or self.storage_state_digest):
            raise ValueError("an HTML fixture target takes no identity or storage state")
        return self

    @property
    def allowed_origins(self) -> tuple[str, ...]:
        if isinstance(self.target, UrlTarget):
            return self.target.allowed_origins
        return (FIXTURE_ORIGIN,)

    @property
    def start_url(self) -> str:
        return self.target.url if isinstance(self.target, UrlTarget) else FIXTURE_URL


def build_url_target(url: str, allowed_origins: list[str] | tuple[str, ...] = ()) -> UrlTarget:
    """Normalise a URL target and its allowlist (the target's origin is always included).

    Raises :class:`URLRuleError` naming the rule that failed.
    """
    normal = normalise_target_url(url)
    origins = {origin_of(normal), *(normalise_origin(o) for o in allowed_origins)}
    if len(origins) > MAX_ALLOWED_ORIGINS:
        raise URLRuleError(f"at most {MAX_ALLOWED_ORIGINS} allowed origins")
    return UrlTarget(url=normal, url_digest=url_target_digest(normal), allowed_origins=tuple(sorted(origins)))
