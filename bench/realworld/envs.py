"""Each app version in its own virtualenv under a cache directory, a seed database per version,
and the app served on 127.0.0.1 from a fresh copy of that seed for every run.

The cache is ``$SKILLREEL_REALWORLD_CACHE``, else ``$XDG_CACHE_HOME/skillreel-realworld``, else
``~/.cache/skillreel-realworld``; it is shared by worktrees and never committed. A venv's folder
name carries a digest of its pins and the Python version, a seed's name a digest of the app's
files, so a change rebuilds what it affects; older seeds stay (a run that started before the
change keeps its own). Builds hold a lock, so parallel runs wait rather than race.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .spec import App, Version

PIP_TIMEOUT_S = 900
SERVER_START_S = 60
# A port an outgoing connection holds for a moment: how often, and how long (growing), to wait it out.
PORT_BUSY_RETRIES = 5
PORT_BUSY_WAIT_S = 2.0


def cache_root() -> Path:
    explicit = os.environ.get("SKILLREEL_REALWORLD_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "skillreel-realworld"


def _digest(*parts: str | bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode() if isinstance(part, str) else part)
        h.update(b"\0")
    return h.hexdigest()[:12]


def source_digest(app: App) -> str:
    files = sorted(p for p in app.source.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    return _digest(*(f"{p.relative_to(app.source)}" for p in files), *(p.read_bytes() for p in files))


@dataclass(frozen=True)
class Installed:
    app: App
    version: Version
    venv: Path
    seed: Path

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def install(app: App, version: Version, log: Callable[[str], None] = print) -> Installed:
    """Build (once) the version's venv and seed database; return where they are."""
    root = cache_root()
    pyver = f"{sys.version_info.major}.{sys.version_info.minor}"
    venv = root / f"{app.name}-{version.label}-{_digest(pyver, *version.requirements)}"
    with _locked(root / "locks" / f"{venv.name}.lock"):
        if not (venv / ".ready").exists():
            log(f"[realworld] installing {app.name} {version.label} into {venv}")
            shutil.rmtree(venv, ignore_errors=True)
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            subprocess.run(
                [
                    str(venv / "bin" / "python"),
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                    *version.requirements,
                ],
                check=True,
                timeout=PIP_TIMEOUT_S,
            )
            (venv / ".ready").write_text("\n".join(version.requirements) + "\n")
        seed = venv / f"seed-{source_digest(app)}.sqlite3"
        if not seed.exists():
            log(f"[realworld] seeding {app.name} {version.label}")
            partial = venv / f"seed-{source_digest(app)}.partial"
            partial.unlink(missing_ok=True)
            subprocess.run(
                [str(venv / "bin" / "python"), str(app.source / "seed.py")],
                env={**_clean_env(), "RW_DB": str(partial)},
                check=True,
                cwd=app.source,
                stdout=subprocess.DEVNULL,
                timeout=300,
            )
            partial.replace(seed)
    return Installed(app, version, venv, seed)


def _clean_env() -> dict[str, str]:
    """The environment for an app process: no variables of ours or of the caller's venv."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("SKILLREEL_", "VIRTUAL_ENV", "PYTHON"))}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class AppServer:
    """One run of one app version: a fresh copy of the seed, served on 127.0.0.1:port."""

    def __init__(self, installed: Installed, port: int, workdir: Path) -> None:
        self.installed = installed
        self.port = port
        self.workdir = workdir
        self.db = workdir / "db.sqlite3"
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def reset(self) -> None:
        """Put the seed back (the server must be stopped)."""
        assert self._proc is None, "reset a stopped server only"
        self.workdir.mkdir(parents=True, exist_ok=True)
        for stale in self.workdir.glob("db.sqlite3*"):
            stale.unlink()
        shutil.copyfile(self.installed.seed, self.db)

    def start(self) -> None:
        """Start the server and wait until it answers. The port is fixed for the run (a recording
        binds its origin), so a port another process holds for a moment (an outgoing connection
        took it as its ephemeral port) is waited out, a few times, rather than failing the run."""
        for attempt in range(PORT_BUSY_RETRIES + 1):
            why = self._start_once()
            if why is None:
                return
            busy = any(sign in why.lower() for sign in ("already in use", "in use by another program"))
            if not busy or attempt == PORT_BUSY_RETRIES:
                raise RuntimeError(why)
            self.wait_for_port(PORT_BUSY_WAIT_S * (attempt + 1))

    def wait_for_port(self, seconds: float) -> None:
        time.sleep(seconds)

    def _start_once(self) -> str | None:
        """None once the server answers; else why it did not (with this start's own log lines)."""
        app = self.installed.app
        path = self.workdir / "server.log"
        offset = path.stat().st_size if path.exists() else 0
        log = path.open("ab")
        self._proc = subprocess.Popen(
            [str(self.installed.python), str(app.source / "serve.py"), str(self.port)],
            cwd=app.source,
            env={**_clean_env(), "RW_DB": str(self.db)},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        deadline = time.monotonic() + SERVER_START_S
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                self._proc = None
                with path.open("rb") as handle:
                    handle.seek(offset)
                    tail = handle.read().decode(errors="replace").strip().splitlines()[-5:]
                return (
                    f"{app.name} {self.installed.version.label} exited at start on port {self.port}: "
                    + (" | ".join(tail) or "no output")
                    + f" (log: {path})"
                )
            if _answers(self.origin + app.ready_path):
                return None
            time.sleep(0.2)
        self.stop()
        return f"{app.name} {self.installed.version.label} did not answer in {SERVER_START_S}s"

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)

    def __enter__(self) -> AppServer:
        self.reset()
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return int(response.status) < 500
    except urllib.error.HTTPError as exc:
        return exc.code < 500
    except (urllib.error.URLError, OSError):
        return False
