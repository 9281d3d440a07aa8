"""``skillreel demo``: the whole product on the bundled invoice desk, stage by stage.

Record a skill from a scripted demonstration, show the draft, approve it, replay it with other
inputs (the password from the vault variable the demo sets for itself), replay it on a redesigned
app (healing, with a pending heal proposal), watch it refuse an ambiguous page, enable it into a
temporary project, play it through the MCP server, play a skill that reads data back and one that uploads,
follows a popup and downloads (demo/attachments.py), revoke it, verify the audit chain and the store.

Each stage returns one :class:`StageResult`; the first stage that fails stops the journey with
``SR_RECORD_DEMO_FAILED`` naming the stage. Everything happens in a temporary directory (the home
too, unless one is given).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import RecordError, SkillreelError
from .app import InvoiceDesk
from .attachments import stage_attach

if TYPE_CHECKING:
    from ..services.replaying import ReplayOutcome
    from ..store import Store

SKILL = "approve-invoice"
SECRET_ENV = "SKILLREEL_SECRET_APPROVE_INVOICE_PASSWORD"  # noqa: S105 (a variable's name)
FINDER = "find-invoices"
FINDER_SECRET_ENV = "SKILLREEL_SECRET_FIND_INVOICES_PASSWORD"  # noqa: S105 (a variable's name)
SECRET_ENVS = (SECRET_ENV, FINDER_SECRET_ENV)
RECORDED_PASSWORD = "demo-Recorded-Pw-7319"  # noqa: S105 (demo app only; typed while recording, never stored)
VAULT_PASSWORD = "demo-Vault-Pw-5582"  # noqa: S105 (demo app only; what the vault gives the replays)
DESCRIPTION = (
    "Approve one supplier invoice on the Invoice Desk: sign in, search by supplier, "
    "filter by region, approve the single match. Use when an invoice must be approved "
    "by supplier and region."
)


@dataclass(frozen=True)
class StageResult:
    stage: str
    ok: bool
    summary: str
    data: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "stage": self.stage,
            "ok": self.ok,
            "summary": self.summary,
            "data": self.data,
            "seconds": round(self.seconds, 2),
        }


@dataclass
class DemoContext:
    workdir: Path
    home: Path
    project: Path
    desk: InvoiceDesk
    settle_ms: int
    results: list[StageResult] = field(default_factory=list)
    _store: Store | None = None

    @property
    def store(self) -> Store:
        """The demo's store, opened by the first stage that needs it (so a home that cannot be
        created fails that stage) and closed when the run ends."""
        if self._store is None:
            from ..store import Store

            self._store = Store.open(self.home)
        return self._store

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None


class DemoStageFailed(RecordError):
    """A stage failed: the message names the stage, the cause's code and the cause's fix."""

    def __init__(self, stage: str, reason: str, cause: SkillreelError | None = None) -> None:
        code = f" ({cause.code})" if cause else ""
        fix = f"; fix: {cause.fix}" if cause else ""
        super().__init__(
            "SR_RECORD_DEMO_FAILED",
            f"demo stage {stage!r} failed{code}: {reason}{fix}",
            details={"stage": stage, **({"cause": cause.code} if cause else {})},
        )


def _automation(start_url: str) -> dict[str, Any]:
    return {
        "steps": [
            {"do": "type", "selector": "input[autocomplete=username]", "text": "clerk"},
            {"do": "type", "selector": "input[type=password]", "text": RECORDED_PASSWORD},
            {"do": "click", "selector": "button[type=submit]"},
            {"do": "wait", "ms": 300},
            {"do": "type", "selector": "input[type=search]", "text": "acme"},
            {"do": "press", "key": "Enter"},
            {"do": "wait", "ms": 200},
            {"do": "select", "selector": "select", "value": "north"},
            {"do": "wait", "ms": 300},
            {"do": "click", "selector": "#results button"},
            {"do": "wait", "ms": 200},
        ]
    }


ASSERTIONS = {
    "assertions": [
        {"kind": "assert", "selector": "#confirmation", "check": "text_contains", "expected": "approved"},
    ]
}


async def stage_record(ctx: DemoContext) -> StageResult:
    from ..services.record_preflight import RecordRequest
    from ..services.recording import record_skill

    automation = ctx.workdir / "automation.json"
    assertions = ctx.workdir / "assertions.json"
    automation.write_text(json.dumps(_automation(ctx.desk.start_url)))
    assertions.write_text(json.dumps(ASSERTIONS))
    try:
        result = await record_skill(
            ctx.store,
            RecordRequest(
                name=SKILL,
                url=ctx.desk.start_url,
                automation=automation,
                assertions=assertions,
                description=DESCRIPTION,
                failure_conditions=(
                    "No invoice matches the supplier and region.",
                    "The invoice was already approved.",
                ),
                sensitive=(),
            ),
        )
    finally:
        automation.unlink(missing_ok=True)  # it held the recorded password; it never entered the home
    draft = result.entry.draft
    params = ", ".join(f"{p.name}{' (sensitive)' if p.sensitive else ''}" for p in draft.parameters)
    return StageResult(
        "record",
        True,
        f"recorded {SKILL!r} r{result.entry.revision}: {len(draft.actions)} actions; parameters {params}",
        {
            "revision": result.entry.revision,
            "actions": len(draft.actions),
            "parameters": [p.to_json() for p in draft.parameters],
            "draftDigest": draft.draft_digest,
        },
    )


async def stage_show(ctx: DemoContext) -> StageResult:
    from ..services.showing import show_skill

    view = show_skill(ctx.store, SKILL).to_json()
    skill = view.get("skill", view)
    kinds = [a["kind"] for a in skill["actions"]]
    sensitive = [p["name"] for p in skill["parameters"] if p["sensitive"]]
    if not sensitive:
        raise DemoStageFailed("show", "the password field was not marked sensitive")
    return StageResult(
        "show",
        True,
        f"draft: {' → '.join(kinds)}; capabilities {', '.join(skill['capabilities'])}",
        {
            "kinds": kinds,
            "sensitive": sensitive,
            "revision": skill["revision"],
            "draftDigest": skill["digests"]["draft"],
        },
    )


async def stage_review(ctx: DemoContext) -> StageResult:
    from ..services.reviewing import review_skill

    shown = next(r.data for r in ctx.results if r.stage == "show")  # approve exactly what was shown
    result = review_skill(
        ctx.store,
        SKILL,
        "demo",
        approve=True,
        expected_revision=shown["revision"],
        draft_digest=shown["draftDigest"],
    ).to_json()
    return StageResult("review", True, f"approved revision {result['revision']} as reviewer 'demo'", result)


async def _replay(ctx: DemoContext, query: str, region: str, timeout_ms: int = 10_000) -> ReplayOutcome:
    """Replay with these inputs; the password comes from the vault variable the demo set."""
    from ..services.replaying import ReplayRequest, replay_skill

    store = ctx.store
    wanted = {"username": "clerk", "query": query, "region": region}
    names = {p.name for p in store.get(SKILL).draft.parameters if not p.sensitive}
    if names != set(wanted):
        raise DemoStageFailed("replay", f"the recording produced parameters {sorted(names)}")
    return await replay_skill(
        store, ReplayRequest(name=SKILL, inputs=wanted, settle_ms=ctx.settle_ms, timeout_ms=timeout_ms)
    )


async def stage_replay(ctx: DemoContext) -> StageResult:
    before = len(ctx.desk.approved)
    outcome = await _replay(ctx, "globex", "south")
    if outcome.status != "succeeded":
        raise DemoStageFailed("replay", "the replay with new inputs failed", outcome.error)
    approved = ctx.desk.approved[before:]
    if approved != ["INV-2077"]:
        raise DemoStageFailed("replay", f"expected INV-2077 approved, the app saw {approved}")
    status = ctx.store.get(SKILL).status
    return StageResult(
        "replay",
        True,
        f"replayed with new inputs (globex, south; password from the vault): "
        f"INV-2077 approved, skill now {status}",
        {"reportDigest": outcome.report.report_digest if outcome.report else None, "status": status},
    )


async def stage_heal(ctx: DemoContext) -> StageResult:
    ctx.desk.use("redesign")
    before = len(ctx.desk.approved)
    outcome = await _replay(ctx, "acme", "north")
    if outcome.status != "succeeded":
        raise DemoStageFailed("heal", "the replay on the redesigned app failed", outcome.error)
    healed = [s.action_id for s in outcome.steps if s.healed]
    if not healed or not outcome.heal_proposed:
        raise DemoStageFailed("heal", "the redesign needed no healing; the demo app did not change")
    if ctx.desk.approved[before:] != ["INV-1042"]:
        raise DemoStageFailed("heal", "the healed replay approved the wrong invoice")
    entry = ctx.store.get(SKILL)
    if not ctx.store.heal_proposals(SKILL):
        raise DemoStageFailed("heal", "no heal proposal was left for review")
    return StageResult(
        "heal",
        True,
        f"redesigned app: healed {len(healed)} step(s) ({', '.join(healed)}), "
        "INV-1042 approved; heal proposal pending review, approved revision unchanged",
        {"healed": healed, "revision": entry.revision},
    )


async def stage_refuse(ctx: DemoContext) -> StageResult:
    ctx.desk.use("ambiguous")
    before = len(ctx.desk.approved)
    # The ambiguous step waits its whole step timeout to be sure; the steps before it (sign-in,
    # search) share that timeout, so it is the normal one, never a short one a loaded machine
    # misses (issue 11 item 11: the stage failed with SR_REPLAY_UI_TIMEOUT under load at 3 s).
    outcome = await _replay(ctx, "acme", "north")
    ctx.desk.use("original")
    if outcome.status != "failed" or outcome.error is None:
        raise DemoStageFailed("refuse", "the replay on an ambiguous page did not fail closed")
    if outcome.error.code != "SR_REPLAY_UI_TARGET_AMBIGUOUS":
        raise DemoStageFailed("refuse", "the ambiguous page failed for another reason", outcome.error)
    if ctx.desk.approved[before:]:
        raise DemoStageFailed("refuse", "something was approved on the ambiguous page")
    return StageResult(
        "refuse",
        True,
        f"ambiguous page: refused at step {outcome.error.action_id} with "
        f"{outcome.error.code}; nothing approved",
        {"code": outcome.error.code, "actionId": outcome.error.action_id},
    )


def _enable(ctx: DemoContext, name: str) -> dict[str, Any]:
    """Enable ``name`` in the demo's project, naming the revision the demo reads (as `show` prints it),
    and confirm as a person that agents may play it (`enable --confirm-agent-play`: MCP plays it unasked)."""
    from ..services.agent_access import confirm_enabled_skill
    from ..services.packaging import enable_skill

    revision = ctx.store.get(name).revision
    result = enable_skill(
        ctx.store, name, "project", ctx.project, approve=True, expected_revision=revision
    ).to_json()
    confirm_enabled_skill(ctx.store, name, approve=True)
    return result


async def stage_enable(ctx: DemoContext) -> StageResult:
    result = _enable(ctx, SKILL)
    paths = [str(Path(p).relative_to(ctx.project)) for p in result["installations"]]
    return StageResult(
        "enable",
        True,
        f"enabled: package {result['packageDigest'][:19]}… installed in {', '.join(paths)}",
        result,
    )


def play_failure(envelope: dict[str, Any]) -> str | None:
    """What an MCP play's failed envelope says, in one line: the code, the step and the message
    (all content-free by the envelope's contract), or None when it carries no error."""
    error = envelope.get("error") or {}
    if not error.get("code"):
        return None
    step = f" at step {error['actionId']}" if error.get("actionId") else ""
    return f"{error['code']}{step}: {error.get('message') or 'no message'}"


async def stage_mcp(ctx: DemoContext) -> StageResult:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "SKILLREEL_CHROMIUM", "TMPDIR")}
    env |= {"SKILLREEL_HOME": str(ctx.home), SECRET_ENV: VAULT_PASSWORD}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "skillreel", "mcp"], env=env, cwd=str(ctx.project)
    )
    before = len(ctx.desk.approved)
    with (ctx.workdir / "mcp-stderr.log").open("a") as errlog:
        async with Client(stdio_client(params, errlog=errlog)) as client:
            listed = (await client.call_tool("skills_list", {})).structured_content or {}
            names = [s["name"] for s in (listed.get("data") or {}).get("skills", [])]
            played = await client.call_tool(
                "skills_play",
                {"name": SKILL, "inputs": {"username": "clerk", "query": "initech", "region": "south"}},
            )
    envelope = played.structured_content or {}  # the result envelope (docs/guide.md, --json)
    result = envelope.get("data") or {}
    if SKILL not in names or played.is_error or not envelope.get("ok"):
        raise DemoStageFailed(
            "mcp",
            f"skills_list saw {names}; skills_play returned {play_failure(envelope) or result.get('status')}",
        )
    if ctx.desk.approved[before:] != ["INV-3310"]:
        raise DemoStageFailed("mcp", "the MCP play approved the wrong invoice")
    return StageResult(
        "mcp",
        True,
        f"MCP: skills_list → {names}; skills_play → {result['status']} (INV-3310 approved)",
        {"listed": names, "reportDigest": result.get("reportDigest")},
    )


