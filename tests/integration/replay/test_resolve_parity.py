"""resolve.js and heal.py agree: the in-page comparison equals the Python twin over fingerprints
that fingerprint.js produces, for every pair of elements of a varied page; resolve.js hashes the
same attributes as fingerprint.js; and the page cannot steer resolution from its own world."""

from __future__ import annotations

from typing import Any

import pytest

from skillreel.locate import heal, resolve_world_script
from skillreel.locate.probe import comparison_from_json
from skillreel.locate.similarity import WEIGHTS, compare, similarity
from skillreel.model.locators import Fingerprint, LocatorBundle
from skillreel.replay.driver import PlaywrightDriver
from skillreel.sandbox.cold import browser_session
from tests.support.factory import SALT, url_environment
from tests.support.server import LocalServer

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><html><body><main>
<form id="f"><label for="a">Email</label><input id="a" name="email" class="x y" placeholder="you@x"
  autocomplete="email">
<label>Wrapped <input name="wrapped" type="search"></label>
<span id="lab">Labelled by</span><input aria-labelledby="lab" title="t">
<input aria-label="Aria name" type="checkbox">
<select name="s"><option>1</option></select><textarea name="t" placeholder="p"></textarea>
<button id="b1" class="btn">Save</button><button class="btn" type="button">Save</button>
<button type="reset" role="tab" title="Reset" data-testid="r">Reset</button></form>
<nav><a href="/x" class="l">Link</a><a>No href</a><a href="/y" alt="a" data-test="t">Other</a></nav>
<div><div><div><span><button name="deep">Deep</button></span></div></div></div>
<img alt="Logo" src="data:,"><input type="submit" value="Go" data-skillreel="go" for="z">
<input type="submit" value="Go" aria-label="Go now"><input type="reset"><input type="button" value="Run">
<table><tr><th scope="row">Groups</th><td><a href="/admin/auth/group/add/">Add</a></td>
  <td><a href="/admin/auth/group/?o=1&amp;q=x">Change</a></td></tr>
<tr><th>Users</th><td><a href="/admin/auth/user/add/" aria-label="Add user">Add</a></td>
  <td><a href="/admin/auth/user/12/change/?_changelist_filters=q%3Dx">Change</a></td></tr>
