"""Helpers for replay tests: real bundles described by fingerprint.js on the recorded page version,
drafts built through the model API, and skills stored and approved through the store."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from skillreel.locate import locate_script
from skillreel.model.actions import Action, capability_manifest, parameter_refs
from skillreel.model.draft import Draft, Parameter
from skillreel.model.entry import StoreEntry
from skillreel.model.environment import Environment, HtmlTarget
from skillreel.model.lifecycle import approve, new_entry
from skillreel.model.locators import LocatorBundle
from skillreel.sandbox.browser import browser_session
from skillreel.sandbox.files import fixture_digest as html_fixture_digest
from skillreel.store import AuditNote, Store, utc_now
from tests.factory import SALT, events_log, url_environment
from tests.server import LocalServer

# Evaluated in the recorded page: describe each selector's element with the shared fingerprint.js.
DESCRIBE = """([src, selectors, salt]) => {
  const L = (0, eval)(src + "\\n;SkillreelLocate");
  const out = {};
  for (const [key, selector] of Object.entries(selectors)) {
    const found = document.querySelectorAll(selector);
    if (found.length !== 1) throw new Error("not exactly one element for " + key);
    out[key] = L.describe(found[0], salt);
  }
  return out;
}"""


async def describe_on(
    environment: Environment, selectors: Mapping[str, str], *, html: str | None = None
) -> dict[str, LocatorBundle]:
    """Locator bundles for ``selectors`` as the recorder would describe them on that page."""
    async with browser_session(environment, html=html) as session:
        await session.goto_start()
        data = await session.page.evaluate(DESCRIBE, [locate_script(), dict(selectors), SALT])
    return {key: LocatorBundle.parse(value) for key, value in data.items()}


async def describe_url(
    server: LocalServer, path: str, html: str, selectors: Mapping[str, str]
) -> dict[str, LocatorBundle]:
    server.set_page(path, html)
    return await describe_on(url_environment(server.url(path)), selectors)


def html_environment(html: str) -> Environment:
    return Environment.build(target=HtmlTarget(html_digest=html_fixture_digest(html)))


def build_draft(
    name: str,
    environment: Environment,
    actions: Sequence[Action],
    *,
    sensitive: Sequence[str] = (),
    optional: Sequence[str] = (),
) -> Draft:
    params = tuple(
        Parameter(name=p, required=p not in optional, sensitive=p in sensitive)
        for p in parameter_refs(actions)
    )
    return Draft.build(
        name=name,
        description="A skill under test.",
        actions=tuple(actions),
        parameters=params,
        capabilities=capability_manifest(actions),
        failure_conditions=(),
        environment=environment,
        fingerprint_salt=SALT,
        events_digest=events_log().events_digest,
    )


def store_approved(store: Store, draft: Draft) -> StoreEntry:
    now = utc_now()
    store.insert(new_entry(draft, events_log(), now), AuditNote(kind="record"))
    return store.update(
        draft.name, lambda e: approve(e, "tester", now), AuditNote(kind="review", reviewer="tester")
    )


@pytest.fixture
def store(skillreel_home: Path) -> Iterator[Store]:
    with Store.open() as opened:
        yield opened


def audit_json(store: Store) -> list[dict[str, Any]]:
    return [e.to_json() for e in store.audit_events()]
