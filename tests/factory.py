"""Builds model documents through the model's own API (never hand-written JSON with made-up digests)."""

from __future__ import annotations

from typing import Any

from skillreel.model.actions import (
    ClickAction,
    NavigateAction,
    ParameterRef,
    PressAction,
    TypeAction,
    capability_manifest,
)
from skillreel.model.canonical import bytes_digest
from skillreel.model.draft import Draft, Parameter
from skillreel.model.environment import Environment, HtmlTarget, build_url_target
from skillreel.model.events import EventsLog, RecordedEvent
from skillreel.model.lifecycle import new_entry
from skillreel.model.locators import Fingerprint, LocatorBundle, LocatorCandidate

SALT = "0123456789abcdef0123456789abcdef"
T0 = "2026-01-02T03:04:05Z"


def bundle(
    selector: str, *, tag: str = "input", type_: str | None = "text", strategy: str = "id"
) -> LocatorBundle:
    return LocatorBundle(
        candidates=(LocatorCandidate(strategy=strategy, selector=selector, match_count=1),),  # type: ignore[arg-type]
        fingerprint=Fingerprint(tag=tag, type=type_, parent_path=("html", "body", "form")),
    )


def html_environment(html: str = "<html><body>fixture</body></html>") -> Environment:
    return Environment.build(
        target=HtmlTarget(html_digest=bytes_digest("skillreel.html-fixture/v1", html.encode()))
    )


def url_environment(url: str = "http://127.0.0.1:8000/app", origins: tuple[str, ...] = ()) -> Environment:
    return Environment.build(target=build_url_target(url, origins))


def events_log(n: int = 1) -> EventsLog:
    events = tuple(RecordedEvent(seq=i, type="click") for i in range(n))
    return EventsLog.build(salt=SALT, events=events)


def draft(
    name: str = "search-invoices",
    *,
    environment: Environment | None = None,
    sensitive: bool = False,
    description: str = "Search invoices by customer.",
    events: EventsLog | None = None,
    **overrides: Any,
) -> Draft:
    actions = (
        NavigateAction(id="a1", url="https://fixture.skillreel.invalid/"),
        TypeAction(id="a2", target=bundle("#q"), value=ParameterRef(name="query")),
        PressAction(id="a3", key="Enter", target=bundle("#q")),
        ClickAction(id="a4", target=bundle("#go", tag="button", type_="submit")),
    )
    fields: dict[str, Any] = dict(
        name=name,
        description=description,
        actions=actions,
        parameters=(Parameter(name="query", required=True, sensitive=sensitive),),
        capabilities=capability_manifest(actions),
        failure_conditions=("No invoice matches the query.",),
        environment=environment or html_environment(),
        fingerprint_salt=SALT,
        events_digest=(events or events_log()).events_digest,
    )
    fields.update(overrides)
    return Draft.build(**fields)


def entry(name: str = "search-invoices", now: str = T0, **kw: Any):  # type: ignore[no-untyped-def]
    log = events_log()
    return new_entry(draft(name, events=log, **kw), log, now)


FIRST_VERSION_STRATEGIES = frozenset({"testid", "id", "name", "aria-label", "label", "placeholder", "css"})


def first_version(bundle: LocatorBundle) -> LocatorBundle:
    """The bundle as the first version's recorder described the same element: no identity-model
    fingerprint fields (accessible name, button value, link, row, stable id, scopes) and no
    role-name or href candidates."""
    fingerprint = bundle.fingerprint.model_copy(
        update=dict.fromkeys(
            ("name_hash", "value_hash", "link_hash", "row_hash", "stable_id", "stable_name", "boundaries")
        )
    )
    kept = tuple(c for c in bundle.candidates if c.strategy in FIRST_VERSION_STRATEGIES)
    return LocatorBundle(candidates=kept, fingerprint=fingerprint)
