"""The local review page in real Chromium: ``skillreel ui`` started as a subprocess on 127.0.0.1 at a
random ``r-<random>.localhost`` name, pages rendered, a heal proposal approved with the reviewer id and
the revision the page showed; a cross-origin form post (from a page on another local port), a post
without the token, a request without the session and a foreign Host header (127.0.0.1 and localhost
included) are refused, and the page's cookie never reaches another port; hostile selector text is
shown, never run, a bidi override in it escaped; an approval covers exactly the environments checked,
each shown with its origin and allowlist (issue 30: F2, F4, F5, F9)."""

from __future__ import annotations

import http.client
import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.async_api import Browser, Page, async_playwright

from skillreel.model import lifecycle
from skillreel.model.actions import ClickAction, ExtractAction, NavigateAction, TypeAction
from skillreel.model.refs import ParameterRef
from skillreel.sandbox.chromium import find_chromium
from skillreel.services.reviewing import review_skill
from skillreel.store import AuditNote, Store
from tests.support.factory import (
    T1,
    build_draft,
    bundle,
    draft,
    events_log,
    html_environment,
    proposal_for,
    record_run,
    seed,
)
from tests.support.review_page import (
    COLLECTOR,
    HIDDEN_ID,
    NEW_HELP,
    OLD_HELP,
    PREVIEW,
    STAGING,
    review_server,
    seed_environment_review,
)
from tests.support.server import LocalServer

pytestmark = pytest.mark.browser

NAME = "search-invoices"
HOSTILE_ID = "#go<script>window.pwned=1</script>"
HOSTILE_CLASS = 'button.x<script>window.pwned=2</script>"><img src=x>'


@dataclass(frozen=True)
class ReviewPage:
    url: str  # with the page token, as printed
    origin: str
    port: int
    token: str
    host: str  # r-<random>.localhost:PORT


def _seed_with_proposal() -> None:
    with Store.open() as store:
        seed(store)
        review_skill(store, NAME, "alice", approve=True, expected_revision=store.get(NAME).revision)
        record_run(store, NAME)
        record_run(
            store,
            NAME,
            healed=True,
            proposal=proposal_for(store.get(NAME), T1, selector=HOSTILE_ID, merged=True),
        )
        record_run(store, NAME, "failed")
        hostile = ClickAction(
            id="a1", target=bundle(HOSTILE_CLASS, tag="button", type_="submit", strategy="css")
        )
        start = NavigateAction(id="a0", url="https://fixture.skillreel.invalid/")
        draft = build_draft("hostile-page", html_environment(), (start, hostile))
        store.insert(lifecycle.new_entry(draft, events_log(), T1), AuditNote(kind="record"))
        reads = (
            start,
            TypeAction(id="a1", target=bundle("#pw"), value=ParameterRef(name="password")),
            ExtractAction(id="a2", output="total", target=bundle("#out", tag="div", strategy="css")),
        )
        exposed = build_draft("read-after-secret", html_environment(), reads, sensitive=("password",))
        store.insert(lifecycle.new_entry(exposed, events_log(), T1), AuditNote(kind="record"))
        seed_environment_review(store)


@pytest.fixture
def review_page(skillreel_home: Path) -> Iterator[ReviewPage]:
    _seed_with_proposal()
    with review_server("carol") as url:
        parts = urlsplit(url)
        assert re.fullmatch(r"r-[0-9a-f]{16}\.localhost", parts.hostname or "")
        yield ReviewPage(
            url,
            f"{parts.scheme}://{parts.netloc}",
            parts.port or 0,
            parts.query.split("=", 1)[1],
            parts.netloc,
        )


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as pw:
        launched = await pw.chromium.launch(executable_path=str(find_chromium()))
        try:
            yield launched
        finally:
            await launched.close()


async def _open(browser: Browser, review: ReviewPage) -> Page:
    page = await (await browser.new_context()).new_page()
    response = await page.goto(review.url)
    assert response is not None
    assert response.ok
    assert "?token" not in page.url  # the token became a cookie and left the address bar
    return page


