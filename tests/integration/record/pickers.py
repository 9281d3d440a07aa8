"""Local pages that reproduce the popup pickers of three component libraries faithfully enough for
the recorder and replay (no library code: the markup, ARIA and event behaviour each one has):

- ``quasar``: a readonly ``<input role=combobox>`` of 1 px and no opacity inside a ``<label>``
  field (the chosen value in a sibling span, the field's label after it; a person clicks the
  field), ``aria-controls`` to a menu teleported to the end of
  ``<body>``, options rendered on open, the menu growing in with a transition;
- ``mui``: a ``<div role=combobox aria-haspopup=listbox>`` named by ``aria-labelledby``, opening on
  ``mousedown`` into a portal with a backdrop covering the page (so the click lands on ``<body>``),
  the listbox in an animated paper, ``aria-controls`` set while open, a hidden native input holding
  the value (not the name);
- ``headless``: a ``<button aria-haspopup=listbox aria-expanded>`` whose listbox is rendered in place
  (not teleported) with ``aria-controls`` while open;
- ``radix``: a ``<button role=combobox>`` opening on ``pointerdown`` into a portal whose options
  choose on ``pointerup`` and vanish at once (no click follows);
- ``antd``: a readonly ``<input role=combobox>`` of no opacity over the select, the value shown in a
  sibling span, opening on ``mousedown``; its ``role=listbox`` is an accessibility-only copy of no
  size, and the options people see have no role, only ``aria-selected``; the dropdown is hidden,
  not removed, when closed;
- ``virtual``: a button whose list renders 6 of its options over a spacer as tall as all of them;
- ``autocomplete`` (MUI Autocomplete-like, searchable): an editable ``<input role=combobox>`` whose
  popper at the end of ``<body>`` lists the options whose name holds what was typed.

Every page reports to the test server: ``/log?chose=NAME`` when an option is chosen and
``/log?closed=1`` when the list is closed without a choice (Escape, a click outside). ``changed``
renames every class and adds wrappers (the next version of the library's markup)."""

from __future__ import annotations

import json
from collections.abc import Sequence

OPTIONS = ("Low", "Medium", "High")

_COMMON = """
const NAMES = NAMES_JSON;
const log = (q) => fetch("/log?" + q);
function optionsHtml(cls) {
  return NAMES.map((n, i) => `<div role="option" class="${cls}" aria-selected="false" data-i="${i}">` +
    `<span class="${cls}-label">${n}</span></div>`).join("");
}
// each option of `root` chooses on `type`: `show(name, option)` shows the choice, the page logs it and
// the list closes; Escape closes the list with nothing chosen
function chooseOn(root, selector, type, show, close) {
  root.querySelectorAll(selector).forEach((o) => o.addEventListener(type, () => {
    show(NAMES[o.dataset.i], o);
    log("chose=" + encodeURIComponent(NAMES[o.dataset.i]));
    close(true);
  }));
  if (!closing) document.addEventListener("keydown", (e) => e.key === "Escape" && closing());
  closing = () => close(false);
}
let closing = null;
// a popper at the end of <body> under the searchable `input` (created once), owning list `id`,
// and the options whose name holds what was typed: [name, index] pairs
function popperOf(input, popper, id, top) {
  if (!popper) {
    popper = document.createElement("div");
    popper.className = "P-Popper";
    popper.style.cssText = `position:absolute;left:10px;top:${top}px;background:#fff`;
    document.body.appendChild(popper);
    input.setAttribute("aria-expanded", "true");
    input.setAttribute("aria-controls", id);
  }
  const typed = input.value.toLowerCase();
  return [popper, NAMES.map((n, i) => [n, i]).filter(([n]) => n.toLowerCase().includes(typed))];
}
// MUI's menu: a portal at the end of <body>, a backdrop over the page, the paper (growing in) at
// `top` holding `list` (its options' HTML inside); the box names the list in aria-controls
function muiMenu(box, list, top) {
  const portal = document.createElement("div");
  portal.setAttribute("role", "presentation");
  portal.className = "P-Popover-root";
  portal.style.cssText = "position:fixed;inset:0;z-index:1300";
  portal.innerHTML = '<div class="P-Backdrop" style="position:fixed;inset:0"></div>' +
    `<div class="P-Paper" style="position:absolute;left:12px;top:${top}px;background:#fff">${list}</div>`;
  document.body.appendChild(portal);
  grow(portal.querySelector(".P-Paper"));
  box.setAttribute("aria-expanded", "true");
  box.setAttribute("aria-controls", portal.querySelector("[role=listbox]").id);
  return portal;
}
function grow(el) {  // an opening transition: the box moves and scales while it runs
  el.style.transition = "transform 250ms ease-out, opacity 250ms";
  el.style.transform = "translateY(-40px) scale(0.6)";
  el.style.opacity = "0.2";
  requestAnimationFrame(() => requestAnimationFrame(() => {
    el.style.transform = "none";
    el.style.opacity = "1";
  }));
}
"""

