"""`skillreel record NAME`: record a skill from one demonstration in Chromium.

With ``--automation FILE`` a scripted demonstration runs headless; without it a headed window opens
(the page shows a recording badge and its title starts "● recording": ``record/indicator.js``), the
terminal lists each captured step (its action id and what it does, ``a4 click the button `#go```,
never a value) on stderr, Enter finishes, Ctrl-C discards (nothing is stored) and ``mark NAME``
marks an element for extraction (``cli/terminal.py``; the element under the pointer is outlined).
A ``--sensitive`` name that no typed field has produced by Enter is named on stderr and the
recording goes on; a second Enter ends it (refused). A scripted demonstration checks
``--sensitive`` names as soon as its last field is filled, before the steps after it run.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..errors import InputError, RecordError
from ..model.limits import DEFAULT_TIMEOUT_MS
from ..services.record_preflight import RecordRequest, prepare
from ..services.recording import RecordResult, record_skill
from ..store import Store
from . import record_repair, terminal
from .completion import complete_skill_name
from .output import Render, emit, json_option

if TYPE_CHECKING:
    from rich.console import Console

_PATH = click.Path(path_type=Path, dir_okay=True, exists=False)


def _viewport(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    match = re.fullmatch(r"(\d{1,5})[xX](\d{1,5})", text)
    if not match:
        raise InputError("SR_RECORD_USAGE", "--viewport takes WIDTHxHEIGHT, e.g. 1280x800")
    return int(match.group(1)), int(match.group(2))


def _named_origin(text: str) -> tuple[str, str]:
    name, sep, origin = text.partition("=")
    if not sep or not name or not origin:
        raise InputError(
            "SR_RECORD_USAGE", "--env takes NAME=ORIGIN, e.g. staging=https://staging.example.com"
        )
    return name, origin


def _announce(action_id: str, intent: str) -> None:
    click.echo(f"  {action_id:<5} {intent}", err=True)


def _notice(text: str) -> None:
    click.echo(text, err=True)


def _human(result: RecordResult) -> Render:
    def render(out: Console) -> None:
        from rich.markup import escape

        data = result.to_json()
        out.print(
            f"recorded [bold]{data['name']}[/] revision {data['revision']} (draft) {data['draftDigest']}"
        )
        for action in data["actions"]:
            extra = next(
                (
                    action[k]
                    for k in ("parameter", "output", "key", "reason", "check", "until")
                    if k in action
                ),
                "",
            )
            if "chosenBy" in action:
                extra = f"chosen by input {action['chosenBy'].get('name')}"
            out.print(f"  {action['id']:<5} {action['kind']:<9} {extra}")
        if data["strippedQueryKeys"]:
            out.print(
                "stripped from the URL (keep one with --keep-query KEY): "
                + escape(", ".join(data["strippedQueryKeys"]))
            )
        for env in data["environments"]:
            out.print(f"environment {env['name']}: {escape(env['origin'])}")
        if data["parameters"]:
            out.print(
                "parameters: "
                + ", ".join(
                    p["name"] + (" (sensitive)" if p["sensitive"] else "") for p in data["parameters"]
                )
            )
        if data["deniedOrigins"]:
            out.print(
                "[yellow]refused origins[/] (add with --allowed-origin if you trust them): "
                + escape(", ".join(data["deniedOrigins"]))
            )
        elif data["deniedOriginsHidden"]:
            out.print(
                f"[yellow]{data['deniedOriginCount']} refused origin(s)[/], not named because a "
                "sensitive value was typed (a page can hide it in a host name); record once "
                "without the secret to see them"
            )
        for warning in data["warnings"]:
            out.print(f"[yellow]warning[/]: {escape(warning)}")
        for gone in data["dropped"]:
            out.print(f"[yellow]not recorded[/]: {gone['count']} x {gone['reason']}: {gone['summary']}")
        out.print(
            f"next: skillreel show {data['name']}, then skillreel review {data['name']} --reviewer ID "
            f"--expected-revision {data['revision']} --approve"
        )

    return render


@click.command("record")
@click.argument("name", shell_complete=complete_skill_name)
@click.option("--html", "html_path", type=_PATH, help="An HTML fixture file (offline target).")
@click.option("--url", help="The target URL (https; http on loopback only).")
@click.option(
    "--allowed-origin",
    "allowed_origins",
    multiple=True,
    help="Another exact origin the page may use (repeat).",
)
@click.option("--identity", help="A non-secret label for the signed-in identity.")
@click.option(
    "--storage-state", type=_PATH, help="Playwright storage state to start with (only its digest is kept)."
)
@click.option(
    "--login",
    "--session",
    "login",
    help="A vault login to start signed in with (`skillreel login set`; --session: its old name).",
)
@click.option(
    "--env",
    "environments",
    multiple=True,
    metavar="NAME=ORIGIN",
    help="Another origin of the same app the skill may replay on (repeat).",
)
@click.option("--keep-query", multiple=True, metavar="KEY", help="Keep this query key of the URL (repeat).")
@click.option("--strip-query", multiple=True, metavar="KEY", help="Strip this query key of the URL (repeat).")
@click.option(
    "--automation", type=_PATH, help="Perform a scripted demonstration instead of recording a person."
)
@click.option("--assertions", type=_PATH, help="Observe/assert steps (CSS selectors) to add at the end.")
@click.option("--sensitive", multiple=True, help="Mark a parameter sensitive (repeat).")
@click.option("--failure", "failures", multiple=True, help="A failure condition in words (repeat).")
@click.option("--description", help="What the skill does and when to use it (1 to 1,024 characters).")
@click.option("--viewport", help="Window size WIDTHxHEIGHT (default 1280x800).")
@click.option(
    "--timeout",
    "timeout_ms",
    type=int,
    default=DEFAULT_TIMEOUT_MS,
    show_default=True,
    help="Per-step timeout of a scripted demonstration, in ms (100 to 30,000).",
)
@click.option(
    "--resume",
    is_flag=True,
    help="Continue the recording of NAME that failed: reopen the page it ended on, keep its steps "
    "(with --automation, skip the steps it already performed).",
)
@click.option(
    "--from-step", metavar="ID", help="Repair: replay the approved steps before ID, record anew from it."
)
@click.option(
    "--only-step", metavar="ID", help="Repair: replay the steps before ID, then pick ID's element again."
)
@click.option("--input", "inputs", multiple=True, metavar="NAME=VALUE", help="A repair's input (repeat).")
@click.option("--expected-revision", type=int, help="A repair: the approved revision it starts from.")
@click.option("--yes", is_flag=True, help="A repair: run the listed steps without asking.")
@json_option
def command(
    name: str,
    html_path: Path | None,
    url: str | None,
    allowed_origins: tuple[str, ...],
    identity: str | None,
    storage_state: Path | None,
    login: str | None,
    environments: tuple[str, ...],
    keep_query: tuple[str, ...],
    strip_query: tuple[str, ...],
    automation: Path | None,
    assertions: Path | None,
    sensitive: tuple[str, ...],
    failures: tuple[str, ...],
    description: str | None,
    viewport: str | None,
    timeout_ms: int,
    resume: bool,
    from_step: str | None,
    only_step: str | None,
    inputs: tuple[str, ...],
    expected_revision: int | None,
    yes: bool,
    as_json: bool,
) -> None:
    """Record a skill from a demonstration in Chromium."""
    if from_step is not None or only_step is not None:
        others: tuple[object, ...] = (url, allowed_origins, identity, environments, keep_query, strip_query)
        others += (assertions, sensitive, failures, description, viewport, resume, login)
        return record_repair.run(
            name,
            from_step=from_step,
            only_step=only_step,
            inputs=inputs,
            automation=automation,
            html_path=html_path,
            storage_state=storage_state,
            expected_revision=expected_revision,
            timeout_ms=timeout_ms,
            yes=yes,
            as_json=as_json,
            others_given=any(others),
        )
    record_repair.refuse_stray({"--input": inputs, "--expected-revision": expected_revision, "--yes": yes})
    prepared = prepare(
        RecordRequest(
            name=name,
            html_path=html_path,
            url=url,
            allowed_origins=allowed_origins,
            identity=identity,
            storage_state=storage_state,
            login=login,
            environments=tuple(_named_origin(e) for e in environments),
            keep_query=keep_query,
            strip_query=strip_query,
            automation=automation,
            assertions=assertions,
            sensitive=sensitive,
            failure_conditions=failures,
            description=description,
            viewport=_viewport(viewport),
            timeout_ms=timeout_ms,
            resume=resume,
        )
    )
    interactive = prepared.interactive
    try:
        with Store.open() as store:
            result = asyncio.run(
                record_skill(
                    store,
                    prepared,
                    terminal=terminal.run if interactive else None,
                    on_action=_announce if interactive else None,
                    on_notice=_notice if interactive else None,
                )
            )
    except KeyboardInterrupt:
        raise RecordError("SR_RECORD_DISCARDED", "recording discarded; nothing was stored") from None
    emit(result.to_json(), as_json=as_json, human=_human(result))
