"""Use cases of the session vault (``skillreel session set|list|delete``).

A session is a signed-in browser state (a Playwright storage state) a person stores under a name;
skills recorded with ``--session NAME`` (or environments declaring one) are bound to the name, so
storing it again after a login expires keeps them valid, over the CLI and over MCP alike. The body
lives in the vault (``vault.sessions``: the OS keyring, else a 0600 file in the home), never in
the store, an export, an audit event, a report or any output: what is shown and audited is the
name, the digest and content-free counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError, TargetError
from ..model.session import SessionRecord, SessionState, state_problem
from ..sandbox.files import read_storage_state, storage_state_digest
from ..store import AuditNote, Store
from ..vault.sessions import SessionVault
from .environments import check_session_name
from .guards import approval_required


def _record_json(record: SessionRecord, skills: tuple[str, ...]) -> dict[str, Any]:
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
    """The skills whose current revision signs in with session ``name`` (recorded or named env)."""
    found = []
    for entry in store.entries():
        environment = entry.draft.environment
        if environment.session == name or any(e.session == name for e in environment.environments):
            found.append(entry.name)
    return tuple(sorted(found))


@dataclass(frozen=True)
class SessionSet:
    record: SessionRecord
    replaced: bool
    skills: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {**_record_json(self.record, self.skills), "replaced": self.replaced}


def read_session_file(path: Path) -> SessionState:
    """A Playwright storage-state file as a session body (``SR_RECORD_INPUT_*`` otherwise)."""
    body = read_storage_state(path)
    problem = state_problem(body)
    if problem is not None:
        raise InputError("SR_RECORD_INPUT_MALFORMED", f"the storage-state file: {problem}")
    storage_state_digest(body)  # canonical JSON or SR_RECORD_INPUT_MALFORMED
    return SessionState(body)


def set_session(store: Store, name: str, path: Path) -> SessionSet:
    """Store the storage state at ``path`` as session ``name`` (replacing one of that name)."""
    check_session_name(name)
    state = read_session_file(path)
    record, previous = SessionVault(store.home).set(name, state, store.now())
    store.audit(AuditNote(kind="session", name=name, digests={"state": record.state_digest}))
    return SessionSet(record, previous is not None, skills_using(store, name))


@dataclass(frozen=True)
class SessionList:
    sessions: tuple[tuple[SessionRecord, tuple[str, ...]], ...]

    def to_json(self) -> dict[str, Any]:
        return {"sessions": [_record_json(r, skills) for r, skills in self.sessions]}


def list_sessions(store: Store) -> SessionList:
    """Every session in the vault, with the skills bound to it."""
    records = SessionVault(store.home).records()
    return SessionList(tuple((r, skills_using(store, r.name)) for r in records))


@dataclass(frozen=True)
class SessionDeleted:
    record: SessionRecord
    skills: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {**_record_json(self.record, self.skills), "deleted": True}


def delete_session(store: Store, name: str, *, approve: bool) -> SessionDeleted:
    """Remove session ``name`` from the vault; skills bound to it then refuse to replay
    (``SR_RECORD_SESSION_MISSING``) until it is set again."""
    check_session_name(name)
    vault = SessionVault(store.home)
    record = vault.record(name)
    if record is None:
        raise TargetError("SR_RECORD_SESSION_MISSING", f"the vault holds no session {name!r}")
    skills = skills_using(store, name)
    if not approve:
        using = f"; skills {', '.join(skills)} sign in with it" if skills else ""
        raise approval_required(f"delete session {name!r}{using}", {"name": name, "skills": list(skills)})
    vault.delete(name)
    store.audit(AuditNote(kind="session", name=name, outcome="ok", digests={}))
    return SessionDeleted(record, skills)
