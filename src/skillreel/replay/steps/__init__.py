"""The step handlers of the replay engine, one module per family, found through one table keyed
by step kind (:data:`HANDLERS`): ``acting`` (click, type, select, press), ``choosing`` (choose:
an option of a popup picker), ``checking`` (assert, wait, observe: one poll loop), ``data``
(extract, loop, branch), ``page`` (navigate, scroll, dialog, human), ``popups`` (page, download).
Each handler takes a :class:`~skillreel.replay.steps.context.StepContext` and its action. A kind
without a handler is a defect (:func:`handler_for` raises), never a skipped step.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from . import acting, checking, choosing, data, page, popups
from .context import Handler

HANDLERS: Mapping[str, Handler] = MappingProxyType(
    {
        **acting.HANDLERS,
        **checking.HANDLERS,
        **choosing.HANDLERS,
        **data.HANDLERS,
        **page.HANDLERS,
        **popups.HANDLERS,
    }
)
if len(HANDLERS) != sum(len(m.HANDLERS) for m in (acting, checking, choosing, data, page, popups)):
    raise AssertionError("two step families claim the same kind")  # pragma: no cover


class UnknownStepKind(LookupError):
    """A step kind no handler serves: a defect in the engine (the model validated the step)."""


def handler_for(kind: str) -> Handler:
    try:
        return HANDLERS[kind]
    except KeyError:
        raise UnknownStepKind(f"no handler for step kind {kind!r}") from None
