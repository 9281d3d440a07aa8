"""What a batch leaves for CI besides its summary (``cli/batch.py``): the command that resumes it,
and the result files a caller asks for.

* :func:`resume_command`: the real command line that replays the rows that did not succeed (the
  batch file's path as given, the skill, every option that changes what runs, ``--resume RUNSET``),
  quoted for a POSIX shell.
* ``--results FILE.csv|FILE.jsonl``: one line per row (row, line, status, code, run id, seconds,
  outputs). Outputs belong to the caller, so the file is the caller's: written whole with mode 0600
  (``private_files.write_private``), never into the store.
* ``--junit FILE.xml``: one ``testcase`` per row; a failed row has a ``failure`` with its code and
  message (content-free, like every error message), a cancelled or interrupted one an ``error``, a
  row that did not run (or had succeeded before) is ``skipped``. No outputs.

Both paths are checked before the batch starts (:func:`check_result_files`): an existing symlink or
directory, a parent that is not a directory, or a results file of another kind is refused with
``SR_REPLAY_BATCH_OUTPUT_REFUSED`` and nothing runs. They are written when the batch ends (cancelled
too); a file that cannot be written then becomes ``SR_RECORD_OUTPUT_FAILED`` on stderr, never a
different batch outcome.
"""

from __future__ import annotations

import csv
import functools
import io
import json
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

import click

from ..errors import RecordError, ReplayError
from ..model.limits import DEFAULT_SETTLE_MS, DEFAULT_TIMEOUT_MS, DEFAULT_WORKERS

if TYPE_CHECKING:
    from ..services.batching import BatchOutcome, BatchRequest, RowResult

RESULT_COLUMNS = ("row", "line", "status", "code", "runId", "seconds", "outputs")


@dataclass(frozen=True)
class ResultFiles:
    """``--results`` and ``--junit`` as given (None when not asked)."""

    results: Path | None = None
    junit: Path | None = None

    def options(self) -> list[str]:
        """The options as a command line gives them (for :func:`resume_command`)."""
        out: list[str] = []
        if self.results is not None:
            out += ["--results", str(self.results)]
        if self.junit is not None:
            out += ["--junit", str(self.junit)]
        return out


def result_file_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--results`` and ``--junit``, given to ``command`` as one ``result_files`` argument."""

    @click.option(
        "--results",
        "results",
        type=click.Path(path_type=Path, exists=False),
        metavar="FILE",
        help="With --batch: write one line per row (status, code, run id, outputs) to FILE.csv or "
        "FILE.jsonl, mode 0600 (it holds the outputs: it is yours, never in the store).",
    )
    @click.option(
        "--junit",
        "junit",
        type=click.Path(path_type=Path, exists=False),
        metavar="FILE",
        help="With --batch: write a JUnit XML report to FILE, one testcase per row.",
    )
    @functools.wraps(command)
    def with_result_files(*args: Any, results: Path | None, junit: Path | None, **kwargs: Any) -> Any:
        return command(*args, result_files=ResultFiles(results, junit), **kwargs)

    return with_result_files


def resume_command(batch: BatchRequest, runset: str, extra: Sequence[str] = ()) -> str:
    """The command that resumes ``runset``: this batch's file and options, then ``extra``."""
    replay = batch.replay
    words = ["skillreel", "replay", replay.name, "--batch", str(batch.batch_file)]
    for name, value in replay.inputs.items():
        words += ["--input", f"{name}={_text(value)}"]
    for option, given in (
        ("--env", replay.environment),
        ("--url", replay.url),
        ("--html", replay.html_path),
        ("--storage-state", replay.storage_state),
        ("--expected-revision", replay.expected_revision),
        ("--artifacts", replay.debug.artifacts),
    ):
        if given is not None:
            words += [option, str(given)]
    if not replay.heal:
        words.append("--no-heal")
    if replay.timeout_ms != DEFAULT_TIMEOUT_MS:
        words += ["--timeout", str(replay.timeout_ms)]
    if replay.settle_ms != DEFAULT_SETTLE_MS:
        words += ["--settle", str(replay.settle_ms)]
    if batch.workers != DEFAULT_WORKERS:
        words += ["--workers", str(batch.workers)]
    if batch.stop_on_failure:
        words.append("--stop-on-failure")
    return shlex.join([*words, *extra, "--resume", runset])


