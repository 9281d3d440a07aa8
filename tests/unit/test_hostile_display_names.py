"""Hostile review of display names (issue 31.1): a typed value, a token, an e-mail or row data a
page puts into an accessible name never becomes a display name kept in clear.

Python's screen (``record.redact.screen_display_name`` and ``scrub_bundle``) is the last line after
the page's own (recorder.js ``describeSafe``): each attack here feeds it the name a hostile page
would compute."""

from __future__ import annotations

import base64

import pytest

from skillreel.model.locators import Fingerprint, LocatorBundle, LocatorCandidate
from skillreel.record.redact import TypedValues, screen_display_name, scrub_bundle
from tests.support import factory

TYPED = "Mallory Quinn"  # what the person typed into a field (a name: no pattern gives it away)
SECRET = "hunter2hunter"  # a sensitive value typed in the same recording


PAGE_DATA = [
    pytest.param("Reply to mallory.quinn@example.com", id="e-mail"),
    pytest.param("Order 100345", id="order-number"),
]


def typed() -> TypedValues:
    return TypedValues([TYPED, SECRET])


def bundle(name: str, parent_path: tuple[str, ...] = ("main", "form")) -> LocatorBundle:
    return LocatorBundle(
        candidates=(LocatorCandidate(strategy="id", selector="#go", match_count=1),),
        fingerprint=Fingerprint(tag="button", role="button", name_hash="a" * 16, parent_path=parent_path),
        display_name=name,
    )


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(TYPED, id="echo-as-typed"),
        pytest.param(f"Save {TYPED}", id="echo-inside"),
        pytest.param(TYPED.upper(), id="upper-case"),
        pytest.param(f"Hello {SECRET.upper()}", id="secret-upper-case"),
        pytest.param(base64.b64encode(SECRET.encode()).decode(), id="secret-base64"),
        pytest.param(base64.b64encode(TYPED.encode()).decode().upper(), id="base64-upper"),
        pytest.param(SECRET.encode().hex(), id="secret-hex"),
        pytest.param("M a l l o r y Q u i n n", id="letter-spaced"),
        pytest.param("Mallory-Quinn", id="hyphenated"),
        pytest.param("MalloryQuinn", id="joined"),
        pytest.param("h u n t e r 2 h u n t e r", id="secret-letter-spaced"),
        *PAGE_DATA,
        pytest.param("Order #2024-0042-17", id="order-id-dashed"),
        pytest.param("Open https://shop.test/?token=abc", id="url"),
        pytest.param("Go " + "x" * 40 + " eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc", id="jwt"),
        pytest.param("Resume session " + "aB3dE5fG7hJ9kL1mN3pQ5rS7", id="token-in-79"),
        pytest.param("Use key ghp_" + "a1" * 18, id="github-token"),
        pytest.param("Sign in\u2028now", id="line-separator"),
        pytest.param("Sign\u202ein", id="bidi-control"),
        pytest.param("A" * 81, id="too-long"),
    ],
)
def test_hostile_name_is_not_kept(name: str) -> None:
    assert screen_display_name(name, typed()) is None
    if len(name) <= 80 and name.isprintable():  # else the model refuses it outright
        scrubbed = scrub_bundle(bundle(name), typed(), factory.SALT)
        assert scrubbed is None or scrubbed.display_name is None


def test_a_79_char_name_holding_a_token_is_dropped() -> None:
    name = "Continue with reference " + "Zq8sV2mLp0Xy7RtB4nWc"  # 20 random mixed characters
    name = name + " " + "please" * ((79 - len(name) - 1) // 6)
    assert len(name) <= 80
    assert screen_display_name(name, TypedValues()) is None


@pytest.mark.parametrize("path", [("table", "tbody", "tr", "td"), ("main", "table", "tbody", "tr", "td")])
def test_a_name_in_a_table_body_row_is_not_kept(path: tuple[str, ...]) -> None:
    scrubbed = scrub_bundle(bundle("Alice Carter", parent_path=path), TypedValues(), factory.SALT)
    assert scrubbed is not None
    assert scrubbed.display_name is None


@pytest.mark.parametrize("name", ["Sign in", "Save changes", "Orders", "Top 10 products"])
def test_page_chrome_is_still_kept(name: str) -> None:
    """The screen must not drop everything: plain chrome stays readable (the test above can fail)."""
    assert screen_display_name(name, typed()) == name


# ---- every boundary re-validates: a stored, imported or edited document ---------------------------


@pytest.mark.parametrize(
    "name",
    [
        *PAGE_DATA,
        pytest.param("Open https://shop.test/?token=abc", id="url"),
        pytest.param("Resume aB3dE5fG7hJ9kL1mN3pQ5rS7tU9", id="token"),
        pytest.param("Sign\u202ein", id="bidi-control"),
        pytest.param("Sign  in", id="unsquashed"),
    ],
)
def test_a_tampered_document_cannot_carry_an_unreadable_name(name: str) -> None:
    """A store entry, an import or an edit built outside the recorder (whose screen never ran) is
    parsed by the model: a display name the screen would drop is refused there too, so `show`,
    SKILL.md, the review page, `diff` and an export never print it (fails on integ before the fix:
    the model checked only the shape)."""
    wire = bundle("Sign in").model_dump(mode="json", by_alias=True)
    assert wire["displayName"] == "Sign in"
    wire["displayName"] = name
    assert LocatorBundle.parse(wire).display_name is None
