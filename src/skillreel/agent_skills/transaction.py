"""The one way into a package transaction of a skill: hold the store's install lock, and first make
the disk agree with the store for a transaction of that skill that a killed process left unfinished
(:mod:`skillreel.agent_skills.journal` says how). ``enable``, ``revoke`` and ``delete`` all enter here, so
no package the store does not know and no ``.skillreel-*`` folder outlives a ``kill -9``."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from ..model.base import check_skill_name, is_skill_name
from ..model.envelope import ResultWarning
from ..store import Store
from .install import Fault, converge, no_fault
from .journal import Journals


@contextmanager
def package_transaction(
    store: Store, name: str, fault: Fault
) -> Iterator[tuple[Journals, tuple[ResultWarning, ...]]]:
    """Hold the install lock; first make the disk agree with the store for a transaction of ``name``
    that a killed process left unfinished. Yields the journals and the warnings to report."""
    check_skill_name(name)
    journals = Journals(store.home)
    with journals.locked(fault):
        journal = journals.read(name)
        warnings: tuple[ResultWarning, ...] = ()
        if journal is not None:
            entry = store.find(name)
            inst = entry.installation if entry is not None else None
            live = inst is not None and inst.package_digest == journal.package_digest
            converge(journal, live=live, fault=fault)
            journals.remove(name)
            done = "finished" if live == (journal.operation == "enable") else "rolled back"
            warnings = (
                ResultWarning(
                    code="SR_RECORD_INSTALL_RECOVERED",
                    message=f"an interrupted {journal.operation} of {name!r} was {done} first",
                ),
            )
        yield journals, warnings


def interrupted_transactions(store: Store) -> list[str]:
    """The skills a killed ``enable``/``revoke``/``delete`` left a journal for (a file whose name
    is no skill name was not written by skillreel and is left alone)."""
    return [name for name in Journals(store.home).pending() if is_skill_name(name)]


def converge_interrupted(store: Store, names: Sequence[str]) -> tuple[ResultWarning, ...]:
    """Make the disk agree with the store for the transactions of ``names`` (those
    :func:`interrupted_transactions` listed) that a killed process left unfinished (``prune`` does
    this, so a stale journal does not wait for the skill's next enable)."""
    warnings: list[ResultWarning] = []
    for name in names:
        with package_transaction(store, name, no_fault) as (_, recovered):
            warnings.extend(recovered)
    return tuple(warnings)
