"""Django's admin (``django.contrib.admin``), stock, at three major versions: 4.2 LTS, 5.1, 5.2 LTS
(the newest that runs on Python 3.11). The site has one model (a book) and the built-in users.

Markup that changes between them: 5.0 puts the list filters in ``<details>`` and adds
``aria-label``s and ``aria-describedby``; 5.1 adds the "password-based authentication" choice to
the add-user form and more accessible names; 5.2 reworks the add-user page's password fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from .spec import App, Change, Check, Choose, Click, Fill, Press, Tables, Task, Version

SIGN_IN = (
    Fill("#id_username", "username"),
    Fill("#id_password", "password"),
    Click("#login-form input[type=submit]"),
)
RECORD_USER = {"username": "curator", "password": "Curator-pass-1"}
REPLAY_USER = {"username": "operator", "password": "Operator-pass-2"}
SUCCESS = ".messagelist .success"


def _book_id(tables: Tables, **match: object) -> list[object]:
    return [k for k, row in tables["library_book"].items() if all(row[c] == v for c, v in match.items())]


def _created(tables: Tables, inputs: Mapping[str, str]) -> Change:
    return Change(
        added={
            "library_book": (
                {
                    "title": inputs["title"],
                    "author": inputs["author"],
                    "status": inputs["status"],
                    "pages": int(inputs["pages"]),
                },
            )
        }
    )


def _edited(tables: Tables, inputs: Mapping[str, str]) -> Change:
    (key,) = _book_id(tables, title=inputs["query"])
    return Change(changed={"library_book": {key: {"pages": int(inputs["pages"])}}})


def _user_added(tables: Tables, inputs: Mapping[str, str]) -> Change:
    return Change(
        added={
            "auth_user": (
                {
                    "password": f"<password:{inputs['new_password']}>",
                    "is_superuser": 0,
                    "username": inputs["new_user"],
                    "first_name": "",
                    "last_name": "",
                    "email": "",
                    "is_staff": 0,
                    "is_active": 1,
                },
            )
        }
    )


def _bulk_deleted(tables: Tables, inputs: Mapping[str, str]) -> Change:
    return Change(
        removed={"library_book": frozenset(_book_id(tables, author=inputs["query"], status="archived"))}
    )


TASKS = (
    Task(
        "create-book",
        "Sign in and add a book",
        "/admin/",
        (
            *SIGN_IN,
            Click("#content-main a[href='/admin/library/book/add/']"),
            Fill("#id_title", "title"),
            Fill("#id_author", "author"),
            Choose("#id_status", "status"),
            Fill("#id_pages", "pages"),
            Click("input[name=_save]"),
        ),
        (Check(SUCCESS, "was added successfully"),),
        {
            **RECORD_USER,
            "title": "The Recorded Atlas",
            "author": "Rhea Corder",
            "status": "archived",
            "pages": "111",
        },
        {
            **REPLAY_USER,
            "title": "A Replayed Almanac",
            "author": "Paul Player",
            "status": "published",
            "pages": "222",
        },
        _created,
        frozenset({"password"}),
    ),
    Task(
        "edit-book",
        "Sign in, search a book by title, open it, change its page count and save",
        "/admin/",
        (
            *SIGN_IN,
            Click("#content-main th a[href='/admin/library/book/']"),
            Fill("#searchbar", "query"),
            Press("Enter"),
            Click("#changelist:has(#changelist-search .quiet) #result_list th.field-title a"),
            Fill("#id_pages", "pages"),
            Click("input[name=_save]"),
        ),
        (Check(SUCCESS, "was changed successfully"),),
        {**RECORD_USER, "query": "Middlemarch", "pages": "901"},
        {**REPLAY_USER, "query": "Walden", "pages": "360"},
        _edited,
        frozenset({"password"}),
    ),
    Task(
        "add-user",
        "Sign in and add a user with a password",
        "/admin/",
        (
            *SIGN_IN,
            Click("#content-main a[href='/admin/auth/user/add/']"),
            Fill("#id_username", "new_user"),
            Fill("#id_password1", "new_password"),
            Fill("#id_password2", "new_password"),
            Click("input[name=_save]"),
        ),
        (Check(SUCCESS, "was added successfully"),),
        {**RECORD_USER, "new_user": "recorded.reader", "new_password": "Rec-Reader-77x"},
        {**REPLAY_USER, "new_user": "replayed.writer", "new_password": "Rep-Writer-88y"},
        _user_added,
        frozenset({"password", "new_password"}),
    ),
    Task(
        "bulk-delete",
        "Sign in, filter archived books, search an author, select all, delete them and confirm",
        "/admin/",
        (
            *SIGN_IN,
            Click("#content-main th a[href='/admin/library/book/']"),
            Click("#changelist-filter a[href='?status__exact=archived']"),
            Fill("#searchbar", "query"),
            Press("Enter"),
            Click("#action-toggle"),
            Choose("select[name=action]", "action"),
            Click("button[name=index]"),
            Click("#content form input[type=submit][value^=Yes]"),
        ),
        (Check(SUCCESS, "Successfully deleted"),),
        {**RECORD_USER, "query": "Rita Hayes", "action": "delete_selected"},
        {**REPLAY_USER, "query": "Tom Brandt", "action": "delete_selected"},
        _bulk_deleted,
        frozenset({"password"}),
    ),
)

APP = App(
    name="django-admin",
    source=Path(__file__).resolve().parent / "apps" / "django_admin",
    versions=(
        Version("4.2", ("Django==4.2.30",)),
        Version("5.1", ("Django==5.1.15",)),
        Version("5.2", ("Django==5.2.19",)),
    ),
    ready_path="/admin/login/",
    tasks=TASKS,
    ignored_tables=frozenset({"django_session", "django_admin_log"}),
    ignored_columns={"auth_user": frozenset({"last_login", "date_joined"})},
    password_columns={"auth_user": "password"},
    known_passwords=("Curator-pass-1", "Operator-pass-2"),
)
