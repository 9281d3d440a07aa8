"""An in-memory orders page for engine tests over the FakeDriver (``replay.fake``): elements whose
fingerprints hash their id or class as the page's would, a table of orders and a loop approving
its rows (used by
``tests/unit/test_steps_graph.py`` and ``tests/unit/test_trace_groups.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from skillreel.model.actions import BranchAction, ClickAction, ExtractAction, LoopAction, NavigateAction
from skillreel.model.conditions import CompareCondition
from skillreel.model.locators import Fingerprint, LocatorBundle, text_hash
from skillreel.model.reads import FieldSpec
from skillreel.model.refs import ItemRef, LiteralValue
from skillreel.replay.fake import FakeElement, FakePage
from tests.support.factory import SALT, element_set
from tests.support.factory import target as factory_target

URL = "https://app.test/orders"
START = NavigateAction(id="a1", url=URL)


def _hash(text: str) -> str:
    hashed = text_hash(SALT, text)
    assert hashed is not None
    return hashed


def fp(tag: str, *, type_: str | None = None, selector: str = "") -> Fingerprint:
    """An element's fingerprint: the id and class of its selector (``#total``, ``td.amount``),
    hashed as the page's would be."""
    attributes = {}
    if "#" in selector:
        attributes["id"] = _hash(selector.split("#", 1)[1])
    elif "." in selector:
        attributes["class"] = _hash(selector.split(".", 1)[1])
    return Fingerprint(tag=tag, type=type_, attributes=attributes, parent_path=("html", "body", "main"))


def el(tag: str, selectors: set[str], *, parent: int | None = None, **kw: Any) -> FakeElement:
    print_ = fp(tag, type_=kw.pop("type_", None), selector=min(selectors))
    return FakeElement(print_, selectors, parent=parent, **kw)


def target(selector: str, *, tag: str = "td", **kw: Any) -> LocatorBundle:
    """``factory.target`` with the fingerprint :func:`el` gives an element of that ``#id``."""
    bundle = factory_target(selector, tag=tag, **kw)
    return bundle.model_copy(update={"fingerprint": fp(tag, type_=kw.get("type_"), selector=selector)})


def orders_page(
    numbers: Sequence[str], *, statuses: Sequence[str] = (), amounts: Sequence[str] = ()
) -> FakePage:
    """A table: one ``tr.order`` per number, with ``a.open`` ("Order N"), ``td.amount``,
    ``td.status`` and ``button.approve`` inside each row."""
    elements = [el("tbody", {"tbody"})]
    for i, number in enumerate(numbers):
        row = len(elements)
        status = statuses[i] if i < len(statuses) else "new"
        amount = amounts[i] if i < len(amounts) else f"${100 * (i + 1):,}.50"
        elements.append(el("tr", {"tr.order"}, parent=0, text=f"Order {number} {amount} {status}"))
        elements.append(
            el("a", {"a.open"}, parent=row, text=f"Order {number}", attributes={"href": f"/o/{number}"})
        )
        elements.append(el("td", {"td.amount"}, parent=row, text=amount))
        elements.append(el("td", {"td.status"}, parent=row, text=status))
        elements.append(el("button", {"button.approve"}, parent=row, type_="submit", text="Approve"))
    elements.append(el("span", {"#total"}, text="Total: $1,234.50"))
    return FakePage(URL, elements)


def approve_loop(**kw: Any) -> LoopAction:
    """Over the orders' rows: read the amount, and approve the row unless its status is approved."""
    approve = ClickAction(
        id="c2", target=target("button.approve", tag="button", type_="submit", within="item")
    )
    branch = BranchAction(
        id="b1",
        condition=CompareCondition(
            value=ItemRef(field="status"), op="equals", expected=LiteralValue(value="approved")
        ),
        otherwise=(approve,),
    )
    amount = ExtractAction(id="x2", output="amount", target=target("td.amount", within="item"), type="number")
    fields: dict[str, Any] = {
        "id": "l1",
        "items": element_set("tr.order"),
        "limit": 20,
        "fields": (FieldSpec(name="status", target=target("td.status")),),
        "body": (amount, branch),
        "collect": "orders",
        **kw,
    }
    return LoopAction(**fields)
