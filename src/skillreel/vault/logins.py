"""The login vault: signed-in browser states kept under a name, never in the store or exports.

``skillreel login set NAME FILE`` puts a Playwright storage state here; a skill recorded with
``--login NAME`` (or an environment declaring a login) is bound to the name, so setting the
name again after a login expires keeps every skill bound to it valid.

Where the body goes (the *backend*):

* the OS keyring (service ``skillreel-session``, user ``<slot>``: a random id per stored body)
  when one is usable: it must take the body and give back the same bytes;
* otherwise a file ``sessions/<slot>.state`` in the skillreel home (directory 0700, file 0600).

Beside it, ``sessions/<name>.json`` (0600) holds the :class:`~skillreel.model.login.LoginRecord`:
the name, the body's digest, the backend and slot, cookie and origin counts, the earliest cookie
expiry and when it was set; never a cookie name or value. Reading a login checks the body
against the digest (a body changed or gone reads as missing: fail closed). Replacing one writes
the new body under a new slot first, then the record, then drops the old body, so an interruption
leaves the old login or the new one, never a record without its body. Nothing here prints or
logs a body; errors name the login, never its content.

The storage keeps the names it had before logins were named (the keyring service
``skillreel-session``, the directory ``sessions``), so a login set before the rename is still found.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Final, Protocol

from pydantic import ValidationError

from ..errors import RecordError, StoreError
from ..model.canonical import canonical_json, tagged_digest
from ..model.login import Backend, LoginRecord, LoginState, cookies_of, earliest_expiry
from ..private_files import write_private

log = logging.getLogger(__name__)

KEYRING_SERVICE: Final = "skillreel-session"
DIR_NAME: Final = "sessions"
DIR_MODE: Final = 0o700
FILE_MODE: Final = 0o600
STATE_SUFFIX: Final = ".state"
RECORD_SUFFIX: Final = ".json"
MAX_RECORD_BYTES: Final = 64 * 1024
MAX_STATE_BYTES: Final = 4 * 1024 * 1024


class LoginSource(Protocol):
    """Where a replay gets a login's body by name (None: the vault holds no such login)."""

    def read(self, name: str) -> LoginState | None: ...


@dataclass(frozen=True)
class NoLogins:
    """A vault with nothing in it (a replay that was given no vault signs in nowhere)."""

    def read(self, name: str) -> LoginState | None:
        return None


def state_digest(state: LoginState) -> str:
    """The digest a login record keeps of its body (the ``storage-state`` tag of v1 skills)."""
    return tagged_digest("skillreel.storage-state/v1", state.body)


