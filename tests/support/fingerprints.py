"""Hand-built fingerprints for the pure resolution tests (tests/unit/test_heal.py,
test_similarity.py): salted hashes of plain text, and a small page of an e-mail field, a password
field, Save and Cancel buttons.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict, Unpack

from skillreel.model.locators import Fingerprint, text_hash
from tests.support.factory import SALT


def h(text: str) -> str:
    value = text_hash(SALT, text)
    assert value is not None
    return value


def fp(
    tag: str = "button",
    *,
    type_: str | None = "submit",
    role: str | None = "button",
    attrs: dict[str, str] | None = None,
    path: tuple[str, ...] = ("form", "main", "body", "html"),
    sib: tuple[int, int] = (0, 1),
    label: str | None = None,
    text: str | None = None,
    name: str | None = None,
    value: str | None = None,
    link: str | None = None,
    row: str | None = None,
    stable: bool = False,
) -> Fingerprint:
    return Fingerprint(
        tag=tag,
        type=type_,
        role=role,
        attributes={k: h(v) for k, v in (attrs or {}).items()},
        parent_path=path,
        sibling_index=sib[0],
        sibling_count=sib[1],
        label_hash=h(label) if label else None,
        text_hash=h(text) if text else None,
        name_hash=h(name) if name else None,
        value_hash=h(value) if value else None,
        link_hash=h(link) if link else None,
        row_hash=h(row) if row else None,
        stable_id=True if stable else None,
    )


class Shape(TypedDict, total=False):
    """Keyword arguments of :func:`fp` but the attributes."""

    tag: str
    type_: str | None
    role: str | None
    path: tuple[str, ...]
    sib: tuple[int, int]
    label: str | None
    text: str | None
    name: str | None
    value: str | None
    link: str | None
    row: str | None
    stable: bool


class Spec(Shape, total=False):
    """Every keyword argument of :func:`fp`: one element of the page."""

    attrs: dict[str, str]


EMAIL = Spec(
    tag="input",
    type_="text",
    role="textbox",
    label="Email",
    attrs={"id": "email", "name": "email", "class": "field", "placeholder": "Email", "type": "text"},
    sib=(0, 2),
)


PASSWORD = Spec(
    tag="input",
    type_="password",
    role="textbox",
    label="Password",
    attrs={"id": "pw", "name": "pw", "class": "field", "type": "password"},
    sib=(1, 2),
)


SAVE = Spec(attrs={"id": "save", "class": "btn primary"}, text="Save", sib=(0, 2))


CANCEL = Spec(attrs={"id": "cancel", "class": "btn"}, text="Cancel", sib=(1, 2))


def variant(
    base: Spec, *, attrs: Mapping[str, str | None] | None = None, **changes: Unpack[Shape]
) -> Fingerprint:
    """``base`` with these changes; an attribute changed to None is removed."""
    merged: Spec = {**base, **changes}
    if attrs is not None:
        kept = dict(base.get("attrs", {}))
        for k, v in attrs.items():
            if v is None:
                kept.pop(k, None)
            else:
                kept[k] = v
        merged["attrs"] = kept
    return fp(**merged)
