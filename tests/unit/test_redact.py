"""record.redact: typed-value echo rules, capture-time scrubbing and the secret scanner."""

from __future__ import annotations

import json

import pytest

from skillreel.model.actions import AssertAction, NavigateAction, capability_manifest
from skillreel.model.events import FieldInfo
from skillreel.model.locators import Fingerprint, LocatorBundle, LocatorCandidate, Strategy, text_hash
from skillreel.model.urls import V1_RULE, query_rule
from skillreel.record.redact import (
    Finding,
    TypedValues,
    appears_in,
    scan,
    scan_texts,
    scrub_bundle,
    scrub_field,
    scrub_url,
    secret_categories,
    selector_parts,
    selector_texts,
)
from tests.support import factory
from tests.support.factory import SALT
from tests.support.narrow import present


def candidate(selector: str, strategy: Strategy = "css") -> LocatorCandidate:
    return LocatorCandidate(strategy=strategy, selector=selector, match_count=1)


def test_typed_values_never_show_themselves() -> None:
    typed = TypedValues(["Secret-Value-1", "x"])
    assert "Secret" not in repr(typed)
    assert "1 values" in repr(typed)
    assert len(typed) == 1  # one character is never compared


@pytest.mark.parametrize(
    ("text", "echoes"),
    [
        ("ab", True),
        (" AB ", True),
        ("abc", False),
        ("xx hunter2 xx", True),
        ("HUNTER2", True),
        ("hunt", False),
        ("", False),
        (None, False),
    ],
)
def test_echo_rule_equal_two_contained_four(text: str | None, echoes: bool) -> None:
    assert TypedValues(["ab", "hunter2"]).echoes(text) is echoes


def test_selector_texts_are_attribute_values_and_ids() -> None:
    assert selector_texts('button[aria-label="Say \\"hi\\""]') == ['Say "hi"']
    assert selector_texts("#main > div:nth-of-type(2) > #x\\.y") == ["main", "x.y"]
    assert selector_texts("form > textarea") == []


def test_scrub_bundle_drops_echoing_candidates_and_hashes() -> None:
    fp = Fingerprint(
        tag="button",
        text_hash=text_hash(SALT, "canary7"),
        label_hash=text_hash(SALT, "ok"),
        attributes={
            "aria-label": present(text_hash(SALT, "canary7")),
            "class": present(text_hash(SALT, "btn")),
        },
    )
    bundle = LocatorBundle(
        candidates=(candidate('button[aria-label="Hi canary7"]', "aria-label"), candidate("form > button")),
        fingerprint=fp,
    )
    typed = TypedValues(["canary7"])
    kept = scrub_bundle(bundle, typed, SALT)
    assert kept is not None
    assert [c.selector for c in kept.candidates] == ["form > button"]
    assert kept.fingerprint.text_hash is None
    assert kept.fingerprint.label_hash is not None
    assert set(kept.fingerprint.attributes) == {"class"}
    only = LocatorBundle(candidates=(candidate("#canary7"),), fingerprint=Fingerprint(tag="div"))
    assert scrub_bundle(only, typed, SALT) is None
    assert scrub_bundle(bundle, TypedValues(), SALT) is bundle


def test_scrub_bundle_drops_identity_hashes_and_hashed_candidates_of_a_typed_value() -> None:
    canary, other = text_hash(SALT, "canary7"), text_hash(SALT, "Save")
    fp = Fingerprint(
        tag="a",
        role="link",
        name_hash=canary,
        value_hash=canary,
        link_hash=canary,
        row_hash=canary,
        text_hash=other,
        stable_id=True,
    )
    bundle = LocatorBundle(
        candidates=(
            candidate(f"role=link name={canary}", "role-name"),
            candidate(f"link={canary}", "href"),
            candidate(f"role=link name={other}", "role-name"),
            candidate("main > a"),
        ),
        fingerprint=fp,
    )
    kept = scrub_bundle(bundle, TypedValues(["  ", "canary7"]), SALT)
    assert kept is not None
    assert [c.selector for c in kept.candidates] == [f"role=link name={other}", "main > a"]
    f = kept.fingerprint
    assert (f.name_hash, f.value_hash, f.link_hash, f.row_hash) == (None, None, None, None)
    assert (f.text_hash, f.stable_id) == (other, True)
    assert "nameHash" not in f.to_json()