async def test_pages_render_and_approve_works(browser: Browser, review_page: ReviewPage) -> None:
    page = await _open(browser, review_page)
    assert await page.locator("table.skills tbody tr").count() == 4
    assert "1.0.0" in await page.locator("table.skills").inner_text()
    await page.click(f"text={NAME}")
    text = await page.locator("main").inner_text()
    assert "type the input `query` into the field `#q`" in text
    assert "heal proposal is waiting" in text
    assert await page.locator("svg.chart circle.mark").count() == 3  # two replays and a failed one
    assert await page.locator("svg.chart circle.failed").count() == 1
    await page.goto(f"{review_page.origin}/skills/{NAME}/runs")
    assert "SR_REPLAY_UI_TARGET_NOT_FOUND" in await page.locator("table").inner_text()
    await page.goto(f"{review_page.origin}/skills/{NAME}/diff")
    diff = await page.locator("main").inner_text()
    assert "approving it makes 1.0.1 (patch)" in diff
    assert HOSTILE_ID in diff  # shown as text
    assert "parentPath changed" in diff  # a merged heal: what moved, and the recorded identity kept
    assert "keeps 1 earlier fingerprint(s) as accepted identities (was 0)" in diff
    assert await page.evaluate("() => window.pwned") is None
    assert await page.evaluate("() => document.querySelectorAll('script').length") == 0
    approve = page.locator("form[action$='/approve']")
    assert await approve.locator("input[name=reviewer]").input_value() == "carol"
    await approve.locator("input[name=recorded]").check()  # an HTML fixture: no declared environment
    await approve.locator("button").click()
    await page.wait_for_selector("h1.done")
    assert "version 1.0.1 (patch)" in await page.locator("main").inner_text()
    with Store.open() as store:
        entry = store.get(NAME)
    assert (entry.version, entry.status) == ("1.0.1", "approved")
    assert entry.versions[-1].reviewer == "carol"
    assert entry.versions[-1].source == "heal"


async def test_a_stale_page_is_refused_like_the_cli(browser: Browser, review_page: ReviewPage) -> None:
    page = await _open(browser, review_page)
    await page.goto(f"{review_page.origin}/skills/{NAME}/diff")
    with Store.open() as store:  # the skill changes after the page was shown
        review_skill(
            store, NAME, "alice", approve=True, expected_revision=store.get(NAME).revision, heal_proposal=True
        )
    await page.locator("form[action$='/approve'] button").click()
    await page.wait_for_selector("h1.error")
    assert await page.locator("h1").inner_text() == "SR_RECORD_REVISION_CONFLICT"
    with Store.open() as store:
        assert store.get(NAME).versions[-1].reviewer == "alice"


@pytest.mark.parametrize("button", ["approve", "reject"])
async def test_a_page_never_decides_on_a_heal_proposal_it_did_not_show(
    browser: Browser, review_page: ReviewPage, button: str
) -> None:
    """A proposal never changes the revision: a newer one left by a replay after the page was shown
    must not be approved (or rejected) by that page's form, which names the draft it showed."""
    page = await _open(browser, review_page)
    await page.goto(f"{review_page.origin}/skills/{NAME}/diff")
    if button == "approve":
        await page.locator("form[action$='/approve'] input[name=recorded]").check()
    with Store.open() as store:  # a later replay heals the step again, another way
        revision = store.get(NAME).revision
        newer = proposal_for(store.get(NAME), T1, selector="#newer")
        record_run(store, NAME, healed=True, proposal=newer)
        assert store.get(NAME).revision == revision
        assert store.heal_proposals(NAME)[0].draft.draft_digest == newer.draft.draft_digest
    await page.locator(f"form[action$='/{button}'] button").click()
    await page.wait_for_selector("h1.error")
    assert await page.locator("h1").inner_text() == "SR_RECORD_REVISION_CONFLICT"
    with Store.open() as store:
        entry = store.get(NAME)
        assert (entry.revision, entry.version) == (revision, "1.0.0")
        assert len(store.heal_proposals(NAME)) == 2  # neither decided on