# The extraction skill: sign in, search, and read back the invoice total (the amount of the first
# matching invoice: a read by position in the result list), the matching invoices (each item's number
# and total amount) and how many there are. The selectors drive the demonstration only.
_AMOUNT = r"· ([0-9][0-9,.]* [A-Z]{3})$"


def _finder_automation() -> dict[str, Any]:
    sign_in = _automation("")["steps"][:6]
    return {
        "steps": [
            *sign_in,
            {"do": "wait", "selector": "#results li:first-child"},
            {
                "do": "extract",
                "selector": "#results li:first-child span",
                "as": "total",
                "type": "number",
                "pattern": _AMOUNT,
            },
            {
                "do": "extract",
                "selector": "#results li",
                "as": "invoices",
                "all": True,
                "limit": 20,
                "fields": {
                    "invoice": {"selector": "span", "pattern": r"^(INV-[0-9]+)"},
                    "amount": {"selector": "span", "type": "number", "pattern": _AMOUNT},
                },
            },
            {"do": "extract", "selector": "#results li", "as": "matches", "all": True, "read": "count"},
            # a value read by one step feeds a later one (issue 33): search the last match's number
            {
                "do": "extract",
                "selector": "#results li:last-child span",
                "as": "last",
                "pattern": "^(INV-[0-9]+)",
            },
            {"do": "type", "selector": "input[type=search]", "from": "last"},
            {"do": "press", "key": "Enter"},
            {"do": "extract", "selector": "#results li", "as": "narrowed", "all": True, "read": "count"},
        ]
    }


