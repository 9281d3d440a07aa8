"""An in-memory :class:`~skillreel.replay.engine.Driver` for fast, browser-free tests.

A :class:`FakePage` is a list of :class:`FakeElement` (a fingerprint, the selectors that designate
it, visibility, a value). Resolution uses the same comparison and pool rule as the real page
(:func:`skillreel.locate.heal.compare`, :func:`skillreel.locate.heal.pool`), so decisions in the
fake are the decisions ``resolve.js`` would lead to. Everything the driver does is logged in
``FakeDriver.actions``.

    page = FakePage("https://app.test/", [FakeElement(fp, selectors={"#go"})])
    driver = FakeDriver({"https://app.test/": page}, start_url="https://app.test/")
    await ReplayEngine(driver, EngineOptions(salt=SALT)).run(draft.actions, {"q": "x"})
    assert driver.actions == [("start", None), ("click", 0)]

Hooks: ``FakeElement.on_click(driver)`` (navigate, refuse a request with ``driver.deny(origin)``,
change the page...), ``FakeDriver.fail_next`` (raise an error from the next action), and
``FakeDriver.pages`` to swap what a URL shows.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ..errors import SkillreelError
from ..locate import heal
from ..model.locators import Fingerprint, LocatorBundle, LocatorCandidate
from .engine import Picked
from .evidence import PageSummary


@dataclass
class FakeElement:
    fingerprint: Fingerprint
    selectors: frozenset[str] | set[str] = field(default_factory=frozenset)
    visible: bool = True
    value: str = ""
    options: tuple[str, ...] = ()
    text: str = ""
    candidates: tuple[LocatorCandidate, ...] = ()
    on_click: Callable[[FakeDriver], None] | None = None
    transform: Callable[[str], str] | None = None  # what the page does to a typed value
    clicks: int = 0


@dataclass
class FakePage:
    url: str
    elements: list[FakeElement] = field(default_factory=list)


class FakeDriver:
    def __init__(self, pages: Mapping[str, FakePage], *, start_url: str) -> None:
        self.pages = dict(pages)
        self.start_url = start_url
        self.page = FakePage("about:blank")
        self.actions: list[tuple[str, int | None]] = []
        self.denied: list[str] = []
        self.fail_next: SkillreelError | None = None
        self.settled: list[int] = []
        self._probe_seq = 0
        self._picked: int | None = None

    # ---- helpers for tests ---------------------------------------------------------------------

    def deny(self, origin: str) -> None:
        """Record a refused request, as the network ledger would."""
        self.denied.append(origin)

    def show(self, url: str) -> None:
        self.page = self.pages[url]

    def _act(self, name: str, element: int | None = None) -> None:
        if self.fail_next is not None:
            error, self.fail_next = self.fail_next, None
            raise error
        self.actions.append((name, element))

    def _element(self, picked: Picked) -> tuple[int, FakeElement]:
        index = int(picked.token)
        return index, self.page.elements[index]

    # ---- Driver ----------------------------------------------------------------------------------

    async def start(self, *, timeout_ms: int) -> None:
        self._act("start")
        self.show(self.start_url)

    async def goto(self, url: str, *, timeout_ms: int) -> None:
        self._act("goto")
        self.show(url)

    async def reload(self, *, timeout_ms: int) -> None:
        self._act("reload")

    async def current_url(self) -> str:
        return self.page.url

    async def probe(self, bundle: LocatorBundle, *, salt: str) -> heal.Probe:
        rec = bundle.fingerprint
        elements = self.page.elements
        hits = []
        for rank, candidate in enumerate(bundle.candidates):
            found = [i for i, e in enumerate(elements) if candidate.selector in e.selectors]
            visible = [i for i in found if elements[i].visible]
            hits.append(
                heal.CandidateHit(rank, len(found), len(visible), visible[0] if len(visible) == 1 else None)
            )
        observed = {
            i: heal.Observed(i, e.visible, heal.compare(rec, e.fingerprint)) for i, e in enumerate(elements)
        }
        self._probe_seq += 1
        pool = heal.pool(rec, observed)
        return heal.Probe(str(self._probe_seq), tuple(hits), observed, pool, len(elements))

    async def pick(self, probe: heal.Probe, element: int, *, salt: str, describe: bool) -> Picked | None:
        if probe.token != str(self._probe_seq) or element >= len(self.page.elements):
            return None
        e = self.page.elements[element]
        if not e.visible:
            return None
        self._picked = element
        candidates = (
            (e.candidates or (LocatorCandidate(strategy="css", selector=f"fake:{element}", match_count=1),))
            if describe
            else None
        )
        return Picked(str(element), e.fingerprint, candidates)

    async def release(self) -> None:
        self._picked = None

    async def click(self, picked: Picked, *, timeout_ms: int) -> None:
        index, e = self._element(picked)
        self._act("click", index)
        e.clicks += 1
        if e.on_click is not None:
            e.on_click(self)

    async def fill(self, picked: Picked, value: str, *, timeout_ms: int) -> None:
        index, e = self._element(picked)
        self._act("fill", index)
        e.value = e.transform(value) if e.transform else value

    async def select(self, picked: Picked, value: str, *, timeout_ms: int) -> bool:
        index, e = self._element(picked)
        if value not in e.options:
            return False
        self._act("select", index)
        e.value = value
        return True

    async def press(self, picked: Picked | None, key: str, *, timeout_ms: int) -> None:
        self._act("press", self._element(picked)[0] if picked is not None else None)

    async def check(self, picked: Picked, check: str, expected: str | int | None) -> bool:
        e = self._element(picked)[1]
        if check == "text_equals":
            return e.text == expected
        if check == "text_contains":
            return isinstance(expected, str) and expected in e.text
        if check == "value_equals":
            return e.value == expected
        return check == "visible" and e.visible

    async def count(self, candidate: LocatorCandidate, *, salt: str) -> int:
        return sum(1 for e in self.page.elements if candidate.selector in e.selectors)

    async def page_state(self, *, salt: str, text: bool, verify: str | None = None) -> PageSummary:
        verified = None
        if verify is not None:
            picked = self._picked
            verified = picked is not None and self.page.elements[picked].value == verify
        self._picked = None
        tags = " ".join(e.fingerprint.tag for e in self.page.elements)
        texts = "\0".join(e.text for e in self.page.elements)
        return PageSummary(
            elements=len(self.page.elements),
            structure=hashlib.sha256(tags.encode()).hexdigest(),
            text=hashlib.sha256((salt + "\0" + texts).encode()).hexdigest() if text else None,
            verified=verified,
        )

    async def screenshot(self, *, timeout_ms: int) -> bytes:
        return b"\x89PNG fake " + str(len(self.page.elements)).encode()

    async def settle(self, settle_ms: int, *, timeout_ms: int) -> None:
        self.settled.append(settle_ms)

    def network_mark(self) -> int:
        return len(self.denied)

    def network_denied_since(self, mark: int) -> tuple[str, ...]:
        return tuple(sorted(set(self.denied[mark:])))