async def test_rejecting_a_draft_records_the_reviewer_and_is_not_offered_again(
    browser: Browser, review_page: ReviewPage
) -> None:
    """Rejecting a draft (back to the approved revision's draft) takes a valid reviewer id, names it
    in the ``rollback`` event, and the page then offers no second rejection that could only fail."""
    with Store.open() as store:  # recorded again: a draft waits for review beside the approved one
        redraft = draft(description="Recorded again.")
        store.update(
            NAME, lambda e: lifecycle.replace_draft(e, redraft, e.events, T1), AuditNote(kind="record")
        )
    page = await _open(browser, review_page)
    await page.goto(f"{review_page.origin}/skills/{NAME}/diff")
    reject = page.locator("form[action$='/reject']")
    await reject.locator("input[name=reviewer]").fill("NOT A VALID ID <x>")
    await reject.locator("button").click()
    await page.wait_for_selector("h1.error")
    assert await page.locator("h1").inner_text() == "SR_RECORD_REVIEWER_INVALID"
    await page.goto(f"{review_page.origin}/skills/{NAME}/diff")
    await page.locator("form[action$='/reject'] button").click()  # the page's reviewer, carol
    await page.wait_for_selector("h1.done")
    with Store.open() as store:
        event = store.audit_events(NAME)[-1]
        assert (event.kind, event.reviewer) == ("rollback", "carol")
        assert store.get(NAME).status == "draft"
    await page.goto(f"{review_page.origin}/skills/{NAME}/diff")
    assert await page.locator("form[action$='/approve']").count() == 1
    assert await page.locator("form[action$='/reject']").count() == 0


async def test_hostile_selectors_are_escaped(browser: Browser, review_page: ReviewPage) -> None:
    page = await _open(browser, review_page)
    await page.goto(f"{review_page.origin}/skills/hostile-page")
    text = await page.locator("main").inner_text()
    assert HOSTILE_CLASS in text
    assert await page.evaluate("() => window.pwned") is None
    assert await page.locator("main img").count() == 0
    assert await page.evaluate("() => document.querySelectorAll('script').length") == 0


async def test_a_cross_origin_post_is_refused(browser: Browser, review_page: ReviewPage) -> None:
    page = await _open(browser, review_page)  # the victim has a session cookie
    with LocalServer() as other:  # another local origin: same site (127.0.0.1), another port
        other.set_page(
            "/attack",
            f"""<html><body><form method="post" action="{review_page.origin}/skills/{NAME}/approve">
            <input name="token" value="{review_page.token}"><input name="what" value="proposal">
            <input name="reviewer" value="mallory"><input name="expected_revision" value="5">
            <button id="go">go</button></form></body></html>""",
        )
        await page.goto(f"{other.origin}/attack")
        async with page.expect_response(lambda r: r.url.endswith("/approve")) as info:
            await page.click("#go")
        response = await info.value
    assert response.status == 403  # another site: the page's cookie is not even sent
    assert "refused" in await page.locator("main").inner_text()
    with Store.open() as store:
        entry = store.get(NAME)
        assert store.heal_proposals(NAME)
    assert entry.version == "1.0.0"


async def test_requests_without_the_token_or_session_are_refused(
    browser: Browser, review_page: ReviewPage
) -> None:
    page = await _open(browser, review_page)
    await page.goto(f"{review_page.origin}/skills/{NAME}/diff")
    await page.evaluate(
        "() => document.querySelector(\"form[action$='/approve'] input[name=token]\").remove()"
    )
    async with page.expect_response(lambda r: r.url.endswith("/approve")) as info:
        await page.locator("form[action$='/approve'] button").click()
    assert (await info.value).status == 403
    fresh = await (await browser.new_context()).new_page()  # no page cookie
    response = await fresh.goto(f"{review_page.origin}/skills/{NAME}")
    assert response is not None
    assert response.status == 403
    response = await fresh.goto(f"{review_page.origin}/?token=wrong")
    assert response is not None
    assert response.status == 403
    with Store.open() as store:
        assert store.heal_proposals(NAME)


