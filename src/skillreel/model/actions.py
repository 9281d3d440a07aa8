"""The bounded step vocabulary and the capability each step needs (ARCHITECTURE sections 5, 15).

Every step has a stable ``id``; steps form a list, and the two blocks, ``loop`` and ``branch``, hold
nested step lists (structured control flow, no jumps). Values are typed references, never string
templates (``model.refs``). Schema v1 knows the first eight kinds and parameter references only;
schema v2 adds ``extract``, ``wait``, ``scroll``, ``dialog``, ``loop`` and ``branch``, the step flags
``optional`` (run only when the target is present), ``onFail`` (an assertion or wait that fails
skips the rest of its block instead of failing the run) and ``intent`` (the reviewer's words for
what the step is for). Every v2 field is left out of the wire form when unset, so a v1 document
keeps its exact bytes and digest. What an ``extract`` or a ``loop`` reads (its fields and the rules
of a read) is ``model.reads``; what a ``branch`` tests is ``model.conditions``; a step that breaks a
rule raises ``model.graph_problem.GraphProblem``. The graph rules (unique ids, depth, references,
outputs) are in ``model.graph``; which schema a draft needs is decided there too.

Capabilities: ``extract``, ``wait`` and ``scroll`` read or move the view and change nothing a site
keeps, so they need ``ui.observe`` (scrolling may load more items of a lazy list, as a person
reading would); ``dialog`` answers an alert, confirm or prompt, a decision, so it needs
``ui.interact``; blocks need nothing of their own (their steps do). ``hover`` (issue 32) needs
``ui.interact``, not ``ui.observe``: resting the pointer dispatches pointer events the page's
handlers answer as they answer a click's (a mouseenter may send a request), so a reviewer who
approved a read-only skill has not approved it; ``upload`` hands a file to the page.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    Field,
    SerializerFunctionWrapHandler,
    StringConstraints,
    model_serializer,
    model_validator,
)

from .base import ActionId, Document
from .conditions import CompareCondition, Condition, PresentCondition
from .graph_problem import GraphProblem
from .limits import (
    MAX_ACTIONS,
    MAX_INTENT_CHARS,
    MAX_LOOP_ITEMS,
    MAX_OUTPUT_FIELDS,
    MAX_RETRY_INTERVAL_MS,
    MAX_RETRY_TIMES,
    MAX_SCROLL_ROUNDS,
    MAX_URL_CHARS,
    MAX_URL_PARTS,
    MAX_WAIT_MS,
    TIMEOUT_MS_RANGE,
)
from .locators import ElementSet, LocatorBundle
from .reads import (
    AttributeName,
    FieldSpec,
    Limit,
    Overflow,
    Pattern,
    Read,
    check_fields,
    check_limit,
    check_read,
    no_content,
)
from .refs import ItemRef, LiteralValue, OutputName, OutputRef, ParameterRef, ValueRef
from .url_template import TemplateProblem, check_template
from .values import EnumValues, ValueType

Capability = Literal["ui.observe", "ui.interact", "net.navigate", "net.download"]
ALL_CAPABILITIES: tuple[Capability, ...] = ("net.download", "net.navigate", "ui.interact", "ui.observe")

ExpectedText = Annotated[str, StringConstraints(max_length=1024)]
# One line a reviewer wrote for a step (``show`` prints it in place of the generated one): no line
# breaks or other control characters.
Intent = Annotated[
    str, StringConstraints(min_length=1, max_length=MAX_INTENT_CHARS, pattern=r"^[^\x00-\x1f\x7f]+$")
]
OnFail = Literal["fail", "skip"]
# A URL template's placeholder name (``{order_id}``).
PartName = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{0,63}$")]


class Retry(Document):
    """Run a failed idempotent step (extract, wait, navigate, assert) again, at most ``times`` more
    times, ``intervalMs`` apart (v2; issue 33). Steps that act on the page never retry."""

    times: Annotated[int, Field(ge=1, le=MAX_RETRY_TIMES)]
    interval_ms: Annotated[int, Field(ge=0, le=MAX_RETRY_INTERVAL_MS)] = 1000


class Step(Document):
    """What every step has: a stable id and the reviewer's ``intent``. The v2 fields a subclass
    declares in ``v2_defaults`` (wire key -> default) are left out of the wire form at their default."""

    v2_defaults: ClassVar[dict[str, Any]] = {"intent": None}
    # further keys (of the v2 kinds) left out at their default: wire key -> default
    unset: ClassVar[dict[str, Any]] = {}

    id: ActionId
    intent: Intent | None = None

    @model_serializer(mode="wrap")
    def _omit_defaults(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for defaults in (self.v2_defaults, self.unset):
            for key, default in defaults.items():
                if key in data and data[key] == default:
                    del data[key]
        return data

    def v2_fields(self) -> list[str]:
        """The v2 fields this step sets (wire keys); empty for a step v1 can express."""
        data = self.to_json()
        return [k for k in self.v2_defaults if k in data]


_FLAGS: dict[str, Any] = {"intent": None, "optional": False}


class NavigateAction(Step):
    """Load a page: the target's first page, an address-bar navigation or a reload. An
    address-bar navigation with ``parts`` (v2) loads a URL template: each ``{name}`` of ``url``
    (after its origin) is the value of ``parts[name]``, URL-encoded (``model.url_template``)."""

    v2_defaults: ClassVar[dict[str, Any]] = {"intent": None, "retry": None, "parts": {}}

    kind: Literal["navigate"] = "navigate"
    url: Annotated[str, StringConstraints(min_length=1, max_length=MAX_URL_CHARS)]
    reason: Literal["start", "address-bar", "reload"] = "start"
    parts: dict[PartName, ValueRef] = Field(default_factory=dict, max_length=MAX_URL_PARTS)
    retry: Retry | None = None

    @model_validator(mode="after")
    def _template(self) -> NavigateAction:
        if self.parts and self.reason != "address-bar":
            raise GraphProblem("SR_RECORD_GRAPH_INVALID", self.id, "only an address-bar navigation has parts")
        if self.parts:
            try:
                check_template(self.url, frozenset(self.parts))
            except TemplateProblem as exc:
                raise GraphProblem("SR_RECORD_GRAPH_INVALID", self.id, str(exc)) from None
        return self


class ClickAction(Step):
    v2_defaults: ClassVar[dict[str, Any]] = _FLAGS

    kind: Literal["click"] = "click"
    target: LocatorBundle
    optional: bool = False


class TypeAction(Step):
    """Set a text field's value (the whole final value of one field edit)."""

    v2_defaults: ClassVar[dict[str, Any]] = _FLAGS

    kind: Literal["type"] = "type"
    target: LocatorBundle
    value: ValueRef
    optional: bool = False


