"""Piccolo Admin (a Vue single-page admin on Starlette/FastAPI, bundled built assets, Piccolo ORM on
SQLite) at 0.58.0 (Vue 2) and 1.14.0 (Vue 3): hash routes (``#/ticket`` became ``#/ticket/``), its
own sign-in page, a filter sidebar (1.x adds a match operator beside each text filter), row menus
behind an icon-only link, a foreign-key picker that opens a modal with a search box and a list of
result links, and ``<select>`` fields whose option order changed (1.x sorts by label). Icons are
inline Font Awesome SVGs in both, of different releases.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from .spec import App, Change, Check, Choose, Click, Fill, Tables, Task, Version

SIGN_IN = (
    Fill("#login input[name=username]", "username"),
    Fill("#login input[name=password]", "password"),
    Click("#login form button"),
)
RECORD_USER = {"username": "curator", "password": "Curator-pass-1"}
REPLAY_USER = {"username": "operator", "password": "Operator-pass-2"}
TICKETS = Click(".table_list a[href='#/ticket']")
# The list's title bar: Add Row, Sort, Show filters, Export CSV (links without ids).
SHOW_FILTERS = Click(".title_bar .buttons a.button:nth-of-type(3)")
FILTER_BY_TITLE = (
    SHOW_FILTERS,
    Fill(".filter_wrapper input[name=title]", "query"),
    Click(".filter_wrapper form > button"),
)
# The list once the filter has left exactly one row (a header row, then one data row): a step after
# the filter must not act on the list as it was before.
ONE_ROW = ".table_wrapper table tr:nth-of-type(2):last-of-type"
# The team picker: the field opens a modal with a search box; once the search has left one team the
# list holds "None" and that team.
TEAM_FIELD = ".key_search input[placeholder=None]"
TEAM_SEARCH = ".key_search #overlay input[type=search]"
ONE_TEAM = ".key_search .results_list:not(:has(li:nth-of-type(3))) li:nth-of-type(2) a"
PICK_TEAM = (Click(TEAM_FIELD), Fill(TEAM_SEARCH, "team"), Click(ONE_TEAM))
SAVE = Click("form:has(input[name=estimate]) > button")
# "Successfully added row" shows for 3 s only: shorter than a demonstration's pauses. A created row
# is checked on the list the form's Back link leads to, a saved row on its edit page.
BACK = Click(".inner > p > a[href='#']")
LISTED = Check(".title_bar h1", "ticket")
SAVED = Check(".header h1", "Edit ticket")

TEAMS = {"Billing": 1, "Hardware": 2, "Network": 3, "Accounts": 4}
# A priority is stored as its value; replay inputs name it by its label, as a person would.
PRIORITIES = {"Low": "l", "Normal": "n", "High": "h", "Urgent": "u"}


def _priority(given: str) -> str:
    return PRIORITIES.get(given, given)


def _ticket(tables: Tables, title: str) -> object:
    (key,) = [k for k, row in tables["ticket"].items() if title.lower() in str(row["title"]).lower()]
    return key


def _created(tables: Tables, inputs: Mapping[str, str]) -> Change:
    row = {
        "title": inputs["title"],
        "team": TEAMS[inputs["team"]],
        "priority": _priority(inputs["priority"]),
        "estimate": int(inputs["estimate"]),
    }
    return Change(added={"ticket": (row,)})


def _prioritised(tables: Tables, inputs: Mapping[str, str]) -> Change:
    key = _ticket(tables, inputs["query"])
    return Change(changed={"ticket": {key: {"priority": _priority(inputs["priority"])}}})


def _reassigned(tables: Tables, inputs: Mapping[str, str]) -> Change:
    key = _ticket(tables, inputs["query"])
    return Change(changed={"ticket": {key: {"team": TEAMS[inputs["team"]]}}})


TASKS = (
    Task(
        "create-ticket",
        "Sign in, add a ticket: its team from the picker's search, its priority from the list",
        "/",
        (
            *SIGN_IN,
            TICKETS,
            Click(".title_bar a.button[href='#/ticket/add']"),
            Fill("form:has(input[name=estimate]) input[name=title]", "title"),
            *PICK_TEAM,
            Choose("form:has(input[name=estimate]) select[name=priority]", "priority"),
            Fill("form:has(input[name=estimate]) input[name=estimate]", "estimate"),
            Click("form:has(input[name=estimate]) > button"),
            BACK,
        ),
        (LISTED,),
        {**RECORD_USER, "title": "Monitor flickers", "team": "Hardware", "priority": "h", "estimate": "2"},
        {
            **REPLAY_USER,
            **{"title": "Card declined twice", "team": "Billing", "priority": "Urgent", "estimate": "3"},
        },
        _created,
        frozenset({"password"}),
    ),
    Task(
        "set-priority",
        "Sign in, filter tickets by title, open the row's menu, edit, choose a priority and save",
        "/",
        (
            *SIGN_IN,
            TICKETS,
            *FILTER_BY_TITLE,
            Click(f"{ONE_ROW} td:last-child a.subtle"),
            Click(f"{ONE_ROW} #drop_down_menu a[title='Edit Row']"),
            Choose("form:has(input[name=estimate]) select[name=priority]", "priority"),
            SAVE,
        ),
        (SAVED,),
        {**RECORD_USER, "query": "VPN", "priority": "l"},
        {**REPLAY_USER, "query": "Refund", "priority": "High"},
        _prioritised,
        frozenset({"password"}),
    ),
    Task(
        "reassign-ticket",
        "Sign in, filter tickets by title, open the row by its link, pick another team and save",
        "/",
        (
            *SIGN_IN,
            TICKETS,
            *FILTER_BY_TITLE,
            Click(f"{ONE_ROW} td:nth-child(2) a"),
            *PICK_TEAM,
            SAVE,
        ),
        (SAVED,),
        {**RECORD_USER, "query": "Printer", "team": "Network"},
        {**REPLAY_USER, "query": "Wi-Fi", "team": "Accounts"},
        _reassigned,
        frozenset({"password"}),
    ),
)

# Pinned alike on both versions: the rest of the resolved environment.
SHARED_PINS = (
    "aiofiles==25.1.0",
    "aiosqlite==0.22.1",
    "anyio==4.16.0",
    "asyncpg==0.32.0",
    "black==26.10.1",
    "certifi==2026.10.19.post1",
    "click==8.5.1",
    "colorama==0.4.6",
    "dnspython==2.9.2",
    "docstring_parser==0.18.0",
    "email-validator==2.4.0",
    "h11==0.16.0",
    "h2==4.4.1",
    "hpack==4.2.0",
    "httpcore==1.0.9",
    "httpx==0.29.0",
    "Hypercorn==0.18.0",
    "hyperframe==6.1.0",
    "idna==3.20",
    "inflection==0.5.1",
    "Jinja2==3.1.6",
    "MarkupSafe==3.0.4",
    "mypy_extensions==1.2.0",
    "packaging==26.4",
    "pathspec==1.1.1",
    "platformdirs==4.14.9",
    "priority==2.0.0",
    "PyJWT==2.15.1",
    "python-multipart==0.0.34",
    "pytokens==0.4.1",
    "targ==0.7.0",
    "typing_extensions==4.16.0",
    "uvicorn==0.55.0",
    "wsproto==1.3.2",
)

APP = App(
    name="piccolo-admin",
    source=Path(__file__).resolve().parent / "apps" / "piccolo_admin",
    versions=(
        Version(
            "0.58.0",
            (
                "piccolo-admin==0.58.0",
                "fastapi==0.99.1",
                "piccolo==0.121.0",
                "piccolo-api==0.58.0",
                "pydantic==1.10.27",
                "starlette==0.27.0",
                *SHARED_PINS,
            ),
        ),
        Version(
            "1.14.0",
            (
                "piccolo_admin==1.14.0",
                "annotated-doc==0.0.7",
                "annotated-types==0.8.0",
                "fastapi==0.165.0",
                "opentelemetry-api==1.45.2",
                "piccolo==1.38.0",
                "piccolo_api==1.11.0",
                "pydantic==2.14.4",
                "pydantic_core==2.50.5",
                "starlette==1.10.0",
                "typing-inspection==0.4.5",
                *SHARED_PINS,
            ),
        ),
    ),
    ready_path="/",
    tasks=TASKS,
    ignored_tables=frozenset({"sessions"}),
    ignored_columns={"piccolo_user": frozenset({"last_login"})},
)
