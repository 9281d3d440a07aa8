"""SQLAdmin (Starlette + SQLAlchemy admin) at 0.16.1 and 0.32.0: its own sign-in page, list with
search, create, edit, and a custom bulk action confirmed in a modal. Between them the Tabler
theme, the page layout (nesting, labels marked required, switches for booleans), icons and the
search box's behaviour changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from .spec import App, Change, Check, Click, Fill, Press, Tables, Task, Version

SIGN_IN = (
    Fill("input[name=username]", "username"),
    Fill("input[name=password]", "password"),
    Click("form button[type=submit]"),
)
RECORD_USER = {"username": "curator", "password": "Curator-pass-1"}
REPLAY_USER = {"username": "operator", "password": "Operator-pass-2"}
PRODUCTS = Click("a.nav-link[href$='/admin/product/list']")
SAVE = Click("input[type=submit][value=Save]")
LIST_TITLE = Check("h3.card-title", "Products")
# On the list page only after a search (its reset button is enabled then): a demonstration step after
# the search must not act on the list as it was before. (``title=Edit`` cannot be used: Bootstrap's
# tooltip moves the title away.)
SEARCHED = "body:has(#search-reset:not([disabled]))"


def _ids(tables: Tables, **match: object) -> list[object]:
    return [k for k, row in tables["product"].items() if all(row[c] == v for c, v in match.items())]


def _created(tables: Tables, inputs: Mapping[str, str]) -> Change:
    return Change(
        added={
            "product": (
                {
                    "name": inputs["name"],
                    "sku": inputs["sku"],
                    "stock": int(inputs["stock"]),
                    "discontinued": 0,
                },
            )
        }
    )


def _edited(tables: Tables, inputs: Mapping[str, str]) -> Change:
    (key,) = _ids(tables, name=inputs["query"])
    return Change(changed={"product": {key: {"stock": int(inputs["stock"])}}})


def _discontinued(tables: Tables, inputs: Mapping[str, str]) -> Change:
    query = inputs["query"].lower()
    keys = [
        k
        for k, row in tables["product"].items()
        if query in str(row["name"]).lower() or query in str(row["sku"]).lower()
    ]
    return Change(changed={"product": {k: {"discontinued": 1} for k in keys}})


TASKS = (
    Task(
        "create-product",
        "Sign in and create a product",
        "/admin/",
        (
            *SIGN_IN,
            PRODUCTS,
            Click("a[href$='/admin/product/create']"),
            Fill("#name", "name"),
            Fill("#sku", "sku"),
            Fill("#stock", "stock"),
            SAVE,
        ),
        (LIST_TITLE,),
        {**RECORD_USER, "name": "Recorded Ottoman", "sku": "FUR-190", "stock": "5"},
        {**REPLAY_USER, "name": "Replayed Sideboard", "sku": "FUR-290", "stock": "17"},
        _created,
        frozenset({"password"}),
    ),
    Task(
        "edit-product",
        "Sign in, search a product, open it, change its stock and save",
        "/admin/",
        (
            *SIGN_IN,
            PRODUCTS,
            Fill("#search-input", "query"),
            Press("Enter"),
            Click(f"{SEARCHED} a[href*='/admin/product/edit/']"),
            Fill("#stock", "stock"),
            SAVE,
        ),
        (LIST_TITLE,),
        {**RECORD_USER, "query": "Walnut Desk", "stock": "40"},
        {**REPLAY_USER, "query": "Glass Vase", "stock": "61"},
        _edited,
        frozenset({"password"}),
    ),
    Task(
        "bulk-discontinue",
        "Sign in, search products, select all, discontinue them and confirm",
        "/admin/",
        (
            *SIGN_IN,
            PRODUCTS,
            Fill("#search-input", "query"),
            Press("Enter"),
            Click(f"{SEARCHED} #select-all"),
            Click("#dropdownMenuButton"),
            Click("#action-customconfirm-discontinue"),
            Click("#action-custom-modal-discontinue"),
        ),
        (Check("table tbody", "Walnut Desk"),),
        {**RECORD_USER, "query": "Lamp"},
        {**REPLAY_USER, "query": "TEX"},
        _discontinued,
        frozenset({"password"}),
    ),
)

APP = App(
    name="sqladmin",
    source=Path(__file__).resolve().parent / "apps" / "sqladmin",
    versions=(
        Version(
            "0.16.1",
            (
                "sqladmin==0.16.1",
                "starlette==0.37.2",
                "SQLAlchemy==2.0.36",
                "WTForms==3.1.2",
                "Jinja2==3.1.4",
                "python-multipart==0.0.9",
                "itsdangerous==2.2.0",
                "uvicorn==0.30.6",
            ),
        ),
        Version(
            "0.32.0",
            (
                "sqladmin==0.32.0",
                "starlette==1.10.0",
                "SQLAlchemy==2.0.36",
                "WTForms==3.2.2",
                "Jinja2==3.1.6",
                "python-multipart==0.0.34",
                "itsdangerous==2.2.0",
                "uvicorn==0.54.0",
            ),
        ),
    ),
    ready_path="/admin/login",
    tasks=TASKS,
    password_columns={"staff": "password"},
    known_passwords=("Curator-pass-1", "Operator-pass-2"),
)
