"""The fixed part of the Playwright script ``skillreel export NAME --playwright FILE.py`` writes: its
imports and the small helpers its steps call (pure text; ``agent_skills.playwright_script`` renders
the rest). The helpers are plain Playwright sync Python; nothing here holds a value of a recording."""

from __future__ import annotations

HEADER = """\
#!/usr/bin/env python3
# {title}
#
# Exported by `skillreel export {name} --playwright` from revision {revision} ({digest}).
# Run it with Python and Playwright (`pip install playwright`):
#     python {usage}
# Sensitive inputs are read from environment variables only (never the command line):
{secrets}
# Chromium: SKILLREEL_CHROMIUM names the executable to run (else Playwright's own Chromium).
# Extracted outputs are printed to stdout as one JSON object.
from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import sys
from urllib.parse import urlsplit

from playwright.sync_api import Locator, Page, expect, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
"""

HELPERS = '''

class Skip(Exception):
    """An assertion or wait marked "skip on fail" did not hold: the rest of its block is skipped."""


def secret(variable: str, required: bool) -> str | None:
    value = os.environ.get(variable)
    if not value and required:
        raise SystemExit(f"set the environment variable {variable} (a sensitive input)")
    return value or None


def boolean(text: str) -> bool:
    word = text.strip().lower()
    if word in ("true", "yes", "y", "on", "1"):
        return True
    if word in ("false", "no", "n", "off", "0"):
        return False
    raise argparse.ArgumentTypeError("expected true or false")


def text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def at(origin: str, path: str) -> str:
    """A recorded address on ``origin`` (``--origin`` moves the script to another deployment)."""
    return origin.rstrip("/") + path


def token(value: object) -> re.Pattern[str]:
    """Text holding ``value`` as a whole token (no letter or digit right before or after it)."""
    words = r"\\s+".join(re.escape(w) for w in text(value).split())
    return re.compile(r"(?<![^\\W_])" + (words or "(?!)") + r"(?![^\\W_])", re.IGNORECASE)


def present(target: Locator, timeout_ms: int = 2_000) -> bool:
    try:
        target.first.wait_for(state="visible", timeout=timeout_ms)
    except PlaywrightTimeoutError:
        return False
    return True


def one(step: str, target: Locator) -> Locator:
    """The one element ``target`` designates; more than one fails closed, as skillreel does."""
    target.first.wait_for(state="attached")
    if target.count() > 1:
        raise SystemExit(f"step {step}: more than one element matches; nothing was done")
    return target


def holds(step: str, check, skip: bool) -> None:
    try:
        check()
    except (AssertionError, PlaywrightTimeoutError):
        if skip:
            raise Skip(step) from None
        raise SystemExit(f"step {step}: the check did not hold") from None


def url_matches(url: str, expected: str) -> bool:
    subject = url
    if expected.startswith("/"):
        parts = urlsplit(url)
        subject = parts.path + (f"?{parts.query}" if parts.query else "")
    if "*" in expected:
        return fnmatch.fnmatchcase(subject, expected.replace("[", "[[]").replace("?", "[?]"))
    return subject == expected


def number(value: object) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    cleaned = re.sub(r"[^0-9.+-]", "", re.sub(r"(?<=\\d)[,'_ ](?=\\d{3})", "", str(value)))
    try:
        return float(cleaned)
    except ValueError:
        return None


def coerce(raw: str | None, kind: str, pattern: str | None = None) -> object:
    if raw is None:
        return None
    if pattern is not None:
        found = re.search(pattern, raw)
        raw = found.group(1) if found else None
        if raw is None:
            return None
    raw = " ".join(raw.split())
    if kind == "integer":
        value = number(raw)
        return None if value is None else int(value)
    if kind == "number":
        return number(raw)
    if kind == "boolean":
        return raw.lower() in ("true", "yes", "y", "on", "1", "checked", "enabled")
    return raw


def read(target: Locator, how: str, kind: str, attribute: str | None = None, pattern: str | None = None):
    if how == "presence":
        return target.count() > 0
    if how == "value":
        return coerce(target.input_value(), kind, pattern)
    if how == "attribute":
        return coerce(target.get_attribute(attribute or ""), kind, pattern)
    return coerce(target.inner_text(), kind, pattern)


def compare(value: object, op: str, expected: object = None) -> bool:
    if op in ("empty", "not_empty"):
        empty = value is None or text(value).strip() == ""
        return empty if op == "empty" else not empty
    if op in ("greater_than", "less_than", "at_least", "at_most"):
        left, right = number(value), number(expected)
        if left is None or right is None:
            raise SystemExit("a branch compares values that are not numbers")
        return {"greater_than": left > right, "less_than": left < right,
                "at_least": left >= right, "at_most": left <= right}[op]
    if value is None or expected is None:
        return op == "not_equals"
    left, right = " ".join(text(value).split()).casefold(), " ".join(text(expected).split()).casefold()
    if op == "contains":
        return right in left
    if number(value) is not None and number(expected) is not None and not isinstance(value, bool):
        return (number(value) == number(expected)) == (op == "equals")
    return (left == right) == (op == "equals")


def items_of(step: str, items: Locator, limit: int, overflow: str) -> list[Locator]:
    try:
        items.first.wait_for(state="attached", timeout=2_000)
    except PlaywrightTimeoutError:
        return []
    count = items.count()
    if count > limit and overflow == "fail":
        raise SystemExit(f"step {step}: {count} items, more than the limit {limit}")
    return [items.nth(i) for i in range(min(count, limit))]


def person(step: str, why: str, headed: bool) -> None:
    """A step only a person can do: pause for them in a headed run on a terminal, else stop."""
    if headed and sys.stdin.isatty():
        input(f"step {step} needs a person ({why}): do it in the browser, then press Enter ")
        return
    raise SystemExit(f"step {step} needs a person ({why}): run again with --headed on a terminal")
'''

MAIN = """


def main(argv: list[str] | None = None) -> int:
    args, inputs = parse_inputs(argv)
    executable = os.environ.get("SKILLREEL_CHROMIUM") or None
    switches = ["--no-sandbox"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, headless=not args.headed, args=switches
        )
        try:
            context = browser.new_context(viewport=VIEWPORT)
            page = context.new_page()
            page.set_default_timeout(args.timeout_ms)
            expect.set_options(timeout=args.timeout_ms)
            outputs = run(page, inputs, args)
        finally:
            browser.close()
    print(json.dumps(outputs, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
"""
