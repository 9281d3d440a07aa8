"""Menus that open on hover (issue 32.1): a CSS ``:hover`` rule and a ``mouseenter`` handler, each
with a redesign (new ids and classes, another menu before it). Each item, clicked, writes what it
did into ``#done``."""

from __future__ import annotations


def page_html(body: str, head: str = "") -> str:
    return f"<!doctype html><html><head><meta charset=utf-8>{head}</head><body>{body}</body></html>"


_DONE = "<p id=done></p><script>function done(t){document.getElementById('done').textContent=t;}</script>"

CSS_MENU = page_html(
    "<nav><ul class=bar><li class=menu id=account>Account<ul class=sub>"
    "<li><a href=# id=refund onclick=\"done('refund opened');return false\">Refund</a></li>"
    "</ul></li></ul></nav>" + _DONE,
    "<style>.sub{display:none}.menu:hover .sub{display:block}</style>",
)
CSS_MENU_REDESIGN = page_html(  # new ids and classes, a second menu before it
    "<nav><ul class=navbar><li class='menu nav-item'>Help<ul class=sub><li><a href=#>Docs</a></li></ul></li>"
    "<li class='menu nav-item' id=acct-menu>Account<ul class=sub>"
    "<li><a href=# id=refund-link onclick=\"done('refund opened');return false\">Refund</a></li>"
    "</ul></li></ul></nav>" + _DONE,
    "<style>.sub{display:none}.menu:hover .sub{display:block}</style>",
)

_JS = (
    "<script>for(const t of document.querySelectorAll('[data-menu]')){"
    "const p=t.querySelector('[data-panel]');"
    "t.addEventListener('mouseenter',()=>{p.hidden=false});t.addEventListener('mouseleave',()=>{p.hidden=true});}"
    "</script>"
)
JS_MENU = page_html(
    "<div id=tools data-menu>Tools<div data-panel hidden>"
    "<button id=export onclick=\"done('export started')\">Export</button></div></div>" + _DONE + _JS
)
JS_MENU_REDESIGN = page_html(  # new ids and classes, another menu before it
    "<div id=view data-menu class=trigger>View<div data-panel hidden><button>Zoom</button></div></div>"
    "<div id=tools-menu data-menu class=trigger>Tools<div data-panel hidden>"
    "<button id=export-btn onclick=\"done('export started')\">Export</button></div></div>" + _DONE + _JS
)
