"""A Django-admin-like site for tests, at an "old" and a "new" version, served by ``LocalServer``.

The markup follows Django's admin (4.2 for "old", 5.x for "new") where issue 10 found skillreel
failing on the real application: ``<input type=submit value=...>`` buttons without id or name
("Log in", "Search", "Yes, I'm sure"), a success message and search results that show what was
typed, three "Add" links that differ only by their ``href`` (and row), a select-all checkbox that
gains an ``aria-label`` in the newer version with its id unchanged, a confirmation page whose hidden
inputs shift with the number of selected rows, and the admin at ``/admin/`` signed into as
``admin``. Forms post to their own paths so a static server can answer; every POST body is in
``server.bodies`` (the click log: what the site would have changed).

    site = AdminSite(server, "old")
    site.serve(books=BOOKS, query="Walden", added="The Recorded Atlas", selected=1)
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qs, quote

from tests.support.server import LocalServer

HEAD = "<!doctype html><html lang=en><head><meta charset=utf-8><title>Site administration</title></head>"


@dataclass(frozen=True)
class Book:
    id: int
    title: str
    author: str


BOOKS = (
    Book(3, "Walden", "Henry Thoreau"),
    Book(4, "Middlemarch", "George Eliot"),
    Book(7, "Walden Two", "B. F. Skinner"),
    Book(9, "Emma", "Jane Austen"),
)


def _page(body: str, *, user: bool = True) -> str:
    tools = (
        '<div id="user-tools">Welcome, <strong>admin</strong>. <a href="/admin/logout/">Log out</a></div>'
        if user
        else ""
    )
    return (
        f'{HEAD}<body><div id="container"><div id="header"><div id="branding"><h1 id="site-name">'
        f'<a href="/admin/">Django administration</a></h1></div>{tools}</div>'
        f'<div id="content" class="colM">{body}</div></div></body></html>'
    )


class AdminSite:
    """One version of the site; ``serve`` (re)sets every route for one phase of a test."""

    def __init__(self, server: LocalServer, version: str) -> None:
        assert version in ("old", "new")
        self.server = server
        self.new = version == "new"

    # ---- pages ---------------------------------------------------------------------------------

    def login(self) -> str:
        row = "form-row" if not self.new else "form-row field-username"
        reset = (
            '<div class="password-reset-link"><a href="/admin/password_reset/">'
            "Forgotten your password?</a></div>"
            if self.new
            else ""
        )
        return _page(
            f"""<div id="content-main">
<form action="/admin/login/post/" method="post" id="login-form">
<input type="hidden" name="csrfmiddlewaretoken" value="t0k3n">
<div class="{row}"><label class="required" for="id_username">Username:</label>
<input type="text" name="username" autofocus autocapitalize="none" autocomplete="username" maxlength="150"
 required id="id_username"></div>
<div class="form-row"><label class="required" for="id_password">Password:</label>
<input type="password" name="password" autocomplete="current-password" required id="id_password">
<input type="hidden" name="next" value="/admin/"></div>
{reset}
<div class="submit-row"><input type="submit" value="Log in"></div>
</form></div>""",
            user=False,
        )

    def _model_row(self, app: str, model: str, plural: str) -> str:
        base = f"/admin/{app}/{model}/"
        described = f' aria-describedby="{app}-{model}"' if self.new else ""
        header = f' id="{app}-{model}"' if self.new else ""
        return (
            f'<tr class="model-{model}"><th scope="row"{header}><a href="{base}">{plural}</a></th>'
            f'<td><a href="{base}add/" class="addlink"{described}>Add</a></td>'
            f'<td><a href="{base}" class="changelink"{described}>Change</a></td></tr>'
        )

    def index(self, *, books: str = "present") -> str:
        """``books``: "present", "gone" (the model is not registered) or "twice" (two such rows)."""
        auth = self._model_row("auth", "group", "Groups") + self._model_row("auth", "user", "Users")
        library = self._model_row("library", "author", "Authors") if self.new else ""
        if books != "gone":
            library += self._model_row("library", "book", "Books") * (2 if books == "twice" else 1)
        wrap = (
            '<div class="app-{0} module"><table><caption><a href="/admin/{0}/" class="section">{1}</a>'
            "</caption>{2}</table></div>"
        )
        return _page(
            '<div id="content-main">'
            + wrap.format("auth", "Authentication and Authorization", auth)
            + wrap.format("library", "Library", library)
            + "</div>"
        )

    def add_book(self) -> str:
        def field(name: str, label: str) -> str:
            control = (
                f'<label class="required" for="id_{name}">{label}:</label>'
                f'<input type="text" name="{name}" class="vTextField" maxlength="200" required '
                f'id="id_{name}">'
            )
            if self.new:
                control = f'<div class="flex-container">{control}</div>'
            return f'<div class="form-row field-{name}"><div>{control}</div></div>'

        buttons = [
            '<input type="submit" value="Save" class="default" name="_save">',
            '<input type="submit" value="Save and add another" name="_addanother">',
            '<input type="submit" value="Save and continue editing" name="_continue">',
        ]
        if self.new:
            buttons = buttons[1:] + buttons[:1]
        return _page(f"""<h1>Add book</h1><div id="content-main">
