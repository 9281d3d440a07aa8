"""Render an approved skill as a runnable Playwright script (sync Python), for
``skillreel export NAME --playwright FILE.py`` (issue 32 point 7). Pure: an entry in, the text out.

The script performs the same task as a replay, without skillreel: every step becomes plain Python
(a loop a ``for``, a branch an ``if``, an assertion ``expect``, an extraction a read into the
``outputs`` printed as JSON), with locators as Playwright's codegen writes them:
``get_by_role(role, name=...)`` from the target's clear display name when the recording kept one,
else its best candidate that holds no salted hash (``get_by_test_id``, ``get_by_label``,
``get_by_placeholder``, ``locator("#id")``, a CSS path). Inputs are command-line options
(argparse: typed, enum choices, the reviewer's defaults); a sensitive input is read from its vault
variable (``SKILLREEL_SECRET_<SKILL>_<PARAM>``) only, never from argv, never with a default. The
draft holds references, never the values of the recording, so no typed value can reach the text.

What the script cannot do as skillreel does: it does not heal (a changed page fails where the
locator no longer matches), has no network allowlist, keeps no run record. A ``human`` step pauses
for a person in a headed run on a terminal (``--headed``), else stops with
``SystemExit("step a7 needs a person ...")``. Every string the script holds is written with
:func:`repr`, so no selector, name or literal can break out of its literal.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..errors import RecordError
from ..model.actions import (
    Action,
    AssertAction,
    BranchAction,
    ChooseAction,
    ClickAction,
    DialogAction,
    ExtractAction,
    HumanAction,
    LoopAction,
    NavigateAction,
    ObserveAction,
    PressAction,
    ScrollAction,
    SelectAction,
    TypeAction,
    WaitAction,
)
from ..model.conditions import CompareCondition, PresentCondition, UrlCondition
from ..model.draft import Parameter
from ..model.entry import StoreEntry
from ..model.environment import UrlTarget
from ..model.intents import step_intent
from ..model.locators import SCOPE_SEPARATOR, ElementSet, LocatorBundle, LocatorCandidate
from ..model.reads import FieldSpec
from ..model.refs import ItemRef, LiteralValue, OutputRef, ParameterRef
from ..model.urls import origin_of
from ..vault import secret_env_name
from .script_prelude import HEADER, HELPERS, MAIN

RESERVED_OPTIONS = frozenset({"origin", "headed", "timeout_ms", "help"})
DEFAULT_TIMEOUT_MS = 10_000
_ATTR_SELECTOR = re.compile(r'^([a-z0-9-]*)\[([a-z-]+)="((?:[^"\\]|\\.)*)"\]$')
_FRAME_HOST = re.compile(r"^(?:i?frame)\b")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029\x85]")
_ARG_TYPES = {"integer": "int", "number": "float", "boolean": "boolean"}


def option_name(param: str) -> str:
    """The command-line option of input ``param`` (``--input-NAME`` when it would clash)."""
    flag = param.replace("_", "-")
    return f"--input-{flag}" if param in RESERVED_OPTIONS else f"--{flag}"


# ---- locators ------------------------------------------------------------------------------------


def _unquote(value: str) -> str:
    """The attribute value of an ``attrSelector`` (locate/element.js) quoted string."""
    return re.sub(r"\\(a |.)", lambda m: "\n" if m.group(1) == "a " else m.group(1), value)


def _own_expression(candidate: LocatorCandidate, own: str) -> str:
    """A Playwright locator call (``.get_by_...(...)`` or ``.locator(...)``) for one own selector."""
    match = _ATTR_SELECTOR.fullmatch(own)
    if match is not None:
        tag, attribute, value = match.group(1), match.group(2), _unquote(match.group(3))
        if candidate.strategy == "testid" and attribute == "data-testid":
            return f".get_by_test_id({value!r})"
        if candidate.strategy == "aria-label":
            return f".get_by_label({value!r}, exact=True)"
        if candidate.strategy == "placeholder" and tag in ("input", "textarea"):
            return f".get_by_placeholder({value!r}, exact=True)"
        if candidate.strategy == "label" and tag == "label" and attribute == "for":
            quoted = value.replace("\\", "\\\\").replace('"', '\\"')
            selector = '[id="' + quoted + '"]'
            return f".locator({selector!r})"
    return f".locator({own!r})"


def _candidate_expression(candidate: LocatorCandidate, scope: str) -> str:
    """``scope`` followed by the scope chain (shadow hosts pierce, frames enter) and the own call."""
    *hosts, own = candidate.selector.split(SCOPE_SEPARATOR)
    out = scope
    for host in hosts:
        out += f".frame_locator({host!r})" if _FRAME_HOST.match(host) else f".locator({host!r})"
    return out + _own_expression(candidate, own)


def _best(candidates: Sequence[LocatorCandidate]) -> LocatorCandidate | None:
    """The best ranked candidate that holds no salted hash (a role-name or link candidate does)."""
    return next((c for c in candidates if c.text_hash is None), None)


def _display_name(bundle: LocatorBundle) -> str | None:
    """The clear name the recording kept of the element (issue 31's ``displayName``), if any."""
    for name in ("display_name", "caption"):
        value = getattr(bundle, name, None)
        if isinstance(value, str) and value.strip():
            return value
    return None


@dataclass
class _Scope:
    """Where the steps being written run: the loop item variables, the output dict, the depth."""

    items: list[str] = field(default_factory=list)
    outputs: str = "outputs"
    depth: int = 1

    @property
    def item(self) -> str:
        return self.items[-1] if self.items else "page"

    @property
    def fields(self) -> str:
        return f"fields{len(self.items)}" if self.items else "{}"


def _unsupported(why: str) -> RecordError:
    """A step the script cannot express (content-free: the step id and why)."""
    return RecordError("SR_RECORD_SCRIPT_UNSUPPORTED", f"cannot write the skill as a script: {why}")


class _Renderer:
    def __init__(self, entry: StoreEntry) -> None:
        self.entry = entry
        self.draft = entry.draft
        self.lines: list[str] = []
        target = self.draft.environment.target
        if not isinstance(target, UrlTarget):  # an HTML fixture only skillreel's sandbox serves
            raise _unsupported("the skill was recorded on an HTML fixture, not on a site a script can open")
        self.origin = origin_of(target.url)
        self.dialog_armed: set[str] = set()
        self.sensitive = frozenset(p.name for p in self.draft.parameters if p.sensitive)

    # ---- values and targets ----

    def value(self, ref: object, scope: _Scope) -> str:
        if isinstance(ref, ParameterRef):
            return f"inputs[{ref.name!r}]"
        if isinstance(ref, OutputRef):  # in a collecting loop, this iteration's read first
            found = f"outputs.get({ref.field!r})"
            return found if scope.outputs == "outputs" else f"{scope.outputs}.get({ref.field!r}, {found})"
        if isinstance(ref, ItemRef):
            return f"{scope.fields}.get({ref.field!r})"
        if isinstance(ref, LiteralValue):
            return repr(ref.value)
        raise _unsupported(f"an unknown value reference {type(ref).__name__}")

    def locator(
        self, step: str, target: LocatorBundle | ElementSet, scope: _Scope, base: str | None = None
    ) -> str:
        """The Playwright locator of ``target``: inside the loop's item when it says so (or inside
        ``base``: a field's target is relative to its item), chosen by a value when it is."""
        base = base or (scope.item if target.within == "item" else "page")
        chosen = self.value(target.filter.contains_token, scope) if target.filter else None
        row = target.row if isinstance(target, LocatorBundle) else None
        if row is not None:
            rows = self._set(step, row, base)
            base = f"{rows}.filter(has_text=token({chosen}))" if chosen else rows
            chosen = None
        name = _display_name(target) if isinstance(target, LocatorBundle) else None
        role = target.fingerprint.role
        if name is not None and role is not None and chosen is None and row is None:
            whole = not name.endswith("\u2026")  # a long name is kept cut, with an ellipsis
            name = name if whole else name[:-1]
            return f"{base}.get_by_role({role!r}, name={name!r}, exact={whole})"
        expression = self._set(step, target, base)
        return f"{expression}.filter(has_text=token({chosen}))" if chosen else expression

    def _set(self, step: str, target: LocatorBundle | ElementSet, base: str) -> str:
        best = _best(target.candidates)
        if best is None:
            raise _unsupported(f"step {step}: its target is known only by salted hashes")
        return _candidate_expression(best, base)

    def one(self, step: str, target: LocatorBundle, scope: _Scope) -> str:
        return f"one({step!r}, {self.locator(step, target, scope)})"

    # ---- writing ----

    def emit(self, depth: int, line: str) -> None:
        self.lines.append("    " * depth + line)

    def steps(self, actions: Sequence[Action], scope: _Scope) -> None:
        skips = any(getattr(a, "on_fail", "fail") == "skip" for a in actions)
        depth = scope.depth
        if skips:
            self.emit(depth, "try:")
            scope = _Scope(scope.items, scope.outputs, depth + 1)
        for i, action in enumerate(actions):
            following = actions[i + 1] if i + 1 < len(actions) else None
            if isinstance(following, DialogAction):
                self.arm_dialog(following, scope)
            self.step(action, scope)
        if not actions:
            self.emit(scope.depth, "pass")
        if skips:
            self.emit(depth, "except Skip:")
            self.emit(depth + 1, "pass  # a check marked skip-on-fail did not hold: the rest is skipped")

    def arm_dialog(self, dialog: DialogAction, scope: _Scope) -> None:
        answer = "dismiss()"
        if dialog.accept:
            answer = f"accept(text({self.value(dialog.text, scope)}))" if dialog.text else "accept()"
        self.emit(scope.depth, f"page.once('dialog', lambda dialog: dialog.{answer})  # {dialog.id}")
        self.dialog_armed.add(dialog.id)

    def step(self, a: Action, scope: _Scope) -> None:
        d = scope.depth
        self.emit(d, f"# {a.id}: " + _CONTROL.sub(" ", step_intent(a, self.sensitive)))
        target = getattr(a, "target", None)
        if getattr(a, "optional", False) and isinstance(target, LocatorBundle):  # run when present
            self.emit(d, f"if present({self.locator(a.id, target, scope)}):")
            scope = _Scope(scope.items, scope.outputs, d + 1)
        writer = getattr(self, f"_{a.kind}", None)
        if writer is None:  # a kind added since (hover, upload, ...): refused, never a traceback
            raise _unsupported(f"step {a.id}: a {a.kind} step has no script form yet")
        writer(a, scope)

    def _navigate(self, a: NavigateAction, scope: _Scope) -> None:
        if a.reason == "reload":
            self.emit(scope.depth, "page.reload()")
            return
        if getattr(a, "parts", None):  # a URL template: its literal braces would load another page
            raise _unsupported(f"step {a.id}: a URL template has no script form yet")
        if self.origin and (a.url == self.origin or a.url.startswith(self.origin + "/")):
            path = a.url[len(self.origin) :] or "/"
            self.emit(scope.depth, f"page.goto(at(args.origin, {path!r}))")
        else:
            self.emit(scope.depth, f"page.goto({a.url!r})")

    def _click(self, a: ClickAction, scope: _Scope) -> None:
        self.emit(scope.depth, f"{self.one(a.id, a.target, scope)}.click()")

    def _type(self, a: TypeAction, scope: _Scope) -> None:
        self.emit(scope.depth, f"{self.one(a.id, a.target, scope)}.fill(text({self.value(a.value, scope)}))")

    def _select(self, a: SelectAction, scope: _Scope) -> None:
        call = f"select_option(text({self.value(a.value, scope)}))"
        self.emit(scope.depth, f"{self.one(a.id, a.target, scope)}.{call}")

    def _choose(self, a: ChooseAction, scope: _Scope) -> None:
        self.emit(scope.depth, f"{self.one(a.id, a.target, scope)}.click()")
        option = f"page.get_by_role('option', name=text({self.value(a.value, scope)}), exact=True)"
        self.emit(scope.depth, f"one({a.id!r}, {option}).click()")

    def _press(self, a: PressAction, scope: _Scope) -> None:
        where = self.one(a.id, a.target, scope) if a.target else "page.keyboard"
        self.emit(scope.depth, f"{where}.press({a.key!r})")

    def _observe(self, a: ObserveAction, scope: _Scope) -> None:
        self.emit(scope.depth, f"expect({self.locator(a.id, a.target, scope)}.first).to_be_visible()")

    def _assert(self, a: AssertAction, scope: _Scope) -> None:
        skip = a.on_fail == "skip"
        if a.check == "url_matches":
            check = f"lambda: expect(page).to_have_url(lambda url: url_matches(url, {a.expected!r}))"
            self.emit(scope.depth, f"holds({a.id!r}, {check}, {skip})")
            return
        assert a.target is not None  # the model's rule: only url_matches has none
        target = self.locator(a.id, a.target, scope)
        check = {
            "visible": f"expect({target}.first).to_be_visible()",
            "text_equals": f"expect({target}).to_have_text({a.expected!r})",
            "text_contains": f"expect({target}).to_contain_text({a.expected!r})",
            "value_equals": f"expect({target}).to_have_value({a.expected!r})",
            "count": f"expect({target}).to_have_count({a.expected!r})",
            "absent": f"expect({target}).to_have_count(0)",
        }[a.check]
        if a.check == "absent" and a.expected is not None:
            check = f"expect({target}.filter(has_text={a.expected!r})).to_have_count(0)"
        self.emit(scope.depth, f"holds({a.id!r}, lambda: {check}, {skip})")

    def _human(self, a: HumanAction, scope: _Scope) -> None:
        self.emit(scope.depth, f"person({a.id!r}, {a.reason!r}, args.headed)")

    def _extract(self, a: ExtractAction, scope: _Scope) -> None:
        kind = a.value_type
        if a.read in ("count", "list"):
            assert a.items is not None  # the model's rule: a count or list read has items
            items = self.locator(a.id, a.items, scope)
            if a.read == "count":
                self.emit(scope.depth, f"{scope.outputs}[{a.output!r}] = {items}.count()")
                return
            limit, overflow = self.value(a.limit, scope), a.overflow
            each = self.record_expression(a.fields, _Scope([*scope.items, "each"], depth=scope.depth))
            listed = f"[{each} for each in items_of({a.id!r}, {items}, int({limit}), {overflow!r})]"
            self.emit(scope.depth, f"{scope.outputs}[{a.output!r}] = {listed}")
            return
        assert a.target is not None
        target = self.locator(a.id, a.target, scope)
        read = f"read({target}, {a.read!r}, {kind!r}, {a.attribute!r}, {a.pattern!r})"
        self.emit(scope.depth, f"{scope.outputs}[{a.output!r}] = {read}")

    def record_expression(self, fields: Sequence[FieldSpec], scope: _Scope) -> str:
        """A dict expression reading ``fields`` relative to the current item."""
        parts = []
        for f in fields:
            target = self.locator("field", f.target, scope, scope.item) if f.target else scope.item
            parts.append(
                f"{f.name!r}: read({target}, {f.read!r}, {f.value_type!r}, {f.attribute!r}, {f.pattern!r})"
            )
        return "{" + ", ".join(parts) + "}"

    def _wait(self, a: WaitAction, scope: _Scope) -> None:
        timeout = f", timeout={a.timeout_ms}" if a.timeout_ms else ""
        skip = a.on_fail == "skip"
        if a.until == "url":
            check = f"lambda: page.wait_for_url(lambda url: url_matches(url, {a.expected!r}){timeout})"
        else:
            assert a.target is not None
            target = self.locator(a.id, a.target, scope)
            wanted = f"text({self.value(a.value, scope)})" if a.value is not None else "''"
            check = {
                "appears": f"lambda: {target}.first.wait_for(state='visible'{timeout})",
                "disappears": f"lambda: expect({target}).to_have_count(0{timeout})",
                "text": f"lambda: expect({target}).to_contain_text({wanted}{timeout})",
            }[a.until]
        self.emit(scope.depth, f"holds({a.id!r}, {check}, {skip})")

    def _scroll(self, a: ScrollAction, scope: _Scope) -> None:
        target = self.one(a.id, a.target, scope)
        self.emit(scope.depth, f"{target}.scroll_into_view_if_needed()")
        if a.to == "end":
            self.emit(scope.depth, f"for _ in range({a.max_rounds}):  # to its end, while it grows")
            self.emit(scope.depth + 1, f"{target}.hover()")
            self.emit(scope.depth + 1, "page.mouse.wheel(0, 10_000)")
            self.emit(scope.depth + 1, "page.wait_for_timeout(200)")

    def _dialog(self, a: DialogAction, scope: _Scope) -> None:
        if a.id not in self.dialog_armed:  # a dialog first in its block: nothing before it to arm
            self.arm_dialog(a, scope)
        self.emit(scope.depth, "pass  # answered by the handler armed before the step that opens it")

    def _loop(self, a: LoopAction, scope: _Scope) -> None:
        d = scope.depth
        var = f"item{len(scope.items) + 1}"
        inner = _Scope([*scope.items, var], scope.outputs, d + 1)
        items = self.locator(a.id, a.items, scope)
        if a.collect:
            self.emit(d, f"{scope.outputs}[{a.collect!r}] = []")
        self.emit(
            d, f"for {var} in items_of({a.id!r}, {items}, int({self.value(a.limit, scope)}), {a.overflow!r}):"
        )
        self.emit(d + 1, f"{inner.fields} = {self.record_expression(a.fields, inner)}")
        if a.collect:
            record = f"record{len(inner.items)}"
            self.emit(d + 1, f"{record} = dict({inner.fields})")
            self.steps(a.body, _Scope(inner.items, record, d + 1))
            self.emit(d + 1, f"{scope.outputs}[{a.collect!r}].append({record})")
        else:
            self.steps(a.body, inner)

    def _branch(self, a: BranchAction, scope: _Scope) -> None:
        d = scope.depth
        cond = a.condition
        if isinstance(cond, PresentCondition):
            test = f"present({self.locator(a.id, cond.target, scope)})"
        elif isinstance(cond, UrlCondition):
            test = f"url_matches(page.url, {cond.expected!r})"
        else:
            assert isinstance(cond, CompareCondition)
            expected = self.value(cond.expected, scope) if cond.expected is not None else "None"
            test = f"compare({self.value(cond.value, scope)}, {cond.op!r}, {expected})"
        self.emit(d, f"if {test}:")
        self.steps(a.then, _Scope(scope.items, scope.outputs, d + 1))
        if a.otherwise:
            self.emit(d, "else:")
            self.steps(a.otherwise, _Scope(scope.items, scope.outputs, d + 1))

    # ---- the whole script ----

    def parse_inputs(self) -> None:
        self.lines.append("\n\ndef parse_inputs(argv: list[str] | None) -> tuple[argparse.Namespace, dict]:")
        title = f"Run the recorded skill {self.draft.name} with Playwright."
        self.emit(1, f"parser = argparse.ArgumentParser(description={title!r})")
        for p in self.draft.parameters:
            if not p.sensitive:
                self.emit(1, f"parser.add_argument({self.argument(p)})")
        self.emit(1, f"parser.add_argument('--origin', default={self.origin!r}, help='the site to run on')")
        self.emit(1, "parser.add_argument('--headed', action='store_true', help='show the browser')")
        self.emit(1, f"parser.add_argument('--timeout-ms', type=int, default={DEFAULT_TIMEOUT_MS})")
        self.emit(1, "args = parser.parse_args(argv)")
        self.emit(1, "inputs = {")
        for p in self.draft.parameters:
            if p.sensitive:
                variable = secret_env_name(self.draft.name, p.name)
                self.emit(2, f"{p.name!r}: secret({variable!r}, {p.required}),")
            else:
                self.emit(2, f"{p.name!r}: args.input_{p.name},")
        self.emit(1, "}")
        self.emit(1, "return args, inputs")

    def argument(self, p: Parameter) -> str:
        parts = [repr(option_name(p.name)), f"dest={'input_' + p.name!r}"]
        if p.type in _ARG_TYPES:
            parts.append(f"type={_ARG_TYPES[p.type]}")
        if p.values:
            parts.append(f"choices={list(p.values)!r}")
        if p.default is not None:
            parts.append(f"default={p.default!r}")
        parts.append(f"required={p.required}")
        if p.description:
            parts.append(f"help={p.description!r}")
        return ", ".join(parts)

    def render(self) -> str:
        draft, entry = self.draft, self.entry
        sensitive = [secret_env_name(draft.name, p.name) for p in draft.parameters if p.sensitive]
        usage = " ".join(
            [
                f"{draft.name}.py",
                *(f"{option_name(p.name)} VALUE" for p in draft.parameters if not p.sensitive),
            ]
        )
        header = HEADER.format(
            title=f"{draft.name}: a skillreel skill as a Playwright script",
            name=draft.name,
            revision=entry.revision,
            digest=draft.draft_digest,
            usage=usage,
            secrets="\n".join(f"#     {v}" for v in sensitive) or "#     (none for this skill)",
        )
        viewport = draft.environment.viewport
        self.lines = [header + HELPERS.rstrip("\n")]
        self.lines.append(f"\n\nVIEWPORT = {{'width': {viewport.width}, 'height': {viewport.height}}}")
        self.parse_inputs()
        self.lines.append("\n\ndef run(page: Page, inputs: dict, args: argparse.Namespace) -> dict:")
        self.emit(1, "outputs: dict = {}")
        self.steps(draft.actions, _Scope())
        self.emit(1, "return outputs")
        return "\n".join(self.lines) + MAIN


def render_playwright_script(entry: StoreEntry) -> str:
    """The script of ``entry``'s draft (``SR_RECORD_SCRIPT_UNSUPPORTED`` for a step it cannot express)."""
    return _Renderer(entry).render()
