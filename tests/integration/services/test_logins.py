"""``login set|list|delete`` as use cases: the body goes to the vault, never into the store or
the audit log; skills bound to a login are listed; deleting needs ``approve``."""

from __future__ import annotations

import json
from pathlib import Path

from skillreel.model.environment import Environment, build_url_target
from skillreel.services.logins import delete_login, list_logins, set_login
from skillreel.store import Store
from skillreel.vault.logins import LoginVault
from tests.integration.services.store_checks import refused
from tests.support.factory import seed
from tests.support.readback import sql

COOKIE = "planted-cookie-3kQ9z"


def state_file(tmp_path: Path, value: str = COOKIE, name: str = "state.json") -> Path:
    path = tmp_path / name
    cookie = {"name": "sid", "value": value, "domain": "127.0.0.1", "path": "/", "expires": -1}
    path.write_text(json.dumps({"cookies": [cookie], "origins": []}))
    return path


def signed_in(login: str) -> Environment:
    return Environment.build(target=build_url_target("http://127.0.0.1:8000/app"), login=login)


def test_set_list_and_refresh(store: Store, skillreel_home: Path, tmp_path: Path) -> None:
    seed(store, "orders", environment=signed_in("shop"))
    first = set_login(store, "shop", state_file(tmp_path)).to_json()
    assert (first["name"], first["replaced"], first["skills"], first["cookies"]) == (
        "shop",
        False,
        ["orders"],
        1,
    )
    refreshed = set_login(store, "shop", state_file(tmp_path, "refreshed-7Lm")).to_json()
    assert refreshed["replaced"] is True
    assert refreshed["stateDigest"] != first["stateDigest"]
    listed = list_logins(store).to_json()["sessions"]
    assert [(s["name"], s["skills"], s["backend"]) for s in listed] == [("shop", ["orders"], "file")]
    body = LoginVault(skillreel_home).read("shop")
    assert body is not None
    assert body.body["cookies"][0]["value"] == "refreshed-7Lm"
    events = [e.to_json() for e in store.audit_events("shop")]
    assert [(e["kind"], list(e["digests"])) for e in events] == [
        ("session", ["state"]),
        ("session", ["state"]),
    ]
    db = b"".join(p.read_bytes() for p in skillreel_home.glob("store.db*"))
    assert COOKIE.encode() not in db
    assert COOKIE not in json.dumps([first, refreshed, listed])
    assert sql(skillreel_home, "SELECT count(*) FROM entries") == [(1,)]


def test_bad_files_and_names_change_nothing(store: Store, skillreel_home: Path, tmp_path: Path) -> None:
    seed(store)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"cookies": [{"name": "sid"}], "origins": []}))
    error = refused(skillreel_home, "SR_RECORD_INPUT_MALFORMED", lambda: set_login(store, "shop", bad), 2)
    assert "string name and value" in error.message
    refused(skillreel_home, "SR_RECORD_USAGE", lambda: set_login(store, "Bad Name", state_file(tmp_path)), 2)
    link = tmp_path / "link.json"
    link.symlink_to(state_file(tmp_path))
    refused(skillreel_home, "SR_RECORD_INPUT_NOT_REGULAR", lambda: set_login(store, "shop", link), 2)
    assert list_logins(store).to_json() == {"sessions": []}


def test_delete_needs_approve(store: Store, skillreel_home: Path, tmp_path: Path) -> None:
    seed(store, "orders", environment=signed_in("shop"))
    set_login(store, "shop", state_file(tmp_path))
    error = refused(
        skillreel_home, "SR_RECORD_APPROVAL_REQUIRED", lambda: delete_login(store, "shop", approve=False)
    )
    assert error.details["wouldChange"] == {"name": "shop", "skills": ["orders"]}
    assert LoginVault(skillreel_home).read("shop") is not None
    deleted = delete_login(store, "shop", approve=True).to_json()
    assert deleted["deleted"] is True
    assert LoginVault(skillreel_home).records() == []
    refused(skillreel_home, "SR_RECORD_SESSION_MISSING", lambda: delete_login(store, "shop", approve=True))