class SelectAction(Step):
    """Choose the option with the value (or, at replay, the visible label) the reference gives."""

    v2_defaults: ClassVar[dict[str, Any]] = _FLAGS

    kind: Literal["select"] = "select"
    target: LocatorBundle
    value: ValueRef
    optional: bool = False


class ChooseAction(Step):
    """Choose, in a popup picker (a combobox, or a button that opens a listbox), the option whose
    accessible name the reference gives (schema v2): the target is the combobox; replay opens it,
    picks the one enabled option of that name in its listbox and checks the combobox shows it."""

    v2_defaults: ClassVar[dict[str, Any]] = _FLAGS

    kind: Literal["choose"] = "choose"
    target: LocatorBundle
    value: ValueRef
    optional: bool = False


class PressAction(Step):
    """Press Enter, Tab or Escape on the focused target (or the page when target is None)."""

    v2_defaults: ClassVar[dict[str, Any]] = _FLAGS

    kind: Literal["press"] = "press"
    key: Literal["Enter", "Tab", "Escape"]
    target: LocatorBundle | None = None
    optional: bool = False

    @model_validator(mode="after")
    def _optional_needs_target(self) -> PressAction:
        if self.optional and self.target is None:
            raise GraphProblem("SR_RECORD_GRAPH_INVALID", self.id, "an optional step needs a target")
        return self


class ObserveAction(Step):
    """Wait for the target to be visible and record before/after/page/screenshot digests."""

    v2_defaults: ClassVar[dict[str, Any]] = _FLAGS

    kind: Literal["observe"] = "observe"
    target: LocatorBundle
    optional: bool = False


AssertCheck = Literal[
    "visible",
    "text_equals",
    "text_contains",
    "value_equals",
    "url_matches",
    "count",
    "absent",
    "not_empty",
]
Count = Annotated[int, Field(ge=0, le=100_000)]


