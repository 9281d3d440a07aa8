"""The desk site of the popup and download tests (issue 32.3, 32.4), served on a local server:
two versions of a redesign (other markup, the same words), a help tab (``target=_blank``), a report
window (``window.open``) and a receipt download whose suggested name tries to leave the directory."""

from __future__ import annotations

from typing import Any

from tests.support.server import LocalServer


def page_html(body: str) -> str:
    return f"<!doctype html><html><head><meta charset=utf-8></head><body>{body}</body></html>"


RECEIPT = b"receipt 7: 42.00 EUR\n" * 8
DESK_V1 = page_html(
    """
<h1>Desk</h1>
<a id=help href="/help" target=_blank>Open help</a>
<button id=report onclick="window.open('/report', 'report', 'width=600,height=400')">Open report</button>
<a id=receipt href="/receipt">Download receipt</a>
"""
)
# The redesign: other ids, classes and wrappers; the same roles and words.
DESK_V2 = page_html(
    """
<header class=top><h1>Desk</h1></header>
<nav class=actions><ul>
  <li><span><a class="lnk help-link" href="/help" target=_blank>Open help</a></span></li>
  <li><span><button class=btn type=button onclick="window.open('/report', 'r2')">Open report</button>
  </span></li>
  <li><span><a class="lnk dl" href="/receipt">Download receipt</a></span></li>
</ul></nav>
"""
)
HELP = page_html(
    """
<h1>Help</h1>
<form action="/sent"><label>Ticket <input name=ticket id=ticket></label>
<button id=send>Send</button></form>
"""
)
REPORT = page_html('<h1>Report</h1><a id=approve href="/approved">Approve</a>')
DONE = page_html("<p>Done</p>")

POPUP_STEPS: list[dict[str, Any]] = [
    {"do": "click", "selector": "#help"},
    {"do": "page", "to": "popup"},
    {"do": "type", "selector": "#ticket", "text": "T-1"},
    {"do": "click", "selector": "#send"},
    {"do": "page", "to": "main", "close": True},
    {"do": "click", "selector": "#report"},
    {"do": "page", "to": "popup"},
    {"do": "click", "selector": "#approve"},
    {"do": "page", "to": "main"},
    {"do": "click", "selector": "#receipt", "download": "receipt"},
]


def serve(server: LocalServer, desk: str, *, receipt: bool = True) -> str:
    server.set_page("/desk", desk)
    server.set_page("/help", HELP)
    server.set_page("/sent", DONE)
    server.set_page("/report", REPORT)
    server.set_page("/approved", DONE)
    headers = {
        "Content-Type": "text/plain",
        "Content-Disposition": 'attachment; filename="../../.receipt.txt"',
    }
    if receipt:
        server.set_route("/receipt", body=RECEIPT, headers=headers)
    else:  # a page, not a download
        server.set_page("/receipt", DONE)
    return server.url("/desk")
