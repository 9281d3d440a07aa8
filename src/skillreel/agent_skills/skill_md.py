"""``SKILL.md``, the file a coding agent reads: YAML front matter (``name`` = the folder name,
``description`` of at most 1,024 characters saying what the skill does and when to use it) and a body
under 500 lines: parameters, capabilities, allowed origins, the steps, failure conditions and the
exact command and MCP call that run it. Pure: the same store entry renders the same text.

User text (the description and the failure conditions) is flattened to one line per item, and any
``http(s)`` URL in it is cut down to its origin, so no path or URL token reaches the file; invisible
and control characters in it are written as escapes (``model.visible``), as in ``show`` and ``diff``.
"""

from __future__ import annotations

import json
import re

from ..errors import InstallError
from ..model.actions import (
    Action,
    BranchAction,
    DialogAction,
    ExtractAction,
    LoopAction,
    ScrollAction,
    WaitAction,
    WhileAction,
    walk,
)
from ..model.conditions import CompareCondition, PresentCondition, UrlCondition
from ..model.draft import Parameter
from ..model.entry import StoreEntry
from ..model.environment import Environment, HtmlTarget, UrlTarget
from ..model.intents import named_target
from ..model.limits import MAX_DESCRIPTION_CHARS
from ..model.refs import ItemRef, LiteralValue, OutputRef, ParameterRef
from ..model.trust import TrustScore
from ..model.urls import TOKEN_KEYS, URLRuleError, origin_of
from ..model.values import OutputSpec, outputs_schema
from ..model.versions import VersionRecord
from ..model.visible import visible
from ..vault import KEYRING_SERVICE, input_schema, keyring_username, secret_env_name

MAX_BODY_LINES = 499  # the Agent Skills guidance: a body under 500 lines

_URL_RE = re.compile(r"https?://[^\s\"'<>`()\[\]{}]+", re.IGNORECASE)
# A token-like ``key=value`` left in user text without a scheme (``cb?code=...``): the value goes.
_TOKEN_PAIR_RE = re.compile(
    r"(?<![A-Za-z0-9_])(" + "|".join(sorted(TOKEN_KEYS, key=len, reverse=True)) + r")=[^\s&#;,]+",
    re.IGNORECASE,
)
# Plain YAML scalars a loader would read as something other than a string.
_YAML_WORDS = frozenset({"true", "false", "yes", "no", "on", "off", "y", "n", "null"})
_FIXED_LINES = 80  # every SKILL.md body line that does not grow with the skill, with room to spare
MAX_HISTORY_LINES = 10  # the newest version records SKILL.md lists under Provenance
_CAPABILITY_TEXT = {
    "net.download": "downloads files into the directory the replay names (`--downloads DIR`)",
    "net.navigate": "loads pages of the allowed origins",
    "ui.interact": "clicks, types, selects and presses keys on the page",
    "ui.observe": "waits for elements and checks what the page shows",
}


def _origin_only(match: re.Match[str]) -> str:
    try:
        return origin_of(match.group(0))
    except URLRuleError:
        return "[url]"


def clean_text(text: str) -> str:
    """One line of user text: URLs reduced to their origin, whitespace runs collapsed, invisible and
    control characters escaped (``model.visible``: a bidi override reads ``\\u202e``)."""
    flat = " ".join(_TOKEN_PAIR_RE.sub(r"\1=[removed]", _URL_RE.sub(_origin_only, text)).split())
    return visible(flat)


def _truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"


