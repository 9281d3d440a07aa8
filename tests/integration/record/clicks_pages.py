"""Local pages that reproduce how component libraries take a click (issue 28, point 2): each one
is the pattern, not a copy of a library. Used by test_clicks.py (capture) and
test_clicks_replay.py (recorded, then replayed)."""

from __future__ import annotations

from tests.integration.record.rig import page_html

# A listbox teleported to the end of <body>, opened by `open(anchor, options, pick)`; an option
# click calls pick(name) and closes it. `backdrop`: a full-page layer under the menu, which closes
# it when it is itself clicked (as a modal's backdrop does).
_MENU = """
<script>
function openMenu(anchor, names, pick, backdrop) {
  const layer = document.createElement("div");
  layer.className = "menu-layer";
  layer.style.cssText = backdrop ? "position:fixed;inset:0;z-index:1300" : "";
  if (backdrop) {
    const bd = document.createElement("div");
    bd.className = "backdrop";
    bd.style.cssText = "position:fixed;inset:0;background:transparent";
    bd.addEventListener("click", (e) => { if (e.target === bd) layer.remove(); });
    layer.appendChild(bd);
  }
  const box = anchor.getBoundingClientRect();
  const list = document.createElement("ul");
  list.setAttribute("role", "listbox");
  list.id = "menu-" + Math.random().toString(36).slice(2, 8);
  list.style.cssText = `position:absolute;left:${box.left}px;top:${box.bottom + 4}px;margin:0;padding:4px;`
    + "list-style:none;background:#fff;border:1px solid #999;z-index:1301;min-width:160px";
  for (const name of names) {
    const li = document.createElement("li");
    li.setAttribute("role", "option");
    li.tabIndex = -1;
    li.textContent = name;
    li.style.cssText = "padding:6px 12px;cursor:pointer";
    li.addEventListener("click", () => { pick(name); layer.remove(); });
    list.appendChild(li);
  }
  layer.appendChild(list);
  document.body.appendChild(layer);
  anchor.setAttribute("aria-expanded", "true");
  anchor.setAttribute("aria-controls", list.id);
  new MutationObserver((_, obs) => {
    if (!layer.isConnected) { anchor.setAttribute("aria-expanded", "false"); obs.disconnect(); }
  }).observe(document.body, {childList: true});
}
</script>
"""


def with_menu(body: str, script: str) -> str:
    """A page of `body` whose `script` may call openMenu (above)."""
    return page_html(body + _MENU + "<script>" + script + "</script>")


# Quasar-like: a readonly role=combobox focus target (1px, transparent) inside the field's
# <label>; the field opens its menu on click.
QUASAR = with_menu(
    """
<div id=app style="padding:40px">
  <label class="q-field q-select" id=prio-field for=f_7c1e9a
      style="display:block;position:relative;width:240px;border-bottom:1px solid #999;
        padding:18px 8px 6px;cursor:pointer">
    <div class=q-field__inner><div class=q-field__control>
      <div class=q-field__label style="position:absolute;top:2px;font-size:11px">Priority</div>
      <div class=q-field__native><span id=prio-shown>Low</span>
        <input id=f_7c1e9a class=q-select__focus-target readonly role=combobox aria-haspopup=listbox
          aria-expanded=false aria-label=Priority
          style="position:absolute;left:8px;top:20px;width:1px;height:1px;opacity:0;padding:0;border:0">
      </div>
    </div></div>
  </label>
</div>
""",
    """
document.querySelector("#prio-field").addEventListener("click", (e) => {
  if (document.querySelector(".menu-layer")) return;
  openMenu(document.querySelector("#f_7c1e9a"), ["Low", "Medium", "High"],
    (name) => { document.querySelector("#prio-shown").textContent = name; }, false);
});
""",
)

# MUI-like Select: opens on mousedown with an invisible full-page backdrop, so the click of the
# same press lands on <body> (the common ancestor of the pressed element and the backdrop).
MUI_SELECT = with_menu(
    """
<div id=root style="padding:40px">
  <div class="MuiFormControl-root" style="position:relative;width:220px">
    <label id=age-label class="MuiInputLabel-root" style="font-size:12px">Age</label>
    <div class="MuiInputBase-root MuiSelect-root" style="border:1px solid #999">
      <div tabindex=0 role=combobox aria-haspopup=listbox aria-expanded=false id=age-select
        aria-labelledby="age-label age-select" class=MuiSelect-select style="padding:10px;min-height:18px"
        ><span id=age-shown>None</span></div>
      <input name=age aria-hidden=true tabindex=-1 class=MuiSelect-nativeInput value=""
        style="position:absolute;bottom:0;left:0;opacity:0;pointer-events:none;width:100%">
    </div>
  </div>
</div>
""",
    """
const age = document.querySelector("#age-select");
age.addEventListener("mousedown", (e) => {
  if (e.button !== 0) return;
  e.preventDefault();
  openMenu(age, ["Ten", "Twenty", "Thirty"], (name) => {
    document.querySelector("#age-shown").textContent = name;
    document.querySelector("input[name=age]").value = name;
  }, true);
});
""",
)

