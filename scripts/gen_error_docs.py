"""Write docs/errors.md from the error catalogue (skillreel.errors.CODES).

Run after adding a code: `.venv/bin/python scripts/gen_error_docs.py`. A test fails when the page
and the catalogue disagree, so the table cannot rot.
"""

from __future__ import annotations

import sys
from pathlib import Path

from skillreel.errors.codes import CODES

PAGE = Path(__file__).resolve().parent.parent / "docs" / "errors.md"

HEADER = """# Error codes

Every failure skillreel reports carries one of these codes. With `--json`, stdout is the
[result envelope](guide.md#machine-readable-output---json) with `"ok": false` and
`"error": {"code": "SR_...", "message": "...", "fix": "...", "actionId": ..., "details": {...}}`
(`actionId` names the replay step that failed, else `null`; `fix` is the fix column below).
Exit status 1 means a refused or failed operation; 2 means bad usage or a bad input file.
Messages never contain selectors, typed values, page text, storage state, cookies or raw URLs.

Families: `SR_RECORD_*` (command line, store, policy, target, credential, package, approval),
`SR_REPLAY_*` (draft, review, schema, parameter, environment, capability, evidence),
`SR_REPLAY_UI_*` (Chromium setup, selector, assertion, network, action).

| code | exit | meaning | fix |
| --- | --- | --- | --- |
"""


def render() -> str:
    rows = [f"| `{c.code}` | {c.exit_status} | {c.summary} | {c.fix} |" for c in CODES.values()]
    return HEADER + "\n".join(rows) + "\n"


if __name__ == "__main__":
    PAGE.write_text(render(), encoding="utf-8")
    sys.stdout.write(f"wrote {PAGE} ({len(CODES)} codes)\n")
