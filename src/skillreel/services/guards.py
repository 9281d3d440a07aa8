"""What every use case shares: the refusal of a change asked for without ``--approve``, and the
checks of ids a person types.

A use case that changes what a person must consent to (review, delete, prune, policy set, import
with replace, enable, revoke) takes ``approve`` as a required keyword. Without it, it runs every
check it can, changes nothing and raises :func:`approval_required`, whose message and ``details``
say what would change.

Every change to a skill also names the revision its caller read (``--expected-revision N``, what
``skillreel show`` prints; a review may name the draft digest instead): :func:`require_pinned`
refuses one that does not (``SR_RECORD_REVISION_UNPINNED``), naming that revision and the exact
command to run, after every other check and before anything changes.
"""

from __future__ import annotations

from typing import Any

from ..errors import InputError, RecordError
from ..model.base import is_label


def approval_required(would: str, details: dict[str, Any], *, revision: int | None = None) -> RecordError:
    """``revision``: the skill's revision, for a change that must name it (:func:`require_pinned`)."""
    repeat = "--approve" if revision is None else f"--expected-revision {revision} --approve"
    return RecordError(
        "SR_RECORD_APPROVAL_REQUIRED",
        f"would {would}; nothing was changed (repeat with {repeat} to do it)",
        details={"wouldChange": details},
    )


def require_pinned(
    expected_revision: int | None, name: str, revision: int, *, would: str, command: str, approve: bool = True
) -> None:
    """Refuse a change to skill ``name`` (now at ``revision``) whose caller named no revision:
    ``command`` is the command as given, without the pin (and without ``--approve``, added when the
    verb takes it)."""
    if expected_revision is not None:
        return
    retry = f"{command} --expected-revision {revision}" + (" --approve" if approve else "")
    raise InputError(
        "SR_RECORD_REVISION_UNPINNED",
        f"say which revision you read: this would {would}; nothing was changed. If revision {revision} "
        f"is what `skillreel show {name}` prints, run `{retry}`",
        details={"revision": revision, "command": retry},
    )


def check_reviewer(reviewer: str) -> str:
    if not is_label(reviewer):
        raise InputError(
            "SR_RECORD_REVIEWER_INVALID", "a reviewer id is letters, digits and . _ @ : - (at most 128)"
        )
    return reviewer
