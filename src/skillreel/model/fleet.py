"""The fleet's wire documents (pure): what travels over the broker besides the signed bundle, one
row's task, its envelope and one row's result.

A task is ``(bundle, row, envelope)``: the bundle is the signed export document as its JSON text
(verified by the worker, ``fleet/bundle.py``), the row a :class:`FleetRow` (the coordinating store's
run id, the row's non-sensitive inputs and the replay options), the envelope a
:class:`FleetEnvelope` the coordinator signed for this one task: it binds the bundle's digest, the
runset, row and run, a digest of the inputs, the environment and the options, with a random nonce
and a not-after time (:func:`envelope_mismatch` says what a task does not match; the worker checks
the signature, the time and the nonce, ``fleet/envelope.py``). A result is a :class:`FleetResult`:
the run's outcome, counts, the steps that ran (ids, kinds, flags, evidence digests) and, for a
success, the content-free :class:`~skillreel.model.report.ReplayReport`. Never a sensitive value,
a selector, page text or an extracted value's content: the same rule as every report.

Both are strict documents (unknown keys refused, every digest recomputed on parse), so a result
a worker of another version (or anyone else on the broker) wrote is checked before it is recorded.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints

from .base import ActionId, Digest, DigestedDocument, Document, Label, ParamName, Timestamp
from .canonical import tagged_digest
from .export import Signature
from .limits import (
    HEARTBEAT_S_RANGE,
    MAX_ACTIONS,
    MAX_OUTPUTS,
    MAX_TYPE_VALUE_CHARS,
    SETTLE_MS_RANGE,
    TIMEOUT_MS_RANGE,
)
from .refs import OutputName
from .report import ReplayReport
from .runs import ErrorCode, RowNumber, RunId, RunsetId, StepCount

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


HeartbeatMs = Annotated[int, Field(ge=int(HEARTBEAT_S_RANGE[0] * 1000), le=int(HEARTBEAT_S_RANGE[1] * 1000))]
_INPUTS_TAG = "skillreel.fleet-inputs/v1"


def inputs_digest(inputs: dict[str, InputValue]) -> str:
    """The digest an envelope binds a row's inputs with (canonical JSON, its own tag)."""
    return tagged_digest(_INPUTS_TAG, inputs)


class FleetEnvelope(DigestedDocument):
    """The coordinator's word for one task: this bundle, this row of this runset, these inputs,
    environment and options, once (``nonce``), until ``not_after``. Signed over ``envelope_digest``
    in the fleet task's own signature domain (``store/signing.py``), the signature outside it."""

    digest_tag = "skillreel.fleet-task/v1"
    digest_field = "envelope_digest"
    digest_excludes = frozenset({"signature"})

    schema_: Literal["skillreel.fleet-task/v1"] = Field("skillreel.fleet-task/v1", alias="schema")
    run_id: RunId
    runset_id: RunsetId
    row: RowNumber
    bundle_digest: Digest  # the bundle's exportDigest
    inputs_digest: Digest
    environment: EnvironmentName | None = None
    timeout_ms: Annotated[int, Field(ge=TIMEOUT_MS_RANGE[0], le=TIMEOUT_MS_RANGE[1])]
    settle_ms: Annotated[int, Field(ge=SETTLE_MS_RANGE[0], le=SETTLE_MS_RANGE[1])]
    heal: bool
    heartbeat_ms: HeartbeatMs
    nonce: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{32}$")]
    issued_at: Timestamp
    not_after: Timestamp
    envelope_digest: Digest
    signature: Signature | None = None


def envelope_mismatch(envelope: FleetEnvelope, row: FleetRow, bundle_digest: str) -> str | None:
    """What of a task its envelope does not vouch for (``None``: everything matches)."""
    checks = (
        ("run", envelope.run_id == row.run_id),
        ("bundle", envelope.bundle_digest == bundle_digest),
        ("inputs", envelope.inputs_digest == inputs_digest(row.inputs)),
        ("environment", envelope.environment == row.environment),
        (
            "options",
            (envelope.timeout_ms, envelope.settle_ms, envelope.heal)
            == (row.timeout_ms, row.settle_ms, row.heal),
        ),
    )
    return next((what for what, same in checks if not same), None)


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
    read (bounded and masked on the worker, checked again by the coordinator): the caller's alone;
    ``masked`` names those the worker masked (the coordinator, having checked them against the
    skill's outputs, warns the caller as a local replay does)."""

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
    masked: tuple[OutputName, ...] = Field(default=(), max_length=MAX_OUTPUTS)
    worker: Label | None = None
    signer: Label | None = None

    def to_wire(self) -> dict[str, Any]:
        """The task's return value (JSON-serialisable; Celery's result backend stores it)."""
        return self.to_json()
