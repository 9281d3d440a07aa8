"""The login vault (vault/logins.py): bodies kept by name in a 0600 file or the OS keyring,
checked against their digest on every read, replaced without a moment of neither."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import keyring
import keyring.core
import pytest
from keyring.backend import KeyringBackend
from keyring.backends.null import Keyring as NullKeyring

from skillreel.errors import SkillreelError
from skillreel.model.login import LoginRecord, LoginState, earliest_expiry, state_problem
from skillreel.vault.logins import KEYRING_SERVICE, LoginVault, state_digest
from tests.support.factory import T0, T1

COOKIE = "cookie-canary-7Qx2"
STATE = {
    "cookies": [
        {"name": "sid", "value": COOKIE, "domain": "127.0.0.1", "path": "/", "expires": 1900000000.5},
        {"name": "pref", "value": "dark", "domain": "127.0.0.1", "path": "/", "expires": -1},
    ],
    "origins": [{"origin": "http://127.0.0.1:8000", "localStorage": [{"name": "k", "value": "v"}]}],
}


class MemoryKeyring(KeyringBackend):
    priority = 1

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.entries.pop((service, username), None)


@pytest.fixture
def memory_keyring(monkeypatch: pytest.MonkeyPatch) -> MemoryKeyring:
    backend = MemoryKeyring()
    monkeypatch.setattr(keyring.core, "_keyring_backend", backend)
    return backend


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def files(home: Path) -> list[str]:
    return sorted(p.name for p in (home / "sessions").iterdir())


def test_without_a_keyring_the_body_is_a_0600_file_in_the_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    vault = LoginVault(home)
    record, previous = vault.set("shop", LoginState(STATE), T0)
    assert previous is None
    assert record.backend == "file"
    assert (record.cookies, record.origins) == (2, 1)
    assert record.expires_at == "2030-03-17T17:46:40Z"
    assert record.state_digest == state_digest(LoginState(STATE))
    assert mode(home / "sessions") == 0o700
    assert files(home) == sorted(["shop.json", f"{record.slot}.state"])
    assert all(mode(p) == 0o600 for p in (home / "sessions").iterdir())
    assert COOKIE not in (home / "sessions" / "shop.json").read_text()  # the record holds no value
    assert (read := vault.read("shop")) is not None
    assert read.body == STATE
    assert COOKIE not in repr(read)
    assert vault.records() == [record]


def test_setting_again_replaces_the_body_and_drops_the_old_one(tmp_path: Path) -> None:
    vault = LoginVault(tmp_path)
    first, _ = vault.set("shop", LoginState(STATE), T0)
    fresh = {"cookies": [{"name": "sid", "value": "fresh-value", "expires": -1}], "origins": []}
    second, previous = vault.set("shop", LoginState(fresh), T1)
    assert previous == first
    assert second.slot != first.slot
    assert files(tmp_path) == sorted(["shop.json", f"{second.slot}.state"])
    assert (read := vault.read("shop")) is not None
    assert read.body == fresh
    assert second.expires_at is None


def test_a_changed_or_missing_body_reads_as_no_login(tmp_path: Path) -> None:
    vault = LoginVault(tmp_path)
    record, _ = vault.set("shop", LoginState(STATE), T0)
    body = tmp_path / "sessions" / f"{record.slot}.state"
    body.write_text(json.dumps({**STATE, "cookies": []}))
    assert vault.read("shop") is None
    body.unlink()
    assert vault.read("shop") is None
    assert vault.read("other") is None
    (tmp_path / "sessions" / "broken.json").write_text("{")
    assert [r.name for r in vault.records()] == ["shop"]  # an unreadable record is skipped


def test_records_are_listed_by_login_name(tmp_path: Path) -> None:
    vault = LoginVault(tmp_path)
    for name in ("shop-staging", "shop", "admin"):
        vault.set(name, LoginState(STATE), T0)
    assert [r.name for r in vault.records()] == ["admin", "shop", "shop-staging"]  # not by file name


def test_delete_removes_record_and_body(tmp_path: Path) -> None:
    vault = LoginVault(tmp_path)
    record, _ = vault.set("shop", LoginState(STATE), T0)
    assert vault.delete("shop") == record
    assert files(tmp_path) == []
    assert vault.delete("shop") is None
    assert LoginVault(tmp_path / "nowhere").records() == []


def test_a_symlinked_sessions_directory_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    (home / "sessions").symlink_to(elsewhere)
    vault = LoginVault(home)
    with pytest.raises(SkillreelError) as info:
        vault.set("shop", LoginState(STATE), T0)
    assert info.value.code == "SR_RECORD_STORE_IO"
    assert list(elsewhere.iterdir()) == []


def test_a_usable_keyring_holds_the_body(tmp_path: Path, memory_keyring: MemoryKeyring) -> None:
    vault = LoginVault(tmp_path)
    record, _ = vault.set("shop", LoginState(STATE), T0)
    assert record.backend == "keyring"
    assert files(tmp_path) == ["shop.json"]  # no body on disk
    assert list(memory_keyring.entries) == [(KEYRING_SERVICE, record.slot)]
    assert (read := vault.read("shop")) is not None
    assert read.body == STATE
    second, _ = vault.set("shop", LoginState({"cookies": [], "origins": []}), T1)
    assert list(memory_keyring.entries) == [(KEYRING_SERVICE, second.slot)]
    vault.delete("shop")
    assert memory_keyring.entries == {}


def test_a_keyring_that_does_not_keep_the_body_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(keyring.core, "_keyring_backend", NullKeyring())
    record, _ = LoginVault(tmp_path).set("shop", LoginState(STATE), T0)
    assert record.backend == "file"
    assert LoginVault(tmp_path).read("shop") is not None


def test_the_keyring_can_be_turned_off(tmp_path: Path, memory_keyring: MemoryKeyring) -> None:
    record, _ = LoginVault(tmp_path, use_keyring=False).set("shop", LoginState(STATE), T0)
    assert record.backend == "file"
    assert memory_keyring.entries == {}


@pytest.mark.parametrize(
    ("state", "problem"),
    [
        ({"cookies": [], "origins": [], "extra": 1}, "only 'cookies' and 'origins'"),
        ({"cookies": {}}, "'cookies' must be a list of objects"),
        ({"cookies": [{"name": "a"}]}, "string name and value"),
        ({"origins": [{"localStorage": []}]}, "with an 'origin'"),
        # what Chromium refuses at the first replay (it was accepted by `login set`)
        ({"origins": [{"origin": "https://a.test", "localStorage": "x"}]}, "'localStorage' must be a list"),
        ({"origins": [{"origin": "https://a.test", "localStorage": [{"name": "k"}]}]}, "'localStorage'"),
        ({"cookies": [{"name": "a", "value": "b", "expires": "tomorrow"}]}, "'expires' has the wrong type"),
        ({"cookies": [{"name": "a", "value": "b", "expires": True}]}, "'expires' has the wrong type"),
        ({"cookies": [{"name": "a", "value": "b", "secure": "yes"}]}, "'secure' has the wrong type"),
        ({"cookies": [{"name": "a", "value": "b", "sameSite": "lax"}]}, "'sameSite' must be"),
    ],
)
def test_what_is_no_storage_state(state: dict[str, object], problem: str) -> None:
    found = state_problem(state)
    assert found is not None
    assert problem in found
    assert state_problem(STATE) is None


def test_expiry_and_records() -> None:
    assert earliest_expiry(STATE) == 1900000000.5
    assert earliest_expiry({"cookies": [{"expires": -1}]}) is None
    with pytest.raises(ValueError):
        LoginRecord.parse({"schema": "skillreel.session/v1", "name": "Bad Name"})


@pytest.mark.parametrize("backend", ["file", "keyring"])
def test_a_login_stored_before_the_rename_is_still_found(
    backend: str, tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    """The vault's storage kept its names when sessions became logins: a body in ``sessions/`` or
    under the keyring service ``skillreel-session``, its record ``skillreel.session/v1`` beside it."""
    from skillreel.model.canonical import canonical_json

    slot, body = "0" * 32, canonical_json(STATE)
    old = tmp_path / "sessions"
    old.mkdir(mode=0o700)
    if backend == "file":
        (old / f"{slot}.state").write_bytes(body)
    else:
        memory_keyring.entries[("skillreel-session", slot)] = body.decode()
    record = {
        "schema": "skillreel.session/v1",
        "name": "shop",
        "stateDigest": state_digest(LoginState(STATE)),
        "backend": backend,
        "slot": slot,
        "cookies": 2,
        "origins": 1,
        "setAt": T0,
    }
    (old / "shop.json").write_text(json.dumps(record))
    vault = LoginVault(tmp_path)
    assert [r.name for r in vault.records()] == ["shop"]
    found = vault.read("shop")
    assert found is not None
    assert found.body == STATE
