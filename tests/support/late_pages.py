"""A page where waits and scrolls matter (issue 33, point 2), for the tests that author them by an
edit and by the automation file: it saves late (its URL changes after 600 ms, its status text says so
400 ms later) and its list (``#feed``, 10 entries shown) loads 10 more each time it is scrolled to its
end, up to 50."""

from __future__ import annotations

SAVE_SCRIPT = """
document.getElementById("save").addEventListener("click", () => {
  const order = document.getElementById("order").value;
  setTimeout(() => {
    history.pushState({}, "", "/desk/saved");
    setTimeout(() => { document.getElementById("status").textContent = "Saved " + order; }, 400);
  }, 600);
});
"""
LAZY_SCRIPT = """
const feed = document.getElementById("feed");
let shown = 0;
function more() {
  for (let i = 0; i < 10 && shown < 50; i++) {
    const li = document.createElement("li");
    li.className = "entry";
    li.textContent = "Entry " + (++shown);
    feed.appendChild(li);
  }
}
more();
feed.addEventListener("scroll", () => {
  if (feed.scrollTop + feed.clientHeight >= feed.scrollHeight - 5) setTimeout(more, 30);
});
"""
DESK = (
    "<!doctype html><html><head><meta charset=utf-8></head><body><main>"
    '<input id="order" name="order"><button id="save" type="button">Save</button>'
    '<p id="status">Not saved</p>'
    '<ul id="feed" style="height:120px;overflow-y:auto;margin:0;padding:0;list-style:none"></ul>'
    "<style>li.entry{height:30px}</style>"
    f"</main><script>{SAVE_SCRIPT}{LAZY_SCRIPT}</script></body></html>"
)