class AssertAction(Step):
    """A check the user added. ``url_matches`` needs no target; ``count`` expects an integer
    (``expected``: exactly that many) or bounds (``atLeast``, ``atMost``: v2, one or both);
    ``not_empty`` holds when the target's text or value is not blank;
    ``absent`` (a business failure: an "Already refunded" banner) holds when no element like its
    target is on the page, or with ``expected`` when none holds that text.
    ``onFail: "skip"`` (v2): when it does not hold, the rest of its block is skipped."""

    v2_defaults: ClassVar[dict[str, Any]] = {
        "intent": None,
        "onFail": "fail",
        "atLeast": None,
        "atMost": None,
        "retry": None,
    }

    kind: Literal["assert"] = "assert"
    check: AssertCheck
    target: LocatorBundle | None = None
    expected: ExpectedText | Count | None = None
    at_least: Count | None = None
    at_most: Count | None = None
    on_fail: OnFail = "fail"
    retry: Retry | None = None

    @model_validator(mode="after")
    def _shape(self) -> AssertAction:
        why = assert_shape_problem(
            self.check, self.target is not None, self.expected, self.at_least, self.at_most
        )
        if why is not None:
            raise GraphProblem("SR_RECORD_GRAPH_INVALID", self.id, why)
        return self

    def count_holds(self, n: int) -> bool:
        """Whether ``n`` matching elements satisfy this ``count`` check."""
        if isinstance(self.expected, int) and n != self.expected:
            return False
        low_ok = self.at_least is None or n >= self.at_least
        return low_ok and (self.at_most is None or n <= self.at_most)


def assert_shape_problem(
    check: str, targeted: bool, expected: object, at_least: int | None, at_most: int | None
) -> str | None:
    """Why an assertion of these parts cannot be checked, or None (the recorded step's rule, and
    the authoring forms' before they record one)."""
    bounded = at_least is not None or at_most is not None
    if check == "absent" and (not targeted or isinstance(expected, int)):
        return "an absent check needs a target and takes a text or nothing"
    if bounded and check != "count":
        return "only a count check takes atLeast or atMost"
    if check == "count" and bounded and expected is not None:
        return "a count check takes an exact count or bounds, not both"
    if at_least is not None and at_most is not None and at_least > at_most:
        return "a count check's atLeast is above its atMost"
    if check == "not_empty" and (not targeted or expected is not None):
        return "a not_empty check needs a target and takes no expected value"
    return None


HumanReason = Literal["iframe", "closed-shadow", "drag", "upload", "rich-text", "otp", "other"]


class HumanAction(Step):
    """A step only a person may perform; replay pauses here or fails closed."""

    kind: Literal["human"] = "human"
    reason: HumanReason
    target: LocatorBundle | None = None


# ---- schema v2 kinds ----------------------------------------------------------------------------


class ExtractAction(Step):
    """Read the page into the output ``output``.

    * ``text``, ``value``, ``attribute`` (href, title, datetime, aria-*, data-*) or ``presence`` of
      the element ``target``; typed by ``type`` (default string; presence is boolean), optionally
      through ``pattern`` (a regular expression with one group);
    * ``count`` of the items of ``items`` (an integer);
    * ``list``: up to ``limit`` items of ``items``, each an object of ``fields`` read relative to it;
      a page with more items fails the step unless ``overflow`` is ``"first"`` (read the first
      ``limit``).
    """

    v2_defaults: ClassVar[dict[str, Any]] = {**_FLAGS, "retry": None}
    unset: ClassVar[dict[str, Any]] = {
        **dict.fromkeys(("target", "attribute", "type", "values", "pattern", "items", "limit")),
        "fields": [],
        "overflow": "fail",
    }

    kind: Literal["extract"] = "extract"
    output: OutputName
    read: Read = "text"
    target: LocatorBundle | None = None
    attribute: AttributeName | None = None
    type: ValueType | None = None
    values: EnumValues | None = None
    pattern: Pattern | None = None
    items: ElementSet | None = None
    fields: tuple[FieldSpec, ...] = Field(default=(), max_length=MAX_OUTPUT_FIELDS)
    limit: Limit | None = None
    overflow: Overflow = "fail"
    optional: bool = False
    retry: Retry | None = None

    @model_validator(mode="after")
    def _shape(self) -> ExtractAction:
        one = self.read in ("text", "value", "attribute", "presence")
        if one != (self.target is not None) or one == (self.items is not None):
            raise GraphProblem(
                "SR_RECORD_GRAPH_INVALID",
                self.id,
                "a text, value, attribute or presence read has a target; a count or list read has items",
            )
        if (self.read == "list") != bool(self.fields) or (self.read == "list") != (self.limit is not None):
            raise GraphProblem(
                "SR_RECORD_GRAPH_INVALID", self.id, "exactly a list read has fields and a limit"
            )
        if self.read == "list" and self.type is not None:
            raise GraphProblem("SR_RECORD_GRAPH_INVALID", self.id, "a list read types its fields, not itself")
        if self.optional and self.read not in ("text", "value", "attribute"):
            raise GraphProblem("SR_RECORD_GRAPH_INVALID", self.id, f"a {self.read} read cannot be optional")
        if self.overflow != "fail" and self.read != "list":
            raise GraphProblem("SR_RECORD_GRAPH_INVALID", self.id, "only a list read has an overflow rule")
        check_read(self.id, self.read, self.attribute, self.type, self.values, self.pattern)
        check_limit(self.id, self.limit)
        no_content(self.id, self.target, self.attribute)
        check_fields(self.id, self.fields)
        return self

    @property
    def value_type(self) -> ValueType | Literal["list"]:
        if self.read == "list":
            return "list"
        return self.type or {"presence": "boolean", "count": "integer"}.get(self.read, "string")  # type: ignore[return-value]


