"""Integration tests of the browser/network layer (real Chromium, loopback servers only)."""
