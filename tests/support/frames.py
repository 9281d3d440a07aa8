"""A same-origin frame page and its elements described by fingerprint.js inside the frame, and the
``/clicked`` log of a local server: shared by the frame tests of replay (tests/integration/replay)."""

from __future__ import annotations

import html
from urllib.parse import parse_qs, urlsplit

from skillreel.locate import locate_script
from skillreel.model.locators import LocatorBundle
from skillreel.sandbox.cold import browser_session
from tests.support.factory import SALT, url_environment
from tests.support.server import LocalServer


def clicks(server: LocalServer) -> list[dict[str, list[str]]]:
    return [parse_qs(urlsplit(path).query) for _, path in server.requests if path.startswith("/clicked")]


FRAME_DOC = (
    "<label for=t>Title</label><input id=t name=title>"
    "<button id=ok type=button onclick=\"fetch('/clicked?which=store&title=' + "
    "encodeURIComponent(document.getElementById('t').value))\">Store</button>"
)


def frame(inner: str, frame_id: str) -> str:
    return (
        f'<iframe id="{frame_id}" srcdoc="{html.escape(inner, quote=True)}" '
        'style="width:400px;height:120px"></iframe>'
    )


def framed(inner: str, *, frame_id: str = "editor", extra: str = "") -> str:
    body = f"<main><h1>Edit</h1>{frame(inner, frame_id)}{extra}</main>"
    return f"<!doctype html><html><body>{body}</body></html>"


DESCRIBE_IN_FRAME = """([src, salt, selectors]) => {
  const L = (0, eval)(src + "\\n;SkillreelLocate");
  const out = {};
  for (const [key, selector] of Object.entries(selectors)) {
    out[key] = L.describe(document.querySelector(selector), salt);
  }
  return out;
}"""


async def describe_in_frame(server: LocalServer) -> dict[str, LocatorBundle]:
    server.set_page("/edit", framed(FRAME_DOC))
    async with browser_session(url_environment(server.url("/edit"))) as session:
        await session.goto_start()
        frame = session.page.frames[1]
        await frame.wait_for_selector("#ok")
        data = await frame.evaluate(
            DESCRIBE_IN_FRAME, [locate_script(), SALT, {"title": "#t", "store": "#ok"}]
        )
    return {key: LocatorBundle.parse(value) for key, value in data.items()}
