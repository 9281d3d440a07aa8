"""What the replay engine and its drivers share: the :class:`Driver` protocol and the plain records
that cross it. ``Driver`` is the union of role protocols (:class:`Navigating`, :class:`Locating`,
:class:`Acting`, :class:`Reading`, :class:`Dialogs`): a collaborator or a test fake names only the
roles it needs. ``PlaywrightDriver`` (``replay/driver.py``) drives Chromium; ``FakeDriver``
(``replay/fake.py``) is an in-memory page for fast engine tests.

Nothing read from the page crosses this protocol into anything that is stored: the values of
``read``, ``read_fields`` and ``read_list`` become the caller's outputs, and only their names,
types and counts reach evidence.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from ..errors import ReplayUIError, SkillreelError
from ..locate.probe import Probe
from ..model.actions import Action
from ..model.locators import ElementSet, Fingerprint, LocatorBundle, LocatorCandidate
from ..model.reads import FieldSpec
from ..model.report import Evidence
from ..model.urls import V1_RULE, QueryRule
from ..user_files import UploadFile
from .evidence import PageSummary


@dataclass(frozen=True)
class Picked:
    """The element a step acts on, marked in the page; its fingerprint as it is now, and (when
    the step healed) its fresh locator candidates for the heal proposal."""

    token: str
    fingerprint: Fingerprint
    candidates: tuple[LocatorCandidate, ...] | None = None
    # a text of the element (its name, text, an attribute, a label) holds a value the replay was
    # asked to hide (``pick(hide=...)``): its text hashes must not go into a heal proposal
    echoes: bool = False


@dataclass(frozen=True)
class Scope:
    """The current item of a loop: targets marked ``within: "item"`` resolve inside it."""

    loop: str
    index: int


@dataclass(frozen=True)
class ItemAhead:
    """What a loop's next iteration begins with, for the page summary of the step that ends the
    current one to measure ahead (:meth:`Driver.page_state`): entering item ``index`` of ``loop``
    and reading its ``fields``, and probing ``probe`` (the body's first target, predicted; inside
    the item when it is ``within: "item"``)."""

    loop: str
    index: int
    fields: tuple[FieldSpec, ...]
    allow_heal: bool
    probe: LocatorBundle | None = None


# What the step after the current one measures first, for the current step's page summary to
# measure ahead: a document-level target, or the next loop item (see ItemAhead).
Upcoming = LocatorBundle | ItemAhead


SetOutcome = Literal["exact", "healed", "ambiguous"]


@dataclass(frozen=True)
class Choice:
    """A target chosen by a whole-token text filter: ``one`` (then ``picked``), ``none`` or ``many``."""

    outcome: Literal["one", "none", "many"]
    picked: Picked | None = None
    healed: bool = False


@dataclass(frozen=True)
class ItemsFound:
    """A repeating structure on the page: how many items (after the filter) and how it was found
    (``exact``: a ranked candidate; ``healed``: by structure; ``ambiguous``: two structures)."""

    count: int
    outcome: SetOutcome = "exact"


@dataclass(frozen=True)
class FieldValue:
    """One field read from one item: the raw text (``value``/``text``/``attribute`` reads; None
    when the attribute is absent) or a presence; ``absent`` when the item has no such element."""

    outcome: Literal["ok", "absent", "ambiguous"]
    value: str | bool | None = None
    healed: bool = False


@dataclass(frozen=True)
class ListRead:
    """A list extraction: ``total`` items on the page (after the filter); ``rows`` holds the first
    ``limit`` of them, one :class:`FieldValue` per field."""

    total: int
    rows: tuple[tuple[FieldValue, ...], ...]
    outcome: SetOutcome = "exact"


@dataclass(frozen=True)
class DialogSeen:
    """The dialog an armed answer met: its kind, and whether it was the kind expected (a dialog of
    another kind is dismissed, whatever the armed answer)."""

    kind: str
    answered: bool


@dataclass(frozen=True)
class PageCondition:
    """What the page was like when a step gave up on it (a wait that did not hold, a target not
    found): the HTTP status its document answered (None when not known) and whether it was still
    loading or changing (``replay/steps/checking.py`` says which from these)."""

    status: int | None
    changing: bool

    def http_error(self, what: str, action_id: str) -> ReplayUIError | None:
        """``SR_REPLAY_UI_HTTP_ERROR`` when the document answered status 400 or above: ``what``
        happened there; the status in the message and in the details (``httpStatus``)."""
        if self.status is None or self.status < 400:
            return None
        return ReplayUIError(
            "SR_REPLAY_UI_HTTP_ERROR",
            f"{what}: the page answered HTTP {self.status}",
            action_id=action_id,
            details={"httpStatus": self.status},
        )

    def stamp(self, error: SkillreelError) -> None:
        """Name the document's HTTP error status (400 or above) in any step's failure that does not
        already: ``httpStatus`` in its details and ``the page answered HTTP N`` in its message, so a
        failed assertion or read on an error page says what the page was (a number only)."""
        if self.status is None or self.status < 400 or "httpStatus" in error.details:
            return
        error.details["httpStatus"] = self.status
        error.message = f"{error.message} (the page answered HTTP {self.status})"
        error.args = (f"{error.code}: {error.message}",)


class Navigating(Protocol):
    """The page as a whole: loading it, waiting for it to settle, and the network ledger."""

    async def start(self, *, timeout_ms: int) -> None: ...
    async def goto(self, url: str, *, timeout_ms: int) -> None: ...
    async def reload(self, *, timeout_ms: int) -> None: ...
    async def current_url(self) -> str: ...
    async def settle(self, settle_ms: int, *, timeout_ms: int) -> None: ...
    async def drain(self) -> None:
        """Before the replay ends: when the last action settled but the page was not measured
        since (a navigation as the last step), one round trip to the page, then wait for what it
        shows the page had started (replay/settling.py), within that action's deadline."""
        ...

    def network_mark(self) -> int: ...
    def network_denied_since(self, mark: int) -> tuple[str, ...]: ...


