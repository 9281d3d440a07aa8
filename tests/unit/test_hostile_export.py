"""Hostile review of ``skillreel export NAME --playwright FILE.py`` (issue 32.7): a skill whose
selectors, display names, URLs, literals, descriptions and choices hold Python syntax (quotes,
triple quotes, backslashes, newlines, ``\\N{...}``, U+2028, ``{}``) renders to a script whose code
is exactly the code of the same skill with plain strings: only the string constants differ, so no
hostile string ran as code. And no recorded secret, sensitive default or URL token is in the text."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from skillreel.agent_skills.playwright_script import render_playwright_script
from skillreel.errors import SkillreelError
from skillreel.model import lifecycle
from skillreel.model.actions import (
    Action,
    AssertAction,
    ClickAction,
    ExtractAction,
    HoverAction,
    NavigateAction,
    SelectAction,
    TypeAction,
    UploadAction,
    WaitAction,
)
from skillreel.model.draft import Parameter
from skillreel.model.entry import StoreEntry
from skillreel.model.locators import Fingerprint, LocatorBundle, LocatorCandidate
from skillreel.model.refs import LiteralValue, ParameterRef
from tests.support.factory import T0, events_log, graph_draft, url_environment

ORIGIN = "http://127.0.0.1:8000"

HOSTILE = [
    "x'); __import__('os').system('touch /tmp/pwned'); ('",
    'x"); __import__("os").system("id"); ("',
    "x'''; import os; os.system('id'); '''",
    'x"""; import os; os.system("id"); """',
    "x\\'); import os #",
    "x\\",
    "x\nimport os\nos.system('id')\n",
    "x\r\nimport os\r\n",
    "x\u2028import os\u2029os.system('id')\x85",
    "x\\N{LATIN SMALL LETTER A}\\x41{os.system('id')}",
    "x{__import__('os').system('id')}{{}}",
    "x\x00\x1b[2J\x0c\x0bimport os",
]


def _bundle(selector: str, *, strategy: str = "css", name: str | None = None) -> LocatorBundle:
    return LocatorBundle(
        candidates=(LocatorCandidate(strategy=strategy, selector=selector, match_count=1),),  # type: ignore[arg-type]
        fingerprint=Fingerprint(tag="button", role="button" if name else None, parent_path=("html", "body")),
        display_name=name,
    )


def _skill(s: str, name: str) -> StoreEntry:
    attr = s.replace("\\", "\\\\").replace('"', '\\"')
    actions: list[Action] = [
        NavigateAction(id="a1", url=f"{ORIGIN}/app/{s}"),
        NavigateAction(id="a2", url=f"http://other.test/{s}"),
        ClickAction(id="a3", target=_bundle(f"div.{s} > button")),
        ClickAction(id="a4", target=_bundle(f'[data-testid="{attr}"]', strategy="testid")),
        ClickAction(id="a5", target=_bundle(f'[aria-label="{attr}"]', strategy="aria-label")),
        ClickAction(id="a6", target=_bundle(f'label[for="{attr}"]', strategy="label")),
        ClickAction(id="a7", target=_bundle("#go", name=name)),
        TypeAction(id="a8", target=_bundle(f"iframe[src='{s}'] >>> #q"), value=LiteralValue(value=s)),
        SelectAction(id="a9", target=_bundle("#kind"), value=ParameterRef(name="kind")),
        AssertAction(id="b1", check="text_contains", target=_bundle(f"#{s}"), expected=s),
        AssertAction(id="b2", check="url_matches", expected=f"/app/{s}*"),
        WaitAction(id="b3", until="text", target=_bundle("#t"), value=LiteralValue(value=s)),
        ExtractAction(id="b4", output="total", target=_bundle("#total"), pattern="(" + re.escape(s) + ")"),
    ]
    parameters = (
        Parameter(name="kind", type="enum", required=False, description=s, values=(s, "b"), default=s),
        Parameter(name="pin", sensitive=True, description="the PIN"),
    )
    draft = graph_draft(
        actions, name="hostile-skill", parameters=parameters, environment=url_environment(f"{ORIGIN}/app")
    )
    return lifecycle.new_entry(draft, events_log(), T0)


class _Shape(ast.NodeTransformer):
    """The code without its string constants: what runs, not what it says."""

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        return ast.Constant(value="S") if isinstance(node.value, str) else node

    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.AST:  # an f-string: its parts run
        self.generic_visit(node)
        return node


def _shape(script: str) -> str:
    return ast.dump(_Shape().visit(ast.parse(script)))


@pytest.mark.parametrize("s", HOSTILE)
def test_a_hostile_string_stays_a_string(s: str) -> None:
    plain = render_playwright_script(_skill("plain", "Sign in"))
    hostile = render_playwright_script(_skill(s, 'Say "hi" {x} \\N{BULLET} \\'))
    assert _shape(hostile) == _shape(plain)


def test_a_hostile_script_runs_nothing_of_its_strings(tmp_path: Path) -> None:
    """Compile and import the hostile script (its main is not called): importing runs no string."""
    script = render_playwright_script(_skill(HOSTILE[0].replace("/tmp/pwned", str(tmp_path / "p")), "Go"))
    code = compile(script, "hostile.py", "exec")
    namespace: dict[str, object] = {"__name__": "exported"}
    pytest.importorskip("playwright.sync_api")
    exec(code, namespace)
    assert not (tmp_path / "p").exists()


def test_no_sensitive_value_or_token_reaches_the_script() -> None:
    secret_default = "hunter2hunter2"
    actions: list[Action] = [
        NavigateAction(id="a1", url=f"{ORIGIN}/app/orders"),
        TypeAction(id="a2", target=_bundle("#pin"), value=ParameterRef(name="pin")),
        TypeAction(id="a3", target=_bundle("#who"), value=ParameterRef(name="who")),
    ]
    parameters = (
        Parameter(name="pin", sensitive=True),
        Parameter(name="who", required=False, default=secret_default),
    )
    draft = graph_draft(
        actions, name="secret-skill", parameters=parameters, environment=url_environment(f"{ORIGIN}/app")
    )
    script = render_playwright_script(lifecycle.new_entry(draft, events_log(), T0))
    assert "SKILLREEL_SECRET_" in script
    assert "parser.add_argument('--pin'" not in script  # never from argv
    assert draft.fingerprint_salt not in script  # nothing to reverse a salted hash with


def test_no_salted_hash_reaches_the_script() -> None:
    """A dictionary could reverse a salted hash of a short label: the script never holds one (nor
    the salt); a target known by hashes only is refused, content-free."""
    hashed = LocatorCandidate(
        strategy="role-name", selector="role=button name=0123456789abcdef", match_count=1
    )
    link = LocatorCandidate(strategy="href", selector="link=fedcba9876543210", match_count=1)
    css = LocatorCandidate(strategy="css", selector="form > button.go", match_count=1)
    print_ = Fingerprint(tag="button", role="button", name_hash="a" * 16, parent_path=("html", "body"))

    def entry(*candidates: LocatorCandidate) -> StoreEntry:
        target = LocatorBundle(candidates=candidates, fingerprint=print_)
        draft = graph_draft(
            [NavigateAction(id="a1", url=f"{ORIGIN}/app"), ClickAction(id="a2", target=target)],
            name="hashed-skill",
            environment=url_environment(f"{ORIGIN}/app"),
        )
        return lifecycle.new_entry(draft, events_log(), T0)

    script = render_playwright_script(entry(hashed, link, css))
    assert "form > button.go" in script
    for secret in ("0123456789abcdef", "fedcba9876543210", "a" * 16, entry(css).draft.fingerprint_salt):
        assert secret not in script
    with pytest.raises(SkillreelError) as err:
        render_playwright_script(entry(hashed, link))
    assert err.value.code == "SR_RECORD_SCRIPT_UNSUPPORTED"
    assert "0123456789abcdef" not in str(err.value)


def test_a_step_the_script_cannot_express_is_refused_not_a_traceback() -> None:
    """A kind added this session (hover, upload) or a navigate URL template fails closed with
    SR_RECORD_SCRIPT_UNSUPPORTED (fails on integ: AttributeError, and the template's literal
    ``{order}`` was written as the address to load)."""
    cases: list[tuple[list[Action], tuple[Parameter, ...]]] = [
        ([HoverAction(id="a2", target=_bundle("#menu"))], ()),
        (
            [UploadAction(id="a2", target=_bundle("#file"), value=ParameterRef(name="doc"))],
            (Parameter(name="doc", type="file"),),
        ),
        (
            [
                NavigateAction(
                    id="a2",
                    url=f"{ORIGIN}/app/{{order}}",
                    reason="address-bar",
                    parts={"order": ParameterRef(name="order")},
                )
            ],
            (),
        ),
    ]
    for steps, parameters in cases:
        draft = graph_draft(
            [NavigateAction(id="a1", url=f"{ORIGIN}/app"), *steps],
            name="new-kinds",
            parameters=parameters,
            environment=url_environment(f"{ORIGIN}/app"),
        )
        with pytest.raises(SkillreelError) as err:
            render_playwright_script(lifecycle.new_entry(draft, events_log(), T0))
        assert err.value.code == "SR_RECORD_SCRIPT_UNSUPPORTED"
        assert "step a2" in str(err.value)
