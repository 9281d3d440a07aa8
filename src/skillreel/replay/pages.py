"""The pages role of :class:`~skillreel.replay.driver.PlaywrightDriver`: which page the steps act
on, and the files a ``download`` step keeps (issue 32.3, 32.4).

A skill acts on its first page until a ``page`` step switches: ``to: "popup"`` takes the newest
popup a page of the context opened since the previous switch to a popup (a ``target=_blank``
link, ``window.open``), waiting for it until the step's deadline; none opened is
``SR_REPLAY_UI_POPUP_MISSING`` (fail closed: the steps meant for the popup never run on the first
page). ``to: "main"`` returns to the first page, closing the popup first with ``close``. Each page
has its own parts (isolated world, dialogs, locating, direct input), made when the page is first
switched to and kept, so a return to the first page finds its world as it left it. The network
boundary is the context's (routing and the enforcing proxy), so it holds on a popup as on the
first page: a popup to an origin off the allowlist is refused and counted like any request.

A ``download`` step clicks with Playwright's ``expect_download`` armed and saves the file under
the replay's downloads directory (:func:`save_download`). Any other download the page starts is
refused: the context of a skill without ``net.download`` does not accept downloads (Chromium
cancels them, nothing is written), and the next settle fails the step with
``SR_REPLAY_UI_DOWNLOAD_REFUSED``.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hashlib
import os
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Protocol

from playwright.async_api import BrowserContext, Download, Page
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from ..errors import ReplayUIError
from ..model.downloads import numbered, safe_filename
from ..model.limits import MAX_DOWNLOAD_BYTES

_CHUNK: Final = 1024 * 1024
_NAME_TRIES: Final = 1000  # "name (1).ext" ... before giving up on a crowded directory


class Ledger(Protocol):
    def mark(self) -> int: ...
    def origins_since(self, mark: int) -> tuple[str, ...]: ...


class Session(Protocol):
    """What the driver needs of ``sandbox.context.BrowserSession``."""

    @property
    def page(self) -> Page: ...
    @property
    def context(self) -> BrowserContext: ...
    @property
    def ledger(self) -> Ledger: ...
    @property
    def crashed(self) -> bool: ...
    async def goto_start(self, *, timeout_ms: int = 30_000) -> None: ...


@dataclass(frozen=True)
class Saved:
    """A file a download step kept: where, its (sanitised) name, its size and its SHA-256."""

    path: Path
    name: str
    size: int
    sha256: str

    def to_json(self) -> dict[str, object]:
        return {"path": str(self.path), "name": self.name, "bytes": self.size, "sha256": self.sha256}


class PageSet:
    """The pages of one replay: the first page, the popups the context opened (in order) and the
    page the steps act on now. ``bind`` points the driver's parts at a page."""

    def __init__(self, session: Session, bind: Callable[[Page], None]) -> None:
        self.main = session.page
        self.current = session.page
        self._bind = bind
        self._opened: list[Page] = []
        self._taken = 0  # popups opened before this index were switched to (or passed over)
        self._arrived = asyncio.Event()
        self._expecting = False
        self._refused = 0  # downloads no download step expected
        session.context.on("page", self._on_page)
        self._watch(self.main)

    def _on_page(self, page: Page) -> None:
        if page is self.main:
            return
        self._opened.append(page)
        self._watch(page)
        self._arrived.set()

    def _watch(self, page: Page) -> None:
        page.on("download", self._on_download)

    def _on_download(self, download: Download) -> None:
        if self._expecting:
            return
        self._refused += 1
        # without net.download the context accepts none (nothing was written); with it, drop it
        asyncio.get_running_loop().create_task(_quietly_cancel(download))

    def check_downloads(self, action_id: str | None = None) -> None:
        """Fail closed when the page started a download no ``download`` step expects."""
        if self._refused:
            self._refused = 0
            raise ReplayUIError(
                "SR_REPLAY_UI_DOWNLOAD_REFUSED",
                "the page started a download no download step expects; nothing was saved",
                action_id=action_id,
            )

    async def switch(self, to: str, *, close: bool, timeout_ms: int, action_id: str) -> None:
        """Act on ``to`` (``"popup"`` or ``"main"``) from now on; see the module."""
        if to == "main":
            if close and self.current is not self.main and not self.current.is_closed():
                with contextlib.suppress(PlaywrightError):
                    await self.current.close()
            self.current = self.main
            self._bind(self.main)
            return
        page = await self._next_popup(timeout_ms, action_id)
        try:
            await page.wait_for_load_state("load", timeout=max(1, timeout_ms))
        except PlaywrightTimeoutError as exc:
            raise ReplayUIError(
                "SR_REPLAY_UI_TIMEOUT", f"step {action_id}: the popup did not load in time"
            ) from exc
        except PlaywrightError as exc:
            raise _missing(action_id, "closed before the step could act on it") from exc
        self.current = page
        self._bind(page)

    async def _next_popup(self, timeout_ms: int, action_id: str) -> Page:
        deadline = asyncio.get_running_loop().time() + timeout_ms / 1000
        while len(self._opened) <= self._taken:
            self._arrived.clear()
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise _missing(action_id, "did not open")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._arrived.wait(), left)
        page = self._opened[-1]
        self._taken = len(self._opened)
        if page.is_closed():
            raise _missing(action_id, "closed before the step could act on it")
        return page

    @contextlib.asynccontextmanager
    async def expecting_download(self, *, timeout_ms: int, action_id: str) -> AsyncIterator[list[Download]]:
        """Arm for the download the block's click starts; the list holds it after the block."""
        got: list[Download] = []
        self._expecting = True
        try:
            async with self.current.expect_download(timeout=max(1, timeout_ms)) as info:
                yield got
            got.append(await info.value)
        except PlaywrightTimeoutError as exc:
            raise ReplayUIError(
                "SR_REPLAY_UI_DOWNLOAD_MISSING",
                f"step {action_id}: the click started no download before the step's deadline",
                action_id=action_id,
            ) from exc
        finally:
            self._expecting = False


