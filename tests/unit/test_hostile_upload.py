"""Hostile review of the ``upload`` step's files (issue 32.2): a symlink, a FIFO, ``/dev/zero``, a
directory, a path with ``..`` or a symlinked folder leading outside the MCP ``uploadDirs``, a file
that grows after the check: each is refused with an ``SR_REPLAY_UPLOAD_*`` / input code whose
message names the input, never the path, the file's name or its content."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skillreel import user_files
from skillreel.errors import InputError, ReplayError
from skillreel.model.draft import Parameter
from skillreel.user_files import read_upload, upload_paths

FILE = Parameter(name="receipt", type="file")
SECRET = b"card 4111 1111 1111 1111"


@pytest.fixture
def roots(tmp_path: Path) -> tuple[Path, Path]:
    allowed, outside = tmp_path / "uploads", tmp_path / "private"
    allowed.mkdir()
    outside.mkdir()
    (outside / "id_ed25519-secret.txt").write_bytes(SECRET)
    return allowed, outside


def _refused(path: str, roots: list[str] | None, code_part: str = "SR_REPLAY_UPLOAD_") -> str:
    with pytest.raises(ReplayError) as caught:
        upload_paths((FILE,), {"receipt": path}, roots)
    message = str(caught.value)
    assert caught.value.code.startswith(code_part)
    assert "receipt" in message
    assert path not in message
    assert "secret" not in message
    return message


def test_a_symlink_is_refused(roots: tuple[Path, Path]) -> None:
    allowed, outside = roots
    (allowed / "link.txt").symlink_to(outside / "id_ed25519-secret.txt")
    _refused(str(allowed / "link.txt"), [str(allowed)])
    _refused(str(allowed / "link.txt"), None)  # the command line too
    with pytest.raises(InputError):
        read_upload(str(allowed / "link.txt"))


def test_a_fifo_and_dev_zero_and_a_directory_are_refused(roots: tuple[Path, Path]) -> None:
    allowed, _ = roots
    fifo = allowed / "pipe"
    os.mkfifo(fifo)
    for path in (str(fifo), "/dev/zero", str(allowed)):
        _refused(path, None)
        with pytest.raises(InputError):
            read_upload(path)  # never blocks on the FIFO, never reads /dev/zero forever


@pytest.mark.parametrize(
    "relative",
    [
        "../private/id_ed25519-secret.txt",
        "./../private/id_ed25519-secret.txt",
        "x/../../private/id_ed25519-secret.txt",
    ],
)
def test_dot_dot_out_of_the_upload_dirs_is_refused(roots: tuple[Path, Path], relative: str) -> None:
    allowed, _ = roots
    (allowed / "x").mkdir()
    _refused(f"{allowed}/{relative}", [str(allowed)], "SR_REPLAY_UPLOAD_OUTSIDE")


def test_a_symlinked_folder_out_of_the_upload_dirs_is_refused(roots: tuple[Path, Path]) -> None:
    allowed, outside = roots
    (allowed / "sub").symlink_to(outside, target_is_directory=True)
    _refused(str(allowed / "sub" / "id_ed25519-secret.txt"), [str(allowed)], "SR_REPLAY_UPLOAD_OUTSIDE")


def test_a_relative_path_or_no_upload_dirs_is_refused_for_mcp(roots: tuple[Path, Path]) -> None:
    allowed, _ = roots
    (allowed / "ok.txt").write_bytes(b"ok")
    _refused("ok.txt", [str(allowed)], "SR_REPLAY_UPLOAD_OUTSIDE")
    _refused(str(allowed / "ok.txt"), [], "SR_REPLAY_UPLOAD_OUTSIDE")
    assert upload_paths((FILE,), {"receipt": "@" + str(allowed / "ok.txt")}, [str(allowed)]) == {
        "receipt": str(allowed / "ok.txt")
    }


def test_a_file_that_grows_after_the_check_is_not_read_past_the_limit(
    roots: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    allowed, _ = roots
    monkeypatch.setattr(user_files, "MAX_UPLOAD_BYTES", 1_000)
    grown = allowed / "grows.bin"
    grown.write_bytes(b"a" * 10)
    assert upload_paths((FILE,), {"receipt": str(grown)}, [str(allowed)])  # checked: small
    with grown.open("ab") as out:
        out.write(b"b" * 5_000)  # then it grows
    with pytest.raises(InputError) as caught:
        read_upload(str(grown))
    assert caught.value.code == "SR_RECORD_INPUT_TOO_LARGE"
    assert str(grown) not in str(caught.value)


def test_the_read_file_has_no_path_or_content_in_its_repr(roots: tuple[Path, Path]) -> None:
    allowed, _ = roots
    (allowed / "receipt-of-mallory.pdf").write_bytes(SECRET)
    chosen = read_upload(str(allowed / "receipt-of-mallory.pdf"))
    assert chosen.data == SECRET
    assert "mallory" not in repr(chosen)
    assert "4111" not in repr(chosen)


def test_a_folder_swapped_for_a_symlink_after_the_check_is_not_read(roots: tuple[Path, Path]) -> None:
    """TOCTOU: the uploadDirs check runs at pre-flight; the step reads later. O_NOFOLLOW guards the
    last part of the path only, so the step checks the file it opened is at the checked real path
    (fails on integ: the file outside uploadDirs was read)."""
    allowed, outside = roots
    sub = allowed / "sub"
    sub.mkdir()
    (sub / "id_ed25519-secret.txt").write_bytes(b"harmless")
    path = str(sub / "id_ed25519-secret.txt")
    assert upload_paths((FILE,), {"receipt": path}, [str(allowed)]) == {"receipt": path}
    sub.rename(allowed / "sub-before")  # between pre-flight and the step ...
    sub.symlink_to(outside, target_is_directory=True)  # ... the folder now leads outside
    try:
        chosen = read_upload(path)
    except InputError:
        return
    assert chosen.data != SECRET
