"""The fleet's wire documents (pure): what travels over the broker besides the signed bundle, one
row's task and one row's result.

A task is ``(bundle, row)``: the bundle is the signed export document as its JSON text (verified
by the worker, ``fleet/bundle.py``), the row a :class:`FleetRow` (the coordinating store's
run id, the row's non-sensitive inputs and the replay options). A result is a :class:`FleetResult`:
the run's outcome, counts, the steps that ran (ids, kinds, flags, evidence digests) and, for a
success, the content-free :class:`~skillreel.model.report.ReplayReport`. Never a sensitive value,
a selector, page text or an extracted value's content: the same rule as every report.

Both are strict documents (unknown keys refused, every digest recomputed on parse), so a result
a worker of another version (or anyone else on the broker) wrote is checked before it is recorded.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints

from .base import ActionId, Document, Label, ParamName
from .limits import MAX_ACTIONS, MAX_TYPE_VALUE_CHARS, SETTLE_MS_RANGE, TIMEOUT_MS_RANGE
from .report import ReplayReport
from .runs import ErrorCode, RunId, StepCount

MAX_MESSAGE_CHARS = 500

# a typed input as a replay takes it (services.preflight.InputValue), a text one bounded
InputValue = Annotated[str, StringConstraints(max_length=MAX_TYPE_VALUE_CHARS)] | bool | int | float
EnvironmentName = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9-]{0,31}$")]


class FleetRow(Document):
    """One row of a batch as a task carries it (never a sensitive value: those come from the
    worker's own vault)."""

    schema_: Literal["skillreel.fleet-row/v1"] = Field("skillreel.fleet-row/v1", alias="schema")
    run_id: RunId
    inputs: dict[ParamName, InputValue] = Field(default_factory=dict, max_length=MAX_ACTIONS)
    environment: EnvironmentName | None = None
    timeout_ms: Annotated[int, Field(ge=TIMEOUT_MS_RANGE[0], le=TIMEOUT_MS_RANGE[1])] = 10_000
    settle_ms: Annotated[int, Field(ge=SETTLE_MS_RANGE[0], le=SETTLE_MS_RANGE[1])] = 0
    heal: bool = True


class FleetStep(Document):
    """One step that ran on the worker (``services.runs.StepReport`` on the wire)."""

    action_id: ActionId
    kind: Annotated[str, StringConstraints(pattern=r"^[a-z]{1,16}$")]
    status: Literal["done", "failed"]
    healed: bool
    side_effects: bool
    evidence_digest: Annotated[str, StringConstraints(pattern=r"^sha256:[0-9a-f]{64}$")] | None = None


class FleetResult(Document):
    """What a worker returns for one row: ``refused`` when it stopped before any browser started
    (bundle, signature, state, pre-flight), so nothing ran. ``outputs`` are what a succeeded row
    read (bounded and masked on the worker, checked again by the coordinator): the caller's alone."""

    schema_: Literal["skillreel.fleet-result/v1"] = Field("skillreel.fleet-result/v1", alias="schema")
    run_id: RunId
    status: Literal["succeeded", "failed"]
    refused: bool = False
    code: ErrorCode | None = None
    message: Annotated[str, StringConstraints(max_length=MAX_MESSAGE_CHARS)] | None = None
    action_id: ActionId | None = None
    steps: tuple[FleetStep, ...] = Field(default=(), max_length=MAX_ACTIONS)
    steps_run: StepCount = 0
    steps_acted: StepCount = 0
    healed_steps: tuple[ActionId, ...] = Field(default=(), max_length=MAX_ACTIONS)
    report: ReplayReport | None = None
    # page content for the caller only (never stored by the coordinator); None: the skill reads nothing
    outputs: dict[str, Any] | None = None
    worker: Label | None = None
    signer: Label | None = None

    def to_wire(self) -> dict[str, Any]:
        """The task's return value (JSON-serialisable; Celery's result backend stores it)."""
        return self.to_json()