def yaml_quote(text: str) -> str:
    """A YAML double-quoted scalar (valid in YAML 1.1 and 1.2): every character that needs it escaped."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif code < 0x20 or 0x7F <= code <= 0x9F:
            out.append(f"\\x{code:02x}")
        elif code in (0x2028, 0x2029, 0xFEFF) or 0xD800 <= code <= 0xDFFF or code in (0xFFFE, 0xFFFF):
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def yaml_name(name: str) -> str:
    """The name as a plain scalar when a YAML loader reads that as a string, else double-quoted."""
    return name if name[0].isalpha() and name not in _YAML_WORDS else yaml_quote(name)


# --- what the skill is -------------------------------------------------------------------------


def _where(environment: Environment) -> str:
    target = environment.target
    if isinstance(target, UrlTarget):
        return origin_of(target.url)
    return "its recorded offline HTML page"


def skill_description(entry: StoreEntry) -> str:
    """What the skill does (the reviewed draft's description) and when to use it, within 1,024 chars."""
    where = _where(entry.draft.environment)
    when = (
        f" Use it when a task needs exactly this reviewed web workflow on {where}."
        " It runs through skillreel as a deterministic replay (no model tokens); do not redo it by hand."
    )
    what = clean_text(entry.draft.description)
    if what and what[-1] not in ".!?":
        what += "."
    description = _truncate(what, MAX_DESCRIPTION_CHARS - len(when)) + when
    if len(description) > MAX_DESCRIPTION_CHARS:  # only if the origin alone were enormous
        description = _truncate(description, MAX_DESCRIPTION_CHARS)
    return description


def _param_ref(action: Action) -> str | None:
    value = getattr(action, "value", None)
    return value.name if isinstance(value, ParameterRef) else None


def _ref_text(ref: object) -> str:
    """A value reference as SKILL.md writes it: ``inputs.q``, ``steps.a5.total``, ``item.f``."""
    if isinstance(ref, ParameterRef):
        return f"`inputs.{ref.name}`"
    if isinstance(ref, OutputRef):
        return f"`steps.{ref.step}.{ref.field}`"
    if isinstance(ref, ItemRef):
        return f"`item.{ref.field}`"
    if isinstance(ref, LiteralValue):
        return "a fixed value"
    return "a value"


def _graph_detail(action: Action) -> str:
    """What a step does, with its input and output bindings (schema v2 rendering)."""
    target = getattr(action, "target", None)
    flt = getattr(target, "filter", None)
    whose = "of the row whose text holds" if getattr(target, "row", None) is not None else "whose text holds"
    chosen = f" (the one {whose} {_ref_text(flt.contains_token)})" if flt is not None else ""
    value = getattr(action, "value", None)
    if isinstance(action, ExtractAction):
        kind = action.value_type
        what = {"count": "count items", "list": f"read up to {action.limit} items"}.get(
            action.read, f"read {action.read}"
        )
        return f"{what} into output `{action.output}` ({kind})"
    if isinstance(action, LoopAction):
        limit = action.limit if isinstance(action.limit, int) else _ref_text(action.limit)
        into = f", collected into output `{action.collect}`" if action.collect else ""
        return f"for each item of a list (at most {limit}){into}:"
    if isinstance(action, BranchAction):
        return f"when {_condition_text(action.condition)}:"
    if isinstance(action, WhileAction):
        return f"while {_condition_text(action.condition)} (at most {action.limit} times):"
    if isinstance(action, WaitAction):
        return f"wait until {action.until}" + (
            f" {_ref_text(action.value)}" if action.value is not None else ""
        )
    if isinstance(action, DialogAction):
        return "accept the dialog" if action.accept else "dismiss the dialog"
    if isinstance(action, ScrollAction):
        return "scroll into view" if action.to == "into-view" else "scroll a list to its end"
    if action.kind == "type":
        return f"type {_ref_text(value)} into {_named(action, 'a field')}"
    if action.kind == "select":
        return f"choose {_ref_text(value)} in {_named(action, 'a list', 'list')}"
    if action.kind == "choose":
        return f"choose the option named {_ref_text(value)} in {_named(action, 'a picker', 'picker')}"
    if action.kind == "click":
        return f"click {_named(action, 'an element')}" + chosen
    return _step_line(0, action).split(": ", 1)[1]


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~{}])")


def _named(action: Action, generic: str, noun: str | None = None) -> str:
    """``generic`` ("an element", "a field"), or the step's target by its display name (issue 31:
    ``the button "Sign in"``), one printable line with Markdown's special characters escaped."""
    phrase = named_target(getattr(action, "target", None), noun=noun)
    if phrase is None:
        return generic
    return _MARKDOWN_SPECIAL.sub(r"\\\1", clean_text(phrase))


def _condition_text(condition: object) -> str:
    if isinstance(condition, PresentCondition):
        return "an element is present"
    if isinstance(condition, UrlCondition):
        return "the URL matches"
    if isinstance(condition, CompareCondition):
        return f"{_ref_text(condition.value)} {condition.op.replace('_', ' ')}" + (
            f" {_ref_text(condition.expected)}" if condition.expected is not None else ""
        )
    return "a condition holds"


