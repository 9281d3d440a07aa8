"""``merge_heal``: an adopted heal puts the healed element's locators and fingerprint first and keeps
the approved ones (issue 13, item 4). Pure: bundles in, a bundle out."""

from __future__ import annotations

from skillreel.model.limits import MAX_ACCEPTED_IDENTITIES, MAX_LOCATOR_CANDIDATES
from skillreel.model.locators import Fingerprint, LocatorBundle, LocatorCandidate, merge_heal


def fp(tag: str = "button", index: int = 0) -> Fingerprint:
    return Fingerprint(tag=tag, sibling_index=index, sibling_count=index + 1)


def candidates(*selectors: str) -> tuple[LocatorCandidate, ...]:
    return tuple(LocatorCandidate(strategy="css", selector=s, match_count=1) for s in selectors)


def bundle(*selectors: str, fingerprint: Fingerprint | None = None) -> LocatorBundle:
    return LocatorBundle(candidates=candidates(*selectors), fingerprint=fingerprint or fp())


def selectors(b: LocatorBundle) -> list[str]:
    return [c.selector for c in b.candidates]


def test_new_locators_go_first_the_old_ones_stay_and_duplicates_count_once() -> None:
    old = bundle("#save", ".actions > button", fingerprint=fp(index=0))
    healed = bundle("#persist", ".actions > button", fingerprint=fp(index=1))
    merged = merge_heal(old, healed)
    assert selectors(merged) == ["#persist", ".actions > button", "#save"]
    assert merged.fingerprint == healed.fingerprint
    assert merged.identities == (old.fingerprint,)
    assert merged.accepted == (healed.fingerprint, old.fingerprint)


def test_a_second_heal_keeps_every_earlier_identity_newest_first_and_the_oldest_goes_first() -> None:
    b = bundle("#v0", fingerprint=fp(index=0))
    for version in range(1, MAX_ACCEPTED_IDENTITIES + 3):
        b = merge_heal(b, bundle(f"#v{version}", fingerprint=fp(index=version)))
    assert b.fingerprint == fp(index=MAX_ACCEPTED_IDENTITIES + 2)
    assert [f.sibling_index for f in b.identities] == list(range(MAX_ACCEPTED_IDENTITIES + 1, 1, -1))
    # A heal back to a fingerprint already accepted does not keep it twice.
    back = merge_heal(b, bundle("#v3", fingerprint=fp(index=3)))
    assert back.fingerprint == fp(index=3)
    assert fp(index=3) not in back.identities
    assert len({f.to_json()["siblingIndex"] for f in back.identities}) == len(back.identities)


def test_when_the_candidates_do_not_fit_half_the_room_stays_for_the_approved_ones() -> None:
    old = bundle(*(f"#old{i}" for i in range(MAX_LOCATOR_CANDIDATES)))
    healed = bundle(*(f"#new{i}" for i in range(MAX_LOCATOR_CANDIDATES)), fingerprint=fp(index=1))
    merged = selectors(merge_heal(old, healed))
    half = MAX_LOCATOR_CANDIDATES // 2
    assert merged == [f"#new{i}" for i in range(half)] + [f"#old{i}" for i in range(half)]
    few_old = selectors(merge_heal(bundle("#old"), healed))
    assert few_old == [f"#new{i}" for i in range(MAX_LOCATOR_CANDIDATES - 1)] + ["#old"]


def test_a_bundle_that_never_healed_keeps_its_wire_form_and_digest() -> None:
    plain = bundle("#save")
    assert "identities" not in plain.to_json()
    assert LocatorBundle.parse(plain.to_json()) == plain
    merged = merge_heal(plain, bundle("#persist", fingerprint=fp(index=1)))
    assert LocatorBundle.parse(merged.to_json()) == merged
    assert len(merged.to_json()["identities"]) == 1


def test_what_the_target_is_survives_a_heal_and_each_measurement() -> None:
    """A target chosen by an input (``filter``) or inside a loop's item (``within``) stays one: the
    merged bundle and every bundle measured against an accepted identity keep both."""
    from skillreel.model.refs import ParameterRef, TextFilter

    chosen = TextFilter(contains_token=ParameterRef(name="q"))
    old = LocatorBundle(candidates=candidates("#rows a"), fingerprint=fp("a"), filter=chosen, within="item")
    merged = merge_heal(old, bundle("#results a", fingerprint=fp("a", index=1)))
    assert (merged.filter, merged.within) == (chosen, "item")
    assert merged.identities == (old.fingerprint,)
    for fingerprint in merged.accepted:
        measured = merged.measured_as(fingerprint)
        assert (measured.filter, measured.within, measured.identities) == (chosen, "item", ())
    assert merge_heal(bundle("#a"), bundle("#b", fingerprint=fp(index=1))).to_json().keys() == {
        "candidates",
        "fingerprint",
        "identities",
    }


def test_a_content_free_target_keeps_no_text_hash_in_any_identity() -> None:
    """An extraction target's accepted identities lose their text hashes too (they are page content)."""
    texty = Fingerprint(tag="td", text_hash="0123456789abcdef", name_hash="fedcba9876543210")
    merged = merge_heal(
        bundle("td.total", fingerprint=texty), bundle("td.sum", fingerprint=fp("td", index=1))
    )
    bare = merged.without_content()
    assert bare is not None
    assert all(i.text_hash is None and i.name_hash is None for i in bare.accepted)
    assert bare.identities == (texty.model_copy(update={"text_hash": None, "name_hash": None}),)
