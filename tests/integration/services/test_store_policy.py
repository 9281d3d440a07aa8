"""``policy``, ``policy set`` and ``policy-template`` as use cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillreel.services.store_policy import policy_template, set_policy, show_policy
from skillreel.store import Store
from tests.integration.services.store_checks import NAME, refused
from tests.support.factory import seed


def test_policy_template_show_and_set(store: Store, skillreel_home: Path, tmp_path: Path) -> None:
    template = policy_template()
    assert template["schema"] == "skillreel.policy/v1"
    assert template["retentionDays"] == 90
    shown = show_policy(store).to_json()
    assert shown["default"] is True
    assert shown["policy"]["maxRecords"] == 500
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({**template, "retentionDays": 30, "maxRecords": 1}))
    error = refused(
        skillreel_home, "SR_RECORD_APPROVAL_REQUIRED", lambda: set_policy(store, path, approve=False)
    )
    assert {c["field"] for c in error.details["wouldChange"]["changed"]} == {"retentionDays", "maxRecords"}
    assert show_policy(store).to_json()["default"] is True
    changed = set_policy(store, path, approve=True).to_json()
    assert changed["changed"] == [
        {"field": "retentionDays", "from": 90, "to": 30},
        {"field": "maxRecords", "from": 500, "to": 1},
    ]
    shown = show_policy(store).to_json()
    assert (shown["default"], shown["policy"]["retentionDays"]) == (False, 30)
    assert set_policy(store, path, approve=True).to_json()["changed"] == []
    event = store.audit_events()[-1].to_json()
    assert (event["kind"], event["digests"]["policy"]) == ("policy", shown["policy"]["policyDigest"])
    seed(store, NAME)
    with pytest.raises(Exception, match="SR_RECORD_STORE_LIMIT"):
        seed(store, "second-skill")
    # The shown policy (with its digest) can be set again; a changed value under its digest cannot
    # (see the DIGEST_MISMATCH case of test_bad_input.py).
    current = tmp_path / "current.json"
    current.write_text(json.dumps(shown["policy"]))
    assert set_policy(store, current, approve=True).to_json()["changed"] == []
