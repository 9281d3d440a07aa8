"""F9 (issue 30): a page-controlled id holding a bidi override (U+202E) reaches no reader raw: ``show``
(its projection, its text and its JSON), ``diff`` (the same three) and ``SKILL.md`` write it as
``\\u202e`` through the one escaping function (``model.visible``); the review page's browser test
checks the fourth reader (tests/integration/ui/test_review_page.py)."""

from __future__ import annotations

import json

from skillreel.agent_skills.skill_md import render_skill_md
from skillreel.model import lifecycle
from skillreel.model.actions import ClickAction
from skillreel.services.diffing import diff_skill
from skillreel.services.reviewing import review_skill
from skillreel.services.showing import show_skill
from skillreel.store import AuditNote, Store
from tests.support.cli import run_cli
from tests.support.factory import T1, bundle
from tests.support.review_page import HIDDEN_ID, NAME, seed_environment_review

RAW = "\u202e"
ESCAPED = HIDDEN_ID.replace(RAW, "\\u202e")  # #go\u202egnp.exe, as six visible characters
RENAMED = "#next\u2066\u200b"


def _renamed(store: Store) -> None:
    """The pending draft's button gets another page-controlled id, with invisible characters too,
    and its description a bidi override."""
    entry = store.get(NAME)
    steps = list(entry.draft.actions)
    steps[2] = ClickAction(id="a3", target=bundle(RENAMED, tag="button", type_="submit"))
    draft = entry.draft.evolve(actions=tuple(steps), description=f"List orders {RAW}fdp.exe")
    store.update(NAME, lambda e: lifecycle.replace_draft(e, draft, e.events, T1), AuditNote(kind="record"))


def test_show_escapes_a_bidi_override_in_a_recorded_id(store: Store) -> None:
    seed_environment_review(store)
    shown = show_skill(store, NAME).to_json()
    assert shown["actions"][2]["target"]["candidates"][0]["selector"] == f"{ESCAPED}"
    assert RAW not in json.dumps(shown, ensure_ascii=False)
    for args in (("show", NAME), ("show", NAME, "--json")):
        result = run_cli(*args)
        assert result.exit_code == 0, result.stderr
        assert RAW not in result.stdout
        assert ESCAPED.replace("\\", "\\\\" if "--json" in args else "\\") in result.stdout


def test_diff_escapes_invisible_characters_old_and_new(store: Store) -> None:
    seed_environment_review(store)
    _renamed(store)
    data = diff_skill(store, NAME).to_json()
    text = json.dumps(data, ensure_ascii=False)
    for raw in (RAW, "\u2066", "\u200b"):
        assert raw not in text
    (step,) = [s for s in data["steps"] if s["id"] == "a3"]
    assert step["changes"][0]["after"][0].endswith("#next\\u2066\\u200b")
    assert data["texts"][0]["after"] == "List orders \\u202efdp.exe"
    for args in (("diff", NAME), ("diff", NAME, "--json")):
        result = run_cli(*args)
        assert result.exit_code == 0, result.stderr
        for raw in (RAW, "\u2066", "\u200b"):
            assert raw not in result.stdout
        assert "fdp.exe" in result.stdout


def test_skill_md_escapes_what_an_agent_reads(store: Store) -> None:
    seed_environment_review(store)
    _renamed(store)
    review_skill(
        store, NAME, "alice", approve=True, expected_revision=store.get(NAME).revision, environments=()
    )
    entry = store.get(NAME)
    text = render_skill_md(entry, entry.revision)
    assert RAW not in text
    assert "List orders \\u202efdp.exe" in text
