"""Which steps read a page that held a secret (pure): the review's flag for output masking's limit.

A page a secret was typed into can keep it and write it, in a form of its own choosing, into what a
later step extracts. ``model.secret_scan`` masks the common forms; it cannot be complete against
such a page, so ``show`` and the review page name those steps (``extractsAfterSecret``).
"""

from __future__ import annotations

from collections.abc import Iterable

from .actions import Action, ExtractAction, LoopAction, NavigateAction, TypeAction, walk
from .draft import Draft
from .refs import ParameterRef

__all__ = ["EXPOSED_READS", "exposed_reads", "extracts_after_secret"]

EXPOSED_READS = (
    "extracts after a sensitive input on the same page: masking cannot be complete against a page "
    "that held the secret"
)


def extracts_after_secret(actions: Iterable[Action], sensitive: Iterable[str]) -> tuple[str, ...]:
    """The ids of the steps that read a page into an output (``extract``, a ``loop`` that collects)
    after a ``type`` of a sensitive parameter on the same page: in document order, with no
    ``navigate`` between them (a click that loads another page is not known before a replay: it
    counts as the same page). Masking cannot be complete against a page that held the secret."""
    names = set(sensitive)
    typed = False
    flagged: list[str] = []
    for action in walk(actions):
        if isinstance(action, NavigateAction):
            typed = False
        elif isinstance(action, TypeAction):
            ref = action.value
            typed = typed or (isinstance(ref, ParameterRef) and ref.name in names)
        elif typed and (
            isinstance(action, ExtractAction) or (isinstance(action, LoopAction) and action.collect)
        ):
            flagged.append(action.id)
    return tuple(flagged)


def exposed_reads(draft: Draft) -> tuple[str, ...]:
    """:func:`extracts_after_secret` of a draft's steps and sensitive parameters."""
    return extracts_after_secret(draft.actions, (p.name for p in draft.parameters if p.sensitive))
