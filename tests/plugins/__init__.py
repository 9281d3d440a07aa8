"""pytest plugins loaded by tests/conftest.py."""