_QUASAR = """
<main class="P-page"><form class="P-form" onsubmit="return false">WRAP_OPEN
<label class="P-field" for="prio-input">
  <div class="P-field__inner"><div class="P-field__control">
    <div class="P-field__native" style="position:relative;min-height:24px;min-width:160px">
      <span class="P-field__value"></span>
      <input id="prio-input" class="P-select__focus-target" readonly role="combobox" tabindex="0"
             style="position:absolute;width:1px;height:1px;padding:0;border:0;opacity:0"
             aria-haspopup="listbox" aria-expanded="false" aria-controls="prio-lb"
             aria-autocomplete="none"></div>
    <div class="P-field__label">Priority</div>
  </div></div>
</label>WRAP_CLOSE
</form></main>
<script>
COMMON
const input = document.getElementById("prio-input");
const value = document.querySelector(".P-field__value");
let menu = null;
function close(chosen) {
  if (!menu) return;
  const gone = menu;
  menu = null;
  input.setAttribute("aria-expanded", "false");
  gone.style.opacity = "0";
  setTimeout(() => gone.remove(), 150);
  if (!chosen) log("closed=1");
}
function open() {
  if (menu) return;
  menu = document.createElement("div");
  menu.className = "P-menu";
  menu.style.cssText = "position:absolute;left:10px;top:60px;background:#fff;border:1px solid #999";
  menu.innerHTML = `<div class="P-virtual-scroll" role="listbox" id="prio-lb">${optionsHtml("P-item")}</div>`;
  document.body.appendChild(menu);  // teleported
  grow(menu);
  input.setAttribute("aria-expanded", "true");
  chooseOn(menu, "[role=option]", "click", (name, o) => {
    value.textContent = name;
  }, close);
}
document.querySelector(".P-field").addEventListener("click", open);
document.addEventListener("mousedown", (e) => {
  if (menu && !menu.contains(e.target) && !e.target.closest(".P-field")) close(false);
});
</script>
"""

_MUI = """
<main class="P-root">WRAP_OPEN<div class="P-FormControl">
  <label id="age-label" class="P-InputLabel">Age</label>
  <div class="P-InputBase">
    <div id="age-select" role="combobox" tabindex="0" class="P-Select-select" aria-haspopup="listbox"
         aria-expanded="false" aria-labelledby="age-label age-select">&#8203;</div>
    <input aria-hidden="true" tabindex="-1" class="P-Select-nativeInput" value="">
  </div>
</div>WRAP_CLOSE</main>
<script>
COMMON
const box = document.getElementById("age-select");
const native = document.querySelector(".P-Select-nativeInput");
let portal = null;
function close(chosen) {
  if (!portal) return;
  portal.remove();
  portal = null;
  box.setAttribute("aria-expanded", "false");
  box.removeAttribute("aria-controls");
  box.focus();
  if (!chosen) log("closed=1");
}
box.addEventListener("mousedown", (e) => {
  if (e.button !== 0 || portal) return;
  e.preventDefault();
  portal = muiMenu(box, '<ul role="listbox" id="age-listbox" tabindex="-1" aria-labelledby="age-label">' +
    optionsHtml("P-MenuItem") + "</ul>", 40);
  portal.querySelector(".P-Backdrop").addEventListener("click", () => close(false));
  chooseOn(portal, "[role=option]", "click", (name, o) => {
    box.textContent = name;
    native.value = String(10 * (Number(o.dataset.i) + 1));
  }, close);
  portal.querySelector("ul").focus();
});
</script>
"""

