"""Locator bundles at record time: section 5's priority, uniqueness, generated ids skipped, and the
identity model's candidates (a role with a salted name hash, a salted link destination)."""

from __future__ import annotations

import pytest

from skillreel.model.locators import STRATEGY_PRIORITY, LocatorBundle
from tests.integration.record.rig import Rig, click_centre, page_html, type_into

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

PAGE = page_html("""
<main id=main>
  <button id=save data-testid=save-button name=save aria-label="Save draft">Keep</button>
  <button id=":r7:" name=dup>React id</button><button id=ember1234 name=dup>Ember id</button>
  <button id=b-3f9a2c41d7e8 aria-label="Archive">Archive</button>
  <div><button class=x>One</button><button class=x>Two</button></div>
  <label for=city-8c1d2e3f4a5b6c7d>City</label><input id=city-8c1d2e3f4a5b6c7d name=city-field>
  <input placeholder="Search the catalogue" class=search>
  <input data-test=qty name=qty><input name=qty>
</main>
""")


async def targets(rig: Rig, *steps: tuple[str, str]) -> list[LocatorBundle]:
    async with rig.recording(PAGE) as run:
        for action, selector in steps:
            if action == "click":
                await click_centre(run.page, selector)
            else:
                await type_into(run.page, selector, "abc")
        events = await run.events()
    return [e.target for e in events if e.target is not None]


def check_bundle(bundle: LocatorBundle) -> None:
    ranks = [STRATEGY_PRIORITY[c.strategy] for c in bundle.candidates]
    assert ranks == sorted(ranks)
    assert bundle.candidates[-1].strategy == "css"
    assert all(c.match_count == 1 for c in bundle.candidates[:-1])
    assert all("Keep" not in c.selector and "One" not in c.selector for c in bundle.candidates)


async def test_priority_testid_id_name_aria_label(rig: Rig) -> None:
    (save,) = await targets(rig, ("click", "#save"))
    check_bundle(save)
    assert [c.strategy for c in save.candidates] == ["testid", "id", "name", "aria-label", "role-name", "css"]
    assert save.candidates[0].selector == '[data-testid="save-button"]'
    assert save.fingerprint.tag == "button"
    assert save.fingerprint.text_hash is not None  # text is only ever a salted hash


async def test_generated_ids_and_duplicate_names_are_skipped(rig: Rig) -> None:
    react, ember, hashed, second = await targets(
        rig,
        ("click", "[id=':r7:']"),
        ("click", "#ember1234"),
        ("click", "[aria-label=Archive]"),
        ("click", "button.x >> nth=1"),
    )
    for bundle in (react, ember, hashed, second):
        check_bundle(bundle)
    assert [c.strategy for c in react.candidates] == ["role-name", "css"]
    assert [c.strategy for c in ember.candidates] == ["role-name", "css"]
    assert [c.strategy for c in hashed.candidates] == ["aria-label", "role-name", "css"]
    assert second.candidates[-1].selector.endswith("button:nth-of-type(2)")
    assert second.candidates[-1].match_count == 1


async def test_fields_by_label_placeholder_and_data_test(rig: Rig) -> None:
    city, search, qty = await targets(
        rig, ("type", "[name=city-field]"), ("type", ".search"), ("type", "[data-test=qty]")
    )
    for bundle in (city, search, qty):
        check_bundle(bundle)
    assert [c.strategy for c in city.candidates] == ["name", "role-name", "label", "css"]
    assert [c.strategy for c in search.candidates] == ["role-name", "placeholder", "css"]
    assert [c.strategy for c in qty.candidates] == ["testid", "css"]


async def test_role_name_and_link_candidates_need_a_unique_name_or_destination(rig: Rig) -> None:
    page = page_html("""<table>
      <tr><th>Groups</th><td><a href="/admin/auth/group/add/">Add</a></td></tr>
      <tr><th>Users</th><td><a href="/admin/auth/user/add/">Add</a></td></tr></table>
      <form onsubmit="return false"><input type="submit" value="Log in"><input type="submit" value="Search">
      </form><script>document.addEventListener("click", (e) => e.target.closest("a") && e.preventDefault());
      </script>""")
    async with rig.recording(page) as run:
        await click_centre(run.page, "a[href='/admin/auth/user/add/']")
        await click_centre(run.page, "input[value='Log in']")
        events = await run.events()
    link, submit = (e.target for e in events if e.target is not None)
    assert [c.strategy for c in link.candidates] == ["href", "css"]  # two "Add": no role-name
    assert link.candidates[0].selector.startswith("link=")
    assert "admin" not in link.candidates[0].selector
    assert link.fingerprint.row_hash is not None
    assert link.fingerprint.link_hash is not None
    assert [c.strategy for c in submit.candidates] == ["role-name", "css"]
    assert submit.candidates[0].selector.startswith("role=button name=")
    assert submit.fingerprint.value_hash == submit.fingerprint.name_hash is not None


async def test_no_role_name_candidate_on_a_page_with_more_than_a_thousand_of_its_tag(rig: Rig) -> None:
    """The recorder describes an element while the person waits: it does not compare the names of
    more than 1,000 elements of the tag (the fingerprint keeps the name for healing)."""
    many = page_html("<main>" + "<button class=b>Go</button>" * 1001 + "<button id=only>Only</button></main>")
    async with rig.recording(many) as run:
        await click_centre(run.page, "#only")
        (event,) = await run.events()
    assert event.target is not None
    assert [c.strategy for c in event.target.candidates] == ["id", "css"]
    assert event.target.fingerprint.name_hash is not None
