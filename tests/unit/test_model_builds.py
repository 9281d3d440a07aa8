"""Document schemas are built once each, nested documents first (``Document.model_rebuild``).

Builds are deferred to first use. A store entry's first use builds the documents it nests before
itself and reuses their schemas; the draft and every action are then already built when a nested
digest check or a caller uses them on their own. Each case runs in a fresh interpreter: this
process has built every schema long ago.
"""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json
from skillreel.model.actions import BranchAction, LoopAction, NavigateAction, TypeAction
from skillreel.model.draft import Draft
from skillreel.model.entry import StoreEntry
from skillreel.model.events import EventsLog

def first_use():
    before = {c.__name__: c.__pydantic_complete__ for c in (StoreEntry, Draft, EventsLog, NavigateAction)}
    try:
        StoreEntry.parse("{}")  # the entry's first use builds it (and refuses the document)
    except ValueError:
        pass
    after = {c.__name__: c.__pydantic_complete__
             for c in (StoreEntry, Draft, EventsLog, NavigateAction, TypeAction, BranchAction, LoopAction)}
    return {"before": before, "after": after}

print(json.dumps(first_use()))
"""


def test_an_entry_first_use_builds_its_nested_documents_on_their_own() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, check=True
    )
    result = json.loads(done.stdout)
    assert not any(result["before"].values()), result  # deferred: nothing built at import
    assert all(result["after"].values()), result  # the draft, the actions (recursive ones too), the log
