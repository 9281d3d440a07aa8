"""Steps across pages: page (switch to a popup or back to the first page) and download (a click
that keeps the file it downloads). The pages themselves are the driver's
(:class:`~skillreel.replay.pages.PageSet`); a driver without pages (the fake) refuses both.

* **page** switches the page the following steps act on (``SR_REPLAY_UI_POPUP_MISSING`` when the
  popup never opened); evidence is a marker of where it went.
* **download** clicks its target with the download armed and saves the file under the replay's
  downloads directory (``SR_REPLAY_DOWNLOADS_DIR_MISSING`` without one); its output
  ``{"path", "name", "bytes", "sha256"}`` goes to the caller only. Evidence holds the file's
  digest tagged with the step, never its name or path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...errors import ReplayError, ReplayUIError
from ...model.actions import DownloadAction, PageAction
from .. import evidence as ev
from ..driving import Picked
from ..pages import PageSet, save_download
from .acting import act_on
from .context import Handler, StepContext


def _pages(ctx: StepContext) -> PageSet:
    pages = getattr(ctx.driver, "pages", None)
    if not isinstance(pages, PageSet):
        raise ReplayUIError(
            "SR_REPLAY_UI_ACTION_FAILED", f"step {ctx.action.id}: this driver acts on one page only"
        )
    return pages


async def page(ctx: StepContext, a: PageAction) -> None:
    pages = _pages(ctx)
    ctx.step.acted = a.close
    await pages.switch(a.to, close=a.close, timeout_ms=ctx.remaining_ms(), action_id=a.id)
    ctx.step.facts["page"] = ev.marker_digest(f"page-{a.to}", a.id)
    await ctx.after()


async def download(ctx: StepContext, a: DownloadAction) -> None:
    directory = ctx.options.downloads
    if directory is None:
        raise ReplayError(
            "SR_REPLAY_DOWNLOADS_DIR_MISSING",
            f"step {a.id}: the skill downloads a file and the replay names no downloads directory",
            action_id=a.id,
        )
    pages = _pages(ctx)

    async def clicked(picked: Picked) -> Any:
        async with pages.expecting_download(timeout_ms=ctx.remaining_ms(), action_id=a.id) as got:
            await ctx.driver.click(picked, timeout_ms=ctx.remaining_ms())
        return got[0]

    got = await act_on(ctx, a.target, clicked)
    saved = await save_download(got, Path(directory), action_id=a.id)
    await ctx.after()
    ctx.run.outputs[a.output] = saved.to_json()
    ctx.step.facts["download"] = ev.marker_digest("download", a.id)  # never the file's digest


HANDLERS: dict[str, Handler] = {"page": page, "download": download}