def test_scrub_field_falls_back_to_a_generic_hint() -> None:
    field = FieldInfo(control="text", param_hint="search")
    assert present(scrub_field(field, TypedValues(["search"]))).param_hint == "text"
    assert present(scrub_field(field, TypedValues(["search", "text"]))).param_hint == "field"
    assert scrub_field(field, TypedValues(["other"])) is field


def test_scrub_url_strips_tokens_fragments_and_typed_values() -> None:
    typed = TypedValues(["acme corp"])
    code, state = "4/0AX4XfWhAbCdEfGhIjKl", "8dce6ced32ad311d9478be5e"
    url = f"https://a.test/cb?code={code}&state={state}&token=t&q=acme+corp&page=2#access_token=T"
    assert scrub_url(url, typed) == "https://a.test/cb?page=2"
    business = "https://a.test/orders?state=open&next=/orders&code=FR&key=orders&q=acme+corp"
    assert scrub_url(business, typed) == "https://a.test/orders?state=open&next=/orders&code=FR&key=orders"
    assert scrub_url(business, typed, query_rule(strip=["next"], keep=())) == (
        "https://a.test/orders?state=open&code=FR&key=orders"
    )
    assert scrub_url(business, typed, V1_RULE) == "https://a.test/orders?next=%2Forders"
    assert scrub_url("https://a.test/search/acme%20corp", typed) is None
    assert scrub_url("chrome-error://chromewebdata/", typed) is None
    assert scrub_url("https://u:p@a.test/", typed) is None


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("-----BEGIN RSA PRIVATE KEY-----", "private-key"),
        (
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "jwt",
        ),
        ("key AKIAIOSFODNN7EXAMPLE here", "cloud-key"),
        ("ghp_" + "a" * 36, "vcs-token"),
        ("xoxb-123456789012-abcdef", "chat-token"),
        ("sk_live_" + "a" * 24, "api-key"),
        ("Authorization: Bearer abcdefghijklmnopqrstuvwxyz", "bearer-token"),
        ("password = hunter22", "password-assignment"),
        ("see https://user:pw@example.com/x", "url-credentials"),
    ],
)
def test_secret_patterns(text: str, category: str) -> None:
    assert category in secret_categories(text)


def test_user_texts_are_scanned_for_patterns() -> None:
    assert scan_texts([("description", "Search invoices by customer and open the first one.")]) == []
    assert scan_texts([("failureConditions[0]", "token=abcdef123")]) == [
        Finding("failureConditions[0]", "password-assignment")
    ]


def test_scan_finds_typed_values_in_stored_fields_by_path_and_category_only() -> None:
    draft = factory.draft(description="Search for acme corp invoices.")
    actions = (
        *draft.actions,
        AssertAction(id="a9", check="text_contains", target=factory.bundle("#r"), expected="ACME CORP"),
    )
    draft = factory.draft(
        description="Search for acme corp invoices.",
        actions=actions,
        capabilities=capability_manifest(actions),
    )
    findings = scan(draft, typed=TypedValues(["acme corp"]))
    assert {(f.path, f.category) for f in findings} == {
        ("description", "typed-value"),
        ("actions[4].expected", "typed-value"),
    }
    assert "acme" not in json.dumps([f.to_json() for f in findings]).lower()


@pytest.mark.parametrize(
    ("value", "text", "appears"),
    [
        ("admin", "http://127.0.0.1:8000/admin/login/?next=/admin/", True),
        ("admin", "http://127.0.0.1:8000/administration/", True),  # 4+ characters: inside a part
        ("adm", "http://127.0.0.1:8000/admin/", False),  # 2-3 characters: a whole part only
        ("ab", "http://host/x/?ab=1", True),
        ("curator", "http://127.0.0.1:8000/admin/", False),
        ("ab", "Sign in as ab, then add a book.", True),
        ("ab", "Grab the tab.", False),
        ("walden", "Search for Walden and open it.", True),
    ],
)
def test_a_value_appears_in_a_text_by_the_echo_rule(value: str, text: str, appears: bool) -> None:
    assert appears_in(value, text) is appears