<tr><td><input type="checkbox" id="dup" aria-label="Pick"></td><td>Row three</td></tr>
<tr><td><input type="checkbox" id="dup"></td><td><span aria-label="Inner">x</span> four</td></tr></table>
<a href="https://other.example/x/">Away</a><a href="mailto:a@b.c">Mail</a>
<span id="n1">Named</span><button aria-labelledby="n1 b1">Icon</button>
<fieldset><legend>Legend</legend><input type="radio" title="r" name="pick"><input type="radio" name="pick">
<input type="search" name="find" placeholder="Search: name" class="a"></fieldset>
<input type="text" name="find2" placeholder="name, city" class="b">
<button class="cta">Log in</button>
<button class="cta">Log in <i class="material-icons">arrow_forward</i></button>
<button>Log in <span class="glyph" style="font-family: 'Material Symbols Outlined'">login</span></button>
<button>Log in now</button><button><span aria-hidden="true">close</span></button>
<input type="submit" value="Log in"><label>Country <select name="c"><option>France</option></select></label>
<dl><dt>Subtotal</dt><dd id="sub">$10</dd><div><dt>Total</dt><dd>$12</dd></div></dl>
<table><thead><tr><th>Order</th><th>Amount</th></tr></thead>
<tbody><tr><td><a href="#/order/7/">7</a></td><td>$3</td></tr><tr><td><a href="#">8</a></td><td>$4</td></tr>
<tr><td><a href="#!/category/2/">c</a></td><td><span>$5</span></td></tr></tbody></table>
<div><span>Status</span><strong id="st">Open</strong></div><div><b>Due</b><div><em>soon</em></div></div>
</main></body></html>"""

ALL_ATTRIBUTES = (
    '<button id="i" name="n" class="c" placeholder="p" aria-label="a" title="t" alt="a" '
    'for="f" href="h" role="button" autocomplete="off" data-testid="d" data-test="d" '
    'data-skillreel="d" type="button">All</button>'
)

PAIRS = """([src, salt, weights, floor]) => {
  (0, eval)(src);
  const els = Array.from(document.querySelectorAll("main *"));
  const out = [];
  for (const a of els) {
    const rec = SkillreelLocate.features(a, salt);
    for (const b of els) {
      const c = SkillreelResolve.compare(rec, b, SkillreelResolve.context(salt), weights, null);
      const pruned = SkillreelResolve.compare(rec, b, SkillreelResolve.context(salt), weights, floor);
      out.push({rec, observed: SkillreelLocate.features(b, salt), comparison: c.comparison, score: c.score,
                pruned: pruned && pruned.score,
                names: Array.from(SkillreelResolve.context(salt).otherNames(b).entries())});
    }
  }
  return out;
}"""


async def evaluate(server: LocalServer, html: str, expression: str, arg: Any) -> Any:
    server.set_page("/p", html)
    async with browser_session(url_environment(server.url("/p"))) as session:
        await session.goto_start()
        return await session.page.evaluate(expression, arg)


async def test_in_page_comparison_equals_the_python_twin(server: LocalServer) -> None:
    arg = [resolve_world_script(), SALT, WEIGHTS.to_json(), heal.FLOOR]
    rows = await evaluate(server, PAGE, PAIRS, arg)
    assert len(rows) > 400
    states = {
        (key, str(row["comparison"][key]))
        for row in rows
        for key in ("name", "value", "link", "row", "caption", "stableId", "stableName")
    }
    for key in ("name", "value", "link", "row", "caption"):
        assert {(key, "same"), (key, "changed"), (key, "absent")} <= states, key
    assert {
        ("name", "alias"),
        ("name", "contains"),
        ("stableId", "True"),
        ("stableId", "False"),
        ("stableName", "True"),
        ("stableName", "False"),
    } <= states
    for row in rows:
        rec, observed = Fingerprint.parse(row["rec"]), Fingerprint.parse(row["observed"])
        expected = compare(rec, observed, other_names=dict(row["names"]))
        assert comparison_from_json(row["comparison"]) == expected, (row["rec"], row["observed"])
        assert row["score"] == pytest.approx(similarity(rec, expected), abs=1e-6)
        if row["score"] >= heal.FLOOR:  # pruning never drops an element that can matter
            assert row["pruned"] == pytest.approx(row["score"], abs=1e-9)
        else:
            assert row["pruned"] is None


async def test_resolve_js_compares_every_attribute_fingerprint_js_hashes(server: LocalServer) -> None:
    expression = """([src, salt, weights]) => {
      (0, eval)(src);
      const el = document.querySelector("button");
      const rec = SkillreelLocate.features(el, salt);
      const c = SkillreelResolve.compare(rec, el, SkillreelResolve.context(salt), weights, null);
      return [Object.keys(rec.attributes), c.comparison.attributes];
    }"""
    hashed, compared = await evaluate(
        server,
        f"<html><body>{ALL_ATTRIBUTES}</body></html>",
        expression,
        [resolve_world_script(), SALT, WEIGHTS.to_json()],
    )
    assert len(hashed) == 15
    assert compared == dict.fromkeys(hashed, "same")


async def test_a_hostile_page_cannot_steer_resolution(server: LocalServer) -> None:
    """The page patches DOM prototypes and plants its own SkillreelResolve in its main world; the
    isolated world sees the real DOM and acts on the real element."""
    recorded = """<html><body><form><button id="save" class="btn">Save</button>
    <button id="other" class="btn">Delete</button></form></body></html>"""
    hostile = recorded.replace(
        "</form>",
        """</form><script>
      window.SkillreelResolve = {call: () => ({token: "x", hits: [], observed: [], pool: []})};
      window.SkillreelLocate = null;
      const real = Element.prototype.getAttribute;
      Element.prototype.getAttribute = function (n) { return n === "id" ? "save" : real.call(this, n); };
      Document.prototype.querySelectorAll = function () { return [document.getElementById("other")]; };
    </script>""",
    )
    describe = """([src, salt]) => {
      (0, eval)(src);
      return SkillreelLocate.describe(document.querySelector("#save"), salt);
    }"""
    bundle = LocatorBundle.parse(await evaluate(server, recorded, describe, [resolve_world_script(), SALT]))
    server.set_page("/p", hostile)
    async with browser_session(url_environment(server.url("/p"))) as session:
        await session.goto_start()
        driver = PlaywrightDriver(session)
        probe = await driver.probe(bundle, salt=SALT)
        decision = heal.decide(bundle.fingerprint, probe, allow_heal=True)
        assert (decision.outcome, decision.rank) == ("exact", 0)
        assert decision.element is not None
        picked = await driver.pick(probe, decision.element, salt=SALT, describe=False)
        assert picked is not None
        assert picked.fingerprint == bundle.fingerprint
        marked = session.page.locator(f"[{driver._locating.attr}]")  # Playwright's own (utility) world
        assert await marked.count() == 1
        assert await marked.get_attribute("id") == "save"
        await driver.release()
        assert await marked.count() == 0
