"""The step handlers of the replay engine, one module per family, found through one table keyed
by step kind (:data:`HANDLERS`): ``acting`` (click, type, select, press), ``choosing`` (choose:
an option of a popup picker), ``checking`` (assert, wait, observe: one poll loop), ``data``
(extract, loop, branch, while), ``page`` (navigate, scroll, dialog, human), ``pointer`` (hover,
upload), ``popups`` (page, download). Each handler takes a
:class:`~skillreel.replay.steps.context.StepContext` and its action. A kind without a handler is
a defect (:func:`handler_for` raises), never a skipped step.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from . import acting, checking, choosing, data, page, pointer, popups
from .context import Handler

_FAMILIES = (acting, checking, choosing, data, page, pointer, popups)
HANDLERS: Mapping[str, Handler] = MappingProxyType({k: v for m in _FAMILIES for k, v in m.HANDLERS.items()})
if len(HANDLERS) != sum(len(m.HANDLERS) for m in _FAMILIES):
    raise AssertionError("two step families claim the same kind")  # pragma: no cover


class UnknownStepKind(LookupError):
    """A step kind no handler serves: a defect in the engine (the model validated the step)."""


def handler_for(kind: str) -> Handler:
    try:
        return HANDLERS[kind]
    except KeyError:
        raise UnknownStepKind(f"no handler for step kind {kind!r}") from None
