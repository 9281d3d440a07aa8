"""`export --playwright` refusals (issue 32.7), without a browser: only an approved, validated or
enabled revision, at the revision named; never over an existing file without --force, never
through a symlink or onto a directory; each a clear code, nothing written, the failure audited
like an export's. The console script refuses both or neither of --out and --playwright."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillreel.errors import SkillreelError
from skillreel.services.exporting import export_playwright
from skillreel.store import Store
from tests.support.cli import run_cli
from tests.support.factory import seed, url_environment


def _code(store: Store, out: Path, **kwargs: object) -> str:
    with pytest.raises(SkillreelError) as refused:
        export_playwright(store, "search-invoices", out, **kwargs)  # type: ignore[arg-type]
    return refused.value.code


@pytest.mark.parametrize("status", ["draft", "revoked"])
def test_only_an_approved_revision_is_exported(store: Store, tmp_path: Path, status: str) -> None:
    seed(store, status=status, environment=url_environment())
    out = tmp_path / "skill.py"

    assert _code(store, out) == "SR_RECORD_STATE_INVALID"
    assert not out.exists()


@pytest.mark.parametrize("status", ["approved", "validated", "enabled"])
def test_an_approved_revision_is_exported_and_audited(store: Store, tmp_path: Path, status: str) -> None:
    entry = seed(store, status=status, environment=url_environment())
    out = tmp_path / "skill.py"

    result = export_playwright(store, "search-invoices", out, expected_revision=entry.revision)

    assert result.revision == entry.revision
    assert out.read_bytes().startswith(b"#!/usr/bin/env python3\n")
    event = store.audit_events("search-invoices")[-1]
    assert (event.kind, event.outcome, event.digests["script"]) == ("export", "ok", result.script_digest)


def test_a_stale_revision_an_existing_file_and_a_symlink_are_refused(store: Store, tmp_path: Path) -> None:
    entry = seed(store, status="approved", environment=url_environment())
    existing, link, folder = tmp_path / "old.py", tmp_path / "link.py", tmp_path / "folder.py"
    existing.write_text("kept\n")
    link.symlink_to(existing)
    folder.mkdir()

    assert (
        _code(store, tmp_path / "new.py", expected_revision=entry.revision - 1)
        == "SR_RECORD_REVISION_CONFLICT"
    )
    assert _code(store, existing) == "SR_RECORD_OUTPUT_EXISTS"
    assert _code(store, link, force=True) == "SR_RECORD_OUTPUT_FAILED"
    assert _code(store, folder, force=True) == "SR_RECORD_OUTPUT_FAILED"
    assert existing.read_text() == "kept\n"
    assert link.is_symlink()
    assert not (tmp_path / "new.py").exists()
    export_playwright(store, "search-invoices", existing, force=True)
    assert existing.read_text().startswith("#!/usr/bin/env python3")


def test_a_skill_of_an_html_fixture_is_refused(store: Store, tmp_path: Path) -> None:
    seed(store, status="approved")  # recorded on an HTML fixture only skillreel's sandbox serves
    out = tmp_path / "skill.py"

    assert _code(store, out) == "SR_RECORD_SCRIPT_UNSUPPORTED"
    assert not out.exists()


def test_the_console_script_takes_one_of_out_and_playwright(tmp_path: Path) -> None:
    both = run_cli("export", "x", "--out", str(tmp_path / "a.json"), "--playwright", str(tmp_path / "a.py"))
    neither = run_cli("export", "x")

    for refused in (both, neither):
        assert refused.exit_code == 2, refused.stderr
        assert "SR_RECORD_USAGE" in refused.stderr


def test_the_console_script_writes_the_script_with_json(store: Store, tmp_path: Path) -> None:
    entry = seed(store, status="approved", environment=url_environment())
    out = tmp_path / "skill.py"

    done = run_cli(
        "export",
        "search-invoices",
        "--playwright",
        str(out),
        "--expected-revision",
        str(entry.revision),
        "--json",
    )

    assert done.exit_code == 0, done.stderr
    data = done.data()
    assert (data["name"], data["revision"], data["path"]) == ("search-invoices", entry.revision, str(out))
    assert data["scriptDigest"].startswith("sha256:")
    assert out.read_text().startswith("#!/usr/bin/env python3")
