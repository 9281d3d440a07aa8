"""Debugging artifacts of one replay, on request only (``replay --artifacts DIR``; issue 13, item 7).

When the replay fails (or always, with ``--artifacts-on always``) three files are written into DIR,
each with mode 0600 (DIR itself is created with mode 0700 when it does not exist):

* ``trace.zip`` - a Playwright trace (DOM snapshots, actions, network), opened with
  ``skillreel show-trace DIR`` (Playwright's viewer). Each step's work is a group of the trace
  titled with the step's id and intent (``replay.trace_groups``); the failed step's group holds one
  titled ``a4 FAILED SR_...``, shown as failed (red). Playwright streams the raw trace into a private,
  memory-backed scratch directory (``/dev/shm`` where there is one; removed when the replay ends)
  and it is **scrubbed** before it reaches DIR: every sensitive value of this replay (vault
  values, the storage state's cookies and long local-storage values) is replaced by
  ``[redacted]`` in every text it may show up in (raw, URL-encoded, JSON- and HTML-escaped),
  cookie and authorization headers are blanked, credential values found in the trace's URLs
  (``?token=``, ``#access_token=``...) are hidden like secrets, and the result is scanned again:
  if any hidden value is still there (in a binary resource, say) the trace is withheld. With
  something to hide the trace takes no screencast (pictures cannot be scrubbed); a sensitive value
  shorter than 4 characters cannot be scrubbed safely and withholds the trace too.
* ``screenshot.png`` - the page when the replay ended; form fields are masked when the replay had
  sensitive values, and the screenshot is withheld when the page's text shows one of them.
* ``failure.json`` - the skill, revision, the failing step's id and code, and the page's URL
  (credential-bearing query parameters and the fragment dropped; ``skillreel.replay-artifacts/v1``).

The artifacts hold page content: they never go into the store, the audit log, exports, packages or
MCP results, and the replay says so with a warning. Writing them never changes the replay's outcome:
a problem becomes a warning.
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import secrets
import shutil
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal
from urllib.parse import quote, quote_plus

from ..errors import RecordError
from ..model.secret_scan import SecretScanner
from ..model.urls import strip_tokens, token_values
from ..private_files import write_private

if TYPE_CHECKING:
    import zipfile  # imported where a trace is read: a replay without --artifacts never loads it

    from playwright.async_api import BrowserContext, Page

log = logging.getLogger(__name__)

ArtifactsOn = Literal["failure", "always"]
REDACTED: Final = "[redacted]"
MIN_SCRUBBABLE: Final = 4  # a shorter hidden value cannot be replaced without mangling the trace
MIN_STORED_SECRET: Final = 6  # storage-state values at least this long are treated as secrets
BLANKED_HEADERS: Final = frozenset({"cookie", "set-cookie", "authorization", "proxy-authorization"})
ARTIFACT_FILES: Final = ("trace.zip", "screenshot.png", "failure.json")
FIELDS: Final = (
    "input:not([type=hidden]):not([type=checkbox]):not([type=radio]):not([type=submit])"
    ":not([type=button]):not([type=reset]):not([type=image]), textarea, select, [contenteditable]"
)


@dataclass(frozen=True)
class DebugOptions:
    """How a person asked to watch or debug one replay (never set by the MCP server)."""

    headed: bool = False
    slow_mo_ms: int = 0
    artifacts: Path | None = None
    artifacts_on: ArtifactsOn = "failure"


@dataclass(frozen=True)
class Hidden:
    """The values no artifact may show: this replay's sensitive inputs and storage-state secrets."""

    values: tuple[str, ...] = field(default=(), repr=False)

    @classmethod
    def of(cls, sensitive: Iterable[str], storage_state: Mapping[str, Any] | None = None) -> Hidden:
        found = [v for v in sensitive if v]
        if storage_state is not None:
            found += [v for v in storage_secrets(storage_state) if len(v) >= MIN_STORED_SECRET]
        return cls(tuple(sorted(set(found), key=lambda v: (-len(v), v))))

    def __bool__(self) -> bool:
        return bool(self.values)

    def adding(self, values: Iterable[str]) -> Hidden:
        """These values and ``values`` (the cookies a run ended with, say)."""
        return Hidden.of((*self.values, *values))

    def forms(self) -> tuple[str, ...]:
        """Every form a hidden value takes in a trace: as typed, URL-encoded, JSON- and HTML-escaped."""
        import html  # here: only a trace being scrubbed needs it, not every replay

        out: set[str] = set()
        for value in self.values:
            out.update(
                (value, quote(value, safe=""), quote_plus(value), json.dumps(value)[1:-1], html.escape(value))
            )
        return tuple(sorted(out, key=lambda v: (-len(v), v)))

    @property
    def scrubbable(self) -> bool:
        return all(len(v) >= MIN_SCRUBBABLE for v in self.values)


