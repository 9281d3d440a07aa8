"""How ``show`` prints a skill's inputs, outputs and step graph for a person (the JSON is
``services.showing``'s projection): loops and branches indented, each step with its intent and
its bindings (``<- ${inputs.q}``, ``choose by ${inputs.q}``, ``-> outputs.total (number)``)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console


def ref_text(ref: Any) -> str:
    """A value reference as `show` prints it: ${inputs.q}, ${steps.a5.total}, ${item.f}, a literal."""
    if not isinstance(ref, dict):
        return str(ref)
    kind = ref.get("ref")
    if kind == "parameter":
        return "${inputs." + str(ref["name"]) + "}"
    if kind == "output":
        return "${steps." + f"{ref['step']}.{ref['field']}" + "}"
    if kind == "item":
        return "${item." + str(ref["field"]) + "}"
    return json.dumps(ref.get("value"))


def bindings(a: dict[str, Any]) -> str:
    """What a step reads (inputs, outputs, item fields) and writes (its output), and its flags."""
    parts = []
    if "parameter" in a:
        parts.append("<- ${inputs." + a["parameter"] + "}")
    elif isinstance(a.get("value"), dict):
        parts.append("<- " + ref_text(a["value"]))
    flt = (a.get("target") or {}).get("filter") or (a.get("items") or {}).get("filter")
    if flt:
        parts.append("choose by " + ref_text(flt["containsToken"]))
    if a["kind"] == "extract":
        kind = (
            "list"
            if a.get("read") == "list"
            else a.get("type") or {"presence": "boolean", "count": "integer"}.get(a.get("read", ""), "string")
        )
        parts.append(f"-> outputs.{a['output']} ({kind})")
    if a["kind"] == "loop":
        limit = a["limit"] if isinstance(a["limit"], int) else ref_text(a["limit"])
        parts.append(f"over {a['items']['candidates'][0]['matchCount']} recorded items, limit {limit}")
        if a.get("collect"):
            parts.append(f"-> outputs.{a['collect']} (list)")
    if a["kind"] == "branch":
        cond = a["condition"]
        if cond["kind"] == "compare":
            expected = " " + ref_text(cond["expected"]) if "expected" in cond else ""
            parts.append(f"if {ref_text(cond['value'])} {cond['op']}{expected}")
        else:
            parts.append(f"if {cond['kind']}")
    if a.get("optional"):
        parts.append("optional")
    if a.get("onFail") == "skip":
        parts.append("on fail: skip")
    if isinstance(a.get("parts"), dict):  # a URL template's placeholders (issue 33)
        parts += [f"{{{name}}} <- {ref_text(ref)}" for name, ref in a["parts"].items()]
    if isinstance(a.get("retry"), dict):
        parts.append(f"retry {a['retry'].get('times')}x every {a['retry'].get('intervalMs')} ms")
    return "  ".join(parts)


def step_lines(console: Console, steps: list[dict[str, Any]], depth: int = 0) -> None:
    """One line per step (id, kind, intent, bindings); a block's steps indented below it."""
    from rich.markup import escape

    pad = "  " * depth
    for a in steps:
        line = f"  {pad}{a['id']:>4} {a['kind']:<8} {escape(a['intent'])}"
        bound = bindings(a)
        if bound:
            line += "  [cyan]" + escape(bound) + "[/]"
        console.print(line)
        for key, label in (("body", None), ("then", "then"), ("else", "else")):
            if a.get(key):
                if label:
                    console.print(f"  {pad}     {label}:")
                step_lines(console, a[key], depth + 1)


def io_lines(console: Console, view: dict[str, Any]) -> None:
    """The inputs (type, flags, default, description) and outputs (type, fields, nullable)."""
    from rich.markup import escape

    console.print("inputs:" + ("" if view["inputs"] else " none"))
    for p in view["inputs"]:
        flags = ", ".join(f for f in ("required", "sensitive") if p[f]) or "optional"
        schema = p["schema"]
        kind = schema.get("type", "string") + (
            " of " + ", ".join(map(str, schema["enum"])) if "enum" in schema else ""
        )
        default = f", default {json.dumps(schema['default'])}" if "default" in schema else ""
        about = f" - {schema['description']}" if "description" in schema else ""
        console.print(escape(f"  {p['name']}: {kind} ({flags}{default}){about}"))
    if view["outputs"]:
        console.print("outputs:")
    for o in view["outputs"]:
        kind = o["type"] + (
            " of {" + ", ".join(f"{f['name']}: {f['type']}" for f in o.get("fields", [])) + "}"
            if o["type"] == "list"
            else ""
        )
        null = ", may be null" if o.get("nullable") else ""
        about = f" - {o['description']}" if o.get("description") else ""
        console.print(escape(f"  {o['name']}: {kind}{null}{about}"))