def test_a_foreign_host_header_is_refused(review_page: ReviewPage) -> None:
    other = f"r-0123456789abcdef.localhost:{review_page.port}"
    hosts = (
        f"attacker.example:{review_page.port}",
        f"localhost:{review_page.port}",
        f"127.0.0.1:{review_page.port}",  # the address it listens on is not its name
        "127.0.0.1",
        other,
        review_page.host.split(":")[0],  # its name without the port
    )
    for host in hosts:
        conn = http.client.HTTPConnection("127.0.0.1", review_page.port, timeout=30)
        try:
            conn.request("GET", f"/?token={review_page.token}", headers={"Host": host})
            response = conn.getresponse()
            assert response.status == 421, host
            assert b"token" not in response.read()
        finally:
            conn.close()
    conn = http.client.HTTPConnection("127.0.0.1", review_page.port, timeout=30)
    try:  # its own name is answered (the token becomes a cookie)
        conn.request("GET", f"/?token={review_page.token}", headers={"Host": review_page.host})
        response = conn.getresponse()
        response.read()
        assert response.status == 303
    finally:
        conn.close()


def _post(review: ReviewPage, path: str, body: str, headers: dict[str, str]) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", review.port, timeout=30)
    try:
        conn.request("POST", path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, response.read().decode()
    finally:
        conn.close()


def test_the_cookie_alone_approves_nothing(review_page: ReviewPage) -> None:
    """F5: a program that holds the page's cookie (and forges every other header) still needs the
    token in the form or the header of every POST."""
    with Store.open() as store:
        entry = store.get(NAME)
        digest = store.heal_proposals(NAME)[0].draft.draft_digest
    form = (
        f"what=proposal&reviewer=mallory&expected_revision={entry.revision}&expected_digest={digest}"
        "&recorded=yes"
    )
    headers = {
        "Host": review_page.host,
        "Cookie": f"skillreel_ui_{review_page.port}={review_page.token}",
        "Origin": review_page.origin,
        "Sec-Fetch-Site": "same-origin",
        "Content-Type": "application/x-www-form-urlencoded",
    }
    status, body = _post(review_page, f"/skills/{NAME}/approve", form, headers)
    assert (status, "no valid page token" in body) == (403, True)
    status, _ = _post(
        review_page, f"/skills/{NAME}/approve", form, {**headers, "Host": f"127.0.0.1:{review_page.port}"}
    )
    assert status == 421
    with Store.open() as store:
        assert store.get(NAME).version == "1.0.0"
    # with the token in its header the same post is the page's own (the guard lets it through)
    status, _ = _post(
        review_page, f"/skills/{NAME}/approve", form, {**headers, "X-Skillreel-Token": review_page.token}
    )
    assert status == 200
    with Store.open() as store:
        assert store.get(NAME).versions[-1].reviewer == "mallory"


async def test_the_cookie_never_reaches_another_port(browser: Browser, review_page: ReviewPage) -> None:
    """F5: the browser sent the page's cookie to every port of 127.0.0.1; now it belongs to the page's
    random name only."""
    page = await _open(browser, review_page)
    with LocalServer() as other:
        other.set_page("/", "<html><body>another local program</body></html>")
        await page.goto(other.url("/"))
        await page.goto(f"http://localhost:{other.port}/")
        assert len(other.cookies) >= 2  # the pages (and perhaps a favicon) were asked for
        assert not any(review_page.token in cookie for cookie in other.cookies)


async def test_the_page_shows_every_environment_and_text_change_and_approves_the_checked_ones(
    browser: Browser, review_page: ReviewPage
) -> None:
    """F2 and F4: the diff shows where the declared environment now points and the reworded texts,
    old and new; Approve covers exactly the environments checked, none checked approves nothing."""
    page = await _open(browser, review_page)
    await page.goto(f"{review_page.origin}/skills/find-orders/diff")
    main = await page.locator("main").inner_text()
    for shown in (
        "environment staging changed",
        STAGING,
        COLLECTOR,
        "allowed origin added: " + COLLECTOR,
        "environment preview added",
        OLD_HELP,
        NEW_HELP,
        "post them to the collector",
        "inputs.query.description",
    ):
        assert shown in main, shown
    approve = page.locator("form[action$='/approve']")
    covers = await approve.locator("fieldset.covers").inner_text()
    for shown in (
        "the recorded environment",
        "https://shop.example",
        "environment preview",
        PREVIEW,
        COLLECTOR,
    ):
        assert shown in covers, shown
    assert await approve.locator("input[type=checkbox]:checked").count() == 0  # never all implicitly
    await approve.locator("button").click()
    await page.wait_for_selector("h1.error")
    assert await page.locator("h1").inner_text() == "SR_RECORD_REVIEW_UNCHECKED"
    with Store.open() as store:
        assert store.get("find-orders").status == "draft"
    await page.goto(f"{review_page.origin}/skills/find-orders/diff")
    await approve.locator("input[name=recorded]").check()
    await approve.locator("input[name=env][value=preview]").check()
    await approve.locator("button").click()
    await page.wait_for_selector("h1.done")
    with Store.open() as store:
        entry = store.get("find-orders")
    assert entry.status == "approved"
    assert entry.approval is not None
    assert entry.approval.approved_environments == ("preview",)  # staging (now the collector) is not


async def test_a_form_that_checks_an_environment_it_did_not_show_is_refused(
    browser: Browser, review_page: ReviewPage
) -> None:
    page = await _open(browser, review_page)
    await page.goto(f"{review_page.origin}/skills/find-orders/diff")
    approve = page.locator("form[action$='/approve']")
    await approve.locator("input[name=recorded]").check()
    await page.evaluate(
        """() => {
            const box = document.querySelector("form[action$='/approve'] input[name=env][value=preview]");
            box.value = "ghost"; box.checked = true;
        }"""
    )
    await approve.locator("button").click()
    await page.wait_for_selector("h1.error")
    assert await page.locator("h1").inner_text() == "SR_RECORD_INPUT_MALFORMED"
    with Store.open() as store:
        assert store.get("find-orders").status == "draft"


async def test_a_bidi_override_in_a_page_id_is_escaped(browser: Browser, review_page: ReviewPage) -> None:
    """F9: the recorded page's id holds U+202E; the page shows it as ``\\u202e``, never raw."""
    page = await _open(browser, review_page)
    await page.goto(f"{review_page.origin}/skills/find-orders")
    text = await page.locator("main").inner_text()
    assert "\u202e" not in text
    assert HIDDEN_ID.replace("\u202e", "\\u202e") in text


async def test_a_read_after_a_sensitive_input_is_flagged_where_it_is_approved(
    browser: Browser, review_page: ReviewPage
) -> None:
    """Issue 30.1: a skill that extracts after typing a secret on the same page is flagged on its page
    and on the page that approves it (masking cannot be complete against a page that held the
    secret); a skill that reads nothing after a secret is not."""
    page = await _open(browser, review_page)
    for path in ("/skills/read-after-secret", "/skills/read-after-secret/diff"):
        await page.goto(f"{review_page.origin}{path}")
        flag = page.locator("p.exposed")
        assert await flag.count() == 1, path
        text = await flag.inner_text()
        assert "a2" in text, text
        assert "masking cannot be complete" in text, text
    await page.goto(f"{review_page.origin}/skills/hostile-page/diff")
    assert await page.locator("p.exposed").count() == 0