WaitUntil = Literal["appears", "disappears", "url", "text"]


class WaitAction(Step):
    """Wait until the target appears or disappears, the URL matches ``expected`` (as an assertion's
    ``url_matches``), or the target's text contains ``value``; at most ``timeoutMs`` (default: the
    replay's timeout). ``onFail: "skip"`` skips the rest of its block instead of failing."""

    v2_defaults: ClassVar[dict[str, Any]] = {"intent": None, "onFail": "fail", "retry": None}
    unset: ClassVar[dict[str, Any]] = dict.fromkeys(("target", "expected", "value", "timeoutMs"))

    kind: Literal["wait"] = "wait"
    until: WaitUntil
    target: LocatorBundle | None = None
    expected: ExpectedText | None = None
    value: ValueRef | None = None
    timeout_ms: Annotated[int, Field(ge=TIMEOUT_MS_RANGE[0], le=MAX_WAIT_MS)] | None = None
    on_fail: OnFail = "fail"
    retry: Retry | None = None

    @model_validator(mode="after")
    def _shape(self) -> WaitAction:
        needs_target = self.until != "url"
        if needs_target != (self.target is not None):
            raise GraphProblem(
                "SR_RECORD_GRAPH_INVALID",
                self.id,
                f"a wait until {self.until} {'needs' if needs_target else 'takes no'} target",
            )
        if (self.until == "url") != (self.expected is not None) or (self.until == "text") != (
            self.value is not None
        ):
            raise GraphProblem(
                "SR_RECORD_GRAPH_INVALID",
                self.id,
                "a url wait has `expected`, a text wait has `value`, others neither",
            )
        return self


class ScrollAction(Step):
    """Scroll ``target`` into view, or scroll it (a scroll container; the page when it is the
    document's scrolling element) to its end, again while it grows (a lazy list), at most
    ``maxRounds`` times."""

    v2_defaults: ClassVar[dict[str, Any]] = _FLAGS

    kind: Literal["scroll"] = "scroll"
    target: LocatorBundle
    to: Literal["into-view", "end"] = "into-view"
    max_rounds: Annotated[int, Field(ge=1, le=MAX_SCROLL_ROUNDS)] = 20
    optional: bool = False


# ---- hover and upload (issue 32) ------------------------------------------------------------------


class HoverAction(Step):
    """Rest the pointer on ``target`` and wait for what that reveals (a menu that opens on hover):
    recorded only when the next step acts inside what the hover revealed."""

    v2_defaults: ClassVar[dict[str, Any]] = _FLAGS

    kind: Literal["hover"] = "hover"
    target: LocatorBundle
    optional: bool = False


class UploadAction(Step):
    """Set the file input ``target`` to one file: the path a ``file`` parameter gives at replay
    (``--input NAME=@PATH``). The recorded file's name and content are never kept."""

    v2_defaults: ClassVar[dict[str, Any]] = _FLAGS

    kind: Literal["upload"] = "upload"
    target: LocatorBundle
    value: ParameterRef
    optional: bool = False


