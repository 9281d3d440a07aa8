"""PURE: the steps a person's recording has captured so far, as the terminal lists them while the
window records (``skillreel record`` without ``--automation``): each new action once, by its id and
its generated intent (``model.intents``: content-free, what a reviewer reads in ``show``), e.g.
``a4`` ``click the button `#go```. A sensitive parameter (a password field, or one named with
``--sensitive``) reads as the secret input from the vault."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..model.events import RecordedEvent
from ..model.intents import generated_intent
from .project import plan

OnAction = Callable[[str, str], None]  # (action id, generated intent)


class LiveSteps:
    """Called with each event as the log grows (``Recorder(on_event=...)``); tells ``on_action``
    of each action the events now project to that it has not told of yet."""

    def __init__(self, on_action: OnAction, sensitive: Sequence[str] = ()) -> None:
        self._on_action = on_action
        self._sensitive = frozenset(sensitive)
        self._events: list[RecordedEvent] = []
        self._shown = 0

    def __call__(self, event: RecordedEvent) -> None:
        self._events.append(event)
        planned = plan(self._events, self._sensitive)
        secret = self._sensitive | {p.name for p in planned.parameters if p.sensitive}
        for action in planned.actions[self._shown :]:
            self._on_action(action.id, generated_intent(action, secret, named=True))
        self._shown = max(self._shown, len(planned.actions))
