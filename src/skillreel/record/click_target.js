// skillreel record/click_target.js — the element a trusted click acts on (issue 28, point 2).
//
// Evaluated after locate/fingerprint.js and before recorder.js, in the recorder's isolated world.
// Reads of the DOM only; nothing here reports anything:
//
//   SkillreelClickTarget.control(label)  -> the one element a <label> names (`for=`, its nested
//                                          control, the one element whose `aria-labelledby` names
//                                          it, or the one field of its group for a floating label
//                                          with neither), or null
//   SkillreelClickTarget.of(el)          -> el; for a <label>, its control when that is rendered
//                                          (a hidden checkbox behind a styled label stays the label)
//                                          and the click reaches it: the browser forwards it (a
//                                          labelable control) or the label is drawn over or around
//                                          it (a label beside a custom control it does not forward
//                                          to stays the label: the control never got that click)
//                                          A click on the face of a custom select (its shown
//                                          value, its arrow) that is no control itself is the
//                                          combobox's when it is drawn over it and a wrapper
//                                          around both (3 levels at most) holds that one combobox
//                                          and no other control
//   SkillreelClickTarget.opensPopup(el)  -> el is readonly or a combobox / popup opener: a click on
//                                          it does something of its own, it is not only focusing
//                                          a field for an edit
//
// A click on a label is recorded as a click on its control, so the step is found by the control's
// locator (its id, role and name), never by a position path of the label.
var SkillreelClickTarget = (() => {
  "use strict";

  const FIELDS = "input:not([type=hidden]), select, textarea";
  const POPUP = "[role=combobox], [aria-haspopup]:not([aria-haspopup=false])";
  const NAMED = `${FIELDS}, ${POPUP}, button, [role], [tabindex]`;
  const CONTROL = `${FIELDS}, ${POPUP}, button, a[href], label, summary, [onclick], [role=button], [role=link], `
    + "[role=checkbox], [role=radio], [role=switch], [role=tab], [role=menuitem], [role=option], "
    + "[tabindex]:not([tabindex='-1'])";

  // The element has a box a click can land on (opacity does not count, as for Playwright).
  function rendered(el) {
    const box = el.getBoundingClientRect();
    if (box.width <= 0 || box.height <= 0) return false;
    return getComputedStyle(el).visibility !== "hidden";
  }

  function usable(el) {
    return Boolean(el) && !el.disabled && el.getAttribute("aria-hidden") !== "true" && rendered(el);
  }

  // The one usable element of `nodes`, or null (none or several: no guess).
  function one(nodes) {
    const found = Array.from(nodes).filter(usable);
    return found.length === 1 ? found[0] : null;
  }

  function byId(root, id) {
    if (!id || typeof root.getElementById !== "function") return null;
    return root.getElementById(id);
  }

  function labelledBy(root, label) {
    if (!label.id) return null;
    const naming = Array.from(root.querySelectorAll("[aria-labelledby]")).filter((el) =>
      (el.getAttribute("aria-labelledby") || "").split(/\s+/).includes(label.id));
    return one(naming);
  }

  // A floating label placed beside its field with no `for=` (older component libraries): the one
  // field of the group the label is the only label of.
  function groupField(label) {
    const group = label.parentElement;
    if (!group || group === document.body || group.querySelectorAll("label").length !== 1) return null;
    return one(group.querySelectorAll(`${FIELDS}, ${POPUP}`));
  }

  function control(label) {
    if (label.control) return label.control;
    const root = label.getRootNode();
    if (label.htmlFor) {
      const named = byId(root, label.htmlFor);
      return named && named.matches(NAMED) ? named : null;
    }
    return one(label.querySelectorAll(`${FIELDS}, ${POPUP}`)) || labelledBy(root, label) || groupField(label);
  }

  function overlaps(a, b) {
    const x = a.getBoundingClientRect();
    const y = b.getBoundingClientRect();
    return x.left < y.right && y.left < x.right && x.top < y.bottom && y.top < x.bottom;
  }

  // The one combobox of the nearest wrapper of `el` (at most 3 levels up) that holds any control,
  // when that is the only control it holds and `el` is drawn over it; else null.
  function comboboxAround(el) {
    let node = el;
    for (let depth = 0; node && depth <= 3 && node !== document.body; depth++, node = node.parentElement) {
      const controls = Array.from(node.querySelectorAll(CONTROL)).filter(usable);
      if (!controls.length) continue;
      const only = controls.length === 1 ? controls[0] : null;
      return only && only.matches(POPUP) && overlaps(el, only) ? only : null;
    }
    return null;
  }

  function of(el) {
    if (!el || el.nodeType !== 1) return el;
    if (!el.matches(CONTROL)) return comboboxAround(el) || el;
    if (el.localName !== "label") return el;
    const named = control(el);
    if (!named || !usable(named)) return el;
    return named === el.control || el.contains(named) || overlaps(el, named) ? named : el;
  }

  function opensPopup(el) {
    return el.readOnly === true || el.matches(POPUP);
  }

  return Object.freeze({control, of, opensPopup});
})();