<form method="post" id="book_form" novalidate action="/admin/library/book/add/post/">
<input type="hidden" name="csrfmiddlewaretoken" value="t0k3n"><div>
<fieldset class="module aligned">{field("title", "Title")}{field("author", "Author")}</fieldset>
<div class="submit-row">{"".join(buttons)}</div></div></form></div>""")

    def changelist(self, books: tuple[Book, ...], *, message: str = "") -> str:
        toggle = (
            '<input type="checkbox" id="action-toggle" aria-label="Select all objects on this page for '
            'an action">'
            if self.new
            else '<input type="checkbox" id="action-toggle">'
        )
        rows = []
        for book in books:
            label = f' aria-label="Select this object for an action - {book.title}"' if self.new else ""
            link = f"/admin/library/book/{book.id}/change/?_changelist_filters=q%3D{quote(book.title)}"
            rows.append(
                f'<tr><td class="action-checkbox"><input type="checkbox" name="_selected_action" '
                f'value="{book.id}" class="action-select"{label}></td><th class="field-title">'
                f'<a href="{link}">{book.title}</a></th>'
                f'<td class="field-author">{book.author}</td></tr>'
            )
        messages = f'<ul class="messagelist"><li class="success">{message}</li></ul>' if message else ""
        search = (
            '<form id="changelist-search" method="get" action="/admin/library/book/"><div>'
            '<label for="searchbar"><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="Search">'
            '</label><input type="text" size="40" name="q" value="" id="searchbar">'
            '<input type="submit" value="Search"></div></form>'
        )
        if self.new:
            search = f"<search>{search}</search>"
        script = """<script>
document.getElementById("action-toggle").addEventListener("click", (e) => {
  for (const box of document.querySelectorAll(".action-select")) box.checked = e.target.checked;
});</script>"""
        return _page(f"""{messages}<h1>Select book to change</h1><div id="content-main">
<div class="module filtered" id="changelist"><div id="toolbar">{search}</div>
<form id="changelist-form" method="post" action="/admin/library/book/action/" novalidate>
<input type="hidden" name="csrfmiddlewaretoken" value="t0k3n">
<div class="actions"><label>Action: <select name="action" required>
<option value="" selected>---------</option><option value="delete_selected">Delete selected books</option>
</select></label><input type="hidden" name="select_across" value="0" class="select-across">
<button type="submit" class="button" title="Run the selected action" name="index" value="0">Go</button></div>
<div class="results"><table id="result_list"><thead><tr>
<th scope="col" class="action-checkbox-column"><div class="text"><span>{toggle}</span></div></th>
<th scope="col" class="sortable column-title"><div class="text"><a href="?o=1">Title</a></div></th>
<th scope="col" class="column-author"><div class="text"><span>Author</span></div></th></tr></thead>
<tbody>{"".join(rows)}</tbody></table></div></form></div></div>{script}""")

    def confirm(self, books: tuple[Book, ...]) -> str:
        hidden = "".join(f'<input type="hidden" name="_selected_action" value="{b.id}">' for b in books)
        items = "".join(
            f'<li>Book: <a href="/admin/library/book/{b.id}/change/">{b.title}</a></li>' for b in books
        )
        return _page(f"""<h1>Are you sure?</h1><div id="content-main">
<p>Are you sure you want to delete the selected books? All of the following objects will be deleted:</p>
<ul>{items}</ul>
<form method="post" action="/admin/library/book/delete/"><div>
<input type="hidden" name="csrfmiddlewaretoken" value="t0k3n">{hidden}
<input type="hidden" name="action" value="delete_selected"><input type="hidden" name="post" value="yes">
<input type="submit" value="Yes, I’m sure">
<a href="/admin/library/book/" class="button cancel-link">No, take me back</a></div></form></div>""")

    # ---- routes ----------------------------------------------------------------------------------

    def redirect(self, path: str, to: str) -> None:
        self.server.set_route(path, status=302, headers={"Location": to})

    def serve(self, *, query: str = "", added: str = "", books: str = "present") -> None:
        """Every route for one phase: ``query`` is what the search will be for (the confirmation page
        lists the books it finds), ``added`` the title the add form will post (the success message
        shows it), ``books`` how the index lists the book model."""
        found = tuple(b for b in BOOKS if query and query.lower() in b.title.lower())
        s = self.server
        s.set_page("/admin/login/", self.login())
        self.redirect("/admin/login/post/", "/admin/")
        s.set_page("/admin/", self.index(books=books))
        s.set_page("/admin/library/book/add/", self.add_book())
        self.redirect("/admin/library/book/add/post/", "/admin/library/book/?added=1")
        s.set_page(
            "/admin/library/book/?added=1",
            self.changelist(
                BOOKS,
                message=f'The book “<a href="/admin/library/book/12/change/">{added}</a>” was added '
                "successfully.",
            ),
        )
        s.set_page("/admin/library/book/", self.changelist(BOOKS))
        s.set_page(f"/admin/library/book/?q={quote(query, safe='')}", self.changelist(found))
        s.set_page(f"/admin/library/book/?q={query.replace(' ', '+')}", self.changelist(found))
        s.set_page("/admin/library/book/action/", self.confirm(found))
        for book in BOOKS:
            s.set_page(
                f"/admin/library/book/{book.id}/change/",
                _page(
                    f'<h1>Change book</h1><div id="content-main"><form method="post">'
                    f'<input type="text" name="title" value="{book.title}" id="id_title"></form></div>'
                ),
            )
        self.redirect("/admin/library/book/delete/", "/admin/library/book/?deleted=1")
        s.set_page(
            "/admin/library/book/?deleted=1",
            self.changelist(
                tuple(b for b in BOOKS if b not in found),
                message=f"Successfully deleted {len(found)} book{'s' if len(found) != 1 else ''}.",
            ),
        )


def posts(server: LocalServer) -> list[tuple[str, dict[str, list[str]]]]:
    """Every POST the site received: (path, form fields)."""
    out = []
    for (method, path), body in zip(server.requests, server.bodies, strict=True):
        if method == "POST":
            out.append((path, parse_qs(body.decode(), keep_blank_values=True)))
    return out
