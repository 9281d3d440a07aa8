"""What a failed recording keeps, so the person continues it (``skillreel record NAME --resume``)
instead of starting over.

A recording that fails during its demonstration (a scripted step that cannot be performed, the
browser that went away, a window closed) keeps its value-free events log captured so far (the
same log a stored draft keeps: no typed value, no secret, URL tokens already stripped), the
address of the page it ended on (tokens stripped the same way; the last recorded address when
that page's own address cannot be kept), how many steps of its automation file were performed,
and the digest of its environment (target, allowlist, sign-in, viewport), so that a resume with
another target is refused. It is one 0600 JSON file per skill, ``recordings/NAME.json`` under
skillreel's home (the store's directory), written with :func:`~skillreel.private_files.write_private`
and read back through :func:`~skillreel.user_files.read_user_file` (a regular file, no symlink, at
most :data:`MAX_KEPT_BYTES`), its events log checked against its own digest and the whole file
against :attr:`KeptRecording.check`. A file that fails any of these is ``SR_RECORD_KEPT_INVALID``
and nothing is changed. A successful recording of the skill removes it.
"""

from __future__ import annotations

import contextlib
import hashlib
from pathlib import Path
from typing import Annotated, Final, Literal

from pydantic import Field, StringConstraints, ValidationError

from ..errors import InputError, RecordError, SkillreelError
from ..model.base import Document
from ..model.canonical import canonical_json
from ..model.events import EventsLog, RecordedEvent
from ..model.limits import MAX_URL_CHARS
from ..private_files import write_private
from ..user_files import read_user_file

KEPT_INVALID: Final = "SR_RECORD_KEPT_INVALID"
SCHEMA: Final = "skillreel.kept-recording/v1"
MAX_KEPT_BYTES: Final = 32 * 1024 * 1024
FOLDER: Final = "recordings"


class KeptRecording(Document):
    """A failed recording's value-free capture, kept for ``--resume`` (module docstring)."""

    schema_: Literal["skillreel.kept-recording/v1"] = Field(SCHEMA, alias="schema")
    name: Annotated[str, StringConstraints(min_length=1, max_length=64)]
    environment_digest: Annotated[str, StringConstraints(pattern=r"^sha256:[0-9a-f]{64}$")]
    page: Annotated[str, StringConstraints(min_length=1, max_length=MAX_URL_CHARS)]
    steps_done: Annotated[int, Field(ge=0, le=100_000)] = 0
    events: EventsLog
    check: Annotated[str, StringConstraints(pattern=r"^sha256:[0-9a-f]{64}$")] = ""

    def computed_check(self) -> str:
        payload = self.model_dump(mode="json", by_alias=True, exclude={"check"})
        return "sha256:" + hashlib.sha256(SCHEMA.encode() + b"\x00" + canonical_json(payload)).hexdigest()

    def sealed(self) -> KeptRecording:
        return self.model_copy(update={"check": self.computed_check()})


def kept_path(home: Path, name: str) -> Path:
    return home / FOLDER / f"{name}.json"


def keep(home: Path, kept: KeptRecording) -> Path:
    """Write ``kept`` (sealed) as the skill's kept recording (0600, replacing an older one)."""
    folder = home / FOLDER
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    folder.mkdir(mode=0o700, exist_ok=True)
    path = kept_path(home, kept.name)
    write_private(path, canonical_json(kept.sealed().model_dump(mode="json", by_alias=True)))
    return path


def read_kept(home: Path, name: str) -> KeptRecording | None:
    """The skill's kept recording; None when there is none; ``SR_RECORD_KEPT_INVALID`` when it is
    not one skillreel wrote unchanged (too large, not a regular file, malformed, digest wrong)."""
    path = kept_path(home, name)
    if not path.exists() and not path.is_symlink():
        return None
    try:
        data = read_user_file(path, what="kept recording", limit=MAX_KEPT_BYTES)
    except SkillreelError as exc:
        raise RecordError(
            KEPT_INVALID, f"the kept recording of {name!r} cannot be used: {exc.message}"
        ) from exc
    try:
        kept = KeptRecording.model_validate_json(data)
    except (ValidationError, ValueError) as exc:
        raise RecordError(
            KEPT_INVALID,
            f"the kept recording of {name!r} is not valid (changed or damaged); nothing was changed",
        ) from exc
    if kept.name != name or kept.check != kept.computed_check():
        raise RecordError(
            KEPT_INVALID,
            f"the kept recording of {name!r} was changed after it was written; nothing was changed",
        )
    return kept


def drop_kept(home: Path, name: str) -> None:
    """Remove the skill's kept recording (nothing when there is none)."""
    with contextlib.suppress(FileNotFoundError):
        kept_path(home, name).unlink()


def kept_for_resume(home: Path, name: str, environment_digest: str) -> KeptRecording:
    """The kept recording ``--resume`` continues (``SR_RECORD_NOTHING_TO_RESUME``,
    ``SR_RECORD_RESUME_MISMATCH``, ``SR_RECORD_KEPT_INVALID``; nothing is changed)."""
    kept = read_kept(home, name)
    if kept is None:
        raise InputError(
            "SR_RECORD_NOTHING_TO_RESUME",
            f"no failed recording of {name!r} is kept; record it without --resume",
        )
    if kept.environment_digest != environment_digest:
        raise InputError(
            "SR_RECORD_RESUME_MISMATCH",
            f"the kept recording of {name!r} was made with another target (URL, fixture, allowlist, "
            "sign-in or viewport); resume with the options of the recording that failed",
        )
    return kept


def keep_failure(
    home: Path,
    *,
    name: str,
    environment_digest: str,
    events: tuple[RecordedEvent, ...],
    page: str | None,
    salt: str,
    steps_done: int,
    resumed: bool,
    error: SkillreelError,
) -> SkillreelError:
    """Keep what a failed recording captured and return ``error`` saying so (which step failed
    is already in its message; how to continue is added, and ``details.kept`` counts what was
    kept). Nothing is kept (``error`` is returned as it is) when nothing beyond the start was
    captured (a resumed recording keeps what it had) or it cannot be written. ``page``: the
    address the recording ended on, None when it cannot be kept (the last recorded one then)."""
    if len(events) <= (0 if resumed else 1):
        return error
    if page is None:
        page = next((e.url for e in reversed(events) if e.type == "navigate" and e.url), None)
    if page is None:
        return error
    try:
        keep(
            home,
            KeptRecording(
                name=name,
                environment_digest=environment_digest,
                page=page,
                steps_done=steps_done,
                events=EventsLog.build(salt=salt, events=events),
            ),
        )
    except (OSError, ValueError, ValidationError):
        return error
    skipped = f" and skips the {steps_done} automation step(s) already performed" if steps_done else ""
    note = (
        f"; what was captured ({len(events)} events) is kept: `skillreel record {name} --resume` "
        f"with the same options continues from the page it ended on{skipped}"
    )
    return type(error)(
        error.code,
        error.message + note,
        action_id=error.action_id,
        details={**error.details, "kept": {"events": len(events), "stepsDone": steps_done}},
    )