class Locating(Protocol):
    """Finding elements: measuring a target, marking the element chosen, loop items."""

    async def probe(self, bundle: LocatorBundle, *, salt: str, within: Scope | None = None) -> Probe: ...
    async def pick(
        self, probe: Probe, element: int, *, salt: str, describe: bool, hide: Sequence[str] = ()
    ) -> Picked | None: ...
    async def release(self) -> None: ...
    async def condition(self, *, measured: bool = True) -> PageCondition:
        """The page as a step that gave up on it saw it (:class:`PageCondition`); never raises.
        ``measured=False``: without a call into the page (whether its DOM still changes is not
        asked; the status and its loading are known without one)."""
        ...

    async def choose(
        self, bundle: LocatorBundle, token: str, *, salt: str, within: Scope | None, allow_heal: bool
    ) -> Choice:
        """The one element of the set ``bundle`` designates whose text holds ``token`` as a whole
        token, marked like :meth:`pick` does; the page's text never leaves it."""
        ...

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
        """Find the items (those holding ``token`` when given) and, with ``mark``, mark them for
        :meth:`item` under ``loop``."""
        ...

    async def item(self, loop: str, index: int) -> bool:
        """Make item ``index`` of ``loop`` current: its mark, else (a re-rendered or reloaded list)
        the item at that position when the list has as many items as when it was opened."""
        ...

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
        """:meth:`item`, then :meth:`read_fields` of that item (a loop's fields, read as each
        iteration begins), in one round trip when the item is still where it was; None when it is
        gone. With ``probe`` (the body's first target, predicted), the driver may measure it in the
        same call, inside the item when it is ``within: "item"`` (served like a page summary's
        measurement ahead)."""
        ...

    async def close_items(self, loop: str) -> None:
        """Remove the marks of ``loop``; never raises."""
        ...


