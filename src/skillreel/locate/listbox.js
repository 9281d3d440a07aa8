// skillreel locate/listbox.js — popup pickers: a combobox (role=combobox, or an element with
// aria-haspopup=listbox) and the role=listbox of role=option elements it opens, often teleported to
// the end of <body> (Quasar, MUI, Headless UI, Radix, Ant Design, Vuetify). Loaded after
// fingerprint.js, in the recorder's world (what it recognises) and in replay's isolated world (what
// a `choose` step opens and picks).
//
//   SkillreelListbox.pickerOf(el)        -> the combobox el is or belongs to, or null
//   SkillreelListbox.visibleNow()        -> the listboxes and option-like elements visible now (a Set)
//   SkillreelListbox.listboxOf(box, before) -> the listbox box owns (aria-controls / aria-owns, its
//       own or an inner element's) when visible, else the one listbox visible now that was not in
//       `before` (visibleNow() before it opened); else, for a list whose role=listbox is an
//       accessibility-only copy of no size (Ant Design), the nearest element holding every
//       option-like element (role=option, or aria-selected on no tab, row or cell) newly visible;
//       null when none or several
//   SkillreelListbox.optionsOf(list)     -> its visible option-like elements, in page order
//   SkillreelListbox.partial(list, options) -> whether a virtual list renders only part of them
//   SkillreelListbox.enabled(option), SkillreelListbox.optionName(option)
//   SkillreelListbox.unshown(name, value), SkillreelListbox.unshownNames(name) -> a combobox's name
//       without the option it shows (its identity: see below)
//   SkillreelListbox.call(method, arg)   -> replay's calls (settle.js routes "listbox.NAME" here):
//       arm({})                  remember the element marked for the next action as the combobox
//                                and the listboxes visible before it is opened -> {held, searchable,
//                                open} (searchable: an editable text input, typed into to filter;
//                                open: the list it owns is shown already, so it is not clicked)
//       options({})              the open listbox's enabled options -> {names} or {names: null}
//       mark({index, attr, nonce}) mark that option for Playwright's click -> true; "chosen" when it
//                                is chosen already in a list of several choices (aria-multiselectable:
//                                clicking it would take it out), false when it is gone
//       shown({name, attr})      after the click: whether the combobox shows the choice (the option
//                                aria-selected, or its name shown at the combobox: a chip) -> bool
//       left({})                 whether the list the step opened is still shown (a multi-select
//                                stays open after a choice; the step then closes it) -> bool
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

  const PICKERS = "[role=combobox], [aria-haspopup=listbox]";
  const OPTIONISH =
    "[role=option], [aria-selected]:not([role=tab]):not([role=row]):not([role=gridcell])" +
    ":not([role=columnheader]):not([role=rowheader]):not([role=treeitem])";

  // The combobox el is, or is inside (a button's icon, an inner span), within three levels.
  function pickerOf(el) {
    for (let n = 0, cur = el; cur && n < 4; n += 1, cur = cur.parentElement) if (isPicker(cur)) return cur;
    // a click inside a label whose one control is a combobox (a Quasar field wraps its input)
    const label = el && el.closest ? el.closest("label") : null;
    if (!label) return null;
    const inner = label.querySelectorAll(PICKERS);
    return inner.length === 1 ? inner[0] : null;
  }

  function visibleListboxes() {
    return Array.from(document.querySelectorAll("[role=listbox]")).filter(visible);
  }

  function visibleNow() {
    return new Set([...visibleListboxes(), ...Array.from(document.querySelectorAll(OPTIONISH)).filter(visible)]);
  }

  // The nearest element holding all of `els`.
  function common(els) {
    let at = els[0].parentElement;
    while (at && !els.every((el) => at.contains(el))) at = at.parentElement;
    return at;
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
    const fresh = visibleListboxes().filter((l) => !before.has(l) && !l.contains(box));
    if (fresh.length) return fresh.length === 1 ? fresh[0] : null;
    const items = Array.from(document.querySelectorAll(OPTIONISH)).filter(
      (o) => visible(o) && !before.has(o) && !box.contains(o) && !o.contains(box),
    );
    const holder = items.length ? common(items) : null;
    return holder && holder !== document.body && holder !== document.documentElement && !holder.contains(box)
      ? holder
      : null;
  }

  function optionsOf(list) {
    if (list.getAttribute("role") !== "listbox") {
      return Array.from(list.querySelectorAll(OPTIONISH)).filter((o) => visible(o) && !o.closest("[role=listbox]"));
    }
    return Array.from(list.querySelectorAll("[role=option]")).filter(
      (o) => visible(o) && o.closest("[role=listbox]") === list,
    );
  }

  // Whether a list shows only part of its options (a virtual list: what scrolls is taller than the
  // options rendered in it, by more than two of them).
  function partial(list, options) {
    let scroller = null;
    for (const el of [list, ...list.querySelectorAll("*")].slice(0, 64)) {
      const y = getComputedStyle(el).overflowY;
      if ((y === "auto" || y === "scroll") && el.scrollHeight > el.clientHeight + 1) scroller = el;
      if (scroller) break;
    }
    for (let n = 0, at = list.parentElement; !scroller && at && n < 3; n += 1, at = at.parentElement) {
      const y = getComputedStyle(at).overflowY;
      if ((y === "auto" || y === "scroll") && at.scrollHeight > at.clientHeight + 1) scroller = at;
    }
    if (!scroller || !options.length) return false;
    const rendered = options.reduce((sum, o) => sum + o.getBoundingClientRect().height, 0);
    return scroller.scrollHeight > rendered + (2 * rendered) / options.length;
  }

  function enabled(option) {
    if (option.hasAttribute("disabled")) return false;
    return option.closest("[aria-disabled=true]") === null;
  }

  // An option's accessible name; an option-like element without a role is named by its text.
  function optionName(option) {
    const name = squash(L.accessibleName(option));
    return name || (option.getAttribute("role") ? "" : squash(option.textContent));
  }

  // ---- a combobox's name without the option it shows ----------------------------------------
  // Many pickers put the option they show in the combobox's name ("Selected High. Priority", a
  // button reading "High"): its identity is that name with the shown option's words replaced by
  // one mark (SHOWN), so it does not depend on which option is shown. Lower-cased, as hashed.
  //   unshown(name, value)   the name with value's first whole-word occurrence marked, or null
  //   unshownNames(name)     the name with each run of whole words marked in turn (what unshown
  //                          gives for any option shown in that place), at most SHOWN_WORDS words
  const SHOWN = "\u2026";
  const SHOWN_WORDS = 16;

  function wordSpans(text) {
    const spans = [];
    for (const m of text.matchAll(/[\p{L}\p{N}]+/gu)) spans.push([m.index, m.index + m[0].length]);
    return spans;
  }

  function unshown(name, value) {
    const n = squash(name).toLowerCase();
    const v = squash(value).toLowerCase();
    if (!n || !v) return null;
    const spans = wordSpans(n);
    const ends = new Set(spans.map((s) => s[1]));
    for (const [start] of spans) {
      if (n.startsWith(v, start) && ends.has(start + v.length)) return n.slice(0, start) + SHOWN + n.slice(start + v.length);
    }
    return null;
  }

  function unshownNames(name) {
    const n = squash(name).toLowerCase();
    const spans = wordSpans(n);
    const out = [];
    if (!spans.length || spans.length > SHOWN_WORDS) return out;
    for (let i = 0; i < spans.length; i++) {
      for (let j = i; j < spans.length; j++) out.push(n.slice(0, spans[i][0]) + SHOWN + n.slice(spans[j][1]));
    }
    return out;
  }

  // ---- replay --------------------------------------------------------------------------------
  const state = {box: null, before: new Set(), options: [], chosen: null, list: null, wasOpen: false};

  function arm() {
    const held = SkillreelResolve.held();
    state.box = held ? held.el : null;
    state.before = visibleNow();
    state.options = [];
    state.chosen = null;
    const box = state.box;
    const searchable = box !== null && box.localName === "input" && !box.readOnly && !box.disabled;
    // its own list is shown already (a picker that opens on focus): a click would close it
    state.wasOpen = box !== null && owned(box) !== null;
    state.list = null;
    return {held: box !== null, searchable, open: state.wasOpen};
  }

  function options() {
    const list = state.box ? listboxOf(state.box, state.before) : null;
    if (!list) return {names: null};
    state.list = list;
    state.options = optionsOf(list).filter(enabled);
    return {names: state.options.map(optionName)};
  }

  // A list that stays open after a choice and takes several (aria-multiselectable, or an open list
  // that showed a chosen option as selected): a click on a chosen option would un-choose it.
  function multiple(list) {
    return list.getAttribute("aria-multiselectable") === "true";
  }

  // Mark the option for Playwright's click -> true; "chosen" when it is chosen already in a list
  // of several choices (not clicked: that would take it out); false when it is gone.
  function mark(arg) {
    const option = state.options[arg.index];
    if (!option || !option.isConnected) return false;
    state.chosen = option;
    if (state.list && multiple(state.list) && option.getAttribute("aria-selected") === "true") return "chosen";
    option.setAttribute(arg.attr, arg.nonce);
    return true;
  }

  // After the choice: whether the list this step opened is still shown (a multi-select stays open):
  // the step closes it, leaving the list as it found it.
  function left() {
    if (state.wasOpen || !state.box || !state.box.isConnected) return false;
    const list = state.list && state.list.isConnected && visible(state.list) ? state.list : listboxOf(state.box, state.before);
    if (list === null || !visible(list) || optionsOf(list).length === 0) return false;
    // still open, not closing (a list fading out has its combobox's aria-expanded false already)
    return multiple(list) || state.box.getAttribute("aria-expanded") === "true";
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
    // the field around it, two levels up at most, while it holds this picker only and no option
    // (Quasar and Ant Design show the value in a span beside the combobox input)
    for (let n = 0, at = box.parentElement; at && n < 2; n += 1, at = at.parentElement) {
      if (at.querySelector(OPTIONISH) || at.querySelectorAll(PICKERS).length !== 1) break;
      near.push(at);
    }
    return near.some((el) => shows(el, name));
  }

  const API = {arm, options, mark, shown, left};

  function call(method, arg) {
    if (!Object.prototype.hasOwnProperty.call(API, method)) throw new Error("unknown method");
    return API[method](arg);
  }

  return Object.freeze({call, pickerOf, isPicker, visibleNow, listboxOf, optionsOf, partial, enabled, optionName,
    unshown, unshownNames});
})();
