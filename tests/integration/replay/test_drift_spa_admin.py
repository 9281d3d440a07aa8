"""A single-page admin between two versions (issue 28, the Piccolo Admin failures of the real-app
corpus), reproduced on small pages in real Chromium:

* the sidebar's links to the tables are hash routes that gained a trailing slash (``#/ticket``
  became ``#/ticket/``): the same route, the link is found; a link to another route is not;
* the page title is an ``h1`` (what a final check reads) beside the top bar's ``h1`` holding the
  site's logo link, and a hidden ``h1`` of a modal: structure alone cannot tell the two visible
  ones apart, and a check reads the one its ranked locator designates, as an extraction does; a
  check on a title that says something else fails, never passes on the other ``h1``.

Pages at version A are described as the recorder describes them (``tests/support/describe.py``);
a check keeps what the recorder keeps of a marked element (``structural`` with its identity).
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from skillreel.model.actions import Action, AssertAction, ClickAction, NavigateAction
from skillreel.model.locators import structural
from skillreel.services.replaying import ReplayOutcome, ReplayRequest, replay_skill
from skillreel.store import Store
from tests.support.describe import describe_url
from tests.support.factory import graph_draft, store_approved, url_environment
from tests.support.server import LocalServer
from tests.support.warm import WarmSessions

pytestmark = pytest.mark.browser

# Clicks report which element was hit (data-which, in no fingerprint) to /clicked on the server.
REPORT = """<script>document.addEventListener("click", (event) => {
  const hit = event.target.closest("[data-which]");
  if (hit) fetch("/clicked?which=" + hit.dataset.which);
});</script>"""


def page(body: str) -> str:
    return f"<!doctype html><html><head><title>Admin</title></head><body>{body}{REPORT}</body></html>"


def clicks(server: LocalServer) -> list[str]:
    return [parse_qs(urlsplit(p).query)["which"][0] for _, p in server.requests if p.startswith("/clicked")]


ICON = '<svg aria-hidden="true" viewBox="0 0 10 10"><path d="M0 0h10v10z"></path></svg>'


def sidebar(routes: dict[str, str]) -> str:
    items = "".join(
        f'<li><a href="{href}" class="subtle" data-which="{which}">{ICON}{which}</a></li>'
        for which, href in routes.items()
    )
    return f'<div id="sidebar"><div class="table_list"><ul>{items}</ul></div></div>'


NAV_A = page(sidebar({"team": "#/team", "ticket": "#/ticket"}))
NAV_B = page(f'<main class="v3">{sidebar({"team": "#/team/", "ticket": "#/ticket/"})}</main>')
NAV_OTHER = page(f'<main class="v3">{sidebar({"team": "#/team/", "ticket": "#/ticket/add/"})}</main>')


def edit_page(title: str, *, modal: str = "") -> str:
    top = f'<div><div id="nav"><h1><a href="#/">{ICON}Admin desk</a></h1></div></div>'
    header = f'<div class="header"><h1>{title}</h1><p><a href="#" class="subtle">{ICON}</a></p></div>'
    hidden = f'<div class="modal" style="display: none"><div class="heading"><h1>{modal}</h1></div></div>'
    form = f'<form><input name="title">{hidden}<button data-which="save">Save</button></form>'
    return page(f'<div id="app"><div>{top}<div class="inner"><div>{header}{form}</div></div></div></div>')


TITLE_A = edit_page("Edit ticket")
TITLE_B = edit_page("Edit ticket", modal="Select a row from Team")
TITLE_OTHER = edit_page("Add ticket")


async def replayed(
    server: LocalServer,
    store: Store,
    sessions: WarmSessions,
    recorded: str,
    selector: str,
    changed: str,
) -> ReplayOutcome:
    (bundle,) = (await describe_url(server, "/desk", recorded, {"t": selector})).values()
    url = server.url("/desk")
    actions: list[Action] = [NavigateAction(id="a1", url=url)]
    if selector.startswith("[data-which"):
        actions.append(ClickAction(id="a2", target=bundle))
    else:
        target = structural(bundle, identity=True)  # what the recorder keeps of a checked element
        assert target is not None
        actions.append(AssertAction(id="a2", check="text_contains", target=target, expected="Edit ticket"))
    draft = graph_draft(actions, name="desk", environment=url_environment(url))
    store_approved(store, draft)
    server.set_page("/desk", changed)
    server.requests.clear()
    request = ReplayRequest(name="desk", inputs={}, heal=True, timeout_ms=3_000)
    return await replay_skill(store, request, session_factory=sessions)


async def test_a_hash_route_that_gained_a_trailing_slash_is_the_same_route(
    server: LocalServer, store: Store, sessions: WarmSessions
) -> None:
    outcome = await replayed(server, store, sessions, NAV_A, "[data-which=ticket]", NAV_B)
    assert outcome.status == "succeeded", outcome.error and outcome.error.to_json()
    assert clicks(server) == ["ticket"]


@pytest.mark.parametrize("changed", [TITLE_A, TITLE_B], ids=["same-page", "hidden-modal-title"])
async def test_a_check_reads_the_title_beside_the_top_bars_h1(
    changed: str, server: LocalServer, store: Store, sessions: WarmSessions
) -> None:
    outcome = await replayed(server, store, sessions, TITLE_A, ".header h1", changed)
    assert outcome.status == "succeeded", outcome.error and outcome.error.to_json()


@pytest.mark.parametrize(
    ("recorded", "selector", "changed", "code"),
    [
        (NAV_A, "[data-which=ticket]", NAV_OTHER, "SR_REPLAY_UI_TARGET_NOT_FOUND"),  # another route
        (TITLE_A, ".header h1", TITLE_OTHER, "SR_REPLAY_UI_ASSERTION_FAILED"),  # never the top bar's h1
    ],
    ids=["link-to-another-route", "title-says-something-else"],
)
async def test_another_link_or_title_fails_closed(
    recorded: str,
    selector: str,
    changed: str,
    code: str,
    server: LocalServer,
    store: Store,
    sessions: WarmSessions,
) -> None:
    outcome = await replayed(server, store, sessions, recorded, selector, changed)
    assert outcome.error is not None
    assert outcome.error.code == code, outcome.error.to_json()
    assert clicks(server) == []
