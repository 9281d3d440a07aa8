"""Local pages of a native ``<select>`` behind a custom skin (issue 28), faithful to the libraries'
markup and behaviour (no library code), built by ``pickers.build_page``; both keep the same native
``<select id=prio name=priority>`` (labelled "Priority"), so a redesign that swaps one skin for the
other keeps it:

- ``select2``: the select visually hidden (clipped to a pixel, ``aria-hidden``), then a
  ``<span role=combobox aria-haspopup=true>`` showing the choice; it opens on ``mousedown`` into a
  dropdown at the end of ``<body>`` (``ul role=listbox`` of ``li role=option``); a choice sets the
  select's value and dispatches ``change``; a ``change`` of the select redraws the skin;
- ``bootstrap``: bootstrap-select's shape: a ``<button aria-haspopup=listbox>`` over the select
  (``opacity:0``, half a pixel wide, under the button), its menu rendered in place.

Every page logs ``/log?chose=VALUE`` when the select changes (whoever changed it)."""

from __future__ import annotations

from collections.abc import Sequence

from tests.integration.record.pickers import build_page

_OPTIONS_JS = """
const select = document.getElementById("prio");
select.innerHTML = '<option value="">Choose...</option>' +
  NAMES.map((n) => `<option value="${n.toLowerCase()}">${n}</option>`).join("");
select.addEventListener("change", () => { log("chose=" + encodeURIComponent(select.value)); redraw(); });
function choose(i) {
  select.value = NAMES[i].toLowerCase();
  select.dispatchEvent(new Event("change", {bubbles: true}));
}
"""

_SELECT2 = """
<main class="P-page">WRAP_OPEN<form class="P-form" onsubmit="return false">
<label for="prio" class="P-label">Priority</label>
<select id="prio" name="priority" class="P-hidden-accessible" tabindex="-1" aria-hidden="true"
  style="border:0;clip:rect(0 0 0 0);height:1px;margin:-1px;overflow:hidden;padding:0;position:absolute;
  width:1px"></select>
<span class="P-container" style="display:inline-block;width:200px"><span class="P-selection">
  <span class="P-selection--single" role="combobox" aria-haspopup="true" aria-expanded="false" tabindex="0"
        aria-labelledby="prio-rendered" style="display:block;border:1px solid #aaa;height:26px">
    <span id="prio-rendered" class="P-rendered" role="textbox" aria-readonly="true"></span>
    <span class="P-arrow" role="presentation"><b role="presentation"></b></span></span></span></span>
</form>WRAP_CLOSE</main>
<script>
COMMON
OPTIONS_JS
const box = document.querySelector("[role=combobox]");
let dropdown = null;
function redraw() { document.getElementById("prio-rendered").textContent = select.selectedOptions[0].label; }
function close() {
  if (!dropdown) return;
  dropdown.remove();
  dropdown = null;
  box.setAttribute("aria-expanded", "false");
  box.removeAttribute("aria-owns");
}
box.addEventListener("mousedown", (e) => {
  e.preventDefault();
  if (dropdown) return close();
  dropdown = document.createElement("span");
  dropdown.className = "P-dropdown";
  dropdown.style.cssText = "position:absolute;left:10px;top:60px;background:#fff;width:200px";
  dropdown.innerHTML = '<span class="P-results">' +
    '<ul class="P-results__options" role="listbox" id="prio-results">' +
    NAMES.map((n, i) => `<li class="P-results__option" role="option" aria-selected="false" data-i="${i}">` +
      `${n}</li>`).join("") + "</ul></span>";
  document.body.appendChild(dropdown);
  box.setAttribute("aria-expanded", "true");
  box.setAttribute("aria-owns", "prio-results");
  dropdown.querySelectorAll("li").forEach((li) => li.addEventListener("click", () => {
    choose(Number(li.dataset.i));
    close();
  }));
});
redraw();
</script>
"""

_BOOTSTRAP = """
<main class="P-page">WRAP_OPEN<form class="P-form" onsubmit="return false">
<label for="prio" class="P-label">Priority</label>
<div class="P-bootstrap-select" style="position:relative;display:inline-block;width:220px">
  <select id="prio" name="priority" class="P-selectpicker" tabindex="-98"
    style="position:absolute;bottom:0;left:50%;width:.5px;height:100%;padding:0;opacity:0;border:none;z-index:0"></select>
  <button type="button" class="P-btn P-dropdown-toggle" aria-haspopup="listbox" aria-expanded="false"
          style="position:relative;z-index:1;width:100%"><div class="P-filter-option">
    <div class="P-filter-option-inner"><div class="P-filter-option-inner-inner"></div></div></div></button>
  <div class="P-dropdown-menu" style="display:none"><div class="P-inner" role="listbox" id="bs-select-1"
       tabindex="-1"><ul class="P-dropdown-menu P-inner" role="presentation"></ul></div></div>
</div>
</form>WRAP_CLOSE</main>
<script>
COMMON
OPTIONS_JS
const button = document.querySelector(".P-dropdown-toggle");
const menu = document.querySelector("div.P-dropdown-menu");
const ul = menu.querySelector("ul");
ul.innerHTML = NAMES.map((n, i) => `<li><a role="option" class="P-dropdown-item" id="bs-select-1-${i}" ` +
  `tabindex="0" aria-selected="false" data-i="${i}"><span class="P-text">${n}</span></a></li>`).join("");
function redraw() {
  button.querySelector(".P-filter-option-inner-inner").textContent = select.selectedOptions[0].label;
}
function close() { menu.style.display = "none"; button.setAttribute("aria-expanded", "false"); }
button.addEventListener("click", () => {
  if (menu.style.display !== "none") return close();
  menu.style.display = "block";
  button.setAttribute("aria-expanded", "true");
  button.setAttribute("aria-controls", "bs-select-1");
});
ul.querySelectorAll("a").forEach((a) => a.addEventListener("click", () => {
  choose(Number(a.dataset.i));
  close();
}));
redraw();
</script>
"""

SKIN_PAGES = {"select2": _SELECT2, "bootstrap": _BOOTSTRAP}
SKIN_SELECTORS = {"select2": "[role=combobox]", "bootstrap": "button[aria-haspopup=listbox]"}


def skin_page(kind: str, names: Sequence[str] = ("Low", "Medium", "High"), *, changed: bool = False) -> str:
    """The page of one skinned select of ``names``; ``changed``: its next version."""
    return build_page(SKIN_PAGES[kind].replace("OPTIONS_JS", _OPTIONS_JS), names, changed=changed)
