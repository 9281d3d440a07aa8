"""The page's dialogs during a replay (the :class:`~skillreel.replay.driving.Dialogs` role of
:class:`~skillreel.replay.driver.PlaywrightDriver`): the answer a dialog step armed before the
step that opens it, given to the first dialog of the kind expected; every other dialog is
dismissed. A dialog's message is never read."""

from __future__ import annotations

import logging

from playwright.async_api import Dialog, Page
from playwright.async_api import Error as PlaywrightError

from .driving import DialogSeen

log = logging.getLogger(__name__)


class PageDialogs:
    """Answers the dialogs of ``page``: listens from the first armed answer on."""

    def __init__(self, page: Page) -> None:
        self._page = page
        self._armed: tuple[bool, str | None, str | None] | None = None
        self.seen: DialogSeen | None = None  # the dialog the armed answer met (None: none yet)
        self._listening = False

    async def _on_dialog(self, dialog: Dialog) -> None:
        """Every dialog of the page: the armed answer when it is of the kind expected, else
        dismissed (as the first version did for all of them). Its message is never read."""
        armed, kind = self._armed, dialog.type
        try:
            if armed is not None and armed[2] in (None, kind):
                accept, text, _ = armed
                self._armed = None
                self.seen = DialogSeen(kind, True)
                if accept and kind == "prompt" and text is not None:
                    await dialog.accept(text)
                elif accept:
                    await dialog.accept()
                else:
                    await dialog.dismiss()
                return
            if armed is not None:
                self._armed = None
                self.seen = DialogSeen(kind, False)
            await dialog.dismiss()
        except PlaywrightError as exc:  # the page went away with its dialog
            log.debug("dialog: %s", type(exc).__name__)

    def _listen(self) -> None:
        if not self._listening:
            self._page.on("dialog", self._on_dialog)
            self._listening = True

    async def arm(self, *, accept: bool, text: str | None, expects: str | None) -> None:
        """Answer the next dialog so (a dialog of another kind than ``expects`` is dismissed)."""
        self._listen()
        self._armed = (accept, text, expects)
        self.seen = None

    def disarm(self) -> None:
        """Forget an armed answer: dialogs are dismissed again."""
        self._armed = None
        self.seen = None
