"""The batch verb's edge (cli/batch.py): how a cancelled batch is reported."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from skillreel.cli.batch import _run
from skillreel.errors import ReplayError
from skillreel.services.batching import BatchOutcome, RowResult


async def test_ctrl_c_before_any_row_started_is_a_cancelled_batch_not_a_traceback() -> None:
    """Cancelled while the fleet's coordinator still asks the broker for workers (no row, no
    outcome yet), the verb's edge reports SR_REPLAY_CANCELLED instead of a bare CancelledError."""

    async def never(_on_row: object) -> Any:
        await asyncio.Event().wait()

    task = asyncio.ensure_future(_run(None, never, show=False))  # type: ignore[arg-type]
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(ReplayError) as caught:
        await task
    assert caught.value.code == "SR_REPLAY_CANCELLED"


def test_a_cancelled_batch_counts_every_row_once_by_how_it_ended() -> None:
    """A fleet's given-up row (cancelled) never ran and its interrupted row did: the message said
    '1 row(s) ran, 1 did not start' for three rows."""
    results = tuple(
        RowResult(n, n, status)  # type: ignore[arg-type]
        for n, status in enumerate(("interrupted", "cancelled", "not-run"), start=1)
    )
    outcome = BatchOutcome("search-invoices", "0123456789abcdef", False, 3, results, cancelled=True)
    error = outcome.error
    assert error is not None
    assert error.code == "SR_REPLAY_CANCELLED"
    assert "(1 cancelled, 1 interrupted, 1 not run)" in error.message
