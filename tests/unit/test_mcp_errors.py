"""The MCP server's last line of defence: an unexpected error is a code, and its text goes nowhere.

An exception's text can hold input values (a pydantic ValidationError prints ``input_value=...``),
so neither the tool result the model sees nor the server's stderr log may contain it.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from skillreel.mcp import server

PLANTED = "planted-value-9f3k"


async def test_an_unexpected_error_in_play_reaches_neither_the_model_nor_the_log(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async def explode(*args: Any, **kwargs: Any) -> Any:
        raise ValueError(f"input_value={PLANTED}")

    monkeypatch.setattr(server, "play", explode)
    with caplog.at_level(logging.DEBUG):
        result = await server.skills_play("some-skill", ctx=None, answer=None, confirmation=None, inputs={})  # type: ignore[arg-type]  # play is replaced
    assert result.is_error
    payload = json.dumps(result.structured_content)
    assert "SR_RECORD_INTERNAL" in payload
    assert PLANTED not in payload
    assert "ValueError" in caplog.text
    assert PLANTED not in caplog.text
    assert all(record.exc_info is None for record in caplog.records)
