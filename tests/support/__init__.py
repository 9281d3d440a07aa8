"""Test helpers (imported explicitly by tests and bench/)."""
