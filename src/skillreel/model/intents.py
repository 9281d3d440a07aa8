"""One line a reviewer can read for each step: its intent (``show``, the review page).

Pure and content-free: an intent is made from the step's kind, its element's tag, type and role (from
the fingerprint), the parameter a value reads and the step's best readable locator (``#q``, or "the
field labelled by `label[for="q"]`"; a role-name or link candidate holds a salted hash, so it is
passed over). It never uses page text: no text or label hashes, no typed values,
no assertion's expected text, no URL path. A step may later carry an intent a person wrote
(``skillreel edit``, schema v2): :func:`step_intent` prefers it when the step has one.
"""

from __future__ import annotations

from collections.abc import Mapping

from .actions import Action
from .locators import LocatorBundle
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
_LABELLED = {"label": "labelled by", "aria-label": "named by", "placeholder": "with the placeholder of"}
_CHECKS: Mapping[str, str] = {
    "visible": "check that {t} is visible",
    "text_equals": "check that the text of {t} is exactly the expected text",
    "text_contains": "check that the text of {t} contains the expected text",
    "value_equals": "check that the value of {t} is exactly the expected value",
    "count": "check that {t} matches {n} element(s)",
    "url_matches": "check that the page address matches the expected pattern",
}
_HUMAN: Mapping[str, str] = {
    "iframe": "act inside an embedded frame",
    "drag": "drag and drop",
    "upload": "choose a file to upload",
    "rich-text": "write in a rich-text editor",
    "otp": "enter a one-time code",
    "other": "do what the step needs",
}


def element_noun(bundle: LocatorBundle) -> str:
    fp = bundle.fingerprint
    if fp.role and fp.role in _ROLE_NOUN:
        return _ROLE_NOUN[fp.role]
    if fp.tag == "input" and fp.type is not None and fp.type in _INPUT_TYPE_NOUN:
        return _INPUT_TYPE_NOUN[fp.type]
    return _TAG_NOUN.get(fp.tag, f"<{fp.tag}> element")


def describe_target(bundle: LocatorBundle | None, *, noun: str | None = None) -> str:
    """``the field `#q``` (or ``the field labelled by `label[for="q"]```): noun and best locator."""
    if bundle is None:
        return "the page"
    noun = noun or element_noun(bundle)
    # A role-name or link candidate holds a salted hash: unreadable, so the best readable one is shown.
    readable = [c for c in bundle.candidates if c.text_hash is None]
    if not readable:
        kept = "destination" if bundle.candidates[0].strategy == "href" else "accessible name"
        return f"the {noun} with the {kept} it had at recording"
    best = readable[0]
    how = _LABELLED.get(best.strategy)
    return f"the {noun} {how + ' ' if how else ''}`{best.selector}`"


def _origin(url: str) -> str:
    try:
        return origin_of(url)
    except URLRuleError:
        return "another page"


def _parameter(action: Action, sensitive: frozenset[str]) -> str:
    value = getattr(action, "value", None)
    name = getattr(value, "name", "?")
    return f"the secret input `{name}` (from the vault)" if name in sensitive else f"the input `{name}`"


def generated_intent(action: Action, sensitive: frozenset[str] = frozenset()) -> str:
    """The intent made from the step alone (see the module docstring)."""
    target: LocatorBundle | None = getattr(action, "target", None)
    t = describe_target(target)
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
            return f"choose {_parameter(action, sensitive)} in {describe_target(target, noun='list')}"
        case "press":
            key = getattr(action, "key", "a key")
            return f"press {key} in {t}" if target else f"press {key} on the page"
        case "observe":
            return f"wait until {t} is visible"
        case "assert":
            check = getattr(action, "check", "visible")
            expected = getattr(action, "expected", None)
            return _CHECKS.get(check, "check {t}").format(
                t=t, n=expected if isinstance(expected, int) else "N"
            )
        case "human":
            what = _HUMAN.get(getattr(action, "reason", "other"), _HUMAN["other"])
            return f"a person must {what}" + (f" at {t}" if target else "")
    return f"{action.kind} {t}"


def step_intent(action: Action, sensitive: frozenset[str] = frozenset()) -> str:
    """The step's intent: one a person wrote when the step carries it, else :func:`generated_intent`."""
    written = getattr(action, "intent", None)
    return written if isinstance(written, str) and written else generated_intent(action, sensitive)
