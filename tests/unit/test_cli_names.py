"""A name that is not a valid skill name is refused the same way by every verb that takes one:
``SR_RECORD_NAME_INVALID``, exit status 2, nothing started. Verbs are found by introspection, so a
new verb with a NAME argument (or a --name option) is covered without editing this test."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import click
import pytest

from skillreel.cli.main import VERBS, main

BAD_NAMES = ("Bad_Name", "../etc", "a--b", "x" * 65)
# What each verb needs besides the name to get as far as checking it.
EXTRA: dict[str, tuple[str, ...]] = {
    "review": ("--reviewer", "alice"),
    "rollback": ("--to", "1"),
    "export": ("--out", "{tmp}/out.json"),
    "record": ("--html", "{tmp}/page.html", "--description", "A skill."),
}


def verb_command(verb: str) -> click.Command:
    command: click.Command = importlib.import_module(f"skillreel.cli.{VERBS[verb][0]}").command
    return command


def verbs_taking_a_name() -> list[tuple[str, bool]]:
    """(verb, whether the name is an option) for every verb with a NAME argument or a --name option."""
    found = []
    for verb in sorted(VERBS):
        command = verb_command(verb)
        for param in command.params:
            if isinstance(param, click.Argument) and param.name == "name":
                found.append((verb, False))
            elif isinstance(param, click.Option) and "--name" in param.opts:
                found.append((verb, True))
    return found


def test_the_verbs_are_found() -> None:
    verbs = {verb for verb, _ in verbs_taking_a_name()}
    assert {"show", "review", "diff", "rollback", "replay", "delete", "audit"} <= verbs


@pytest.mark.parametrize(("verb", "as_option"), verbs_taking_a_name())
@pytest.mark.parametrize("bad", BAD_NAMES)
def test_a_bad_name_is_the_same_refusal_everywhere(
    verb: str, as_option: bool, bad: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "page.html").write_text("<html><body><button>go</button></body></html>")
    extra = [a.format(tmp=tmp_path) for a in EXTRA.get(verb, ())]
    name_args = ["--name", bad] if as_option else [bad]
    with pytest.raises(SystemExit) as exited:
        main([verb, *name_args, *extra, "--json"])
    envelope = json.loads(capsys.readouterr().out)
    assert (envelope["error"]["code"], exited.value.code) == ("SR_RECORD_NAME_INVALID", 2), envelope
    assert envelope["command"] == verb


def test_every_name_argument_completes_skill_names_from_the_store(skillreel_home: Path) -> None:
    """Shell completion (click's protocol, docs/guide.md "Shell completion") offers the store's skill
    names for every verb's NAME argument, and nothing (no error, no store created) without a store."""
    from skillreel.store import Store
    from tests.support.factory import seed

    arguments = [
        (verb, param)
        for verb, as_option in verbs_taking_a_name()
        if not as_option
        for param in verb_command(verb).params
        if isinstance(param, click.Argument) and param.name == "name"
    ]
    assert arguments
    ctx = click.Context(click.Command("x"))
    for _, param in arguments:
        assert param.shell_complete(ctx, "") == []  # no store yet
    assert not skillreel_home.exists()
    with Store.open() as store:
        seed(store, "search-invoices")
        seed(store, "send-reminder")
        seed(store, "approve-invoice")
    for verb, param in arguments:
        offered = [item.value for item in param.shell_complete(ctx, "se")]
        assert offered == ["search-invoices", "send-reminder"], verb