_HEADLESS = """
<main class="P-app">WRAP_OPEN<div class="P-listbox">
  <label id="assignee-label" class="P-label">Assignee</label>
  <div class="P-relative">
    <button id="hl-button" type="button" class="P-button" aria-haspopup="listbox" aria-expanded="false"
            aria-labelledby="assignee-label hl-button"><span class="P-truncate">Nobody</span>
      <span class="P-icon" aria-hidden="true">&#9662;</span></button>
  </div>
</div>WRAP_CLOSE</main>
<script>
COMMON
const button = document.getElementById("hl-button");
let list = null;
function close(chosen) {
  if (!list) return;
  list.remove();
  list = null;
  button.setAttribute("aria-expanded", "false");
  button.removeAttribute("aria-controls");
  if (!chosen) log("closed=1");
}
button.addEventListener("click", () => {
  if (list) return close(false);
  list = document.createElement("ul");
  list.setAttribute("role", "listbox");
  list.id = "hl-options";
  list.tabIndex = 0;
  list.setAttribute("aria-labelledby", "assignee-label");
  list.innerHTML = optionsHtml("P-option");
  button.parentElement.appendChild(list);  // in place, next to its button
  grow(list);
  button.setAttribute("aria-expanded", "true");
  button.setAttribute("aria-controls", "hl-options");
  chooseOn(list, "[role=option]", "click", (name, o) => {
    button.querySelector(".P-truncate").textContent = name;
  }, close);
});
</script>
"""

_AUTOCOMPLETE = """
<main class="P-root">WRAP_OPEN<div class="P-Autocomplete">
  <label for="country" class="P-InputLabel">Country</label>
  <div class="P-InputBase"><input id="country" class="P-Input" role="combobox" autocomplete="off"
       aria-autocomplete="list" aria-expanded="false"></div>
</div>WRAP_CLOSE</main>
<script>
COMMON
const input = document.getElementById("country");
let popper = null;
function close(chosen) {
  if (!popper) return;
  popper.remove();
  popper = null;
  input.setAttribute("aria-expanded", "false");
  input.removeAttribute("aria-controls");
  if (!chosen) log("closed=1");
}
function render() {  // the options whose name holds what was typed, in a popper at the end of body
  let shown;
  [popper, shown] = popperOf(input, popper, "country-listbox", 50);
  popper.innerHTML = '<ul role="listbox" id="country-listbox">' + shown.map(([n, i]) =>
    `<li role="option" class="P-Option" data-i="${i}">${n}</li>`).join("") + "</ul>";
  chooseOn(popper, "[role=option]", "click", (name, o) => {
    input.value = name;
  }, close);
}
input.addEventListener("mousedown", () => render());
input.addEventListener("input", () => render());
</script>
"""

_RADIX = """
<main class="P-main">WRAP_OPEN<div class="P-field">
  <span id="fruit-label" class="P-Label">Fruit</span>
  <button type="button" id="fruit-trigger" class="P-SelectTrigger" role="combobox" aria-expanded="false"
          aria-autocomplete="none" aria-labelledby="fruit-label">
    <span class="P-SelectValue">Pick one</span></button>
</div>WRAP_CLOSE</main>
<script>
COMMON
const trigger = document.getElementById("fruit-trigger");
let content = null;
function close(chosen) {
  if (!content) return;
  content.remove();  // at once: no click follows a choice made on pointerup
  content = null;
  trigger.setAttribute("aria-expanded", "false");
  trigger.removeAttribute("aria-controls");
  if (!chosen) log("closed=1");
}
trigger.addEventListener("pointerdown", (e) => {
  if (content || e.button !== 0) return;
  e.preventDefault();
  content = document.createElement("div");
  content.setAttribute("data-radix-popper-content-wrapper", "");
  content.style.cssText = "position:fixed;left:8px;top:70px;background:#fff";
  content.innerHTML = '<div role="listbox" id="fruit-content" class="P-SelectContent">' +
    optionsHtml("P-Item") + "</div>";
  document.body.appendChild(content);
  grow(content);
  trigger.setAttribute("aria-expanded", "true");
  trigger.setAttribute("aria-controls", "fruit-content");
  chooseOn(content, "[role=option]", "pointerup", (name, o) => {
    trigger.querySelector(".P-SelectValue").textContent = name;
  }, close);
});
</script>
"""

