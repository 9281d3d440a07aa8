"""Use cases of the login vault (``skillreel login set|list|delete``).

A login is a signed-in browser state (a Playwright storage state) a person stores under a name;
skills recorded with ``--login NAME`` (or environments declaring one) are bound to the name, so
storing it again after a login expires keeps them valid, over the CLI and over MCP alike. The body
lives in the vault (``vault.logins``: the OS keyring, else a 0600 file in the home), never in
the store, an export, an audit event, a report or any output: what is shown and audited is the
name, the digest and content-free counts. The wire names keep the old word: the JSON list is
``sessions`` and the audit kind ``session``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError, TargetError
from ..model.login import LoginRecord, LoginState, state_problem
from ..sandbox.files import read_storage_state, storage_state_digest
from ..store import AuditNote, Store
from ..vault.logins import LoginVault
from .environments import check_login_name
from .guards import approval_required


def _record_json(record: LoginRecord, skills: tuple[str, ...]) -> dict[str, Any]:
    return {
        "name": record.name,
        "backend": record.backend,
        "setAt": record.set_at,
        "stateDigest": record.state_digest,
        "cookies": record.cookies,
        "origins": record.origins,
        "expiresAt": record.expires_at,
        "skills": list(skills),
    }


def skills_using(store: Store, name: str) -> tuple[str, ...]:
    """The skills whose current revision signs in with login ``name`` (recorded or named env)."""
    found = []
    for entry in store.entries():
        environment = entry.draft.environment
        if environment.login == name or any(e.login == name for e in environment.environments):
            found.append(entry.name)
    return tuple(sorted(found))


@dataclass(frozen=True)
class LoginSet:
    record: LoginRecord
    replaced: bool
    skills: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {**_record_json(self.record, self.skills), "replaced": self.replaced}


def read_login_file(path: Path) -> LoginState:
    """A Playwright storage-state file as a login body (``SR_RECORD_INPUT_*`` otherwise)."""
    body = read_storage_state(path)
    problem = state_problem(body)
    if problem is not None:
        raise InputError("SR_RECORD_INPUT_MALFORMED", f"the storage-state file: {problem}")
    storage_state_digest(body)  # canonical JSON or SR_RECORD_INPUT_MALFORMED
    return LoginState(body)


def set_login(store: Store, name: str, path: Path) -> LoginSet:
    """Store the storage state at ``path`` as login ``name`` (replacing one of that name)."""
    check_login_name(name)
    state = read_login_file(path)
    record, previous = LoginVault(store.home).set(name, state, store.now())
    store.audit(AuditNote(kind="session", name=name, digests={"state": record.state_digest}))
    return LoginSet(record, previous is not None, skills_using(store, name))


@dataclass(frozen=True)
class LoginList:
    logins: tuple[tuple[LoginRecord, tuple[str, ...]], ...]

    def to_json(self) -> dict[str, Any]:
        return {"sessions": [_record_json(r, skills) for r, skills in self.logins]}


def list_logins(store: Store) -> LoginList:
    """Every login in the vault, with the skills bound to it."""
    records = LoginVault(store.home).records()
    return LoginList(tuple((r, skills_using(store, r.name)) for r in records))


@dataclass(frozen=True)
class LoginDeleted:
    record: LoginRecord
    skills: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {**_record_json(self.record, self.skills), "deleted": True}


def delete_login(store: Store, name: str, *, approve: bool) -> LoginDeleted:
    """Remove login ``name`` from the vault; skills bound to it then refuse to replay
    (``SR_RECORD_SESSION_MISSING``) until it is set again."""
    check_login_name(name)
    vault = LoginVault(store.home)
    record = vault.record(name)
    if record is None:
        raise TargetError("SR_RECORD_SESSION_MISSING", f"the vault holds no login {name!r}")
    skills = skills_using(store, name)
    if not approve:
        using = f"; skills {', '.join(skills)} sign in with it" if skills else ""
        raise approval_required(f"delete login {name!r}{using}", {"name": name, "skills": list(skills)})
    vault.delete(name)
    store.audit(AuditNote(kind="session", name=name, outcome="ok", digests={}))
    return LoginDeleted(record, skills)
