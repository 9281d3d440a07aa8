"""Package rendering: exact files, Agent Skills front matter by the spec's rules, digests, no leaks."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillreel.agent_skills.package import (
    MANIFEST,
    REPLAY_SCRIPT,
    SKILL_MD,
    Launcher,
    PackageFile,
    file_digest,
    package_digest,
    render_package,
)
from skillreel.agent_skills.skill_md import clean_text, skill_description, yaml_quote
from skillreel.errors import InputError
from skillreel.model.actions import NavigateAction, TypeAction, capability_manifest
from skillreel.model.base import check_skill_name
from skillreel.model.canonical import tagged_digest
from skillreel.model.draft import Parameter
from skillreel.model.entry import StoreEntry
from skillreel.model.environment import Environment
from skillreel.model.refs import ParameterRef
from skillreel.vault import secret_env_name
from tests.support import factory
from tests.support.agent_skills import assert_agent_skills_rules, decode_double_quoted, front_matter
from tests.support.factory import LAUNCHER, validated_entry


def files(entry: StoreEntry, revision: int = 4) -> dict[str, bytes]:
    return {f.path: f.data for f in render_package(entry, revision=revision, launcher=LAUNCHER).files}


# --- tests -------------------------------------------------------------------------------------


def test_a_package_is_exactly_three_files_and_the_script_alone_is_executable() -> None:
    package = render_package(validated_entry(), revision=4, launcher=LAUNCHER)
    assert package.paths == (SKILL_MD, MANIFEST, REPLAY_SCRIPT)
    assert [f.executable for f in package.files] == [False, False, True]
    assert package.digest == package_digest(package.files)


def test_rendering_is_a_pure_function_of_the_entry_and_revision() -> None:
    entry = validated_entry()
    first = render_package(entry, revision=4, launcher=LAUNCHER)
    again = render_package(entry, revision=4, launcher=LAUNCHER)
    assert first == again
    assert render_package(entry, revision=5, launcher=LAUNCHER).digest != first.digest


def test_front_matter_follows_the_agent_skills_rules() -> None:
    text = files(validated_entry())[SKILL_MD].decode()
    fields = assert_agent_skills_rules(text, "search-invoices")
    assert fields["description"].startswith("Search invoices by customer.")


@pytest.mark.parametrize(
    "name", ["123", "2024-01-01", "true", "y", "no", "1e3", "0x1f", "null", "on", "a", "a-b-c9"]
)
def test_names_a_yaml_loader_would_misread_are_quoted(name: str) -> None:
    text = files(validated_entry(name))[SKILL_MD].decode()
    assert assert_agent_skills_rules(text, name)["name"] == name


@pytest.mark.parametrize("name", ["", "-a", "a-", "a--b", "A", "a_b", "a" * 65, "é", "a b", "abc\n"])
def test_names_that_break_the_rule_are_refused(name: str) -> None:
    with pytest.raises(InputError) as err:
        check_skill_name(name)
    assert err.value.code == "SR_RECORD_NAME_INVALID"


HOSTILE = [
    'He said "hi": \\ back\\slash # not a comment',
    "line one\nline two\r\n---\n  indented: yes",
    "emoji 🧾 and accents é ü and CJK 发票",
    "tab\there and nul\x00 and bell\x07 and del\x7f and nel\x85 and ls\u2028 ps\u2029 bom\ufeff",
    "'single' {braces} [brackets] & * ! | > % @ `tick`",
    "- starts like a list",
]


@pytest.mark.parametrize("description", HOSTILE)
def test_user_text_in_the_front_matter_is_escaped_and_reads_back(description: str) -> None:
    entry = validated_entry(description=description)
    fields = assert_agent_skills_rules(files(entry)[SKILL_MD].decode(), entry.name)
    assert fields["description"] == skill_description(entry)
    assert fields["description"].startswith(clean_text(description)[:20])
    assert "\n" not in fields["description"]


@given(st.text(min_size=0, max_size=300))
def test_yaml_quote_round_trips_any_text(text: str) -> None:
    assert decode_double_quoted(yaml_quote(text)) == text


def test_a_long_description_is_cut_to_1024_and_still_says_when() -> None:
    entry = validated_entry(description="x" * 1024)
    description = front_matter(files(entry)[SKILL_MD].decode())[0]["description"]
    assert len(description) == 1024
    assert "…" in description
    assert "Use it when" in description


def _many_steps_entry() -> StoreEntry:
    actions: list[Any] = [NavigateAction(id="a0", url="https://fixture.skillreel.invalid/")]
    actions += [
        TypeAction(id=f"t{i}", target=factory.bundle(f"#f{i}"), value=ParameterRef(name=f"p{i}"))
        for i in range(255)
    ]
    params = tuple(Parameter(name=f"p{i}", sensitive=i % 2 == 0) for i in range(255))
    return validated_entry(
        actions=tuple(actions),
        parameters=params,
        capabilities=capability_manifest(actions),
        failure_conditions=tuple(f"condition {i}\nspanning lines" for i in range(32)),
    )


def test_the_body_stays_under_500_lines_for_the_largest_skill() -> None:
    entry = _many_steps_entry()
    text = files(entry)[SKILL_MD].decode()
    _, body = front_matter(text)
    assert len(body) < 500
    assert "Step kinds: 1 navigate, 255 type." in text
    assert text.count("SKILLREEL_SECRET_SEARCH_INVOICES_P") == 128


SITE = factory.url_environment("http://127.0.0.1:8000/app")


def test_sensitive_parameters_are_named_by_their_environment_variable_and_never_as_inputs() -> None:
    entry = validated_entry(sensitive=True, environment=SITE)
    out = files(entry)
    text = out[SKILL_MD].decode()
    assert secret_env_name("search-invoices", "query") == "SKILLREEL_SECRET_SEARCH_INVOICES_QUERY"
    assert "`SKILLREEL_SECRET_SEARCH_INVOICES_QUERY`" in text
    assert "--input query" not in text
    assert '"query"' not in text
    assert '"inputs": {}' in text
    manifest = json.loads(out[MANIFEST])
    assert manifest["parameters"] == [
        {
            "name": "query",
            "required": True,
            "sensitive": True,
            "env": "SKILLREEL_SECRET_SEARCH_INVOICES_QUERY",
        }
    ]


def test_the_exact_cli_command_and_mcp_call_are_given() -> None:
    text = files(validated_entry(environment=SITE))[SKILL_MD].decode()
    assert "skillreel replay search-invoices --input query=VALUE --json" in text
    assert "`scripts/replay --input query=VALUE --json`" in text
    assert '{"name": "search-invoices", "inputs": {"query": "VALUE"}}' in text
    assert "skills_play" in text


def test_a_skill_that_needs_a_file_is_run_from_the_command_line_only() -> None:
    text = files(validated_entry())[SKILL_MD].decode()  # an HTML fixture target
    assert "skillreel replay search-invoices --html FIXTURE.html --input query=VALUE --json" in text
    assert "command line only" in text
    assert '"inputs"' not in text
    site = factory.url_environment()
    with_state = Environment.build(
        target=site.target,
        identity="alice",
        storage_state_digest=tagged_digest("skillreel.storage-state/v1", {}),
    )
    text = files(validated_entry(environment=with_state))[SKILL_MD].decode()
    assert "--storage-state STATE.json --input query=VALUE" in text
    assert "`alice`" in text


def test_the_replay_script_prefers_the_program_that_enabled_it_and_names_no_store() -> None:
    script = files(validated_entry())[REPLAY_SCRIPT].decode()
    assert script.startswith("#!/bin/sh\n")
    assert "SKILLREEL_HOME=" not in script  # the store is the caller's, as for the CLI (issue 31.6)
    assert "SKILLREEL_STORE_MUST_EXIST=1\n" in script  # never a new, empty store
    assert "SKILLREEL_ACTOR=package-script\n" in script  # the audit log names who started the replay
    assert "SKILLREEL_PACKAGE=search-invoices\n" in script  # named when the store is missing
    assert "export SKILLREEL_STORE_MUST_EXIST SKILLREEL_ACTOR SKILLREEL_PACKAGE\n" in script
    recorded = script.index('exec /opt/skillreel/bin/python -P -m skillreel replay search-invoices "$@"')
    on_path = script.index('exec skillreel replay search-invoices "$@"')
    assert "if [ -x /opt/skillreel/bin/python ] && /opt/skillreel/bin/python -P -c " in script
    assert recorded < on_path < script.index("SR_RECORD_PROGRAM_MISSING")
    assert script.rstrip().endswith("exit 1")
    assert "127" not in script


def test_a_launcher_is_absolute_and_its_parts_are_quoted_for_the_shell() -> None:
    with pytest.raises(ValueError):
        Launcher(command=("python", "-m", "skillreel"))
    with pytest.raises(ValueError):
        Launcher(command=())
    odd = Launcher(command=("/opt/it's here/$(touch x)/python",))
    package = render_package(validated_entry(), revision=4, launcher=odd)
    script = next(f.data for f in package.files if f.path == REPLAY_SCRIPT).decode()
    assert "exec '/opt/it'\"'\"'s here/$(touch x)/python' replay" in script


def test_the_manifest_holds_digests_and_metadata_of_this_entry_only() -> None:
    entry = validated_entry()
    out = files(entry, revision=4)
    manifest = json.loads(out[MANIFEST])
    assert manifest["schema"] == "skillreel.recorded-skill/v1"
    assert manifest["entry"] == {"name": entry.name, "revision": 4, "status": "enabled", "version": "1.0.0"}
    assert manifest["draft"]["draftDigest"] == entry.draft.draft_digest
    assert entry.approval
    assert entry.last_report
    assert manifest["approval"]["approvalDigest"] == entry.approval.approval_digest
    assert manifest["lastReplay"]["reportDigest"] == entry.last_report.report_digest
    assert manifest["environment"]["environmentDigest"] == entry.draft.environment.environment_digest
    assert manifest["package"]["files"] == {
        SKILL_MD: file_digest(out[SKILL_MD]),
        REPLAY_SCRIPT: file_digest(out[REPLAY_SCRIPT]),
    }
    assert "selector" not in out[MANIFEST].decode()
    assert "candidates" not in out[MANIFEST].decode()


def test_the_package_digest_binds_bytes_paths_and_the_executable_bit() -> None:
    base = [PackageFile("a", b"x"), PackageFile("scripts/replay", b"y", executable=True)]
    digest = package_digest(base)
    assert package_digest(list(reversed(base))) == digest
    assert package_digest([PackageFile("a", b"x "), base[1]]) != digest
    assert package_digest([base[0], PackageFile("scripts/replay", b"y")]) != digest
    assert package_digest([PackageFile("b", b"x"), base[1]]) != digest
    with pytest.raises(ValueError, match="duplicate"):
        package_digest([base[0], base[0]])


SELECTOR = "#selector-that-must-not-leak"


def test_no_selector_url_path_or_token_reaches_any_package_file() -> None:
    env = factory.url_environment(
        "http://127.0.0.1:8765/private/path/page?tab=orders&session=SESSIONSECRET",
        ("https://api.example.test",),
    )
    actions = (
        NavigateAction(id="a1", url="http://127.0.0.1:8765/private/path/page"),
        TypeAction(id="a2", target=factory.bundle(SELECTOR), value=ParameterRef(name="query")),
    )
    entry = validated_entry(
        environment=env,
        actions=actions,
        capabilities=capability_manifest(actions),
        description="Search, see https://auth.example.test/cb?code=CODESECRET&x=1#access_token=FRAGSECRET "
        "and callback?token=TOKSECRET.",
        failure_conditions=("Fails when http://127.0.0.1:8765/private/path/login?otp=OTPSECRET shows.",),
    )
    text = b"\n".join(files(entry).values()).decode()
    for leak in (
        SELECTOR,
        "selector-that",
        "/private/path",
        "tab=orders",
        "SESSIONSECRET",
        "CODESECRET",
        "FRAGSECRET",
        "TOKSECRET",
        "OTPSECRET",
        "/cb",
        "/login",
    ):
        assert leak not in text, leak
    assert "https://auth.example.test" in text  # the origin of a URL in user text stays
    assert "`http://127.0.0.1:8765`" in text
    assert "`https://api.example.test`" in text
    assert "token=[removed]" in text
