"""Installs converge (issue 11 item 4): a real ``kill -9`` at every step of enable and revoke (each
rename, each unlink, before and after the store commits), then the next enable or revoke of the
skill: the disk and the store agree, no ``.skillreel-*`` folder and no journal is left. Two racing
enables never commit "enabled" without its files, and a revoke that looks in another project
directory removes the recorded packages instead of forgetting them."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from skillreel.agent_skills.install import installed_digest
from skillreel.agent_skills.package import MANIFEST, REPLAY_SCRIPT, SKILL_MD
from skillreel.errors import SkillreelError
from skillreel.services.packaging import EnableResult
from skillreel.store import Store
from tests.support import factory
from tests.support.cli import cli, ok, refused
from tests.support.factory import store_entry
from tests.support.killer import killed
from tests.support.narrow import present
from tests.support.pinned import enable, revoke

NAME = "search-invoices"
ROOTS = (".agents", ".claude")
ENABLE_KILLS = [
    "enable.journal",  # before the journal is written
    "install.mkdir:0",
    "install.stage:0",
    f"install.write:0:{MANIFEST}",  # a stage folder half written
    f"install.write:1:{REPLAY_SCRIPT}",
    "install.publish:0",  # both stages complete, nothing published
    "install.publish:1",  # the first package live, the store still says validated
    "enable.commit",  # both packages live, nothing committed
    "enable.finish",  # committed, the journal still there
]
REVOKE_KILLS = [
    "revoke.journal",
    "revoke.stage:0",
    "revoke.stage:1",  # one package moved aside
    "revoke.commit",  # both moved aside, the store still says enabled
    "revoke.delete:0",  # committed, both stages still there
    "revoke.delete:1",  # committed, one stage deleted
]


@pytest.fixture
def validated(skillreel_home: Path) -> Any:
    with Store.open() as store:
        return store_entry(store, factory.entry(NAME))


def packages(project: Path) -> list[Path]:
    return [project / root / "skills" / NAME for root in ROOTS]


def assert_converged(home: Path, project: Path) -> str:
    """The disk agrees with the store; nothing of an unfinished transaction is left. Returns the status."""
    with Store.open(home) as store:
        entry = store.get(NAME)
    assert sorted(str(p) for p in project.rglob(".skillreel-*")) == []
    assert sorted(p.name for p in (home / "installs").glob("*") if p.name != ".lock") == []
    if entry.status == "enabled":
        installation = present(entry.installation)
        assert [str(p) for p in packages(project)] == list(installation.paths)
        for path in packages(project):
            assert installed_digest(path) == installation.package_digest
    else:
        assert [p for p in packages(project) if p.exists()] == []
    return entry.status


def revision(home: Path) -> str:
    """The skill's revision as `show` prints it (what a command names with --expected-revision)."""
    with Store.open(home) as store:
        return str(store.get(NAME).revision)


def pinned(verb: str, home: Path, *args: str) -> list[str]:
    """``VERB NAME ARGS --expected-revision N --approve``, N the skill's revision now."""
    return [verb, NAME, *args, "--expected-revision", revision(home), "--approve"]


def then(call: Any) -> str | None:
    """Run a later command; its refusal code (None when it succeeded)."""
    try:
        call()
    except SkillreelError as exc:
        return exc.code
    return None


@pytest.mark.slow
@pytest.mark.parametrize("step", ENABLE_KILLS)
def test_a_killed_enable_converges_at_the_next_revoke_then_enable(
    skillreel_home: Path, project_dir: Path, validated: Any, step: str
) -> None:
    killed(skillreel_home, "enable", NAME, project_dir, step)
    with Store.open() as store:
        committed = store.get(NAME).status == "enabled"
        code = then(lambda: revoke(store, NAME))
    assert code == (None if committed else "SR_RECORD_STATE_INVALID")
    assert assert_converged(skillreel_home, project_dir) == ("revoked" if committed else "validated")
    with Store.open() as store:
        enable(store, NAME, project_dir)
    assert assert_converged(skillreel_home, project_dir) == "enabled"