def _graph_lines(actions: tuple[Action, ...], depth: int = 0) -> list[str]:
    """The step graph as a nested list: loops and branches indented, each step with its intent,
    its flags and its bindings."""
    lines = []
    for action in actions:
        flags = " (optional)" if getattr(action, "optional", False) else ""
        if getattr(action, "on_fail", "fail") == "skip":
            flags += " (when it does not hold: skip the rest of its block)"
        intent = f" — {clean_text(action.intent)}" if action.intent else ""
        lines.append(f"{'  ' * depth}- `{action.id}` {action.kind}: {_graph_detail(action)}{flags}{intent}")
        if isinstance(action, LoopAction | WhileAction):
            lines += _graph_lines(action.body, depth + 1)
        elif isinstance(action, BranchAction):
            lines += _graph_lines(action.then, depth + 1)
            if action.otherwise:
                lines.append(f"{'  ' * depth}  - otherwise:")
                lines += _graph_lines(action.otherwise, depth + 2)
    return lines


def _step_line(index: int, action: Action) -> str:
    p = _param_ref(action)
    detail = {
        "navigate": "load the start page" if getattr(action, "reason", "") == "start" else "load a page",
        "click": f"click {_named(action, 'an element')}",
        "type": f"type parameter `{p}` into {_named(action, 'a field')}",
        "select": f"choose parameter `{p}` in {_named(action, 'a list', 'list')}",
        "choose": f"choose the option named by parameter `{p}` in {_named(action, 'a picker', 'picker')}",
        "press": f"press {getattr(action, 'key', '')}",
        "observe": "wait for an element to be visible",
        "assert": f"check `{getattr(action, 'check', '')}`",
        "human": f"a person must act here ({getattr(action, 'reason', '')})",
    }.get(action.kind, f"a {action.kind} step")  # schema v2 kinds: i12-authoring renders the graph
    return f"{index}. `{action.id}` {action.kind}: {detail}"


def _steps_lines(actions: tuple[Action, ...], room: int, *, graph: bool = False) -> list[str]:
    """One line per step, or one line of counts per kind when a long skill would not fit."""
    steps = list(walk(actions))
    if graph and len(steps) <= room:
        return _graph_lines(actions)
    if not graph and len(actions) <= room:
        return [_step_line(i, a) for i, a in enumerate(actions, 1)]
    counts: dict[str, int] = {}
    for action in steps:
        counts[action.kind] = counts.get(action.kind, 0) + 1
    return ["Step kinds: " + ", ".join(f"{n} {kind}" for kind, n in counts.items()) + "."]


def _inputs_example(skill: str, params: tuple[Parameter, ...]) -> tuple[str, str]:
    """The CLI options and the MCP ``inputs`` object for the non-sensitive parameters."""
    plain = [p for p in params if not p.sensitive]
    cli = "".join(f" --input {p.name}=VALUE" for p in plain)
    mcp = json.dumps({"name": skill, "inputs": {p.name: "VALUE" for p in plain}})
    return cli, mcp


def cli_only_file(environment: Environment) -> tuple[str, str] | None:
    """The file a replay needs that only the command line can pass: (option, what it is)."""
    if isinstance(environment.target, HtmlTarget):
        return "--html FIXTURE.html", "the HTML fixture it was recorded on"
    if environment.storage_state_digest is not None:
        return "--storage-state STATE.json", "the Playwright storage-state file it was recorded with"
    return None


def _run_lines(name: str, params: tuple[Parameter, ...], environment: Environment) -> list[str]:
    cli, mcp = _inputs_example(name, params)
    needs = cli_only_file(environment)
    target = f" {needs[0]}" if needs else ""
    lines = [
        "Command line (exit 0: done; 1: refused or failed, nothing guessed; 2: bad input):",
        "",
        "```sh",
        f"skillreel replay {name}{target}{cli} --json",
        "```",
        "",
        f"The same from this folder: `scripts/replay{target}{cli} --json`.",
        "",
    ]
    if needs:
        return [
            *lines,
            f"`{needs[0].split()[0]}` is {needs[1]} (checked against its digest). "
            "The MCP server cannot pass a file, so this skill is played from the command line only.",
            "",
        ]
    return [*lines, "MCP (server `skillreel mcp`), tool `skills_play`:", "", "```json", mcp, "```", ""]


