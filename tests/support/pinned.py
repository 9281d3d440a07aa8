"""Package changes as a caller who read the skill makes them: naming the revision the store holds
now (what `skillreel show` prints), as every change must (issue 33, point 6)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skillreel.services.packaging import EnableResult, RevokeResult, enable_skill, revoke_skill
from skillreel.store import Store


def enable(store: Store, name: str, project_dir: Path | None, **options: Any) -> EnableResult:
    """``enable_skill`` into ``project_dir`` (project scope unless ``scope`` is given), approved."""
    scope = options.pop("scope", "project")
    revision = store.get(name).revision
    return enable_skill(store, name, scope, project_dir, approve=True, expected_revision=revision, **options)


def revoke(store: Store, name: str, project_dir: Path | None = None, **options: Any) -> RevokeResult:
    """``revoke_skill``, approved."""
    revision = store.get(name).revision
    return revoke_skill(store, name, project_dir, approve=True, expected_revision=revision, **options)
