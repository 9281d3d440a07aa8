"""Display names (issue 31.1): the screening rule, the wire form, heals, and how steps read.

A display name is page chrome in clear beside the salted hashes, for people only: every name that
holds a typed value (in any encoded form), a URL or address, a token-like or digits-heavy id, more
than 80 characters or more than one line is dropped; a target chosen by a filter, in a row or in an
item keeps none; a bundle without one keeps its exact bytes and digests."""

from __future__ import annotations

import base64

import pytest

from skillreel.agent_skills.skill_md import _graph_lines, _step_line
from skillreel.model.actions import ClickAction, SelectAction, TypeAction
from skillreel.model.canonical import canonical_json
from skillreel.model.diff import diff_drafts
from skillreel.model.display_names import digits_heavy, high_entropy, readable_name
from skillreel.model.intents import generated_intent, step_intent
from skillreel.model.locators import Fingerprint, LocatorBundle, LocatorCandidate, merge_heal
from skillreel.model.refs import ParameterRef, TextFilter
from skillreel.record.redact import TypedValues, screen_display_name, scrub_bundle
from tests.support import factory

SALT = factory.SALT


def named(
    name: str | None, *, selector: str = "#go", tag: str = "button", role: str = "button"
) -> LocatorBundle:
    return LocatorBundle(
        candidates=(LocatorCandidate(strategy="id", selector=selector, match_count=1),),
        fingerprint=Fingerprint(tag=tag, role=role, name_hash="a" * 16),
        display_name=name,
    )


# ---- the rule ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["Sign in", "User name", "Top 10 products", "Orders", "Menü öffnen", "Add to cart", "Kontoeinstellungen"],
)
def test_page_chrome_passes(name: str) -> None:
    assert readable_name(name) == name


def test_spaces_are_squashed_to_one_line() -> None:
    assert readable_name("  Sign   in ") == "Sign in"


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("x" * 40 + " " + "y" * 40, "81 characters"),
        ("Sign\nin", "two lines"),
        ("Sign\tin", "a tab"),
        ("Sign\u202ein", "a bidi override"),
        ("Go to https://shop.example/orders", "a URL"),
        ("www.example.com", "an address"),
        ("Open ?token=abc", "a key=value pair"),
        ("Signed in as bob@example.com", "an e-mail address"),
        ("Commit 0123456789abcdef0123456789abcdef01234567", "a 40-hex id"),
        ("Key aGVsbG8gd29ybGQgaG93IGFyZQ==", "a base64 run"),
        ("Session aVz1SoRcvMxqMu2J", "random mixed case"),
        ("Invoice INV-2024-00012345", "a run of digits"),
        ("Order 1003", "a digits-heavy id"),
        ("1234", "no letter"),
        ("", "empty"),
        ("   ", "blank"),
    ],
)
def test_what_is_not_chrome_is_dropped(name: str, why: str) -> None:
    assert readable_name(name) is None, why


def test_the_parts_of_the_rule() -> None:
    assert high_entropy("0123456789abcdef0123456789abcdef01234567")
    assert not high_entropy("deadline")  # hex letters only: a word
    assert not high_entropy("Kontoeinstellungenübersicht")
    assert digits_heavy("Order 1003")
    assert digits_heavy("00012345")
    assert not digits_heavy("Top 10 products")
    assert not digits_heavy("2 items")


def test_a_name_that_echoes_a_typed_value_in_any_form_is_dropped() -> None:
    typed = TypedValues(["hunter22"])
    hexed = b"hunter22".hex()
    b64 = base64.b64encode(b"hunter22").decode()
    assert screen_display_name("Sign in", typed) == "Sign in"
    for name in ("hunter22", "Continue as HUNTER22", f"Ref {hexed}", f"Id {b64}"):
        assert screen_display_name(name, typed) is None, name
    assert screen_display_name("Welcome admin", TypedValues(public=["admin"])) is None  # public too
    assert screen_display_name("Bearer abcdefghijklmnopqrstu", TypedValues()) is None  # a secret pattern


def test_scrub_bundle_screens_the_name_even_when_nothing_was_typed() -> None:
    assert scrub_bundle(named("Sign in"), TypedValues(), SALT) == named("Sign in")
    long_id = named("Commit 0123456789abcdef0123456789abcdef01234567")
    scrubbed = scrub_bundle(long_id, TypedValues(), SALT)
    assert scrubbed is not None
    assert scrubbed.display_name is None
    echoed = scrub_bundle(named("Continue as plain-user"), TypedValues(["plain-user"]), SALT)
    assert echoed is not None
    assert echoed.display_name is None


def test_a_target_in_a_table_body_keeps_no_name() -> None:
    cell = named("Acme Corp", selector="#acme", tag="a", role="link")
    in_body = cell.model_copy(
        update={"fingerprint": cell.fingerprint.model_copy(update={"parent_path": ("td", "tr", "tbody")})}
    )
    scrubbed = scrub_bundle(in_body, TypedValues(), SALT)
    assert scrubbed is not None
    assert scrubbed.display_name is None


