"""The demo's ``attach`` stage: one upload, one popup and one download (issue 32's "Done when").

A skill is recorded by automation on the desk's public attach page: it uploads a document the stage
writes, follows the receipt link into the tab it opens, downloads the receipt there and closes the
tab. It is approved at the revision recorded, then replayed with another document and
``--downloads`` into the demo's directory. The stage checks that the app received the second
document's size, that the saved receipt is the one the app served (sha256), and that neither
document's name nor content, nor the receipt, reached the home.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from .journey import DemoContext, StageResult

ATTACHER = "attach-document"


def _automation(document: Path) -> dict[str, Any]:
    return {
        "steps": [
            {"do": "upload", "selector": "#document", "file": str(document)},
            {"do": "click", "selector": "#attach button[type=submit]"},
            {"do": "wait", "selector": "#receipt"},  # shown once the desk has the document
            {"do": "click", "selector": "#receipt"},
            {"do": "page", "to": "popup"},
            {"do": "click", "selector": "#download", "download": "receipt"},
            {"do": "page", "to": "main", "close": True},
        ]
    }


def _document(folder: Path, name: str, size: int) -> tuple[Path, bytes]:
    """A document of ``size`` bytes whose content (and name) are unique to this run."""
    folder.mkdir(parents=True, exist_ok=True)
    content = (f"{name} {secrets.token_hex(8)} ".encode() * size)[:size]
    path = folder / f"{name}-{secrets.token_hex(4)}.txt"
    path.write_bytes(content)
    return path, content


def _leaks(home: Path, needles: list[bytes]) -> list[str]:
    """The files under ``home`` that hold any of ``needles``."""
    return [
        str(p.relative_to(home))
        for p in home.rglob("*")
        if p.is_file()
        for data in (p.read_bytes(),)
        if any(n in data for n in needles)
    ]


async def stage_attach(ctx: DemoContext) -> StageResult:
    from ..services.record_preflight import RecordRequest
    from ..services.recording import record_skill
    from ..services.replaying import ReplayRequest, replay_skill
    from ..services.reviewing import review_skill
    from .journey import DemoStageFailed, StageResult

    first, first_content = _document(ctx.workdir / "documents", "delivery-note", 1_337)
    second, second_content = _document(ctx.workdir / "documents", "signed-contract", 2_048)
    automation = ctx.workdir / "attach.json"
    automation.write_text(json.dumps(_automation(first)))
    try:
        recorded = await record_skill(
            ctx.store,
            RecordRequest(
                name=ATTACHER,
                url=ctx.desk.origin + "/attach",
                automation=automation,
                description="Attach a document to invoice INV-1042 on the Invoice Desk and download "
                "its receipt. Use when a supporting document must be filed with an invoice.",
            ),
        )
    finally:
        automation.unlink(missing_ok=True)  # it named the recorded document
    draft = recorded.entry.draft
    kinds = [a.kind for a in draft.actions]
    files = [p.name for p in draft.parameters if p.type == "file"]
    if "upload" not in kinds or "download" not in kinds or len(files) != 1:
        raise DemoStageFailed("attach", f"the recording produced steps {kinds} and file inputs {files}")
    review_skill(
        ctx.store,
        ATTACHER,
        "demo",
        approve=True,
        expected_revision=recorded.entry.revision,
        draft_digest=draft.draft_digest,
    )
    downloads = ctx.workdir / "downloads"
    downloads.mkdir(exist_ok=True)
    before = len(ctx.desk.attached)
    outcome = await replay_skill(
        ctx.store,
        ReplayRequest(
            name=ATTACHER, inputs={files[0]: f"@{second}"}, settle_ms=ctx.settle_ms, downloads=downloads
        ),
    )
    if outcome.status != "succeeded":
        raise DemoStageFailed("attach", "the replay with another document failed", outcome.error)
    if ctx.desk.attached[before:] != [len(second_content)]:
        raise DemoStageFailed("attach", f"the app received sizes {ctx.desk.attached[before:]}")
    receipt = (outcome.outputs or {}).get("receipt") or {}
    served = ctx.desk.state.receipt
    if receipt.get("sha256") != hashlib.sha256(served).hexdigest():
        raise DemoStageFailed("attach", "the downloaded receipt is not the file the app served")
    needles = [first.name, second.name, first_content, second_content, served, receipt["sha256"]]
    leaks = _leaks(ctx.home, [n if isinstance(n, bytes) else n.encode() for n in needles])
    if leaks:
        raise DemoStageFailed("attach", f"a document or the receipt was found in the store: {leaks}")
    return StageResult(
        "attach",
        True,
        f"upload, popup, download: {ATTACHER!r} replayed with another document "
        f"({len(second_content):,} bytes received), receipt saved ({receipt['bytes']} bytes, sha256 "
        "matches); neither document nor the receipt anywhere in the home",
        {"kinds": kinds, "received": len(second_content), "receipt": receipt["bytes"]},
    )