@pytest.mark.slow
@pytest.mark.parametrize("step", REVOKE_KILLS)
def test_a_killed_revoke_converges_at_the_next_enable_then_revoke(
    skillreel_home: Path, project_dir: Path, validated: Any, step: str
) -> None:
    with Store.open() as store:
        enable(store, NAME, project_dir)
    killed(skillreel_home, "revoke", NAME, project_dir, step)
    with Store.open() as store:
        committed = store.get(NAME).status == "revoked"
        code = then(lambda: enable(store, NAME, project_dir))
    assert code == (None if committed else "SR_RECORD_STATE_INVALID")
    assert assert_converged(skillreel_home, project_dir) == "enabled"
    with Store.open() as store:
        revoke(store, NAME)
    assert assert_converged(skillreel_home, project_dir) == "revoked"


@pytest.mark.slow
@pytest.mark.parametrize("step", ["install.publish:1", "enable.commit"])
def test_a_killed_enable_is_rolled_back_before_its_skill_is_deleted(
    skillreel_home: Path, project_dir: Path, validated: Any, step: str
) -> None:
    """A package an enable published before it was killed (the store still says validated) must
    not outlive the skill: delete converges first (it used to leave the package live on disk for
    a skill the store no longer knew)."""
    killed(skillreel_home, "enable", NAME, project_dir, step)
    assert any(p.exists() for p in packages(project_dir))
    result = cli(skillreel_home, *pinned("delete", skillreel_home), "--json")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert [w["code"] for w in result.json()["warnings"]] == ["SR_RECORD_INSTALL_RECOVERED"]
    assert [p for p in packages(project_dir) if p.exists()] == []
    assert sorted(str(p) for p in project_dir.rglob(".skillreel-*")) == []
    assert sorted(p.name for p in (skillreel_home / "installs").glob("*") if p.name != ".lock") == []
    with Store.open() as store:
        assert store.find(NAME) is None


@pytest.mark.slow
def test_a_process_killed_while_converging_is_converged_by_the_next_one(
    skillreel_home: Path, project_dir: Path, validated: Any
) -> None:
    killed(skillreel_home, "enable", NAME, project_dir, "enable.commit")  # two packages, not committed
    killed(skillreel_home, "enable", NAME, project_dir, "recover.enable:1")  # the rollback, half done
    assert [p.exists() for p in packages(project_dir)] == [False, True]
    result = ok(
        skillreel_home,
        *pinned("enable", skillreel_home, "--project-dir", str(project_dir)),
    )
    assert result["status"] == "enabled"
    assert assert_converged(skillreel_home, project_dir) == "enabled"


@pytest.mark.slow
def test_the_cli_says_it_rolled_back_an_interrupted_enable_first(
    skillreel_home: Path, project_dir: Path, validated: Any
) -> None:
    killed(skillreel_home, "enable", NAME, project_dir, "install.publish:1")
    from tests.support.cli import cli

    result = cli(skillreel_home, *pinned("revoke", skillreel_home)).json()
    assert result["error"]["code"] == "SR_RECORD_STATE_INVALID"
    assert assert_converged(skillreel_home, project_dir) == "validated"
    killed(skillreel_home, "enable", NAME, project_dir, "enable.commit")
    document = cli(
        skillreel_home,
        *pinned("enable", skillreel_home, "--project-dir", str(project_dir)),
    ).json()
    assert document["ok"]
    assert [w["code"] for w in document["warnings"]] == ["SR_RECORD_INSTALL_RECOVERED"]
    assert "rolled back" in document["warnings"][0]["message"]
    assert assert_converged(skillreel_home, project_dir) == "enabled"


def test_two_racing_enables_never_commit_enabled_without_its_files(
    skillreel_home: Path, project_dir: Path, validated: Any
) -> None:
    """The second enable starts while the first is about to commit (both packages live): it must
    wait for the first, not take the first's files for its own and commit before it."""
    settled = threading.Event()  # the other enable is blocked on the lock, or has finished
    other: dict[str, Any] = {}

    def second() -> None:
        def note(step: str) -> None:
            if step == "install.lock-wait":
                settled.set()

        try:
            with Store.open() as store:
                other["result"] = enable(store, NAME, project_dir, fault=note)
        except SkillreelError as exc:
            other["code"] = exc.code
        finally:
            settled.set()

    racer = threading.Thread(target=second)

    def at_commit(step: str) -> None:
        if step == "enable.commit":
            racer.start()
            assert settled.wait(120), "the second enable neither waited nor finished"

    with Store.open() as store:
        first = then(lambda: enable(store, NAME, project_dir, fault=at_commit))
    racer.join(120)
    assert first is None
    # it named the revision it read, which the first enable's commit moved on
    assert other == {"code": "SR_RECORD_REVISION_CONFLICT"}
    assert assert_converged(skillreel_home, project_dir) == "enabled"


