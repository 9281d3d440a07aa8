"""A replayed upload stays readable after the step (issue 32's demo): a page reads a chosen file
only when it sends it (a form's submit, a fetch with the File as body), steps later. The replay
used to delete its private copy of the file as soon as the input was set, so the page read nothing
(only the name and size a change handler sees survived)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillreel.services.preflight import ReplayRequest
from skillreel.services.record_preflight import RecordRequest
from skillreel.services.recording import record_skill
from skillreel.services.replaying import replay_skill
from skillreel.services.reviewing import review_skill
from skillreel.store import Store
from tests.integration.record.rig import page_html, scripted

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# "Send" reads the whole file (as a submit or a fetch would) and shows how many bytes it read.
READ_ON_SEND = page_html(
    "<label>Document <input type=file id=doc></label><button id=send>Send</button>"
    "<script>document.getElementById('send').addEventListener('click',async()=>{"
    "const p=document.createElement('p');p.id='got';"
    "try{p.textContent=String((await document.getElementById('doc').files[0].arrayBuffer()).byteLength)}"
    "catch(e){p.textContent='unreadable'}document.body.append(p);});</script>"
)


async def test_the_page_reads_the_uploaded_file_steps_after_it_was_set(
    tmp_path: Path, skillreel_home: Path
) -> None:
    recorded, given = tmp_path / "recorded.txt", tmp_path / "given.txt"
    recorded.write_bytes(b"r" * 100)
    given.write_bytes(b"g" * 3210)
    steps = [
        {"do": "upload", "selector": "#doc", "file": str(recorded)},
        {"do": "click", "selector": "#send"},
        {"do": "wait", "selector": "#got"},
        {"do": "extract", "selector": "#got", "as": "read"},
    ]
    html, automation = scripted(tmp_path, READ_ON_SEND, steps)
    with Store.open(skillreel_home) as store:
        await record_skill(store, RecordRequest(name="send-doc", html_path=html, automation=automation))
        review_skill(store, "send-doc", "alice", approve=True, expected_revision=1)
        param = next(p.name for p in store.get("send-doc").draft.parameters if p.type == "file")
        outcome = await replay_skill(
            store, ReplayRequest(name="send-doc", inputs={param: f"@{given}"}, html_path=html)
        )
    assert outcome.error is None, outcome.error.to_json()
    assert outcome.outputs == {"read": "3210"}  # on integ before the fix: "unreadable"
