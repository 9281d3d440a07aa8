"""What the recorder keeps of an element marked for extraction (issue 28): no hash of its own text,
but its caption (the words that label it from outside) and its unique id's hash, so a redesign that
renames its id or wraps it still finds the Total and never reads the Subtotal."""

from __future__ import annotations

import asyncio

import pytest

from skillreel.model.locators import content_hashes, text_hash
from skillreel.record.recorder import Marked
from tests.integration.record.rig import Rig, click_centre, page_html
from tests.support.factory import SALT

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

TOTALS = page_html("""
<dl><dt>Subtotal</dt><dd id=subtotal>$10.00</dd><dt>Total:</dt><dd id=total>$12.00</dd></dl>
<p>Paid on <span class=when>Monday</span></p>
""")


async def marked(rig: Rig, selector: str) -> Marked:
    async with rig.recording(TOTALS) as run:
        mark = await run.recorder.arm_mark(all_items=False)
        await click_centre(run.page, selector)
        return await asyncio.wait_for(mark, 30)


async def test_a_marked_value_keeps_its_caption_and_unique_id_only(rig: Rig) -> None:
    result = await marked(rig, "#total")
    assert result.target is not None
    fp = result.target.fingerprint
    assert content_hashes(fp) == ()
    assert fp.label_hash is None
    assert fp.caption_hash == text_hash(SALT, "Total")
    assert fp.attributes == {"id": text_hash(SALT, "total")}
    assert fp.stable_id


async def test_a_value_without_a_unique_id_keeps_no_attribute(rig: Rig) -> None:
    result = await marked(rig, "span.when")
    assert result.target is not None
    fp = result.target.fingerprint
    assert fp.attributes == {}
    assert fp.caption_hash == text_hash(SALT, "Paid on")
