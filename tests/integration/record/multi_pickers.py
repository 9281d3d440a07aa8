"""Local pages of pickers that keep several choices (issue 28: multi-select chips), faithful to the
libraries' markup and behaviour (no library code), built by ``pickers.build_page``:

- ``mui-multi`` (MUI Select ``multiple``): a ``<div role=combobox aria-haspopup=listbox>`` named by
  ``aria-labelledby``, showing the chosen options as chips inside it; it opens on ``mousedown`` into
  a portal at the end of ``<body>`` with a backdrop covering the page, its ``ul role=listbox
  aria-multiselectable=true`` stays open after each choice (an option toggles ``aria-selected``); a
  click on the backdrop or Escape closes it;
- ``autocomplete-multi`` (MUI Autocomplete ``multiple disableCloseOnSelect``): an editable
  ``<input role=combobox>`` after the chips (each with a remove button), a popper at the end of
  ``<body>`` listing the options whose name holds what was typed; ArrowDown/ArrowUp move
  ``aria-activedescendant``, Enter chooses the active option; the list stays open after a choice.

Every page logs ``/log?chose=NAME`` for a choice, ``/log?removed=NAME`` when a choice is taken out
and ``/log?closed=1`` when the list closes."""

from __future__ import annotations

from collections.abc import Sequence

from tests.integration.record.pickers import OPTIONS, build_page

_MUI_MULTI = """
<main class="P-root">WRAP_OPEN<div class="P-FormControl">
  <label id="tags-label" class="P-InputLabel">Tags</label>
  <div class="P-InputBase">
    <div id="tags-select" role="combobox" tabindex="0" class="P-Select-select P-Select-multiple"
         aria-haspopup="listbox" aria-expanded="false" aria-labelledby="tags-label"
         style="min-width:200px;min-height:24px"><span class="P-chips"></span></div>
    <input aria-hidden="true" tabindex="-1" class="P-Select-nativeInput" value="">
  </div>
</div>WRAP_CLOSE</main>
<script>
COMMON
const box = document.getElementById("tags-select");
const chips = box.querySelector(".P-chips");
const chosen = new Set();
let portal = null;
function showChips() {
  chips.innerHTML = NAMES.filter((n) => chosen.has(n)).map((n) =>
    `<div class="P-Chip"><span class="P-Chip-label">${n}</span></div>`).join("");
}
function close() {
  if (!portal) return;
  portal.remove();
  portal = null;
  box.setAttribute("aria-expanded", "false");
  box.removeAttribute("aria-controls");
  log("closed=1");
}
box.addEventListener("mousedown", (e) => {
  if (e.button !== 0 || portal) return;
  e.preventDefault();
  portal = muiMenu(box, '<ul role="listbox" id="tags-listbox" tabindex="-1" aria-multiselectable="true" ' +
    'aria-labelledby="tags-label">' + optionsHtml("P-MenuItem") + "</ul>", 60);
  portal.querySelectorAll("[role=option]").forEach((o) => {
    o.setAttribute("aria-selected", String(chosen.has(NAMES[o.dataset.i])));
    o.addEventListener("click", () => {
      const name = NAMES[o.dataset.i];
      if (chosen.has(name)) { chosen.delete(name); log("removed=" + encodeURIComponent(name)); }
      else { chosen.add(name); log("chose=" + encodeURIComponent(name)); }
      o.setAttribute("aria-selected", String(chosen.has(name)));
      showChips();
    });
  });
  portal.querySelector(".P-Backdrop").addEventListener("click", close);
  portal.querySelector("ul").focus();
});
document.addEventListener("keydown", (e) => e.key === "Escape" && close());
</script>
"""

