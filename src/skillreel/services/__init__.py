"""Use cases: each takes the store and a request, and returns a frozen result the edges render."""