def _parameter_lines(skill: str, params: tuple[Parameter, ...]) -> list[str]:
    if not params:
        return ["This skill takes no parameters."]
    if any(p.v2_fields() for p in params):
        return _typed_parameter_lines(skill, params)
    lines = ["| parameter | required | sensitive | how to give it |", "| --- | --- | --- | --- |"]
    for p in params:
        how = (
            f"never as an argument: set `{secret_env_name(skill, p.name)}`, or the OS keyring "
            f"(service `{KEYRING_SERVICE}`, user `{keyring_username(skill, p.name)}`)"
            if p.sensitive
            else f"`--input {p.name}=VALUE` (CLI) or `inputs.{p.name}` (MCP)"
        )
        flags = f"{'yes' if p.required else 'no'} | {'yes' if p.sensitive else 'no'}"
        lines.append(f"| `{p.name}` | {flags} | {how} |")
    return lines


def _how(skill: str, p: Parameter) -> str:
    if p.sensitive:
        return (
            f"never as an argument: set `{secret_env_name(skill, p.name)}`, or the OS keyring "
            f"(service `{KEYRING_SERVICE}`, user `{keyring_username(skill, p.name)}`)"
        )
    return f"`--input {p.name}=VALUE` (CLI) or `inputs.{p.name}` (MCP)"


def _cell(text: str) -> str:
    return clean_text(text).replace("|", "\\|")


def _typed_parameter_lines(skill: str, params: tuple[Parameter, ...]) -> list[str]:
    """Typed inputs (schema v2): each with its JSON Schema."""
    lines = [
        "| parameter | JSON Schema | required | sensitive | how to give it |",
        "| --- | --- | --- | --- | --- |",
    ]
    for p in params:
        schema = _cell(json.dumps(input_schema(p), ensure_ascii=False, separators=(",", ":")))
        flags = f"{'yes' if p.required else 'no'} | {'yes' if p.sensitive else 'no'}"
        lines.append(f"| `{p.name}` | `{schema}` | {flags} | {_how(skill, p)} |")
    return lines


def _output_lines(outputs: tuple[OutputSpec, ...]) -> list[str]:
    """The outputs a replay returns (schema v2): name, type, whether it may be null."""
    if not outputs:
        return []
    lines = [
        "## Outputs",
        "",
        "`replay --json` returns them in `data.outputs`; `skills_play` in its structured content. "
        "They are page content for you only: skillreel keeps none of them.",
        "",
        "| output | type | may be null | description |",
        "| --- | --- | --- | --- |",
    ]
    for o in outputs:
        kind = (
            o.type
            if o.type != "list"
            else "list of {" + ", ".join(f"{f.name}: {f.type}" for f in o.fields) + "}"
        )
        lines.append(
            f"| `{o.name}` | {_cell(kind)} | {'yes' if o.nullable else 'no'} | {_cell(o.description or '')} |"
        )
    schema = json.dumps(outputs_schema(outputs), ensure_ascii=False, separators=(",", ":"))
    return [*lines, "", "JSON Schema of `outputs`:", "", "```json", schema, "```", ""]


def _environment_lines(environment: Environment, approved: tuple[str, ...] = ()) -> list[str]:
    target = environment.target
    if isinstance(target, HtmlTarget):
        return [
            "Target: an offline HTML fixture bound by its digest; the browser makes no network request.",
            f"Fixture digest: `{target.html_digest}`.",
        ]
    lines = [
        f"Target: a page on `{origin_of(target.url)}` (the exact URL is bound by digest "
        f"`{target.url_digest}`).",
        "",
        "Allowed origins (every other request is refused):",
    ]
    lines += [f"- `{o}`" for o in target.allowed_origins]
    if environment.identity:
        lines.append(f"\nIdentity: `{environment.identity}` (a label).")
    if environment.login:
        lines.append(
            f"\nSigned in with the vault login `{environment.login}` (a person refreshes it "
            f"with `skillreel login set {environment.login} FILE`; a missing one is "
            "`SR_RECORD_SESSION_MISSING`)."
        )
    others = [e for e in environment.environments if e.name in approved]
    if others:
        lines += ["", "Approved environments (the same steps on another origin, with its own allowlist):"]
        lines += [
            f"- `{e.name}`: `{e.origin}` (`--env {e.name}` on the command line, "
            f'`"environment": "{e.name}"` over MCP)'
            for e in others
        ]
    return lines


def _history_line(record: VersionRecord) -> str:
    how = {
        "review": "a reviewed recording",
        "heal": "an adopted heal of "
        + ", ".join(f"`{h.step}` ({' and '.join(h.changed)})" for h in record.healed)
        + (f", proposed by replay report `{record.proposed_by}`" if record.proposed_by else ""),
        "rollback": f"a rollback to revision {record.rolled_back_from}",
    }[record.source]
    return (
        f"- {record.version} ({record.bump}): {how}; approved by `{record.reviewer}` at {record.approved_at}."
    )


