// skillreel locate/collect.js — schema v2 measurement: sets of like elements, the whole-token
// filter, loop items, fields read relative to an item, reads of the picked element, scrolling.
//
// Evaluated after resolve.js in the same isolated world (replay only); defines `SkillreelCollect`.
// Every input arrives as the argument of a call; Python calls `SkillreelCollect.call(method, arg)`.
// The rules twin replay/fake.py (FakeDriver._set, ._field, locate/tokens.py contains_token); the
// fake's engine tests and the browser tests of tests/integration/replay/test_graph.py cover the
// same cases:
//
// * a set: the visible elements of the first candidate that designates any, all passing the gates;
//   failing that (healing allowed) the visible gate-passing elements of the fingerprint's tag at or
//   above healMin whose identity features agree, when they share one parent (else "ambiguous");
// * a field of an item: the one visible gate-passing element of the first candidate inside the
//   item; failing that (healing allowed) the most similar element inside the item, at or above
//   healMin, identity agreeing, ahead of the second by margin;
// * the whole-token filter: the element's visible text holds the value, case and whitespace runs
//   ignored, with no letter or digit right before or after it;
// * a target chosen by the filter: the one element of its set that holds the token; when the set
//   finds nothing (healing allowed), the one visible element of the recorded role on the page that
//   holds it; a target in a row: the one row of the row set holding the token, then the element
//   in that row by the field rule. None or several: nothing is chosen.
//
// Page text read here (a filter's comparison, a field's value) is returned only by the reads the
// engine turns into the caller's outputs; a filter answers counts and marks, never text.
//
//   SkillreelCollect.choose({set, token, row}) -> {outcome: one|none|many, healed, fingerprint, framed}
//       marks the one element like SkillreelResolve.pick ({attr, nonce} in set.mark); with `row`
//       (a set of rows), `set` is the element relative to the one row whose text holds the token
//   SkillreelCollect.open({set, token, loop, keep}) -> {count, outcome}   keep: remember the items
//   SkillreelCollect.item({loop, index}) -> {ok, known}   known: the loop is open in this document
//   SkillreelCollect.close({loop})
//   SkillreelCollect.fields({set: {salt, weights, ...}, fields, within}) -> [field reads]
//   SkillreelCollect.list({set, token, fields, limit}) -> {total, outcome, rows}
//   SkillreelCollect.read({read, attribute}) -> string | null      of SkillreelResolve's picked element
//   SkillreelCollect.optionByLabel({label}) -> value | null          of the picked <select>
//   SkillreelCollect.scrollState({}) / scrollEnd({}) -> {height, count}  of the picked element
//
// `set` = {candidates, fingerprint, salt, weights, identity, healMin, margin, allowHeal, within}:
// `identity` names the recorded attributes that count as identity (heal.CONTEXT_ATTRIBUTES and
// weightless ones excluded, decided in Python); `within` = {loop, index} or null.
var SkillreelCollect = (() => {
  "use strict";
  const L = SkillreelLocate;
  const R = SkillreelResolve;
  const MAX_TEXT = 65536;  // characters of one value read (the output bounds are checked in Python)

  const loops = new Map();  // loop id -> {elements, arg}

  function squash(text) {
    return String(text || "").replace(/\s+/g, " ").trim();
  }

  function visibleText(el) {
    const raw = typeof el.innerText === "string" ? el.innerText : el.textContent;
    return squash(raw).slice(0, MAX_TEXT);
  }

  const WORD = /[\p{L}\p{N}]/u;
  function containsToken(text, value) {
    const hay = squash(text).toLowerCase();
    const needle = squash(value).toLowerCase();
    if (!needle) return false;
    let start = hay.indexOf(needle);
    while (start >= 0) {
      const end = start + needle.length;
      const before = start > 0 ? hay[start - 1] : "";
      const after = end < hay.length ? hay[end] : "";
      if (!(before && WORD.test(before)) && !(after && WORD.test(after))) return true;
      start = hay.indexOf(needle, start + 1);
    }
    return false;
  }

  // Whether `el` is inside `root` (shadow roots crossed); `root` itself is not inside.
  function inside(root, el) {
    for (let n = el.parentNode || el.host; n; n = n.parentNode || n.host) {
      if (n === root) return true;
    }
    return false;
  }

  function scopeOf(within) {
    if (!within) return null;
    const open = loops.get(within.loop);
    const el = open ? open.elements[within.index] : undefined;
    return el && el.isConnected ? el : undefined;  // undefined: the item is gone, nothing is inside
  }

  function gates(c) {
    return c.tag && c.type && c.role && c.link !== "changed";
  }

  // Twin of heal.Comparison.identity_agrees.
  function identityAgrees(c, identity) {
    if (c.stableId || c.stableName || c.name === "same" || c.name === "alias") return true;
    if ([c.label, c.text, c.value, c.link].includes("same")) return true;
    return identity.some((n) => c.attributes[n] === "same");
  }

  // What one candidate designates, inside `root` (null: the document). Inside an item a plain CSS
  // selector is evaluated from the item, so `:scope > td` works; a chained or hashed one is resolved
  // in the document and kept when inside.
  function designated(candidate, salt, root) {
    const plain = !candidate.selector.includes(" >>> ") &&
      !["role-name", "href", "label"].includes(candidate.strategy);
    if (root && plain) {
      try {
        return Array.from(root.querySelectorAll(candidate.selector));
      } catch (_) {
        return [];
      }
    }
    const nodes = L.resolveCandidate(candidate, salt);
    return root ? nodes.filter((el) => inside(root, el)) : nodes;
  }

  function ofTag(rec, root) {
    if (root) return Array.from(root.getElementsByTagName(rec.tag));
    if (!rec.boundaries) return Array.from(document.getElementsByTagName(rec.tag));
    const out = [];
    for (const scope of L.scopes(rec.boundaries)) {
      for (const el of L.byTag(scope, rec.tag)) out.push(el);
    }
    return out;
  }

  // The set rule (module comment): [elements, "exact" | "healed" | "ambiguous"].
  function findSet(arg) {
    const root = scopeOf(arg.within);
    if (root === undefined) return [[], "exact"];
    const rec = arg.fingerprint;
    const ctx = R.context(arg.salt);
    const compare = (el) => R.compare(rec, el, ctx, arg.weights, null);
    for (const candidate of arg.candidates) {
      const found = designated(candidate, arg.salt, root).filter(R.isVisible);
      if (found.length && found.every((el) => gates(compare(el).comparison))) return [found, "exact"];
    }
    if (!arg.allowHeal) return [[], "exact"];
    const similar = ofTag(rec, root).filter((el) => {
      if (!R.isVisible(el)) return false;
      const c = compare(el);
      return gates(c.comparison) && identityAgrees(c.comparison, arg.identity) && c.score >= arg.healMin;
    });
    const parents = new Set(similar.map((el) => el.parentNode));
    if (parents.size > 1) return [[], "ambiguous"];
    return [similar, similar.length ? "healed" : "exact"];
  }

  function filtered(elements, token) {
    if (token === null || token === undefined) return elements;
    return elements.filter((el) => containsToken(visibleText(el), token));
  }

  // Every visible element of the recorded role on the page (inside the loop item, when there is
  // one): the fallback of an input-chosen target whose structural set finds nothing.
  function ofRole(rec, root) {
    if (!rec.role) return [];
    const scope = root || document;
    let nodes;
    try {
      nodes = scope.querySelectorAll(`${CSS.escape(rec.tag)}, [role="${rec.role}"]`);
    } catch (_) {
      return [];
    }
    return Array.prototype.filter.call(nodes, (el) => L.roleOf(el) === rec.role && R.isVisible(el));
  }

  // The element a set-chosen target designates: [elements, healed, ambiguous]. The set's elements
  // whose text holds the token; when the set finds nothing at all (a restructured page) and
  // healing is allowed, every element of the recorded role whose text holds it.
  function chosenElements(arg) {
    const [found, outcome] = findSet(arg.set);
    if (outcome === "ambiguous") return [[], false, true];
    if (found.length || !arg.set.allowHeal) return [filtered(found, arg.token), outcome === "healed", false];
    const root = scopeOf(arg.set.within);
    if (root === undefined) return [[], false, false];  // the loop item is gone
    return [filtered(ofRole(arg.set.fingerprint, root), arg.token), true, false];
  }

  // A target in the row whose text holds the token: the one such row of the row set, then the
  // element in it as a field of an item is found (field). [elements, healed, ambiguous].
  function rowElements(arg) {
    const [rows, outcome] = findSet(arg.row);
    const kept = filtered(rows, arg.token);
    if (outcome === "ambiguous" || kept.length > 1) return [[], false, true];
    if (!kept.length) return [[], false, false];
    const spec = {target: {candidates: arg.set.candidates, fingerprint: arg.set.fingerprint},
      identity: arg.set.identity};
    const [el, how] = field(spec, kept[0], arg.set, R.context(arg.set.salt));
    if (!el) return [[], false, how === "ambiguous"];
    return [[el], outcome === "healed" || how === "healed", false];
  }

  function choose(arg) {
    const [kept, healed, ambiguous] = arg.row ? rowElements(arg) : chosenElements(arg);
    if (ambiguous || kept.length > 1) return {outcome: "many", healed: false};
    if (!kept.length) return {outcome: "none", healed: false};
    const el = kept[0];
    R.release({attr: arg.set.mark.attr});  // the mark of an earlier step, if any
    R.mark(el, arg.set.mark);
    return {outcome: "one", healed, fingerprint: L.features(el, arg.set.salt),
            framed: el.ownerDocument !== document};
  }

  function open(arg) {
    const [found, outcome] = findSet(arg.set);
    const kept = filtered(found, arg.token);
    if (arg.keep) loops.set(arg.loop, {elements: kept, arg});
    return {count: kept.length, outcome};
  }

  // Make item `index` current: it is still in the page, or the list (re-rendered) has as many
  // items as when it was opened and the one at that position is taken.
  function item(arg) {
    const opened = loops.get(arg.loop);
    if (!opened) return {ok: false, known: false};
    const el = opened.elements[arg.index];
    if (el && el.isConnected) return {ok: true, known: true};
    const [found] = findSet(opened.arg.set);
    const again = filtered(found, opened.arg.token);
    if (again.length !== opened.elements.length || arg.index >= again.length) return {ok: false, known: true};
    opened.elements = again;
    return {ok: true, known: true};
  }

  function close(arg) {
    loops.delete(arg.loop);
    return true;
  }

  function readOf(el, read, attribute) {
    if (read === "presence") return true;
    if (read === "value") return "value" in el ? String(el.value).slice(0, MAX_TEXT) : "";
    if (read === "attribute") {
      if (!el.hasAttribute(attribute)) return null;
      // a link destination as the browser resolves it (what a person following it reaches)
      if (attribute === "href" && typeof el.href === "string" && el.href) return el.href.slice(0, MAX_TEXT);
      return String(el.getAttribute(attribute)).slice(0, MAX_TEXT);
    }
    return visibleText(el);
  }

  // The field rule (module comment) for one field of one item.
  function field(spec, itemEl, set, ctx) {
    if (!spec.target) return [itemEl, "ok"];
    const rec = spec.target.fingerprint;
    const compare = (el) => R.compare(rec, el, ctx, set.weights, null);
    for (const candidate of spec.target.candidates) {
      const found = designated(candidate, set.salt, itemEl).filter(R.isVisible);
      if (found.length === 1 && gates(compare(found[0]).comparison)) return [found[0], "ok"];
    }
    if (!set.allowHeal) return [null, "absent"];
    const identity = spec.identity || [];
    const scored = [];
    for (const el of itemEl.getElementsByTagName(rec.tag)) {
      if (!R.isVisible(el)) continue;
      const c = compare(el);
      if (gates(c.comparison)) scored.push([c.score, el, identityAgrees(c.comparison, identity)]);
    }
    scored.sort((a, b) => b[0] - a[0]);
    if (!scored.length || scored[0][0] < set.healMin || !scored[0][2]) return [null, "absent"];
    if (scored.length > 1 && scored[1][0] > scored[0][0] - set.margin) return [null, "ambiguous"];
    return [scored[0][1], "healed"];
  }

  function readFields(fields, itemEl, set) {
    const ctx = R.context(set.salt);
    return fields.map((spec) => {
      const [el, outcome] = field(spec, itemEl, set, ctx);
      if (!el) return {outcome: outcome === "ambiguous" ? "ambiguous" : "absent", value: null, healed: false};
      return {outcome: "ok", value: readOf(el, spec.read, spec.attribute), healed: outcome === "healed"};
    });
  }

  function fields(arg) {
    const itemEl = scopeOf(arg.within);
    if (!itemEl) return arg.fields.map(() => ({outcome: "absent", value: null, healed: false}));
    return readFields(arg.fields, itemEl, arg.set);
  }

  function list(arg) {
    const [found, outcome] = findSet(arg.set);
    const kept = filtered(found, arg.token);
    const rows = kept.slice(0, arg.limit).map((el) => readFields(arg.fields, el, arg.set));
    return {total: kept.length, outcome, rows};
  }

  function read(arg) {
    const el = R.picked();
    if (!el) return {ok: false, value: null};
    return {ok: true, value: readOf(el, arg.read, arg.attribute)};
  }

  function optionByLabel(arg) {
    const el = R.picked();
    if (!el || el.localName !== "select") return null;
    const want = squash(arg.label).toLowerCase();
    const matches = Array.prototype.filter.call(
      el.options, (o) => !o.disabled && squash(o.label || o.textContent).toLowerCase() === want);
    return matches.length === 1 ? matches[0].value : null;
  }

  // A scroll container: the picked element when it scrolls, else the document's scrolling element.
  function scroller(el) {
    const style = getComputedStyle(el);
    const scrolls = /(auto|scroll|overlay)/.test(style.overflowY) && el.scrollHeight > el.clientHeight;
    return scrolls ? el : (el.ownerDocument.scrollingElement || el.ownerDocument.documentElement);
  }

  function scrollState() {
    const el = R.picked();
    if (!el) return null;
    return {height: scroller(el).scrollHeight, count: el.getElementsByTagName("*").length};
  }

  function scrollEnd() {
    const el = R.picked();
    if (!el) return null;
    const box = scroller(el);
    box.scrollTop = box.scrollHeight;
    if (box !== el) el.scrollIntoView({block: "end"});
    return scrollState();
  }

  const API = {choose, open, item, close, fields, list, read, optionByLabel, scrollState, scrollEnd};

  function call(method, arg) {
    if (!Object.prototype.hasOwnProperty.call(API, method)) throw new Error("unknown method");
    return API[method](arg);
  }

  return Object.freeze({...API, call, containsToken, scopeOf, inside, designated});
})();
