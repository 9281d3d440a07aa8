// skillreel record/picker.js — the recorder's popup pickers: a trusted click or key on a combobox
// (role=combobox, aria-haspopup=listbox; a label whose one control is one), then a click on a
// role=option of the role=listbox that opened after it (owned through aria-controls/aria-owns, or
// newly visible anywhere: locate/listbox.js) is ONE `choose` event on the combobox: the option's
// accessible name is its value, the enabled options' names its options. The opening click is not a
// step of its own; when no option is chosen (the person clicks elsewhere or closes the list), it is
// reported then as the click it was, never dropped.
// A list that stays open after a choice (aria-multiselectable, or still open when the next option is
// pressed) takes each choice as its own `choose` (field control "multiselect"); the backdrop click or
// Escape that closes it then is no step (reported as dropped: `picker-closed`). Enter on an option
// the arrow keys made active (aria-activedescendant, or a focused option) is a choice by its name.
// A skin over a hidden native single <select> that mirrors the choice (select2, bootstrap-select)
// records a `select` of that <select> instead (api.recordSelect), so a new skin replays.
// A combobox that shows its option in its name ("Selected High. Priority", a button reading
// "High") is identified by that name without the option (SkillreelListbox.unshown): its name and
// text hashes are of the name with the shown words marked, its aria-label and any candidate that
// holds the name are left out; replay (locate/resolve.js) takes a name with any words in that
// place as the same name. Its parameter is named by its label, never by the option it shows.
//
// Evaluated after locate/listbox.js and before recorder.js, which makes one with what it needs:
//   SkillreelPickerRecorder({report, describe, whenReady, sanitize, echoes, hash, dropped, flushEdits,
//                            recordSelect})   recordSelect(select): report that <select>'s edit
//                     hash: the salted text hash of the recording; dropped(reason): an event not
//                     kept, counted in the record result; flushEdits(): report the edits in progress
//     .down(el, key)    a trusted pointerdown (key null) or key press at el; true when it opened
//                       or chose in a picker (the caller records nothing more of it)
//     .click(el)        a trusted click at el; true when the picker consumed it (it listens to
//                       pointerup itself: a list that chooses then may never send the click)
//     .flush()          the page goes away: an opening click with no choice is reported
var SkillreelPickerRecorder = (api) => {
  "use strict";
  const X = SkillreelListbox;
  const L = SkillreelLocate;
  // open: {box, before, target, gesture, key} (gesture: the opening pointer's click has not come
  // yet; key: Enter opened it);
  // chosen: {option} a pointerdown on an option of the open list, its click still to come
  let open = null;
  let chosen = null;
  // kept: the `open` of the last choice, while its list may still be shown (a multi-select list
  // stays open after a choice: the next option clicked in it is another choice on that combobox)
  let kept = null;
  let closingClick = false; // the click of a pointerdown that closed a kept list (not a step)

  function optionOf(el) {
    if (!open || !el || !el.closest) return null;
    const list = X.listboxOf(open.box, open.before);
    const option = list ? X.optionsOf(list).find((o) => o.contains(el)) : null;
    return option && X.enabled(option) ? option : null;
  }

  // A searchable combobox: an editable text input. Clicking it focuses a field (its edit is
  // recorded, as any field's), and Enter in it is the press it always was.
  function editable(box) {
    return (box.localName === "input" || box.localName === "textarea") && !box.readOnly && !box.disabled;
  }

  // The opening click (or Enter) was all that happened: report it as the step it was (a searchable
  // combobox's focusing click is none: what was typed is).
  function settleOpen() {
    if (chosen) return report(chosen);
    const was = open;
    open = null;
    chosen = null;
    if (!was || editable(was.box)) return;
    api.whenReady(() => {
      if (!was.target) return api.report({type: "human", reason: "other", target: null});
      api.report(was.key ? {type: "press", key: "Enter", target: was.target} : {type: "click", target: was.target});
    });
  }

  // `via`: what was clicked, when it was not the combobox but beside it (reported as itself when
  // nothing is chosen, as it would have been without a picker).
  function start(box, key, via) {
    kept = null;
    const name = L.accessibleName(box);  // in memory only: what the box showed when it opened
    open = {box, before: X.visibleNow(), target: null, gesture: !key, key: Boolean(key), name};
    const opened = open;
    api.whenReady(() => {
      opened.target = api.describe(via || box);
    });
  }

  function down(el, key) {
    closingClick = false;
    if (key === "Escape" && !open && kept && kept.box.isConnected && X.listboxOf(kept.box, kept.before)) {
      kept = null;
      api.dropped("picker-closed"); // Escape closes the list that stayed open after a choice
      return true;
    }
    if (key !== null && key !== "Enter") {
      kept = null;
      if (open) settleOpen(); // Escape, Tab...: the list closes with nothing chosen
      return false;
    }
    if (chosen) report(chosen); // a choice whose click never came
    if (!open && key === null && reopen(el)) return true;
    const option = key === null ? optionOf(el) : activeOption(el);
    if (option) {
      if (key !== null) api.flushEdits(); // what was typed to filter the list comes first
      chosen = snapshot(option);
      if (key !== null) report(chosen); // Enter chose the option the arrow keys moved to
      return true;
    }
    kept = null;
    const own = X.pickerOf(el);
    const box = own; // what a click beside a picker acts on is record/click_target.js's to say
    if (key !== null && box && editable(box)) {
      if (open) settleOpen();
      return false;
    }
    if (open && box === open.box) {
      open.gesture = key === null;
      return true; // the same picker again (it closes or stays open): still one gesture
    }
    if (open) settleOpen();
    if (!box) return false;
    start(box, key, own ? null : el);
    return true;
  }

  // A list that stayed open after its choice (a multi-select): a pointerdown on another of its
  // options is a choice on the same combobox (`open` again); one on a backdrop covering the page
  // only closes the list (the `choose` step leaves a list it opened closed): reported as dropped.
  function reopen(el) {
    const was = kept;
    if (!was || !was.box.isConnected) return false;
    const list = X.listboxOf(was.box, was.before);
    if (!list) return false;
    open = {...was, gesture: false, key: false, again: true};
    if (optionOf(el)) return false; // the caller takes it as a choice
    open = null;
    if (!backdrop(el)) return false;
    kept = null;
    api.dropped("picker-closed");
    closingClick = true;
    return true;
  }

  // A backdrop: an element of no role fixed over (almost) the whole viewport.
  function backdrop(el) {
    if (!el || el.nodeType !== 1 || el.getAttribute("role") === "button") return false;
    if (getComputedStyle(el).position !== "fixed") return false;
    const r = el.getBoundingClientRect();
    return r.width >= window.innerWidth * 0.9 && r.height >= window.innerHeight * 0.9;
  }

  // The option Enter chooses: the active descendant (aria-activedescendant of the element that has
  // the focus, or of its combobox) or a focused option, of the list its combobox opened; the
  // combobox's `open` is set for it (an arrow key may have opened the list: no click did).
  function activeOption(el) {
    if (!el || el.nodeType !== 1) return null;
    const box = (open && open.box) || X.pickerOf(el) || (kept && kept.box) || controller(el);
    if (!box) return null;
    let option = el.getAttribute("role") === "option" ? el : null;
    for (const holder of [el, box]) option = option || byId(holder, holder.getAttribute("aria-activedescendant"));
    if (!option || option.getAttribute("role") !== "option" || !X.enabled(option)) return null;
    const again = !open && kept !== null && kept.box === box;  // a list left open after a choice
    const was = open || (again ? {...kept, gesture: false, key: true, again} :
      {box, before: new Set(), target: null, gesture: false, key: true, name: L.accessibleName(box)});
    const list = X.listboxOf(was.box, was.before);
    if (!list || !X.optionsOf(list).includes(option)) return null;
    open = was;
    return option;
  }

  function byId(near, id) {
    if (!id) return null;
    const root = near.getRootNode();
    return (typeof root.getElementById === "function" ? root : document).getElementById(id);
  }

  // The combobox controlling a focused listbox (Headless UI moves the focus into its list).
  function controller(el) {
    const list = el.closest ? el.closest("[role=listbox]") : null;
    if (!list || !list.id) return null;
    const box = document.querySelector(`[aria-controls~="${CSS.escape(list.id)}"], [aria-owns~="${CSS.escape(list.id)}"]`);
    return box && X.isPicker(box) ? box : null;
  }

  // A label without the option it shows: the sentences of it that hold no shown option ("Selected
  // High. Priority": "Priority"), else the words left once the option is taken out; null if none.
  function unshownLabel(text, shown) {
    const holds = (t) => shown.some((v) => X.unshown(t, v) !== null);
    if (!text || !holds(text)) return text;
    const rest = text.split(/(?<=[.;:])\s+/).filter((t) => !holds(t)).join(" ");
    if (/[\p{L}\p{N}]/u.test(rest)) return rest;
    for (const v of shown) {
      const left = X.unshown(text, v);
      if (left !== null) return left.replace("\u2026", " ").replace(/^[\s.;:,]+|[\s.;:,]+$/g, "") || null;
    }
    return null;
  }

  // What the parameter is called: the picker's own label (never the value it shows).
  function hint(box, shown) {
    const texts = [box.getAttribute("aria-label")];
    for (const id of String(box.getAttribute("aria-labelledby") || "").split(/\s+/)) {
      const el = id && id !== box.id ? document.getElementById(id) : null;
      if (el) texts.push(el.textContent);
    }
    const label = box.closest("label") || (box.labels && box.labels[0]) || null;
    if (label) {
      const copy = label.cloneNode(true);
      const shown = label.contains(box) ? box.parentElement : null;
      if (shown && shown !== label) {
        const path = [];
        for (let at = shown; at && at !== label; at = at.parentElement) path.unshift(Array.prototype.indexOf.call(at.parentElement.children, at));
        let twin = copy;
        for (const i of path) twin = twin && twin.children[i];
        if (twin) twin.remove();
      }
      texts.push(copy.textContent);
    }
    texts.push(box.getAttribute("name"), box.getAttribute("placeholder"));
    for (const raw of texts) {
      const text = unshownLabel(raw, shown);
      const h = text && !api.echoes(text) ? api.sanitize(text) : null;
      if (h && !api.echoes(h)) return h;
    }
    return "choice";
  }

  // The list's names: each enabled option once, in page order; null when a name repeats.
  function names(list) {
    const all = X.optionsOf(list).filter(X.enabled).map(X.optionName);
    return new Set(all).size === all.length && all.length <= 256 ? all : null;
  }

  // What a choice is, read while its list is still shown (a pointerdown on the option): the
  // option's name and the names of the list, unless it was searched or loads lazily.
  function snapshot(option) {
    const list = X.listboxOf(open.box, open.before);
    const shownNow = list ? X.optionsOf(list) : [];
    const lazy = list && (list.getAttribute("aria-busy") === "true" || list.querySelector("[aria-setsize]") ||
      X.partial(list, shownNow));
    const options = list && !lazy && !editable(open.box) ? names(list) : null;
    // every name shown now, in memory only: what the box may show in its name
    const seen = shownNow.filter(X.enabled).map(X.optionName).filter(Boolean);
    // a list that takes several choices: it says so, or it stayed open after one
    const multiple = Boolean(open.again) || Boolean(list && list.getAttribute("aria-multiselectable") === "true");
    return {option, value: X.optionName(option), options, seen, multiple};
  }

  // The choice is made: report it (on the option's click; or right after the pointer went up, for
  // a list that chooses on pointerup and goes away before any click).
  function report(choice) {
    const was = open;
    open = null;
    chosen = null;
    kept = was;
    const mirror = choice.multiple ? null : mirrorOf(was.box);
    if (!mirror) return reportChoose(was, choice);
    // once the page has handled the choice: the native select it mirrors shows the option, then
    // the step is a select of that <select> (replay keeps working when the skin changes)
    setTimeout(() => (shows(mirror, choice.value) ? api.recordSelect(mirror) : reportChoose(was, choice)), 0);
  }

  // A native single <select> a custom skin mirrors (select2, bootstrap-select): the one <select>
  // near the combobox (three levels up at most) that is rendered (a box a select_option can act
  // on) but not seen by a person (no opacity, clipped, a pixel or less, or aria-hidden).
  function mirrorOf(box) {
    for (let n = 0, at = box.parentElement; at && at !== document.body && n < 3; n += 1, at = at.parentElement) {
      const selects = Array.from(at.querySelectorAll("select"));
      if (selects.length > 1) return null;
      if (selects.length === 1) return unseen(selects[0]) ? selects[0] : null;
    }
    return null;
  }

  function unseen(select) {
    if (select.multiple || select.disabled) return false;
    const rect = select.getBoundingClientRect();
    if (rect.width <= 0 || rect.height <= 0) return false;  // not rendered: replay could not select it
    const style = getComputedStyle(select);
    if (style.visibility === "hidden") return false;
    return style.opacity === "0" || rect.width <= 1 || rect.height <= 1 || select.getAttribute("aria-hidden") === "true" ||
      (style.clip !== "auto" && style.clip !== "") || style.clipPath !== "none";
  }

  function shows(select, name) {
    const option = select.selectedOptions && select.selectedOptions[0];
    const squash = (t) => String(t || "").replace(/\s+/g, " ").trim();
    return Boolean(option) && squash(option.label) === squash(name);
  }

  function reportChoose(was, choice) {
    const {value, options, seen, multiple} = choice;
    api.whenReady(() => {
      const shown = [value, ...(seen || [])];
      const target = unshow(was.target || api.describe(was.box), was, shown);
      if (!target || !value) return api.report({type: "human", reason: "other", target: null});
      const field = {control: multiple ? "multiselect" : "select", paramHint: hint(was.box, shown), sensitive: false};
      const event = {type: "choose", target, field, value};
      if (options && !options.some((n) => api.echoes(n))) event.options = options;
      api.report(event);
    });
  }

  // The box's target without the option its name shows (when it shows one: at opening, else now).
  function unshow(target, was, shown) {
    if (!target || !target.fingerprint) return target;
    const names = [was.name, L.accessibleName(was.box)];
    let masked = null;
    let name = null;
    for (const n of names) {
      for (const v of shown) {
        masked = X.unshown(n, v);
        if (masked !== null) break;
      }
      if (masked !== null) {
        name = n;
        break;
      }
    }
    if (masked === null) return target;
    const full = names.map((n) => api.hash(n)).filter(Boolean);
    const fp = {...target.fingerprint, nameHash: api.hash(masked)};
    if (full.includes(fp.textHash)) fp.textHash = api.hash(masked);
    const attributes = {...(fp.attributes || {})};
    delete attributes["aria-label"];  // the name itself: its words shown vary
    fp.attributes = attributes;
    const quoted = (sel) => (sel.match(/"[^"]*"|'[^']*'/g) || []).join(" ");
    const candidates = target.candidates.filter((c) => {
      const sel = String(c.selector || "");
      const text = quoted(sel);
      return !full.some((h) => sel.includes(h)) && ![name, ...shown].some((v) => X.unshown(text, v) !== null);
    });
    const {displayName: _shown, ...rest} = target;  // the name shows the option: no display name
    return candidates.length ? {...rest, candidates, fingerprint: fp} : null;
  }

  function click(el) {
    if (closingClick) {
      closingClick = false;
      return true;
    }
    if (chosen) {
      report(chosen);
      return true;
    }
    if (!open) return false;
    const option = optionOf(el); // its pointerdown went elsewhere (a list opened under the pointer)
    if (option) {
      report(snapshot(option));
      return true;
    }
    if (open.gesture) {
      open.gesture = false;   // the opening pointer's own click (on a backdrop too): not a step
      return true;
    }
    return X.pickerOf(el) === open.box; // a click on the open picker again (a label's forwarded click)
  }

  // A list that chooses on pointerup and is gone before the click (Radix): the choice is reported
  // once the events of that release are over, unless its click reported it.
  window.addEventListener("pointerup", (event) => {
    const pending = chosen;
    if (event.isTrusted && pending) setTimeout(() => chosen === pending && report(pending), 0);
  }, {capture: true, passive: true});

  return Object.freeze({down, click, flush: settleOpen});
};