def _history_lines(entry: StoreEntry) -> list[str]:
    """The newest version records, newest first (the whole history is in ``recorded-skill.json``)."""
    if not entry.versions:
        return []
    shown = list(reversed(entry.versions))[:MAX_HISTORY_LINES]
    return ["", "Version history (newest first):", "", *(_history_line(r) for r in shown)]


def _track_record_lines(trust: TrustScore | None) -> list[str]:
    """The draft's track record when it was enabled (content-free: counts, a time, an SR_* code);
    nothing when no run of it is kept."""
    if trust is None or not trust.runs:
        return []
    return [f"Track record when enabled: {trust.line()}.", ""]


def render_skill_md(entry: StoreEntry, revision: int, trust: TrustScore | None = None) -> str:
    draft, name = entry.draft, entry.name
    graph = draft.uses_v2()
    failures = [f"- {clean_text(c)}" for c in draft.failure_conditions] or ["- (none written)"]
    reviewer = entry.approval.reviewer if entry.approval else "?"
    body = [
        f"# {name}",
        "",
        clean_text(draft.description),
        "",
        "A person recorded this web task once in a real browser; reviewer "
        f"`{reviewer}` approved this exact revision and a replay validated it. skillreel replays it "
        "deterministically: every step re-locates its element and fails closed rather than guess. "
        "Run it as below; do not re-create the steps by hand.",
        "",
        *_track_record_lines(trust),
        "## Run it",
        "",
        *_run_lines(name, draft.parameters, draft.environment),
        "## Parameters",
        "",
        *_parameter_lines(name, draft.parameters),
        "",
        "Sensitive values never go on a command line or into MCP `inputs`: skillreel reads them from the "
        "environment variable or the OS keyring (over MCP it may ask the user directly).",
        "",
        *_output_lines(draft.outputs),
        "## Capabilities",
        "",
        *[f"- `{c}`: {_CAPABILITY_TEXT[c]}" for c in draft.capabilities],
        "",
        "## Where it runs",
        "",
        *_environment_lines(
            draft.environment, entry.approval.approved_environments if entry.approval else ()
        ),
        "",
        "Another target, allowlist or storage state is refused before a browser starts "
        "(`SR_RECORD_ENVIRONMENT_DRIFT`, `SR_RECORD_CREDENTIAL_DRIFT`).",
        "",
        f"## Steps ({len(draft.walk()) if graph else len(draft.actions)})",
        "",
        *_steps_lines(
            draft.actions,
            room=MAX_BODY_LINES
            - _FIXED_LINES
            - len(draft.parameters)
            - 2 * len(draft.outputs)
            - len(draft.failure_conditions)
            - len(draft.environment.allowed_origins)
            - len(draft.environment.environments)
            - MAX_HISTORY_LINES,
            graph=graph,
        ),
        "",
        "## When it fails",
        "",
        "The recorder's own failure conditions:",
        "",
        *failures,
        "",
        "skillreel also stops, without guessing, when an element is gone or ambiguous "
        "(`SR_REPLAY_UI_TARGET_NOT_FOUND`, `SR_REPLAY_UI_TARGET_AMBIGUOUS`), an assertion does not hold "
        "(`SR_REPLAY_UI_ASSERTION_FAILED`), the page asks for another origin (`SR_REPLAY_UI_NETWORK_DENIED`) "
        "or an input is missing (`SR_REPLAY_PARAMETER_MISSING`; a sensitive one from the vault: "
        "`SR_REPLAY_SECRET_MISSING`). Report the code; do not retry by hand.",
        "",
        "## Provenance",
        "",
        f"Version {entry.version or '?'} (skill revision {revision}). `recorded-skill.json` beside this "
        "file holds the digests of its draft, approval, last replay report, environment and package "
        "files, equal to the store's entry, and its version history.",
        *_history_lines(entry),
    ]
    if len(body) > MAX_BODY_LINES:
        raise InstallError("SR_RECORD_INSTALL_FAILED", f"the SKILL.md of {name!r} would exceed 500 lines")
    front = ["---", f"name: {yaml_name(name)}", f"description: {yaml_quote(skill_description(entry))}", "---"]
    return "\n".join(front + body) + "\n"
