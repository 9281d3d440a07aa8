"""The fleet: replays of a batch's rows on Celery workers through a Redis broker (ARCHITECTURE 15).

Needs the optional extra ``skillreel[fleet]``; this package is the only one that imports Celery or
Redis, and nothing imports it at module level outside it, so the base install works without them.
See ``worker`` (``skillreel worker``), ``broker`` (the Celery broker ``replay --batch FILE --broker URL``
runs on; the coordinator itself is ``services.fleet_batching``),
``bundle`` (the signed skill bundle), ``claims`` (at most once) and ``app`` (the Celery settings).
"""
