// skillreel record/hover_watch.js — which element a person's resting pointer revealed the element
// a click acts on (issue 32.1).
//
// Evaluated before recorder.js, in the recorder's isolated world. Reads of the DOM only; nothing
// here reports anything:
//
//   SkillreelHoverWatch.revealer(el)  -> the element the pointer rests on whose hover showed `el`
//                                        (a menu that opens on hover), or null
//
// Two ways a hover shows something, both kept only while the pointer still rests on the element
// that showed it (it holds the clicked element, as a menu holds its items):
// * a stylesheet rule `A:hover B {display|visibility|opacity: ...}` that matches `el` or one of its
//   ancestors (B), with A a hovered ancestor of it (same-origin sheets; a sheet this world cannot
//   read is skipped);
// * a change the page made while the pointer rested on an element (mouseenter handlers: an
//   attribute of an element that is then rendered, or an element added), before any press or key:
//   the element changed or added is remembered as shown by the one the pointer had entered.
// Anything else (a hover that changed nothing the click used) gives null: no hover step.
const SkillreelHoverWatch = (() => {
  const REST_MS = 1500;
  const shown = new WeakMap();   // an element that appeared or changed -> the element the pointer had entered
  let resting = null;            // {el, at}: where the pointer came to rest, until a press or a key

  function rendered(el) {
    return typeof el.checkVisibility === "function" ? el.checkVisibility() : el.getClientRects().length > 0;
  }

  function onMutations(records) {
    if (!resting || performance.now() - resting.at > REST_MS) return;
    for (const record of records) {
      if (record.type === "childList") {
        for (const node of record.addedNodes) if (node.nodeType === 1) shown.set(node, resting.el);
      } else if (record.target.nodeType === 1 && !record.target.contains(resting.el) && rendered(record.target)) {
        shown.set(record.target, resting.el);
      }
    }
  }

  function start(doc) {
    const options = {capture: true, passive: true};
    doc.addEventListener("mouseover", (event) => {
      if (event.isTrusted && event.target && event.target.nodeType === 1) resting = {el: event.target, at: performance.now()};
    }, options);
    for (const type of ["pointerdown", "keydown"]) {
      doc.addEventListener(type, (event) => { if (event.isTrusted) resting = null; }, options);
    }
    const attributeFilter = ["class", "style", "hidden", "open", "aria-hidden", "aria-expanded"];
    new MutationObserver(onMutations).observe(doc, {subtree: true, childList: true, attributes: true, attributeFilter});
  }

  function hovered(el) {
    try {
      return el.matches(":hover");
    } catch (_) {
      return false;
    }
  }

  // The element a change the page made while the pointer rested showed `el` by, if still hovered.
  function byChange(el) {
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
      const by = shown.get(node);
      if (by && by !== el && by.isConnected && !el.contains(by) && by.contains(el) && hovered(by)) return by;
    }
    return null;
  }

  const HIDES = ["display", "visibility", "opacity"];

  // The hovered ancestor a `:hover` rule that shows `el` (or an ancestor of it) names.
  function byRule(el, doc) {
    for (const sheet of Array.from(doc.styleSheets)) {
      let rules;
      try {
        rules = sheet.cssRules;
      } catch (_) {
        continue;   // a cross-origin sheet: not readable here
      }
      for (const rule of Array.from(rules || [])) {
        const text = rule.selectorText;
        if (!text || !text.includes(":hover") || !rule.style || !HIDES.some((p) => rule.style.getPropertyValue(p))) continue;
        for (const one of text.split(",")) {
          const at = one.indexOf(":hover");
          if (at < 0) continue;
          try {
            if (!el.closest(one.trim())) continue;
            const by = el.closest(one.slice(0, at + 6).trim());
            if (by && by !== el && hovered(by)) return by;
          } catch (_) {
            continue;   // a selector `closest` cannot take
          }
        }
      }
    }
    return null;
  }

  function revealer(el) {
    if (!el || el.nodeType !== 1) return null;
    return byChange(el) || byRule(el, el.ownerDocument);
  }

  start(document);
  return {revealer};
})();