class DialogAction(Step):
    """Answer the alert, confirm or prompt that the previous step opens: accept (a prompt with the
    text ``text`` gives) or dismiss. Replay arms the answer before the previous step runs; a dialog
    that does not come fails the step (unless ``optional``). A dialog no step expects is dismissed."""

    v2_defaults: ClassVar[dict[str, Any]] = _FLAGS
    unset: ClassVar[dict[str, Any]] = dict.fromkeys(("expects", "text"))

    kind: Literal["dialog"] = "dialog"
    accept: bool
    expects: Literal["alert", "confirm", "prompt", "beforeunload"] | None = None
    text: ValueRef | None = None
    optional: bool = False

    @model_validator(mode="after")
    def _shape(self) -> DialogAction:
        if self.text is not None and not (self.accept and self.expects in (None, "prompt")):
            raise GraphProblem("SR_RECORD_GRAPH_INVALID", self.id, "only an accepted prompt is given text")
        return self


class LoopAction(Step):
    """Run ``body`` once per item of ``items`` (in page order, at most ``limit``: a number up to
    1,000 or an integer input). A page with more items fails the step unless ``overflow`` is
    ``"first"``. Each iteration first reads the item's ``fields`` (``{"ref": "item", ...}`` in the
    body); targets marked ``within: "item"`` resolve inside the item. With ``collect``, the loop's
    output is a list: one object per iteration, the item's fields and what the body extracted."""

    unset: ClassVar[dict[str, Any]] = {"overflow": "fail", "fields": [], "collect": None}

    kind: Literal["loop"] = "loop"
    items: ElementSet
    limit: Limit | ParameterRef
    overflow: Overflow = "fail"
    fields: tuple[FieldSpec, ...] = Field(default=(), max_length=MAX_OUTPUT_FIELDS)
    body: tuple[Action, ...] = Field(min_length=1, max_length=MAX_ACTIONS)
    collect: OutputName | None = None

    @model_validator(mode="after")
    def _shape(self) -> LoopAction:
        check_limit(self.id, self.limit if isinstance(self.limit, int) else None)
        check_fields(self.id, self.fields)
        return self


class BranchAction(Step):
    """Run ``then`` when ``condition`` holds, else ``else``; either list may be empty, not both."""

    unset: ClassVar[dict[str, Any]] = {"then": [], "else": []}

    kind: Literal["branch"] = "branch"
    condition: Condition
    then: tuple[Action, ...] = Field(default=(), max_length=MAX_ACTIONS)
    otherwise: tuple[Action, ...] = Field(default=(), max_length=MAX_ACTIONS, alias="else")

    @model_validator(mode="after")
    def _shape(self) -> BranchAction:
        if not self.then and not self.otherwise:
            raise GraphProblem("SR_RECORD_GRAPH_INVALID", self.id, "a branch has steps in then or else")
        return self


class WhileAction(Step):
    """Run ``body`` again while ``condition`` holds (tested before each run), at most ``limit``
    times (v2; issue 33): a condition still true after ``limit`` runs fails the step
    (``SR_REPLAY_WHILE_LIMIT``). What the body extracts stays inside it."""

    kind: Literal["while"] = "while"
    condition: Condition
    limit: Annotated[int, Field(ge=1, le=MAX_LOOP_ITEMS)]
    body: tuple[Action, ...] = Field(min_length=1, max_length=MAX_ACTIONS)


# ---- pages and downloads (issue 32.3, 32.4) -------------------------------------------------------


PageName = Literal["main", "popup"]


class PageAction(Step):
    """Act on another page from here on: ``popup``, the newest page a step of this page opened (a
    ``target=_blank`` link, ``window.open``: replay waits for it until the step's deadline and
    fails closed when none opened); ``main``, the skill's first page (``close``: close the popup
    first). The network boundary and allowlist are the context's, so they hold on every page."""

    unset: ClassVar[dict[str, Any]] = {"close": False}

    kind: Literal["page"] = "page"
    to: PageName
    close: bool = False

    @model_validator(mode="after")
    def _shape(self) -> PageAction:
        if self.close and self.to != "main":
            raise GraphProblem("SR_RECORD_GRAPH_INVALID", self.id, "only a switch to main closes the popup")
        return self