async def ended_cookies(context: BrowserContext) -> tuple[str, ...]:
    """The values of the cookies a session holds now, those long enough to be told
    (:data:`MIN_STORED_SECRET`): the page's own session cookie is as secret as a login's. None
    when the context cannot say (its browser is gone: nothing more can be read from it either)."""
    try:
        cookies = await context.cookies()
    except Exception as exc:
        log.debug("the session's cookies could not be read: %s", type(exc).__name__)
        return ()
    return tuple(sorted({c["value"] for c in cookies if len(c.get("value") or "") >= MIN_STORED_SECRET}))


def storage_secrets(state: Mapping[str, Any]) -> list[str]:
    """Cookie values and local-storage values of a Playwright storage state."""
    out: list[str] = []
    for cookie in state.get("cookies") or ():
        if isinstance(cookie, Mapping) and isinstance(cookie.get("value"), str):
            out.append(cookie["value"])
    for origin in state.get("origins") or ():
        for item in (origin.get("localStorage") or ()) if isinstance(origin, Mapping) else ():
            if isinstance(item, Mapping) and isinstance(item.get("value"), str):
                out.append(item["value"])
    return out


# ---- the trace: scrubbing (pure, over bytes) ---------------------------------------------------


def _scrub_text(text: str, forms: Sequence[str]) -> str:
    for form in forms:
        if form in text:
            text = text.replace(form, REDACTED)
    return text


def _scrub_json(value: Any, forms: Sequence[str]) -> Any:
    if isinstance(value, str):
        return _scrub_text(value, forms)
    if isinstance(value, list):
        return [_scrub_json(v, forms) for v in value]
    if isinstance(value, dict):
        return {_scrub_text(k, forms): _scrub_json(v, forms) for k, v in value.items()}
    return value


def _blank_credentials(entry: Any) -> Any:
    """A network entry (HAR-like) without cookie or authorization values."""
    if not isinstance(entry, dict):
        return entry
    for side in ("request", "response"):
        message = entry.get(side)
        if not isinstance(message, dict):
            continue
        for header in message.get("headers") or ():
            if isinstance(header, dict) and str(header.get("name", "")).lower() in BLANKED_HEADERS:
                header["value"] = REDACTED
        for cookie in message.get("cookies") or ():
            if isinstance(cookie, dict):
                cookie["value"] = REDACTED
    return entry


_FAILED_GROUP: Final = re.compile(r"\S+ FAILED SR_[A-Z0-9_]+")  # replay.trace_groups.failed_title


def _failed_groups(event: dict[str, Any], failed: dict[str, str]) -> None:
    """Show a failed step's group as failed in the viewer (red): its end event carries an error
    whose message is the group's title (the step's id and code, nothing else)."""
    title = event.get("title")
    if event.get("type") == "before" and event.get("method") == "tracingGroup" and isinstance(title, str):
        if _FAILED_GROUP.fullmatch(title):
            failed[str(event.get("callId"))] = title
    elif event.get("type") == "after" and str(event.get("callId")) in failed:
        event["error"] = {"name": "Error", "message": failed[str(event["callId"])]}


def _scrub_lines(data: bytes, forms: Sequence[str], *, network: bool) -> bytes:
    lines = []
    failed: dict[str, str] = {}
    for line in data.decode("utf-8", errors="replace").splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            lines.append(_scrub_text(line, forms))
            continue
        if network and isinstance(event, dict):
            event["snapshot"] = _blank_credentials(event.get("snapshot"))
        elif isinstance(event, dict):
            _failed_groups(event, failed)
        lines.append(json.dumps(_scrub_json(event, forms), ensure_ascii=False, separators=(",", ":")))
    return ("\n".join(lines) + "\n").encode("utf-8")


def _scrub_bytes(data: bytes, forms: Sequence[str]) -> bytes:
    for form in forms:
        encoded = form.encode("utf-8")
        if encoded in data:
            data = data.replace(encoded, REDACTED.encode())
    return data


_URL: Final = re.compile(r"https?://[^\s\"'<>]+")


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


def url_tokens(archive: zipfile.ZipFile) -> set[str]:
    """The credential values found in URLs of the trace's events (``?token=...``, ``#access_token=``):
    they are hidden like the replay's own secrets (seed 004: URL tokens never reach disk)."""
    found: set[str] = set()
    for info in archive.infolist():
        if not info.filename.endswith((".trace", ".network")):
            continue
        for line in archive.read(info).decode("utf-8", errors="replace").splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            for text in _strings(event):
                for url in _URL.findall(text) if "://" in text else ():
                    found.update(v for v in token_values(url) if len(v) >= MIN_SCRUBBABLE)
    return found