class LoginVault:
    """The logins of one skillreel home (see the module docstring)."""

    def __init__(self, home: Path, *, use_keyring: bool = True) -> None:
        self.home = home
        self.directory = home / DIR_NAME
        self.use_keyring = use_keyring

    # ---- reading -------------------------------------------------------------------------------

    def records(self) -> list[LoginRecord]:
        """Every login's record, by name (an unreadable record is skipped with a warning)."""
        if not self._exists():
            return []
        found = []
        for path in sorted(self.directory.glob(f"*{RECORD_SUFFIX}")):
            record = self._load_record(path)
            if record is not None and path.name == f"{record.name}{RECORD_SUFFIX}":
                found.append(record)
        return sorted(found, key=lambda r: r.name)  # "shop" before "shop-staging"

    def record(self, name: str) -> LoginRecord | None:
        if not self._exists():
            return None
        path = self.directory / f"{name}{RECORD_SUFFIX}"
        record = self._load_record(path)
        return record if record is not None and record.name == name else None

    def read(self, name: str) -> LoginState | None:
        """The body of login ``name``, checked against its record's digest; None when there is
        no such login or its body is gone or changed."""
        record = self.record(name)
        if record is None:
            return None
        data = self._read_body(record)
        if data is None:
            return None
        try:
            body = json.loads(data)
        except (ValueError, RecursionError):
            return None
        if not isinstance(body, dict):
            return None
        state = LoginState(body)
        if state_digest(state) != record.state_digest:
            log.warning("login %s: its body does not match its record", name)
            return None
        return state

    # ---- writing -------------------------------------------------------------------------------

    def set(self, name: str, state: LoginState, now: str) -> tuple[LoginRecord, LoginRecord | None]:
        """Store ``state`` as login ``name`` (replacing any); the new record and the old one."""
        previous = self.record(name)
        slot = secrets.token_hex(16)
        data = canonical_json(state.body)
        backend = self._put_body(slot, data)
        expiry = earliest_expiry(state.body)
        try:
            record = LoginRecord(
                name=name,
                state_digest=state_digest(state),
                backend=backend,
                slot=slot,
                cookies=len(cookies_of(state.body)),
                origins=len(state.body.get("origins", []) or []),
                expires_at=_timestamp(expiry) if expiry is not None else None,
                set_at=now,
            )
            self._write(self.directory / f"{name}{RECORD_SUFFIX}", json.dumps(record.to_json()).encode())
        except BaseException:
            self._drop_body(backend, slot)
            raise
        if previous is not None:
            self._drop_body(previous.backend, previous.slot)
        return record, previous

    def delete(self, name: str) -> LoginRecord | None:
        """Remove login ``name`` (record first, then body); the record removed, or None."""
        record = self.record(name)
        if record is None:
            return None
        with _io("deleting the login"):
            (self.directory / f"{name}{RECORD_SUFFIX}").unlink()
        self._drop_body(record.backend, record.slot)
        return record

    # ---- the backends ----------------------------------------------------------------------------

    def _put_body(self, slot: str, data: bytes) -> Backend:
        if self.use_keyring and _keyring_put(slot, data):
            return "keyring"
        self._write(self.directory / f"{slot}{STATE_SUFFIX}", data)
        return "file"

    def _read_body(self, record: LoginRecord) -> bytes | None:
        if record.backend == "keyring":
            return _keyring_get(record.slot) if self.use_keyring else None
        return self._read(self.directory / f"{record.slot}{STATE_SUFFIX}", MAX_STATE_BYTES)

    def _drop_body(self, backend: str, slot: str) -> None:
        if backend == "keyring":
            _keyring_delete(slot)
            return
        with contextlib.suppress(FileNotFoundError), _io("removing a login body"):
            (self.directory / f"{slot}{STATE_SUFFIX}").unlink()

    # ---- files ---------------------------------------------------------------------------------

    def _exists(self) -> bool:
        try:
            info = self.directory.lstat()
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise _io_error("reading the logins", exc) from exc
        if not stat.S_ISDIR(info.st_mode):
            raise StoreError("SR_RECORD_STORE_IO", "the logins directory is not a directory (a symlink?)")
        return True

    def _prepare(self) -> None:
        with _io("preparing the logins directory"):
            self.home.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
            self.directory.mkdir(mode=DIR_MODE, exist_ok=True)
        self._exists()
        with _io("preparing the logins directory"):
            os.chmod(self.directory, DIR_MODE)

    def _write(self, path: Path, data: bytes) -> None:
        """Write ``path`` whole or not at all: a 0600 temporary file, synced, then renamed."""
        self._prepare()
        with _io("writing the login"):
            write_private(path, data, mode=FILE_MODE)

    def _read(self, path: Path, limit: int) -> bytes | None:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.warning("a login file could not be opened: %s", type(exc).__name__)
            return None
        with os.fdopen(fd, "rb") as source:
            if not stat.S_ISREG(os.fstat(source.fileno()).st_mode):
                return None
            data = source.read(limit + 1)
        return data if len(data) <= limit else None

    def _load_record(self, path: Path) -> LoginRecord | None:
        data = self._read(path, MAX_RECORD_BYTES)
        if data is None:
            return None
        try:
            return LoginRecord.parse(data)
        except (ValidationError, ValueError):
            log.warning("an unreadable login record was skipped")
            return None


def _timestamp(seconds: float) -> str:
    from datetime import UTC, datetime

    try:
        return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (OverflowError, OSError, ValueError):
        return "9999-12-31T23:59:59Z"


@contextlib.contextmanager
def _io(action: str) -> Iterator[None]:
    try:
        yield
    except OSError as exc:
        raise _io_error(action, exc) from exc


def _io_error(action: str, exc: OSError) -> RecordError:
    return StoreError("SR_RECORD_STORE_IO", f"{action}: {exc.strerror or type(exc).__name__}")


# ---- the OS keyring (any failure counts as "not usable") -----------------------------------------


def _keyring() -> tuple[ModuleType, tuple[type[BaseException], ...]] | None:
    """The keyring module and the errors its backends raise, or None when it is not installed."""
    try:
        import keyring
        from keyring.errors import KeyringError
    except ImportError:
        return None
    return keyring, (KeyringError, RuntimeError, OSError, ValueError)


def _keyring_put(slot: str, data: bytes) -> bool:
    """Store the body in the keyring and read it back; False (nothing left behind) when no usable
    keyring takes it whole."""
    found = _keyring()
    if found is None:
        return False
    keyring, failures = found
    text = data.decode("utf-8")
    try:
        keyring.set_password(KEYRING_SERVICE, slot, text)
        stored = keyring.get_password(KEYRING_SERVICE, slot)
    except failures as exc:
        log.debug("keyring not usable for logins: %s", type(exc).__name__)
        _keyring_delete(slot)
        return False
    if stored == text:
        return True
    _keyring_delete(slot)
    return False


def _keyring_get(slot: str) -> bytes | None:
    found = _keyring()
    if found is None:
        return None
    keyring, failures = found
    try:
        value = keyring.get_password(KEYRING_SERVICE, slot)
    except failures as exc:
        log.debug("keyring unavailable: %s", type(exc).__name__)
        return None
    return value.encode("utf-8") if isinstance(value, str) else None


def _keyring_delete(slot: str) -> None:
    found = _keyring()
    if found is None:
        return
    keyring, failures = found
    try:
        keyring.delete_password(KEYRING_SERVICE, slot)
    except failures as exc:
        log.debug("keyring entry not removed: %s", type(exc).__name__)
