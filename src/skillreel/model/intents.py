"""One line a reviewer can read for each step: its intent (``show``, the review page).

Pure and content-free: an intent is made from the step's kind, its element's tag, type and role
(from the fingerprint), the parameter a value reads and the step's best readable locator (``#q``,
or "the field labelled by `label[for="q"]`"; a role-name or link candidate holds a salted hash, so
it is passed over). It never uses page text: no text or label hashes, no typed values, no
assertion's expected text, no URL path, no literal a condition compares with. The one exception,
when a caller asks (``named=True``: ``show``, ``diff``, ``edit``, the review page, ``SKILL.md``), is
the target's display name (issue 31: page chrome in clear, screened at recording), used first:
``the button "Sign in"``, ``the field "User name"``. Schema v2 steps read the same
way: what an extraction reads into which output, what a wait waits for, a dialog's answer, a loop's
items and bound, a branch's condition; a target chosen by an input says which input chooses it
("the link `#results a` whose text holds the input `q`"). A step may carry an intent a person wrote
(``skillreel edit`` ``set-step``, schema v2): :func:`step_intent` prefers it.
"""

from __future__ import annotations

from collections.abc import Mapping

from .actions import (
    Action,
    BranchAction,
    DialogAction,
    ExtractAction,
    LoopAction,
    ScrollAction,
    WaitAction,
    WhileAction,
)
from .conditions import CompareCondition, PresentCondition
from .locators import ElementSet, LocatorBundle
from .refs import ItemRef, LiteralValue, OutputRef, ParameterRef
from .urls import URLRuleError, origin_of

# What an element is called, from its role (first) or its tag and type.
_ROLE_NOUN: Mapping[str, str] = {
    "button": "button",
    "link": "link",
    "checkbox": "checkbox",
    "radio": "radio button",
    "tab": "tab",
    "menuitem": "menu item",
    "option": "option",
    "switch": "switch",
    "textbox": "field",
    "searchbox": "search field",
    "combobox": "list",
    "listbox": "list",
}
_TAG_NOUN: Mapping[str, str] = {
    "a": "link",
    "button": "button",
    "input": "field",
    "textarea": "text area",
    "select": "list",
    "img": "image",
    "form": "form",
    "table": "table",
    "label": "label",
}
_INPUT_TYPE_NOUN: Mapping[str, str] = {
    "checkbox": "checkbox",
    "radio": "radio button",
    "submit": "button",
    "button": "button",
    "search": "search field",
    "password": "password field",
    "email": "email field",
    "date": "date field",
    "number": "number field",
}
# Nouns for roles only a named target is described by (a heading's name, a column header's).
_NAMED_NOUN: Mapping[str, str] = {
    "heading": "heading",
    "columnheader": "column header",
    "menuitemcheckbox": "menu item",
    "menuitemradio": "menu item",
    "spinbutton": "number field",
    "slider": "slider",
}
_LABELLED = {"label": "labelled by", "aria-label": "named by", "placeholder": "with the placeholder of"}
_CHECKS: Mapping[str, str] = {
    "visible": "check that {t} is visible",
    "text_equals": "check that the text of {t} is exactly the expected text",
    "text_contains": "check that the text of {t} contains the expected text",
    "value_equals": "check that the value of {t} is exactly the expected value",
    "count": "check that {t} matches {n} element(s)",
    "url_matches": "check that the page address matches the expected pattern",
    "absent": "check that {t} is absent",
    "not_empty": "check that {t} is not empty",
}
_HUMAN: Mapping[str, str] = {
    "iframe": "act inside an embedded frame",
    "drag": "drag and drop",
    "upload": "choose a file to upload",
    "rich-text": "write in a rich-text editor",
    "otp": "enter a one-time code",
    "closed-shadow": "act inside a closed shadow root",
    "other": "do what the step needs",
}
_READS: Mapping[str, str] = {"text": "the text of", "value": "the value of"}
_OPS: Mapping[str, str] = {
    "equals": "equals",
    "not_equals": "does not equal",
    "contains": "contains",
    "greater_than": "is greater than",
    "less_than": "is less than",
    "at_least": "is at least",
    "at_most": "is at most",
    "empty": "is empty",
    "not_empty": "is not empty",
}


def element_noun(bundle: LocatorBundle) -> str:
    fp = bundle.fingerprint
    if fp.role and fp.role in _ROLE_NOUN:
        return _ROLE_NOUN[fp.role]
    if fp.tag == "input" and fp.type is not None and fp.type in _INPUT_TYPE_NOUN:
        return _INPUT_TYPE_NOUN[fp.type]
    return _TAG_NOUN.get(fp.tag, f"<{fp.tag}> element")


def named_target(bundle: LocatorBundle | None, *, noun: str | None = None) -> str | None:
    """``the button "Sign in"``: the target by its display name (issue 31), or None without one."""
    if bundle is None or bundle.display_name is None:
        return None
    named = noun or _NAMED_NOUN.get(bundle.fingerprint.role or "") or element_noun(bundle)
    return f"the {named} {quoted_name(bundle.display_name)}"


