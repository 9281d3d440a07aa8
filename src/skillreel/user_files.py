"""Reading JSON input files safely, and mapping validation failures to input error codes.

Every JSON file a user hands skillreel (policy, import, automation, assertions) goes through
:func:`read_user_file` (a regular file, not a symlink, at most 2 MiB) and then
:func:`parse_document`, which validates it against a model and reports *where* and *what kind* of
problem, never the offending value::

    data = read_user_file(path, what="policy file")
    settings = parse_document(PolicySettings, data, what="policy file")

The files an ``upload`` step sets (issue 32.2) are checked before a replay by
:func:`upload_problem` (exists, a regular file and not a symlink, at most 25 MB, and for MCP under
the policy's ``uploadDirs``) and read at the step by :func:`read_upload`; neither ever names the path.
"""

from __future__ import annotations

import contextlib
import errno
import json
import mimetypes
import os
import re
import stat
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from .errors import InputError, ReplayError
from .model.draft import Parameter
from .model.graph_problem import GraphProblem
from .model.limits import MAX_JSON_INPUT_BYTES, MAX_UPLOAD_BYTES
from .private_files import write_private

M = TypeVar("M", bound=BaseModel)
UPLOAD_REFUSED = "SR_REPLAY_UPLOAD_REFUSED"
UPLOAD_TOO_LARGE = "SR_REPLAY_UPLOAD_TOO_LARGE"
UPLOAD_OUTSIDE = "SR_REPLAY_UPLOAD_OUTSIDE"

# Error types whose pydantic message names only the rule (never the input value).
_SAFE_MESSAGES = frozenset(
    {
        "missing",
        "extra_forbidden",
        "string_type",
        "int_type",
        "bool_type",
        "dict_type",
        "list_type",
        "tuple_type",
        "model_type",
        "model_attributes_type",
        "string_too_long",
        "string_too_short",
        "too_long",
        "too_short",
        "greater_than",
        "greater_than_equal",
        "less_than",
        "less_than_equal",
        "string_pattern_mismatch",
        "literal_error",
        "json_invalid",
        "json_type",
        "value_error",
        "digest_mismatch",
        "union_tag_not_found",
        "int_from_float",
        "frozen_instance",
    }
)
# Location parts shown as they are: field names (camelCase). Other parts are user-chosen keys
# (unknown keys, dict keys) and are shown as ``<key>``, since a key may carry content too.
_LOC_PART = re.compile(r"^[a-z][A-Za-z0-9]{0,47}$")


