"""The Playwright script renderer (``agent_skills.playwright_script``, issue 32 point 7), without a
browser: every kind of step becomes Python that compiles; loops, branches, skips, dialogs and
people are plain Python; locators are codegen's calls from candidates without salted hashes; the
inputs parse as the parameters say, a sensitive one from its variable only. A real browser runs an
exported script in tests/integration/services/test_export_script.py."""

from __future__ import annotations

import pytest

from skillreel.agent_skills.playwright_script import _Renderer, _Scope, option_name, render_playwright_script
from skillreel.errors import SkillreelError
from skillreel.model import lifecycle
from skillreel.model.actions import (
    AssertAction,
    BranchAction,
    ClickAction,
    DialogAction,
    ExtractAction,
    HumanAction,
    LoopAction,
    NavigateAction,
    TypeAction,
    WaitAction,
)
from skillreel.model.conditions import CompareCondition
from skillreel.model.draft import Parameter
from skillreel.model.entry import StoreEntry
from skillreel.model.locators import Fingerprint, LocatorBundle, LocatorCandidate
from skillreel.model.reads import FieldSpec
from skillreel.model.refs import ItemRef, LiteralValue, OutputRef, ParameterRef
from tests.support.factory import T0, bundle, element_set, events_log, graph_draft, target, url_environment

HASH = "0123456789abcdef"


def _entry(actions: list, parameters: tuple[Parameter, ...] = ()) -> StoreEntry:  # type: ignore[type-arg]
    draft = graph_draft(
        actions,
        name="refund-orders",
        parameters=parameters,
        environment=url_environment("http://127.0.0.1:8000/app"),
    )
    return lifecycle.new_entry(draft, events_log(), T0)


def _graph() -> list:  # type: ignore[type-arg]
    rows = element_set("tbody tr", token=ParameterRef(name="customer"))
    return [
        NavigateAction(id="a1", url="http://127.0.0.1:8000/app/orders?page=1"),
        TypeAction(id="a2", target=bundle("#q"), value=ParameterRef(name="customer")),
        TypeAction(
            id="a3", target=bundle('input[name="pw"]', strategy="name"), value=ParameterRef(name="pw")
        ),
        LoopAction(
            id="a4",
            items=rows,
            limit=ParameterRef(name="limit"),
            fields=(FieldSpec(name="status", target=target("td.status")),),
            collect="refunds",
            body=(
                BranchAction(
                    id="a5",
                    condition=CompareCondition(
                        value=ItemRef(field="status"), op="equals", expected=LiteralValue(value="paid")
                    ),
                    then=(
                        ClickAction(id="a6", target=target("button.refund", tag="button", within="item")),
                        DialogAction(id="a7", accept=True),
                        WaitAction(id="a8", until="appears", target=target("#done"), on_fail="skip"),
                        ExtractAction(id="a9", output="receipt", target=target("#receipt")),
                        TypeAction(
                            id="c1", target=bundle("#memo"), value=OutputRef(step="a9", field="receipt")
                        ),
                    ),
                ),
            ),
        ),
        ExtractAction(id="b1", output="remaining", read="count", items=element_set("tbody tr")),
        AssertAction(id="b2", check="count", target=target("tbody tr"), expected=3),
        AssertAction(id="b3", check="url_matches", expected="/app/orders*"),
        HumanAction(id="b4", reason="otp"),
        TypeAction(id="b5", target=bundle("#note"), value=OutputRef(step="b1", field="remaining")),
    ]


PARAMETERS = (
    Parameter(name="customer"),
    Parameter(name="pw", sensitive=True),
    Parameter(name="limit", type="integer", required=False, default=5),
    Parameter(name="origin", type="enum", values=("eu", "us"), required=False, default="eu"),
)


def _rendered() -> str:
    actions = _graph()
    actions.append(TypeAction(id="b6", target=bundle("#region"), value=ParameterRef(name="origin")))
    return render_playwright_script(_entry(actions, PARAMETERS))


def test_every_step_becomes_python_that_compiles() -> None:
    text = _rendered()

    compile(text, "refund_orders.py", "exec")
    rows = "page.locator('tbody tr').filter(has_text=token(inputs['customer']))"
    assert f"for item1 in items_of('a4', {rows}" in text
    assert "if compare(fields1.get('status'), 'equals', 'paid'):" in text
    assert "item1.locator('button.refund')" in text  # a target inside the loop's item
    assert "page.once('dialog', lambda dialog: dialog.accept())  # a7" in text
    assert text.index("page.once('dialog'") < text.index("one('a6'")  # armed before a6 acts
    assert "except Skip:" in text  # the skip-on-fail wait skips the rest of its block only
    assert "record1['receipt'] = read(page.locator('#receipt')" in text
    assert "outputs['refunds'].append(record1)" in text
    assert "text(record1.get('receipt', outputs.get('receipt')))" in text  # this iteration's read
    assert "person('b4', 'otp', args.headed)" in text
    assert "page.goto(at(args.origin, '/app/orders?page=1'))" in text
    assert "outputs.get('remaining')" in text


