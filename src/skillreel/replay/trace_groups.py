"""Steps as groups of the Playwright trace (``replay --artifacts``; issue 31, point 5).

Direct actions go over CDP (``replay/direct.py``), so Playwright's trace does not list them: the
engine wraps each step's work in a trace group instead, titled with the step's id and its intent
(``a4 click the button #signin``), and a failed step's group holds one more group titled
``a4 FAILED SR_...``. Groups nest as the steps do (a loop's or branch's steps inside its group;
an iteration's steps say which item they ran on) and are always closed, an exception included.

A title is content-free: the intent is :func:`~skillreel.model.intents.generated_intent` (made
from the step alone, never page text or a typed value; a person-written intent is not used), and
a title that would hold one of the replay's hidden values anyway is cut back to the step's id and
kind. The trace is scrubbed and scanned again before it is written (``sandbox/artifacts.py``).

The engine sees only :class:`TraceGroups`; ``sandbox.artifacts.ArtifactRecorder`` implements it on
the traced context, and a replay without ``--artifacts`` passes none (no call at all).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterable
from typing import TYPE_CHECKING, Final, Protocol

from ..model.intents import generated_intent

if TYPE_CHECKING:
    from ..model.actions import Action

MAX_TITLE: Final = 160  # characters; an intent longer than this is cut


class TraceGroups(Protocol):
    """Opens and closes groups of the replay's trace. ``open_group`` returns whether a group was opened
    (only then is ``close_group`` called for it); neither raises (a trace is a convenience)."""

    async def open_group(self, title: str) -> bool: ...

    async def close_group(self) -> None: ...


def step_title(
    action: Action,
    *,
    sensitive: frozenset[str] = frozenset(),
    hidden: Iterable[str] = (),
    iteration: int | None = None,
) -> str:
    """``a4 click the button #signin`` (``a4 [item 2] ...`` inside a loop's iteration), never
    holding a hidden value."""
    where = f" [item {iteration + 1}]" if iteration is not None else ""
    intent = generated_intent(action, sensitive)
    if len(intent) > MAX_TITLE:
        intent = intent[: MAX_TITLE - 1] + "…"
    title = f"{action.id}{where} {intent}"
    if any(value and value in title for value in hidden):  # fail closed: the id and kind only
        return f"{action.id}{where} {action.kind}"
    return title


def failed_title(action_id: str, code: str) -> str:
    """The title of the group that marks a failed step: ``a4 FAILED SR_REPLAY_UI_...``."""
    return f"{action_id} FAILED {code}"


@contextlib.asynccontextmanager
async def step_group(groups: TraceGroups | None, title: str) -> AsyncIterator[None]:
    """One group around the block's work, closed however the block ends; nothing without groups."""
    opened = groups is not None and await groups.open_group(title)
    try:
        yield
    finally:
        if opened and groups is not None:
            await groups.close_group()


async def mark_failed(groups: TraceGroups | None, action_id: str, code: str) -> None:
    """An empty group inside the failed step's group, titled with the failure's code."""
    async with step_group(groups, failed_title(action_id, code)):
        pass
