"""Steps of the pointer and of files (issue 32): hover, upload.

* **hover** locates its element as a click does (healing included), rests the pointer on it and
  settles: what the hover reveals (a menu) is waited for by the settling and found by the next
  step's locating.
* **upload** reads the file its ``file`` input names (``user_files.read_upload``: a regular file,
  not a symlink, at most 25 MB; pre-flight checked it before anything ran) and sets the file input
  to it. Neither the path, nor the file's name or content, reaches the evidence, the error or the
  log: the evidence says only that a file was set.
"""

from __future__ import annotations

from ...errors import InputError, ReplayError
from ...model.actions import HoverAction, UploadAction
from ...user_files import read_upload
from .. import evidence as ev
from ..driving import Picked
from .acting import act_on
from .context import Handler, StepContext


async def hover(ctx: StepContext, a: HoverAction) -> None:
    async def hovered(picked: Picked) -> None:
        await ctx.driver.hover(picked, timeout_ms=ctx.remaining_ms())

    await act_on(ctx, a.target, hovered)
    ctx.step.facts["hover"] = ev.marker_digest("hover", a.id)
    await ctx.after()


async def upload(ctx: StepContext, a: UploadAction) -> None:
    path = ctx.text(a.value)
    if path is None:  # an optional step whose input nobody gave: the file input is left as it is
        ctx.step.facts["skipped"] = ev.marker_digest("skipped", a.id)
        return
    try:
        chosen = read_upload(path)
    except InputError as exc:
        code = "SR_REPLAY_UPLOAD_TOO_LARGE" if exc.code.endswith("TOO_LARGE") else "SR_REPLAY_UPLOAD_REFUSED"
        raise ReplayError(
            code,
            f"step {a.id} (upload): the file of input {a.value.name!r} could not be read as a regular "
            "file within the size limit; nothing was set",
            action_id=a.id,
        ) from None
    await act_on(ctx, a.target, lambda p: ctx.driver.set_file(p, chosen, timeout_ms=ctx.remaining_ms()))
    ctx.step.facts["upload"] = ev.marker_digest("upload", a.id)
    await ctx.after()


HANDLERS: dict[str, Handler] = {"hover": hover, "upload": upload}
