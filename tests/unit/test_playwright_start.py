"""The compile cache of Playwright's process (``sandbox.playwright_start.node_compile_cache``): a
folder only this user can change, or no cache at all; never a failure, never over the caller's own
setting."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skillreel.sandbox.playwright_start import (
    NODE_CACHE_ENV,
    NODE_CACHE_FOLDER,
    NODE_CACHE_OFF_ENV,
    node_compile_cache,
    start_playwright,
)


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A home folder of this user's own, and no cache variable set (both restored afterwards)."""
    folder = tmp_path / "home"
    folder.mkdir(mode=0o700)
    monkeypatch.setenv("HOME", str(folder))
    for name in (NODE_CACHE_ENV, NODE_CACHE_OFF_ENV):
        monkeypatch.setenv(name, "restored afterwards")
        monkeypatch.delenv(name)
    return folder


def test_the_cache_is_a_new_owner_only_folder_playwright_is_pointed_at(home: Path) -> None:
    folder = node_compile_cache(home / "cache")
    assert folder == (home / "cache" / NODE_CACHE_FOLDER).resolve()
    assert folder.is_dir()
    assert folder.stat().st_mode & 0o777 == 0o700
    assert os.environ[NODE_CACHE_ENV] == str(folder)
    del os.environ[NODE_CACHE_ENV]
    assert node_compile_cache(home / "cache") == folder  # the next process finds it as it left it


def test_the_default_place_is_the_users_cache_folder(home: Path) -> None:
    folder = node_compile_cache()
    assert folder is not None
    assert folder.is_relative_to(home.resolve())
    assert os.environ[NODE_CACHE_ENV] == str(folder)


@pytest.mark.parametrize("name", [NODE_CACHE_ENV, NODE_CACHE_OFF_ENV])
def test_the_callers_own_setting_is_left_as_it_is(
    home: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.setenv(name, "theirs")
    assert node_compile_cache(home / "cache") is None
    assert os.environ[name] == "theirs"
    assert not (home / "cache").exists()
    if name == NODE_CACHE_OFF_ENV:
        assert NODE_CACHE_ENV not in os.environ


def test_a_cache_folder_others_may_write_is_not_used(home: Path) -> None:
    folder = home / "cache" / NODE_CACHE_FOLDER
    folder.mkdir(parents=True)
    folder.chmod(0o770)
    assert node_compile_cache(home / "cache") is None
    assert NODE_CACHE_ENV not in os.environ
    assert folder.stat().st_mode & 0o777 == 0o770  # never silently chmodded


def test_a_folder_above_it_that_others_may_write_is_not_used(home: Path) -> None:
    (home / "cache").mkdir()
    (home / "cache").chmod(0o777)
    assert node_compile_cache(home / "cache") is None
    assert NODE_CACHE_ENV not in os.environ


def test_a_link_to_a_folder_in_a_shared_place_is_not_used(home: Path, tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)  # like /tmp
    elsewhere = shared / "theirs"
    elsewhere.mkdir(mode=0o700)
    (home / "cache").mkdir()
    (home / "cache" / NODE_CACHE_FOLDER).symlink_to(elsewhere)
    assert node_compile_cache(home / "cache") is None
    assert NODE_CACHE_ENV not in os.environ


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user needs root")
def test_a_cache_folder_another_user_owns_is_not_used(home: Path) -> None:
    folder = home / "cache" / NODE_CACHE_FOLDER
    folder.mkdir(parents=True, mode=0o700)
    os.chown(folder, 65534, 65534)  # nobody
    assert node_compile_cache(home / "cache") is None
    assert NODE_CACHE_ENV not in os.environ


def test_a_cache_that_cannot_be_created_means_no_cache(home: Path) -> None:
    (home / "cache").write_text("a file where the folder should be")
    assert node_compile_cache(home / "cache") is None
    assert NODE_CACHE_ENV not in os.environ


async def test_playwrights_process_fills_the_cache_and_starts_from_it(home: Path) -> None:
    """Playwright's real process (Node.js, no browser): its first start writes compiled code into the cache;
    the next one starts with it there and works."""
    for _ in range(2):
        playwright = await start_playwright()
        try:
            assert playwright.chromium.name == "chromium"  # Playwright's process answers
        finally:
            await playwright.stop()
        folder = Path(os.environ.pop(NODE_CACHE_ENV))
        assert folder.is_relative_to(home.resolve())
        assert [p for p in folder.rglob("*") if p.is_file() and p.stat().st_size > 0]
