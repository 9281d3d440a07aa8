"""The batch verb's edge (cli/batch.py): how a cancelled batch is reported."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from skillreel.cli.batch import _run
from skillreel.errors import ReplayError


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