def test_inputs_are_options_and_a_sensitive_one_only_its_variable() -> None:
    namespace: dict = {"__name__": "exported"}  # type: ignore[type-arg]
    exec(compile(_rendered(), "refund_orders.py", "exec"), namespace)  # our own rendering
    parse = namespace["parse_inputs"]

    with pytest.MonkeyPatch.context() as env:
        env.setenv("SKILLREEL_SECRET_REFUND_ORDERS_PW", "from-the-vault")
        args, inputs = parse(["--customer", "Ada", "--input-origin", "us"])
    assert inputs == {"customer": "Ada", "pw": "from-the-vault", "limit": 5, "origin": "us"}
    assert args.origin == "http://127.0.0.1:8000"
    with pytest.raises(SystemExit) as missing:
        parse(["--customer", "Ada"])
    assert "SKILLREEL_SECRET_REFUND_ORDERS_PW" in str(missing.value.code)
    with pytest.raises(SystemExit) as on_argv:
        parse(["--customer", "Ada", "--pw", "typed"])
    assert on_argv.value.code == 2
    assert option_name("origin") == "--input-origin"
    assert option_name("order_id") == "--order-id"


def test_locators_follow_codegen_and_never_a_salted_hash() -> None:
    labelled = LocatorBundle(
        candidates=(
            LocatorCandidate(strategy="role-name", selector=f"role=button name={HASH}", match_count=1),
            LocatorCandidate(strategy="testid", selector='[data-testid="save"]', match_count=1),
        ),
        fingerprint=Fingerprint(tag="button", role="button"),
    )
    placeholder = LocatorBundle(
        candidates=(
            LocatorCandidate(
                strategy="aria-label", selector='input[aria-label="Say \\"hi\\""]', match_count=1
            ),
        ),
        fingerprint=Fingerprint(tag="input"),
    )
    field = bundle('label[for="due"]', strategy="label")
    framed = bundle("iframe#pay >>> #card", strategy="id")
    text = render_playwright_script(
        _entry(
            [
                ClickAction(id="a1", target=labelled),
                TypeAction(id="a2", target=placeholder, value=ParameterRef(name="q")),
                TypeAction(id="a3", target=field, value=ParameterRef(name="q")),
                TypeAction(id="a4", target=framed, value=ParameterRef(name="q")),
            ]
        )
    )

    assert "page.get_by_test_id('save')" in text
    assert HASH not in text
    assert """page.get_by_label('Say "hi"', exact=True)""" in text
    assert """page.locator('[id="due"]')""" in text
    assert "page.frame_locator('iframe#pay').locator('#card')" in text


def test_a_target_known_only_by_salted_hashes_is_refused() -> None:
    hashed = LocatorBundle(
        candidates=(
            LocatorCandidate(strategy="role-name", selector=f"role=link name={HASH}", match_count=1),
        ),
        fingerprint=Fingerprint(tag="a", role="link"),
    )

    with pytest.raises(SkillreelError) as refused:
        render_playwright_script(_entry([ClickAction(id="a1", target=hashed)]))

    assert refused.value.code == "SR_RECORD_SCRIPT_UNSUPPORTED"
    assert "step a1" in str(refused.value)


def test_a_clear_display_name_becomes_get_by_role_when_the_bundle_keeps_one() -> None:
    """Issue 31 adds ``displayName`` to bundles; the renderer reads it when present (set here on the
    frozen document directly, so this holds before and after that field exists)."""
    named = LocatorBundle(
        candidates=(
            LocatorCandidate(strategy="role-name", selector=f"role=button name={HASH}", match_count=1),
            LocatorCandidate(strategy="css", selector="form > button", match_count=1),
        ),
        fingerprint=Fingerprint(tag="button", role="button"),
    )
    cut = named.model_copy()
    object.__setattr__(named, "display_name", "Place order")
    object.__setattr__(cut, "display_name", "Place an order for every customer of the list\u2026")

    renderer = _Renderer(_entry([ClickAction(id="a1", target=bundle("#x"))]))  # documents re-parse
    text = renderer.locator("a1", named, _Scope()) + "\n" + renderer.locator("a2", cut, _Scope())

    assert "page.get_by_role('button', name='Place order', exact=True)" in text
    assert "name='Place an order for every customer of the list', exact=False" in text
    assert "form > button" not in text
