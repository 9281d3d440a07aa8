"""What a recording captures: page payloads validated, and the value-free events log built from
them and from what the browser reports (ARCHITECTURE section 6). Pure: the Playwright/CDP glue
that receives the payloads and notifications is :mod:`skillreel.record.recorder`.

Every binding payload is untrusted input: it is size-bounded and validated against
:class:`~skillreel.model.events.PageEvent` before it counts (:meth:`CaptureLog.validate`). A typed
value then goes to :class:`~skillreel.record.redact.TypedValues` (memory only) and leaves no trace
in the log (not even a digest: a salted digest stored beside its salt gives a short value away to
anyone who guesses); the event's selectors, hashes and parameter hint are scrubbed of typed text
(:meth:`CaptureLog.accept`).

Navigations of the first page's main frame are recorded when the browser, not the page, started
them (:func:`classify_start`): Chromium announces a renderer-initiated navigation (a link, a form,
a script, ``location.reload()``) with ``Page.frameRequestedNavigation`` just before its
``Page.frameStartedNavigating``; such a navigation is a consequence of a recorded action and is
not recorded again. Any other start is the address bar, a reload or back/forward (recorded as an
address-bar navigation to that URL), classified from its ``navigationType`` when it starts and
recorded when the same loader commits, with the committed URL (:meth:`CaptureLog.navigated`).
URLs are stored only through :func:`~skillreel.record.redact.scrub_url` (no query pair the
target's query-key rule strips, no fragment, no typed text).

Anything from the page that is refused is kept as a content-free problem: :meth:`CaptureLog.finish`
then fails the recording (``SR_RECORD_CAPTURE_FAILED``) and nothing is stored. Anything the person
did that the recorder could not keep and that does not fail it (:data:`DROP_REASONS`) is counted by
reason, never with page text or a value (:meth:`CaptureLog.drop`), and listed in the recording's
summary (:attr:`Capture.dropped`).
"""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from pydantic import ValidationError

from ..errors import RecordError
from ..model.actions import RETRYABLE, Retry
from ..model.events import (
    MAX_EVENTS,
    MAX_PAGE_EVENT_BYTES,
    EventsLog,
    NavigateReason,
    PageDrop,
    PageEvent,
    RecordedEvent,
)
from ..model.limits import MAX_TYPE_VALUE_CHARS, MAX_URL_CHARS
from ..model.locators import LocatorBundle, in_row, structure_only
from ..model.urls import DEFAULT_RULE, QueryRule, strip_tokens
from .binding import BindProblem, Over, bound
from .redact import TypedValues, scrub_bundle, scrub_field, scrub_options, scrub_url

CAPTURE_FAILED: Final = "SR_RECORD_CAPTURE_FAILED"

ADDRESS_BAR_TRANSITIONS: Final = frozenset(
    {
        "typed",
        "address_bar",
        "generated",
        "auto_bookmark",
        "keyword",
        "keyword_generated",
        "auto_toplevel",
    }
)

_START_REASONS: Final[dict[str, NavigateReason]] = {
    "differentDocument": "address-bar",
    "historyDifferentDocument": "address-bar",
    "restore": "address-bar",
    "restoreWithPost": "address-bar",
    "reload": "reload",
    "reloadBypassingCache": "reload",
}


def classify_start(navigation_type: str, page_requested: bool) -> NavigateReason | None:
    """Whether a main-frame navigation that starts is recorded, and as what.

    ``page_requested``: Chromium announced it as the page's own (``frameRequestedNavigation``).
    Same-document navigations (``sameDocument``, ``historySameDocument``) are never recorded.
    """
    if page_requested:
        return None
    return _START_REASONS.get(navigation_type)


DropReason = Literal["mark-unarmed", "navigation-unrecordable", "page-left"] | PageDrop

