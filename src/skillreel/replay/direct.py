"""Direct action: trusted input sent straight over CDP to the element the replay located.

The call that located the element (a probe, a pick, a choice: ``World.call(..., aim=True)``) also
measured where to click it (``aim.js``: the centre of its first client rect that shows in the
viewport, in CSS pixels of the top frame's viewport) and hit-tested that point, and armed a guard
on the element in our isolated world. A click is then ``Input.dispatchMouseEvent`` (moved, pressed,
released) at that point on the driver's own CDP session; typing focuses the field and selects its
text in our world as Playwright's ``fill`` does, then ``Input.insertText`` (the page gets trusted
``beforeinput``/``input`` events); a key press focuses the element, then ``Input.dispatchKeyEvent``
(down, up) with the key's description as Playwright's keyboard sends it.

The guard refuses a trusted press whose target is not the element or inside it (the page changed
under the pointer since it was measured): the page never sees that gesture, and the next call into
our world raises :class:`~skillreel.replay.driving.TargetCovered`, so the step locates its target
again (``steps.acting.act_on``); a guard refusal is never a wrong click.

:meth:`DirectInput.point` says why a click cannot be direct (the driver then uses Playwright's own
action, which checks actionability itself): the point or the hit test failed, the element lives in
a child frame, it is a ``<select>`` or a file input, it is disabled (Playwright waits for it), our
world reached the document late (a page's capture listener could see the press first), the guard
refused a press of this step before; an element outside the viewport is scrolled into view and
measured once more first. :data:`ACTIONS` counts direct actions and fallbacks by reason, for
benches (no content in it).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any, Final

from .driving import Picked
from .world import World

# Direct actions and fallbacks of this process, by kind and reason ("direct:click",
# "fallback:click:covered", "playwright:select"): a debug counter a bench reads; no content.
ACTIONS: Final[Counter[str]] = Counter()

# The keys a press step sends (model.actions.PressAction), as Playwright's keyboard describes them.
KEYS: Final[dict[str, dict[str, Any]]] = {
    "Enter": {"key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "text": "\r"},
    "Tab": {"key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9},
    "Escape": {"key": "Escape", "code": "Escape", "windowsVirtualKeyCode": 27},
}
SCROLL: Final = "aim.scroll"
FOCUS: Final = "aim.focus"


class DirectInput:
    """Trusted input over the CDP session of ``world`` (the driver's own)."""

    def __init__(self, world: World) -> None:
        self._world = world

    async def point(self, picked: Picked) -> tuple[float, float] | str:
        """Where to click ``picked`` (measured by the call that marked it, nothing called since),
        or why not (a reason word: the driver falls back to Playwright's click)."""
        world = self._world
        aim = world.aim
        if world.refused:  # a press of this step was refused: Playwright's checks this time
            world.refused = False
            return "refused"
        if aim is None or aim.get("nonce") != picked.token:
            return "unaimed"
        if aim.get("why") == "outside":  # scrolled into view, measured once more
            await world.call(SCROLL, {"nonce": picked.token}, aim=True)
            aim = world.aim
            if aim is None or aim.get("nonce") != picked.token:
                return "unaimed"
        x, y = aim.get("x"), aim.get("y")
        if aim.get("ok") is not True or not isinstance(x, int | float) or not isinstance(y, int | float):
            return str(aim.get("why") or "unaimed")
        return float(x), float(y)

    async def click(self, x: float, y: float) -> None:
        """Move, press and release the left button at ``(x, y)`` (the three sent at once: the
        browser delivers them in order)."""
        cdp = await self._world.session()
        at = {"x": x, "y": y, "modifiers": 0}
        await asyncio.gather(
            cdp.send(
                "Input.dispatchMouseEvent", {**at, "type": "mouseMoved", "button": "none", "buttons": 0}
            ),
            cdp.send(
                "Input.dispatchMouseEvent",
                {**at, "type": "mousePressed", "button": "left", "buttons": 1, "clickCount": 1},
            ),
            cdp.send(
                "Input.dispatchMouseEvent",
                {**at, "type": "mouseReleased", "button": "left", "buttons": 0, "clickCount": 1},
            ),
        )

    async def focus(self, picked: Picked, *, fill: bool, framed: bool) -> str | None:
        """The action begins: focus the element ``picked`` (``fill``: select its text for typing);
        None when done, else why not (``"replaced"``: it left the page, nothing was done;
        otherwise the driver falls back). ``framed``: it lives in a child frame (not done here)."""
        if framed:
            return "framed"
        self._world.action_begins()
        if picked.token in self._world.replaced:
            return "replaced"
        data = await self._world.call(FOCUS, {"nonce": picked.token, "fill": fill})
        if not isinstance(data, dict):
            return "unaimed"
        return None if data.get("ok") is True else str(data.get("why") or "unaimed")

    async def insert(self, text: str) -> None:
        cdp = await self._world.session()
        await cdp.send("Input.insertText", {"text": text})

    async def key(self, key: str) -> None:
        """Key down and up, as Playwright's keyboard sends ``key`` (one of :data:`KEYS`)."""
        described = KEYS[key]
        text = described.get("text")
        down = {
            **described,
            "type": "keyDown" if text else "rawKeyDown",
            "modifiers": 0,
            "unmodifiedText": text,
            "autoRepeat": False,
            "location": 0,
            "isKeypad": False,
        }
        if not text:
            down.pop("unmodifiedText")
        up = {k: v for k, v in described.items() if k != "text"} | {
            "type": "keyUp",
            "modifiers": 0,
            "location": 0,
        }
        cdp = await self._world.session()
        await asyncio.gather(cdp.send("Input.dispatchKeyEvent", down), cdp.send("Input.dispatchKeyEvent", up))
