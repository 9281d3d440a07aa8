"""One skill with a loop and a branch, run the three ways a run can be recorded: a single
``skillreel replay``, a row of ``replay --batch`` and a row on the fleet (a private redis-server, a
real ``skillreel worker``). Each run's recorded counts (steps, acting steps, steps run and acted,
side effects, healed steps, outcome) must be the same: a run's life has one home
(``services/runs.py``), whoever starts it.

The page is real (127.0.0.1), the store is real, the browser is real Chromium; every wait is for a
signal (the worker's "ready" line, the coordinator exiting), never for the clock."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from skillreel.model import lifecycle
from skillreel.model.actions import BranchAction, ClickAction, LoopAction, NavigateAction
from skillreel.model.conditions import CompareCondition
from skillreel.model.draft import Parameter
from skillreel.model.locators import LocatorBundle, LocatorCandidate
from skillreel.model.reads import FieldSpec
from skillreel.model.refs import ItemRef, LiteralValue, ParameterRef
from skillreel.model.runs import RunRecord
from skillreel.store import Store
from tests.integration.runs.counting import fleet_args
from tests.support import factory
from tests.support.cli import run_cli
from tests.support.describe import describe_url
from tests.support.fleet_rig import fleet_worker, redis_server
from tests.support.server import LocalServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NAME = "tidy-orders"
SIGNAL_WAIT_S = 300  # a bound on waiting for a signal on a loaded machine, never a guess at timing
STATUSES = ["open", "approved", "open", "approved"]


def orders_page(statuses: list[str]) -> str:
    rows = "".join(
        f'<tr class="order"><td class="number">Order {n}</td><td class="status">{status}</td>'
        f'<td><button type="button" class="approve" onclick="act(\'/approve?id={n}\')">Approve</button>'
        f'<button type="button" class="archive" onclick="act(\'/archive?id={n}\')">Archive</button></td></tr>'
        for n, status in enumerate(statuses, start=1)
    )
    # the page reads each response, so the replay's settling sees every request end
    script = "async function act(path) { await (await fetch(path)).text(); }"
    return (
        "<!doctype html><html><body><main><h1>Orders</h1><table><tbody>"
        f"{rows}</tbody></table></main><script>{script}</script></body></html>"
    )


def in_item(found: LocatorBundle, selector: str) -> LocatorBundle:
    candidate = LocatorCandidate(strategy="css", selector=selector, match_count=1)
    return LocatorBundle(candidates=(candidate,), fingerprint=found.fingerprint, within="item")


async def looping_skill(server: LocalServer, statuses: list[str] = STATUSES) -> None:
    """A validated skill: open the orders, then for each row archive it when approved, else approve
    it (a loop whose body is a branch with a step in each arm: with both statuses, every step runs)."""
    found = await describe_url(
        server,
        "/orders",
        orders_page(statuses),
        {
            "approve": "tbody tr:nth-child(1) button.approve",
            "archive": "tbody tr:nth-child(1) button.archive",
        },
    )
    for path in ("/approve", "/archive"):
        server.set_route(path, body=b"ok", headers={"Content-Type": "text/plain"})
    url = server.url("/orders")
    branch = BranchAction(
        id="a3",
        condition=CompareCondition(
            value=ItemRef(field="status"), op="equals", expected=LiteralValue(value="approved")
        ),
        then=(ClickAction(id="a4", target=in_item(found["archive"], ":scope button.archive")),),
        otherwise=(ClickAction(id="a5", target=in_item(found["approve"], ":scope button.approve")),),
    )
    loop = LoopAction(
        id="a2",
        items=factory.element_set("tbody tr.order", count=len(statuses)),
        limit=ParameterRef(name="limit"),
        fields=(
            FieldSpec(
                name="status",
                target=factory.target(":scope > td.status"),
                type="enum",
                values=("open", "approved"),
            ),
        ),
        body=(branch,),
    )
    draft = factory.graph_draft(
        [NavigateAction(id="a1", url=url), loop],
        name=NAME,
        parameters=[Parameter(name="limit", type="integer", default=20, required=False)],
        environment=factory.url_environment(url),
    )
    with Store.open() as store:
        factory.store_entry(store, lifecycle.new_entry(draft, factory.events_log(), factory.T0), "validated")


def counts(run: RunRecord) -> dict[str, object]:
    """What a run records of its steps, whoever ran it."""
    return {
        "outcome": run.outcome,
        "code": run.code,
        "stepsTotal": run.steps_total,
        "stepsActing": run.steps_acting,
        "stepsRun": run.steps_run,
        "stepsActed": run.steps_acted,
        "sideEffects": run.side_effects,
        "healedSteps": run.healed_steps,
        "revision": run.revision,
        "draftDigest": run.draft_digest,
    }


async def test_a_looping_branching_skill_records_the_same_counts_locally_in_a_batch_and_on_the_fleet(
    server: LocalServer, skillreel_home: Path, tmp_path: Path
) -> None:
    await looping_skill(server)
    env = {"SKILLREEL_HOME": str(skillreel_home)}
    rows = tmp_path / "rows.csv"
    rows.write_text("limit\n10\n", encoding="utf-8")
    keys = tmp_path / "keys"
    keys.mkdir()
    private, public = factory.write_keys(keys, "coordinator")

    local = await asyncio.to_thread(run_cli, "replay", NAME, "--json", env=env, timeout=SIGNAL_WAIT_S)
    assert local.exit_code == 0, local.stdout + local.stderr
    batch = await asyncio.to_thread(
        run_cli, "replay", NAME, "--batch", str(rows), "--json", env=env, timeout=SIGNAL_WAIT_S
    )
    assert batch.exit_code == 0, batch.stdout + batch.stderr
    with (
        redis_server(tmp_path / "redis") as broker,
        fleet_worker(broker, trust=[public], home=tmp_path / "w1"),
    ):
        fleet = await asyncio.to_thread(
            run_cli, *fleet_args(rows, broker, private, NAME), "--json", env=env, timeout=SIGNAL_WAIT_S
        )
    assert fleet.exit_code == 0, fleet.stdout + fleet.stderr

    assert server.count("GET", "/approve") == 3 * STATUSES.count("open")
    assert server.count("GET", "/archive") == 3 * STATUSES.count("approved")
    with Store.open() as store:
        runs = {v.record.actor: v.record for v in store.runs(NAME, limit=10)}
        assert store.verify_audit().ok
    assert set(runs) == {"cli", "batch", "fleet"}
    local_counts = counts(runs["cli"])
    assert local_counts["outcome"] == "succeeded"
    assert local_counts["stepsTotal"] == 5  # every step, those inside the loop and the branch too
    assert (local_counts["stepsRun"], local_counts["stepsActing"], local_counts["stepsActed"]) == (5, 2, 2)
    assert counts(runs["batch"]) == local_counts
    assert counts(runs["fleet"]) == local_counts


async def test_a_branch_arm_that_no_row_takes_leaves_a_succeeded_run_of_the_steps_that_ran(
    server: LocalServer, skillreel_home: Path
) -> None:
    """Every order is open: the ``then`` arm (archive) never runs. The run succeeds and counts the
    four steps that ran of the five the skill has (once "a succeeded run ran every step" refused to
    record it: the run stayed started and read as interrupted)."""
    await looping_skill(server, ["open", "open"])
    local = await asyncio.to_thread(
        run_cli, "replay", NAME, "--json", env={"SKILLREEL_HOME": str(skillreel_home)}, timeout=SIGNAL_WAIT_S
    )
    assert local.exit_code == 0, local.stdout + local.stderr
    assert (server.count("GET", "/approve"), server.count("GET", "/archive")) == (2, 0)
    with Store.open() as store:
        (run,) = [v.record for v in store.runs(NAME, limit=10)]
        assert store.verify_audit().ok
    recorded = counts(run)
    assert {
        k: recorded[k] for k in ("outcome", "code", "stepsTotal", "stepsActing", "stepsRun", "stepsActed")
    } == {
        "outcome": "succeeded",
        "code": None,
        "stepsTotal": 5,
        "stepsActing": 2,
        "stepsRun": 4,
        "stepsActed": 1,
    }
    assert (recorded["sideEffects"], recorded["healedSteps"]) == (True, ())
