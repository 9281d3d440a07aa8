"""Flask-Admin's stock model views (list with search, create, edit, a bulk action) at 1.6.1, whose
pages use the Bootstrap 3 templates, and at 2.2.1, which dropped them for Bootstrap 4: different
navigation, form layout, buttons and dropdowns around the same fields. No sign-in: Flask-Admin has
none of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from .spec import App, Change, Check, Click, Fill, Press, Tables, Task, Version

SUCCESS = ".alert-success"


def _ids(tables: Tables, **match: object) -> list[object]:
    return [k for k, row in tables["customer"].items() if all(row[c] == v for c, v in match.items())]


def _created(tables: Tables, inputs: Mapping[str, str]) -> Change:
    return Change(
        added={
            "customer": (
                {"name": inputs["name"], "email": inputs["email"], "city": inputs["city"], "active": 1},
            )
        }
    )


def _edited(tables: Tables, inputs: Mapping[str, str]) -> Change:
    (key,) = _ids(tables, name=inputs["query"])
    return Change(changed={"customer": {key: {"email": inputs["email"]}}})


def _deactivated(tables: Tables, inputs: Mapping[str, str]) -> Change:
    keys = _ids(tables, city=inputs["query"], active=1)
    return Change(changed={"customer": {k: {"active": 0} for k in keys}})


TASKS = (
    Task(
        "create-customer",
        "Create a customer",
        "/admin/customer/",
        (
            Click("a[title='Create New Record']"),
            Fill("#name", "name"),
            Fill("#email", "email"),
            Fill("#city", "city"),
            Click("input[type=submit][value=Save]"),
        ),
        (Check(SUCCESS, "successfully created"),),
        {"name": "Rhea Corder", "email": "rhea@corder.example", "city": "Lyon"},
        {"name": "Paul Player", "email": "paul@player.example", "city": "Ghent"},
        _created,
    ),
    Task(
        "edit-customer",
        "Search a customer by name, open it, change the email and save",
        "/admin/customer/",
        (
            Fill("input[name=search]", "query"),
            Press("Enter"),
            Click("a[title='Edit Record']"),
            Fill("#email", "email"),
            Click("input[type=submit][value=Save]"),
        ),
        (Check(SUCCESS, "successfully saved"),),
        {"query": "Chiara Neri", "email": "chiara.neri@mail.example"},
        {"query": "Kofi Mensah", "email": "kofi.mensah@mail.example"},
        _edited,
    ),
    Task(
        "bulk-deactivate",
        "Search customers by city, select all, and deactivate them",
        "/admin/customer/",
        (
            Fill("input[name=search]", "query"),
            Press("Enter"),
            Click("input.action-rowtoggle"),
            Click("a.dropdown-toggle:has-text('With selected')"),
            Click("a[onclick*=deactivate]"),
        ),
        (Check(SUCCESS, "were deactivated"),),
        {"query": "Porto"},
        {"query": "Riga"},
        _deactivated,
    ),
)

APP = App(
    name="flask-admin",
    source=Path(__file__).resolve().parent / "apps" / "flask_admin",
    versions=(
        Version(
            "1.6.1",
            (
                "Flask-Admin==1.6.1",
                "Flask==2.3.3",
                "Werkzeug==2.3.8",
                "WTForms==3.0.1",
                "Flask-SQLAlchemy==3.0.5",
                "SQLAlchemy==2.0.36",
            ),
        ),
        Version(
            "2.2.1",
            (
                "Flask-Admin==2.2.1",
                "Flask==3.1.3",
                "Werkzeug==3.1.9",
                "WTForms==3.2.1",
                "Flask-SQLAlchemy==3.1.1",
                "SQLAlchemy==2.0.36",
            ),
        ),
    ),
    ready_path="/admin/customer/",
    tasks=TASKS,
)