def describe_target(bundle: LocatorBundle | None, *, noun: str | None = None, named: bool = False) -> str:
    """``the field `#q``` (or ``the field labelled by `label[for="q"]```): noun and best locator;
    ``named``: ``the button "Sign in"`` first when the target keeps a display name (issue 31)."""
    if bundle is None:
        return "the page"
    by_name = named_target(bundle, noun=noun) if named else None
    if by_name is not None:
        return by_name
    noun = noun or element_noun(bundle)
    # A role-name or link candidate holds a salted hash: unreadable, so the best readable one is shown.
    readable = [c for c in bundle.candidates if c.text_hash is None]
    if not readable:
        kept = "destination" if bundle.candidates[0].strategy == "href" else "accessible name"
        return f"the {noun} with the {kept} it had at recording"
    best = readable[0]
    how = _LABELLED.get(best.strategy)
    return f"the {noun} {how + ' ' if how else ''}`{best.selector}`"


def quoted_name(name: str) -> str:
    """A display name in double quotes, its own quotes and backslashes escaped (``"Say \\"hi\\""``);
    renderers still escape invisible characters (``model.visible``) and markup."""
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _origin(url: str) -> str:
    try:
        return origin_of(url)
    except URLRuleError:
        return "another page"


def _parameter(action: Action, sensitive: frozenset[str]) -> str:
    return value_phrase(getattr(action, "value", None), sensitive)


def value_phrase(ref: object, sensitive: frozenset[str] = frozenset()) -> str:
    """Where a value comes from, without the value: an input (a secret one from the vault), what
    an earlier step read, a field of the loop's item, or a fixed value the reviewer chose."""
    if isinstance(ref, ParameterRef):
        name = ref.name
        return f"the secret input `{name}` (from the vault)" if name in sensitive else f"the input `{name}`"
    if isinstance(ref, OutputRef):
        return f"what step {ref.step} read (`{ref.field}`)"
    if isinstance(ref, ItemRef):
        return f"the item's `{ref.field}`"
    if isinstance(ref, LiteralValue):
        return "a fixed value"
    name = getattr(ref, "name", "?")  # a v1 parameter reference of another class
    return f"the secret input `{name}` (from the vault)" if name in sensitive else f"the input `{name}`"


def _chosen(text: str, bundle: LocatorBundle | ElementSet, sensitive: frozenset[str]) -> str:
    """``text`` narrowed as the target is: in the loop's item, the one holding a value as a token."""
    if bundle.within == "item":
        text += " in the current item"
    if isinstance(bundle, LocatorBundle) and bundle.row is not None and bundle.filter is not None:
        return text + f" of the row that shows {value_phrase(bundle.filter.contains_token, sensitive)}"
    if bundle.filter is not None:
        text += f" whose text holds {value_phrase(bundle.filter.contains_token, sensitive)}"
    return text


def _items(items: ElementSet, sensitive: frozenset[str]) -> str:
    return _chosen(f"the items `{items.candidates[0].selector}`", items, sensitive)


def _extract_intent(action: ExtractAction, t: str, sensitive: frozenset[str]) -> str:
    into = f"into output `{action.output}`"
    typed = (
        f" as {'an' if action.value_type == 'integer' else 'a'} {action.value_type}" if action.type else ""
    )
    if action.read == "presence":
        return f"note whether {t} is present, {into}"
    if action.read == "attribute":
        return f"read the `{action.attribute}` attribute of {t}{typed} {into}"
    if action.read in _READS:
        return f"read {_READS[action.read]} {t}{typed} {into}"
    assert action.items is not None
    if action.read == "count":
        return f"count {_items(action.items, sensitive)} {into}"
    names = ", ".join(f"`{f.name}`" for f in action.fields)
    return f"read up to {action.limit} of {_items(action.items, sensitive)} (fields {names}) {into}"


def _wait_intent(action: WaitAction, t: str, sensitive: frozenset[str]) -> str:
    within = f" (at most {action.timeout_ms / 1000:g} s)" if action.timeout_ms is not None else ""
    skip = "; else skip the rest of its block" if action.on_fail == "skip" else ""
    what = {
        "appears": f"{t} appears",
        "disappears": f"{t} disappears",
        "url": "the page address matches the expected pattern",
        "text": f"the text of {t} contains {value_phrase(action.value, sensitive)}",
    }[action.until]
    return f"wait until {what}{within}{skip}"


def _dialog_intent(action: DialogAction, sensitive: frozenset[str]) -> str:
    what = f"the {action.expects}" if action.expects else "the dialog"
    if not action.accept:
        return f"dismiss {what} the previous step opens"
    text = f", answering {value_phrase(action.text, sensitive)}" if action.text is not None else ""
    return f"accept {what} the previous step opens{text}"


def _loop_intent(action: LoopAction, sensitive: frozenset[str]) -> str:
    limit = action.limit if isinstance(action.limit, int) else value_phrase(action.limit, sensitive)
    steps = f"{len(action.body)} step(s)"
    collect = f", collecting each into output `{action.collect}`" if action.collect else ""
    return f"for each of {_items(action.items, sensitive)} (at most {limit}): {steps}{collect}"


