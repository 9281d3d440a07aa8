"""The locating role of :class:`~skillreel.replay.driver.PlaywrightDriver` (the
:class:`~skillreel.replay.driving.Locating` protocol): measuring a target in the page, marking the
element chosen, and a loop's items, through the isolated-world channel (:mod:`skillreel.replay.world`).

The element the rule chose is marked by ``resolve.js`` with a per-session random attribute name
(:attr:`PageLocating.attr`) and a per-step random value; the action then goes through Playwright's
strict locator for exactly that attribute (:meth:`PageLocating.locator`). The mark is removed
right after. A probe marks its first unique visible hit speculatively, so that ``pick`` costs no
round trip when the decision agrees; a measurement taken ahead (in the previous step's page
summary, :meth:`PageLocating.summary`, or in entering a loop item) serves a later probe only while
nothing happened on the page since.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page
from pydantic import ValidationError

from ..errors import ReplayUIError
from ..locate import heal
from ..locate.probe import Probe, ProbeShapeError, probe_from_json
from ..locate.similarity import CONTEXT_ATTRIBUTES, WEIGHTS
from ..model.locators import ElementSet, Fingerprint, LocatorBundle, LocatorCandidate
from ..model.reads import FieldSpec
from .driving import Choice, FieldValue, ItemAhead, ItemsFound, Picked, Scope, Upcoming
from .world import COLLECT, World

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Prefetch:
    """A probe measured ahead, in the previous step's page-summary call (see :meth:`page_state`)
    or in entering a loop item (:meth:`enter_item`)."""

    bundle: LocatorBundle
    within: Scope | None
    token: str
    nonce: str
    data: Any
    activity: int  # the page activity position when it was measured
    world: str


@dataclass(frozen=True)
class _Entered:
    """A loop item entered and its fields read ahead, in the page-summary call of the step that
    ended the previous iteration (see :meth:`page_state`)."""

    loop: str
    index: int
    values: tuple[FieldValue, ...]
    activity: int
    world: str


class PageLocating:
    """Targets, marks and loop items in ``page``, measured through ``world``."""

    def __init__(self, page: Page, world: World) -> None:
        self._page = page
        self._world = world
        self.attr = "data-sr-" + secrets.token_hex(6)
        self._marked = False
        self._probes = 0
        self._speculative: tuple[str, int, Picked] | None = None
        self._framed: str | None = None  # the nonce of a marked element inside a frame
        # schema v2: open loops (the arguments that find their items again after a navigation, the
        # count when opened, the current index)
        self._loops: dict[str, tuple[dict[str, Any], int, Scope | None]] = {}
        self._current: dict[str, int] = {}
        self._prefetched: _Prefetch | None = None
        self._entered: _Entered | None = None

    def framed(self, picked: Picked) -> bool:
        """Whether the element marked for ``picked`` lives in a child frame's document."""
        return self._framed == picked.token

    async def locator(self, picked: Picked) -> Locator:
        """Playwright's strict locator for the marked element: in the page (its CSS engine pierces
        open shadow roots), or in the child frame that holds the mark."""
        selector = f"[{self.attr}='{picked.token}']"
        if self._framed != picked.token:
            return self._page.locator(selector)
        for frame in self._page.frames[1:]:
            try:
                if await frame.locator(selector).count() == 1:
                    return frame.locator(selector)
            except PlaywrightError:
                continue
        return self._page.locator(selector)

    async def probe(self, bundle: LocatorBundle, *, salt: str, within: Scope | None = None) -> Probe:
        """Measure the page for ``bundle``; the first unique visible hit is marked speculatively, so
        that :meth:`pick` costs no round trip when the decision agrees (the mark alone does nothing).
        A measurement taken ahead by :meth:`page_state` serves when nothing happened since."""
        self._speculative = None
        ahead, self._prefetched = self._prefetched, None
        if ahead is not None and ahead.within == within and self._still_fresh(ahead, bundle):
            return self._probe_result(ahead.token, ahead.nonce, ahead.data)
        token, nonce, arg = self._probe_arg(bundle, salt, within)
        return self._probe_result(token, nonce, await self._world.call("probe", arg, aim=True))

    def _still_fresh(self, ahead: _Prefetch, bundle: LocatorBundle) -> bool:
        """A measurement taken ahead serves a probe of the same bundle in the same scope only, and
        only when nothing happened on the page since."""
        return (ahead.bundle is bundle or ahead.bundle == bundle) and self._unchanged(
            ahead.activity, ahead.world
        )

    def _unchanged(self, activity: int, world: str) -> bool:
        """Nothing happened on the page since a measurement taken at ``activity`` in ``world``: no
        request, navigation or load since, the same document, no action waiting to be settled."""
        return (
            activity == self._world.activity.mark()
            and world == self._world.unique
            and self._world.quiet_deadline is None
        )

    def _ahead(
        self, bundle: LocatorBundle, within: Scope | None, token: str, nonce: str, *, data: Any
    ) -> None:
        """Keep a probe measured ahead (its element speculatively marked: cleaned up by a later call)."""
        if self._world.unique is not None and isinstance(data, dict):
            self._marked = self._marked or data.get("speculative") is not None
            self._prefetched = _Prefetch(
                bundle, within, token, nonce, data, self._world.activity.mark(), self._world.unique
            )

    def _probe_arg(
        self, bundle: LocatorBundle, salt: str, within: Scope | None = None
    ) -> tuple[str, str, dict[str, Any]]:
        self._probes += 1
        token, nonce = f"p{self._probes}", secrets.token_hex(16)
        arg = {
            "token": token,
            "bundle": bundle.to_json(),
            "salt": salt,
            "weights": WEIGHTS.to_json(),
            "exactMin": heal.EXACT_MIN,
            "margin": heal.MARGIN,
            "floor": heal.FLOOR,
            "topK": heal.TOP_K,
            "speculate": {"attr": self.attr, "nonce": nonce},
            "within": None if within is None else {"loop": within.loop, "index": within.index},
        }
        return token, nonce, arg

    def _probe_result(self, token: str, nonce: str, data: Any) -> Probe:
        try:
            probe = probe_from_json(data)
        except ProbeShapeError as exc:
            raise ReplayUIError("SR_REPLAY_UI_ACTION_FAILED", "the page measurement was malformed") from exc
        guess = data.get("speculative") if isinstance(data, dict) else None
        if isinstance(guess, dict) and isinstance(guess.get("element"), int):
            self._marked = True
            try:
                fingerprint = Fingerprint.parse(guess["fingerprint"])
            except (ValidationError, KeyError, TypeError):
                return probe  # no shortcut; pick() measures again
            self._speculative = (token, guess["element"], Picked(nonce, fingerprint))
            self._note_frame(nonce, guess.get("framed"))
        return probe

    async def pick(
        self, probe: Probe, element: int, *, salt: str, describe: bool, hide: Sequence[str] = ()
    ) -> Picked | None:
        """Mark ``element`` for the action; ``describe``: also its fresh locator candidates (a healed
        step), and whether one of its texts holds a value of ``hide`` (checked in the page; only a
        yes or no comes back)."""
        guess, self._speculative = self._speculative, None
        if guess is not None and not describe and guess[:2] == (probe.token, element):
            return guess[2]
        nonce = secrets.token_hex(16)
        data = await self._world.call(
            "pick",
            {
                "token": probe.token,
                "element": element,
                "salt": salt,
                "attr": self.attr,
                "nonce": nonce,
                "describe": describe,
                "hide": [h.lower() for h in hide if len(h) >= 2] if describe else [],
            },
            aim=True,
        )
        if not isinstance(data, dict) or not data.get("ok"):
            return None
        fingerprint = self._marked_as(nonce, data)
        return Picked(
            nonce, fingerprint, _candidates(data.get("candidates")), echoes=data.get("echoes") is True
        )

    def _marked_as(self, nonce: str, data: dict[str, Any]) -> Fingerprint:
        """The page marked an element with ``nonce`` (``pick`` or ``choose``): its fingerprint as
        it is now, and whether it lives in a frame's document."""
        self._marked = True
        try:
            fingerprint = Fingerprint.parse(data["fingerprint"])
        except (ValidationError, KeyError, TypeError) as exc:
            raise ReplayUIError(
                "SR_REPLAY_UI_ACTION_FAILED", "the target element cannot be described"
            ) from exc
        self._note_frame(nonce, data.get("framed"))
        return fingerprint

    def _note_frame(self, nonce: str, framed: Any) -> None:
        """Remember that the element marked ``nonce`` lives in a same-origin frame's document."""
        self._framed = nonce if framed is True else None

    async def release(self) -> None:
        """Remove the mark; never raises (it runs in cleanup, also after a crash). A mark that a
        probe measured ahead left stays for its step (the next summary or pick removes it)."""
        self._speculative = None
        if not self._marked or self._prefetched is not None:
            return
        self._marked = False
        if self._world.unique is None or self._world.unique != self._world.installed or self._world.crashed():
            return  # a new document: nothing of ours is marked in it
        try:
            await self._world.call("release", {"attr": self.attr})
        except ReplayUIError as exc:
            log.debug("release: %s", exc.code)

    async def choose(
        self, bundle: LocatorBundle, token: str, *, salt: str, within: Scope | None, allow_heal: bool
    ) -> Choice:
        nonce = secrets.token_hex(16)
        self._speculative = None
        arg = set_arg(bundle.candidates, bundle.fingerprint, salt=salt, within=within, allow_heal=allow_heal)
        arg["mark"] = {"attr": self.attr, "nonce": nonce}
        row = bundle.row
        rows = None
        if row is not None:  # the candidates are relative to the row holding the token
            rows = set_arg(row.candidates, row.fingerprint, salt=salt, within=within, allow_heal=allow_heal)
        data = await self._world.call(
            "choose", {"set": arg, "token": token, "row": rows}, api=COLLECT, aim=True
        )
        outcome = data.get("outcome") if isinstance(data, dict) else None
        if outcome in ("none", "many"):
            return Choice(outcome)
        if outcome != "one":
            raise ReplayUIError("SR_REPLAY_UI_ACTION_FAILED", "the page measurement was malformed")
        fingerprint = self._marked_as(nonce, data)
        return Choice("one", Picked(nonce, fingerprint), bool(data.get("healed")))

    async def open_items(
        self,
        items: ElementSet,
        *,
        salt: str,
        loop: str,
        token: str | None,
        within: Scope | None,
        allow_heal: bool,
        mark: bool = True,
    ) -> ItemsFound:
        arg = {
            "set": set_arg(
                items.candidates, items.fingerprint, salt=salt, within=within, allow_heal=allow_heal
            ),
            "token": token,
            "loop": loop,
            "keep": mark,
        }
        self._entered = None
        found = _items_found(await self._world.call("open", arg, api=COLLECT))
        if mark:
            self._loops[loop] = (arg, found.count, within)
        return found

    async def item(self, loop: str, index: int) -> bool:
        opened = self._loops.get(loop)
        if opened is None or index >= opened[1]:
            return False
        data = await self._world.call("item", {"loop": loop, "index": index}, api=COLLECT)
        if isinstance(data, dict) and not data.get("known"):
            # a new document (the body navigated): find the items again, the enclosing loop's first
            if not await self._reopen(loop):
                return False
            data = await self._world.call("item", {"loop": loop, "index": index}, api=COLLECT)
        ok = isinstance(data, dict) and data.get("ok") is True
        if ok:
            self._current[loop] = index
        return ok

    async def enter_item(
        self,
        loop: str,
        index: int,
        fields: Sequence[FieldSpec],
        *,
        salt: str,
        allow_heal: bool,
        probe: LocatorBundle | None = None,
    ) -> tuple[FieldValue, ...] | None:
        """The item made current and its fields read in one call (settle.js ``batch``), with the
        body's first target (``probe``) measured ahead in it; served without a round trip when the
        previous step's page summary did all that on a page unchanged since (:meth:`page_state`);
        after a navigation or a re-render the two calls of :meth:`item` and :meth:`read_fields`."""
        opened = self._loops.get(loop)
        if opened is None or index >= opened[1]:
            return None
        entered, self._entered = self._entered, None
        if (
            entered is not None
            and (entered.loop, entered.index) == (loop, index)
            and len(entered.values) == len(fields)
            and self._unchanged(entered.activity, entered.world)
        ):
            self._current[loop] = index
            return entered.values
        scope = Scope(loop, index)
        self._prefetched = None
        calls, ahead = self._entry_calls(scope, fields, salt, allow_heal, probe)
        results = await self._world.call("batch", calls, aim=probe is not None)
        complete = isinstance(results, list) and len(results) == len(calls)
        if complete and self._entered_from(scope, results, len(fields)):
            self._entered = None
            self._current[loop] = index
            if ahead is not None:
                self._ahead(*ahead, data=results[2])
            return field_values(results[1], len(fields))
        if not await self.item(loop, index):
            return None
        return await self.read_fields(fields, salt=salt, within=scope, allow_heal=allow_heal)

    def _entry_calls(
        self,
        scope: Scope,
        fields: Sequence[FieldSpec],
        salt: str,
        allow_heal: bool,
        probe: LocatorBundle | None,
    ) -> tuple[list[list[Any]], tuple[LocatorBundle, Scope | None, str, str] | None]:
        """The batch that enters an item: ``collect.item``, ``collect.fields``, and the probe of the
        body's first target (inside the item when it is ``within: "item"``) with what keeps it."""
        at = {"loop": scope.loop, "index": scope.index}
        read = {"set": _read_arg(salt, allow_heal), "fields": fields_arg(fields), "within": at}
        calls: list[list[Any]] = [[COLLECT + "item", at], [COLLECT + "fields", read]]
        if probe is None:
            return calls, None
        within = scope if probe.within == "item" else None
        token, nonce, probe_arg = self._probe_arg(probe, salt, within)
        calls.append(["probe", probe_arg])
        return calls, (probe, within, token, nonce)

    def _entered_from(self, scope: Scope, results: Sequence[Any], count: int) -> bool:
        """Keep an item entered ahead (``collect.item`` and ``collect.fields`` results) when the item
        was there and its fields well formed; False otherwise (nothing kept)."""
        found = results[0]
        if not isinstance(found, dict) or found.get("ok") is not True or self._world.unique is None:
            return False
        try:
            values = field_values(results[1], count)
        except ReplayUIError:
            return False
        self._entered = _Entered(
            scope.loop, scope.index, values, self._world.activity.mark(), self._world.unique
        )
        return True

    async def _reopen(self, loop: str, depth: int = 0) -> bool:
        arg, count, within = self._loops[loop]
        if within is not None:
            outer = within.loop
            if depth > 8 or outer not in self._loops or self._current.get(outer) != within.index:
                return False
            known = await self._world.call("item", {"loop": outer, "index": within.index}, api=COLLECT)
            lost = isinstance(known, dict) and not known.get("known")
            if lost and not await self._reopen(outer, depth + 1):
                return False
        again = _items_found(await self._world.call("open", arg, api=COLLECT))
        return again.count == count and again.outcome != "ambiguous"

    async def close_items(self, loop: str) -> None:
        self._loops.pop(loop, None)
        self._current.pop(loop, None)
        self._entered = None
        ahead = self._prefetched
        if ahead is not None and ahead.within is not None and ahead.within.loop == loop:
            self._prefetched = None  # measured ahead in an item for a step that did not run
            await self.release()
        if self._world.unique is None or self._world.unique != self._world.installed or self._world.crashed():
            return
        try:
            await self._world.call("close", {"loop": loop}, api=COLLECT)
        except ReplayUIError as exc:
            log.debug("close_items: %s", exc.code)

    async def read_fields(
        self, fields: Sequence[FieldSpec], *, salt: str, within: Scope, allow_heal: bool
    ) -> tuple[FieldValue, ...]:
        arg = {
            "set": _read_arg(salt, allow_heal),
            "fields": fields_arg(fields),
            "within": {"loop": within.loop, "index": within.index},
        }
        return field_values(await self._world.call("fields", arg, api=COLLECT), len(fields))

    def forget(self) -> None:
        """The marked element left the page before an action reached it: nothing of ours is
        marked any more, and nothing measured ahead serves."""
        self._marked = False
        self._prefetched = None
        self._speculative = None

    async def summary(self, arg: dict[str, Any], *, salt: str, prefetch: Upcoming | None) -> Any:
        """The page-summary call (``pageState``, its ``arg`` built by the driver): removes the
        step's mark in the same call and, with ``prefetch``, probes the next step's target there
        too (see :meth:`probe`), or enters the loop's next item, reads its fields and probes the
        body's first target in it (see :meth:`enter_item`). The raw summary."""
        if self._marked and self._world.unique is not None and self._world.unique == self._world.installed:
            arg["attr"] = self.attr
        self._marked = False
        self._speculative = None
        self._prefetched = None
        self._entered = None
        if prefetch is None:
            return await self._world.call("pageState", arg)
        if isinstance(prefetch, ItemAhead):
            scope = Scope(prefetch.loop, prefetch.index)
            calls, probe = self._entry_calls(
                scope, prefetch.fields, salt, prefetch.allow_heal, prefetch.probe
            )
            results = await self._world.call("batch", [["pageState", arg], *calls], aim=probe is not None)
            ok = isinstance(results, list) and len(results) == len(calls) + 1
            data = results[0] if ok else None
            if ok and self._entered_from(scope, results[1:], len(prefetch.fields)) and probe:
                self._ahead(*probe, data=results[3])
            return data
        token, nonce, probe_arg = self._probe_arg(prefetch, salt)
        both = await self._world.call("batch", [["pageState", arg], ["probe", probe_arg]], aim=True)
        data, ahead = both if isinstance(both, list) and len(both) == 2 else (None, None)
        self._ahead(prefetch, None, token, nonce, data=ahead)
        return data


