// skillreel record/picker.js — the recorder's popup pickers: a trusted click or key on a combobox
// (role=combobox, aria-haspopup=listbox; a label whose one control is one), then a click on a
// role=option of the role=listbox that opened after it (owned through aria-controls/aria-owns, or
// newly visible anywhere: locate/listbox.js) is ONE `choose` event on the combobox: the option's
// accessible name is its value, the enabled options' names its options. The opening click is not a
// step of its own; when no option is chosen (the person clicks elsewhere or closes the list), it is
// reported then as the click it was, never dropped.
// A combobox that shows its option in its name ("Selected High. Priority", a button reading
// "High") is identified by that name without the option (SkillreelListbox.unshown): its name and
// text hashes are of the name with the shown words marked, its aria-label and any candidate that
// holds the name are left out; replay (locate/resolve.js) takes a name with any words in that
// place as the same name. Its parameter is named by its label, never by the option it shows.
//
// Evaluated after locate/listbox.js and before recorder.js, which makes one with what it needs:
//   SkillreelPickerRecorder({report, describe, whenReady, sanitize, echoes, hash})   hash: the
//                     salted text hash of the recording
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
    const name = L.accessibleName(box);  // in memory only: what the box showed when it opened
    open = {box, before: X.visibleNow(), target: null, gesture: !key, key: Boolean(key), name};
    const opened = open;
    api.whenReady(() => {
      opened.target = api.describe(via || box);
    });
  }

  function down(el, key) {
    if (key !== null && key !== "Enter") {
      if (open) settleOpen(); // Escape, Tab...: the list closes with nothing chosen
      return false;
    }
    if (chosen) report(chosen); // a choice whose click never came
    const option = key === null ? optionOf(el) : null;
    if (option) {
      chosen = snapshot(option);
      return true;
    }
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
    return {option, value: X.optionName(option), options, seen};
  }

  // The choice is made: report it (on the option's click; or right after the pointer went up, for
  // a list that chooses on pointerup and goes away before any click).
  function report(choice) {
    const was = open;
    open = null;
    chosen = null;
    const {value, options, seen} = choice;
    api.whenReady(() => {
      const shown = [value, ...(seen || [])];
      const target = unshow(was.target || api.describe(was.box), was, shown);
      if (!target || !value) return api.report({type: "human", reason: "other", target: null});
      const field = {control: "select", paramHint: hint(was.box, shown), sensitive: false};
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
    return candidates.length ? {...target, candidates, fingerprint: fp} : null;
  }

  function click(el) {
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
    return X.pickerOf(el) === open.box; // a click on the open picker again
  }

  // A list that chooses on pointerup and is gone before the click (Radix): the choice is reported
  // once the events of that release are over, unless its click reported it.
  window.addEventListener("pointerup", (event) => {
    const pending = chosen;
    if (event.isTrusted && pending) setTimeout(() => chosen === pending && report(pending), 0);
  }, {capture: true, passive: true});

  return Object.freeze({down, click, flush: settleOpen});
};