# Why an event was not kept, as the recording's summary says it (no page text, no value).
DROP_REASONS: Final[dict[DropReason, str]] = {
    "mark-unarmed": "a click swallowed by a mark that was cancelled meanwhile",
    "navigation-unrecordable": "a navigation to an error, blank or data page (it has no URL to replay)",
    "page-left": "an event a page reported after the recorder had left it",
    # reported by the page's recorder (record/recorder.js, picker.js)
    "twin-pressed": "a press on an element a re-render replaced by an identical one under the pointer "
    "(the press made again is the step)",
    "no-target": "a click on nothing the recorder could describe",
    "picker-closed": "a click on a backdrop or an Escape that closed a picker's list left open after a "
    "choice (its choose step leaves the list closed)",
}


@dataclass(frozen=True)
class Dropped:
    """How many events the recorder could not keep for one reason (:data:`DROP_REASONS`)."""

    reason: DropReason
    count: int

    def to_json(self) -> dict[str, Any]:
        return {"reason": self.reason, "count": self.count, "summary": DROP_REASONS[self.reason]}


@dataclass(frozen=True)
class Capture:
    """What a recording captured: the value-free log, the typed values (memory only) and what
    it could not keep (counted by reason, in the order of :data:`DROP_REASONS`)."""

    events: EventsLog
    typed: TypedValues
    dropped: tuple[Dropped, ...] = ()