class Acting(Protocol):
    """Input on a picked element. ``click``, ``fill``, ``select`` and ``press`` raise
    :class:`TargetReplaced` when the page replaced that element before any input reached it
    (nothing was done)."""

    async def click(self, picked: Picked, *, timeout_ms: int) -> None: ...
    async def fill(self, picked: Picked, value: str, *, timeout_ms: int) -> None: ...
    async def select(
        self,
        picked: Picked,
        value: str,
        *,
        timeout_ms: int,
        by_label: bool = False,
        allowed: Sequence[str] | None = None,
    ) -> str | None:
        """Choose the enabled option whose value (or, ``by_label``, whose visible label: exactly one)
        is ``value``; the value chosen, or None when there is no such option or its value is not
        one of ``allowed`` (then nothing is chosen)."""
        ...

    async def open_picker(self, picked: Picked, name: str, *, timeout_ms: int) -> tuple[str, ...] | None:
        """Click the combobox ``picked`` (a searchable one then gets ``name`` typed, to filter its
        list) and wait for the listbox it opens: the accessible names of its enabled options in
        page order (white space collapsed), or None when no list opened. Raises
        :class:`TargetReplaced` as :meth:`click` does."""
        ...

    async def pick_option(self, index: int, name: str, *, timeout_ms: int) -> bool:
        """Click option ``index`` of the list :meth:`open_picker` read once it is stable; whether
        the combobox then shows ``name``."""
        ...

    async def close_picker(self, *, timeout_ms: int) -> None:
        """Close the open list without choosing (Escape)."""
        ...

    async def press(self, picked: Picked | None, key: str, *, timeout_ms: int) -> None: ...
    async def scroll(
        self, picked: Picked, to: str, *, max_rounds: int, settle_ms: int, timeout_ms: int
    ) -> int:
        """Scroll into view, or to the end while the element grows; the rounds it took."""
        ...

    async def hover(self, picked: Picked, *, timeout_ms: int) -> None:
        """Rest the pointer on the element (issue 32); raises :class:`TargetReplaced` as :meth:`click`."""
        ...

    async def set_file(self, picked: Picked, upload: UploadFile, *, timeout_ms: int) -> None:
        """Set the file input to the one file ``upload`` (issue 32); raises :class:`TargetReplaced`
        as :meth:`click`. Its name and content reach the page only."""
        ...


class Reading(Protocol):
    """What the page holds: checks, counts, reads, content-free summaries, screenshots."""

    async def check(self, picked: Picked, check: str, expected: str | int | None) -> bool: ...
    async def count(self, candidate: LocatorCandidate, *, salt: str) -> int: ...
    async def read(self, picked: Picked, read: str, attribute: str | None) -> str | None:
        """The picked element's text, value or attribute (None: the attribute is absent)."""
        ...

    async def read_fields(
        self, fields: Sequence[FieldSpec], *, salt: str, within: Scope, allow_heal: bool
    ) -> tuple[FieldValue, ...]: ...
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
    ) -> ListRead: ...
    async def page_state(
        self, *, salt: str, text: bool, verify: str | None = None, prefetch: Upcoming | None = None
    ) -> PageSummary:
        """A content-free summary of the page; also removes any mark :meth:`pick` left. With
        ``verify``, first checks that the marked field's value equals it (``PageSummary.verified``).
        With ``prefetch`` (the next step's target, or the next loop item), the driver may measure
        the page for it in the same call; a :meth:`probe` of that target in the same scope (or an
        :meth:`enter_item` of that item) right after may then answer without a round trip, only
        while nothing happened on the page since."""
        ...

    async def screenshot(self, *, timeout_ms: int) -> bytes: ...


class Dialogs(Protocol):
    """Answering the dialogs a step opens."""

    async def arm_dialog(self, *, accept: bool, text: str | None, expects: str | None) -> None:
        """Answer the next dialog so (a dialog of another kind than ``expects`` is dismissed)."""
        ...

    async def dialog_seen(self) -> DialogSeen | None:
        """The dialog the armed answer met, or None while none came."""
        ...

    async def disarm_dialog(self) -> None:
        """Forget an armed answer: dialogs are dismissed again; never raises."""
        ...


class Driver(Navigating, Locating, Acting, Reading, Dialogs, Protocol):
    """What the engine needs from a browser: every role. Errors are ``SkillreelError``s, already
    translated. A fake (``replay/fake.py``) or a collaborator needs only the roles it uses
    (:class:`~skillreel.replay.resolving.Resolver`: :class:`Locating`)."""


