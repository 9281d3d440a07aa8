"""Steps about the page as a whole: navigate, scroll, dialog, human.

* **navigate** loads the start page, reloads, or goes to a URL, then settles; evidence is the
  URL's digest. A URL template's parts (``model.url_template``) are filled where the step runs,
  each value percent-encoded; a value that would leave the path (``SR_REPLAY_URL_PART_INVALID``)
  or the origin (``SR_REPLAY_UI_NETWORK_DENIED``), or is missing, loads nothing.
* **scroll** moves a target into view or a container to its end (rounds counted, never content).
* **dialog** checks that the answer armed before the previous step (:func:`arm_dialog`, called by
  the engine when a dialog step follows) met the expected dialog (``SR_REPLAY_UI_DIALOG_MISMATCH``);
  dialogs no step expects are dismissed.
* **human** hands the browser to a person (``SR_REPLAY_HUMAN_REQUIRED`` when nobody can answer).
"""

from __future__ import annotations

from ...errors import ReplayError, ReplayUIError, SkillreelError
from ...model import url_template
from ...model.actions import Action, DialogAction, HumanAction, NavigateAction, ScrollAction
from .. import evidence as ev
from ..driving import Dialogs, HumanRequest
from ..resolving import POLL_FIRST_S, POLL_MAX_S
from .context import Handler, StepContext
from .data import count_digest


async def navigate(ctx: StepContext, a: NavigateAction) -> None:
    driver, step = ctx.driver, ctx.step
    timeout = ctx.remaining_ms()
    if a.reason == "start":
        await driver.start(timeout_ms=timeout)
    elif a.reason == "reload":
        step.acted = True
        await driver.reload(timeout_ms=timeout)
    else:
        url = _filled(ctx, a) if a.parts else a.url
        step.acted = True
        await driver.goto(url, timeout_ms=timeout)
    await driver.settle(ctx.options.settle_ms, timeout_ms=ctx.remaining_ms())
    step.facts["url"] = ev.url_digest(await driver.current_url())


def _filled(ctx: StepContext, a: NavigateAction) -> str:
    """The URL the template makes here (never named in an error: it may hold a value)."""
    values: dict[str, str] = {}
    for name, ref in a.parts.items():
        text = ctx.text(ref)
        if text is None:
            raise ReplayError(
                "SR_REPLAY_PARAMETER_MISSING",
                f"step {a.id}: the URL's part {name!r} has no value here",
                action_id=a.id,
            )
        values[name] = text
    try:
        return url_template.fill(a.url, values)
    except url_template.TemplateProblem as exc:
        if "origin" in str(exc):
            raise ReplayUIError(
                "SR_REPLAY_UI_NETWORK_DENIED", f"step {a.id}: {exc}; nothing was loaded", action_id=a.id
            ) from None
        raise ReplayError(
            "SR_REPLAY_URL_PART_INVALID", f"step {a.id}: {exc}; nothing was loaded", action_id=a.id
        ) from None


async def scroll(ctx: StepContext, a: ScrollAction) -> None:
    picked = await ctx.locate(a.target)
    rounds = await ctx.driver.scroll(
        picked,
        a.to,
        max_rounds=a.max_rounds,
        settle_ms=ctx.options.settle_ms,
        timeout_ms=ctx.remaining_ms(),
    )
    ctx.step.facts["scroll"] = count_digest(f"scroll-{a.to}", a.id, rounds)
    await ctx.after()


async def dialog(ctx: StepContext, a: DialogAction) -> None:
    driver, step = ctx.driver, ctx.step
    delay = POLL_FIRST_S
    try:
        while (seen := await driver.dialog_seen()) is None:
            if ctx.clock() >= step.deadline:
                if a.optional:
                    step.facts["skipped"] = ev.marker_digest("skipped", a.id)
                    return
                raise ReplayUIError(
                    "SR_REPLAY_UI_DIALOG_MISMATCH",
                    f"step {a.id}: the expected dialog did not open",
                    action_id=a.id,
                )
            await ctx.sleep(delay)
            delay = min(delay * 2, POLL_MAX_S)
    finally:
        await driver.disarm_dialog()
    step.acted = True  # the dialog was answered (or dismissed): the page may act on it
    if not seen.answered:
        raise ReplayUIError(
            "SR_REPLAY_UI_DIALOG_MISMATCH",
            f"step {a.id}: a {seen.kind} dialog opened where a {a.expects} was expected; it was dismissed",
            action_id=a.id,
        )
    step.facts["dialog"] = ev.marker_digest(f"dialog-{seen.kind}-{'accept' if a.accept else 'dismiss'}", a.id)


async def arm_dialog(driver: Dialogs, opener: Action, dialog: DialogAction, text: str | None) -> None:
    """Before ``opener`` runs: answer the dialog it opens as ``dialog`` says (``text``: the
    prompt's answer, resolved where the opener runs)."""
    try:
        await driver.arm_dialog(accept=dialog.accept, text=text, expects=dialog.expects)
    except SkillreelError as exc:
        if exc.action_id is None:
            exc.action_id = opener.id
        raise


async def human(ctx: StepContext, a: HumanAction) -> None:
    run = ctx.run
    index, total = run.index[a.id], run.total
    if run.human is None:
        raise ReplayError(
            "SR_REPLAY_HUMAN_REQUIRED",
            f"step {a.id} needs a person ({a.reason}) and nobody can answer",
            action_id=a.id,
        )
    ctx.step.acted = True  # a person may act in the browser from here on
    if not await run.human(HumanRequest(index, total, a.id, a.reason)):
        raise ReplayError(
            "SR_REPLAY_HUMAN_REQUIRED", f"step {a.id}: the person did not finish it", action_id=a.id
        )
    ctx.step.facts["human"] = ev.marker_digest("human", a.id)
    await ctx.after()


HANDLERS: dict[str, Handler] = {
    "navigate": navigate,
    "scroll": scroll,
    "dialog": dialog,
    "human": human,
}