class DownloadAction(Step):
    """Click ``target`` and keep the file the click downloads as the output ``output``
    (``{"path", "name", "bytes", "sha256"}``, for the caller only): saved under the directory the
    replay names, at most ``MAX_DOWNLOAD_BYTES``, its suggested name sanitised. Needs
    ``net.download``, a capability the reviewer approves like the others."""

    kind: Literal["download"] = "download"
    target: LocatorBundle
    output: OutputName


Action = Annotated[
    NavigateAction
    | ClickAction
    | TypeAction
    | SelectAction
    | ChooseAction
    | PressAction
    | ObserveAction
    | AssertAction
    | HumanAction
    | ExtractAction
    | WaitAction
    | ScrollAction
    | DialogAction
    | HoverAction
    | UploadAction
    | LoopAction
    | BranchAction
    | WhileAction
    | PageAction
    | DownloadAction,
    Field(discriminator="kind"),
]
Block = LoopAction | BranchAction | WhileAction
# The kinds a step may retry (they change nothing a site keeps): model.actions.Retry.
RETRYABLE: frozenset[str] = frozenset({"extract", "wait", "navigate", "assert"})

V1_KINDS: frozenset[str] = frozenset(
    {"navigate", "click", "type", "select", "press", "observe", "assert", "human"}
)

CAPABILITY_OF_KIND: dict[str, Capability] = {
    "navigate": "net.navigate",
    "click": "ui.interact",
    "type": "ui.interact",
    "select": "ui.interact",
    "choose": "ui.interact",
    "press": "ui.interact",
    "human": "ui.interact",
    "dialog": "ui.interact",
    "observe": "ui.observe",
    "assert": "ui.observe",
    "extract": "ui.observe",
    "wait": "ui.observe",
    "scroll": "ui.observe",
    "hover": "ui.interact",  # pointer events run the page's handlers, as a click's do
    "upload": "ui.interact",
    "page": "ui.interact",
    "download": "net.download",
}


def children(action: Action) -> tuple[tuple[Action, ...], ...]:
    """The step lists a block holds (a loop's body; a branch's then and else); none for a step."""
    if isinstance(action, LoopAction | WhileAction):
        return (action.body,)
    if isinstance(action, BranchAction):
        return (action.then, action.otherwise)
    return ()


def walk(actions: Iterable[Action]) -> Iterator[Action]:
    """Every step of a graph, blocks included, in document order (a block before its steps)."""
    for action in actions:
        yield action
        for block in children(action):
            yield from walk(block)


def capability_manifest(actions: Iterable[Action]) -> tuple[Capability, ...]:
    """The sorted set of capabilities the steps (nested ones included) need."""
    return tuple(sorted({CAPABILITY_OF_KIND[a.kind] for a in walk(actions) if a.kind in CAPABILITY_OF_KIND}))


def value_refs(action: Action) -> list[ValueRef]:
    """Every value reference a step holds itself (not those of a block's steps), in field order."""
    refs: list[Any] = []
    for name in ("value", "text"):
        ref = getattr(action, name, None)
        if isinstance(ref, ParameterRef | OutputRef | ItemRef | LiteralValue):
            refs.append(ref)
    for bundle in (getattr(action, "target", None), getattr(action, "items", None)):
        flt = getattr(bundle, "filter", None)
        if flt is not None:
            refs.append(flt.contains_token)
    if isinstance(action, LoopAction) and isinstance(action.limit, ParameterRef):
        refs.append(action.limit)
    if isinstance(action, NavigateAction):
        refs += list(action.parts.values())
    if isinstance(action, BranchAction | WhileAction):
        cond = action.condition
        if isinstance(cond, CompareCondition):
            refs.append(cond.value)
            if cond.expected is not None:
                refs.append(cond.expected)
        elif isinstance(cond, PresentCondition) and cond.target.filter is not None:
            refs.append(cond.target.filter.contains_token)
    return refs


def parameter_refs(actions: Iterable[Action]) -> list[str]:
    """Names of the parameters the steps (nested ones included) refer to, in order of first use."""
    seen: dict[str, None] = {}
    for action in walk(actions):
        for ref in value_refs(action):
            if isinstance(ref, ParameterRef):
                seen.setdefault(ref.name, None)
    return list(seen)