_ANTD = """
<main class="P-layout">WRAP_OPEN<div class="P-form-item">
<label class="P-form-item-label" for="rc_select_0">Owner</label>
<div class="P-select P-select-single" style="position:relative;width:200px">
  <div class="P-select-selector" style="position:relative;height:30px;border:1px solid #999">
    <span class="P-select-selection-search" style="position:absolute;inset:0">
      <input type="search" id="rc_select_0" class="P-select-selection-search-input" role="combobox" readonly
             aria-expanded="false" aria-haspopup="listbox" aria-owns="rc_select_0_list"
             aria-controls="rc_select_0_list" aria-autocomplete="list"
             style="opacity:0;width:100%;height:100%">
    </span>
    <span class="P-select-selection-item" title="">Nobody</span>
  </div>
</div></div>WRAP_CLOSE</main>
<script>
COMMON
const input = document.getElementById("rc_select_0");
const item = document.querySelector(".P-select-selection-item");
let dropdown = null;
let opened = false;
function close(chosen) {
  if (!opened) return;
  opened = false;
  dropdown.style.display = "none";  // kept in the page, hidden
  input.setAttribute("aria-expanded", "false");
  if (!chosen) log("closed=1");
}
function build() {
  dropdown = document.createElement("div");
  dropdown.className = "P-select-dropdown";
  dropdown.style.cssText = "position:absolute;left:10px;top:80px;background:#fff;width:200px";
  // an accessibility-only listbox of no size, then the options people see (no role, aria-selected)
  const a11y = NAMES.map((n, i) => `<div role="option" aria-selected="false">v${i}</div>`).join("");
  dropdown.innerHTML = '<div role="listbox" id="rc_select_0_list" style="height:0;width:0;overflow:hidden">' +
    a11y + '</div><div class="P-virtual-list"><div class="P-virtual-list-holder-inner">' +
    NAMES.map((n, i) => `<div aria-selected="false" class="P-select-item P-select-item-option" ` +
      `title="${n}" data-i="${i}"><div class="P-select-item-option-content">${n}</div>` +
      '<span class="P-select-item-option-state" aria-hidden="true"></span></div>').join("") + "</div></div>";
  document.body.appendChild(dropdown);
  chooseOn(dropdown, ".P-select-item-option", "click", (name, o) => {
    const all = dropdown.querySelectorAll(".P-select-item-option");
    all.forEach((x) => x.setAttribute("aria-selected", "false"));
    o.setAttribute("aria-selected", "true");
    item.textContent = name;
    item.title = name;
  }, close);
}
document.querySelector(".P-select-selector").addEventListener("mousedown", (e) => {
  e.preventDefault();
  if (opened) return close(false);
  if (!dropdown) build();
  dropdown.style.display = "";
  grow(dropdown);
  opened = true;
  input.setAttribute("aria-expanded", "true");
});
</script>
"""

_VIRTUAL = """
<main class="P-app">WRAP_OPEN<label id="city-label" class="P-label">City</label>
<button id="city" type="button" class="P-button" aria-haspopup="listbox" aria-expanded="false"
        aria-labelledby="city-label city"><span class="P-value">None</span></button>WRAP_CLOSE</main>
<script>
COMMON
const button = document.getElementById("city");
let list = null;
function close(chosen) {
  if (!list) return;
  list.remove();
  list = null;
  button.setAttribute("aria-expanded", "false");
  if (!chosen) log("closed=1");
}
button.addEventListener("click", () => {  // a virtual list: 6 options rendered, the rest a spacer
  if (list) return close(false);
  list = document.createElement("ul");
  list.setAttribute("role", "listbox");
  list.id = "city-options";
  list.style.cssText = "height:160px;overflow-y:auto;margin:0;padding:0;position:relative";
  list.innerHTML = `<li style="height:${NAMES.length * 32}px;list-style:none" aria-hidden="true"></li>` +
    NAMES.slice(0, 6).map((n, i) => `<li role="option" data-i="${i}" style="position:absolute;` +
      `top:${i * 32}px;height:32px;list-style:none">${n}</li>`).join("");
  document.body.appendChild(list);
  button.setAttribute("aria-expanded", "true");
  button.setAttribute("aria-controls", "city-options");
  chooseOn(list, "[role=option]", "click", (name, o) => {
    button.querySelector(".P-value").textContent = name;
  }, close);
});
</script>
"""

PAGES = {
    "virtual": _VIRTUAL,
    "antd": _ANTD,
    "quasar": _QUASAR,
    "mui": _MUI,
    "headless": _HEADLESS,
    "radix": _RADIX,
    "autocomplete": _AUTOCOMPLETE,
}
# the selector a scripted demonstration clicks to open each picker
SELECTORS = {
    "quasar": "#prio-input",
    "mui": "#age-select",
    "headless": "#hl-button",
    "radix": "#fruit-trigger",
    "antd": "#rc_select_0",
}
PARAMETERS = {"quasar": "priority", "mui": "age", "headless": "assignee", "radix": "fruit", "antd": "owner"}


def picker_page(kind: str, names: Sequence[str] = OPTIONS, *, changed: bool = False) -> str:
    """The page of one picker showing ``names``; ``changed``: every class renamed, wrappers added."""
    return build_page(PAGES[kind], names, changed=changed)


