"""``skillreel mcp``: enabled skills over the Model Context Protocol (stdio, official SDK).

Two tools, and deliberately no more (source document 004: agents may list and play, never record):

- ``skills_list`` (read-only): the enabled skills with their description, parameters (a typed one
  with its JSON Schema), the JSON Schema of their outputs, and revision.
- ``skills_play(name, inputs, environment=None)``: replays one enabled skill on its recorded
  environment, or on a named environment its approval covers, through
  ``services.replaying.replay_skill`` and returns its status, run id, report digest, the steps
  that ran (healed, side effects) and ``outputs`` (what the skill read from the page: the caller's
  only), or the error code and message. It cannot record, edit, approve, enable or revoke. Its run
  is recorded with the actor ``mcp`` and the client's ``initialize`` name; a client that cancels the
  call ends the run as ``cancelled`` (recorded and audited, no result is sent, as the protocol says).

Who may play (issue 30.5-6): the policy's ``callers.mcp`` may narrow the skills, capabilities and
rate MCP plays (``services.agent_access.check_caller``: ``SR_POLICY_CALLER_*``), and the first play
of each approved revision is confirmed by a person: the resolver ``ask_to_confirm`` asks through
form elicitation (every step's intent, the origins, the capabilities; one ``play`` checkbox bound to
the approval asked about), the play records the acceptance in the store, and a play nobody
confirmed (declined, cancelled, a client without form elicitation, and no ``enable
--confirm-agent-play``) is ``SR_MCP_CONFIRMATION_REQUIRED`` with nothing run.

Both return the result envelope of ``model/envelope.py`` (the one ``--json`` prints) as structured
content, the same JSON as a text block, and ``isError`` when ``ok`` is false; the envelope's JSON
Schema is each tool's ``outputSchema``. ``skills_play`` puts a short rendering (status, outputs at a
glance) in a text block before the JSON. Arguments that do not fit a tool's input schema (a number
for ``name``, a list for ``inputs``, a missing ``name``) are refused in the same envelope with
``SR_RECORD_TOOL_ARGUMENTS_INVALID``, naming the argument and the kind of mismatch, never the value:
the SDK's own message quotes the value, and a model may have put a secret there.

Sensitive parameters never come from the model. A sensitive name in ``inputs`` is refused
(``SR_MCP_SENSITIVE_INPUT``). Values come from the vault first (``SKILLREEL_SECRET_<SKILL>_<PARAM>``
or the OS keyring); a missing one is asked of the user through MCP form elicitation when the client
supports it (the SDK carries the question and the sealed answer on either protocol generation),
otherwise the call fails closed (``SR_REPLAY_SECRET_MISSING``).

One Chromium is kept warm between plays (``sandbox.warm.WarmBrowser``, started on the first play,
closed after ``idle_s`` seconds without one): each play gets a fresh isolated browser context behind
its own fresh enforcing proxy, so nothing (cookies, storage, cache, service workers) survives from
one play to the next, and a play costs about what its steps cost.

What is listed and what a play request is refused for are use cases (``services.agent_access``);
this module is the adapter: SDK wiring, the elicitation, the progress relay and the results.

stdout carries only the protocol: the SDK's stdio transport points file descriptor 1 at stderr while
it serves, logging goes to stderr, and the replay's per-step progress travels as MCP progress
notifications.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server.mcpserver import Context, Elicit, ElicitationResult, MCPServer, Resolve
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.resolve import AcceptedElicitation, CancelledElicitation, DeclinedElicitation
from mcp_types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field, ValidationError, create_model

from ..errors import InputError, SkillreelError
from ..model.envelope import Envelope, failed, succeeded
from ..model.limits import DEFAULT_BROWSER_IDLE_S
from ..model.values import Scalar as InputValue  # services.preflight's InputValue (the same union)
from ..vault import EnvKeyringSecrets, SecretSource, secret_env_name

# The store, the use cases and the replay engine are imported by the tool calls that use them, not
# here: the server answers `initialize` after the MCP SDK's own imports only (docs/dev/ARCHITECTURE.md,
# "Lazy imports"; tests/integration/mcp/test_start.py).
if TYPE_CHECKING:
    from ..replay.engine import HumanPrompt, HumanRequest, StepProgress
    from ..sandbox.warm import WarmBrowser
    from ..services.agent_access import PlayCheck
    from ..services.replaying import ReplayOutcome

log = logging.getLogger("skillreel.mcp")

SERVER_NAME = "skillreel"
BROWSER_IDLE_S = float(DEFAULT_BROWSER_IDLE_S)  # the warm Chromium closes after this long without a play
INSTRUCTIONS = (
    "skillreel serves web skills that a person recorded once in a real browser, a reviewer approved "
    "and a replay validated. Call skills_list to see the enabled skills and their parameters, then "
    "skills_play to run one: it replays the reviewed steps deterministically (no model tokens) and "
    "fails closed with an SR_* code instead of guessing. Never put a sensitive parameter in inputs: "
    "skillreel takes those from the user's vault or asks the user directly."
)
LIST_DESCRIPTION = (
    "List the enabled skillreel skills: name, what each does and when to use it, its revision, "
    "capabilities, allowed origins and parameters (required / sensitive). Read-only."
)
PLAY_DESCRIPTION = (
    "Replay one enabled skillreel skill on its recorded site (or, with `environment`, on one of the "
    "approved environments skills_list shows), with non-sensitive parameters in "
    '`inputs` ({"param": "value"}). Sensitive parameters must NOT be given: skillreel reads them '
    "from the user's vault or asks the user. Returns {ok, data: {status, runId, reportDigest, steps "
    "(status, healed, sideEffects), sideEffects, outputs: what the skill read from the page (as "
    "skills_list's outputs schema) or null}, error: {code (SR_*), message, fix} or null}. Acts on a "
    "real website: when a failed play says sideEffects: true, a retry may repeat work. The first play "
    "of each approved revision asks the user to confirm it (SR_MCP_CONFIRMATION_REQUIRED when they "
    "do not); the policy may refuse a skill, capability or rate to MCP (SR_POLICY_CALLER_*)."
)
LIST_ANNOTATIONS = ToolAnnotations(
    title="List enabled skills",
    read_only_hint=True,
    destructive_hint=False,
    idempotent_hint=True,
    open_world_hint=False,
)
PLAY_ANNOTATIONS = ToolAnnotations(
    title="Play an enabled skill",
    read_only_hint=False,
    destructive_hint=True,
    idempotent_hint=False,
    open_world_hint=True,
)


# --- results -----------------------------------------------------------------------------------

EnvelopeResult = Annotated[CallToolResult, Envelope]  # the SDK publishes Envelope's schema as outputSchema


def tool_result(envelope: dict[str, Any], summary: str | None = None) -> CallToolResult:
    """A result envelope as the tool's structured content and the same JSON as a text block; with
    ``summary``, a short rendering comes first (``skills_play``: status and outputs at a glance)."""
    text = json.dumps(envelope, ensure_ascii=False, indent=2)
    blocks = [TextContent(type="text", text=text)]
    if summary is not None:
        blocks.insert(0, TextContent(type="text", text=summary))
    return CallToolResult(content=list(blocks), structured_content=envelope, is_error=not envelope["ok"])


SUMMARY_VALUE_CHARS = 80
SUMMARY_OUTPUTS = 12


def play_summary(outcome: ReplayOutcome) -> str:
    """One or two lines: the play's status, then (when it returned any) each output, a long text
    cut short and a list as its item count; the whole values are in the structured content."""
    if outcome.error is not None:
        where = f" at step {outcome.error.action_id}" if outcome.error.action_id else ""
        return f"{outcome.name}: failed{where}: {outcome.error.code}"
    head = f"{outcome.name}: {outcome.status}" + (
        f" (revision {outcome.revision})" if outcome.revision is not None else ""
    )
    if not outcome.outputs:
        return head
    shown = []
    for name, value in list(outcome.outputs.items())[:SUMMARY_OUTPUTS]:
        if isinstance(value, list):
            shown.append(f"{name}: {len(value)} item(s)")
            continue
        text = json.dumps(value, ensure_ascii=False)
        if len(text) > SUMMARY_VALUE_CHARS:
            text = text[: SUMMARY_VALUE_CHARS - 1] + "…"
        shown.append(f"{name} = {text}")
    more = len(outcome.outputs) - SUMMARY_OUTPUTS
    if more > 0:
        shown.append(f"and {more} more")
    return head + "\noutputs: " + "; ".join(shown)


def play_refused(exc: SkillreelError, name: str, environment: str | None = None) -> CallToolResult:
    """A ``skills_play`` refused before any step ran: the same replay document as a failed replay."""
    from ..services.runs import refused_outcome

    refused = refused_outcome(name, exc, environment=environment)
    return tool_result(failed("skills_play", exc, refused.to_json()), play_summary(refused))


# --- the question ------------------------------------------------------------------------------


def checked_play(name: str, inputs: Mapping[str, InputValue], environment: str | None = None) -> PlayCheck:
    """``services.agent_access.check_play`` over the store and the default vault (see there)."""
    from ..services.agent_access import check_play
    from ..store import Store

    with Store.open(actor="mcp") as store:
        return check_play(store, name, inputs, default_vault(), environment)


def confirmation_form(approval_digest: str) -> type[BaseModel]:
    """The first-play question's form: one checkbox, bound to the approval it was asked about
    (``asked``, never sent), so an answer never confirms a revision approved after the question."""

    class ConfirmPlay(BaseModel):
        asked: ClassVar[str] = approval_digest
        play: bool = Field(
            title="Play",
            description="Tick to let agents play this approved revision of the skill; leave it to refuse",
        )

    return ConfirmPlay


async def ask_to_confirm(
    name: str, inputs: dict[str, InputValue], ctx: Context, environment: str | None = None
) -> Elicit[BaseModel] | NoQuestion:
    """Runs before ``skills_play``: the first agent play of an approved revision asks the user
    (never the model) to confirm it, listing its steps, origins and capabilities."""
    from ..services.agent_access import confirmation_question

    try:
        check = checked_play(name, inputs, environment)
    except SkillreelError:
        return NoQuestion()  # the tool body reports the refusal
    except Exception as exc:  # the body meets it again and reports SR_RECORD_INTERNAL; ask nothing
        log.error("checking a play request failed unexpectedly: %s", type(exc).__name__)
        return NoQuestion()
    approval = check.entry.approval
    if check.confirmed or approval is None or not can_elicit(ctx):
        return NoQuestion()  # confirmed already, or the body refuses: nobody can be asked
    return Elicit(
        confirmation_question(check.entry, environment), confirmation_form(approval.approval_digest)
    )


def confirmation_refusal(check: PlayCheck, answer: ElicitationResult[Any] | None, ctx: Context) -> str | None:
    """Why this play is not confirmed by a person, or None (confirmed before, or accepted now)."""
    approval = check.entry.approval
    if check.confirmed or approval is None:
        return None  # confirmed, or refused elsewhere (only an enabled, approved skill is played)
    if isinstance(answer, AcceptedElicitation) and not isinstance(answer.data, NoQuestion):
        if getattr(type(answer.data), "asked", None) != approval.approval_digest:
            return "the skill was approved again after the question was asked"
        return None if getattr(answer.data, "play", False) is True else "the user did not tick Play"
    if isinstance(answer, DeclinedElicitation | CancelledElicitation):
        return f"the user {'declined' if answer.action == 'decline' else 'cancelled'}"
    return (
        "this MCP client cannot ask its user (no form elicitation)"
        if not can_elicit(ctx)
        else "nobody was asked"
    )


def caller_client(ctx: Context) -> str | None:
    """The name the client gave in ``initialize`` (a claim, for the run's record), cleaned."""
    from ..services.agent_access import client_label

    try:
        params = ctx.session.client_params
    except Exception:  # no active request (a direct call in a test): no name
        return None
    return client_label(params.client_info.name if params is not None else None)


def can_elicit(ctx: Context) -> bool:
    caps = ctx.client_capabilities
    elicitation = caps.elicitation if caps is not None else None
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def secrets_model(skill: str, params: tuple[str, ...]) -> type[BaseModel]:
    """A form with one string field per missing sensitive parameter (aliases keep any name safe)."""
    fields: dict[str, Any] = {
        f"p{i}": (
            str,
            Field(alias=p, title=p, description=f"Value of {p} (or set {secret_env_name(skill, p)})"),
        )
        for i, p in enumerate(params)
    }
    model: type[BaseModel] = create_model("SkillreelSecrets", **fields)
    return model


class NoQuestion(BaseModel):
    """The resolver decided not to ask (nothing missing, or the call is refused anyway)."""


async def ask_for_secrets(
    name: str,
    inputs: dict[str, InputValue],
    ctx: Context,
    confirmation: Annotated[ElicitationResult[Any], Resolve(ask_to_confirm)],
    environment: str | None = None,
) -> Elicit[BaseModel] | NoQuestion:
    """Runs before ``skills_play``, after the first-play confirmation: ask the user (never the
    model) for missing sensitive values; nothing is asked for a play that will be refused."""
    try:
        check = checked_play(name, inputs, environment)
        if confirmation_refusal(check, confirmation, ctx) is not None:
            return NoQuestion()
    except SkillreelError:
        return NoQuestion()  # the tool body reports the refusal
    except Exception as exc:  # the body meets it again and reports SR_RECORD_INTERNAL; ask nothing
        # the type only: an exception's text may hold input values (a ValidationError shows them)
        log.error("checking a play request failed unexpectedly: %s", type(exc).__name__)
        return NoQuestion()
    if not check.missing or not can_elicit(ctx):
        return NoQuestion()
    message = (
        f"skillreel needs {', '.join(check.missing)} to replay the skill {name!r}. The value goes to "
        "the replay only and never to the model. (Set "
        f"{', '.join(secret_env_name(name, p) for p in check.missing)} to skip this question.)"
    )
    return Elicit(message, secrets_model(name, check.missing))


def default_vault() -> SecretSource:
    return EnvKeyringSecrets()


@dataclass(frozen=True)
class VaultThenUser:
    """The replay's ``SecretSource``: the vault first, then what the user typed into the elicitation."""

    vault: SecretSource
    answers: Mapping[str, str] = field(repr=False)

    def get(self, skill: str, param: str) -> str | None:
        value = self.vault.get(skill, param)
        return value if value is not None else self.answers.get(param)


def elicited_values(
    answer: ElicitationResult[Any], missing: tuple[str, ...], skill: str = ""
) -> dict[str, str]:
    if isinstance(answer, AcceptedElicitation) and isinstance(answer.data, BaseModel) and missing:
        data = answer.data.model_dump(by_alias=True)
        return {p: str(data[p]) for p in missing if isinstance(data.get(p), str)}
    if missing and not isinstance(answer, AcceptedElicitation):
        from ..services.preflight import secret_missing

        raise secret_missing(skill, missing, "declined")
    return {}


# --- the replay --------------------------------------------------------------------------------

Note = tuple[float, float | None, str]


class ProgressRelay:
    """Turns the engine's synchronous per-step callback into MCP progress notifications, in order."""

    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx
        self._send: MemoryObjectSendStream[Note]
        self._receive: MemoryObjectReceiveStream[Note]
        self._send, self._receive = anyio.create_memory_object_stream[Note](max_buffer_size=512)
        self._ran = 0
        self._looped = False

    def __call__(self, step: StepProgress) -> None:
        """Progress only ever increases (MCP): it counts the steps run, loop iterations included;
        once a loop runs steps again the total is unknown and left out."""
        if step.phase == "start":
            return
        if step.phase in ("done", "skipped"):
            self._ran += 1
        if step.iteration is not None or self._ran > step.total:
            self._looped = True
        total = None if self._looped else float(step.total)
        item = f" item {step.iteration + 1}" if step.iteration is not None else ""
        note = f"step {step.index + 1}/{step.total} {step.action_id} ({step.kind}){item} {step.phase}"
        if step.healed:
            note += ", healed"
        if step.code:
            note += f": {step.code}"
        try:
            self._send.send_nowait((float(self._ran), total, note))
        except Exception:  # a full buffer only drops a progress note, never the replay
            log.debug("progress note dropped")

    def close(self) -> None:
        self._send.close()

    async def run(self) -> None:
        async with self._receive:
            async for progress, total, message in self._receive:
                await self._ctx.report_progress(progress, total, message)


def human_prompt(ctx: Context) -> HumanPrompt | None:
    """Ask the user to do a ``human`` step, when this connection can carry a mid-call question."""
    if not (can_elicit(ctx) and ctx.session.can_send_request):
        return None

    class Done(BaseModel):
        done: bool = Field(title="Done", description="Tick when you have done this step in the browser")

    async def prompt(request: HumanRequest) -> bool:
        answer = await ctx.elicit(
            f"Step {request.index + 1}/{request.total} of the replay needs a person "
            f"({request.reason}). Do it in the browser, then confirm.",
            Done,
        )
        return isinstance(answer, AcceptedElicitation) and bool(answer.data.done)

    return prompt


def warm_browser(ctx: Context) -> WarmBrowser | None:
    """The server's warm Chromium (the lifespan's, made now on the first play), or None (a cold
    Chromium per play)."""
    held = ctx.request_context.lifespan_context
    return held.browser() if isinstance(held, WarmHolder) else None


async def play(
    name: str,
    inputs: Mapping[str, InputValue],
    ctx: Context,
    answer: ElicitationResult[Any],
    environment: str | None = None,
    confirmation: ElicitationResult[Any] | None = None,
) -> ReplayOutcome:
    from ..services.agent_access import mcp_request
    from ..services.preflight import secret_missing
    from ..services.replaying import replay_skill
    from ..store import Store

    check = checked_play(name, inputs, environment)
    refusal = confirmation_refusal(check, confirmation, ctx)
    if refusal is not None:
        from ..services.agent_access import confirmation_required

        raise confirmation_required(check.entry, refusal)
    if not check.confirmed:
        from ..services.agent_access import confirm_agent_play

        with Store.open(actor="mcp", client=caller_client(ctx)) as store:
            confirm_agent_play(store, check.entry)  # the skill changed meanwhile: a revision conflict
    secrets = VaultThenUser(default_vault(), elicited_values(answer, check.missing, name))
    still = [p for p in check.missing if secrets.get(name, p) is None]
    if still:
        raise secret_missing(name, still, "mcp")
    # the revision checked; file inputs under uploadDirs, downloads into callers.mcp.downloadsDir
    request = mcp_request(name, inputs, check.entry.revision, environment, check.downloads)
    warm = warm_browser(ctx)
    relay = ProgressRelay(ctx)
    async with anyio.create_task_group() as tg:
        tg.start_soon(relay.run)
        try:
            with Store.open(actor="mcp", client=caller_client(ctx)) as store:
                outcome = await replay_skill(
                    store,
                    request,
                    secrets=secrets,
                    progress=relay,
                    human=human_prompt(ctx),
                    session_factory=warm.session if warm is not None else None,
                )
        finally:
            relay.close()
    return outcome


def outcome_result(outcome: ReplayOutcome) -> CallToolResult:
    """The replay's document in the envelope, exactly as ``skillreel replay --json`` prints it."""
    summary = play_summary(outcome)
    if outcome.error is None:
        return tool_result(succeeded("skills_play", outcome.to_json(), outcome.warnings), summary)
    return tool_result(failed("skills_play", outcome.error, outcome.to_json(), outcome.warnings), summary)


# --- the server --------------------------------------------------------------------------------


async def skills_list() -> EnvelopeResult:
    from ..services.agent_access import enabled_skills
    from ..store import Store

    try:
        with Store.open(actor="mcp") as store:
            listing = enabled_skills(store)
    except SkillreelError as exc:
        return tool_result(failed("skills_list", exc))
    return tool_result(succeeded("skills_list", listing.to_json()))


async def skills_play(
    name: Annotated[str, Field(description="The skill's name, as skills_list shows it.", max_length=64)],
    ctx: Context,
    answer: Annotated[ElicitationResult[Any], Resolve(ask_for_secrets)],
    confirmation: Annotated[ElicitationResult[Any], Resolve(ask_to_confirm)],
    inputs: Annotated[
        dict[str, InputValue],
        Field(description='Non-sensitive parameters: {"param": value} (typed as skills_list shows).'),
    ] = {},  # noqa: B006 - the SDK builds the schema from this default; it is never mutated
    environment: Annotated[
        str | None,
        Field(
            description="A named environment the skill's approval covers (skills_list shows them); "
            "omit it for the recorded site.",
            max_length=32,
        ),
    ] = None,
) -> EnvelopeResult:
    try:
        outcome = await play(name, inputs, ctx, answer, environment, confirmation)
    except SkillreelError as exc:
        return play_refused(exc, name, environment)
    except Exception as exc:  # the last line of defence: a code, never a traceback, reaches the agent
        log.error("skills_play failed unexpectedly: %s", type(exc).__name__)  # never the text: values
        internal = SkillreelError("SR_RECORD_INTERNAL", "unexpected internal error; nothing was stored")
        return play_refused(internal, name, environment)
    return outcome_result(outcome)


def arguments_refused(tool: str, exc: ValidationError) -> CallToolResult:
    """Arguments that failed the tool's input schema, as an envelope: which argument and what kind
    of mismatch (pydantic's error types: ``string_type``, ``missing``...), never the value."""
    names = sorted({str(e["loc"][0]) for e in exc.errors() if e["loc"]}) or ["arguments"]
    kinds = sorted({str(e["type"]) for e in exc.errors()})
    error = InputError(
        "SR_RECORD_TOOL_ARGUMENTS_INVALID",
        f"{tool}: {', '.join(names)} do(es) not fit the tool's input schema ({', '.join(kinds)}); "
        "the values are not repeated here; nothing was done",
    )
    # skills_play answers with a short rendering first, refusals included (one shape for callers)
    summary = f"{tool}: refused: {error.code}" if tool == "skills_play" else None
    return tool_result(failed(tool, error), summary)


class SkillreelServer(MCPServer[Any]):
    """The SDK's server with one change: a call whose arguments fail the tool's input schema gets
    :func:`arguments_refused` instead of the SDK's message, which quotes the values."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc, UnexpectedToolError) or not isinstance(exc.__cause__, ValidationError):
                raise
            log.info("%s refused arguments that do not fit its input schema", name)
            return arguments_refused(name, exc.__cause__)


class WarmHolder:
    """Where the server keeps its :class:`~skillreel.sandbox.warm.WarmBrowser`: made by the first
    play that asks for it, so nothing of the sandbox (Playwright included) is imported, let alone
    started, before a play; the server answers ``initialize`` after the SDK's own imports."""

    def __init__(self, idle_s: float) -> None:
        self.idle_s = idle_s
        self.made: WarmBrowser | None = None

    def browser(self) -> WarmBrowser:
        if self.made is None:
            from ..sandbox.warm import WarmBrowser

            self.made = WarmBrowser(idle_s=self.idle_s)
        return self.made

    async def close(self) -> None:
        if self.made is not None:
            await self.made.close()


def browser_lifespan(
    idle_s: float,
) -> Callable[[MCPServer[Any]], AbstractAsyncContextManager[WarmHolder | None]]:
    """The server's lifespan: a :class:`WarmHolder` (no browser until the first play), its browser
    closed when the server stops. ``idle_s`` 0: no warm browser."""

    @asynccontextmanager
    async def lifespan(_server: MCPServer[Any]) -> AsyncIterator[WarmHolder | None]:
        if idle_s <= 0:
            yield None
            return
        warm = WarmHolder(idle_s)
        try:
            yield warm
        finally:
            await warm.close()

    return lifespan


def build_server(*, browser_idle_s: float = BROWSER_IDLE_S) -> MCPServer[Any]:
    server: MCPServer[Any] = SkillreelServer(
        SERVER_NAME,
        instructions=INSTRUCTIONS,
        version=_version(),
        log_level="WARNING",
        lifespan=browser_lifespan(browser_idle_s),
    )
    server.add_tool(
        skills_list, name="skills_list", description=LIST_DESCRIPTION, annotations=LIST_ANNOTATIONS
    )
    server.add_tool(
        skills_play, name="skills_play", description=PLAY_DESCRIPTION, annotations=PLAY_ANNOTATIONS
    )
    return server


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("skillreel")
    except PackageNotFoundError:
        return "0"


def serve(*, browser_idle_s: float = BROWSER_IDLE_S) -> None:
    """Serve over stdio until the client closes stdin. Logs go to stderr only. ``browser_idle_s``:
    how long the warm Chromium outlives the last play (0: a new Chromium for every play)."""
    logging.basicConfig(
        stream=sys.stderr, level=logging.WARNING, format="skillreel-mcp %(levelname)s %(message)s"
    )
    build_server(browser_idle_s=browser_idle_s).run("stdio")
