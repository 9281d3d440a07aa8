"""What every use case shares: the refusal of a change asked for without ``--approve``, and the
checks of ids a person types.

A use case that changes what a person must consent to (review, delete, prune, policy set, import
with replace, enable, revoke) takes ``approve`` as a required keyword. Without it, it runs every
check it can, changes nothing and raises :func:`approval_required`, whose message and ``details``
say what would change.
"""

from __future__ import annotations

from typing import Any

from ..errors import InputError, RecordError
from ..model.base import is_label


def approval_required(would: str, details: dict[str, Any]) -> RecordError:
    return RecordError(
        "SR_RECORD_APPROVAL_REQUIRED",
        f"would {would}; nothing was changed (repeat with --approve to do it)",
        details={"wouldChange": details},
    )


def check_reviewer(reviewer: str) -> str:
    if not is_label(reviewer):
        raise InputError(
            "SR_RECORD_REVIEWER_INVALID", "a reviewer id is letters, digits and . _ @ : - (at most 128)"
        )
    return reviewer
