"""Run the corpus: for each app, record each task on the oldest version with each tool, replay it
with the other inputs on every version from a fresh seed, check the database, write the table.
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from . import codegen_tool
from .corpus import APPS
from .dbcheck import FAILED_CLOSED, RIGHT, WRONG, Outcome, classify, describe, diff, snapshot
from .envs import AppServer, Installed, free_port, install
from .skillreel_tool import Recorded, Skillreel
from .spec import App, Task

REPO = Path(__file__).resolve().parents[2]
TOOLS = ("skillreel", "codegen")


@dataclass(frozen=True)
class Result:
    app: str
    task: str
    version: str
    tool: str
    verdict: str
    detail: str
    seconds: float


@dataclass(frozen=True)
class Selection:
    apps: tuple[str, ...] = ()
    tasks: tuple[str, ...] = ()
    versions: tuple[str, ...] = ()
    tools: tuple[str, ...] = TOOLS

    def app_ok(self, app: App) -> bool:
        return not self.apps or app.name in self.apps

    def task_ok(self, task: Task) -> bool:
        return not self.tasks or task.name in self.tasks


def install_all(apps: Sequence[App], log: Callable[[str], None]) -> dict[str, list[Installed]]:
    jobs = [(app, v) for app in apps for v in app.versions]
    with ThreadPoolExecutor(max_workers=3) as pool:
        done = list(pool.map(lambda job: install(job[0], job[1], log), jobs))
    out: dict[str, list[Installed]] = {}
    for item in done:
        out.setdefault(item.app.name, []).append(item)
    return out


class SkillreelTool:
    """skillreel through its command line; one store per app run."""

    def __init__(self, app: App, workdir: Path, python: str | None) -> None:
        self.app = app
        self.cli = Skillreel(workdir / "skillreel-home", workdir / "skillreel", python)
        self.recorded: dict[str, Recorded] = {}

    def record(self, task: Task, url: str) -> tuple[bool, str]:
        recorded = self.cli.record(f"{self.app.name}-{task.name}"[:64], task, url)
        self.recorded[task.name] = recorded
        return recorded.ok, recorded.detail

    def replay(self, task: Task) -> tuple[bool, str]:
        ran = self.cli.replay(self.recorded[task.name], task.replay)
        return ran.ok, ran.detail + (f" (healed {', '.join(ran.healed)})" if ran.healed else "")


class CodegenTool:
    """The codegen-style baseline; its generated scripts go to the work folder."""

    def __init__(self, app: App, workdir: Path) -> None:
        self.app = app
        self.folder = workdir / "codegen"
        self.scripts: dict[str, Path] = {}

    def record(self, task: Task, url: str) -> tuple[bool, str]:
        self.folder.mkdir(parents=True, exist_ok=True)
        script = codegen_tool.record(task, url, self.folder / f"{self.app.name}-{task.name}.py")
        if script.path is not None:
            self.scripts[task.name] = script.path
        return script.ok, script.detail

    def replay(self, task: Task) -> tuple[bool, str]:
        ran = codegen_tool.replay(self.scripts[task.name], task.replay)
        return ran.ok, ran.detail


Tool = SkillreelTool | CodegenTool


def run_app(
    app: App,
    installed: list[Installed],
    selection: Selection,
    workdir: Path,
    log: Callable[[str], None],
    skillreel_python: str | None = None,
) -> list[Result]:
    """Record every selected task on the oldest version with every selected tool, then replay it
    on every selected version; one server on one port, reset to the seed before each run."""
    port = free_port()
    oldest = installed[0]
    targets = [i for i in installed if not selection.versions or i.version.label in selection.versions]
    tools: dict[str, Tool] = {
        "skillreel": SkillreelTool(app, workdir, skillreel_python),
        "codegen": CodegenTool(app, workdir),
    }
    results: list[Result] = []
    for task in (t for t in app.tasks if selection.task_ok(t)):
        for name in selection.tools:
            tool = tools[name]
            with AppServer(oldest, port, workdir / "servers" / f"record-{name}-{task.name}"):
                recorded, why = tool.record(task, f"http://127.0.0.1:{port}{task.start}")
            log(f"[realworld] {app.name} {task.name} {name}: recorded on {oldest.version.label}: {why}")
            for inst in targets:
                folder = workdir / "servers" / f"{name}-{task.name}-{inst.version.label}"
                server = AppServer(inst, port, folder)
                started = time.monotonic()
                outcome = (
                    _replay_once(server, task, tool)
                    if recorded
                    else Outcome(FAILED_CLOSED, f"not recorded: {why}; database unchanged")
                )
                result = Result(
                    app.name,
                    task.name,
                    inst.version.label,
                    name,
                    outcome.verdict,
                    outcome.detail,
                    round(time.monotonic() - started, 1),
                )
                log(
                    f"[realworld] {app.name} {task.name} {inst.version.label} {name}: "
                    f"{result.verdict} ({result.detail})"
                )
                results.append(result)
    return results


def _replay_once(server: AppServer, task: Task, tool: Tool) -> Outcome:
    app = server.installed.app
    passwords = [v for k, v in (*task.record.items(), *task.replay.items()) if k in task.sensitive]
    server.reset()
    before = snapshot(server.db, app, passwords)
    server.start()
    try:
        ok, detail = tool.replay(task)
    finally:
        server.stop()
    actual = diff(before, snapshot(server.db, app, passwords))
    outcome = classify(ok, detail, actual, task.expect(before, task.replay))
    if outcome.verdict == WRONG:
        return Outcome(WRONG, f"{outcome.detail} ({describe(actual)})")
    if outcome.verdict == RIGHT and (extra := detail.removeprefix("succeeded").strip(" ()")):
        return Outcome(RIGHT, f"{outcome.detail}; {extra}")
    return outcome


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def totals(results: Sequence[Result]) -> dict[str, Counter[str]]:
    out: dict[str, Counter[str]] = {}
    for r in results:
        out.setdefault(r.tool, Counter())[r.verdict] += 1
    return out


def exit_status(results: Sequence[Result]) -> int:
    """1 when skillreel left a wrong database anywhere. The baseline's wrong runs are its own
    measured behaviour (a codegen script racing a page redrawn over a WebSocket): the table shows
    them, the exit status does not fail on them."""
    return 1 if any(r.verdict == WRONG and r.tool == "skillreel" for r in results) else 0


def _commit() -> str:
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" (with uncommitted changes)" if dirty else "")


SHORT = {RIGHT: "right", FAILED_CLOSED: "failed closed", WRONG: "**WRONG**"}
# The sections markdown() writes; any other section of an earlier file was written by hand.
GENERATED = ("## Totals", "## Per app and version", "## Every run", "## Apps and tasks")


def kept_sections(previous: str) -> str:
    """The sections of an earlier REALWORLD.md that this script does not write (a history of runs
    kept by hand), verbatim: a new run carries them over instead of dropping them."""
    kept: list[str] = []
    keep = False
    for line in previous.splitlines():
        if line.startswith("## "):
            keep = line.strip() not in GENERATED
        if keep:
            kept.append(line)
    return "\n".join(kept).strip()


def _previous(target: Path) -> str:
    return kept_sections(target.read_text()) if target.exists() else ""


def markdown(
    results: Sequence[Result],
    apps: Sequence[App],
    command: str,
    seconds: float,
    commit: str,
    provenance: str = "",
    kept: str = "",
) -> str:
    tools = [t for t in TOOLS if any(r.tool == t for r in results)]
    lines = [
        "# Real-app corpus: skillreel and a codegen-style Playwright baseline",
        "",
        "Written by `make realworld` (`bench/realworld/`, see docs/realworld.md). Each task is recorded",
        "once on the oldest version of its app and replayed with other inputs on every version, from",
        "the same seed; the database is then compared with the intended change.",
        "",
        "- **right**: the tool reported success and the database shows exactly the intended change.",
        "- **failed closed**: the tool stopped with an error; the database is unchanged, or shows the",
        "  intended change made before the failing step (said in the detail).",
        "- **wrong**: an unintended change, or success reported without the change.",
        "",
        f"Run {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}, commit {commit}, "
        f"Python {platform.python_version()}, {seconds / 60:.1f} min: `{command}`",
        "",
        *([provenance, ""] if provenance else []),
        *([kept, ""] if kept else []),
        "## Totals",
        "",
        "| tool | runs | right | failed closed | wrong |",
        "| --- | --- | --- | --- | --- |",
    ]
    for tool, count in totals(results).items():
        lines.append(
            f"| {tool} | {sum(count.values())} | {count[RIGHT]} | {count[FAILED_CLOSED]} | {count[WRONG]} |"
        )
    lines += [
        "",
        "## Per app and version",
        "",
        "| app | version | " + " | ".join(f"{t} right / failed closed / wrong" for t in tools) + " |",
        "| --- | --- |" + " --- |" * len(tools),
    ]
    for app in apps:
        for version in app.versions:
            cells = []
            for tool in tools:
                c = Counter(
                    r.verdict
                    for r in results
                    if r.app == app.name and r.version == version.label and r.tool == tool
                )
                cells.append(f"{c[RIGHT]} / {c[FAILED_CLOSED]} / {c[WRONG]}")
            if any(r.app == app.name and r.version == version.label for r in results):
                lines.append(f"| {app.name} | {version.label} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "## Every run",
        "",
        "| app | task | version | " + " | ".join(tools) + " |",
        "| --- | --- | --- |" + " --- |" * len(tools),
    ]
    keyed = {(r.app, r.task, r.version, r.tool): r for r in results}
    for app in apps:
        for task in app.tasks:
            for version in app.versions:
                runs = [keyed.get((app.name, task.name, version.label, t)) for t in tools]
                if any(runs):
                    lines.append(
                        f"| {app.name} | {task.name} | {version.label} | "
                        + " | ".join(f"{SHORT[r.verdict]}: {r.detail}" if r else "" for r in runs)
                        + " |"
                    )
    lines += ["", "## Apps and tasks", ""]
    for app in apps:
        pins = "; ".join(f"{v.label}: `{' '.join(v.requirements)}`" for v in app.versions)
        lines.append(f"- **{app.name}** ({pins})")
        lines += [f"  - `{t.name}`: {t.summary}" for t in app.tasks]
    return "\n".join(lines) + "\n"


def _table_from(files: Sequence[Path], target: Path, note: str) -> int:
    keyed: dict[tuple[str, str, str, str], Result] = {}
    for file in files:
        for row in json.loads(file.read_text()):
            result = Result(**row)
            keyed[(result.app, result.task, result.version, result.tool)] = result
    results = list(keyed.values())
    names = [f.name for f in files]
    provenance = (
        "Assembled from the runs in "
        + ", ".join(f"`{n}`" for n in names)
        + " (a later file's run replaces an earlier one of the same task, version and tool); "
        + (note or "see the notes of the commit for the commands.")
    )
    seconds = sum(r.seconds for r in results)
    target.write_text(
        markdown(
            results,
            [a for a in APPS if any(r.app == a.name for r in results)],
            "python -m bench.realworld --table-from ...",
            seconds,
            _commit(),
            provenance,
            _previous(target),
        )
    )
    print(f"[realworld] wrote {target}", file=sys.stderr)
    return exit_status(results)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.realworld", description=__doc__)
    parser.add_argument("--app", action="append", default=[], help="run only this app (repeat)")
    parser.add_argument("--task", action="append", default=[], help="run only this task (repeat)")
    parser.add_argument("--version", action="append", default=[], help="replay only on this version label")
    parser.add_argument("--tool", action="append", default=[], choices=TOOLS, help="run only this tool")
    parser.add_argument(
        "--skillreel-python",
        help="the Python whose skillreel to measure "
        "(default: this one); e.g. another worktree's .venv/bin/python",
    )
    parser.add_argument(
        "--markdown",
        type=Path,
        help="write the table here (default: bench/REALWORLD.md when nothing is filtered)",
    )
    parser.add_argument("--json", type=Path, help="write every run as JSON here")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (logs, scripts, homes)")
    parser.add_argument("--install-only", action="store_true", help="build the venvs and seeds, run nothing")
    parser.add_argument(
        "--table-from",
        type=Path,
        action="append",
        default=[],
        metavar="JSON",
        help="run nothing: write the table from --json files of earlier runs (repeat; "
        "a later run replaces an earlier one of the same app, task, version, tool)",
    )
    parser.add_argument("--note", default="", help="with --table-from: where the runs come from")
    args = parser.parse_args(argv)
    if args.table_from:
        return _table_from(args.table_from, args.markdown or REPO / "bench" / "REALWORLD.md", args.note)
    selection = Selection(tuple(args.app), tuple(args.task), tuple(args.version), tuple(args.tool) or TOOLS)
    apps = [a for a in APPS if selection.app_ok(a)]
    if not apps:
        parser.error("no app matches --app; known: " + ", ".join(a.name for a in APPS))

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    # A terminated run still stops the app server it started (its ``finally`` blocks run).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    started = time.monotonic()
    commit = _commit()  # the code this run uses, before anyone edits the worktree
    installed = install_all(apps, log)
    if args.install_only:
        return 0
    workdir = Path(tempfile.mkdtemp(prefix="skillreel-realworld-"))
    results: list[Result] = []
    try:
        for app in apps:
            results += run_app(
                app, installed[app.name], selection, workdir / app.name, log, args.skillreel_python
            )
    finally:
        if args.keep:
            log(f"[realworld] kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    given = argv if argv is not None else sys.argv[1:]
    command = " ".join(["python -m bench.realworld", *given])
    filtered = bool(args.app or args.task or args.version or args.tool)
    target = args.markdown or (None if filtered else REPO / "bench" / "REALWORLD.md")
    if target is not None:
        kept = _previous(target)  # a history kept by hand stays (add this run's row to it)
        target.write_text(markdown(results, apps, command, time.monotonic() - started, commit, kept=kept))
        log(f"[realworld] wrote {target}")
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=1) + "\n")
    for tool, count in totals(results).items():
        log(
            f"[realworld] {tool}: {count[RIGHT]} right, {count[FAILED_CLOSED]} failed closed, "
            f"{count[WRONG]} wrong of {sum(count.values())}"
        )
    return exit_status(results)