async def stage_extract(ctx: DemoContext) -> StageResult:
    """Record a skill that reads data back, approve, validate and enable it, and play it over MCP:
    the agent gets the invoice total (the first match's), the matching invoices (number and total of
    each) and their count as outputs."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    from ..services.record_preflight import RecordRequest
    from ..services.recording import record_skill
    from ..services.replaying import ReplayRequest, replay_skill
    from ..services.reviewing import review_skill

    automation = ctx.workdir / "finder.json"
    automation.write_text(json.dumps(_finder_automation()))
    try:
        recorded = await record_skill(
            ctx.store,
            RecordRequest(
                name=FINDER,
                url=ctx.desk.start_url,
                automation=automation,
                description="Find the supplier invoices matching a search on the Invoice Desk and return "
                "the first one's total, every match's number and amount, and how many match. Use when "
                "an agent needs invoice data.",
            ),
        )
    finally:
        automation.unlink(missing_ok=True)
    outputs = [o.name for o in recorded.entry.draft.outputs]
    recorded_entry = recorded.entry  # approve exactly the revision and draft this stage recorded
    review_skill(
        ctx.store,
        FINDER,
        "demo",
        approve=True,
        expected_revision=recorded_entry.revision,
        draft_digest=recorded_entry.draft.draft_digest,
    )
    inputs = {"username": "clerk", "query": "globex"}
    checked = await replay_skill(ctx.store, ReplayRequest(FINDER, inputs=inputs, settle_ms=ctx.settle_ms))
    if checked.status != "succeeded":
        raise DemoStageFailed("extract", "the extraction skill's validating replay failed", checked.error)
    _enable(ctx, FINDER)
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "SKILLREEL_CHROMIUM", "TMPDIR")}
    env |= {"SKILLREEL_HOME": str(ctx.home), FINDER_SECRET_ENV: VAULT_PASSWORD}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "skillreel", "mcp"], env=env, cwd=str(ctx.project)
    )
    with (ctx.workdir / "mcp-stderr.log").open("a") as errlog:
        async with Client(stdio_client(params, errlog=errlog)) as client:
            played = await client.call_tool(
                "skills_play", {"name": FINDER, "inputs": {"username": "clerk", "query": "acme"}}
            )
    envelope = played.structured_content or {}
    got = (envelope.get("data") or {}).get("outputs") or {}
    expected = {
        "total": 1250,
        "invoices": [{"invoice": "INV-1042", "amount": 1250}, {"invoice": "INV-1043", "amount": 310}],
        "matches": 2,
        "last": "INV-1043",
        "narrowed": 1,
    }
    if played.is_error or not envelope.get("ok") or got != expected:
        failure = play_failure(envelope) or "other outputs than expected"
        raise DemoStageFailed("extract", f"skills_play returned {failure}")
    return StageResult(
        "extract",
        True,
        f"extraction: {FINDER!r} (outputs {', '.join(outputs)}) played over MCP returned "
        f"the invoice total {got['total']:,} and {got['matches']} matching invoices with the number "
        "and total of each",
        {"outputs": got},
    )


async def stage_revoke(ctx: DemoContext) -> StageResult:
    from ..services.packaging import revoke_skill

    result = revoke_skill(
        ctx.store, SKILL, ctx.project, approve=True, expected_revision=ctx.store.get(SKILL).revision
    ).to_json()
    roots = (ctx.project / ".agents" / "skills", ctx.project / ".claude" / "skills")
    left = [root / SKILL for root in roots if (root / SKILL).exists()]
    if left:
        raise DemoStageFailed("revoke", "package folders are still installed")
    return StageResult("revoke", True, "revoked: packages removed, skill now revoked", result)


async def stage_audit(ctx: DemoContext) -> StageResult:
    from ..services.auditing import verify_audit

    result = verify_audit(ctx.store).to_json()
    if not result["ok"]:
        raise DemoStageFailed("audit", f"the audit chain broke at event {result['brokenAt']}")
    leaks = [
        p
        for p in ctx.home.rglob("*")
        if p.is_file()
        for secret in (RECORDED_PASSWORD, VAULT_PASSWORD)
        if secret.encode() in p.read_bytes()
    ]
    if leaks:
        raise DemoStageFailed("audit", "a typed password was found in the store")
    page_content = [p for p in ctx.home.rglob("*") if p.is_file() and b"INV-1043" in p.read_bytes()]
    if page_content:
        raise DemoStageFailed("audit", "an extracted value was found in the store")
    return StageResult(
        "audit",
        True,
        f"audit chain verified ({result['events']} events); no typed password and no extracted value "
        "anywhere in the home",
        result,
    )


STAGES: tuple[tuple[str, Callable[[DemoContext], Awaitable[StageResult]]], ...] = (
    ("record", stage_record),
    ("show", stage_show),
    ("review", stage_review),
    ("replay", stage_replay),
    ("heal", stage_heal),
    ("refuse", stage_refuse),
    ("enable", stage_enable),
    ("mcp", stage_mcp),
    ("extract", stage_extract),
    ("attach", stage_attach),
    ("revoke", stage_revoke),
    ("audit", stage_audit),
)


@dataclass(frozen=True)
class DemoRun:
    results: list[StageResult]
    workdir: Path | None  # kept directory (home, project, logs), or None when it was removed
    home: Path


OnStart = Callable[[int, int, str], None]  # (stage number from 1, how many stages, its name)


async def _run_stages(
    ctx: DemoContext, on_stage: Callable[[StageResult], None] | None, keep: bool, on_start: OnStart | None
) -> DemoRun:
    for number, (name, stage) in enumerate(STAGES, start=1):
        if on_start:
            on_start(number, len(STAGES), name)
        started = time.monotonic()
        try:
            result = await stage(ctx)
        except DemoStageFailed:
            raise
        except SkillreelError as exc:
            raise DemoStageFailed(name, exc.message, exc) from exc
        result = StageResult(result.stage, result.ok, result.summary, result.data, time.monotonic() - started)
        ctx.results.append(result)
        if on_stage:
            on_stage(result)
    return DemoRun(ctx.results, ctx.workdir if keep else None, ctx.home)


async def run_demo(
    *,
    home: Path | None = None,
    keep: bool = False,
    port: int = 0,
    settle_ms: int = 150,
    on_stage: Callable[[StageResult], None] | None = None,
    on_start: OnStart | None = None,
) -> DemoRun:
    """Run every stage; return their results, or raise the first failure (``SR_RECORD_DEMO_FAILED``).
    ``on_start`` hears of each stage as it begins, ``on_stage`` of its result when it passed.

    With ``keep`` the temporary directory survives (also on failure) and its path is returned.
    """
    workdir = Path(tempfile.mkdtemp(prefix="skillreel-demo-"))
    ctx_home = home if home is not None else workdir / "home"
    project = workdir / "project"
    project.mkdir()
    saved = {name: os.environ.get(name) for name in SECRET_ENVS}
    os.environ.update(dict.fromkeys(SECRET_ENVS, VAULT_PASSWORD))
    try:
        with InvoiceDesk({RECORDED_PASSWORD, VAULT_PASSWORD}, port=port) as desk:
            ctx = DemoContext(workdir, ctx_home, project, desk, settle_ms)
            try:
                return await _run_stages(ctx, on_stage, keep, on_start)
            finally:
                ctx.close()
    except DemoStageFailed as exc:
        if keep:
            exc.details["keptDirectory"] = str(workdir)
            exc.message += f" (files kept in {workdir})"
        raise
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        if not keep:
            shutil.rmtree(workdir, ignore_errors=True)


def run(**kwargs: Any) -> DemoRun:
    return asyncio.run(run_demo(**kwargs))
