"""skillreel as a user runs it: ``record --automation`` on the oldest version, ``review
--approve``, then ``replay --json`` with other inputs on every version (sensitive inputs from the
vault's environment variables). Only the public command line is used.

The demonstration is the task's steps as an automation file (trusted input, like a person) plus
its checks as an assertions file. A popup picker (``Pick``) is the automation's ``select`` by
``label``. Each ``type``/``select``/``choose`` step the recorder captured becomes a parameter; they
are matched to the task's inputs in the order the steps were demonstrated (a picker recorded as two
plain clicks has no parameter, so the task counts as not recorded).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .spec import Check, Choose, Click, Fill, InputStep, Pick, Press, Task

DEMO_PAUSE_MS = 1_500  # after every click or key press of a demonstration (both tools): a
# person's pace, and time for the next page on a loaded machine
DEMO_END_MS = 2_000  # at the end, as a person who looks at the result before finishing
CLI_TIMEOUT_S = 300
PARAMETER_KINDS = ("type", "select", "choose")  # recorded actions that take a parameter ("choose":
# an option of a popup picker, one step on the combobox)


def automation(task: Task, inputs: Mapping[str, str]) -> dict[str, Any]:
    steps: list[dict[str, Any]] = []
    for step in task.steps:
        if isinstance(step, Fill):
            steps.append({"do": "type", "selector": step.selector, "text": inputs[step.input]})
        elif isinstance(step, Choose):
            steps.append({"do": "select", "selector": step.selector, "value": inputs[step.input]})
        elif isinstance(step, Pick):
            steps += [
                {"do": "select", "selector": step.selector, "label": inputs[step.input]},
                {"do": "wait", "ms": DEMO_PAUSE_MS},
            ]
        elif isinstance(step, Click):
            steps += [{"do": "click", "selector": step.selector}, {"do": "wait", "ms": DEMO_PAUSE_MS}]
        elif isinstance(step, Press):
            steps += [{"do": "press", "key": step.key}, {"do": "wait", "ms": DEMO_PAUSE_MS}]
    steps.append({"do": "wait", "ms": DEMO_END_MS})
    return {"steps": steps}


def assertions(checks: Sequence[Check]) -> dict[str, Any]:
    return {
        "assertions": [
            {"kind": "assert", "selector": c.selector, "check": "text_contains", "expected": c.expected}
            for c in checks
        ]
    }


@dataclass(frozen=True)
class Recorded:
    skill: str
    ok: bool
    detail: str  # the error code when not ok
    parameters: tuple[tuple[str, str, bool], ...] = ()  # (skillreel parameter, task input, sensitive)


@dataclass(frozen=True)
class Ran:
    ok: bool
    detail: str  # "succeeded" or the SR_* code (and the failing step)
    healed: tuple[str, ...] = ()


class Skillreel:
    def __init__(self, home: Path, workdir: Path, python: str | None = None) -> None:
        self.home = home
        self.workdir = workdir
        self.command = [python or sys.executable, "-m", "skillreel"]

    def _run(self, args: Sequence[str], env: Mapping[str, str] | None = None) -> Reply:
        full = {
            **{k: v for k, v in os.environ.items() if not k.startswith("SKILLREEL_SECRET_")},
            "SKILLREEL_HOME": str(self.home),
            **(env or {}),
        }
        proc = subprocess.run(
            [*self.command, *args, "--json"],
            capture_output=True,
            text=True,
            env=full,
            timeout=CLI_TIMEOUT_S,
            check=False,
        )
        try:
            doc = json.loads(proc.stdout)
        except json.JSONDecodeError:
            return Reply(proc.returncode, {}, {"code": "no-json", "message": proc.stderr[-400:]})
        return reply(proc.returncode, doc)

    def record(self, skill: str, task: Task, url: str) -> Recorded:
        self.workdir.mkdir(parents=True, exist_ok=True)
        demo = self.workdir / f"{skill}.automation.json"
        demo.write_text(json.dumps(automation(task, task.record), indent=1))
        args = [
            "record",
            skill,
            "--url",
            url,
            "--automation",
            str(demo),
            "--description",
            f"{task.summary} (real-app corpus)",
        ]
        if task.checks:
            checks = self.workdir / f"{skill}.assertions.json"
            checks.write_text(json.dumps(assertions(task.checks), indent=1))
            args += ["--assertions", str(checks)]
        done = self._run(args)
        if done.status != 0 or done.error is not None:
            return Recorded(skill, False, _code(done.error))
        params = {p["name"]: bool(p["sensitive"]) for p in done.data["parameters"]}
        captured = [a["parameter"] for a in done.data["actions"] if a["kind"] in PARAMETER_KINDS]
        wanted = [s.input for s in task.steps if isinstance(s, InputStep)]
        if len(captured) != len(wanted):
            return Recorded(skill, False, f"captured {len(captured)} of {len(wanted)} typed/selected steps")
        draft = str(done.data["draftDigest"])  # approve exactly the draft that was recorded
        done = self._run(["review", skill, "--reviewer", "realworld", "--draft-digest", draft, "--approve"])
        if done.status != 0:
            return Recorded(skill, False, "review: " + _code(done.error))
        return Recorded(
            skill, True, "recorded", tuple((p, i, params[p]) for p, i in zip(captured, wanted, strict=True))
        )

    def replay(self, recorded: Recorded, inputs: Mapping[str, str]) -> Ran:
        args = ["replay", recorded.skill]
        env: dict[str, str] = {}
        for param, name, sensitive in recorded.parameters:
            if sensitive:
                env[secret_env_name(recorded.skill, param)] = inputs[name]
            else:
                args += ["--input", f"{param}={inputs[name]}"]
        done = self._run(args, env)
        healed = tuple(s["actionId"] for s in done.data.get("steps") or () if s.get("healed"))
        if done.status == 0 and done.error is None and done.data.get("status") == "succeeded":
            return Ran(True, "succeeded", healed)
        error = done.error or {}
        where = f" at {error['actionId']}" if error.get("actionId") else ""
        return Ran(False, f"{error.get('code', 'exit ' + str(done.status))}{where}", healed)


def secret_env_name(skill: str, param: str) -> str:
    """The vault's variable for a sensitive parameter, as docs/guide.md spells it."""
    return "SKILLREEL_SECRET_" + f"{skill}_{param}".upper().replace("-", "_")


@dataclass(frozen=True)
class Reply:
    status: int  # the exit status
    data: dict[str, Any]  # the verb's document ({} when there is none)
    error: dict[str, Any] | None


def reply(status: int, doc: Any) -> Reply:
    """Read ``--json`` output in either shape skillreel has printed: the result envelope
    (``{"schema": "skillreel.result/v1", "ok", "data", "error", ...}``) or, before it, the bare
    document with an ``error`` key on failure. The harness measures both mains."""
    if not isinstance(doc, dict):
        return Reply(status, {}, {"code": "bad-json"})
    if str(doc.get("schema", "")).startswith("skillreel.result/"):
        data = doc.get("data")
        return Reply(status, data if isinstance(data, dict) else {}, doc.get("error"))
    error = doc.get("error")
    return Reply(status, doc, error if isinstance(error, dict) else None)


def _code(error: dict[str, Any] | None) -> str:
    """The error's code and message (skillreel's messages never hold values or page text)."""
    if not isinstance(error, dict):
        return "unknown error"
    return f"{error.get('code')}: {error.get('message')}" if error.get("message") else str(error.get("code"))
