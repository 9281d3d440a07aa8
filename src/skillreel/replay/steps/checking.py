"""Steps that look without acting: assert, wait, observe.

An assertion and a wait share one poll loop (:func:`poll_check`): measure, and while the check
does not hold release any mark, then retry with a growing pause (``POLL_FIRST_S`` doubling up to
``POLL_MAX_S``) until the step's deadline (a wait's own timeout when it has one). At the deadline,
``onFail: "skip"`` skips the rest of the block (:class:`SkipRest`, fact ``skippedRest``); otherwise
the step fails (``SR_REPLAY_UI_ASSERTION_FAILED``, or for a wait the code that says which, from
the page's condition at the deadline: :func:`wait_failure`). An ``absent`` assertion polls the same
way for its target to go away, and fails closed on a page that answered an HTTP error
(``SR_REPLAY_UI_HTTP_ERROR``). An observation records the page before and after locating its
target, its text digest and a screenshot digest.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Awaitable, Callable

from ...errors import ReplayError, ReplayUIError, SkillreelError
from ...model.actions import AssertAction, ObserveAction, WaitAction
from ...model.locators import LocatorBundle
from ...model.urls import V1_RULE, QueryRule, URLRuleError, normalise_target_url
from .. import evidence as ev
from ..driving import Picked, SkipRest, StepState
from ..resolving import POLL_FIRST_S, POLL_MAX_S
from .context import Handler, StepContext


async def poll_check(
    ctx: StepContext,
    holds: Callable[[], Awaitable[bool]],
    *,
    on_fail: str,
    failure: Callable[[], Awaitable[SkillreelError]],
) -> None:
    """Ask ``holds`` until it answers True; between tries release the driver's mark and pause
    (backing off). At the step's deadline (read after every try: a try may move it), skip the rest
    of the block when ``on_fail`` is ``skip``, else raise ``failure()``."""
    step = ctx.step
    delay = POLL_FIRST_S
    while not await holds():
        await ctx.driver.release()
        if ctx.clock() >= step.deadline:
            if on_fail == "skip":
                step.facts["skippedRest"] = ev.marker_digest("skipped-rest", step.action.id)
                raise SkipRest
            raise await failure()
        await ctx.sleep(delay)
        delay = min(delay * 2, POLL_MAX_S)


# ---- assert ---------------------------------------------------------------------------------------


async def check(ctx: StepContext, a: AssertAction) -> None:
    async def holds() -> bool:
        try:
            return await _assert_once(ctx, a)
        except ReplayUIError as exc:  # the target is not there: with onFail skip, it did not hold
            if a.on_fail != "skip" or exc.code != "SR_REPLAY_UI_TARGET_NOT_FOUND":
                raise
            ctx.step.deadline = ctx.clock()
            return False

    async def failure() -> SkillreelError:
        still = ": an element like its target is still on the page" if a.check == "absent" else ""
        return ReplayUIError(
            "SR_REPLAY_UI_ASSERTION_FAILED",
            f"step {a.id}: the {a.check} assertion did not hold{still}",
            action_id=a.id,
        )

    await poll_check(ctx, holds, on_fail=a.on_fail, failure=failure)
    ctx.step.facts["check"] = ev.check_digest(a.check, ctx.step.facts.get("target"))


async def _assert_once(ctx: StepContext, a: AssertAction) -> bool:
    driver = ctx.driver
    if a.check == "absent":
        return await _absent_once(ctx, a)
    if a.check == "url_matches":
        return url_matches(await driver.current_url(), a.expected, ctx.options.url_rule)
    if a.target is None:
        raise ReplayError(
            "SR_REPLAY_SCHEMA_INVALID", f"step {a.id}: the assertion has no target", action_id=a.id
        )
    if a.check == "count":
        return a.count_holds(await driver.count(a.target.candidates[0], salt=ctx.options.salt))
    picked = await ctx.locate(a.target)
    return a.check == "visible" or await driver.check(picked, a.check, a.expected)


async def _absent_once(ctx: StepContext, a: AssertAction) -> bool:
    """``absent``: no element like the target is on the page (with ``expected``: none holding that
    text). Fails closed on a page whose document answered an HTTP error: an error page shows no
    banner either, and that is no proof the business state is fine."""
    assert a.target is not None
    condition = await ctx.driver.condition(measured=False)
    http = condition.http_error(f"step {a.id} (assert): the absent check cannot hold", a.id)
    if http is not None:
        raise http
    if not isinstance(a.expected, str):  # an element like the recorded one, its text included
        return not await ctx.present(a.target, ctx.clock())
    # The text form reads the element whatever it says now (its recorded text is not what the
    # check is about); a target only its text designates cannot be checked so (fail closed).
    target = a.target.without_content()
    if target is None:
        return False
    picked = await _try_locate(ctx, target)
    return picked is None or not await ctx.driver.check(picked, "text_contains", a.expected)


# ---- wait -----------------------------------------------------------------------------------------


async def wait(ctx: StepContext, a: WaitAction) -> None:
    if a.timeout_ms is not None:
        ctx.step.deadline = ctx.clock() + a.timeout_ms / 1000
    missing = [False]  # the last try found no element like the target

    async def once() -> bool:
        held, missing[0] = await _wait_once(ctx, a)
        return held

    await poll_check(ctx, once, on_fail=a.on_fail, failure=lambda: wait_failure(ctx, a, missing=missing[0]))
    ctx.step.facts["check"] = ev.check_digest(f"wait-{a.until}", ctx.step.facts.get("target"))


async def _wait_once(ctx: StepContext, a: WaitAction) -> tuple[bool, bool]:
    """Whether the wait holds now, and whether its target was missing from the page."""
    if a.until == "url":
        return url_matches(await ctx.driver.current_url(), a.expected, ctx.options.url_rule), False
    assert a.target is not None
    now = ctx.clock()
    if a.until in ("appears", "disappears"):
        present = await ctx.present(a.target, now)
        return (present if a.until == "appears" else not present), not present
    picked = await _try_locate(ctx, a.target)
    if picked is None:
        return False, True
    expected = ctx.text(a.value)
    return expected is not None and await ctx.driver.check(picked, "text_contains", expected), False


async def wait_failure(ctx: StepContext, a: WaitAction, *, missing: bool) -> SkillreelError:
    """Why the wait did not hold, from the page at its deadline (``driver.condition``): the page
    answered an HTTP error (``SR_REPLAY_UI_HTTP_ERROR``, the status in the message and the details);
    it was still loading or changing (``SR_REPLAY_UI_WAIT_TIMEOUT``: the one case a longer timeout
    may help); its target was not on the page, which had stopped changing
    (``SR_REPLAY_UI_WAIT_NOT_ON_PAGE``); else the condition did not hold on a page that had stopped
    changing (``SR_REPLAY_UI_WAIT_FAILED``)."""
    condition = await ctx.driver.condition()
    expects = f"the state the wait expects ({a.until})"
    http = condition.http_error(f"step {a.id} (wait): the page did not reach {expects}", a.id)
    if http is not None:
        return http
    if condition.changing:
        code, why = "SR_REPLAY_UI_WAIT_TIMEOUT", f"did not reach {expects} in time; it was still changing"
    elif missing:
        code, why = (
            "SR_REPLAY_UI_WAIT_NOT_ON_PAGE",
            "shows no element like the wait's target, and had stopped changing",
        )
    else:
        code, why = "SR_REPLAY_UI_WAIT_FAILED", f"had stopped changing without reaching {expects}"
    return ReplayUIError(code, f"step {a.id} (wait): the page {why}", action_id=a.id)


async def _try_locate(ctx: StepContext, bundle: LocatorBundle) -> Picked | None:
    """The target now (one measurement, a heal confirmed once), or None when it is not there."""
    step = ctx.step
    probe_step = StepState(step.action, ctx.clock(), step.frame, step.facts)
    try:
        picked = await ctx.run.resolver.locate(probe_step, bundle, token=ctx.token(bundle))
    except ReplayUIError as exc:
        if exc.code in ("SR_REPLAY_UI_TARGET_NOT_FOUND", "SR_REPLAY_UI_HTTP_ERROR"):
            return None  # not there (yet): the wait's deadline says why (wait_failure)
        raise
    step.healed = step.healed or probe_step.healed
    return picked


# ---- observe --------------------------------------------------------------------------------------


async def observe(ctx: StepContext, a: ObserveAction) -> None:
    driver, salt, facts = ctx.driver, ctx.options.salt, ctx.step.facts
    before = await driver.page_state(salt=salt, text=False)
    facts["before"] = ev.state_digest(before)
    await ctx.locate(a.target)
    await driver.release()
    summary = await driver.page_state(salt=salt, text=True)
    facts["after"] = ev.state_digest(summary)
    facts["page"] = ev.text_digest(summary)
    png = await driver.screenshot(timeout_ms=ctx.remaining_ms())
    facts["screenshot"] = ev.screenshot_digest(png)


def url_matches(url: str, expected: str | int | None, rule: QueryRule = V1_RULE) -> bool:
    """``url_matches``: the normalised page URL equals ``expected`` (a full URL, or a path with
    query when it starts with ``/``); ``*`` in ``expected`` matches any run of characters."""
    if not isinstance(expected, str) or not expected:
        return False
    try:
        normal = normalise_target_url(url, rule)
    except URLRuleError:
        return False
    subject = normal
    if expected.startswith("/"):
        subject = "/" + normal.partition("://")[2].partition("/")[2]
    if "*" in expected:
        return fnmatch.fnmatchcase(subject, expected.replace("[", "[[]").replace("?", "[?]"))
    return subject == expected


HANDLERS: dict[str, Handler] = {"assert": check, "wait": wait, "observe": observe}
