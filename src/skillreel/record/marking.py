"""What the terminal may do while a person records (``cli/terminal.py``): mark an element, or
every element like it, for extraction, or mark one for an ``absent`` check.

Only this object arms a mark, and only the next trusted click completes it, swallowed before the
page sees it (``record/recorder.js``); output names and an absent check's text come from the
terminal, never from the page.
"""

from __future__ import annotations

import asyncio

from pydantic import TypeAdapter, ValidationError

from ..errors import InputError
from ..model.events import Extraction
from ..model.reads import FieldSpec
from ..model.refs import OutputName
from ..model.values import ValueType
from .automation import DEFAULT_LIST_LIMIT
from .recorder import Marked, Recorder

_OUTPUT = TypeAdapter(OutputName)


class Marking:
    """What the terminal may do while a person records: mark an element (or every element like it)
    for extraction. Only this object arms a mark, and only the next trusted click completes it,
    swallowed before the page sees it (``record/recorder.js``); the output's name comes from the
    terminal, never from the page."""

    def __init__(self, recorder: Recorder) -> None:
        self._recorder = recorder

    def check_name(self, name: str) -> None:
        """``SR_RECORD_USAGE`` unless ``name`` is a new output name."""
        try:
            _OUTPUT.validate_python(name)
        except ValidationError as exc:
            raise InputError("SR_RECORD_USAGE", "an output name is like 'total' or 'invoice_ids'") from exc
        taken = {e.extraction.output for e in self._recorder.events if e.extraction is not None}
        if name in taken:
            raise InputError("SR_RECORD_USAGE", f"an output is already named {name!r}")

    async def arm(self, *, all_items: bool) -> asyncio.Future[Marked]:
        """Arm mark mode; the future completes with what the next click marked."""
        return await self._recorder.arm_mark(all_items=all_items)

    def cancel(self) -> None:
        self._recorder.disarm_mark()

    def record(self, name: str, marked: Marked, value_type: ValueType | None = None) -> bool:
        """Add the extraction of what was marked as output ``name``; False when the click fell on
        nothing that can be described (nothing is added)."""
        self.check_name(name)
        try:
            if marked.items is not None:
                field = FieldSpec(name="text", type=value_type)
                extraction = Extraction(
                    output=name, read="list", items=marked.items, fields=(field,), limit=DEFAULT_LIST_LIMIT
                )
            elif marked.target is not None:
                extraction = Extraction(output=name, read="text", target=marked.target, type=value_type)
            else:
                return False
        except ValueError:  # the element can only be described by its text: nothing to extract
            return False
        self._recorder.append_event("extract", extraction=extraction)
        return True

    def record_absent(self, marked: Marked, text: str | None) -> bool:
        """Add, at this point, an ``absent`` assertion on what was marked: no element like it is on
        the page, or (``text``, typed in the terminal) none holds that text (issue 31.3); False
        when the click fell on nothing that can be described (nothing is added)."""
        if marked.target is None:
            return False
        self._recorder.append_event("assert", target=marked.target, check="absent", expected=text)
        return True