def scrub_trace(data: bytes, hidden: Hidden) -> bytes | None:
    """The trace zip with every hidden value (and every credential value found in its URLs) replaced
    and cookie or authorization headers blanked, or None when it cannot be made clean (a value too
    short to scrub, or one still present after scrubbing)."""
    import zipfile

    if not hidden.scrubbable:
        return None
    with zipfile.ZipFile(io.BytesIO(data)) as source:
        hidden = Hidden((*hidden.values, *sorted(url_tokens(source) - set(hidden.values))))
    forms = hidden.forms()
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as sink:
        for info in source.infolist():
            body = source.read(info)
            if info.filename.endswith((".trace", ".network")):
                body = _scrub_lines(body, forms, network=info.filename.endswith(".network"))
            else:
                body = _scrub_bytes(body, forms)
            sink.writestr(info.filename, body)
    clean = out.getvalue()
    return clean if not leaks(clean, hidden) else None


def encoded_leak(trace: bytes, scanner: SecretScanner) -> str | None:
    """The name of the first entry of the zip that holds a secret in any form the scanner knows
    (encoded, reversed, split...: what scrubbing cannot replace), None when none does."""
    import zipfile

    if not scanner:
        return None
    with zipfile.ZipFile(io.BytesIO(trace)) as archive:
        for info in archive.infolist():
            body = archive.read(info)
            try:
                found = scanner.finds(body.decode("utf-8"))
            except UnicodeDecodeError:  # a binary resource: its bytes as characters, not decoded
                found = scanner.finds(body.decode("latin-1"), decoded=False)
            if found:
                return info.filename
    return None


def leaks(trace: bytes, hidden: Hidden) -> bool:
    """True when any entry of the zip still holds a hidden value in any of its forms."""
    import zipfile

    forms = [f.encode("utf-8") for f in hidden.forms()]
    with zipfile.ZipFile(io.BytesIO(trace)) as archive:
        for info in archive.infolist():
            body = archive.read(info)
            if any(form in body for form in forms):
                return True
    return False


# ---- writing (owner-only files, never through a symlink) ---------------------------------------


def prepare_directory(path: Path) -> Path:
    """The artifacts directory: an existing directory (not a symlink), or a new one with mode 0700
    whose parent exists. Checked before the browser starts; nothing is written yet."""
    try:
        if path.is_symlink():
            raise _output_failed(f"{path} is a symlink")
        if path.exists():
            if not path.is_dir():
                raise _output_failed(f"{path} is not a directory")
            return path
        path.mkdir(mode=0o700)
    except OSError as exc:
        raise _output_failed(f"{path} cannot be created ({exc.strerror or type(exc).__name__})") from exc
    return path


def _output_failed(message: str) -> RecordError:
    return RecordError("SR_RECORD_OUTPUT_FAILED", f"--artifacts: {message}")


def private_scratch() -> Path:
    """A new owner-only directory for Playwright's raw trace (``tracesDir``), memory-backed
    (``/dev/shm``) where the system has one, so the unscrubbed trace never reaches a disk."""
    shm = Path("/dev/shm")  # noqa: S108 - only the base of mkdtemp (a new 0700 directory)
    base = shm if shm.is_dir() and os.access(shm, os.W_OK | os.X_OK) else None
    return Path(tempfile.mkdtemp(prefix="skillreel-trace-", dir=base))


# ---- one replay's recorder ----------------------------------------------------------------------


@dataclass(frozen=True)
class Failure:
    """What failed, content-free: the step and its code."""

    action_id: str | None
    code: str


@dataclass
class ArtifactReport:
    """What was written where, and what was withheld and why (the replay turns it into warnings)."""

    directory: Path
    written: list[str] = field(default_factory=list)
    withheld: list[str] = field(default_factory=list)