def test_a_target_in_a_row_an_item_or_chosen_by_a_filter_keeps_no_name() -> None:
    token = TextFilter(contains_token=ParameterRef(name="q"))
    with pytest.raises(ValueError, match="keeps no display name"):
        LocatorBundle(
            candidates=(LocatorCandidate(strategy="css", selector="tr a", match_count=3),),
            fingerprint=Fingerprint(tag="a"),
            filter=token,
            display_name="Order",
        )
    in_item = factory.target(":scope button", tag="button", within="item").to_json()
    with pytest.raises(ValueError, match="keeps no display name"):
        LocatorBundle.parse(canonical_json({**in_item, "displayName": "Open"}))
    scrubbed = scrub_bundle(
        LocatorBundle.model_construct(
            **{**LocatorBundle.parse(canonical_json(in_item)).__dict__, "display_name": "Open"}
        ),
        TypedValues(),
        SALT,
    )
    assert scrubbed is not None
    assert scrubbed.display_name is None


# ---- the wire form -------------------------------------------------------------------------------


def test_a_bundle_without_a_name_keeps_its_bytes_and_one_with_a_name_round_trips() -> None:
    old = named(None)
    assert "displayName" not in old.to_json()
    assert canonical_json(LocatorBundle.parse(canonical_json(old.to_json())).to_json()) == canonical_json(
        old.to_json()
    )
    new = named("Sign in")
    assert new.to_json()["displayName"] == "Sign in"
    assert LocatorBundle.parse(canonical_json(new.to_json())) == new


def test_an_old_skill_keeps_its_digest() -> None:
    """Pinned on main before display names existed: the factory's draft keeps its digest."""
    assert factory.draft().draft_digest == PINNED_DRAFT_DIGEST


PINNED_DRAFT_DIGEST = "sha256:011ef139b223a9ed5889a5010b92d89e4a079be2c7e614a76a3cf0a8132d278b"


def test_a_name_is_one_line_of_at_most_80_characters_on_the_wire() -> None:
    with pytest.raises(ValueError):
        named("x" * 81)
    with pytest.raises(ValueError):
        named("Sign\nin")


# ---- heals ---------------------------------------------------------------------------------------


def test_a_heal_keeps_the_name_while_the_accessible_name_is_the_same() -> None:
    approved = named("Sign in")
    same = named(None, selector="#signin")
    assert merge_heal(approved, same).display_name == "Sign in"
    renamed = LocatorBundle(
        candidates=same.candidates, fingerprint=same.fingerprint.model_copy(update={"name_hash": "b" * 16})
    )
    assert merge_heal(approved, renamed).display_name is None  # the element no longer shows it
    assert merge_heal(approved, named("Log in", selector="#login")).display_name == "Log in"


# ---- how steps read ------------------------------------------------------------------------------


def test_steps_read_by_their_names_where_people_read_them() -> None:
    click = ClickAction(id="a4", target=named("Sign in"))
    typing = TypeAction(
        id="a2",
        target=named("User name", selector="#user", tag="input", role="textbox"),
        value=ParameterRef(name="username"),
    )
    assert step_intent(click, named=True) == 'click the button "Sign in"'
    assert step_intent(typing, named=True) == 'type the input `username` into the field "User name"'
    assert generated_intent(click) == "click the button `#go`"  # content-free callers: unchanged
    quoted = ClickAction(id="a5", target=named('Say "hi" \\ now'))
    assert step_intent(quoted, named=True) == 'click the button "Say \\"hi\\" \\\\ now"'


def test_skill_md_names_the_target_with_markdown_escaped() -> None:
    click = ClickAction(id="a4", target=named("Sign in"))
    assert _step_line(4, click) == '4. `a4` click: click the button "Sign in"'
    hostile = ClickAction(id="a4", target=named("Go `now` *bold* [x]{p}"))
    line = _step_line(4, hostile)
    assert line == '4. `a4` click: click the button "Go \\`now\\` \\*bold\\* \\[x\\]\\{p\\}"'
    select = SelectAction(
        id="a3",
        target=named("Country", selector="#c", tag="select", role="combobox"),
        value=ParameterRef(name="c"),
    )
    assert _graph_lines((select,)) == ['- `a3` select: choose `inputs.c` in the list "Country"']


def test_diff_describes_each_step_and_shows_a_renamed_target() -> None:
    before = factory.graph_draft([ClickAction(id="a1", target=named("Sign in"))])
    after = factory.graph_draft([ClickAction(id="a1", target=named("Log in"))])
    (step,) = diff_drafts(before, after).steps
    assert step.intent == 'click the button "Log in"'
    (change,) = [c for c in step.changes if c.field == "target.displayName"]
    assert (change.category, change.before, change.after) == ("fingerprint", "Sign in", "Log in")


def test_nothing_that_finds_heals_or_judges_an_element_reads_the_name() -> None:
    """Resolution (resolve.js, locate/), healing and the replay engine never mention it: the name is
    for people only, so no verdict can depend on it."""
    from pathlib import Path

    import skillreel

    root = Path(skillreel.__file__).parent
    sources = [*root.glob("locate/*"), *root.glob("replay/**/*.py"), *root.glob("replay/**/*.js")]
    assert sources
    readers = [
        p.name
        for p in sources
        if p.is_file() and ("displayName" in p.read_text() or "display_name" in p.read_text())
    ]
    assert readers == []