def set_arg(
    candidates: tuple[LocatorCandidate, ...],
    fingerprint: Fingerprint,
    *,
    salt: str,
    within: Scope | None,
    allow_heal: bool,
) -> dict[str, Any]:
    """What ``collect.js`` needs to find a set (the decision constants come from ``heal``)."""
    return {
        **_read_arg(salt, allow_heal),
        "candidates": [c.to_json() for c in candidates],
        "fingerprint": fingerprint.to_json(),
        "identity": _identity(fingerprint),
        "within": None if within is None else {"loop": within.loop, "index": within.index},
    }


def fields_arg(fields: Sequence[FieldSpec]) -> list[dict[str, Any]]:
    return [
        {
            "target": None
            if f.target is None
            else {
                "candidates": [c.to_json() for c in f.target.candidates],
                "fingerprint": f.target.fingerprint.to_json(),
            },
            "identity": [] if f.target is None else _identity(f.target.fingerprint),
            "read": f.read,
            "attribute": f.attribute,
        }
        for f in fields
    ]


def _read_arg(salt: str, allow_heal: bool) -> dict[str, Any]:
    """What ``collect.js`` needs to find the fields of an item (the rule's constants from ``heal``)."""
    return {
        "salt": salt,
        "weights": WEIGHTS.to_json(),
        "healMin": heal.HEAL_MIN,
        "margin": heal.MARGIN,
        "allowHeal": allow_heal,
    }