def build_page(template: str, names: Sequence[str] = OPTIONS, *, changed: bool = False) -> str:
    """A picker page from its template (``COMMON``: the shared script; ``NAMES_JSON``: the option
    names; ``P-``: the class prefix; ``WRAP_OPEN``/``WRAP_CLOSE``: where the next version adds
    wrappers); ``changed``: every class renamed, wrappers added (the library's next version)."""
    body = template.replace("COMMON", _COMMON).replace("NAMES_JSON", json.dumps(list(names)))
    if changed:
        body = body.replace("P-", "v3-x").replace(
            "WRAP_OPEN", '<div class="v3-outer"><section class="v3-slot">'
        )
        body = body.replace("WRAP_CLOSE", "</section></div>")
    else:
        body = body.replace("P-", "q1-").replace("WRAP_OPEN", "").replace("WRAP_CLOSE", "")
    return f"<!doctype html><html><head><title>Form</title></head><body>{body}</body></html>"


# BaseWeb's select (Streamlit's st.selectbox): a readonly <input role=combobox> whose aria-label
# holds the CURRENT value ("Selected High. Priority"), its value empty, the value shown in a sibling
# div; the widget's <label> is outside the select (not linked to the input); opening on mousedown of
# the control into a popover portal at the end of <body>: a virtualised <ul> (no role=listbox) of
# <li role=option>, aria-controls set on the input only while it is open.
_BASEWEB_PICKER = """
<div data-testid="stSelectbox" class="sb-widget"><label data-testid="stWidgetLabel"><div><p>LABEL</p></div>
</label><div data-baseweb="select"><div class="sb-control" data-key="KEY"><div class="sb-values">
<div class="sb-single">CURRENT</div><input id="KEY-input" aria-autocomplete="list" aria-expanded="false"
aria-haspopup="listbox" aria-label="Selected CURRENT. LABEL" role="combobox" readonly value=""
style="opacity:0;width:1px;position:absolute"></div><div class="sb-icon">&#9662;</div></div></div></div>
"""

_BASEWEB_SCRIPT = """
<script>
const PICKERS = PICKERS_JSON;
let menu = null;
function closeMenu() {
  if (!menu) return;
  menu.popover.remove();
  menu.input.setAttribute("aria-expanded", "false");
  menu.input.removeAttribute("aria-controls");
  menu = null;
}
document.querySelectorAll(".sb-control").forEach((control) => {
  const key = control.dataset.key;
  const {label, names} = PICKERS[key];
  const input = control.querySelector("input");
  control.addEventListener("mousedown", (e) => {
    e.preventDefault();
    if (menu) { const was = menu.input; closeMenu(); if (was === input) return; }
    const popover = document.createElement("div");
    popover.dataset.baseweb = "popover";
    popover.innerHTML = `<div><ul data-testid="stVirtualDropdown" id="${key}-menu" style="height:120px;` +
      `overflow:auto;position:relative;margin:0;padding:0"><div style="height:${names.length * 36}px">` +
      names.map((n, i) => `<li role="option" aria-selected="false" data-i="${i}" style="list-style:none;` +
        `position:absolute;top:${i * 36}px;height:36px"><div>${n}</div></li>`).join("") + `</div></ul></div>`;
    document.body.appendChild(popover);
    menu = {popover, input};
    input.setAttribute("aria-expanded", "true");
    input.setAttribute("aria-controls", key + "-menu");
    input.focus();
    popover.querySelectorAll("li").forEach((li) => li.addEventListener("click", () => {
      const name = names[li.dataset.i];
      control.querySelector(".sb-single").textContent = name;
      input.setAttribute("aria-label", `Selected ${name}. ${label}`);
      fetch("/log?" + new URLSearchParams({picker: key, chose: name}));
      closeMenu();
    }));
  });
});
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && menu) { closeMenu(); fetch("/log?closed=1"); }
});
</script>
"""


def baseweb_page(pickers: Sequence[tuple[str, str, Sequence[str], str]], *, after: str = "") -> str:
    """A page of BaseWeb selects, each ``(key, label, names, current)``, then ``after``, in
    Streamlit's root (the app's ``<div>`` beside an empty one of the same classes): the input of one
    is ``#KEY-input``; choosing logs ``/log?picker=KEY&chose=NAME``."""
    parts = [
        _BASEWEB_PICKER.replace("LABEL", label).replace("KEY", key).replace("CURRENT", current)
        for key, label, _, current in pickers
    ]
    config = {key: {"label": label, "names": list(names)} for key, label, names, _ in pickers}
    script = _BASEWEB_SCRIPT.replace("PICKERS_JSON", json.dumps(config))
    app = f'<div class=""><main>{"".join(parts)}{after}</main></div>'
    body = f'<div id="root">{app}<div class=""></div></div>{script}'
    return f"<!doctype html><html><head><title>Orders</title></head><body>{body}</body></html>"
