"""What element.js reads of an element, as people read it (issue 28): icon-font ligatures and
aria-hidden icons are no part of a name; a <select>'s label never holds its options; the caption
of a value (its <dt>, column header, label, a label-like text before it); the route of a hash-route
link. Evaluated in real Chromium on a local page (the texts are compared here in clear: they are
hashed before anything is stored)."""

from __future__ import annotations

from typing import Any

import pytest

from skillreel.locate import locate_script
from skillreel.sandbox.cold import browser_session
from tests.support.factory import url_environment
from tests.support.server import LocalServer

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><html><head><style>.sym { font-family: "Material Symbols Rounded"; }</style>
</head><body><main>
<button id="b1">Log in <i class="material-icons">arrow_forward</i></button>
<button id="b2">Log in <span class="sym">login</span></button>
<button id="b3">Log in <span aria-hidden="true">→</span></button>
<button id="b4"><i class="material-icons">delete</i></button>
<button id="b5">Save draft</button>
<button id="b6">Open <span class="badge">new</span></button>
<label id="l1">Country <select id="s1"><option>France</option><option>Spain</option></select></label>
<dl><dt>Subtotal</dt><dd id="d1">$10</dd>
<div><dt>Total</dt><dd id="d2">$12</dd><dd id="d3">incl. tax</dd></div></dl>
<table><thead><tr><th>Order</th><th colspan="2">Amount</th><th>State</th></tr></thead>
<tbody><tr><td>1007</td><td>$3</td><td>USD</td><td><span id="c1">open</span></td></tr></tbody></table>
<div><span>Status</span><strong id="p1">Open</strong></div>
<div><b>Due</b><div><em id="p2">soon</em></div></div>
<div><button>Go</button><em id="p3">nothing</em></div>
<p>Total: <span id="t1">$5</span></p><p><span id="t2">$6</span> due</p>
<span id="lab">Balance</span><output id="o1" aria-labelledby="lab">$1</output>
<a id="r1" href="#/product/12/">P</a><a id="r2" href="#!/category/abc/">C</a><a id="r3" href="#">N</a>
<a id="r4" href="#top">T</a><a id="r5" href="/shop/12/">S</a>
<a id="r6" href="#/ticket">T</a><a id="r7" href="#/">H</a>
</main></body></html>"""

READ = """([src]) => {
  (0, eval)(src);
  const L = SkillreelLocate, $ = (id) => document.getElementById(id);
  const norm = L.normText;
  const out = {};
  for (const id of ["b1", "b2", "b3", "b4", "b5", "b6"]) out[id] = norm(L.accessibleName($(id)));
  out.s1 = [norm(L.accessibleName($("s1"))), norm(L.labelText($("s1")))];
  const captioned = ["d1", "d2", "d3", "c1", "p1", "p2", "p3", "o1", "b5", "t1", "t2"];
  for (const id of captioned) out["cap-" + id] = norm(L.captionText($(id)));
  for (const id of ["r1", "r2", "r3", "r4", "r5", "r6", "r7"]) out["route-" + id] = L.linkRoute($(id));
  return out;
}"""


async def read(server: LocalServer) -> dict[str, Any]:
    server.set_page("/p", PAGE)
    async with browser_session(url_environment(server.url("/p"))) as session:
        await session.goto_start()
        result: dict[str, Any] = await session.page.evaluate(READ, [locate_script()])
        return result


async def test_names_captions_and_routes_as_people_read_them(server: LocalServer) -> None:
    out = await read(server)
    assert (out["b1"], out["b2"], out["b3"]) == ("log in", "log in", "log in")
    assert out["b4"] == "delete"  # an icon-only button is named by its glyph's word
    assert (out["b5"], out["b6"]) == ("save draft", "open new")  # ordinary words stay
    assert out["s1"] == ["country", "country"]  # never the options' text
    assert (out["cap-d1"], out["cap-d2"], out["cap-d3"]) == ("subtotal", "total", "total")
    assert out["cap-c1"] == "state"  # the column header, across a colspan
    assert (out["cap-p1"], out["cap-p2"], out["cap-p3"]) == ("status", "due", "")  # a button is no label
    assert out["cap-o1"] == "balance"
    assert out["cap-b5"] == ""
    assert (out["cap-t1"], out["cap-t2"]) == ("total", "")  # the text before it; not a wrapper's
    routes = [out[f"route-r{i}"] for i in range(1, 8)]  # a trailing slash is the same route
    assert routes == ["#/product/*", "#!/category/abc", "#", "", "", "#/ticket", "#/"]
