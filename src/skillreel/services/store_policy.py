"""Use cases of the store policy (``skillreel policy``, ``policy set``, ``policy-template``): show
the policy in force, a template to edit, and replace it from a file (the document itself is
``model.policy``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..model.policy import Policy, PolicySettings
from ..store import Store
from ..user_files import decode_json_object, parse_document, read_user_file
from .guards import approval_required


@dataclass(frozen=True)
class PolicyView:
    policy: Policy
    default: bool

    def to_json(self) -> dict[str, Any]:
        return {"policy": self.policy.to_json(), "default": self.default}


@dataclass(frozen=True)
class PolicyChange:
    policy: Policy
    changes: tuple[tuple[str, Any, Any], ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "policy": self.policy.to_json(),
            "changed": [{"field": f, "from": old, "to": new} for f, old, new in self.changes],
        }


def show_policy(store: Store) -> PolicyView:
    return PolicyView(store.policy(), store.policy_is_default())


def policy_template() -> dict[str, Any]:
    """A complete policy file with the default values, to edit and pass to ``policy set``."""
    return PolicySettings().to_json()


def read_policy_file(path: Path) -> Policy:
    """A policy file: PolicySettings, or a Policy whose ``policyDigest`` must then match."""
    data = read_user_file(path, what="policy file")
    has_digest = "policyDigest" in decode_json_object(data, what="policy file")
    if has_digest:
        return parse_document(Policy, data, what="policy file")
    return Policy.from_settings(parse_document(PolicySettings, data, what="policy file"))


def set_policy(store: Store, path: Path, *, approve: bool) -> PolicyChange:
    new, old = read_policy_file(path), store.policy()
    fresh, previous = new.to_json(), old.to_json()
    keys = [*fresh, *(k for k in previous if k not in fresh)]  # an optional field may be unset in one
    changes = tuple(
        (key, previous.get(key), fresh.get(key))
        for key in keys
        if key != "policyDigest" and fresh.get(key) != previous.get(key)
    )
    if not changes:
        return PolicyChange(old, ())
    if not approve:
        shown = ", ".join(f"{k} {a!r} -> {b!r}" for k, a, b in changes)
        raise approval_required(
            f"change the policy: {shown}",
            {"changed": [{"field": k, "from": a, "to": b} for k, a, b in changes]},
        )
    return PolicyChange(store.set_policy(new), changes)