def _identity(fingerprint: Fingerprint) -> list[str]:
    """The recorded attributes that count as identity (twin of ``Comparison.identity_agrees``)."""
    return sorted(
        n for n in fingerprint.attributes if n not in CONTEXT_ATTRIBUTES and WEIGHTS.attribute(n) > 0
    )


def _items_found(data: Any) -> ItemsFound:
    if not isinstance(data, dict) or not isinstance(data.get("count"), int):
        raise ReplayUIError("SR_REPLAY_UI_ACTION_FAILED", "the page measurement was malformed")
    outcome = data.get("outcome")
    if outcome not in ("exact", "healed", "ambiguous"):
        raise ReplayUIError("SR_REPLAY_UI_ACTION_FAILED", "the page measurement was malformed")
    return ItemsFound(data["count"], outcome)


def field_values(data: Any, expected: int) -> tuple[FieldValue, ...]:
    if not isinstance(data, list) or len(data) != expected:
        raise ReplayUIError("SR_REPLAY_UI_ACTION_FAILED", "the page measurement was malformed")
    out = []
    for read in data:
        outcome = read.get("outcome") if isinstance(read, dict) else None
        value = read.get("value") if isinstance(read, dict) else None
        if outcome not in ("ok", "absent", "ambiguous") or not isinstance(value, str | bool | None):
            raise ReplayUIError("SR_REPLAY_UI_ACTION_FAILED", "the page measurement was malformed")
        out.append(FieldValue(outcome, value, read.get("healed") is True))
    return tuple(out)


def _candidates(data: Any) -> tuple[LocatorCandidate, ...] | None:
    """Fresh locator candidates from ``describe`` (for a heal proposal); invalid ones are dropped."""
    if not isinstance(data, list):
        return None
    found = []
    for item in data:
        try:
            found.append(LocatorCandidate.parse(item))
        except (ValidationError, ValueError, TypeError):
            continue
    return tuple(found) or None
