"""An in-memory :class:`~skillreel.replay.driving.Driver` for fast, browser-free tests: every role
(navigating, locating, acting, reading, dialogs), in that order. A test of one collaborator may use
a smaller fake serving only the role it needs (the resolver: :class:`~skillreel.replay.driving.Locating`).

A :class:`FakePage` is a list of :class:`FakeElement` (a fingerprint, the selectors that designate
it, visibility, a value). Resolution uses the same comparison and pool rule as the real page
(:func:`skillreel.locate.compare`, :func:`skillreel.locate.heal.pool`), so decisions in the
fake are the decisions ``resolve.js`` would lead to. Everything the driver does is logged in
``FakeDriver.actions``.

    page = FakePage("https://app.test/", [FakeElement(fp, selectors={"#go"})])
    driver = FakeDriver({"https://app.test/": page}, start_url="https://app.test/")
    await ReplayEngine(driver, EngineOptions(salt=SALT)).run(draft.actions, {"q": "x"})
    assert driver.actions == [("start", None), ("click", 0)]

Hooks: ``FakeElement.on_click(driver)`` (navigate, refuse a request with ``driver.deny(origin)``,
open a dialog with ``driver.open_dialog("confirm")``, change the page...), ``FakeElement.on_scroll``
(grow a lazy list; True while it grew), ``FakeElement.replaced`` (the page replaces the element
that many times before an action reaches it), ``FakeElement.swapped`` (the page swaps a field for a
copy once the input reached it), ``FakeDriver.fail_next`` (raise an error from the next
action), and ``FakeDriver.pages`` to swap what a URL shows.

Schema v2: ``FakeElement.parent`` (the index of its parent element) nests elements, so items of a
set and the fields inside them can be modelled; ``attributes`` (raw, for attribute reads) and
``labels`` (the visible labels of ``options``) complete what the page shows. Sets, fields and the
whole-token filter follow the same rules as ``locate/collect.js`` (the engine tests on the fake and
the browser tests of ``tests/integration/replay/test_graph.py`` cover the same cases): a set is the
visible elements of the first candidate that designates any, all passing the gates; failing that
(healing allowed) the gate-passing elements at or above ``HEAL_MIN`` whose identity features agree
(``Comparison.identity_agrees``) when they share one parent; a field is the one visible
gate-passing element of the first candidate inside the item, failing that the most similar element
of the item (at or above ``HEAL_MIN``, identity agreeing, ahead by ``MARGIN``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from ..errors import SkillreelError
from ..locate import heal
from ..locate.probe import CandidateHit, Observed, Probe
from ..locate.similarity import compare, similarity
from ..locate.tokens import contains_token, normalise
from ..model.locators import ElementSet, Fingerprint, LocatorBundle, LocatorCandidate
from ..model.reads import FieldSpec
from ..user_files import UploadFile
from .driving import (
    Choice,
    DialogSeen,
    FieldValue,
    ItemsFound,
    ListRead,
    PageCondition,
    Picked,
    Scope,
    SetOutcome,
    TargetCovered,
    TargetReplaced,
    Upcoming,
)
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
    parent: int | None = None
    attributes: dict[str, str] = field(default_factory=dict)
    labels: tuple[str, ...] = ()  # the visible labels of ``options``, in the same order
    on_scroll: Callable[[FakeDriver], bool] | None = None
    # how many more times the page replaces this element before an action reaches it (the action
    # raises TargetReplaced, nothing done, as the real driver's does; logged as "replaced")
    replaced: int = 0
    # how many more clicks the guard refuses (the page covered the element under the pointer): the
    # click does nothing and the next page_state raises TargetCovered, as the real driver's call
    # does; logged as "covered"
    covered: int = 0
    # the page swaps the field for a copy once an input reached it: the node typed into has left the
    # page (page_state's verify says None); the copy, found again, is this element
    swapped: bool = False


@dataclass
class FakePage:
    url: str
    elements: list[FakeElement] = field(default_factory=list)
    status: int | None = 200  # the HTTP status its document answered
    changing: bool = False  # still loading or changing (PageCondition)


class FakeDriver:
    def __init__(self, pages: Mapping[str, FakePage], *, start_url: str) -> None:
        self.pages = dict(pages)
        self.start_url = start_url
        self.page = FakePage("about:blank")
        self.actions: list[tuple[str, int | None]] = []
        self._refused = False  # a click the guard refused: the next page_state raises TargetCovered
        self.denied: list[str] = []
        self.fail_next: SkillreelError | None = None
        self.settled: list[int] = []
        self.drained = 0
        self.prefetched: list[Upcoming] = []  # what page_state was asked to measure for next
        # what enter_item was asked to measure in the item (loop, index, the body's first target)
        self.entry_probes: list[tuple[str, int, LocatorBundle]] = []
        self._probe_seq = 0
        self._picked: int | None = None
        self._picker = 0  # the picker whose list open_picker opened
        self._items: dict[str, tuple[list[FakeElement], ElementSet, str | None, Scope | None]] = {}
        self._current: dict[str, FakeElement] = {}
        self._armed: tuple[bool, str | None, str | None] | None = None
        self._seen: DialogSeen | None = None
        self.dialogs: list[tuple[str, bool, str | None]] = []  # (kind, accepted, prompt text)

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

    def _target(self, picked: Picked) -> tuple[int, FakeElement]:
        """The element an action is for; raises TargetReplaced while the page still replaces it."""
        index, e = self._element(picked)
        if e.replaced > 0:
            e.replaced -= 1
            self.actions.append(("replaced", index))
            raise TargetReplaced
        return index, e

    def open_dialog(self, kind: str) -> None:
        """What the page does when it calls alert/confirm/prompt: the armed answer, or dismissed."""
        armed = self._armed
        if armed is not None and armed[2] in (None, kind):
            accept, text, _ = armed
            self.dialogs.append((kind, accept, text if accept and kind == "prompt" else None))
            self._seen = DialogSeen(kind, True)
        else:
            self.dialogs.append((kind, False, None))
            if armed is not None:
                self._seen = DialogSeen(kind, False)

    # ---- the element tree (schema v2) ------------------------------------------------------------

    def _inside(self, index: int, root: int | None) -> bool:
        """Whether element ``index`` is a descendant of element ``root`` (None: the document)."""
        if root is None:
            return True
        seen = 0
        parent = self.page.elements[index].parent
        while parent is not None and seen < len(self.page.elements):
            if parent == root:
                return True
            parent = self.page.elements[parent].parent
            seen += 1
        return False

    def _root(self, within: Scope | None) -> int | None:
        if within is None:
            return None
        current = self._current.get(within.loop)
        if current is None or current not in self.page.elements:
            return -1  # the item is gone: nothing is inside it
        return self.page.elements.index(current)

    def _scoped(self, root: int | None) -> list[int]:
        if root == -1:
            return []
        return [i for i in range(len(self.page.elements)) if self._inside(i, root)]

    def _set(
        self, candidates: Sequence[LocatorCandidate], rec: Fingerprint, root: int | None, allow_heal: bool
    ) -> tuple[list[int], SetOutcome]:
        """The set rule of the module docstring (twin of ``collect.js``)."""
        elements = self.page.elements
        scoped = self._scoped(root)
        for candidate in candidates:
            found = [i for i in scoped if candidate.selector in elements[i].selectors and elements[i].visible]
            if found and all(compare(rec, elements[i].fingerprint).gates for i in found):
                return found, "exact"
        if not allow_heal:
            return [], "exact"
        similar = [
            i
            for i in scoped
            if elements[i].visible
            and (c := compare(rec, elements[i].fingerprint)).gates
            and c.identity_agrees()
            and similarity(rec, c) >= heal.HEAL_MIN
        ]
        parents = {elements[i].parent for i in similar}
        if len(parents) > 1:
            return [], "ambiguous"
        return similar, ("healed" if similar else "exact")

    def _field(self, spec: FieldSpec, item: int, allow_heal: bool) -> tuple[int | None, str]:
        """The element of one field inside an item: (index, "ok" | "absent" | "ambiguous")."""
        if spec.target is None:
            return item, "ok"
        elements = self.page.elements
        rec = spec.target.fingerprint
        inside = [i for i in self._scoped(item) if elements[i].visible]
        for candidate in spec.target.candidates:
            found = [i for i in inside if candidate.selector in elements[i].selectors]
            if len(found) == 1 and compare(rec, elements[found[0]].fingerprint).gates:
                return found[0], "ok"
        if not allow_heal:
            return None, "absent"
        scored = sorted(
            (
                (similarity(rec, c), i, c.identity_agrees())
                for i in inside
                if (c := compare(rec, elements[i].fingerprint)).gates
            ),
            reverse=True,
        )
        if not scored or scored[0][0] < heal.HEAL_MIN or not scored[0][2]:
            return None, "absent"
        if len(scored) > 1 and scored[1][0] > scored[0][0] - heal.MARGIN:
            return None, "ambiguous"
        return scored[0][1], "healed"

    def _read(self, index: int, read: str, attribute: str | None) -> str | bool | None:
        e = self.page.elements[index]
        if read == "presence":
            return True
        if read == "value":
            return e.value
        if read == "attribute":
            return e.attributes.get(attribute or "")
        return e.text

    def _reads(self, fields: Sequence[FieldSpec], item: int, allow_heal: bool) -> tuple[FieldValue, ...]:
        out = []
        for spec in fields:
            index, outcome = self._field(spec, item, allow_heal)
            if index is None:
                out.append(FieldValue("ambiguous" if outcome == "ambiguous" else "absent"))
            else:
                out.append(
                    FieldValue("ok", self._read(index, spec.read, spec.attribute), outcome == "healed")
                )
        return tuple(out)

    # ---- Navigating ----------------------------------------------------------------------------

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

    async def settle(self, settle_ms: int, *, timeout_ms: int) -> None:
        self.settled.append(settle_ms)

    async def drain(self) -> None:
        self.drained += 1

    async def condition(self, *, measured: bool = True) -> PageCondition:
        return PageCondition(status=self.page.status, changing=self.page.changing)

    def network_mark(self) -> int:
        return len(self.denied)

    def network_denied_since(self, mark: int) -> tuple[str, ...]:
        return tuple(sorted(set(self.denied[mark:])))

    # ---- Locating ------------------------------------------------------------------------------

    async def probe(self, bundle: LocatorBundle, *, salt: str, within: Scope | None = None) -> Probe:
        rec = bundle.fingerprint
        elements = self.page.elements
        scoped = set(self._scoped(self._root(within)))
        hits = []
        for rank, candidate in enumerate(bundle.candidates):
            found = [i for i, e in enumerate(elements) if candidate.selector in e.selectors and i in scoped]
            visible = [i for i in found if elements[i].visible]
            hits.append(
                CandidateHit(rank, len(found), len(visible), visible[0] if len(visible) == 1 else None)
            )
        observed = {
            i: Observed(i, e.visible, compare(rec, e.fingerprint))
            for i, e in enumerate(elements)
            if i in scoped
        }
        self._probe_seq += 1
        pool = heal.pool(rec, observed)
        return Probe(str(self._probe_seq), tuple(hits), observed, pool, len(elements))

    async def pick(
        self, probe: Probe, element: int, *, salt: str, describe: bool, hide: Sequence[str] = ()
    ) -> Picked | None:
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
        texts = " ".join((e.text, *e.attributes.values(), *e.labels)).lower()
        echoes = describe and any(h and h.lower() in texts for h in hide)
        return Picked(str(element), e.fingerprint, candidates, echoes=echoes)

    async def release(self) -> None:
        self._picked = None

    async def choose(
        self, bundle: LocatorBundle, token: str, *, salt: str, within: Scope | None, allow_heal: bool
    ) -> Choice:
        kept, healed, many = self._chosen(bundle, token, self._root(within), allow_heal)
        if many or len(kept) > 1:
            return Choice("many")
        if not kept:
            return Choice("none")
        self._picked = kept[0]
        return Choice("one", Picked(str(kept[0]), self.page.elements[kept[0]].fingerprint), healed)

    def _chosen(
        self, bundle: LocatorBundle, token: str, root: int | None, allow_heal: bool
    ) -> tuple[list[int], bool, bool]:
        """Twin of collect.js ``chosenElements`` / ``rowElements``: (elements, healed, ambiguous)."""
        holds = [
            i for i in range(len(self.page.elements)) if contains_token(self.page.elements[i].text, token)
        ]
        if bundle.row is not None:
            rows, outcome = self._set(bundle.row.candidates, bundle.row.fingerprint, root, allow_heal)
            kept = [i for i in rows if i in holds]
            if outcome == "ambiguous" or len(kept) != 1:
                return [], False, outcome == "ambiguous" or len(kept) > 1
            spec = FieldSpec(name="target", target=bundle.model_copy(update={"row": None, "filter": None}))
            element, how = self._field(spec, kept[0], allow_heal)
            found = [] if element is None else [element]
            return found, outcome == "healed" or how == "healed", how == "ambiguous"
        found, outcome = self._set(bundle.candidates, bundle.fingerprint, root, allow_heal)
        if outcome == "ambiguous":
            return [], False, True
        if not found and allow_heal and bundle.fingerprint.role is not None:  # the like set is gone
            role = bundle.fingerprint.role
            found = [
                i
                for i in self._scoped(root)
                if self.page.elements[i].visible and self.page.elements[i].fingerprint.role == role
            ]
            return [i for i in found if i in holds], True, False
        return [i for i in found if i in holds], outcome == "healed", False

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
        found, outcome = self._set(items.candidates, items.fingerprint, self._root(within), allow_heal)
        if token is not None:
            found = [i for i in found if contains_token(self.page.elements[i].text, token)]
        if mark:
            self._items[loop] = ([self.page.elements[i] for i in found], items, token, within)
        return ItemsFound(len(found), outcome)

    async def item(self, loop: str, index: int) -> bool:
        opened = self._items.get(loop)
        if opened is None or index >= len(opened[0]):
            return False
        elements, items, token, within = opened
        if elements[index] in self.page.elements:
            self._current[loop] = elements[index]
            return True
        again = await self.open_items(items, salt="", loop=loop, token=token, within=within, allow_heal=True)
        if again.count != len(elements):
            return False
        self._current[loop] = self._items[loop][0][index]
        return True

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
        if probe is not None:
            self.entry_probes.append((loop, index, probe))
        if not await self.item(loop, index):
            return None
        return await self.read_fields(fields, salt=salt, within=Scope(loop, index), allow_heal=allow_heal)

    async def close_items(self, loop: str) -> None:
        self._items.pop(loop, None)
        self._current.pop(loop, None)

    # ---- Acting --------------------------------------------------------------------------------

    async def click(self, picked: Picked, *, timeout_ms: int) -> None:
        index, e = self._target(picked)
        if e.covered > 0:
            e.covered -= 1
            self.actions.append(("covered", index))
            self._refused = True
            return
        self._act("click", index)
        e.clicks += 1
        if e.on_click is not None:
            e.on_click(self)

    async def fill(self, picked: Picked, value: str, *, timeout_ms: int) -> None:
        index, e = self._target(picked)
        self._act("fill", index)
        e.value = e.transform(value) if e.transform else value

    async def select(
        self,
        picked: Picked,
        value: str,
        *,
        timeout_ms: int,
        by_label: bool = False,
        allowed: Sequence[str] | None = None,
    ) -> str | None:
        index, e = self._target(picked)
        if by_label:
            matches = [
                o
                for o, label in zip(e.options, e.labels, strict=False)
                if normalise(label) == normalise(value)
            ]
            if len(matches) != 1:
                return None
            value = matches[0]
        if value not in e.options or (allowed is not None and value not in allowed):
            return None
        self._act("select", index)
        e.value = value
        return value

    async def open_picker(self, picked: Picked, name: str, *, timeout_ms: int) -> tuple[str, ...] | None:
        """A picker is an element whose ``labels`` are the names of its list's enabled options
        (none: no list opens); choosing sets its ``value`` to the name (logged "open", "choose",
        "close")."""
        index, e = self._target(picked)
        self._act("open", index)
        self._picker = index
        return tuple(" ".join(label.split()) for label in e.labels) or None

    async def pick_option(self, index: int, name: str, *, timeout_ms: int) -> bool:
        e = self.page.elements[self._picker]
        self._act("choose", self._picker)
        e.value = " ".join(e.labels[index].split())
        return name in e.value

    async def close_picker(self, *, timeout_ms: int) -> None:
        self._act("close", self._picker)

    async def press(self, picked: Picked | None, key: str, *, timeout_ms: int) -> None:
        self._act("press", self._target(picked)[0] if picked is not None else None)

    async def scroll(
        self, picked: Picked, to: str, *, max_rounds: int, settle_ms: int, timeout_ms: int
    ) -> int:
        index, e = self._element(picked)
        self._act("scroll", index)
        if to != "end" or e.on_scroll is None:
            return 0
        rounds = 0
        while rounds < max_rounds and e.on_scroll(self):
            rounds += 1
        return rounds

    async def hover(self, picked: Picked, *, timeout_ms: int) -> None:
        self._act("hover", self._target(picked)[0])

    async def set_file(self, picked: Picked, upload: UploadFile, *, timeout_ms: int) -> None:
        index, e = self._target(picked)
        self._act("upload", index)
        e.value = f"{len(upload.data)} bytes"

    # ---- Reading -------------------------------------------------------------------------------

    async def check(self, picked: Picked, check: str, expected: str | int | None) -> bool:
        e = self._element(picked)[1]
        if check == "text_equals":
            return e.text == expected
        if check == "text_contains":
            return isinstance(expected, str) and expected in e.text
        if check == "value_equals":
            return e.value == expected
        if check == "not_empty":
            return bool(e.text.strip() or (e.value or "").strip())
        return check == "visible" and e.visible

    async def count(self, candidate: LocatorCandidate, *, salt: str) -> int:
        return sum(1 for e in self.page.elements if candidate.selector in e.selectors)

    async def read(self, picked: Picked, read: str, attribute: str | None) -> str | None:
        index, _ = self._element(picked)
        value = self._read(index, read, attribute)
        return None if value is None else str(value)

    async def read_fields(
        self, fields: Sequence[FieldSpec], *, salt: str, within: Scope, allow_heal: bool
    ) -> tuple[FieldValue, ...]:
        item = self._root(within)
        if item is None or item == -1:
            return tuple(FieldValue("absent") for _ in fields)
        return self._reads(fields, item, allow_heal)

    async def read_list(
        self,
        items: ElementSet,
        fields: Sequence[FieldSpec],
        *,
        salt: str,
        token: str | None,
        limit: int,
        within: Scope | None,
        allow_heal: bool,
    ) -> ListRead:
        found, outcome = self._set(items.candidates, items.fingerprint, self._root(within), allow_heal)
        if token is not None:
            found = [i for i in found if contains_token(self.page.elements[i].text, token)]
        rows = tuple(self._reads(fields, i, allow_heal) for i in found[:limit])
        return ListRead(len(found), rows, outcome)

    async def page_state(
        self, *, salt: str, text: bool, verify: str | None = None, prefetch: Upcoming | None = None
    ) -> PageSummary:
        if self._refused:
            self._refused = False
            raise TargetCovered
        if prefetch is not None:
            self.prefetched.append(prefetch)
        verified = None
        if verify is not None:
            picked = self._picked
            gone = picked is not None and self.page.elements[picked].swapped
            verified = None if gone else picked is not None and self.page.elements[picked].value == verify
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

    # ---- Dialogs -------------------------------------------------------------------------------

    async def arm_dialog(self, *, accept: bool, text: str | None, expects: str | None) -> None:
        self._armed = (accept, text, expects)
        self._seen = None

    async def dialog_seen(self) -> DialogSeen | None:
        return self._seen

    async def disarm_dialog(self) -> None:
        self._armed = None
        self._seen = None
