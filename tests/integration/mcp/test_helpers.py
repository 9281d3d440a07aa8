"""The MCP server's small parts, without a subprocess: the secrets form, vault precedence, progress."""

from __future__ import annotations

from typing import Any

import pytest
from mcp.server.elicitation import (
    AcceptedElicitation,
    CancelledElicitation,
    DeclinedElicitation,
    render_elicitation_schema,
)

from skillreel.errors import SkillreelError
from skillreel.mcp.server import VaultThenUser, elicited_values, secrets_model
from skillreel.replay.engine import StepProgress
from skillreel.services.agent_access import skill_summary
from tests.support import factory
from tests.support.factory import validated_entry


class DictVault:
    def __init__(self, values: dict[tuple[str, str], str]) -> None:
        self.values = values

    def get(self, skill: str, param: str) -> str | None:
        return self.values.get((skill, param))


def test_the_secrets_form_is_a_valid_elicitation_schema_even_for_awkward_names() -> None:
    names = ("password", "json", "model_config", "schema", "copy")
    model = secrets_model("sign-in", names)
    schema = render_elicitation_schema(model)
    assert list(schema["properties"]) == list(names)
    assert schema["required"] == list(names)
    assert all(schema["properties"][n]["type"] == "string" for n in names)
    assert "SKILLREEL_SECRET_SIGN_IN_PASSWORD" in schema["properties"]["password"]["description"]
    filled = model.model_validate({n: f"v-{n}" for n in names})
    assert filled.model_dump(by_alias=True) == {n: f"v-{n}" for n in names}


def test_the_vault_wins_over_what_the_user_typed() -> None:
    secrets = VaultThenUser(DictVault({("s", "a"): "from-vault"}), {"a": "typed", "b": "typed-b"})
    assert secrets.get("s", "a") == "from-vault"
    assert secrets.get("s", "b") == "typed-b"
    assert secrets.get("s", "c") is None


def test_elicited_values_come_only_from_an_accepted_form() -> None:
    model = secrets_model("s", ("pin",))
    accepted: Any = AcceptedElicitation(data=model.model_validate({"pin": "1234"}))
    assert elicited_values(accepted, ("pin",)) == {"pin": "1234"}
    assert elicited_values(accepted, ()) == {}
    for refusal in (DeclinedElicitation(), CancelledElicitation()):
        with pytest.raises(SkillreelError) as err:
            elicited_values(refusal, ("pin",))
        assert err.value.code == "SR_REPLAY_SECRET_MISSING"
        assert elicited_values(refusal, ()) == {}


def test_a_listed_skill_carries_metadata_only() -> None:
    env = factory.url_environment(
        "http://127.0.0.1:8000/app/private?tab=SESSIONVALUE", ("https://api.example.test",)
    )
    summary = skill_summary(validated_entry(environment=env, sensitive=True))
    assert summary["target"] == {
        "kind": "url",
        "origin": "http://127.0.0.1:8000",
        "allowedOrigins": ["http://127.0.0.1:8000", "https://api.example.test"],
    }
    assert summary["parameters"] == [
        {
            "name": "query",
            "required": True,
            "sensitive": True,
            "env": "SKILLREEL_SECRET_SEARCH_INVOICES_QUERY",
        }
    ]
    text = str(summary)
    for leak in ("/app/private", "SESSIONVALUE", "#q", "#go", "selector"):
        assert leak not in text


async def test_progress_notes_are_relayed_in_order_after_each_step() -> None:
    from skillreel.mcp.server import ProgressRelay

    class Ctx:
        sent: list[tuple[float, float | None, str | None]] = []

        async def report_progress(
            self, progress: float, total: float | None = None, message: str | None = None
        ) -> None:
            self.sent.append((progress, total, message))

    ctx: Any = Ctx()
    relay = ProgressRelay(ctx)
    for step in (
        StepProgress(0, 2, "a1", "navigate", "start"),
        StepProgress(0, 2, "a1", "navigate", "done"),
        StepProgress(1, 2, "a2", "click", "start"),
        StepProgress(1, 2, "a2", "click", "done", healed=True),
    ):
        relay(step)
    relay.close()
    await relay.run()
    assert ctx.sent == [
        (1.0, 2.0, "step 1/2 a1 (navigate) done"),
        (2.0, 2.0, "step 2/2 a2 (click) done, healed"),
    ]


async def test_progress_only_increases_through_a_loop() -> None:
    from skillreel.mcp.server import ProgressRelay

    class Ctx:
        sent: list[tuple[float, float | None, str | None]] = []

        async def report_progress(
            self, progress: float, total: float | None = None, message: str | None = None
        ) -> None:
            self.sent.append((progress, total, message))

    ctx: Any = Ctx()
    relay = ProgressRelay(ctx)
    relay(StepProgress(0, 3, "a1", "navigate", "done"))
    for item in range(2):
        relay(StepProgress(2, 3, "a3", "click", "done", iteration=item))
    relay(StepProgress(1, 3, "a2", "loop", "done"))
    relay(StepProgress(2, 3, "a4", "click", "skipped"))
    relay.close()
    await relay.run()
    assert ctx.sent == [
        (1.0, 3.0, "step 1/3 a1 (navigate) done"),
        (2.0, None, "step 3/3 a3 (click) item 1 done"),
        (3.0, None, "step 3/3 a3 (click) item 2 done"),
        (4.0, None, "step 2/3 a2 (loop) done"),
        (5.0, None, "step 3/3 a4 (click) skipped"),
    ]
