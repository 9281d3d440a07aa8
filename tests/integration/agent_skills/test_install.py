"""Enable and revoke against a real store and a temporary project: exact files, digests that
re-verify against the store, refusals, and a rollback at every step of both transactions."""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from skillreel.agent_skills.install import install, installed_digest, skill_roots
from skillreel.agent_skills.package import MANIFEST, REPLAY_SCRIPT, SKILL_MD, file_digest, render_package
from skillreel.errors import SkillreelError
from skillreel.model.policy import Policy, PolicySettings
from skillreel.services.packaging import enable_skill, revoke_skill, this_launcher
from skillreel.store import Store
from tests.support import factory
from tests.support.agent_skills import assert_agent_skills_rules
from tests.support.factory import store_entry
from tests.support.narrow import present
from tests.support.pinned import enable, revoke
from tests.support.readback import snapshot

NAME = "search-invoices"
ENABLE_STEPS = [
    "enable.journal",
    *(
        step
        for i in (0, 1)
        for step in (
            f"install.mkdir:{i}",
            f"install.stage:{i}",
            f"install.write:{i}:{SKILL_MD}",
            f"install.write:{i}:{MANIFEST}",
            f"install.write:{i}:{REPLAY_SCRIPT}",
            f"install.publish:{i}",
        )
    ),
    "enable.commit",
]
REVOKE_STEPS = ["revoke.verify", "revoke.journal", "revoke.stage:0", "revoke.stage:1", "revoke.commit"]


class Injected(Exception):
    """The failure a test injects at one step."""


@pytest.fixture
def store() -> Iterator[Store]:
    with Store.open() as opened:
        yield opened


@pytest.fixture
def validated(store: Store) -> Any:
    return store_entry(store, factory.entry(NAME))


def store_state(store: Store) -> tuple[Any, int]:
    entry = store.get(NAME)
    return entry.to_json(), store.audit_count()


def failing_at(step: str, exc: BaseException | None = None) -> Callable[[str], None]:
    def fault(current: str) -> None:
        if current == step:
            raise exc if exc is not None else Injected(step)

    return fault


def recording(into: list[str]) -> Callable[[str], None]:
    return into.append


# --- the happy path ----------------------------------------------------------------------------


def test_enable_installs_exactly_the_package_in_both_project_roots(
    store: Store, validated: Any, project_dir: Path
) -> None:
    result = enable(store, NAME, project_dir)
    entry = store.get(NAME)
    package = render_package(validated, revision=validated.revision + 1, launcher=this_launcher(store))
    expected_paths = [str(project_dir / root / "skills" / NAME) for root in (".agents", ".claude")]
    assert result.to_json() == {
        "status": "enabled",
        "name": NAME,
        "revision": validated.revision + 1,
        "scope": "project",
        "packageDigest": package.digest,
        "installations": expected_paths,
    }
    assert entry.status == "enabled"
    assert entry.installation is not None
    assert list(entry.installation.paths) == expected_paths
    assert entry.installation.package_digest == package.digest
    expected = {NAME: ("dir", 0o755, b""), f"{NAME}/scripts": ("dir", 0o755, b"")}
    expected |= {
        f"{NAME}/{f.path}": ("file", 0o755 if f.executable else 0o644, f.data) for f in package.files
    }
    for path in expected_paths:
        assert snapshot(Path(path).parent) == expected
        assert installed_digest(Path(path)) == package.digest
    assert sorted(snapshot(project_dir)) == sorted(
        [".agents", ".agents/skills", ".claude", ".claude/skills"]
        + [f"{root}/skills/{rel}" for root in (".agents", ".claude") for rel in expected]
    )


