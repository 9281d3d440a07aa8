"""`skillreel diff NAME [A [B]]`: what changed between two drafts, step by step."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

from ..services.diffing import SkillDiff, diff_skill
from ..store import Store
from .completion import complete_skill_name
from .output import Render, emit, json_option

if TYPE_CHECKING:
    from rich.console import Console

_MARK = {"added": "[green]+[/]", "removed": "[red]-[/]", "changed": "[yellow]~[/]", "moved": "[blue]>[/]"}


def _shown(value: Any) -> str:
    """A changed value as the JSON output shows it (``null``, ``true``, objects), not as Python."""
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False)


def _field_line(change: dict[str, Any]) -> str:
    from rich.markup import escape

    if change["field"] == "target.identities":  # an adopted heal keeps earlier fingerprints
        return (
            f"fingerprint: keeps {change['after']} earlier fingerprint(s) as accepted identities "
            f"(was {change['before']})"
        )
    if change["field"] == "target.displayName":  # the name a person reads (issue 31)
        before, after = escape(_shown(change["before"])), escape(_shown(change["after"]))
        return f"fingerprint: display name {before} -> {after}"
    if change["category"] == "fingerprint":
        return f"fingerprint: {', '.join(change['after'])} changed"
    if change["category"] == "locators":
        before = "; ".join(change["before"]) or "none"
        after = "; ".join(change["after"]) or "none"
        return f"locators: {escape(before)} -> {escape(after)}"
    before, after = escape(_shown(change["before"])), escape(_shown(change["after"]))
    return f"{change['category']} {change['field']}: {before} -> {after}"


def _named_line(kind: str, change: dict[str, Any]) -> str:
    """``input q: added {...}`` or ``input q: required true -> false`` (each field that differs but
    the description, which the texts show)."""
    before, after = change["before"], change["after"]
    if before is None or after is None:
        return f"{kind} {change['name']}: {change['change']} {_shown(after or before)}"
    fields = [k for k in sorted(set(before) | set(after)) if before.get(k) != after.get(k)]
    parts = [f"{k} {_shown(before.get(k))} -> {_shown(after.get(k))}" for k in fields if k != "description"]
    return f"{kind} {change['name']}: " + ("; ".join(parts) or "description changed (below)")


def environment_lines(env: dict[str, Any]) -> list[str]:
    """One environment's change as a reviewer reads it: its origin, the allowlist's origins added
    and removed, then every other field that differs, old -> new."""
    where = "the recorded environment" if env["recorded"] else f"environment {env['name']}"
    before, after = env["before"] or {}, env["after"] or {}
    lines = [f"{where}: {env['change']}"]
    if env["change"] != "changed" or "origin" in env["fields"]:
        lines.append(f"    origin: {_shown(before.get('origin'))} -> {_shown(after.get('origin'))}")
    lines += [f"    allowed origin added: {o}" for o in env["originsAdded"]]
    lines += [f"    allowed origin removed: {o}" for o in env["originsRemoved"]]
    for field in env["fields"]:
        if field not in ("origin", "allowedOrigins"):
            lines.append(f"    {field}: {_shown(before.get(field))} -> {_shown(after.get(field))}")
    return lines


def _human(result: SkillDiff) -> Render:
    def render(console: Console) -> None:
        from rich.markup import escape

        data = result.to_json()
        head = f"[bold]{result.name}[/]: {result.before.describe()} -> {result.after.describe()}"
        if result.next_version:
            head += f" (approving it makes {result.next_version}, {result.change.bump})"
        console.print(head)
        if result.diff.empty and not data["steps"]:
            console.print("no change")
        for step in data["steps"]:
            line = f"  {_MARK[step['change']]} {step['id']:>4} {step['kind']:<8} {step['change']}"
            console.print(line + (f": {escape(step['intent'])}" if step.get("intent") else ""))
            for change in step["changes"]:
                console.print(f"           {_field_line(change)}")
        for kind, changes in (("input", data["parameters"]), ("output", data["outputs"])):
            for p in changes:
                console.print(_named_line(kind, p), markup=False)
        caps = data["capabilities"]
        for c in caps["added"]:
            console.print(f"capability added: {c}")
        for c in caps["removed"]:
            console.print(f"capability removed: {c}")
        for env in data["environments"]:
            for line in environment_lines(env):
                console.print(line, markup=False)
        for text in data["texts"]:
            console.print(
                f"{text['field']}: {_shown(text['before'])} -> {_shown(text['after'])}", markup=False
            )
        console.print(
            f"[dim]{data['unchangedSteps']} step(s) unchanged; {'; '.join(result.change.reasons)}[/]"
        )

    return render


@click.command("diff")
@click.argument("name", shell_complete=complete_skill_name)
@click.argument("a", required=False)
@click.argument("b", required=False)
@json_option
def command(name: str, a: str | None, b: str | None, as_json: bool) -> None:
    """Show what changed between two drafts of a skill, step by step.

    A and B are revision numbers, or approved, current, proposal. Without them: the pending heal
    proposal or draft against the approved version."""
    with Store.open() as store:
        result = diff_skill(store, name, a, b)
    emit(result.to_json(), as_json=as_json, human=_human(result))