def test_a_value_that_appeared_before_it_was_typed_is_public() -> None:
    typed = TypedValues()
    typed.add("admin", seen_in=["http://127.0.0.1:8000/admin/login/?next=/admin/", "Add a book."])
    typed.add("Rhea Corder", seen_in=["http://127.0.0.1:8000/admin/library/book/add/"])
    typed.add("admin", seen_in=[])  # typed again: the first time decides
    assert typed.public_values() == ("admin",)
    assert typed.echoes("/admin/") is True
    assert typed.echoes_private("/admin/") is False
    assert typed.echoes_private("by rhea corder") is True
    # URLs keep a public value; a private one still blots them out.
    assert scrub_url("http://127.0.0.1:8000/admin/library/?next=/admin/", typed) == (
        "http://127.0.0.1:8000/admin/library/?next=/admin/"  # kept pairs stay as written
    )
    assert scrub_url("http://127.0.0.1:8000/authors/rhea%20corder/", typed) is None
    # Names, texts and selectors still keep it out: public is about secrets and URLs only.
    fp = Fingerprint(tag="h1", text_hash=text_hash(SALT, "admin"))
    bundle = LocatorBundle(candidates=(candidate('h1[title="Admin"]'), candidate("h1")), fingerprint=fp)
    kept = scrub_bundle(bundle, typed, SALT)
    assert kept is not None
    assert [c.selector for c in kept.candidates] == ["h1"]
    assert kept.fingerprint.text_hash is None


def test_a_public_value_is_no_secret_finding() -> None:
    """Issue 10 finding 5: the user name ``admin`` of an app under ``/admin/`` failed the recording
    on the start URL and the description, both given before anything was typed."""
    environment = factory.url_environment("http://127.0.0.1:8000/admin/login/?next=/admin/")
    actions = (
        NavigateAction(id="a1", url="http://127.0.0.1:8000/admin/login/?next=/admin/"),
        *factory.draft().actions[1:],
    )
    draft = factory.draft(
        environment=environment, actions=actions, description="Sign in to the admin as admin and add a book."
    )
    private = TypedValues(["admin"])
    assert {f.path for f in scan(draft, typed=private)} == {"description", "actions[0].url"}
    public = TypedValues()
    public.add("admin", seen_in=[environment.start_url])
    assert scan(draft, typed=public) == []


def test_scan_skips_digests_hashes_and_enumerations() -> None:
    draft = factory.draft()
    hexes = {draft.draft_digest[7:11], draft.events_digest[7:11], "click", "type"}
    assert scan(draft, factory.events_log(), TypedValues(hexes)) == []


def test_scan_checks_urls_and_selectors_by_their_parts() -> None:
    actions = (
        NavigateAction(id="a1", url="https://fixture.skillreel.invalid/?q=acme+corp"),
        *factory.draft().actions[1:],
    )
    draft = factory.draft(actions=actions)
    assert [(f.path, f.category) for f in scan(draft, typed=TypedValues(["acme corp"]))] == [
        ("actions[0].url", "typed-value")
    ]
    tokened = (NavigateAction(id="a1", url="https://fixture.skillreel.invalid/?token=x"), *actions[1:])
    assert ("actions[0].url", "url-token") in {
        (f.path, f.category) for f in scan(factory.draft(actions=tokened))
    }
    # The start URL the user gave on the command line existed before anything was typed.
    url_draft = factory.draft(environment=factory.url_environment("http://127.0.0.1:8000/acme/app"))
    assert scan(url_draft, typed=TypedValues(["acme"])) == []


# ---- hostile pages: every page-controlled string, and encoded copies (issue 11 item 7) -------------

SECRET = "Hunter2Secret"
HEX = SECRET.encode().hex()


