"""What a caller gets of a replay's outputs (pure): shaped as declared, masked, bounded.

    outputs, masked = caller_outputs(draft, values, engine.outputs, login=signed_in_values)
    warnings = masked_warnings(masked)

Nothing here is stored, audited or logged: outputs are the caller's alone. Masking happens before
anything could keep them (a local replay, a fleet worker: ``services.replaying.play_checked``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import ReplayError
from .draft import Draft
from .envelope import ResultWarning
from .limits import MAX_OUTPUTS_BYTES
from .values import mask_outputs, outputs_size

__all__ = ["caller_outputs", "masked_warnings", "sensitive_values"]


def sensitive_values(draft: Draft, values: Mapping[str, str]) -> tuple[str, ...]:
    """The replay's values of sensitive parameters (what no output, artifact or proposal may hold)."""
    return tuple(values[p.name] for p in draft.parameters if p.sensitive and p.name in values)


def caller_outputs(
    draft: Draft, values: Mapping[str, str], read: Mapping[str, Any], *, login: Sequence[str] = ()
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The outputs as the caller gets them, and the names of those masked: every declared output
    (null when the run did not produce it; a collected object's missing fields null), each value
    that contains a sensitive input (of ``values``, the replay's inputs) or a value of the
    signed-in state the replay started with (``login``: its cookie and local-storage values, long
    enough to be told) masked, the whole within its size bound (``SR_REPLAY_OUTPUT_TOO_LARGE``)."""
    shaped: dict[str, Any] = {}
    for spec in draft.outputs:
        value = read.get(spec.name)
        if spec.type == "list" and isinstance(value, list):
            fields = [f.name for f in spec.fields]
            value = [{n: row.get(n) for n in fields} for row in value]
        shaped[spec.name] = value
    masked, names = mask_outputs(shaped, [*sensitive_values(draft, values), *login])
    if outputs_size(masked) > MAX_OUTPUTS_BYTES:
        raise ReplayError(
            "SR_REPLAY_OUTPUT_TOO_LARGE",
            f"the outputs exceed {MAX_OUTPUTS_BYTES // 1024:,} KiB; nothing was returned",
        )
    return masked, names


def masked_warnings(names: Sequence[str]) -> tuple[ResultWarning, ...]:
    """The ``SR_REPLAY_OUTPUT_MASKED`` warning naming the outputs that were masked (none: none).
    A fleet coordinator rebuilds it from the names a worker sends, checked against the skill."""
    if not names:
        return ()
    return (
        ResultWarning(
            code="SR_REPLAY_OUTPUT_MASKED",
            message=f"output(s) {', '.join(names)} held a sensitive input, a login value or a "
            "cookie of the run (as it is or encoded) and were masked",
        ),
    )
