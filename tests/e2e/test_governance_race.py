"""Concurrency: eight processes race `review --approve --expected-revision 1` on one draft.

Exactly one wins; the seven others get SR_RECORD_REVISION_CONFLICT (the compare-and-set runs under
the write lock, so no two can both see revision 1). The audit chain verifies afterwards and holds
exactly one review event.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from skillreel.store import Store
from tests.factory import seed
from tests.readback import assert_owner_only

NAME = "search-invoices"
RACERS = 8


def test_eight_reviewers_race_for_one_revision(skillreel_home: Path) -> None:
    with Store.open() as store:
        seed(store, NAME)
    # A generous lock timeout: on a loaded machine a racer may wait, but must never give up as busy.
    env = {**os.environ, "SKILLREEL_STORE_TIMEOUT": "120"}
    commands = [[sys.executable, "-m", "skillreel", "review", NAME, "--reviewer", f"reviewer-{i}",
                 "--approve", "--expected-revision", "1", "--json"] for i in range(RACERS)]
    racers = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
              for command in commands]
    outcomes = []
    for racer in racers:
        stdout, stderr = racer.communicate(timeout=300)
        assert "Traceback" not in stderr
        outcomes.append((racer.returncode, json.loads(stdout)))

    winners = [doc for code, doc in outcomes if code == 0]
    losers = [doc for code, doc in outcomes if code != 0]
    assert len(winners) == 1
    assert (winners[0]["status"], winners[0]["revision"]) == ("approved", 2)
    assert [doc["error"]["code"] for doc in losers] == ["SR_RECORD_REVISION_CONFLICT"] * (RACERS - 1)
    assert {code for code, _ in outcomes} == {0, 1}

    with Store.open() as store:
        entry = store.get(NAME)
        assert (entry.revision, entry.status) == (2, "approved")
        assert entry.approval is not None
        assert entry.approval.approval_digest == winners[0]["approvalDigest"]
        assert [e.kind for e in store.audit_events()] == ["record", "review"]
        assert store.verify_audit().to_json() == {"ok": True, "events": 2, "brokenAt": None}
    assert_owner_only(skillreel_home)