_AUTOCOMPLETE_MULTI = """
<main class="P-root">WRAP_OPEN<div class="P-Autocomplete">
  <label for="langs" class="P-InputLabel">Languages</label>
  <div class="P-InputBase"><span class="P-chips"></span><input id="langs" class="P-Input" role="combobox"
       autocomplete="off" aria-autocomplete="list" aria-expanded="false"></div>
</div>
<p class="P-after" style="margin-top:240px"><button type="button" id="save">Save</button></p>WRAP_CLOSE</main>
<script>
COMMON
const input = document.getElementById("langs");
const chips = document.querySelector(".P-chips");
const chosen = [];
let popper = null;
let active = -1;
function showChips() {
  chips.innerHTML = chosen.map((n) => `<div role="button" class="P-Chip" tabindex="-1">` +
    `<span class="P-Chip-label">${n}</span>` +
    `<svg class="P-Chip-delete" data-name="${n}" aria-hidden="true" width="12" height="12">` +
    `<circle cx="6" cy="6" r="6"></circle></svg></div>`).join("");
  chips.querySelectorAll(".P-Chip-delete").forEach((x) => x.addEventListener("click", () => {
    chosen.splice(chosen.indexOf(x.dataset.name), 1);
    log("removed=" + encodeURIComponent(x.dataset.name));
    showChips();
  }));
}
function close() {
  if (!popper) return;
  popper.remove();
  popper = null;
  active = -1;
  input.setAttribute("aria-expanded", "false");
  input.removeAttribute("aria-controls");
  input.removeAttribute("aria-activedescendant");
  log("closed=1");
}
function choose(name) {
  const at = chosen.indexOf(name);
  if (at >= 0) chosen.splice(at, 1);
  else chosen.push(name);
  log((at >= 0 ? "removed=" : "chose=") + encodeURIComponent(name));
  showChips();
  render();
}
function render() {  // the options whose name holds what was typed, in a popper at the end of body
  let shown;
  [popper, shown] = popperOf(input, popper, "langs-listbox", 60);
  popper.innerHTML = '<ul role="listbox" id="langs-listbox" aria-multiselectable="true">' +
    shown.map(([n, i]) => `<li role="option" id="langs-option-${i}" class="P-Option" data-i="${i}" ` +
    `aria-selected="${chosen.includes(n)}">${n}</li>`).join("") + "</ul>";
  popper.querySelectorAll("[role=option]").forEach((o) => {
    o.addEventListener("mousedown", (e) => e.preventDefault());  // the input keeps the focus
    o.addEventListener("click", () => choose(NAMES[o.dataset.i]));
  });
  const at = popper.querySelector(`#langs-option-${active}`);
  if (at) { at.classList.add("P-focused"); input.setAttribute("aria-activedescendant", at.id); }
  else input.removeAttribute("aria-activedescendant");
}
input.addEventListener("mousedown", () => render());
input.addEventListener("input", () => { active = -1; render(); });
input.addEventListener("keydown", (e) => {
  if (e.key === "Escape") return close();
  const options = popper ? Array.from(popper.querySelectorAll("[role=option]")) : [];
  const ids = options.map((o) => Number(o.dataset.i));
  if (e.key === "ArrowDown" || e.key === "ArrowUp") {
    e.preventDefault();
    if (!popper) { render(); return; }
    const k = ids.indexOf(active);
    active = ids[e.key === "ArrowDown" ? Math.min(k + 1, ids.length - 1) : Math.max(k - 1, 0)];
    render();
  } else if (e.key === "Enter" && popper && ids.includes(active)) {
    e.preventDefault();
    choose(NAMES[active]);
  }
});
document.addEventListener("mousedown", (e) => {
  if (popper && !popper.contains(e.target) && e.target !== input) close();
});
</script>
"""

MULTI_PAGES = {"mui-multi": _MUI_MULTI, "autocomplete-multi": _AUTOCOMPLETE_MULTI}
MULTI_SELECTORS = {"mui-multi": "#tags-select", "autocomplete-multi": "#langs"}


def multi_page(kind: str, names: Sequence[str] = OPTIONS, *, changed: bool = False) -> str:
    """The page of one multi-select picker of ``names``; ``changed``: its next version."""
    return build_page(MULTI_PAGES[kind], names, changed=changed)
