// skillreel locate/listbox.js — popup pickers: a combobox (role=combobox, or an element with
// aria-haspopup=listbox) and the role=listbox of role=option elements it opens, often teleported to
// the end of <body> (Quasar, MUI, Headless UI, Radix, Ant Design, Vuetify). Loaded after
// fingerprint.js, in the recorder's world (what it recognises) and in replay's isolated world (what
// a `choose` step opens and picks).
//
//   SkillreelListbox.pickerOf(el)        -> the combobox el is or belongs to, or null
//   SkillreelListbox.visibleListboxes()  -> the listboxes visible now (a Set)
//   SkillreelListbox.listboxOf(box, before) -> the listbox box owns (aria-controls / aria-owns, its
//       own or an inner element's) when visible, else the one listbox visible now that was not in
//       `before`; null when none or several
//   SkillreelListbox.optionsOf(listbox)  -> its visible role=option elements, in page order
//   SkillreelListbox.enabled(option), SkillreelListbox.optionName(option)
//   SkillreelListbox.call(method, arg)   -> replay's calls (settle.js routes "listbox.NAME" here):
//       arm({})                  remember the element marked for the next action as the combobox
//                                and the listboxes visible before it is opened -> {held, searchable}
//                                (searchable: an editable text input, typed into to filter)
//       options({})              the open listbox's enabled options -> {names} or {names: null}
//       mark({index, attr, nonce}) mark that option for Playwright's click -> bool
//       shown({name, attr})      after the click: whether the combobox shows the choice -> bool
//
// Names are accessible names as people read them (SkillreelLocate.accessibleName, white space
// collapsed). Which option is chosen is decided in Python (replay/steps/choosing.py).
var SkillreelListbox = (() => {
  "use strict";
  const L = SkillreelLocate;

  function squash(text) {
    return String(text || "").replace(/\s+/g, " ").trim();
  }

  function visible(el) {
    if (!el || !el.isConnected) return false;
    if (typeof el.checkVisibility === "function" && !el.checkVisibility({visibilityProperty: true})) return false;
    const rect = el.getBoundingClientRect();
    return rect.width > 0 && rect.height > 0;
  }

  function isPicker(el) {
    if (!el || el.nodeType !== 1) return false;
    if (el.getAttribute("role") === "combobox") return el.localName !== "select";
    return el.getAttribute("aria-haspopup") === "listbox";
  }

  // The combobox el is, or is inside (a button's icon, an inner span), within three levels.
  function pickerOf(el) {
    for (let n = 0, cur = el; cur && n < 4; n += 1, cur = cur.parentElement) if (isPicker(cur)) return cur;
    // a click inside a label whose one control is a combobox (a Quasar field wraps its input)
    const label = el && el.closest ? el.closest("label") : null;
    if (!label) return null;
    const inner = label.querySelectorAll("[role=combobox], [aria-haspopup=listbox]");
    return inner.length === 1 ? inner[0] : null;
  }

  function visibleListboxes() {
    return new Set(Array.from(document.querySelectorAll("[role=listbox]")).filter(visible));
  }

  function byIds(root, ids) {
    const found = [];
    for (const id of String(ids || "").split(/\s+/)) {
      if (!id) continue;
      const el = (root.getElementById ? root : document).getElementById(id);
      if (el) found.push(el);
    }
    return found;
  }

  function owned(box) {
    const sources = [box, ...box.querySelectorAll("[aria-controls], [aria-owns]")];
    const outer = box.parentElement ? box.parentElement.closest("[role=combobox]") : null;
    if (outer) sources.push(outer);
    for (const source of sources) {
      for (const name of ["aria-controls", "aria-owns"]) {
        for (const el of byIds(source.getRootNode(), source.getAttribute(name))) {
          const list = el.getAttribute("role") === "listbox" ? el : el.querySelector("[role=listbox]");
          if (list && visible(list)) return list;
        }
      }
    }
    return null;
  }

  function listboxOf(box, before) {
    const mine = owned(box);
    if (mine) return mine;
    const fresh = Array.from(visibleListboxes()).filter((l) => !before.has(l) && !l.contains(box));
    return fresh.length === 1 ? fresh[0] : null;
  }

  function optionsOf(listbox) {
    return Array.from(listbox.querySelectorAll("[role=option]")).filter(
      (o) => visible(o) && o.closest("[role=listbox]") === listbox,
    );
  }

  function enabled(option) {
    if (option.hasAttribute("disabled")) return false;
    return option.closest("[aria-disabled=true]") === null;
  }

  function optionName(option) {
    return squash(L.accessibleName(option));
  }

  // ---- replay --------------------------------------------------------------------------------
  const state = {box: null, before: new Set(), options: [], chosen: null};

  function arm() {
    const held = SkillreelResolve.held();
    state.box = held ? held.el : null;
    state.before = visibleListboxes();
    state.options = [];
    state.chosen = null;
    const box = state.box;
    const searchable = box !== null && box.localName === "input" && !box.readOnly && !box.disabled;
    return {held: box !== null, searchable};
  }

  function options() {
    const list = state.box ? listboxOf(state.box, state.before) : null;
    if (!list) return {names: null};
    state.options = optionsOf(list).filter(enabled);
    return {names: state.options.map(optionName)};
  }

  function mark(arg) {
    const option = state.options[arg.index];
    if (!option || !option.isConnected) return false;
    option.setAttribute(arg.attr, arg.nonce);
    state.chosen = option;
    return true;
  }

  // The text a person reads at el, without any listbox inside it (an open menu rendered in place
  // would hold every option's name).
  function shownText(el) {
    if (!el.querySelector("[role=listbox]")) return squash(el.textContent);
    const copy = el.cloneNode(true);
    for (const list of copy.querySelectorAll("[role=listbox]")) list.remove();
    return squash(copy.textContent);
  }

  function shows(el, name) {
    if (!el) return false;
    if (typeof el.value === "string" && squash(el.value).includes(name)) return true;
    return shownText(el).includes(name);
  }

  function shown(arg) {
    const option = state.chosen;
    if (option) option.removeAttribute(arg.attr);
    const box = state.box;
    if (option && option.isConnected && option.getAttribute("aria-selected") === "true") return true;
    if (!box || !box.isConnected) return false;
    const name = squash(arg.name);
    const near = [box, box.closest("label"), ...Array.from(box.labels || [])];
    if (box.parentElement && !box.parentElement.querySelector("[role=option]")) near.push(box.parentElement);
    return near.some((el) => shows(el, name));
  }

  const API = {arm, options, mark, shown};

  function call(method, arg) {
    if (!Object.prototype.hasOwnProperty.call(API, method)) throw new Error("unknown method");
    return API[method](arg);
  }

  return Object.freeze({call, pickerOf, isPicker, visibleListboxes, listboxOf, optionsOf, enabled, optionName});
})();