def _branch_intent(action: BranchAction | WhileAction, sensitive: frozenset[str], named: bool) -> str:
    cond = action.condition
    if isinstance(cond, PresentCondition):
        holds = f"{_target(cond.target, sensitive, named=named)} is present"
    elif isinstance(cond, CompareCondition):
        expected = f" {value_phrase(cond.expected, sensitive)}" if cond.expected is not None else ""
        holds = f"{value_phrase(cond.value, sensitive)} {_OPS.get(cond.op, cond.op)}{expected}"
    else:
        holds = "the page address matches the expected pattern"
    if isinstance(action, WhileAction):
        return f"while {holds} (at most {action.limit} times): {len(action.body)} step(s)"
    then, otherwise = len(action.then), len(action.otherwise)
    return f"if {holds}: {then} step(s)" + (f", else {otherwise} step(s)" if otherwise else "")


def _target(
    bundle: LocatorBundle | None, sensitive: frozenset[str], *, noun: str | None = None, named: bool = False
) -> str:
    text = describe_target(bundle, noun=noun, named=named)
    return text if bundle is None else _chosen(text, bundle, sensitive)


def generated_intent(action: Action, sensitive: frozenset[str] = frozenset(), *, named: bool = False) -> str:
    """The intent made from the step alone (see the module docstring). An optional step says
    that it runs only when its target is there."""
    line = _generated(action, sensitive, named)
    return f"if it is there, {line}" if getattr(action, "optional", False) else line


def _generated(action: Action, sensitive: frozenset[str], named: bool) -> str:
    target: LocatorBundle | None = getattr(action, "target", None)
    t = _target(target, sensitive, named=named)
    match action.kind:
        case "navigate":
            reason = getattr(action, "reason", "start")
            if reason == "reload":
                return "reload the page"
            where = _origin(getattr(action, "url", ""))
            return f"open the start page on {where}" if reason == "start" else f"go to a page on {where}"
        case "click":
            noun = element_noun(target) if target else "element"
            verb = {"link": "follow", "checkbox": "tick or untick", "radio button": "choose"}.get(
                noun, "click"
            )
            return f"{verb} {t}"
        case "type":
            return f"type {_parameter(action, sensitive)} into {t}"
        case "select":
            listed = _target(target, sensitive, noun="list", named=named)
            return f"choose {_parameter(action, sensitive)} in {listed}"
        case "choose":
            picker = _target(target, sensitive, noun="picker", named=named)
            return f"open {picker} and choose the option named by {_parameter(action, sensitive)}"
        case "press":
            key = getattr(action, "key", "a key")
            return f"press {key} in {t}" if target else f"press {key} on the page"
        case "observe":
            return f"wait until {t} is visible"
        case "assert":
            check = getattr(action, "check", "visible")
            expected = getattr(action, "expected", None)
            if check == "absent" and isinstance(expected, str):
                return f"check that {t} does not show the expected text"
            if check == "count" and expected is None:
                return f"check that {t} matches {_bounds(action)} element(s)"
            return _CHECKS.get(check, "check {t}").format(
                t=t, n=expected if isinstance(expected, int) else "N"
            )
        case "human":
            what = _HUMAN.get(getattr(action, "reason", "other"), _HUMAN["other"])
            return f"a person must {what}" + (f" at {t}" if target else "")
        case "page":
            if getattr(action, "to", "main") == "popup":
                return "go on in the popup (tab or window) the steps before opened"
            closing = "close the popup and " if getattr(action, "close", False) else ""
            return f"{closing}go back to the first page"
        case "download":
            return f"click {t} and keep the file it downloads as output `{getattr(action, 'output', '')}`"
    if isinstance(action, ExtractAction):
        return _extract_intent(action, t, sensitive)
    if isinstance(action, WaitAction):
        return _wait_intent(action, t, sensitive)
    if isinstance(action, ScrollAction):
        if action.to == "end":
            return f"scroll {t} to its end (while it grows, at most {action.max_rounds} times)"
        return f"scroll {t} into view"
    if isinstance(action, DialogAction):
        return _dialog_intent(action, sensitive)
    if isinstance(action, LoopAction):
        return _loop_intent(action, sensitive)
    if isinstance(action, BranchAction | WhileAction):
        return _branch_intent(action, sensitive, named)
    return f"{action.kind} {t}"


def step_intent(action: Action, sensitive: frozenset[str] = frozenset(), *, named: bool = False) -> str:
    """The step's intent: one a person wrote when the step carries it, else :func:`generated_intent`."""
    written = getattr(action, "intent", None)
    return (
        written if isinstance(written, str) and written else generated_intent(action, sensitive, named=named)
    )


def _bounds(action: Action) -> str:
    """A count check's bounds in words: "at least 1", "1 to 5", "at most 5"."""
    low, high = getattr(action, "at_least", None), getattr(action, "at_most", None)
    if low is not None and high is not None:
        return f"{low} to {high}"
    return f"at least {low}" if low is not None else f"at most {high}" if high is not None else "N"