def _text(value: object) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def shown_broker(url: str) -> str:
    """A broker URL for a printed command: its password replaced by ``<password>``."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:<password>@{host}"))


# ---- the result files ---------------------------------------------------------------------------


def check_result_files(files: ResultFiles) -> None:
    """Refuse a path that is a symlink or a directory, whose parent is not a directory, or (for
    ``--results``) whose name says neither .csv nor .jsonl. Nothing is written."""
    if files.results is not None:
        _check_path(files.results, "--results")
        if files.results.suffix.lower() not in (".csv", ".jsonl"):
            raise _refused("--results", files.results, "its name must end in .csv or .jsonl")
    if files.junit is not None:
        _check_path(files.junit, "--junit")
    if files.results is not None and files.junit is not None and files.results == files.junit:
        raise _refused("--junit", files.junit, "it is the --results file too")


def _check_path(path: Path, option: str) -> None:
    if path.is_symlink():
        raise _refused(option, path, "it is a symlink (the file is written only where you name it)")
    if path.is_dir():
        raise _refused(option, path, "it is a directory")
    if path.exists() and not path.is_file():
        raise _refused(option, path, "it is not a regular file")
    if not path.absolute().parent.is_dir():
        raise _refused(option, path, "its directory does not exist")


def _refused(option: str, path: Path, why: str) -> ReplayError:
    return ReplayError(
        "SR_REPLAY_BATCH_OUTPUT_REFUSED",
        f"{option} {path}: {why}; nothing was run",
        details={"option": option},
    )


def write_result_files(outcome: BatchOutcome, files: ResultFiles) -> list[RecordError]:
    """Write the files asked for; the problems (nothing left behind for each) are returned."""
    from ..private_files import write_private

    problems: list[RecordError] = []
    wanted: list[tuple[str, Path, bytes]] = []
    if files.results is not None:
        jsonl = files.results.suffix.lower() == ".jsonl"
        wanted.append(("--results", files.results, (results_jsonl if jsonl else results_csv)(outcome)))
    if files.junit is not None:
        wanted.append(("--junit", files.junit, junit_xml(outcome)))
    for option, path, data in wanted:
        try:
            write_private(path, data)
        except OSError as exc:
            problems.append(
                RecordError(
                    "SR_RECORD_OUTPUT_FAILED",
                    f"{option} {path} could not be written ({exc.strerror or type(exc).__name__})",
                )
            )
    return problems


def _row(result: RowResult) -> dict[str, Any]:
    return {
        "row": result.row,
        "line": result.line,
        "status": result.status,
        "code": result.code,
        "runId": result.run_id,
        "seconds": round(result.seconds, 3) if result.seconds is not None else None,
        "outputs": result.outputs,
    }


def results_jsonl(outcome: BatchOutcome) -> bytes:
    """One JSON object per row, in row order."""
    lines = (json.dumps(_row(r), ensure_ascii=False, separators=(",", ":")) for r in outcome.results)
    return "".join(f"{line}\n" for line in lines).encode("utf-8")


def results_csv(outcome: BatchOutcome) -> bytes:
    """A header, then one line per row; ``outputs`` is the row's outputs as JSON (empty when none)."""
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(RESULT_COLUMNS)
    for result in outcome.results:
        row = _row(result)
        outputs = row["outputs"]
        row["outputs"] = "" if outputs is None else json.dumps(outputs, ensure_ascii=False)
        writer.writerow(["" if row[c] is None else row[c] for c in RESULT_COLUMNS])
    return out.getvalue().encode("utf-8")


def junit_xml(outcome: BatchOutcome) -> bytes:
    """A JUnit XML report: one ``testsuite`` (the batch), one ``testcase`` per row."""
    from xml.etree import ElementTree as ET

    failures = outcome.count("failed")
    errors = outcome.count("cancelled") + outcome.count("interrupted")
    skipped = outcome.count("skipped") + outcome.count("not-run")
    took = sum(r.seconds or 0.0 for r in outcome.results)
    suites = ET.Element("testsuites")
    suite = ET.SubElement(
        suites,
        "testsuite",
        name=f"skillreel replay {outcome.name}",
        id=outcome.runset,
        tests=str(len(outcome.results)),
        failures=str(failures),
        errors=str(errors),
        skipped=str(skipped),
        time=f"{took:.3f}",
    )
    for result in outcome.results:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"skillreel.{outcome.name}",
            name=f"row {result.row} (line {result.line})",
            time=f"{result.seconds or 0.0:.3f}",
        )
        if result.run_id is not None:
            properties = ET.SubElement(case, "properties")
            ET.SubElement(properties, "property", name="runId", value=result.run_id)
        _verdict(case, result)
    ET.indent(suites)
    document: bytes = ET.tostring(suites, encoding="utf-8", xml_declaration=True)
    return document + b"\n"


def _verdict(case: Any, result: RowResult) -> None:
    from xml.etree import ElementTree as ET

    code = result.code or "SR_REPLAY_BATCH_FAILED"
    message = f"{code}: {result.message}" if result.message else code
    if result.status == "failed":
        ET.SubElement(case, "failure", type=code, message=message).text = message
    elif result.status in ("cancelled", "interrupted"):
        ET.SubElement(case, "error", type=code, message=f"{result.status}: {message}")
    elif result.status == "skipped":
        ET.SubElement(case, "skipped", message="succeeded before in this runset")
    elif result.status == "not-run":
        ET.SubElement(case, "skipped", message="not run (the batch was stopped or cancelled first)")
