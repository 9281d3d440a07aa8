"""Marks and input-chosen targets in real Chromium (the recorder alone, trusted input): a mark
swallows its click and the page never sees it; the page cannot forge one; a click on the row that
shows a typed value becomes a target chosen by that input, without any page text."""

from __future__ import annotations

import asyncio
import json

import pytest

from skillreel.model.actions import ClickAction, HumanAction
from skillreel.model.locators import content_hashes
from skillreel.model.refs import ParameterRef
from skillreel.record.project import plan
from tests.integration.record.rig import Rig, click_centre, page_html, type_into

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

ROWS = "".join(
    f"<tr><td><a href='#o{1000 + i}' class=open>Order {1000 + i}</a></td>"
    f"<td class=amount>${1200 + i}.00</td></tr>"
    for i in range(20)
)
TABLE = page_html(f"""
<input id=q name=q>
<table id=results><tbody>{ROWS}
<tr><td><a href='#x' class=open>Order 10031</a></td><td class=amount>$1.00</td></tr>
</tbody></table>
<p id=total>Total: $1,234.50</p>
<script>
window.seen = [];
for (const type of ["pointerdown", "mousedown", "mouseup", "click"]) {{
  document.addEventListener(type, (e) => window.seen.push(type), true);
  window.addEventListener(type, (e) => window.seen.push("w:" + type), true);
}}
</script>
""")


async def test_a_click_on_the_row_showing_the_typed_value_is_chosen_by_that_input(rig: Rig) -> None:
    async with rig.recording(TABLE) as run:
        await type_into(run.page, "#q", "1003")
        await click_centre(run.page, "#results tr:nth-child(4) a")  # Order 1003 (not 10031)
        capture = await run.capture()
    events = capture.events.events
    click = events[-1]
    assert click.type == "click"
    assert click.chosen_by == events[-2].seq
    assert click.target is not None
    assert content_hashes(click.target.fingerprint) == ()
    assert click.target.candidates[0].match_count == 21
    actions = plan(events).actions
    chosen = actions[-1]
    assert isinstance(chosen, ClickAction)
    assert chosen.target.filter is not None
    assert chosen.target.filter.contains_token == ParameterRef(name="q")
    assert "1003" not in json.dumps(capture.events.to_json())


async def test_a_typed_value_two_rows_show_chooses_nothing(rig: Rig) -> None:
    html = page_html(
        "<input id=q><ul><li><a href='#a'>Pay 77 now</a></li><li><a href='#b'>Order 77</a></li></ul>"
    )
    async with rig.recording(html) as run:
        await type_into(run.page, "#q", "77")
        await click_centre(run.page, "li:nth-child(2) a")
        events = (await run.capture()).events.events
    assert events[-1].chosen_by is None


async def test_a_password_never_chooses_a_target(rig: Rig) -> None:
    html = page_html(
        "<input id=p type=password><ul><li><a href='#a'>Hunter77Pw</a></li><li><a href='#b'>x</a></li></ul>"
    )
    async with rig.recording(html) as run:
        await type_into(run.page, "#p", "Hunter77Pw")
        await click_centre(run.page, "li:nth-child(1) a")
        events = (await run.capture()).events.events
    assert all(e.chosen_by is None for e in events)
    assert isinstance(plan(events).actions[-1], HumanAction | ClickAction)


async def test_a_mark_swallows_its_click(rig: Rig) -> None:
    async with rig.recording(TABLE) as run:
        marked = await run.recorder.arm_mark(all_items=False)
        await click_centre(run.page, "#total")
        result = await asyncio.wait_for(marked, 30)
        assert await run.page.evaluate("window.seen") == []
        assert result.target is not None
        assert result.items is None
        assert content_hashes(result.target.fingerprint) == ()
        assert result.target.fingerprint.label_hash is None
        await click_centre(run.page, "#total")  # not armed any more: the page sees this one
        assert "click" in await run.page.evaluate("window.seen")
        assert [e.type for e in await run.events()] == ["click"]


async def test_all_items_like_this_one_marks_the_column(rig: Rig) -> None:
    async with rig.recording(TABLE) as run:
        marked = await run.recorder.arm_mark(all_items=True)
        await click_centre(run.page, "#results tr:nth-child(2) td.amount")
        result = await asyncio.wait_for(marked, 30)
        assert result.items is not None
        (count,) = {c.match_count for c in result.items.candidates}
        assert count == 21
        found = await run.page.evaluate(
            "(s) => Array.from(document.querySelectorAll(s)).every((e) => e.matches('td.amount'))",
            result.items.candidates[0].selector,
        )
        assert found


async def test_the_page_cannot_forge_a_mark(rig: Rig) -> None:
    async with rig.recording(TABLE) as run:
        # Not armed: a trusted click is an ordinary click, never a mark.
        await click_centre(run.page, "#total")
        # Armed: an untrusted click the page dispatches completes nothing and is not swallowed.
        marked = await run.recorder.arm_mark(all_items=False)
        await run.page.evaluate("document.querySelector('#total').click()")
        await run.recorder.settle()
        assert not marked.done()
        assert await run.page.evaluate("typeof SkillreelRecorder") == "undefined"  # out of the page's reach
        run.recorder.disarm_mark()
        assert marked.cancelled()
        events = await run.events()
    assert all(e.type != "extract" for e in events)