class CaptureLog:
    """The events log of one recording as it grows, the typed values (memory only) and the
    problems that will fail it. Every event the recorder keeps goes through :meth:`append`."""

    def __init__(
        self,
        *,
        salt: str,
        public: Sequence[str] = (),
        url_rule: QueryRule = DEFAULT_RULE,
        on_event: Callable[[RecordedEvent], None] | None = None,
    ) -> None:
        self.salt = salt
        self.public = tuple(public)  # texts the user gave before anything was typed
        self.url_rule = url_rule
        self.typed = TypedValues()
        self.problems: list[str] = []
        self._dropped: Counter[DropReason] = Counter()
        self._events: list[RecordedEvent] = []
        self._on_event = on_event
        self._binding: tuple[str, Over] | None = None
        self.value_from: str | None = None  # field edits now type an extracted output (automation)
        self.retry_next: Retry | None = None  # the next navigation, read or wait retries (automation)
        self.bind_problem: str | None = None
        self._sensitive_at: set[str] = set()  # the pages (URL without fragment) sensitive values went into

    @property
    def events(self) -> tuple[RecordedEvent, ...]:
        return tuple(self._events)

    def problem(self, reason: str) -> None:
        """Note a content-free reason the recording must fail."""
        self.problems.append(reason)

    def drop(self, reason: DropReason) -> None:
        """Count an event the recorder could not keep (the recording goes on; its summary says so)."""
        self._dropped[reason] += 1

    @property
    def dropped(self) -> tuple[Dropped, ...]:
        return tuple(Dropped(r, self._dropped[r]) for r in DROP_REASONS if self._dropped[r])

    def finish(self) -> Capture:
        """The events log (``SR_RECORD_CAPTURE_FAILED`` if anything from the page was refused)."""
        if self.problems:
            raise RecordError(CAPTURE_FAILED, f"{self.problems[0]}; nothing was stored")
        events = EventsLog.build(salt=self.salt, events=tuple(self._events))
        return Capture(events, self.typed, self.dropped)

    def world_config(self) -> dict[str, Any]:
        """What each isolated world is configured with: the fingerprint salt, the values typed so
        far (which of them were public when typed, which a click may choose by), the texts the
        user gave before recording and whether a sensitive value was typed (a world then sends
        no display name: it cannot compare them with a value typed in another document)."""
        return {
            "salt": self.salt,
            "values": list(self.typed.originals()),
            "publicValues": list(self.typed.public_values()),
            "publicTexts": list(self.public),
            "choosable": list(self.typed.values()),
            "sensitiveTyped": bool(self._sensitive_at),
        }

    # -- events -----------------------------------------------------------------------------------

    def append(self, event: RecordedEvent) -> None:
        if len(self._events) >= MAX_EVENTS:
            if not self.problems:
                self.problems.append(f"the recording exceeded {MAX_EVENTS} events")
            return
        if self.retry_next is not None and event.type in RETRYABLE:
            event, self.retry_next = event.model_copy(update={"retry": self.retry_next}), None
        self._events.append(event)
        if self._on_event is not None:
            self._on_event(event)

    def append_event(self, kind: str, **fields: Any) -> None:
        """Append an event of ``kind`` with the next sequence number."""
        self.append(RecordedEvent.model_validate({"seq": len(self._events), "type": kind, **fields}))

    def downloaded(self, page: int, output: str | None = None) -> bool:
        """The page ``page`` started a download: its last event, a click (not one chosen by a
        typed value), becomes a ``download`` event kept as ``output`` (default: ``download``,
        ``download_2``...). False, and nothing changed, when its last event is no such click."""
        last = next((i for i in range(len(self._events) - 1, -1, -1) if self._events[i].page == page), None)
        if last is None:
            return False
        event = self._events[last]
        if event.type != "click" or event.chosen_by is not None:
            return False
        taken = {e.output for e in self._events} | {
            e.extraction.output for e in self._events if e.extraction is not None
        }
        name, n = output or "download", 1
        while output is None and name in taken:
            n += 1
            name = f"download_{n}"
        data = {**event.to_json(), "type": "download", "output": name}
        self._events[last] = RecordedEvent.model_validate_json(json.dumps(data))
        return True

    def start(self, url: str) -> None:
        """Record the start navigation (``url`` already normalised with the target's query rule)."""
        self.append(
            RecordedEvent(
                seq=len(self._events), type="navigate", url=strip_tokens(url, self.url_rule), reason="start"
            )
        )

    def human(self) -> None:
        """A step only a person may perform (what the page did cannot be kept as it was)."""
        self.append(RecordedEvent(seq=len(self._events), type="human", reason="other"))

    def validate(self, payload: object) -> PageEvent | None:
        """A binding payload as a page event; None (and a problem noted) when it is refused."""
        if not isinstance(payload, str) or len(payload) > MAX_PAGE_EVENT_BYTES:
            self.problems.append("the page sent an event larger than the recorder allows")
            return None
        try:
            return PageEvent.parse(payload)
        except (ValidationError, ValueError):
            self.problems.append(_why_invalid(payload))
            return None

    def accept(self, page: int, event: PageEvent, page_url: str) -> None:
        """Append a validated page event (not a mark) from page ``page``, now at ``page_url``."""
        if event.type == "input" and event.value is not None:
            seen = [*self.public, *(e.url for e in self._events if e.url), page_url]
            self.typed.add(event.value, seen_in=seen)
            self.typed.note_edit(event.value, len(self._events))
        if event.type == "input" and event.field is not None and event.field.is_sensitive:
            self._sensitive_at.add(page_url.partition("#")[0])
        target = scrub_bundle(event.target, self.typed, self.salt) if event.target else None
        if target is not None and target.display_name is not None and self._unscreened(page_url):
            target = target.model_copy(update={"display_name": None})
        if target is not None and target.row is not None and event.chosen_by is None:
            target = None  # a row target names the input that chose its row, or it is a person's step
        fields: dict[str, Any] = {
            "seq": len(self._events),
            "type": event.type,
            "page": page,
            "target": target,
            "key": event.key,
            "reason": event.reason,
        }
        if event.chosen_by is not None and target is not None:
            # A click on an element showing a value typed earlier: the target is the set of like
            # elements (structure only) and the edit that typed the value chooses among them; a
            # click inside a row showing it: the element of that row (``row``, model.locators). A
            # value Python never received (a password) chooses nothing: a person does the step.
            edit = self.typed.edit_shown(event.chosen_by, self.salt)
            if edit is None:
                fields.update(type="human", reason="other", target=None)
            else:
                fp = target.fingerprint
                chosen = LocatorBundle(
                    candidates=target.candidates,
                    fingerprint=in_row(fp) if target.row else structure_only(fp),
                    row=target.row,
                )
                fields.update(target=chosen, chosen_by=edit)
        if self._binding is not None and fields["type"] == "click":
            self._bind(fields)
        if self.value_from is not None and fields["type"] in ("input", "select", "choose"):
            fields["from_output"] = self.value_from
        if event.target is not None and target is None:
            fields.update(type="human", reason="other", key=None)
        elif event.field is not None:
            fields["field"] = scrub_field(event.field, self.typed)  # the value stays in memory only
            if event.type in ("select", "choose") and not event.field.is_sensitive:
                fields["options"] = scrub_options(event.options, self.typed)
                if fields["options"] is not None and event.option_labels:
                    fields["option_labels"] = event.option_labels
        self.append(RecordedEvent.model_validate(fields))

    def _unscreened(self, page_url: str) -> bool:
        """Whether a display name from ``page_url`` cannot have been compared with every sensitive
        value typed (they never leave the page they were typed on; issue 31): a sensitive value
        went into another page. Fail closed: then the target keeps its hashes only."""
        return bool(self._sensitive_at) and page_url.partition("#")[0] not in self._sensitive_at

    def bind_next_click(self, by: str, over: Over) -> None:
        """The next click is chosen by input ``by`` (the parameter of an earlier field edit) over
        ``over`` (automation ``"by"``); :attr:`bind_problem` says why not, until it is."""
        self._binding = (by, over)
        self.bind_problem = "no click was recorded"

    def _bind(self, fields: dict[str, Any]) -> None:
        assert self._binding is not None
        by, over = self._binding
        self._binding = None
        edit = next(
            (e for e in reversed(self._events) if e.field is not None and e.field.param_hint == by), None
        )
        if edit is None or edit.field is None:
            self.bind_problem = f"no field typed into before it makes input {by!r}"
        elif edit.field.is_sensitive:
            self.bind_problem = f"input {by!r} is sensitive: it never chooses what is clicked"
        elif fields.get("chosen_by") == edit.seq:
            self.bind_problem = None  # the recorder saw the element or its row show that input
        elif fields["target"] is None:
            self.bind_problem = "the click was recorded as a person's step"
        else:
            try:
                fields.update(target=bound(fields["target"], over), chosen_by=edit.seq)
                self.bind_problem = None
            except BindProblem as exc:
                self.bind_problem = f"the click cannot be chosen by input {by!r}: {exc}"

    def navigated(self, url: str, reason: NavigateReason) -> None:
        """Record a committed navigation the browser started (see the module docstring)."""
        if url.startswith(("chrome-error:", "about:", "data:", "blob:")):
            self.drop("navigation-unrecordable")
            return
        kept = scrub_url(url, self.typed, self.url_rule)
        if kept is None or len(kept) > MAX_URL_CHARS:
            self.human()
            return
        self.append(RecordedEvent(seq=len(self._events), type="navigate", url=kept, reason=reason))

    def dialog_closed(self, kind: str | None, accepted: bool, user_input: Any) -> None:
        """Record how a person answered a JavaScript dialog of ``kind``."""
        if kind == "prompt" and accepted and user_input:
            # A prompt's text would be a typed value the page asked for: a person gives it.
            self.human()
            return
        self.append_event("dialog", accept=accepted, dialog=kind)


def _why_invalid(payload: str) -> str:
    """A content-free reason for a refused payload (the payload itself is never repeated)."""
    with contextlib.suppress(ValueError, TypeError, AttributeError):
        value = json.loads(payload).get("value")
        if isinstance(value, str) and len(value) > MAX_TYPE_VALUE_CHARS:
            return "a typed value was longer than 8,192 characters"
    return "the page sent an event the recorder could not validate"
