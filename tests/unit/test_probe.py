"""What resolve.js reports, validated (locate/probe.py): a probe round-trips, and anything that is
not a probe is refused with ProbeShapeError.
"""

from __future__ import annotations

from typing import Any

import pytest

from skillreel.locate.probe import ProbeShapeError, probe_from_json


def test_probe_from_json_round_trip_and_refusals() -> None:
    data: dict[str, Any] = {
        "token": "p1",
        "hits": [{"rank": 0, "total": 1, "visible": 1, "element": 0}],
        "observed": [
            {
                "element": 0,
                "visible": True,
                "comparison": {
                    "tag": True,
                    "type": True,
                    "role": True,
                    "attributes": {"id": "same"},
                    "label": None,
                    "text": "changed",
                    "pathCommon": 3,
                    "pathLength": 4,
                    "siblingIndex": True,
                    "siblingCount": False,
                },
            }
        ],
        "pool": [0],
        "scored": 5,
    }
    p = probe_from_json(data)
    assert p.hits[0].element == 0
    assert p.observed[0].comparison.text == "changed"
    with pytest.raises(ProbeShapeError):
        probe_from_json({**data, "pool": [3]})
    with pytest.raises(ProbeShapeError):
        probe_from_json({**data, "hits": [{"rank": -1, "total": 1, "visible": 1}]})
    bad = {**data, "observed": [{**data["observed"][0], "comparison": {"tag": "yes"}}]}
    with pytest.raises(ProbeShapeError):
        probe_from_json(bad)


def test_probe_from_json_reads_the_identity_comparisons() -> None:
    data: dict[str, Any] = {
        "token": "p",
        "hits": [],
        "pool": [0],
        "observed": [
            {
                "element": 0,
                "visible": True,
                "comparison": {
                    "tag": True,
                    "type": True,
                    "role": True,
                    "attributes": {"id": "same"},
                    "label": None,
                    "text": None,
                    "name": "alias",
                    "value": "same",
                    "link": "changed",
                    "row": "absent",
                    "stableId": True,
                    "pathCommon": 1,
                    "pathLength": 1,
                    "siblingIndex": True,
                    "siblingCount": True,
                },
            }
        ],
    }
    c = probe_from_json(data).observed[0].comparison
    assert (c.name, c.value, c.link, c.row, c.stable_id) == ("alias", "same", "changed", "absent", True)
    bad = {
        **data,
        "observed": [
            {**data["observed"][0], "comparison": {**data["observed"][0]["comparison"], "link": "alias"}}
        ],
    }  # alias is a name state only
    with pytest.raises(ProbeShapeError):
        probe_from_json(bad)