class ArtifactRecorder:
    """Starts a Playwright trace on a context and, when asked, writes the artifacts of its replay."""

    def __init__(self, options: DebugOptions, hidden: Hidden, *, name: str, revision: int) -> None:
        assert options.artifacts is not None
        self.directory = options.artifacts
        self.always = options.artifacts_on == "always"
        self.hidden = hidden
        self.name = name
        self.revision = revision
        self.tracing = False
        self.scratch = private_scratch()
        self._context: BrowserContext | None = None

    def close(self) -> None:
        """Remove the raw trace Playwright streamed into the scratch directory."""
        shutil.rmtree(self.scratch, ignore_errors=True)

    async def start(self, context: BrowserContext) -> None:
        try:
            await context.tracing.start(screenshots=not self.hidden, snapshots=True, sources=False)
            self.tracing = True
            self._context = context
        except Exception as exc:  # a trace is a convenience: the replay goes on without one
            log.warning("the replay trace could not be started: %s", type(exc).__name__)

    async def open_group(self, title: str) -> bool:
        """Open a group of the trace (a step's: ``replay.trace_groups``); False when none was
        opened (no trace, or Playwright refused: the replay goes on, ungrouped)."""
        if self._context is None:
            return False
        try:
            await self._context.tracing.group(title)
        except Exception as exc:
            log.debug("a trace group could not be opened: %s", type(exc).__name__)
            return False
        return True

    async def close_group(self) -> None:
        """Close the group opened last (one :meth:`open_group` returned True for)."""
        if self._context is None:
            return
        try:
            await self._context.tracing.group_end()
        except Exception as exc:
            log.debug("a trace group could not be closed: %s", type(exc).__name__)

    async def finish(
        self, context: BrowserContext, page: Page, failure: Failure | None
    ) -> ArtifactReport | None:
        """Write the artifacts (on failure, or always when asked); None when nothing was due."""
        if failure is None and not self.always:
            await self._discard(context)
            return None
        report = ArtifactReport(self.directory)
        self.hidden = self.hidden.adding(await ended_cookies(context))
        scanner = SecretScanner(self.hidden.values)
        url = await self._url(page, scanner)
        await self._screenshot(page, report, scanner)
        await self._trace(context, report, scanner)
        doc = {
            "schema": "skillreel.replay-artifacts/v1",
            "name": self.name,
            "revision": self.revision,
            "outcome": "failed" if failure is not None else "succeeded",
            "actionId": failure.action_id if failure is not None else None,
            "code": failure.code if failure is not None else None,
            "url": url,
            "files": [*report.written, "failure.json"],
        }
        text = json.dumps(doc, indent=2) + "\n"
        if scanner.finds(text):  # the skill's name or the step's id holds no secret: fail closed anyway
            report.withheld.append("failure.json (it would hold a sensitive value)")
            return report
        self._write(report, "failure.json", text.encode("utf-8"))
        return report

    async def _discard(self, context: BrowserContext) -> None:
        if self.tracing:
            try:
                await context.tracing.stop()
            except Exception as exc:
                log.debug("ignored while discarding the trace: %s", type(exc).__name__)

    async def _url(self, page: Page, scanner: SecretScanner) -> str | None:
        try:
            url = strip_tokens(page.url)
        except Exception:
            return None
        return REDACTED if scanner.finds(url) else url

    async def _screenshot(self, page: Page, report: ArtifactReport, scanner: SecretScanner) -> None:
        """The page as a picture, unless its DOM (text and attribute values) holds a secret in any
        form the scanner knows; form fields are masked when there is anything to hide."""
        try:
            if self.hidden:
                shown = await page.content() + "\n" + await page.inner_text("body", timeout=2_000)
                if scanner.finds(shown):
                    report.withheld.append("screenshot.png (the page shows a sensitive value)")
                    return
            masks = [page.locator(FIELDS)] if self.hidden else []
            data = await page.screenshot(timeout=5_000, mask=masks, animations="disabled")
        except Exception as exc:
            report.withheld.append(f"screenshot.png (the page could not be captured: {type(exc).__name__})")
            return
        self._write(report, "screenshot.png", data)

    async def _trace(self, context: BrowserContext, report: ArtifactReport, scanner: SecretScanner) -> None:
        if not self.tracing:
            report.withheld.append("trace.zip (tracing could not start)")
            return
        raw = self.scratch / f"{secrets.token_hex(8)}.zip"
        try:
            await context.tracing.stop(path=raw)
            cleaned = scrub_trace(raw.read_bytes(), self.hidden)  # cookies and URL tokens, always
            if cleaned is None:
                report.withheld.append("trace.zip (a sensitive value could not be scrubbed from it)")
                return
            entry = encoded_leak(cleaned, scanner)
            if entry is not None:  # encoded, reversed, split: no scrubbing can be trusted with it
                report.withheld.append(f"trace.zip ({entry} holds a sensitive value in an encoded form)")
                return
        except Exception as exc:
            report.withheld.append(f"trace.zip (the trace could not be saved: {type(exc).__name__})")
            return
        finally:
            raw.unlink(missing_ok=True)
        self._write(report, "trace.zip", cleaned)

    def _write(self, report: ArtifactReport, name: str, data: bytes) -> None:
        try:
            write_private(self.directory / name, data)
        except OSError as exc:
            report.withheld.append(f"{name} (it could not be written: {exc.strerror or type(exc).__name__})")
            return
        report.written.append(name)