def test_revoke_in_another_project_dir_removes_the_recorded_packages_instead_of_forgetting_them(
    skillreel_home: Path, tmp_path: Path, project_dir: Path, validated: Any
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with Store.open() as store:
        enabled: EnableResult = enable(store, NAME, project_dir)
        result = revoke(store, NAME, elsewhere)
    assert result.removed == enabled.installations
    assert result.absent == tuple(str(p) for p in packages(elsewhere))
    assert assert_converged(skillreel_home, project_dir) == "revoked"
    assert [p.name for p in elsewhere.iterdir()] == []


def test_a_moved_project_is_still_revoked_where_it_now_is(
    skillreel_home: Path, tmp_path: Path, validated: Any
) -> None:
    first = tmp_path / "first"
    first.mkdir()
    with Store.open() as store:
        enable(store, NAME, first)
    moved = tmp_path / "moved"
    first.rename(moved)
    data = ok(
        skillreel_home,
        *pinned("revoke", skillreel_home, "--project-dir", str(moved)),
    )
    assert data["removed"] == [str(p) for p in packages(moved)]
    assert data["alreadyAbsent"] == [str(p) for p in packages(first)]
    assert assert_converged(skillreel_home, moved) == "revoked"


def test_a_folder_changed_by_hand_after_a_killed_enable_is_never_deleted(
    skillreel_home: Path, project_dir: Path, validated: Any
) -> None:
    with Store.open() as store:
        enable(store, NAME, project_dir)
        revoke(store, NAME)
    killed(skillreel_home, "enable", NAME, project_dir, "enable.commit")
    mine = packages(project_dir)[0] / SKILL_MD
    mine.write_text("edited by a person after the crash\n")
    error = refused(
        skillreel_home,
        *pinned("enable", skillreel_home, "--project-dir", str(project_dir)),
        code="SR_RECORD_INSTALL_MODIFIED",
    )
    assert str(packages(project_dir)[0]) in error["message"]
    assert mine.read_text() == "edited by a person after the crash\n"
    assert (skillreel_home / "installs" / f"{NAME}.json").exists()  # kept for the next attempt


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "step"), [("enable", "install.publish:1"), ("revoke", "revoke.commit")])
def test_prune_settles_a_transaction_a_killed_process_left(
    skillreel_home: Path, project_dir: Path, validated: Any, kind: str, step: str
) -> None:
    """The journal of a killed enable or revoke does not wait for the skill's next package command:
    prune asks for it, then settles it (nothing changes without --approve)."""
    if kind == "revoke":
        with Store.open() as store:
            enable(store, NAME, project_dir)
    killed(skillreel_home, kind, NAME, project_dir, step)
    journals = [p.name for p in (skillreel_home / "installs").glob("*.json")]
    assert journals == [f"{NAME}.json"]
    error = refused(skillreel_home, "prune", "--json", code="SR_RECORD_APPROVAL_REQUIRED")
    assert NAME in error["message"]
    assert [p.name for p in (skillreel_home / "installs").glob("*.json")] == journals
    result = cli(skillreel_home, "prune", "--approve", "--json")
    assert result.exit_code == 0, result.stdout + result.stderr
    document = result.json()
    assert document["data"]["installsRecovered"] == [NAME]
    assert [w["code"] for w in document["warnings"]] == ["SR_RECORD_INSTALL_RECOVERED"]
    if kind == "revoke":  # moved back: the store still said enabled
        assert assert_converged(skillreel_home, project_dir) == "enabled"
        return
    # the factory's skill is older than the retention: rolled back first, then pruned, no package left
    assert [p["name"] for p in document["data"]["pruned"]] == [NAME]
    assert [p for p in packages(project_dir) if p.exists()] == []
    assert sorted(str(p) for p in project_dir.rglob(".skillreel-*")) == []
    assert sorted(p.name for p in (skillreel_home / "installs").glob("*") if p.name != ".lock") == []
