"""Use cases, one module each: each takes an open store and plain arguments (``approve`` as a required
keyword where a person must consent; time from ``store.now()``) and returns a frozen result the edges
render. ``guards``, ``preflight`` and ``environments`` are shared; no use case imports another
(docs/dev/CONTRACTS.md, "Use cases")."""