def test_installed_front_matter_is_valid_and_the_manifest_re_verifies_against_the_store(
    store: Store, validated: Any, project_dir: Path
) -> None:
    enable(store, NAME, project_dir)
    entry = store.get(NAME)
    assert entry.approval is not None
    assert entry.last_report is not None
    for root in (".agents", ".claude"):
        folder = project_dir / root / "skills" / NAME
        assert_agent_skills_rules((folder / SKILL_MD).read_text(), folder.name)
        manifest = json.loads((folder / MANIFEST).read_bytes())
        assert manifest["entry"] == {
            "name": entry.name,
            "revision": entry.revision,
            "status": entry.status,
            "version": entry.version,
        }
        assert manifest["draft"]["draftDigest"] == entry.draft.draft_digest
        assert manifest["draft"]["eventsDigest"] == entry.events.events_digest
        assert manifest["approval"]["approvalDigest"] == entry.approval.approval_digest
        assert manifest["lastReplay"]["reportDigest"] == entry.last_report.report_digest
        assert manifest["environment"]["environmentDigest"] == entry.draft.environment.environment_digest
        assert manifest["package"]["files"] == {
            SKILL_MD: file_digest((folder / SKILL_MD).read_bytes()),
            REPLAY_SCRIPT: file_digest((folder / REPLAY_SCRIPT).read_bytes()),
        }
        assert installed_digest(folder) == entry.installation.package_digest if entry.installation else False
        assert os.access(folder / REPLAY_SCRIPT, os.X_OK)


def test_revoke_removes_exactly_the_package_and_nothing_else(
    store: Store, validated: Any, project_dir: Path
) -> None:
    other = project_dir / ".claude" / "skills" / "someone-elses"
    other.mkdir(parents=True)
    (other / "SKILL.md").write_text("---\nname: someone-elses\ndescription: theirs\n---\n")
    (project_dir / "README.md").write_text("mine")
    before = snapshot(project_dir)
    enable(store, NAME, project_dir)
    result = revoke(store, NAME)
    after = snapshot(project_dir)
    assert result.to_json()["status"] == "revoked"
    assert result.removed == tuple(str(project_dir / r / "skills" / NAME) for r in (".agents", ".claude"))
    assert result.absent == ()
    assert result.leftovers == ()
    assert store.get(NAME).status == "revoked"
    assert store.get(NAME).installation is None
    # The skill roots enable created stay (other skills may live there); nothing else changed.
    assert {k: v for k, v in after.items() if not k.startswith(".agents")} == before
    assert sorted(k for k in after if k.startswith(".agents")) == [".agents", ".agents/skills"]


def test_a_revoked_skill_can_be_enabled_again(store: Store, validated: Any, project_dir: Path) -> None:
    enable(store, NAME, project_dir)
    revoke(store, NAME)
    again = enable(store, NAME, project_dir)
    assert store.get(NAME).status == "enabled"
    assert installed_digest(Path(again.installations[0])) == again.package_digest


