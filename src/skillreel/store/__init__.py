"""The SQLite store: skills with every revision, a hash-chained audit log, and the policy.

``Store`` is the interface the rest of skillreel uses (see ``docs/dev/CONTRACTS.md``)::

    with Store.open() as store:                   # $SKILLREEL_HOME/store.db, 0700 dir, 0600 files
        entry = store.get("search-invoices")      # re-validated; SR_RECORD_NOT_FOUND / _STORE_CORRUPT
        store.update(name, lambda e: approve(e, reviewer, now), AuditNote(kind="review", reviewer=reviewer),
                     expected_revision=3)         # CAS + history + audit event, one transaction
"""

from .audit import AuditNote, AuditVerification
from .entries import EntrySummary, RevisionSummary
from .registry import Store, StoreSize, utc_now
from .retention import RunsPruned
from .run_book import RunFinish
from .runs import RunView

__all__ = [
    "AuditNote",
    "AuditVerification",
    "EntrySummary",
    "RevisionSummary",
    "RunFinish",
    "RunView",
    "RunsPruned",
    "Store",
    "StoreSize",
    "utc_now",
]
