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
// Anything else (a hover that changed nothing the click used) gives null: no hover step. The pointer
// rests only where it moved to: the boundary events the browser sends when the page changes under a
// still pointer (a view rendered after a click), or on the page's body or root, start no rest.
const SkillreelHoverWatch = (() => {
  const REST_MS = 1500;
  const shown = new WeakMap();   // an element that appeared or changed -> the element the pointer had entered
  let resting = null;            // {el, at}: where the pointer came to rest, until a press or a key
  let overAt = null;             // {x, y}: where the pointer was at the last boundary event

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
      if (!event.isTrusted || !event.target || event.target.nodeType !== 1) return;
      // The browser also sends boundary events when the page changes under a pointer that did not
      // move (a view rendered after a click): those are no hover of a person's.
      const still = overAt !== null && overAt.x === event.clientX && overAt.y === event.clientY;
      overAt = {x: event.clientX, y: event.clientY};
      resting = page(event.target) || still ? null : {el: event.target, at: performance.now()};
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

  // The style rules of the document this world can read (a cross-origin sheet cannot be).
  function styleRules(doc) {
    const all = [];
    for (const sheet of Array.from(doc.styleSheets)) {
      try {
        for (const rule of Array.from(sheet.cssRules || [])) if (rule.selectorText && rule.style) all.push(rule);
      } catch (_) {
        continue;
      }
    }
    return all;
  }

  function matches(el, selector) {
    try {
      return el.matches(selector);
    } catch (_) {
      return false;
    }
  }

  // Whether a rule without `:hover` hides `el` (display none, visibility hidden, opacity 0), or its
  // own style does: what a `:hover` rule then overrides.
  function hiddenOtherwise(el, rules) {
    const hides = (style) =>
      style.getPropertyValue("display") === "none" ||
      style.getPropertyValue("visibility") === "hidden" ||
      style.getPropertyValue("opacity") === "0";
    if (hides(el.style)) return true;
    return rules.some((rule) => !rule.selectorText.includes(":hover") && hides(rule.style) && matches(el, rule.selectorText));
  }

  // The hovered ancestor a `:hover` rule names, when that rule shows `el` or an ancestor of it that
  // another rule hides.
  function byRule(el, doc) {
    const rules = styleRules(doc);
    for (const rule of rules) {
      const text = rule.selectorText;
      if (!text.includes(":hover") || !HIDES.some((p) => rule.style.getPropertyValue(p))) continue;
      for (const one of text.split(",")) {
        const at = one.indexOf(":hover");
        if (at < 0) continue;
        let shown = null;
        let by = null;
        try {
          shown = el.closest(one.trim());
          by = shown && el.closest(one.slice(0, at + 6).trim());
        } catch (_) {
          continue;   // a selector `closest` cannot take
        }
        if (by && by !== el && hovered(by) && hiddenOtherwise(shown, rules)) return by;
      }
    }
    return null;
  }

  // The document's root and body hold everything: a pointer resting there while the page renders
  // (a single-page app's first paint) shows nothing a person hovered over.
  function page(el) {
    const doc = el.ownerDocument;
    return el === doc.documentElement || el === doc.body;
  }

  function revealer(el) {
    if (!el || el.nodeType !== 1) return null;
    const by = byChange(el) || byRule(el, el.ownerDocument);
    return by && !page(by) ? by : null;
  }

  start(document);
  return {revealer};
})();
