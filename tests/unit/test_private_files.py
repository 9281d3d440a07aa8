"""The one writer of skillreel's own files: whole or not at all, owner-only, never through a symlink."""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

import pytest

from skillreel import private_files
from skillreel.private_files import TemporaryFileError, fsync_directory, write_private


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


@pytest.mark.parametrize("umask", [0o022, 0o277, 0o000])
def test_a_written_file_is_0600_whatever_the_umask(tmp_path: Path, umask: int) -> None:
    path = tmp_path / "secret.json"
    old = os.umask(umask)
    try:
        write_private(path, b"data")
    finally:
        os.umask(old)
    assert path.read_bytes() == b"data"
    assert _mode(path) == 0o600
    assert os.listdir(tmp_path) == ["secret.json"]


def test_an_explicit_mode_is_exact(tmp_path: Path) -> None:
    old = os.umask(0o077)
    try:
        write_private(tmp_path / "replay", b"#!/bin/sh\n", mode=0o755, replace=False)
    finally:
        os.umask(old)
    assert _mode(tmp_path / "replay") == 0o755


def test_replace_renames_over_an_existing_file_and_refuses_otherwise(tmp_path: Path) -> None:
    path = tmp_path / "out"
    write_private(path, b"one", replace=False)
    with pytest.raises(FileExistsError):
        write_private(path, b"two", replace=False)
    assert path.read_bytes() == b"one"
    write_private(path, b"two")
    assert path.read_bytes() == b"two"
    assert os.listdir(tmp_path) == ["out"]


def test_a_symlink_at_the_target_is_never_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.write_bytes(b"keep")
    link = tmp_path / "link"
    link.symlink_to(outside)
    with pytest.raises(FileExistsError):
        write_private(link, b"x", replace=False)
    assert link.is_symlink()
    write_private(link, b"x")  # the link itself is replaced by a regular file
    assert not link.is_symlink()
    assert link.read_bytes() == b"x"
    assert outside.read_bytes() == b"keep"
    assert sorted(os.listdir(tmp_path)) == ["link", "outside"]


def test_a_symlink_planted_at_the_temporary_name_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = tmp_path / "outside"
    outside.write_bytes(b"keep")
    monkeypatch.setattr(secrets, "token_hex", lambda n: "planted")
    (tmp_path / ".out.planted.tmp").symlink_to(outside)
    with pytest.raises(TemporaryFileError):
        write_private(tmp_path / "out", b"x")
    assert outside.read_bytes() == b"keep"
    assert not (tmp_path / "out").exists()


def test_a_missing_directory_fails_before_anything_is_written(tmp_path: Path) -> None:
    with pytest.raises(TemporaryFileError) as caught:
        write_private(tmp_path / "nowhere" / "out", b"x")
    assert isinstance(caught.value, OSError)
    assert caught.value.strerror


@pytest.mark.parametrize("replace", [True, False])
def test_nothing_is_left_when_a_write_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replace: bool
) -> None:
    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError, match="No space left"):
        write_private(tmp_path / "out", b"x", replace=replace)
    assert os.listdir(tmp_path) == []


def test_the_directory_is_synced_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[Path] = []
    monkeypatch.setattr(private_files, "fsync_directory", synced.append)
    write_private(tmp_path / "a", b"x")
    assert synced == []
    write_private(tmp_path / "b", b"x", sync_directory=True)
    assert synced == [tmp_path]
    fsync_directory(tmp_path)  # the real one, on a real directory