# MUI text fields: a floating label over the input. Older versions give the label no `for=` (the
# form control focuses its input on a click); newer ones link it to a generated id.
MUI_TEXT = page_html(
    """
<div style="padding:40px">
  <div class=MuiFormControl-root id=name-control style="position:relative;width:240px;padding-top:16px">
    <label class=MuiInputLabel-root id=name-label style="position:absolute;left:0;top:0;
        transform:translate(4px,22px);z-index:1">Full name</label>
    <div class=MuiInputBase-root>
      <input class=MuiInputBase-input type=text style="width:100%;padding:6px"></div>
  </div>
  <div class=MuiFormControl-root style="position:relative;width:240px;padding-top:16px;margin-top:24px">
    <label class=MuiInputLabel-root for=":r3:" id=":r3:-label" style="position:absolute;left:0;top:0;
        transform:translate(4px,22px);z-index:1">Email</label>
    <div class=MuiInputBase-root><input id=":r3:" class=MuiInputBase-input type=email
        style="width:100%;padding:6px"></div>
  </div>
  <button id=save type=button style="margin-top:24px" onclick="this.dataset.saved = 1">Save</button>
</div>
<script>
document.querySelector("#name-control").addEventListener("click", (e) => {
  document.querySelector("#name-control input").focus();
});
</script>
"""
)

# A readonly date input that opens a picker of day buttons; a day writes the date into it.
DATE = page_html(
    """
<div style="padding:40px">
  <label for=due>Due date</label>
  <input id=due name=due readonly placeholder="Pick a date" style="width:160px">
  <div id=picker hidden style="border:1px solid #999;padding:4px;width:220px"></div>
  <p>Due: <output id=due-shown></output></p>
</div>
<script>
const due = document.querySelector("#due");
const picker = document.querySelector("#picker");
due.addEventListener("click", () => {
  picker.textContent = "";
  for (let d = 1; d <= 28; d++) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "day";
    b.textContent = String(d);
    b.setAttribute("aria-label", "December " + d);
    b.addEventListener("click", () => {
      due.value = "2026-12-" + String(d).padStart(2, "0");
      document.querySelector("#due-shown").textContent = due.value;
      picker.hidden = true;
    });
    picker.appendChild(b);
  }
  picker.hidden = false;
});
</script>
"""
)

# A plain form: a labelled text field, an unlabelled one and a button.
FORM = page_html(
    """
<form action="javascript:void 0" style="padding:40px">
  <label for=email id=email-label>Email</label> <input id=email name=email>
  <input id=city name=city>
  <button id=go type=button onclick="this.dataset.n = 1">Go</button>
</form>
"""
)

# A menu whose item acts on mousedown and closes the menu: the browser fires no click at all.
MOUSEDOWN_MENU = page_html(
    """
<div style="padding:40px">
  <button id=more type=button aria-haspopup=menu>More</button>
  <p id=done></p>
</div>
<script>
document.querySelector("#more").addEventListener("click", () => {
  const menu = document.createElement("ul");
  menu.setAttribute("role", "menu");
  menu.style.cssText = "position:absolute;left:40px;top:80px;list-style:none;padding:4px;border:1px solid";
  for (const name of ["Archive", "Delete"]) {
    const li = document.createElement("li");
    li.setAttribute("role", "menuitem");
    li.textContent = name;
    li.style.padding = "6px";
    li.addEventListener("mousedown", () => {
      document.querySelector("#done").textContent = name;
      menu.remove();
    });
    menu.appendChild(li);
  }
  document.body.appendChild(menu);
});
</script>
"""
)

# Ant Design-like Select: the shown value is drawn over a transparent readonly combobox input in
# the same wrapper; the selector opens its teleported listbox on mousedown.
ANT_SELECT = with_menu(
    """
<div style="padding:40px">
  <div class="ant-select" style="position:relative;width:200px;border:1px solid #999">
    <div class=ant-select-selector style="position:relative;padding:6px;min-height:20px">
      <span class=ant-select-selection-search style="position:absolute;inset:0">
        <input role=combobox readonly aria-haspopup=listbox aria-expanded=false id=rc_select_0
          class=ant-select-selection-search-input style="opacity:0;width:100%;height:100%;padding:0;border:0">
      </span>
      <span class=ant-select-selection-item id=ant-shown style="position:relative">Lucy</span>
    </div>
    <span class=ant-select-arrow style="position:absolute;right:6px;top:6px">v</span>
  </div>
  <p class=card>Owner of the ticket</p>
</div>
""",
    """
const selector = document.querySelector(".ant-select-selector");
selector.addEventListener("mousedown", (e) => {
  if (document.querySelector(".menu-layer")) return;
  openMenu(document.querySelector("#rc_select_0"), ["Jack", "Lucy", "Tom"],
    (name) => { document.querySelector("#ant-shown").textContent = name; }, false);
});
""",
)