def read_user_file(
    path: str | os.PathLike[str],
    *,
    what: str = "input file",
    limit: int = MAX_JSON_INPUT_BYTES,
    real_path: bool = False,
) -> bytes:
    """The bytes of a regular, non-symlink file of at most ``limit`` bytes.

    ``SR_RECORD_INPUT_NOT_REGULAR`` (missing, a symlink, a directory, a FIFO...),
    ``SR_RECORD_INPUT_TOO_LARGE``. The file is opened once with ``O_NOFOLLOW`` and checked with
    ``fstat`` on that descriptor, so it cannot be swapped between the check and the read.
    """
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(Path(path), flags)
    except OSError as exc:
        raise InputError("SR_RECORD_INPUT_NOT_REGULAR", f"the {what} {_why(exc)}") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputError("SR_RECORD_INPUT_NOT_REGULAR", f"the {what} is not a regular file")
        if real_path and not _opened_at(fd, path):
            raise InputError("SR_RECORD_INPUT_NOT_REGULAR", f"the {what} moved after it was checked")
        if info.st_size > limit:
            raise InputError("SR_RECORD_INPUT_TOO_LARGE", f"the {what} is larger than {limit:,} bytes")
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(fd, min(1 << 20, limit + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise InputError("SR_RECORD_INPUT_TOO_LARGE", f"the {what} is larger than {limit:,} bytes")
    except OSError as exc:
        raise InputError("SR_RECORD_INPUT_NOT_REGULAR", f"the {what} could not be read") from exc
    finally:
        os.close(fd)
    return b"".join(chunks)


def _opened_at(fd: int, path: str | os.PathLike[str]) -> bool:
    """Whether the file open on ``fd`` is at ``path`` (Linux's ``/proc/self/fd``; elsewhere
    assumed): a folder of the path swapped for a symlink after a check is followed by the open and
    then seen here."""
    try:
        opened = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return True
    return opened == os.path.abspath(path)


def _why(exc: OSError) -> str:
    if exc.errno == errno.ENOENT:
        return "does not exist"
    if exc.errno in (errno.ELOOP, errno.EMLINK):
        return "is a symlink (refused)"
    if exc.errno == errno.EISDIR:
        return "is a directory"
    if exc.errno == errno.EACCES:
        return "is not readable"
    return "could not be opened"


def decode_json_object(data: bytes, *, what: str = "input file") -> dict[str, Any]:
    """Decode ``data`` as one JSON object (``SR_RECORD_INPUT_MALFORMED`` otherwise)."""
    try:
        value = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise InputError("SR_RECORD_INPUT_MALFORMED", f"the {what} is not valid JSON") from exc
    if not isinstance(value, dict):
        raise InputError("SR_RECORD_INPUT_MALFORMED", f"the {what} must hold one JSON object")
    return value


def parse_document(cls: type[M], data: bytes | str, *, what: str = "input file") -> M:
    """Validate ``data`` (JSON) as ``cls`` strictly, mapping failures to input error codes:

    a wrong ``schema`` anywhere -> ``SR_RECORD_SCHEMA_VERSION``; a digest that does not match
    (and nothing else wrong) -> ``SR_RECORD_DIGEST_MISMATCH``; anything else (invalid JSON,
    unknown or missing keys, values out of bounds) -> ``SR_RECORD_INPUT_MALFORMED``.
    """
    try:
        return cls.model_validate_json(data, strict=True)
    except ValidationError as exc:
        raise input_error(exc, what=what) from exc
    except (ValueError, RecursionError) as exc:
        raise InputError("SR_RECORD_INPUT_MALFORMED", f"the {what} is not valid") from exc


def input_error(exc: ValidationError, *, what: str = "input file") -> InputError:
    """The InputError for a ValidationError: its code and a value-free description."""
    problems = _own(exc.errors(include_url=False, include_input=False, include_context=True))
    types = [p["type"] for p in problems]
    graph = next((p["ctx"]["error"] for p in problems if _graph_problem(p)), None)
    if graph is not None:  # a rule of the step graph: its own code, the step named
        return InputError(graph.code, f"the {what} is not valid: {graph}", action_id=graph.step)
    if any(p["type"] == "literal_error" and p["loc"] and p["loc"][-1] == "schema" for p in problems):
        code = "SR_RECORD_SCHEMA_VERSION"
    elif types and all(t == "digest_mismatch" for t in types):
        code = "SR_RECORD_DIGEST_MISMATCH"
    else:
        code = "SR_RECORD_INPUT_MALFORMED"
    shown = "; ".join(
        _describe(p["loc"][:-1] if p["type"] == "extra_forbidden" else p["loc"], p["type"], p["msg"])
        for p in problems[:3]
    )
    more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
    return InputError(code, f"the {what} is not valid: {shown}{more}")


def _own(problems: list[Any]) -> list[Any]:
    """The problems without a list's "too short" that only counts its items that failed themselves
    (pydantic checks a length after dropping them: one bad edit read as "not 0" items too)."""

    def inside(outer: tuple[Any, ...], problem: Any) -> bool:
        loc = tuple(problem["loc"])
        return len(loc) > len(outer) and loc[: len(outer)] == outer

    return [
        p
        for p in problems
        if not (p["type"] == "too_short" and any(inside(tuple(p["loc"]), q) for q in problems))
    ] or problems


def _graph_problem(problem: Any) -> bool:
    error = (problem.get("ctx") or {}).get("error")
    return isinstance(error, GraphProblem)


def _describe(loc: Sequence[int | str], kind: str, msg: str) -> str:
    where = ".".join(str(p) if isinstance(p, int) or _LOC_PART.match(p) else "<key>" for p in loc)
    if kind == "extra_forbidden":
        return f"{where or '(document)'}: an unknown key is not permitted"
    return f"{where or '(document)'}: {msg if kind in _SAFE_MESSAGES else kind}"


# ---- files an upload step sets (issue 32.2) -----------------------------------------------------


@dataclass(frozen=True)
class UploadFile:
    """One file an upload step hands the page: its name, type and bytes, for the page only (never
    in a repr, an error, a log, the store or a report)."""

    name: str = field(repr=False)
    mime: str
    data: bytes = field(repr=False)


def upload_problem(path: str, roots: Sequence[str] | None) -> tuple[str, str] | None:
    """Why the file input ``path`` cannot be uploaded, as ``(code, reason)``, or None. The reason
    never names the path. ``roots``: the directories a caller may take files from (MCP: the
    policy's ``uploadDirs``; empty refuses every path); None: anywhere (the command line)."""
    if roots is not None:
        if not roots:
            return UPLOAD_OUTSIDE, "is refused: the policy allows no upload directory (uploadDirs)"
        if not os.path.isabs(path):
            return UPLOAD_OUTSIDE, "is refused: an upload path must be absolute"
    try:
        info = os.lstat(path)
    except OSError as exc:
        return UPLOAD_REFUSED, f"names a file that {_why(exc)}"
    if stat.S_ISLNK(info.st_mode):
        return UPLOAD_REFUSED, "names a symlink (refused)"
    if stat.S_ISDIR(info.st_mode):
        return UPLOAD_REFUSED, "names a directory"
    if not stat.S_ISREG(info.st_mode):
        return UPLOAD_REFUSED, "names something other than a regular file"
    if info.st_size > MAX_UPLOAD_BYTES:
        return UPLOAD_TOO_LARGE, f"names a file larger than {MAX_UPLOAD_BYTES:,} bytes"
    if roots is not None:
        real = Path(os.path.realpath(path))
        if not any(real.is_relative_to(os.path.realpath(root)) for root in roots):
            return UPLOAD_OUTSIDE, "names a file outside the policy's upload directories (uploadDirs)"
    return None


def read_upload(path: str) -> UploadFile:
    """The file an upload step sets, read once (a regular file, not a symlink, at most
    ``MAX_UPLOAD_BYTES``; where the system tells, the file opened is at ``path`` itself, the real
    path pre-flight checked: a folder swapped for a symlink since is refused); ``InputError`` with a
    content-free reason otherwise."""
    data = read_user_file(path, what="upload file", limit=MAX_UPLOAD_BYTES, real_path=True)
    name = Path(path).name
    return UploadFile(name, mimetypes.guess_type(name)[0] or "application/octet-stream", data)


@contextlib.contextmanager
def private_copy(upload: UploadFile) -> Iterator[Path]:
    """``upload`` written to a file of its name in a new private directory (0700; the file 0600),
    both removed when the block ends: the bytes that were checked, for a browser to read."""
    with tempfile.TemporaryDirectory(prefix="skillreel-upload-") as folder:
        copy = Path(folder) / upload.name
        write_private(copy, upload.data, replace=False)
        yield copy


def upload_paths(
    parameters: Sequence[Parameter], given: Mapping[str, object], roots: Sequence[str] | None
) -> dict[str, str]:
    """The path each ``file`` input was given (``@PATH``, or the bare path; one leading ``@`` is
    dropped), each checked by :func:`upload_problem` before anything runs: the first refused is
    ``SR_REPLAY_UPLOAD_*`` naming the parameter, never the path."""
    paths: dict[str, str] = {}
    for param in parameters:
        raw = given.get(param.name)
        if param.type != "file" or not isinstance(raw, str) or not raw:
            continue
        path = raw[1:] if raw.startswith("@") else raw
        problem = upload_problem(path, roots)
        if problem is not None:
            code, reason = problem
            raise ReplayError(code, f"file input {param.name!r} {reason}; nothing was replayed")
        paths[param.name] = os.path.realpath(path)  # read at the step from exactly this place
    return paths
