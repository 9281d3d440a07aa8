"""The query-key rule of model/urls.py: credentials stripped, business keys kept, the reviewer's
choices honoured, and the first rule (v1 skills) unchanged."""

from __future__ import annotations

import pytest

from skillreel.model.urls import (
    BUSINESS_KEYS,
    CREDENTIAL_KEYS,
    DEFAULT_RULE,
    V1_RULE,
    URLRuleError,
    has_token,
    looks_like_secret_code,
    looks_like_token,
    normalise_target_url,
    query_rule,
    rebase_url,
    shown_key,
    strip_tokens,
    stripped_keys,
)

JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
BASE = "http://127.0.0.1:8000/orders"


@pytest.mark.parametrize(
    "value",
    [
        JWT,
        "8dce6ced32ad311d9478be5e60c9fe0b",  # hex
        "b8a2c26c-4c1b-4ef9-8ade-3c5106098cf9",  # a UUID
        "aVz1SoRcvMxqMu2J",  # random mixed case
        "rQ2sfsBW1jKW-M5b95yIbw",  # base64url
        "k3j4h5g6f7d8s9a0q1w2",  # lower case and digits alternating
        "4/0AX4XfWhAbCdEfGhIjKlMnOpQrStUvWx",  # an OAuth authorisation code
    ],
)
def test_token_like_values(value: str) -> None:
    assert looks_like_token(value)


@pytest.mark.parametrize(
    "value",
    [
        "open",
        "FR",
        "orders",
        "/orders",
        "/orders/archive/2024/01",
        "summer-sale-2024-promo",
        "INV-2024-00012345",
        "ProjectAlpha2024Beta",
        "order2024report2025x",
        "product-category-electronics",
        "2024-01-01_2024-12-31",
        "created_at desc",
        "price_asc_then_name",
    ],
)
def test_business_values(value: str) -> None:
    assert not looks_like_token(value)


@pytest.mark.parametrize(
    ("value", "stripped"),
    [
        ("FR", False),
        ("open", False),
        ("SUMMER24", False),
        ("INV-2024-0001", False),
        ("orders", False),
        ("ProjectAlpha", False),
        ("CanaryCode4Tn", True),  # upper, lower and digits: a secret-shaped code
        ("Xy7kP2qL", True),
        ("8dce6ced32ad311d9478be5e", True),
    ],
)
def test_ambiguous_keys_are_held_to_a_stricter_bar(value: str, stripped: bool) -> None:
    for key in BUSINESS_KEYS:
        assert (DEFAULT_RULE.strip_reason(key, value) == "token-value") is stripped, key
    assert DEFAULT_RULE.strip_reason("ref", "CanaryCode4Tn") is None  # another key: the usual bar
    assert looks_like_secret_code("CanaryCode4Tn")
    assert not looks_like_secret_code("/Orders/2024/Q1")


def test_business_keys_are_kept_as_written() -> None:
    url = f"{BASE}?state=open&next=/orders&code=FR&key=orders&session=morning#frag"
    assert normalise_target_url(url) == f"{BASE}?state=open&next=/orders&code=FR&key=orders&session=morning"
    assert stripped_keys(url) == ()
    assert not has_token(f"{BASE}?state=open&code=FR&key=orders")


def test_credential_keys_and_token_values_are_stripped() -> None:
    url = (
        f"{BASE}?state=8dce6ced32ad311d9478be5e&code=4/0AX4XfWhAbCdEfGhIj&token=abc&access_token=x"
        f"&page=2&id_token={JWT}&sort=asc"
    )
    assert normalise_target_url(url) == f"{BASE}?page=2&sort=asc"
    assert stripped_keys(url) == ("access_token", "code", "id_token", "state", "token")
    assert has_token(url)
    for key in CREDENTIAL_KEYS:
        assert DEFAULT_RULE.strip_reason(key, "x") == "credential-key"


def test_a_redirect_value_carrying_a_token_is_stripped() -> None:
    assert DEFAULT_RULE.strip_reason("next", "/orders?page=2") is None
    assert DEFAULT_RULE.strip_reason("next", "/cb?token=abc") == "token-value"
    assert DEFAULT_RULE.strip_reason("return", "https://a.test/x#access_token=abc") == "token-value"


def test_a_token_like_key_is_stripped_and_never_named() -> None:
    url = f"{BASE}?aVz1SoRcvMxqMu2J=1&a%20b=2&page=3"
    assert normalise_target_url(url) == f"{BASE}?a%20b=2&page=3"
    assert stripped_keys(url) == ("?",)
    assert shown_key("page") == "page"
    assert shown_key("a b") == "?"


def test_the_reviewer_keeps_or_strips_a_key() -> None:
    rule = query_rule(keep=["Token", "id"], strip=["next"])
    uuid = "b8a2c26c-4c1b-4ef9-8ade-3c5106098cf9"
    url = f"{BASE}?token=abc&id={uuid}&next=/x&state=open"
    assert normalise_target_url(url, rule) == f"{BASE}?token=abc&id={uuid}&state=open"
    assert stripped_keys(url, rule) == ("next",)
    assert not has_token(f"{BASE}?token=abc&id={uuid}", rule)
    assert rule.strip_reason("next", "/x") == "strip-query"


def test_the_first_rule_is_unchanged_for_v1_skills() -> None:
    url = f"{BASE}?state=open&next=/orders&code=FR&key=orders&token=t&page=2#frag"
    assert normalise_target_url(url, V1_RULE) == f"{BASE}?next=%2Forders&page=2"
    assert strip_tokens(url, V1_RULE) == f"{BASE}?next=%2Forders&page=2"
    assert has_token(f"{BASE}?state=open", V1_RULE)
    assert not has_token(f"{BASE}?id=8dce6ced32ad311d9478be5e", V1_RULE)  # names only
    stored = normalise_target_url(url, V1_RULE)
    assert normalise_target_url(stored, V1_RULE) == stored  # stable: v1 documents stay valid


def test_normalising_is_stable_under_the_new_rule() -> None:
    url = "HTTP://127.0.0.1:8000/orders?q=a+b&x=%2F&state=open&token=t#f"
    once = normalise_target_url(url)
    assert once == f"{BASE}?q=a+b&x=%2F&state=open"
    assert normalise_target_url(once) == once


def test_fragments_with_tokens_are_flagged() -> None:
    assert has_token(f"{BASE}#access_token=abc")
    assert has_token(f"{BASE}#x={JWT}")
    assert not has_token(f"{BASE}#section=2")


def test_rebase_moves_only_urls_of_the_origin() -> None:
    assert rebase_url(f"{BASE}?state=open", "http://127.0.0.1:8000", "https://staging.example.com") == (
        "https://staging.example.com/orders?state=open"
    )
    other = "https://cdn.example.com/app.js"
    assert rebase_url(other, "http://127.0.0.1:8000", "https://staging.example.com") == other
    with pytest.raises(URLRuleError):
        rebase_url("ftp://x/", "http://127.0.0.1:8000", "https://staging.example.com")