# ---- what the engine reports ---------------------------------------------------------------------


@dataclass(frozen=True)
class StepProgress:
    index: int
    total: int
    action_id: str
    kind: str
    phase: Literal["start", "done", "failed", "skipped"]
    healed: bool = False
    code: str | None = None
    iteration: int | None = None  # the loop iteration (0-based) the step runs in


@dataclass(frozen=True)
class HumanRequest:
    """A step only a person can do; the prompt returns True once it is done, False to give up."""

    index: int
    total: int
    action_id: str
    reason: str


HumanPrompt = Callable[[HumanRequest], Awaitable[bool]]
Progress = Callable[[StepProgress], None]


@dataclass(frozen=True)
class StepRecord:
    """One step of the report: its evidence (a step that ran several times, in a loop: one
    evidence over all its runs), whether any run healed, and how many runs there were.
    ``acted``: the engine asked the browser to act in it (click, type, select, press, a navigation
    after the start, a dialog answered, a person's step), so it may have side effects."""

    action_id: str
    evidence: Evidence
    healed: bool = False
    healed_bundle: LocatorBundle | None = None
    kind: str = ""
    acted: bool = False
    runs: int = 1
    retries: int = 0  # failed tries a ``retry`` ran again (model.actions.Retry)
    matched_rank: int | None = None  # the rank of the locator that found the target, when not the first


@dataclass(frozen=True)
class FailedStep:
    """The step a run stopped at: whether it had already asked the browser to act, and healed."""

    action_id: str
    kind: str
    acted: bool
    healed: bool


@dataclass(frozen=True)
class EngineOptions:
    salt: str
    allow_heal: bool = True
    timeout_ms: int = 10_000
    settle_ms: int = 0  # an extra minimum after each action (--settle); settling is event-driven
    url_rule: QueryRule = V1_RULE  # the query-key rule ``url_matches`` normalises page URLs with
    # the replay's sensitive values: a healed element whose texts hold one proposes its structure only
    hidden: tuple[str, ...] = field(default=(), repr=False)
    downloads: str | None = None  # the directory a download step saves into (--downloads); None: refused


@dataclass
class Frame:
    """Where a step runs: the outputs it may refer to (step id -> value), the current loop item and
    its field values, the object a collecting loop's iteration is building."""

    outputs: dict[str, object] = field(default_factory=dict)
    item: Scope | None = None
    item_values: dict[str, object] = field(default_factory=dict)
    collected: dict[str, object] | None = None
    in_loop: bool = False
    iteration: int | None = None

    def child(self) -> Frame:
        """A nested block's frame: what it produces stays inside (the collected object is shared)."""
        return Frame(
            dict(self.outputs), self.item, self.item_values, self.collected, self.in_loop, self.iteration
        )


@dataclass
class StepState:
    """Per-step working state: deadline, facts collected so far, the healing outcome."""

    action: Action
    deadline: float
    frame: Frame = field(default_factory=Frame)
    facts: dict[str, str] = field(default_factory=dict)
    healed: bool = False
    healed_bundle: LocatorBundle | None = None
    matched_rank: int | None = None  # a lower-ranked locator found the target (its rank, from 1)
    presence_only: bool = False  # an optional step: a missing target skips it (Absent)
    acted: bool = False  # the browser was asked to act (side effects possible)
    upcoming: Upcoming | None = None  # what the next step measures first, measured ahead (_after)


class SkipRest(Exception):
    """An assertion or wait with ``onFail: "skip"`` did not hold: the rest of its block is skipped."""


class Absent(Exception):
    """An optional step's target is not on the page: the step is skipped."""


class TargetReplaced(Exception):
    """The element chosen for an action left the page before any input reached it (the page
    re-rendered it): nothing was done there; the step locates its target again."""


class TargetCovered(TargetReplaced):
    """The guard in our world (``replay/aim.js``) refused the press of a direct action: another
    element was under the pointer where the target had been measured (an overlay, a move). Nothing
    reached the page; the step locates its target again."""
