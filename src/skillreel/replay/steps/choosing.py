"""The ``choose`` step: an option of a popup picker (a combobox and the listbox it opens), chosen by
the option's accessible name.

The combobox is located (and healed) as any click target and clicked (a searchable one, an editable
input, then gets the name typed: the list it filters is read); the driver waits for the listbox it
opens and reads the accessible names of its enabled options. Which option is chosen is
decided here, in plain Python (:func:`option_index`): the ONE whose name equals the input as people
read it (white space collapsed, case as shown). None or several: ``SR_REPLAY_UI_OPTION_NOT_FOUND``
or ``SR_REPLAY_UI_OPTION_AMBIGUOUS``, nothing chosen and the list closed with Escape. The option is
clicked once it is stable, and the combobox must then show the choice
(``SR_REPLAY_UI_OPTION_NOT_SHOWN`` otherwise). The names read stay in memory: no name reaches
evidence, errors or logs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from ...errors import ReplayUIError
from ...model.actions import ChooseAction
from .. import evidence as ev
from .acting import act_on
from .context import Handler, StepContext


def option_name(text: str) -> str:
    """A name as people read it: white space collapsed and trimmed, case kept."""
    return " ".join(text.split())


def option_index(names: Sequence[str], wanted: str) -> int | Literal["none", "many"]:
    """The position of the one name equal to ``wanted`` (both read as :func:`option_name`), or
    ``"none"`` / ``"many"``: never a guess between near names."""
    want = option_name(wanted)
    found = [n for n, name in enumerate(names) if option_name(name) == want]
    if not found:
        return "none"
    return found[0] if len(found) == 1 else "many"


async def choose(ctx: StepContext, a: ChooseAction) -> None:
    step = ctx.step
    value = ctx.text(a.value)
    if value is None:  # an optional input nobody gave: the picker is left as it is
        step.facts["skipped"] = ev.marker_digest("skipped", a.id)
        return
    wanted = option_name(value)
    names = await act_on(
        ctx, a.target, lambda p: ctx.driver.open_picker(p, wanted, timeout_ms=ctx.remaining_ms())
    )
    found = option_index(names, value) if names is not None else "none"
    if isinstance(found, str):
        await ctx.driver.close_picker(timeout_ms=ctx.remaining_ms())
        if names is None:
            why, code = "the picker opened no list of options", "SR_REPLAY_UI_OPTION_NOT_FOUND"
        elif found == "none":
            why, code = "no enabled option has the input's name", "SR_REPLAY_UI_OPTION_NOT_FOUND"
        else:
            why, code = "several enabled options have the input's name", "SR_REPLAY_UI_OPTION_AMBIGUOUS"
        raise ReplayUIError(
            code, f"step {a.id} (choose): {why}; nothing was chosen and the list was closed", action_id=a.id
        )
    if not await ctx.driver.pick_option(found, wanted, timeout_ms=ctx.remaining_ms()):
        raise ReplayUIError(
            "SR_REPLAY_UI_OPTION_NOT_SHOWN",
            f"step {a.id} (choose): the option was clicked but the picker does not show it",
            action_id=a.id,
        )
    await ctx.after()
    step.facts["chosenCheck"] = ev.check_digest("chosenCheck", step.facts.get("target"))


HANDLERS: dict[str, Handler] = {"choose": choose}