@pytest.mark.parametrize(
    "text",
    [
        SECRET,
        f"x-{SECRET.lower()}",  # a custom element named after it
        HEX,
        HEX.upper(),
        f"btn-{HEX}-x",
        SECRET.lower().encode().hex(),
        "SHVudGVyMlNlY3JldA",  # base64, unpadded
    ],
)
def test_a_value_echoes_as_typed_and_encoded(text: str) -> None:
    assert TypedValues([SECRET]).echoes(text)


def test_encoded_forms_of_a_short_value_must_match_whole() -> None:
    typed = TypedValues(["ab"])
    assert typed.echoes("6162")
    assert not typed.echoes("ff6162ff")  # a 2-character value is never looked for inside a text


def test_selector_parts_are_every_page_controlled_text() -> None:
    parts = selector_parts(
        f'x-{SECRET.lower()} > button.{HEX}:nth-of-type(2) > #\\31 23abc[data-{SECRET}="v"]'
    )
    assert parts == ["v", f"x-{SECRET.lower()}", HEX, "123abc", f"data-{SECRET}"]
    # the recorder's own words: standard tags, pseudo-classes, numbers, its attribute names
    assert selector_parts('form > input[name="q"]:nth-of-type(3)') == ["q"]
    assert selector_parts('label[for="email"]') == ["email"]


def test_scrub_bundle_checks_tags_parent_tags_roles_types_attribute_names_and_hashes() -> None:
    typed = TypedValues([SECRET])
    fp = Fingerprint(
        tag="button",
        type=HEX[:32],
        role=f"x{HEX}",
        parent_path=(f"x-{SECRET.lower()}", "form", "body"),
        attributes={
            "class": present(text_hash(SALT, HEX)),  # the hash of an encoded copy
            "title": present(text_hash(SALT, "Send")),
        },
        text_hash=text_hash(SALT, "Send"),
    )
    bundle = LocatorBundle(
        candidates=(
            candidate(f"x-{SECRET.lower()} > button"),
            candidate(f'[data-test="{HEX}"]', "testid"),
            candidate('[data-test="send"]', "testid"),
        ),
        fingerprint=fp,
    )
    kept = present(scrub_bundle(bundle, typed, SALT))
    assert [c.selector for c in kept.candidates] == ['[data-test="send"]']
    assert kept.fingerprint.parent_path == ()
    assert (kept.fingerprint.type, kept.fingerprint.role) == (None, None)
    assert set(kept.fingerprint.attributes) == {"title"}
    assert kept.fingerprint.text_hash == fp.text_hash
    assert SECRET.lower() not in kept.model_dump_json().lower()
    assert HEX not in kept.model_dump_json()
    # The element itself is a custom element named after the value: it cannot be described.
    custom = LocatorBundle(
        candidates=(candidate('[data-test="send"]', "testid"),),
        fingerprint=Fingerprint(tag=f"x-{HEX}"),
    )
    assert scrub_bundle(custom, typed, SALT) is None


def test_standard_words_are_no_echo() -> None:
    """Someone who types "button" or "form" still records clicks on buttons inside forms."""
    typed = TypedValues(["button", "form", "main"])
    fp = Fingerprint(tag="button", type="submit", role="button", parent_path=("form", "main"))
    bundle = LocatorBundle(candidates=(candidate("form > button"),), fingerprint=fp)
    assert scrub_bundle(bundle, typed, SALT) is bundle
    assert scan(factory.draft(), factory.events_log(), typed) == []


def test_scan_checks_page_words_and_attribute_names() -> None:
    base = factory.draft()
    first = base.actions[1]
    target = present(getattr(first, "target", None))
    hostile = target.model_copy(
        update={
            "fingerprint": target.fingerprint.model_copy(
                update={
                    "parent_path": (f"x-{SECRET.lower()}",),
                    "attributes": {f"data-{HEX}": present(text_hash(SALT, "v"))},
                }
            )
        }
    )
    actions = (base.actions[0], first.model_copy(update={"target": hostile}), *base.actions[2:])
    findings = {
        (f.path, f.category) for f in scan(factory.draft(actions=actions), typed=TypedValues([SECRET]))
    }
    assert findings == {
        ("actions[1].target.fingerprint.parentPath[0]", "typed-value"),
        ("actions[1].target.fingerprint.attributes[0]", "typed-value"),
    }