def test_revoke_tolerates_a_package_already_deleted_by_hand(
    store: Store, validated: Any, project_dir: Path
) -> None:
    enabled = enable(store, NAME, project_dir)
    gone = Path(enabled.installations[1])
    for path in sorted(gone.rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    gone.rmdir()
    result = revoke(store, NAME)
    assert result.removed == (enabled.installations[0],)
    assert result.absent == (str(gone),)
    assert store.get(NAME).status == "revoked"


def test_revoke_with_project_dir_finds_a_moved_project(store: Store, validated: Any, tmp_path: Path) -> None:
    first = tmp_path / "first"
    first.mkdir()
    enable(store, NAME, first)
    moved = tmp_path / "moved"
    first.rename(moved)
    result = revoke(store, NAME, moved)
    assert result.removed == tuple(str(moved / r / "skills" / NAME) for r in (".agents", ".claude"))
    assert not (moved / ".agents" / "skills" / NAME).exists()


def test_user_scope_needs_the_policy_and_then_installs_under_home(
    store: Store, validated: Any, tmp_path: Path
) -> None:
    home = tmp_path / "user-home"
    home.mkdir()
    with pytest.raises(SkillreelError) as err:
        enable(store, NAME, None, scope="user", home=home)
    assert err.value.code == "SR_RECORD_POLICY_DENIED"
    assert snapshot(home) == {}
    store.set_policy(Policy.from_settings(PolicySettings(allow_global_install=True)))
    result = enable(store, NAME, None, scope="user", home=home)
    assert result.installations == tuple(str(home / r / "skills" / NAME) for r in (".agents", ".claude"))
    assert present(store.get(NAME).installation).scope == "user"


def test_an_identical_package_already_in_place_is_kept_and_survives_a_rollback(
    validated: Any, project_dir: Path
) -> None:
    package = render_package(validated, revision=4, launcher=factory.LAUNCHER)
    roots = skill_roots("project", project_dir)
    install(package, roots)
    before = snapshot(project_dir)
    second = install(package, roots)
    second.rollback()
    assert snapshot(project_dir) == before


# --- refusals: a clear code, files and store exactly as before ----------------------------------


def refused(store: Store, project_dir: Path, code: str, call: Callable[[], Any]) -> SkillreelError:
    files_before, store_before = snapshot(project_dir), store_state(store)
    with pytest.raises(SkillreelError) as err:
        call()
    assert err.value.code == code, err.value
    assert snapshot(project_dir) == files_before
    assert store_state(store) == store_before
    return err.value


@pytest.mark.parametrize("status", ["draft", "approved"])
def test_only_a_validated_skill_is_enabled(store: Store, project_dir: Path, status: str) -> None:
    store_entry(store, factory.entry(NAME), status)
    refused(
        store,
        project_dir,
        "SR_RECORD_STATE_INVALID",
        lambda: enable(store, NAME, project_dir),
    )


def test_an_enabled_skill_is_not_enabled_twice(store: Store, validated: Any, project_dir: Path) -> None:
    enable(store, NAME, project_dir)
    refused(
        store,
        project_dir,
        "SR_RECORD_STATE_INVALID",
        lambda: enable(store, NAME, project_dir),
    )


@pytest.mark.parametrize("name", ["Search", "-x", "a--b", "a" * 65, "../etc"])
def test_a_name_that_breaks_the_agent_skills_rule_is_refused(
    store: Store, project_dir: Path, name: str
) -> None:
    with pytest.raises(SkillreelError) as err:
        enable_skill(store, name, "project", project_dir, approve=True, expected_revision=1)
    assert err.value.code == "SR_RECORD_NAME_INVALID"
    assert snapshot(project_dir) == {}


def test_without_approval_nothing_changes_and_the_plan_is_said(
    store: Store, validated: Any, project_dir: Path
) -> None:
    err = refused(
        store,
        project_dir,
        "SR_RECORD_APPROVAL_REQUIRED",
        lambda: enable_skill(store, NAME, "project", project_dir, approve=False),
    )
    assert str(project_dir / ".claude" / "skills" / NAME) in err.message
    assert err.details["wouldChange"]["installations"][0] == str(project_dir / ".agents" / "skills" / NAME)
    enable(store, NAME, project_dir)
    err = refused(
        store, project_dir, "SR_RECORD_APPROVAL_REQUIRED", lambda: revoke_skill(store, NAME, approve=False)
    )
    assert str(project_dir / ".agents" / "skills" / NAME) in err.message


@pytest.mark.parametrize("root", [".agents", ".claude"])
def test_a_foreign_folder_with_the_name_is_a_collision(
    store: Store, validated: Any, project_dir: Path, root: str
) -> None:
    foreign = project_dir / root / "skills" / NAME
    foreign.mkdir(parents=True)
    (foreign / "SKILL.md").write_text("---\nname: search-invoices\ndescription: someone else's\n---\n")
    refused(
        store,
        project_dir,
        "SR_RECORD_INSTALL_COLLISION",
        lambda: enable(store, NAME, project_dir),
    )


def test_a_file_where_a_root_directory_should_be_is_a_collision(
    store: Store, validated: Any, project_dir: Path
) -> None:
    (project_dir / ".claude").write_text("not a directory")
    refused(
        store,
        project_dir,
        "SR_RECORD_INSTALL_COLLISION",
        lambda: enable(store, NAME, project_dir),
    )


@pytest.mark.parametrize("link", [".agents", ".claude/skills", f".claude/skills/{NAME}"])
def test_a_symlink_anywhere_on_the_path_is_refused(
    store: Store, validated: Any, project_dir: Path, tmp_path: Path, link: str
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project_dir / link).parent.mkdir(parents=True, exist_ok=True)
    (project_dir / link).symlink_to(elsewhere, target_is_directory=True)
    refused(
        store,
        project_dir,
        "SR_RECORD_INSTALL_SYMLINK",
        lambda: enable(store, NAME, project_dir),
    )
    assert list(elsewhere.iterdir()) == []


def test_a_symlinked_project_dir_is_refused(
    store: Store, validated: Any, project_dir: Path, tmp_path: Path
) -> None:
    link = tmp_path / "link-to-project"
    link.symlink_to(project_dir, target_is_directory=True)
    refused(
        store,
        project_dir,
        "SR_RECORD_INSTALL_SYMLINK",
        lambda: enable(store, NAME, link),
    )


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through read-only permission bits")
def test_a_read_only_root_fails_cleanly(store: Store, validated: Any, project_dir: Path) -> None:
    (project_dir / ".claude" / "skills").mkdir(parents=True)
    (project_dir / ".claude" / "skills").chmod(0o555)
    try:
        refused(
            store,
            project_dir,
            "SR_RECORD_INSTALL_FAILED",
            lambda: enable(store, NAME, project_dir),
        )
    finally:
        (project_dir / ".claude" / "skills").chmod(0o755)


@pytest.mark.parametrize("step", ["install.mkdir:1", "install.stage:1", f"install.write:1:{SKILL_MD}"])
@pytest.mark.parametrize("errno_", [errno.EACCES, errno.EROFS, errno.ENOSPC])
def test_an_os_error_while_installing_is_install_failed_and_rolls_back(
    store: Store, validated: Any, project_dir: Path, step: str, errno_: int
) -> None:
    exc = OSError(errno_, os.strerror(errno_))
    err = refused(
        store,
        project_dir,
        "SR_RECORD_INSTALL_FAILED",
        lambda: enable(store, NAME, project_dir, fault=failing_at(step, exc)),
    )
    assert "nothing was left changed" in err.message


def test_revoke_of_a_skill_that_is_not_enabled_is_refused(
    store: Store, validated: Any, project_dir: Path
) -> None:
    refused(
        store,
        project_dir,
        "SR_RECORD_STATE_INVALID",
        lambda: revoke(store, NAME),
    )


def _symlink_skill_md(package: Path) -> None:
    (package / SKILL_MD).unlink()
    (package / SKILL_MD).symlink_to(package / MANIFEST)


MODIFICATIONS: dict[str, Callable[[Path], object]] = {
    "edited": lambda p: (p / SKILL_MD).write_text("changed by hand\n"),
    "added": lambda p: (p / "notes.md").write_text("mine"),
    "removed": lambda p: (p / MANIFEST).unlink(),
    "not executable": lambda p: (p / REPLAY_SCRIPT).chmod(0o644),
    "symlinked file": _symlink_skill_md,
}


@pytest.mark.parametrize("change", list(MODIFICATIONS))
@pytest.mark.parametrize("which", [0, 1])
def test_a_package_changed_by_hand_is_never_deleted(
    store: Store, validated: Any, project_dir: Path, change: str, which: int
) -> None:
    enabled = enable(store, NAME, project_dir)
    MODIFICATIONS[change](Path(enabled.installations[which]))
    refused(
        store,
        project_dir,
        "SR_RECORD_INSTALL_MODIFIED",
        lambda: revoke(store, NAME),
    )
    assert store.get(NAME).status == "enabled"


def test_a_symlinked_root_at_revoke_is_refused(
    store: Store, validated: Any, project_dir: Path, tmp_path: Path
) -> None:
    enabled = enable(store, NAME, project_dir)
    real = tmp_path / "real-skills"
    (project_dir / ".claude" / "skills").rename(real)
    (project_dir / ".claude" / "skills").symlink_to(real, target_is_directory=True)
    refused(
        store,
        project_dir,
        "SR_RECORD_INSTALL_SYMLINK",
        lambda: revoke(store, NAME),
    )
    assert (real / NAME / SKILL_MD).exists()
    assert Path(enabled.installations[0]).exists()


# --- rollback at every step --------------------------------------------------------------------


def test_the_enable_steps_are_the_ones_the_rollback_tests_cover(
    store: Store, validated: Any, project_dir: Path
) -> None:
    steps: list[str] = []
    enable(store, NAME, project_dir, fault=recording(steps))
    assert steps == [*ENABLE_STEPS, "enable.finish"]
    steps.clear()
    revoke(store, NAME, fault=recording(steps))
    assert steps == [*REVOKE_STEPS, "revoke.delete:0", "revoke.delete:1"]


@pytest.mark.parametrize("step", ENABLE_STEPS)
def test_a_failure_at_any_enable_step_leaves_files_and_store_as_before(
    store: Store, validated: Any, project_dir: Path, step: str
) -> None:
    (project_dir / ".claude" / "skills").mkdir(parents=True)  # one root exists, one is created
    files_before, store_before = snapshot(project_dir), store_state(store)
    with pytest.raises(Injected):
        enable(store, NAME, project_dir, fault=failing_at(step))
    assert snapshot(project_dir) == files_before
    assert store_state(store) == store_before
    assert list((store.home / "installs").glob("*.json")) == []  # a rollback settles its journal


@pytest.mark.parametrize("step", REVOKE_STEPS)
def test_a_failure_at_any_revoke_step_leaves_files_and_store_as_before(
    store: Store, validated: Any, project_dir: Path, step: str
) -> None:
    enable(store, NAME, project_dir)
    files_before, store_before = snapshot(project_dir), store_state(store)
    inodes = {p: os.lstat(project_dir / p).st_ino for p in files_before}
    with pytest.raises(Injected):
        revoke(store, NAME, fault=failing_at(step))
    assert snapshot(project_dir) == files_before
    assert {p: os.lstat(project_dir / p).st_ino for p in files_before} == inodes  # the very same files
    assert store_state(store) == store_before
    assert list((store.home / "installs").glob("*.json")) == []


def test_a_store_commit_that_fails_rolls_the_install_back(
    store: Store, validated: Any, project_dir: Path
) -> None:
    """A real commit failure: another writer changes the skill between the checks and the commit."""
    from skillreel.model import lifecycle
    from skillreel.store import AuditNote
    from tests.support.factory import T2, events_log

    def concurrent_rerecord(step: str) -> None:
        if step == "enable.commit":
            with Store.open() as other:
                other.update(
                    NAME,
                    lambda e: lifecycle.replace_draft(e, e.draft, events_log(), T2),
                    AuditNote(kind="record"),
                )

    files_before = snapshot(project_dir)
    with pytest.raises(SkillreelError) as err:
        enable(store, NAME, project_dir, fault=concurrent_rerecord)
    assert err.value.code == "SR_RECORD_REVISION_CONFLICT"
    assert snapshot(project_dir) == files_before
    assert store.get(NAME).status == "draft"


def test_a_failure_deleting_the_stage_after_the_commit_is_reported(
    store: Store, validated: Any, project_dir: Path
) -> None:
    enable(store, NAME, project_dir)
    result = revoke(store, NAME, fault=failing_at("revoke.delete:1", OSError(errno.EBUSY, "busy")))
    assert store.get(NAME).status == "revoked"
    assert len(result.leftovers) == 1
    leftover = Path(result.leftovers[0])
    assert leftover.parent == project_dir / ".claude" / "skills"
    assert leftover.name.startswith(".skillreel-revoke-")
    assert not (project_dir / ".claude" / "skills" / NAME).exists()
    assert not (project_dir / ".agents" / "skills" / NAME).exists()
