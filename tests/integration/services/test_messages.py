"""Messages that help: each fix line fits its code, an unknown input lists the parameters and
suggests the closest, a missing sensitive value points to the vault (never to --input)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillreel.errors.codes import CODES
from skillreel.services.preflight import ReplayRequest
from skillreel.services.replaying import replay_skill
from skillreel.services.reviewing import review_skill
from skillreel.store import Store
from tests.integration.services.store_checks import NAME, refused
from tests.support.factory import seed

FIXTURE = "<html><body>fixture</body></html>"  # what tests.support.factory.html_environment binds


def test_fix_lines_fit_their_codes() -> None:
    assert "reviewer" in CODES["SR_RECORD_REVIEWER_INVALID"].fix
    secret = CODES["SR_REPLAY_SECRET_MISSING"].fix
    assert "SKILLREEL_SECRET_" in secret
    assert "never passed with --input" in secret
    assert "sensitive" not in CODES["SR_REPLAY_PARAMETER_MISSING"].fix  # it is about plain inputs only
    assert "parameters the message lists" in CODES["SR_REPLAY_PARAMETER_UNKNOWN"].fix


def test_a_bad_reviewer_id_says_so(store: Store, skillreel_home: Path) -> None:
    seed(store)
    error = refused(
        skillreel_home,
        "SR_RECORD_REVIEWER_INVALID",
        lambda: review_skill(store, NAME, "alice smith", approve=True),
        exit_status=2,
    )
    assert "reviewer id" in error.message


async def test_an_unknown_input_lists_the_parameters_and_the_closest(store: Store, tmp_path: Path) -> None:
    seed(store, status="approved")
    html = tmp_path / "fixture.html"
    html.write_text(FIXTURE)
    outcome = await replay_skill(store, ReplayRequest(NAME, {"querry": "x"}, html_path=html))
    assert outcome.error is not None
    assert outcome.error.code == "SR_REPLAY_PARAMETER_UNKNOWN"
    assert (
        outcome.error.message
        == "'querry' names no parameter: skill 'search-invoices' takes query; did you mean 'query'?"
    )
    assert outcome.error.details == {"parameters": ["query"]}
    far = await replay_skill(store, ReplayRequest(NAME, {"zzz": "x"}, html_path=html))
    assert far.error is not None
    assert "did you mean" not in far.error.message


@pytest.mark.parametrize("inputs", [{}])
async def test_a_missing_sensitive_value_points_to_the_vault(
    store: Store, tmp_path: Path, inputs: dict[str, str]
) -> None:
    seed(store, status="approved", sensitive=True)
    html = tmp_path / "fixture.html"
    html.write_text(FIXTURE)
    outcome = await replay_skill(store, ReplayRequest(NAME, inputs, html_path=html))
    assert outcome.error is not None
    assert outcome.error.code == "SR_REPLAY_SECRET_MISSING"
    assert "SKILLREEL_SECRET_SEARCH_INVOICES_QUERY" in outcome.error.message
    assert "--input" not in outcome.error.message + outcome.error.fix.replace("never passed with --input", "")
