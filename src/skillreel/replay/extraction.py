"""What an ``extract`` step or a loop's item fields turn the page's raw text into (pure).

The driver reads raw text (or a presence) in the page; these functions type it with
:func:`skillreel.model.values.coerce` and build the output value: a scalar, or a list of flat objects.
A value that does not fit is ``SR_REPLAY_OUTPUT_INVALID`` (a value over its bounds
``SR_REPLAY_OUTPUT_TOO_LARGE``), naming the step, the field and the item index, never the value.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import ReplayError, ReplayUIError
from ..model.actions import ExtractAction
from ..model.reads import FieldSpec
from ..model.values import Scalar, ValueProblem, coerce
from .driving import FieldValue, ListRead


def _where(step: str, field: str | None, item: int | None) -> str:
    where = f"step {step}"
    if item is not None:
        where += f", item {item + 1}"
    if field is not None:
        where += f", field {field!r}"
    return where


def output_error(
    problem: ValueProblem, step: str, field: str | None = None, item: int | None = None
) -> ReplayError:
    code = "SR_REPLAY_OUTPUT_TOO_LARGE" if problem.too_large else "SR_REPLAY_OUTPUT_INVALID"
    return ReplayError(code, f"{_where(step, field, item)}: {problem.reason}", action_id=step)


def scalar(step: ExtractAction, raw: str | None) -> Scalar:
    """A text, value or attribute read as the step's output (an absent attribute is an error)."""
    kind = step.value_type
    assert kind != "list"
    if raw is None:
        raise ReplayError(
            "SR_REPLAY_OUTPUT_INVALID",
            f"step {step.id}: the element has no {step.attribute} attribute",
            action_id=step.id,
        )
    try:
        return coerce(raw, kind, values=step.values, pattern=step.pattern)
    except ValueProblem as exc:
        raise output_error(exc, step.id) from exc


def field(step: str, spec: FieldSpec, read: FieldValue, item: int | None) -> Scalar | None:
    """One field of one item; an absent element is null when the field is optional."""
    if read.outcome == "ambiguous":
        raise ReplayUIError(
            "SR_REPLAY_UI_TARGET_AMBIGUOUS",
            f"{_where(step, spec.name, item)}: several elements of the item match the field",
            action_id=step,
        )
    if read.outcome == "absent" or (read.value is None and spec.read == "attribute"):
        if spec.read == "presence":
            return False
        if spec.optional:
            return None
        raise ReplayUIError(
            "SR_REPLAY_UI_TARGET_NOT_FOUND",
            f"{_where(step, spec.name, item)}: the item has no such element",
            action_id=step,
        )
    if spec.read == "presence":
        return bool(read.value)
    try:
        return coerce(str(read.value), spec.value_type, values=spec.values, pattern=spec.pattern)
    except ValueProblem as exc:
        raise output_error(exc, step, spec.name, item) from exc


def fields(
    step: str, specs: Sequence[FieldSpec], reads: Sequence[FieldValue], item: int | None
) -> dict[str, Scalar | None]:
    if len(reads) != len(specs):
        raise ReplayUIError(
            "SR_REPLAY_UI_ACTION_FAILED", f"step {step}: the page measurement was malformed", action_id=step
        )
    return {spec.name: field(step, spec, read, item) for spec, read in zip(specs, reads, strict=True)}


def rows(step: ExtractAction, read: ListRead) -> list[dict[str, Scalar | None]]:
    """The list output: one object per item read (the caller checked the limit)."""
    return [fields(step.id, step.fields, row, index) for index, row in enumerate(read.rows)]