def _missing(action_id: str, what: str) -> ReplayUIError:
    return ReplayUIError(
        "SR_REPLAY_UI_POPUP_MISSING",
        f"step {action_id}: the popup the steps before were to open {what}; nothing was done there",
        action_id=action_id,
    )


async def _quietly_cancel(download: Download) -> None:
    with contextlib.suppress(PlaywrightError):
        await download.cancel()
    with contextlib.suppress(PlaywrightError):
        await download.delete()


async def save_download(
    download: Download, directory: Path, *, action_id: str, limit: int | None = None
) -> Saved:
    """Copy the finished download into ``directory`` under its sanitised suggested name (a new
    file, never an existing one: ``name (1).ext`` when taken), 0600, at most ``limit`` bytes: over
    it the step fails and the partial file is deleted. Playwright's own copy is deleted either way."""
    limit = MAX_DOWNLOAD_BYTES if limit is None else limit
    try:
        failure = await download.failure()
        source = None if failure is not None else await download.path()
    except PlaywrightError as exc:
        raise _failed(action_id, "the download did not finish") from exc
    try:
        if source is None:
            raise _failed(action_id, "the download did not finish")
        return await asyncio.to_thread(
            _copy, Path(source), directory, safe_filename(download.suggested_filename), limit, action_id
        )
    finally:
        with contextlib.suppress(PlaywrightError):
            await download.delete()


def _copy(source: Path, directory: Path, name: str, limit: int, action_id: str) -> Saved:
    if source.stat().st_size > limit:
        raise _too_large(action_id, limit)
    fd, path, chosen = _create(directory, name, action_id)
    digest, size = hashlib.sha256(), 0
    try:
        with os.fdopen(fd, "wb") as out, source.open("rb") as src:
            while chunk := src.read(_CHUNK):
                size += len(chunk)
                if size > limit:
                    raise _too_large(action_id, limit)
                digest.update(chunk)
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            path.unlink()
        raise
    return Saved(path, chosen, size, digest.hexdigest())


def _create(directory: Path, name: str, action_id: str) -> tuple[int, Path, str]:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for n in range(_NAME_TRIES):
        chosen = numbered(name, n)
        path = directory / chosen
        try:
            return os.open(path, flags, 0o600), path, chosen
        except FileExistsError:
            continue
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                continue
            raise ReplayUIError(
                "SR_REPLAY_UI_DOWNLOADS_DIR_INVALID",
                f"step {action_id}: the downloads directory cannot take a new file",
                action_id=action_id,
            ) from exc
    raise _failed(action_id, f"the downloads directory already holds {_NAME_TRIES} files of that name")


def _too_large(action_id: str, limit: int) -> ReplayUIError:
    return ReplayUIError(
        "SR_REPLAY_UI_DOWNLOAD_TOO_LARGE",
        f"step {action_id}: the download exceeds {limit // (1024 * 1024):,} MiB; "
        "the partial file was deleted",
        action_id=action_id,
        details={"limitBytes": limit},
    )


def _failed(action_id: str, why: str) -> ReplayUIError:
    return ReplayUIError(
        "SR_REPLAY_UI_DOWNLOAD_FAILED", f"step {action_id}: {why}; nothing was saved", action_id=action_id
    )
